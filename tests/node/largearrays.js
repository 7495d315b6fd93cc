// largearrays.js SNAPSHOT [N] — an independent reference for heapwalk's
// largest-arrays on V8, read with JSON.parse: the nodes of type "array"
// (FixedArrays) and the natives named "system / JSArrayBufferData"
// (ArrayBuffer stores), by self size (larger first, then the lower id),
// with their length: an array's references by index (edges of type
// element, and internal or weak ones whose name is an index), a
// store's bytes.
// Prints "ID<TAB>SELF_SIZE<TAB>LENGTH" for the first N (default 8).
'use strict';
const fs = require('fs');
const s = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const want = +(process.argv[3] || 8);
const m = s.snapshot.meta, S = s.strings, N = s.nodes, E = s.edges;
const nf = m.node_fields.length, ef = m.edge_fields.length;
const T = m.node_fields.indexOf('type'), NM = m.node_fields.indexOf('name');
const ID = m.node_fields.indexOf('id'), SZ = m.node_fields.indexOf('self_size');
const EC = m.node_fields.indexOf('edge_count');
const types = m.node_types[0], etypes = m.edge_types[0];
const found = [];
for (let i = 0, e = 0; i < N.length; i += nf) {
	const t = types[N[i + T]], ne = N[i + EC];
	if (t === 'array') {
		let len = 0;
		for (let k = e; k < e + ne; k++) {
			const et = etypes[E[k * ef]];
			if (et === 'element' || ((et === 'internal' || et === 'weak') && /^[0-9]/.test(S[E[k * ef + 1]])))
				len++;
		}
		found.push([N[i + ID], N[i + SZ], len]);
	} else if (t === 'native' && S[N[i + NM]] === 'system / JSArrayBufferData') {
		found.push([N[i + ID], N[i + SZ], N[i + SZ]]);
	}
	e += ne;
}
found.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
for (const [id, size, len] of found.slice(0, want)) console.log(id + '\t' + size + '\t' + len);
