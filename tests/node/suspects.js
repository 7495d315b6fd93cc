// suspects.js FILE — a V8 heap for the HTML report's test
// (tests/test_report.c): one global holder of two arrays, neither with
// 80% of what it holds: 20000 Foo objects, each with a Bar and its array
// of 48 numbers, and 1500 Float64Array(512). The holder is an object
// suspect; the classes Foo, Bar and (array) accumulate in the first
// array, Float64Array, ArrayBuffer and their stores in the second: two
// points, three suspects each. Writes the snapshot to FILE.
'use strict';
class Bar { constructor(i) { this.data = new Array(48).fill(i + 0.5); } }
class Foo { constructor(i) { this.bar = new Bar(i); this.id = i; } }
class Holder { constructor() { this.entries = []; this.blocks = []; } }
const h = new Holder();
for (let i = 0; i < 20000; i++)
	h.entries.push(new Foo(i));
for (let i = 0; i < 1500; i++)
	h.blocks.push(new Float64Array(512));
globalThis.holder = h;
require('v8').writeHeapSnapshot(process.argv[2]);
