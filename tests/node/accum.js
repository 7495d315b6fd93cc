// accum.js DIR — a V8 heap whose Spread objects hold most of it though
// no one object keeps them alive: 3000 Spreads, each with an array of 200
// numbers, each held from two globals (two arrays, each its own root's
// way: the global object's and a timer's closure's). Writes
// DIR/accum.heapsnapshot and prints, read back from it by brute force
// (JSON.parse, reachability as DevTools has it: weak edges hold nothing,
// shortcuts only from the root): one line "Spread COUNT OWN ALL HOLDERS":
// OWN the bytes each of them holds alone (itself and what only it
// reaches), summed; ALL the bytes that become unreachable when they all
// go; HOLDERS the distinct objects with a strong edge to one of them.
'use strict';
const fs = require('fs');
const path = require('path');
const v8 = require('v8');

class Spread { constructor(i) { this.data = new Array(200).fill(i + 0.5); } }
globalThis.KEEP_A = [];
const keepB = []; // a timer's closure's: not the global object's
const timer = setInterval(() => keepB.length, 1e9);
for (let i = 0; i < 3000; i++) {
	const s = new Spread(i);
	KEEP_A.push(s);
	keepB.push(s);
}
const file = path.join(process.argv[2], 'accum.heapsnapshot');
v8.writeHeapSnapshot(file);

const s = JSON.parse(fs.readFileSync(file, 'utf8'));
const m = s.snapshot.meta;
const nf = m.node_fields.length, ef = m.edge_fields.length;
const N = s.nodes, E = s.edges, S = s.strings;
const etypes = m.edge_types[0];
const f = (name) => m.node_fields.indexOf(name);
const NM = f('name'), SZ = f('self_size'), EC = f('edge_count');
const ET = m.edge_fields.indexOf('type'), TO = m.edge_fields.indexOf('to_node');
const n = N.length / nf;
const first = new Uint32Array(n + 1);
for (let i = 0; i < n; i++) first[i + 1] = first[i] + N[i * nf + EC];
const root = s.snapshot.root_index || 0;
const weak = etypes.indexOf('weak'), shortcut = etypes.indexOf('shortcut');
const strongEdge = (k, e) => E[e * ef + ET] !== weak && (E[e * ef + ET] !== shortcut || k === root);

function unreachable(removed) {
	const seen = new Uint8Array(n), stack = [root];
	seen[root] = 1;
	while (stack.length) {
		const k = stack.pop();
		for (let e = first[k]; e < first[k + 1]; e++) {
			const t = E[e * ef + TO] / nf;
			if (!seen[t] && !removed[t] && strongEdge(k, e)) {
				seen[t] = 1;
				stack.push(t);
			}
		}
	}
	return seen;
}

const live = unreachable(new Uint8Array(n));
for (const cls of ['Spread']) {
	const is = new Uint8Array(n);
	let count = 0;
	for (let i = 0; i < n; i++)
		if (S[N[i * nf + NM]] === cls && live[i] && N[i * nf + f('type')] === m.node_types[0].indexOf('object')) {
			is[i] = 1;
			count++;
		}
	const after = unreachable(is);
	let bytes = 0, lb = 0;
	for (let i = 0; i < n; i++)
		if (live[i] && !after[i])
			bytes += N[i * nf + SZ];
	// what one of them alone holds: of what goes with them all, the
	// objects that only one of them reaches (without passing another)
	const owner = new Int32Array(n).fill(-1); // -2: more than one
	for (let i = 0; i < n; i++) {
		if (!is[i])
			continue;
		lb += N[i * nf + SZ];
		const stack = [i], seen = new Set([i]);
		while (stack.length) {
			const k = stack.pop();
			for (let e = first[k]; e < first[k + 1]; e++) {
				const t = E[e * ef + TO] / nf;
				if (is[t] || after[t] || !live[t] || seen.has(t) || !strongEdge(k, e))
					continue;
				seen.add(t);
				owner[t] = owner[t] === -1 ? i : -2;
				stack.push(t);
			}
		}
	}
	for (let t = 0; t < n; t++)
		if (owner[t] >= 0)
			lb += N[t * nf + SZ];
	const holders = new Set();
	for (let k = 0; k < n; k++)
		for (let e = first[k]; e < first[k + 1]; e++)
			if (is[E[e * ef + TO] / nf] && k !== root && strongEdge(k, e))
				holders.add(k);
	console.log(cls, count, lb, bytes, holders.size);
}
clearInterval(timer);
