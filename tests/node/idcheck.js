// idcheck.js A B DIFF.json — heapwalk's old/new between two V8 heap
// snapshots of one process (DIFF.json: heapwalk diff -f json A B) against
// a reading of the snapshots here, with JSON.parse and none of heapwalk's
// code. The rules, as heapwalk documents them: a node's class is its name
// for objects and natives ("Detached " before a detached native's),
// "(system)" for hidden nodes, "(compiled code)" for code, "(TYPE)" for
// the others; an id identifies its node when it is odd and the node is
// neither native nor code; an identified id in both snapshots is one
// object when type, class and (for strings) text agree, else one gone and
// one new ("reused"); ids not identified are counted per class only.
// Prints one JSON line {reused, rows, bad: [...]} and exits 1 if any row
// of DIFF.json differs from what is counted here.
'use strict';
const fs = require('fs');

function load(file) {
	const s = JSON.parse(fs.readFileSync(file, 'utf8'));
	const m = s.snapshot.meta, nf = m.node_fields.length, types = m.node_types[0];
	const at = (k) => m.node_fields.indexOf(k);
	const iT = at('type'), iN = at('name'), iI = at('id'), iD = at('detachedness');
	const nodes = new Map();
	for (let i = 0; i < s.nodes.length; i += nf) {
		if (i / nf === (s.snapshot.root_index || 0))
			continue; // the virtual root is no object
		const t = types[s.nodes[i + iT]], name = s.strings[s.nodes[i + iN]];
		let cls;
		if (t === 'object' || t === 'native')
			cls = (t === 'native' && iD >= 0 && s.nodes[i + iD] === 2 ? 'Detached ' : '') + name;
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
