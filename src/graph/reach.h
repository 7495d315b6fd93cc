/* reach.h — what a set reaches: its deep size (every object reachable
 * from it), and the shortest path between two objects.
 *
 * Both walk the references the objects hold: strong ones and incidental
 * ones (an owner of higher weight has the target, but the reference is
 * there all the same, graph/ownership.h); weak ones only when asked.
 * Neither follows the reference an instance or array has to its class
 * object: the runtime keeps that one, not the program, and through the
 * class's loader it would reach every class and static of the
 * application. A class object in the set, or reached by a field, is
 * followed as any object (its statics, super, loader...).
 *
 * Breadth first over a bitset and a queue of n nodes: no recursion, and
 * memory bounded by a few arrays of n. Both need the node arrays and
 * the references (heap_need(h, HP_ALL)). */
#ifndef HW_REACH_H
#define HW_REACH_H

#include "graph/analysis.h"
#include "progress.h"

#define REACH_WEAK       0x1 /* follow weak references too */
#define REACH_UNDIRECTED 0x2 /* path: a reference leads either way */

/* Deep size of set: the objects reachable from its members, members
 * included. If out is not NULL it receives them (bits_words(n) words,
 * zeroed by the caller). Returns bytes, *count (if not NULL) objects.
 * With p cancelled the walk stops early: the caller drops the result. */
uint64_t reach_deep(const struct heap *h, const bits_t *set, unsigned flags, bits_t *out,
		    uint64_t *count, struct progress *p);

/* A shortest path, from its first node to its last. Hop i leads from
 * nodes[i] to nodes[i + 1]: along a reference nodes[i] holds, or with
 * back[i] (undirected only) against one that nodes[i + 1] holds;
 * kind[i] says of which kind (REACH_K_*). Owned: reach_path_free. */
enum { REACH_K_STRONG, REACH_K_WEAK, REACH_K_INCIDENTAL };
struct reach_path {
	node_t *nodes;
	size_t n;           /* nodes; hops are n - 1 */
	uint8_t *back, *kind;
};

/* The class object an instance or array refers to implicitly (the one
 * not followed), HW_NONE for a class object (its references are all its
 * record's) or a synthetic class; and whether u holds its class object
 * cn by a field too (then u's references have it twice). */
node_t reach_class_ref(const struct heap *h, node_t x);
int reach_class_held(const struct heap *h, node_t u, node_t cn);

/* The shortest path from `from` to `to` (objects, not the root) by
 * flags (REACH_*). 1 found (into *path), 0 there is none, -1 cancelled
 * (p). from == to: a path of one node. */
int reach_path(const struct heap *h, node_t from, node_t to, unsigned flags, struct reach_path *path,
	       struct progress *p);
void reach_path_free(struct reach_path *path);

#endif
