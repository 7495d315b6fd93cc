// leaks3.js OUTDIR [N] — three V8 heap snapshots of this process for
// `make bench`'s leaks run: base.heapsnapshot with about N objects
// (default 300,000 records of a few objects each: over a million nodes),
// target.heapsnapshot after an action that keeps 50,000 new records in
// a cache and makes 50,000 more it lets go of on undo, final.heapsnapshot
// after the undo (a GC first each time, --expose-gc).
'use strict';
const v8 = require('v8');
const path = require('path');
const out = process.argv[2];
const n = Number(process.argv[3] || 300000);
function rec(i) { return { id: i, name: 'r' + i, tags: [i, i + 1], at: { x: i } }; }
const live = [];
for (let i = 0; i < n; i++) live.push(rec(i));
function snap(name) {
  global.gc();
  v8.writeHeapSnapshot(path.join(out, name + '.heapsnapshot'));
}
snap('base');
class LeakedSession { constructor(i) { this.r = rec(i); } }
class TempBuffer { constructor(i) { this.r = rec(i); } }
const cache = new Map();
let temp = [];
for (let i = 0; i < 50000; i++) { cache.set(i, new LeakedSession(i)); temp.push(new TempBuffer(i)); }
snap('target');
temp = null;
snap('final');
console.log(live.length + cache.size);
