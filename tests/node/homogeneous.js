// homogeneous.js DIR [N] — a homogeneous heap written as two V8 heap
// snapshots: N instances of class Thing whose only fields are small
// integers (a snapshot records no value of them: no string, no reference
// tells one Thing from another) and a Payload of its own (alike too)
// held in one array, DIR/a.heapsnapshot;
// then 1,000 dropped at the array's head and 1,000 others made at its
// end, DIR/b.heapsnapshot. V8's ids say which are which; a matcher that
// pairs the Things in order would call none new.
'use strict';
const v8 = require('v8');
const path = require('path');

const dir = process.argv[2] || '.';
const n = Number(process.argv[3] || 20000);
class Payload { constructor(i) { this.k = i; } }
class Thing { constructor(i) { this.i = i; this.j = i * 2; this.p = new Payload(i); } }
const held = [];
for (let i = 0; i < n; i++)
	held.push(new Thing(i));
globalThis.held = held;
const gc = typeof global.gc === 'function' ? global.gc : () => {};
gc();
v8.writeHeapSnapshot(path.join(dir, 'a.heapsnapshot'));
held.splice(0, 1000);
for (let i = 0; i < 1000; i++)
	held.push(new Thing(-i));
gc();
v8.writeHeapSnapshot(path.join(dir, 'b.heapsnapshot'));
