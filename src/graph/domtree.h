/* domtree.h — exact dominators (Lengauer-Tarjan), iterative: no recursion, so
 * a million-node chain is fine. Works on any CSR graph; the caller owns
 * every array. */
#ifndef HW_DOMTREE_H
#define HW_DOMTREE_H

#include "graph/heap.h"

struct dgraph {
	node_t n;                /* nodes 0..n-1 */
	node_t root;
	const edge_t *out_start; /* n + 1 */
	const node_t *out;
	const edge_t *in_start;  /* n + 1; predecessors (any order) */
	const node_t *in;
	/* If root_succ is not NULL, it replaces the out-edges of `root`
	 * (the heap keeps the virtual root's edges outside the CSR). */
	const node_t *root_succ;
	size_t nroot_succ;
	/* If set, called once the depth-first pass is over: from then on the
	 * out-edges are not read, and the caller may free them (the heap
	 * does, and rebuilds them afterwards, to lower its peak). */
	void (*after_dfs)(void *arg);
	void *after_dfs_arg;
};

/* Computes idom[v] (idom has n entries, and is work space until the end)
 * for every node reachable from the root (idom[root] ==
 * root; HW_NONE for unreachable nodes). If `order` is not NULL it
 * receives the reachable nodes in DFS preorder (root first); *norder
 * their count. Predecessors that are unreachable are ignored. The
 * progress callback, if any, is called now and then with done/total. */
void domtree_compute(const struct dgraph *g, node_t *idom, node_t *order,
		     node_t *norder, void (*progress)(void *, uint64_t, uint64_t),
		     void *arg);

#endif
