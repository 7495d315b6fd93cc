// workload.js DIR — known structures in a Node heap, written as two V8
// heap snapshots: DIR/a.heapsnapshot, then after known additions and
// removals (and a GC, with --expose-gc) DIR/b.heapsnapshot. Prints one
// JSON line: how many objects of each class it made, as held at each
// snapshot, for the tests to compare with what the reader finds.
'use strict';
const v8 = require('v8');
const path = require('path');
const EventEmitter = require('events');

const dir = process.argv[2] || '.';
const N = { TreeNode: 1000, Leaky: 50, MapVal: 300, WKey: 100, WVal: 100, WTarget: 1, Leaf: 500 };
const ADDED = 200, DROPPED = 200, PAYLOAD = 16;

class TreeNode {
	constructor(id) {
		this.id = id;
		this.children = [];
		this.payload = new Float64Array(PAYLOAD);
	}
}
class Leaky {
	constructor(i) { this.buffer = new Array(32).fill(i); }
}
class MapVal { constructor(i) { this.v = i; } }
class WKey { constructor(i) { this.k = i; } }
class WVal { constructor(i) { this.w = i; } }
class WTarget { constructor() { this.t = 'target'; } }
class Leaf { constructor(i) { this.leaf = i; } }
class AddedHolder { constructor(i) { this.held = [i, i + 1]; } }

// a tree: node k's parent is node (k - 1) / 4
const tree = [];
for (let k = 0; k < N.TreeNode; k++) {
	const n = new TreeNode(k);
	if (k > 0)
		tree[(k - 1) >> 2].children.push(n);
	tree.push(n);
}
const root = tree[0];
tree.length = 0;

// the leak: each Leaky is held only by a closure in the emitter's listeners
const bus = new EventEmitter();
bus.setMaxListeners(0);
for (let i = 0; i < N.Leaky; i++) {
	const leaky = new Leaky(i);
	bus.on('tick', () => leaky.buffer.length);
}

const map = new Map();
for (let i = 0; i < N.MapVal; i++)
	map.set('key' + i, new MapVal(i));
const keys = [], weak = new WeakMap();
for (let i = 0; i < N.WKey; i++) {
	keys.push(new WKey(i));
	weak.set(keys[i], new WVal(i));
}
const target = new WTarget();
const wref = new WeakRef(target);
const leaves = [];
for (let i = 0; i < N.Leaf; i++)
	leaves.push(new Leaf(i));
globalThis.workload = { root, bus, map, keys, weak, target, wref, leaves };

const gc = typeof global.gc === 'function' ? global.gc : () => {};
gc();
v8.writeHeapSnapshot(path.join(dir, 'a.heapsnapshot'));

const added = [];
for (let i = 0; i < ADDED; i++)
	added.push(new AddedHolder(i));
globalThis.workload.added = added;
leaves.splice(0, DROPPED);
gc();
v8.writeHeapSnapshot(path.join(dir, 'b.heapsnapshot'));

const b = Object.assign({}, N, { Leaf: N.Leaf - DROPPED, AddedHolder: ADDED });
console.log(JSON.stringify({ a: Object.assign({ AddedHolder: 0 }, N), b, gc: typeof global.gc === 'function',
			     payload: PAYLOAD }));
