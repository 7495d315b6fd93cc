// hold.js — `make bench`'s Node process for the cost of a snapshot:
// about N million heap objects (the argument, default 1.5) held until
// standard input closes; prints "pid P objects M" when ready. A line
// "stall" prints "stall_ms X": the longest the event loop was held (a
// 1 ms timer that fired later) since the last "stall" — a snapshot's
// pause as the process saw it, whoever took the snapshot.
'use strict';
const target = Math.round(parseFloat(process.argv[2] || '1.5') * 1e6);
class Item { constructor(i, next) { this.name = 'item-' + i; this.counts = new Array(1 + (i % 8)).fill(i); this.next = next; } }
const byName = new Map();
const all = [];
let last = null, made = 0;
for (let i = 0; made < target; i++) {
	last = new Item(i, last); // the Item, its string, its array and its elements' store
	if (i % 2 === 0) byName.set(last.name, last); else all.push(last);
	made += 3;
}
let stall = 0, t = process.hrtime.bigint();
setInterval(() => {
	const now = process.hrtime.bigint();
	const gap = Number(now - t) / 1e6;
	if (gap > stall) stall = gap;
	t = now;
}, 1);
let buf = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => {
	buf += d;
	let nl;
	while ((nl = buf.indexOf('\n')) >= 0) {
		const line = buf.slice(0, nl);
		buf = buf.slice(nl + 1);
		if (line === 'stall') { process.stdout.write('stall_ms ' + Math.round(stall) + '\n'); stall = 0; }
	}
});
process.stdin.on('end', () => process.exit(0));
globalThis.held = { byName, all, last }; // else the script's locals die with it
process.stdout.write('pid ' + process.pid + ' objects ' + made + ' (heap objects counted as made: items, names, arrays)\n');
