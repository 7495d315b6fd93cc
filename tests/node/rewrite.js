// rewrite.js N DIR — two snapshots the process writes itself
// (v8.writeHeapSnapshot, no inspector session, so V8's ids last from
// one to the other): DIR/w1.heapsnapshot holding N concatenated
// strings, then DIR/w2.heapsnapshot after each was used as a property
// key, which internalizes it: the N concatenated strings are gone (each
// now a thin string to an internalized copy), whatever else stayed.
'use strict';
const v8 = require('v8');

const n = Number(process.argv[2]), dir = process.argv[3];
const pre = 'a-fairly-long-prefix-string-';
const held = [];
for (let i = 0; i < n; i++)
	held.push(pre + i);
globalThis.held = held;
v8.writeHeapSnapshot(dir + '/w1.heapsnapshot');
const keys = {};
for (const s of held)
	keys[s] = 1;
globalThis.keys = keys;
v8.writeHeapSnapshot(dir + '/w2.heapsnapshot');
