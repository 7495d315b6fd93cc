// v8gen.js MILLIONS OUT — a Node heap of about MILLIONS million snapshot
// nodes, of the shapes a real service has (records with properties and
// strings, arrays of numbers, closures over their record, Maps of
// them), written with v8.writeHeapSnapshot to OUT. For timing the
// snapshot reader:
//   node --max-old-space-size=8192 bench/v8gen.js 1.4 /tmp/b1.heapsnapshot
'use strict';
const v8 = require('v8');

const millions = Number(process.argv[2] || 1);
const out = process.argv[3] || 'bench.heapsnapshot';
// about ten snapshot nodes a record (counted on Node 20): the record,
// its two strings, its array and its elements store, the closure, its
// context, the Map entry's share; the process itself has ~40 000
const PER_RECORD = 10;
const records = Math.max(1, Math.round((millions * 1e6 - 40000) / PER_RECORD));

class Customer {
	constructor(i) {
		this.id = i;
		this.name = 'customer-' + i;          // a string of its own
		this.email = `c${i}@example.${i % 7}`;  // another
		this.scores = [i % 3, i % 5, i % 11];   // a small array
		this.parent = null;
		const self = this;
		this.onChange = () => self.id + 1;     // a closure with a context
	}
}

const groups = [];
let current = new Map();
let prev = null;
for (let i = 0; i < records; i++) {
	const c = new Customer(i);
	c.parent = prev; // a chain through the heap: long retention paths
	prev = i % 1000 === 0 ? null : c;
	current.set(i, c);
	if (current.size === 5000) {
		groups.push(current);
		current = new Map();
	}
}
groups.push(current);
globalThis.benchHeap = groups;
v8.writeHeapSnapshot(out);
console.log(JSON.stringify({ records, file: out }));
