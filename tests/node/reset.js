// reset.js DIR [BORN] — two V8 heap snapshots of one process, DIR/a.heapsnapshot
// and DIR/b.heapsnapshot (v8.writeHeapSnapshot), and between them an
// inspector session of the process's own that takes a snapshot and ends:
// V8 numbers its objects afresh after it, so that b's ids name other
// objects than a's. 1000 Kept objects live through both; BORN (300) Born
// are made after the session. Prints what it held: {"Kept":1000,"Born":N}.
'use strict';
const v8 = require('v8');
const inspector = require('inspector');
const path = require('path');

const dir = process.argv[2] || '.';
const nborn = Number(process.argv[3] || 300);

class Kept { constructor(i) { this.k = i; } }
class Born { constructor(i) { this.b = i; } }

const kept = [];
for (let i = 0; i < 1000; i++)
	kept.push(new Kept(i));
v8.writeHeapSnapshot(path.join(dir, 'a.heapsnapshot'));

const s = new inspector.Session();
s.connect();
s.on('HeapProfiler.addHeapSnapshotChunk', () => {});
s.post('HeapProfiler.takeHeapSnapshot', null, (err) => {
	if (err)
		throw err;
	s.disconnect();
	const born = [];
	for (let i = 0; i < nborn; i++)
		born.push(new Born(i));
	v8.writeHeapSnapshot(path.join(dir, 'b.heapsnapshot'));
	console.log(JSON.stringify({ Kept: kept.length, Born: born.length }));
});
