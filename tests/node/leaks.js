// leaks.js DIR — three V8 heap snapshots of one process around an action
// that leaks a known set: DIR/base.heapsnapshot before it, target after
// it, final after it was undone. The action makes Leaked objects (each
// with a Payload) that a registry made before base keeps after the undo,
// Held objects that two global variables keep,
// Freed objects in a cache the undo clears, and Transient objects it
// drops at once. Run once before base, action and undo, so that the code
// and its feedback are there before. Prints one JSON line: the counts
// made by the action.
'use strict';
const v8 = require('v8');
const path = require('path');

const dir = process.argv[2] || '.';
const gc = typeof global.gc === 'function' ? global.gc : () => {};
const N = { Leaked: 300, Freed: 400, Transient: 500, Keyed: 50, Leaf: 32, HeldA: 60, HeldB: 40 };

class Leaked { constructor(i, p) { this.i = i; this.payload = p; } }
class Payload { constructor(i) { this.text = 'payload-' + i + '-' + 'x'.repeat(200 + (i % 7)); } }
class Freed { constructor(i) { this.i = i; this.data = new Array(8).fill(i); } }
class Transient { constructor(i) { this.i = i; } }
class Keyed { constructor(i) { this.i = i; } }
class Dict {}
class TNode { constructor(d) { this.left = d > 0 ? new TNode(d - 1) : null; this.right = d > 0 ? new TNode(d - 1) : null; } }
class Leaf { constructor(i) { this.i = i; } }
class Held { constructor(i) { this.i = i; } }

// made before base, as long as the process: the registry's slots are
// there already, so that the action's stores reallocate nothing
const registry = { slots: new Array(2 * N.Leaked).fill(null), used: 0 };
const cache = new Map();
// a dictionary of many keys (a JS object as a map) and a tree, made
// before base: the action hangs Keyed objects on new keys and a Leaf
// under each of the tree's 32 leaves
const byKey = new Dict(); // of a class of its own: its keys are not a run of Object holders
for (let i = 0; i < 100; i++)
	byKey['old' + i] = i;
const tree = new TNode(5);
const leaves = [];
(function walk(n) { if (n.left === null) leaves.push(n); else { walk(n.left); walk(n.right); } })(tree);
globalThis.app = { registry, cache, byKey, tree };
// two global variables that the action fills with objects of one class:
// the global object holds more than 32 references, and each variable
// is still a way in of its own (two clusters, not one under "[*]")
globalThis.leakA = [];
globalThis.leakB = [];

function action(round) {
	for (let i = 0; i < N.Leaked; i++)
		registry.slots[registry.used++] = new Leaked(round * 1000 + i, new Payload(i));
	for (let i = 0; i < N.Freed; i++)
		cache.set(i, new Freed(i));
	for (let i = 0; i < N.Keyed; i++)
		byKey['k' + round + '_' + i] = new Keyed(i);
	leaves.forEach((n, i) => { n.left = new Leaf(i); });
	for (let i = 0; i < N.HeldA; i++)
		globalThis.leakA.push(new Held(i));
	for (let i = 0; i < N.HeldB; i++)
		globalThis.leakB.push(new Held(i));
	let t = [];
	for (let i = 0; i < N.Transient; i++)
		t.push(new Transient(i));
	t = null;
}

function undo() {
	cache.clear(); // the registry, the keys and the leaves are forgotten: the leak
}

// once before base: code, feedback and the Map's table made and kept
action(0);
undo();
for (let i = 0; i < registry.used; i++)
	registry.slots[i] = null;
registry.used = 0;
for (const k of Object.keys(byKey))
	if (k.startsWith('k0_'))
		delete byKey[k];
leaves.forEach((n) => { n.left = null; });
globalThis.leakA.length = 0;
globalThis.leakB.length = 0;
gc();
gc();
v8.writeHeapSnapshot(path.join(dir, 'base.heapsnapshot'));
action(1);
gc();
v8.writeHeapSnapshot(path.join(dir, 'target.heapsnapshot'));
undo();
gc();
gc();
v8.writeHeapSnapshot(path.join(dir, 'final.heapsnapshot'));
console.log(JSON.stringify(N));
