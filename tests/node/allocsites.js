// allocsites.js SNAPSHOT [N] — an independent reference for heapwalk's
// allocation hot spots on V8: for every live node with a trace_node_id,
// the function of that trace_tree node (the allocating one); objects
// and self sizes summed per function (name, script, line), read with
// JSON.parse. Prints "COUNT<TAB>BYTES<TAB>NAME (SCRIPT:LINE)" for the
// N (default 5) functions with the most objects.
'use strict';
const fs = require('fs');
const s = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const want = +(process.argv[3] || 5);
const m = s.snapshot.meta, S = s.strings;
const nf = m.node_fields.length, N = s.nodes;
const TR = m.node_fields.indexOf('trace_node_id'), SZ = m.node_fields.indexOf('self_size');
const ff = m.trace_function_info_fields, F = s.trace_function_infos;
const fw = ff.length, FN = ff.indexOf('name'), FS = ff.indexOf('script_name'), FL = ff.indexOf('line');
const tf = m.trace_node_fields, TID = tf.indexOf('id'), TFI = tf.indexOf('function_info_index');
const TCH = tf.indexOf('children');
const fnOf = new Map(); // trace node id -> function info index
(function walk(list) {
	for (let i = 0; i < list.length; i += tf.length) {
		fnOf.set(list[i + TID], list[i + TFI]);
		walk(list[i + TCH]);
	}
})(s.trace_tree);
const root = s.trace_tree[TID]; // the tree's root, "(root)", is no function
const sites = new Map();
for (let i = 0; i < N.length; i += nf) {
	const t = N[i + TR];
	if (t === 0 || !fnOf.has(t)) continue;
	if (t === root) continue;
	const f = fnOf.get(t) * fw;
	const name = (S[F[f + FN]] || '(anonymous)') +
		(S[F[f + FS]] ? ' (' + S[F[f + FS]] + (F[f + FL] > 0 ? ':' + F[f + FL] : '') + ')' : '');
	const x = sites.get(name) || [0, 0];
	x[0]++;
	x[1] += N[i + SZ];
	sites.set(name, x);
}
const top = [...sites.entries()].sort((a, b) => b[1][0] - a[1][0] || b[1][1] - a[1][1] || (a[0] < b[0] ? -1 : 1));
for (const [name, [c, b]] of top.slice(0, want)) console.log(c + '\t' + b + '\t' + name);
