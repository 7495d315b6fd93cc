// leakcheck.js BASE TARGET FINAL LEAKS.json — heapwalk's leaks (LEAKS.json:
// heapwalk leaks -f json -n 0 BASE TARGET FINAL, of leaks.js's snapshots)
// against a reading of the snapshots here, with JSON.parse and none of
// heapwalk's code. leaks.js makes Leaked objects that the undo keeps,
// Freed ones it releases and Transient ones it drops. Checks: the
// clusters whose class is Leaked hold every Leaked object of FINAL, each
// once, and nothing else; the Keyed objects (new keys of a dictionary)
// and the Leaf objects (under a tree's leaves) each make one cluster of
// all of them; the Held objects of two global variables make two, each
// named by its variable; FINAL has no Freed or Transient object and no cluster
// names them; every object any cluster selects is in FINAL and TARGET and
// not in BASE (the leak's definition).
// Prints one JSON line and exits 1 on the first fault.
'use strict';
const fs = require('fs');

function load(file) {
	const s = JSON.parse(fs.readFileSync(file, 'utf8'));
	const m = s.snapshot.meta, nf = m.node_fields.length, types = m.node_types[0];
	const iT = m.node_fields.indexOf('type'), iN = m.node_fields.indexOf('name'), iI = m.node_fields.indexOf('id');
	const ids = new Set(), byName = new Map();
	for (let i = 0; i < s.nodes.length; i += nf) {
		const id = s.nodes[i + iI];
		ids.add(id);
		if (types[s.nodes[i + iT]] !== 'object')
			continue;
		const name = s.strings[s.nodes[i + iN]];
		if (!byName.has(name))
			byName.set(name, []);
		byName.get(name).push(id);
	}
	return { ids, byName };
}

function fail(what) {
	console.log(JSON.stringify({ ok: false, fault: what }));
	process.exit(1);
}

const [base, target, fin] = process.argv.slice(2, 5).map(load);
const out = JSON.parse(fs.readFileSync(process.argv[5], 'utf8'));
const leaked = fin.byName.get('Leaked') || [];
if (leaked.length !== 300)
	fail(`FINAL has ${leaked.length} Leaked objects, leaks.js keeps 300`);
for (const c of ['Freed', 'Transient'])
	if ((fin.byName.get(c) || []).length !== 0)
		fail(`FINAL still has ${c} objects: the workload did not free them`);
// each cluster's select (its last row): "object 0x1,0x2"
const clusters = new Map();
for (const r of out.rows)
	if (r.select !== null)
		clusters.set(r.cluster, { cls: r.class, ids: r.select.replace(/^object /, '').split(',').map((x) => parseInt(x, 16)) });
if (clusters.size !== out.clusters)
	fail(`${clusters.size} clusters with a select, the header says ${out.clusters}`);
const seen = new Set();
for (const [k, c] of clusters) {
	if (c.cls === 'Freed' || c.cls === 'Transient')
		fail(`cluster ${k} is of ${c.cls}`);
	for (const id of c.ids) {
		if (seen.has(id))
			fail(`id ${id} in two clusters`);
		seen.add(id);
		if (!fin.ids.has(id) || !target.ids.has(id) || base.ids.has(id))
			fail(`cluster ${k} selects ${id}: in final ${fin.ids.has(id)}, target ${target.ids.has(id)}, base ${base.ids.has(id)}`);
	}
}
const inLeaked = new Set();
for (const c of clusters.values())
	if (c.cls === 'Leaked')
		c.ids.forEach((id) => inLeaked.add(id));
for (const id of leaked)
	if (!inLeaked.has(id))
		fail(`Leaked object ${id} is in no Leaked cluster`);
if (inLeaked.size !== leaked.length)
	fail(`the Leaked clusters select ${inLeaked.size} objects, FINAL has ${leaked.length} Leaked`);
// a dictionary's new keys and a tree's leaves, each one cluster (the
// keys one slot, the tree's left and right one step) holding them all
for (const [cls, n] of [['Keyed', 50], ['Leaf', 32]]) {
	const objs = fin.byName.get(cls) || [];
	const of = [...clusters.values()].filter((c) => c.cls === cls);
	if (objs.length !== n || of.length !== 1 || of[0].ids.length !== n)
		fail(`${cls}: FINAL has ${objs.length}, leaks.js ${n}; ${of.length} clusters, the first of ${of.length ? of[0].ids.length : 0}`);
	const sel = new Set(of[0].ids);
	for (const id of objs)
		if (!sel.has(id))
			fail(`${cls} ${id} is not in its cluster`);
}
// the Held objects two global variables keep (60 in leakA, 40 in
// leakB, arrays of more than 32 both): two clusters, each named by its
// variable at its first step
const held = fin.byName.get('Held') || [];
if (held.length !== 100)
	fail(`FINAL has ${held.length} Held objects, leaks.js keeps 100`);
const heldCl = [...clusters.entries()].filter(([, c]) => c.cls === 'Held');
const via0 = new Map(out.rows.filter((r) => r.step === 0).map((r) => [r.cluster, r.via]));
const byCount = new Map(heldCl.map(([k, c]) => [c.ids.length, via0.get(k)]));
if (heldCl.length !== 2 || byCount.get(60) !== 'leakA' || byCount.get(40) !== 'leakB')
	fail(`the Held clusters: ${JSON.stringify(heldCl.map(([k, c]) => [c.ids.length, via0.get(k)]))}, want 60 by leakA, 40 by leakB`);
console.log(JSON.stringify({ ok: true, clusters: out.clusters, leaked: leaked.length }));
