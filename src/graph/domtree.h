/* domtree.h — exact dominators (Lengauer-Tarjan), iterative: no recursion, so
 * a million-node chain is fine. Works on any CSR graph of out-edges; the
 * caller owns them. With a scratch store the work arrays not in use are
 * parked there, so that at no time more than five words a node and one
 * a reference are in memory (see domtree.c). */
#ifndef HW_DOMTREE_H
#define HW_DOMTREE_H

#include "graph/heap.h"
#include "graph/store.h"

struct dgraph {
	node_t n;                /* nodes 0..n-1 */
	node_t root;
	const edge_t *out_start; /* n + 1 */
	const node_t *out;       /* for the depth-first pass */
	/* If root_succ is not NULL, it replaces the out-edges of `root`
	 * (the heap keeps the virtual root's edges outside the CSR). */
	const node_t *root_succ;
	size_t nroot_succ;
	/* After the depth-first pass the out-edges are read once more, twice
	 * in order: from out, or (out_store set) from that store's section
	 * out_id. after_dfs, if set, is called in between: the caller may
	 * free out then (when the store has it), with after_dfs_arg. */
	const struct store *out_store;
	uint32_t out_id;
	void (*after_dfs)(void *arg);
	void *after_dfs_arg;
	/* Called once out_start and out are read no more (NULL: nothing). */
	void (*after_edges)(void *arg);
	/* The same references by target, read once in order in place of the
	 * out-edges' two readings, when in_starts is set: it is called after
	 * the depth-first pass (after after_dfs) and gives the starts (n + 1;
	 * each target's sources ascending, the root's edges to root_succ
	 * included); the sources are in, or (in_store set) that store's
	 * section in_id. after_edges then lets the caller drop the starts. */
	const edge_t *(*in_starts)(void *arg);
	const node_t *in;
	const struct store *in_store;
	uint32_t in_id;
	/* Where the work arrays wait while another phase runs (sections
	 * scratch_id .. scratch_id + 3, dropped at the end); NULL: in memory. */
	struct store *scratch;
	uint32_t scratch_id;
	/* Most nodes are reached (the whole heap's roots, not an analysis
	 * root's few): the depth-first numbers' array is made at once, not
	 * a fault a page of its last part. */
	int dense;
};

/* Computes the immediate dominator of every node reachable from the
 * root: *idom (n entries, made here) with idom[root] == root and HW_NONE
 * for unreachable nodes; *order (made here when order is not NULL) the
 * reachable nodes in DFS preorder, root first, *norder of them.
 * Predecessors that are unreachable are ignored. The progress callback,
 * if any, is called now and then with done/total. */
void domtree_compute(const struct dgraph *g, node_t **idom, node_t **order, node_t *norder,
		     void (*progress)(void *, uint64_t, uint64_t), void *arg);

/* Is idom (n entries) the shape domtree_compute makes: idom[root] ==
 * root, and from every other node either HW_NONE (unreached) or a chain
 * of dominators, each in range and reached, that ends at the root, with
 * no cycle? 1 or 0; O(n) time and n bytes. For a forged index cache,
 * whose cycle would have every climb up the tree run for ever. */
int domtree_is_tree(const node_t *idom, node_t n, node_t root);

#endif
