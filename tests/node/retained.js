// retained.js SNAPSHOT — an independent reference for heapwalk's tests:
// reads a V8 heap snapshot with JSON.parse and prints, for a few
// objects the workload planted, "id class retained" where retained is
// the bytes (self sizes) that become unreachable when the object is
// removed, by brute force: reachability over the edges that retain in
// DevTools (all but weak ones; shortcut edges only from the root), from
// the root and from every object the root does not reach (DevTools
// hangs those under the root too).
'use strict';
const fs = require('fs');
const s = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const m = s.snapshot.meta;
const nf = m.node_fields.length, ef = m.edge_fields.length;
const N = s.nodes, E = s.edges, S = s.strings;
const ntypes = m.node_types[0], etypes = m.edge_types[0];
const f = (name) => m.node_fields.indexOf(name);
const T = f('type'), NM = f('name'), ID = f('id'), SZ = f('self_size'), EC = f('edge_count');
const n = N.length / nf;
const first = new Uint32Array(n + 1);
for (let i = 0; i < n; i++) first[i + 1] = first[i] + N[i * nf + EC];
const root = s.snapshot.root_index || 0;
const weak = etypes.indexOf('weak'), shortcut = etypes.indexOf('shortcut');

function reach(removed) {
	const seen = new Uint8Array(n), stack = [];
	const push = (k) => { if (k !== root && k !== removed && !seen[k]) { seen[k] = 1; stack.push(k); } };
	const walk = () => {
		while (stack.length) {
			const k = stack.pop();
			for (let e = first[k]; e < first[k + 1]; e++) {
				const t = E[e * ef];
				if (t !== weak && t !== shortcut) push(E[e * ef + 2] / nf);
			}
		}
	};
	for (let e = first[root]; e < first[root + 1]; e++)
		if (E[e * ef] !== weak) push(E[e * ef + 2] / nf);
	walk();
	return seen;
}
const base = reach(-1);
const className = (k) => S[N[k * nf + NM]];
function retained(k) {
	// the objects the root does not reach start walks of their own
	const seen = new Uint8Array(n), stack = [];
	const push = (j) => { if (j !== root && j !== k && !seen[j]) { seen[j] = 1; stack.push(j); } };
	for (let e = first[root]; e < first[root + 1]; e++)
		if (E[e * ef] !== weak) push(E[e * ef + 2] / nf);
	for (let j = 0; j < n; j++) if (!base[j]) push(j);
	while (stack.length) {
		const j = stack.pop();
		for (let e = first[j]; e < first[j + 1]; e++) {
			const t = E[e * ef];
			if (t !== weak && t !== shortcut) push(E[e * ef + 2] / nf);
		}
	}
	let sum = 0;
	for (let j = 0; j < n; j++) if (j !== root && !seen[j]) sum += N[j * nf + SZ];
	return sum;
}
// planted objects: the workload object (the one with a "bus" property),
// its tree root and its Map, the first Leaky
const isObj = (k) => ntypes[N[k * nf + T]] === 'object';
const prop = (k, name) => {
	for (let e = first[k]; e < first[k + 1]; e++)
		if (etypes[E[e * ef]] === 'property' && S[E[e * ef + 1]] === name) return E[e * ef + 2] / nf;
	return -1;
};
const picks = [];
let w = -1;
for (let k = 0; k < n && w < 0; k++) if (isObj(k) && prop(k, 'bus') >= 0 && prop(k, 'root') >= 0) w = k;
if (w >= 0) picks.push(w, prop(w, 'root'), prop(w, 'map'));
for (let k = 0; k < n; k++) if (isObj(k) && className(k) === 'Leaky') { picks.push(k); break; }
for (const k of picks) console.log(N[k * nf + ID], className(k), retained(k));
