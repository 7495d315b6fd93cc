// alloctrack.js DIR — run with node --track-heap-objects: allocates known
// objects in named functions and writes DIR/t.heapsnapshot, whose
// trace_tree and trace_function_infos record where each live object
// was allocated. What it made, by its own count: makeMany calls
// makeItem 400 times; each makeItem allocates one AllocItem (V8 counts
// the object to the function that says `new`), whose constructor makes
// the item's payload array. Prints the count, the functions' lines,
// found in this file's text, and the file's name as V8 knows it.
'use strict';
const v8 = require('v8');

class AllocItem {
	constructor(i) {
		this.i = i;
		this.payload = new Array(8).fill(i);
	}
}
function makeItem(i) {
	return new AllocItem(i);
}

function makeMany(n) {
	const out = [];
	for (let i = 0; i < n; i++)
		out.push(makeItem(i));
	return out;
}

globalThis.kept = makeMany(400);
v8.writeHeapSnapshot(process.argv[2] + '/t.heapsnapshot');
const src = require('fs').readFileSync(__filename, 'utf8').split('\n');
const line = (text) => src.findIndex((l) => l.startsWith(text)) + 1;
console.log(JSON.stringify({ AllocItem: globalThis.kept.length, makeItem: line('function makeItem('),
			     makeMany: line('function makeMany('), file: __filename }));
