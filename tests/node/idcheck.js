// idcheck.js A B DIFF.json — heapwalk's old/new between two V8 heap
// snapshots of one process (DIFF.json: heapwalk diff -f json A B) against
// a reading of the snapshots here, with JSON.parse and none of heapwalk's
// code. The rules, as heapwalk documents them: a node's class is its name
// for objects and natives ("Detached " before a detached native's: one
// the snapshot marks detached, or one a detached native reaches through
// natives the snapshot leaves unmarked, not along hidden, invisible or
// weak edges, and not reached so from an attached native: DevTools'
// propagation),
// "(system)" for hidden nodes, "(compiled code)" for code, "(TYPE)" for
// the others; an id identifies its node when it is odd and the node is
// neither native nor code; an identified id in both snapshots is one
// object when type, class and (for strings) text agree, else one gone and
// one new ("reused"); ids not identified are counted per class only.
// Prints one JSON line {reused, rows, bad: [...]} and exits 1 if any row
// of DIFF.json differs from what is counted here.
'use strict';
const fs = require('fs');

// Each node's DOM state (0 unknown, 1 attached, 2 detached) with the
// snapshot's marks spread among natives: the attached first, then the
// detached to what is still unknown; null without detachedness.
function propagated(s, nf, types, iT, iD) {
	if (iD < 0)
		return null;
	const m = s.snapshot.meta, ef = m.edge_fields.length, etypes = m.edge_types[0];
	const eT = m.edge_fields.indexOf('type'), eTo = m.edge_fields.indexOf('to_node');
	const iE = m.node_fields.indexOf('edge_count'), n = s.nodes.length / nf;
	const first = new Array(n + 1);
	first[0] = 0;
	for (let o = 0; o < n; o++)
		first[o + 1] = first[o] + s.nodes[o * nf + iE];
	const state = new Array(n).fill(0), seen = new Array(n).fill(false);
	const native = (o) => types[s.nodes[o * nf + iT]] === 'native';
	for (let o = 0; o < n; o++)
		if (s.nodes[o * nf + iD] !== 0) {
			state[o] = s.nodes[o * nf + iD];
			seen[o] = true;
		}
	for (const want of [1, 2]) {
		const todo = [];
		for (let o = 0; o < n; o++)
			if (native(o) && s.nodes[o * nf + iD] === want)
				todo.push(o);
		while (todo.length > 0) {
			const o = todo.pop();
			for (let e = first[o]; e < first[o + 1]; e++) {
				const et = etypes[s.edges[e * ef + eT]], to = s.edges[e * ef + eTo] / nf;
				if (et === 'hidden' || et === 'invisible' || et === 'weak' || seen[to])
					continue;
				seen[to] = true; // a JavaScript object is passed, never through
				if (!native(to))
					continue;
				state[to] = want;
				todo.push(to);
			}
		}
	}
	return state;
}

function load(file) {
	const s = JSON.parse(fs.readFileSync(file, 'utf8'));
	const m = s.snapshot.meta, nf = m.node_fields.length, types = m.node_types[0];
	const at = (k) => m.node_fields.indexOf(k);
	const iT = at('type'), iN = at('name'), iI = at('id'), iD = at('detachedness');
	const state = propagated(s, nf, types, iT, iD);
	const nodes = new Map();
	for (let i = 0; i < s.nodes.length; i += nf) {
		if (i / nf === (s.snapshot.root_index || 0))
			continue; // the virtual root is no object
		const t = types[s.nodes[i + iT]], name = s.strings[s.nodes[i + iN]];
		let cls;
		if (t === 'object' || t === 'native')
			cls = (t === 'native' && state !== null && state[i / nf] === 2 ? 'Detached ' : '') + name;
		else
			cls = t === 'hidden' ? '(system)' : t === 'code' ? '(compiled code)' : '(' + t + ')';
		const id = s.nodes[i + iI];
		nodes.set(id, { t, name, cls, known: id % 2 === 1 && t !== 'native' && t !== 'code' });
	}
	return nodes;
}

const [A, B, diffFile] = process.argv.slice(2);
const a = load(A), b = load(B);
const rows = {};
const row = (c) => rows[c] || (rows[c] = { before: 0, now: 0, new: 0, gone: 0, unk_before: 0, unk: 0 });
let reused = 0;
for (const [id, x] of a) {
	const r = row(x.cls);
	r.before++;
	if (!x.known)
		r.unk_before++;
	else if (!b.has(id) || !b.get(id).known)
		r.gone++;
	else {
		const y = b.get(id);
		if (x.t !== y.t || x.cls !== y.cls || (x.t === 'string' && x.name !== y.name)) {
			r.gone++;
			row(y.cls).new++;
			reused++;
		}
	}
}
for (const [id, y] of b) {
	const r = row(y.cls);
	r.now++;
	if (!y.known)
		r.unk++;
	else if (!a.has(id) || !a.get(id).known)
		r.new++;
}
const diff = JSON.parse(fs.readFileSync(diffFile, 'utf8'));
const bad = [];
const seen = new Set();
for (const d of diff.rows) {
	const r = rows[d.class];
	seen.add(d.class);
	const want = r && [r.before, r.now, r.new, r.gone, r.unk_before, r.unk].join(' ');
	const got = [d.instances_before, d.instances, d.new, d.gone, d.unidentified_before, d.unidentified].join(' ');
	if (want !== got)
		bad.push(`${JSON.stringify(d.class)}: heapwalk ${got}, here ${want}`);
}
for (const c of Object.keys(rows))
	if (!seen.has(c) && (rows[c].before || rows[c].now))
		bad.push(`${JSON.stringify(c)}: no row in heapwalk's diff`);
console.log(JSON.stringify({ reused, rows: Object.keys(rows).length, bad: bad.slice(0, 20) }));
process.exit(bad.length ? 1 : 0);
