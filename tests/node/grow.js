// grow.js DIR — five V8 heap snapshots of one process, DIR/s1..s5.heapsnapshot
// (its own: ids kept): before each after the first, the process adds 100
// Grower objects to a list made at the start (a leak that grows every
// time), makes a number of Churn objects that rises and falls (150, 50,
// 200, 20) and drops Shrinking ones (400, then 300, 200, 100, 0 left).
// Prints one JSON line: the live count of each class at each snapshot.
'use strict';
const v8 = require('v8');
const path = require('path');

const dir = process.argv[2] || '.';
const gc = typeof global.gc === 'function' ? global.gc : () => {};

class Grower { constructor(i) { this.i = i; } }
class Churn { constructor(i) { this.i = i; } }
class Shrinking { constructor(i) { this.i = i; } }

const app = { list: new Array(1000).fill(null), used: 0, churn: [], shrinking: [] };
globalThis.grow = app;
for (let i = 0; i < 400; i++)
	app.shrinking.push(new Shrinking(i));
const churn = [0, 150, 50, 200, 20];
const counts = { Grower: [], Churn: [], Shrinking: [] };

function step(k) {
	if (k > 0) {
		for (let i = 0; i < 100; i++)
			app.list[app.used++] = new Grower(k * 100 + i);
		app.churn = [];
		for (let i = 0; i < churn[k]; i++)
			app.churn.push(new Churn(i));
		app.shrinking.length -= 100;
	}
	counts.Grower.push(app.used);
	counts.Churn.push(app.churn.length);
	counts.Shrinking.push(app.shrinking.length);
}

// the code and its feedback made before the first snapshot
step(0);
for (let k = 0; k < 5; k++) {
	if (k > 0)
		step(k);
	gc();
	gc();
	v8.writeHeapSnapshot(path.join(dir, `s${k + 1}.heapsnapshot`));
}
console.log(JSON.stringify(counts));
