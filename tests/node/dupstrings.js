// dupstrings.js SNAPSHOT — an independent reference for heapwalk's
// duplicate-strings on V8: the values held by two or more string nodes
// (flat strings, and concatenated ones made of their "first" and
// "second" parts), with their counts, read with JSON.parse. Prints
// "COUNT<TAB>VALUE" for the 5 most frequent ASCII values; with REGEX
// (dupstrings.js SNAPSHOT REGEX, for string-regex), for every value it
// matches, however often, in the order of their bytes.
'use strict';
const fs = require('fs');
const s = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const m = s.snapshot.meta;
const nf = m.node_fields.length, ef = m.edge_fields.length;
const N = s.nodes, E = s.edges, S = s.strings;
const types = m.node_types[0], etypes = m.edge_types[0];
const T = m.node_fields.indexOf('type'), NM = m.node_fields.indexOf('name');
const EC = m.node_fields.indexOf('edge_count');
const n = N.length / nf;
const first = new Uint32Array(n + 1);
for (let i = 0; i < n; i++) first[i + 1] = first[i] + N[i * nf + EC];
const named = (k, want) => {
	for (let e = first[k]; e < first[k + 1]; e++) {
		const t = etypes[E[e * ef]];
		if (t !== 'element' && t !== 'hidden' && S[E[e * ef + 1]] === want) return E[e * ef + 2] / nf;
	}
	return -1;
};
function text(k, depth) {
	const t = types[N[k * nf + T]];
	if (t === 'string') return S[N[k * nf + NM]];
	if (t !== 'concatenated string' || depth > 1000) return null;
	const a = named(k, 'first'), b = named(k, 'second');
	if (a < 0 || b < 0) return null;
	const x = text(a, depth + 1), y = text(b, depth + 1);
	return x === null || y === null ? null : x + y;
}
const count = new Map();
for (let k = 0; k < n; k++) {
	const t = types[N[k * nf + T]];
	if (t !== 'string' && t !== 'concatenated string') continue;
	const v = text(k, 0);
	if (v !== null) count.set(v, (count.get(v) || 0) + 1);
}
if (process.argv[3] !== undefined) { // REGEX: every value it matches, with its count
	const re = new RegExp(process.argv[3]);
	for (const [v, c] of [...count.entries()].filter(([v]) => re.test(v)).sort((a, b) => (a[0] < b[0] ? -1 : 1)))
		console.log(c + '\t' + v);
	process.exit(0);
}
const top = [...count.entries()].filter(([v, c]) => c >= 2 && /^[\x20-\x7e]{1,60}$/.test(v) && !/[",]/.test(v))
	.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 5);
for (const [v, c] of top) console.log(c + '\t' + v);
