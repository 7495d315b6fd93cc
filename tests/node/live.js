// live.js N READY [LIFE_S] — a Node process to be snapshotted from
// outside: it makes and holds N instances of class LiveThing (N
// given, so the test knows the count independently of any reader),
// writes READY (the file) once they are made, prints N, and lives
// LIFE_S seconds (120 unless told), then ends by itself. On SIGUSR2 it
// makes 37 more, then writes READY.more.
'use strict';
const fs = require('fs');

class LiveThing {
	constructor(i) { this.i = i; this.tag = 'thing' + i; }
}

const n = Number(process.argv[2]);
const held = [];
for (let i = 0; i < n; i++)
	held.push(new LiveThing(i));
globalThis.liveHeld = held;
fs.writeFileSync(process.argv[3], String(n) + '\n');
process.on('SIGUSR2', () => {
	for (let i = 0; i < 37; i++)
		held.push(new LiveThing(n + i));
	fs.writeFileSync(process.argv[3] + '.more', '');
});
console.log(n);
setTimeout(() => {}, Number(process.argv[4] || 120) * 1000);
