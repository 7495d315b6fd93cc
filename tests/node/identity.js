// identity.js DIR — two V8 heap snapshots of one process, DIR/a.heapsnapshot
// and DIR/b.heapsnapshot, between which the script knows what it made and
// dropped, and churns the heap so that V8's ids pass from dead objects to
// new ones: functions compiled, run and dropped (their code, bytecode and
// internalized string constants die in old space, and the next ones are
// allocated over them), ArrayBuffers freed and malloc'd again, short-lived
// objects and GCs. Prints one JSON line: per class of the script, the
// objects held at a and at b, and how many of b's were made after a.
'use strict';
const v8 = require('v8');
const path = require('path');

const dir = process.argv[2] || '.';
const gc = typeof global.gc === 'function' ? global.gc : () => {};

class Kept { constructor(i) { this.k = i; } }
class Dropped { constructor(i) { this.d = i; } }
class Born { constructor(i) { this.b = i; } }
class Passing { constructor(i) { this.p = i; } }
class Swapped { constructor(i) { this.s = i; } }

const N = { Kept: 500, Dropped: 300, Born: 400, Swapped: 200 };
// code whose constants are strings no other code has
function compile(tag, n) {
	const fns = [];
	for (let i = 0; i < n; i++) {
		const f = new Function('x', `return x + "${tag}${i}_" + "${tag}z${i}".length;`);
		f(i);
		fns.push(f);
	}
	return fns;
}

const hold = { kept: [], dropped: [], swapped: [], fns: compile('old', 400), bufs: [] };
for (let i = 0; i < N.Kept; i++)
	hold.kept.push(new Kept(i));
for (let i = 0; i < N.Dropped; i++)
	hold.dropped.push(new Dropped(i));
for (let i = 0; i < N.Swapped; i++)
	hold.swapped.push(new Swapped(i));
for (let i = 0; i < 100; i++)
	hold.bufs.push(new ArrayBuffer(4096 + 8 * i));
globalThis.identity = hold;
gc();
v8.writeHeapSnapshot(path.join(dir, 'a.heapsnapshot'));

// between the snapshots: drop, churn, make
hold.dropped = null;
hold.fns = null;
hold.bufs = null;
hold.swapped.splice(0, N.Swapped / 2); // the first half dropped ...
gc();
gc();
for (let r = 0; r < 3; r++) {
	let t = [];
	for (let i = 0; i < 20000; i++)
		t.push(new Passing(i), { r, i }, 'x' + r + '_' + i);
	t = null;
	gc();
}
hold.fns2 = compile('new', 400);
hold.bufs2 = [];
for (let i = 0; i < 100; i++)
	hold.bufs2.push(new ArrayBuffer(4096 + 8 * i));
hold.born = [];
for (let i = 0; i < N.Born; i++)
	hold.born.push(new Born(i));
for (let i = 0; i < N.Swapped / 2; i++) // ... and as many new ones
	hold.swapped.push(new Swapped(1000 + i));
gc();
v8.writeHeapSnapshot(path.join(dir, 'b.heapsnapshot'));

console.log(JSON.stringify({
	a: { Kept: N.Kept, Dropped: N.Dropped, Born: 0, Passing: 0, Swapped: N.Swapped },
	b: { Kept: N.Kept, Dropped: 0, Born: N.Born, Passing: 0, Swapped: N.Swapped },
	made: { Kept: 0, Dropped: 0, Born: N.Born, Passing: 0, Swapped: N.Swapped / 2 },
}));
