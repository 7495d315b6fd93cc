// chains.js FILE — a V8 heap snapshot to FILE of linked lists whose
// lengths the script knows: Link through next (3000, from a head), DLink
// doubly (600: a chain through next and one through prev), Ring through
// next closed on itself (700). Prints one JSON line of each list's
// length, counted by walking it here: {"Link":3000,"DLink":600,"Ring":700}.
'use strict';
const v8 = require('v8');

class Link { constructor(next) { this.next = next; } }
class DLink { constructor() { this.next = null; this.prev = null; } }
class Ring { constructor() { this.next = null; } }

let link = null;
for (let i = 0; i < 3000; i++)
	link = new Link(link);
let dfirst = new DLink(), dlast = dfirst;
for (let i = 1; i < 600; i++) {
	const d = new DLink();
	d.prev = dlast;
	dlast.next = d;
	dlast = d;
}
const ring = new Ring();
let r = ring;
for (let i = 1; i < 700; i++) {
	r.next = new Ring();
	r = r.next;
}
r.next = ring;
global.kept = { link, dfirst, ring };

const len = { Link: 0, DLink: 0, Ring: 0 };
for (let x = link; x !== null; x = x.next)
	len.Link++;
for (let x = dlast; x !== null; x = x.prev)
	len.DLink++;
let x = ring;
do {
	len.Ring++;
	x = x.next;
} while (x !== ring);
if (typeof global.gc === 'function')
	global.gc();
v8.writeHeapSnapshot(process.argv[2]);
console.log(JSON.stringify(len));
