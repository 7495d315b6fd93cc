// homo.js N READY [LIFE_S] — a homogeneous heap: N instances of class
// Thing whose only fields are small integers (no string, no reference
// tells one Thing from another). Writes READY once they are made; on
// SIGUSR2 drops 1000 of them and makes 1000 others, then writes
// READY.more; ends by itself after LIFE_S seconds (120 unless told).
'use strict';
const fs = require('fs');

class Thing { constructor(i) { this.i = i; this.j = i * 2; } }
const n = Number(process.argv[2]);
const held = [];
for (let i = 0; i < n; i++)
	held.push(new Thing(i));
globalThis.held = held;
fs.writeFileSync(process.argv[3], String(n) + '\n');
process.on('SIGUSR2', () => {
	held.splice(0, 1000);
	for (let i = 0; i < 1000; i++)
		held.push(new Thing(-i));
	fs.writeFileSync(process.argv[3] + '.more', '');
});
setTimeout(() => {}, Number(process.argv[4] || 120) * 1000);
