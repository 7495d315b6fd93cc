// snapcheck.js FILE [CLASS...] — what a V8 heap snapshot holds, read
// with JSON.parse, independently of the C reader: one JSON line with the
// node, edge and string counts, nodes per type, the sum of self sizes,
// the sum of ids and of edge targets (as node ordinals) modulo 2^64,
// edges per type, the decoded strings' total UTF-8 length and FNV-1a
// hash, the object nodes named after each CLASS, and of allocation
// tracking: the records of trace_function_infos, locations and samples,
// the trace tree's nodes and the sum of their parents' numbers in
// pre-order (top-level nodes adding nothing).
'use strict';
const fs = require('fs');

const file = process.argv[2];
const classes = process.argv.slice(3);
const snap = JSON.parse(fs.readFileSync(file, 'utf8'));
const meta = snap.snapshot.meta;
const nf = meta.node_fields.length, ef = meta.edge_fields.length;
const nodeTypes = meta.node_types[0], edgeTypes = meta.edge_types[0];
const f = (list, name) => list.indexOf(name);
const nType = f(meta.node_fields, 'type'), nName = f(meta.node_fields, 'name');
const nId = f(meta.node_fields, 'id'), nSize = f(meta.node_fields, 'self_size');
const nEdges = f(meta.node_fields, 'edge_count');
const eType = f(meta.edge_fields, 'type'), eTo = f(meta.edge_fields, 'to_node');
const M64 = (1n << 64n) - 1n;

const out = {
	nodes: snap.nodes.length / nf, edges: snap.edges.length / ef, strings: snap.strings.length,
	types: {}, self_size: 0, id_sum: 0n, edge_count_sum: 0, edge_types: {}, to_sum: 0n,
	string_bytes: 0, string_hash: 0, classes: {},
};
for (const c of classes)
	out.classes[c] = 0;
for (let i = 0; i < snap.nodes.length; i += nf) {
	const t = nodeTypes[snap.nodes[i + nType]];
	out.types[t] = (out.types[t] || 0) + 1;
	out.self_size += snap.nodes[i + nSize];
	out.id_sum = (out.id_sum + BigInt(snap.nodes[i + nId])) & M64;
	out.edge_count_sum += snap.nodes[i + nEdges];
	const name = snap.strings[snap.nodes[i + nName]];
	if (t === 'object' && Object.prototype.hasOwnProperty.call(out.classes, name))
		out.classes[name]++;
}
for (let i = 0; i < snap.edges.length; i += ef) {
	const t = edgeTypes[snap.edges[i + eType]];
	out.edge_types[t] = (out.edge_types[t] || 0) + 1;
	out.to_sum = (out.to_sum + BigInt(snap.edges[i + eTo] / nf)) & M64;
}
// FNV-1a over each string's UTF-8 bytes, then a 0 byte between strings
let h = 0x811c9dc5;
for (const s of snap.strings) {
	const b = Buffer.from(s, 'utf8');
	out.string_bytes += b.length;
	for (const c of b)
		h = Math.imul(h ^ c, 0x01000193) >>> 0;
	h = Math.imul(h, 0x01000193) >>> 0;
}
out.string_hash = h;
const width = (list, dflt) => (list ? list.length : dflt);
out.tfi = snap.trace_function_infos.length / width(meta.trace_function_info_fields, 6);
out.locations = snap.locations.length / width(meta.location_fields, 4);
out.samples = snap.samples.length / width(meta.sample_fields, 2);
const tw = width(meta.trace_node_fields, 5);
let ttn = 0, parents = 0;
const walk = (arr, parent) => {
	for (let i = 0; i < arr.length; i += tw) {
		const me = ttn++;
		if (parent >= 0)
			parents += parent;
		walk(arr[i + tw - 1], me);
	}
};
walk(snap.trace_tree, -1);
out.trace_nodes = ttn;
out.trace_parent_sum = parents;
out.id_sum = out.id_sum.toString();
out.to_sum = out.to_sum.toString();
console.log(JSON.stringify(out));
