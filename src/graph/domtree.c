/* domtree.c — Lengauer–Tarjan dominators with path compression (simple
 * linking), every loop iterative.
 *
 * Not Semi-NCA: its last step climbs the dominator tree from each node's
 * DFS parent up to its semidominator, which is quadratic for a heap's
 * commonest shapes — a long linked list whose values an array also
 * holds (100,000 entries took 7 s; see test_domtree.c). Lengauer–Tarjan answers the same question
 * with the compressed forest, O(m log n) whatever the shape.
 *
 * Nodes are renumbered in DFS preorder: number i is node vertex[i], and
 * pre[v] = i + 1 (0: not reached). Six arrays of n words live at the
 * peak (after the DFS, when the out-edges may be gone), each reused
 * across the phases:
 *
 *   array    DFS (out-edges)        semidominators (in-edges)     end
 *   pre      node -> number + 1     the same                      freed
 *   vertex   number -> node         the same                      (order)
 *   parent   DFS tree parent        until w is done: its parent;  idom
 *                                   then: next in w's bucket;     number
 *                                   then: its relative dominator
 *   label    - (it is the caller's  least-semi node on the        idom
 *            idom array, untouched) compressed path
 *   semi     -                      until w is done: the head of  freed
 *                                   w's bucket; then semi(w)
 *   anc      -                      forest link, HW_NONE = root   freed
 *
 * semi and anc are allocated only after the DFS, when the caller may
 * have dropped its out-edges (after_dfs). */
#include "graph/domtree.h"

#include <stdlib.h>
#include <string.h>

#define PROGRESS_EVERY 0xfffff /* mask: report every 2^20 nodes */

struct dt {
	const struct dgraph *g;
	node_t *pre, *vertex, *parent, *label, *semi, *anc;
	node_t n; /* nodes reached */
	void (*progress)(void *, uint64_t, uint64_t);
	void *arg;
};

/* Reports `i` of `of` done within phase `phase` of three, on the scale of
 * the node count, as analysis.c's progress bar counts objects. */
static void report(const struct dt *d, int phase, node_t i, node_t of)
{
	uint64_t total = d->g->n;

	if (d->progress != NULL)
		d->progress(d->arg, (total * (uint64_t)phase + total * i / (of ? of : 1)) / 3, total);
}

static void succ(const struct dgraph *g, node_t v, const node_t **e, edge_t *ne)
{
	if (v == g->root && g->root_succ != NULL) {
		*e = g->root_succ;
		*ne = (edge_t)g->nroot_succ;
	} else {
		*e = g->out + g->out_start[v];
		*ne = g->out_start[v + 1] - g->out_start[v];
	}
}

/* Depth-first preorder, successors in CSR order, so it is repeatable.
 * The path back up is the parent[] chain; the next edge to try at each
 * depth sits on a stack grown on demand (deep only for chains). No
 * n-word array is touched beyond pre, vertex and parent while the
 * out-edges are still in memory: that is the build's peak. */
static void dfs(struct dt *d)
{
	const struct dgraph *g = d->g;
	size_t sp = 0, cap = 1024;
	edge_t *cursor = xmalloc(cap * sizeof *cursor);
	node_t i = 0;

	d->pre[g->root] = 1;
	d->vertex[0] = g->root;
	d->parent[0] = 0;
	cursor[0] = 0;
	d->n = 1;
	for (;;) {
		const node_t *e;
		edge_t ne;
		succ(g, d->vertex[i], &e, &ne);
		if (cursor[sp] == ne) { /* all edges tried: back up */
			if (sp == 0)
				break;
			sp--;
			i = d->parent[i];
			continue;
		}
		node_t t = e[cursor[sp]++];
		if (d->pre[t] != 0)
			continue;
		node_t k = d->n++;
		d->pre[t] = k + 1;
		d->vertex[k] = t;
		d->parent[k] = i;
		if (++sp == cap) {
			cap *= 2;
			cursor = xreallocarray(cursor, cap, sizeof *cursor);
		}
		cursor[sp] = 0;
		i = k;
		if ((k & PROGRESS_EVERY) == 0)
			report(d, 0, k, d->g->n);
	}
	free(cursor);
}

/* Path compression without a stack (the path can be a million long):
 * climb while reversing the links, then walk back down, giving each node
 * the better of its label and the one above, and the top as ancestor. */
static void compress(struct dt *d, node_t v)
{
	node_t *anc = d->anc, *label = d->label, *semi = d->semi;
	node_t below = HW_NONE, x = v;

	while (anc[anc[x]] != HW_NONE) {
		node_t up = anc[x];
		anc[x] = below;
		below = x;
		x = up;
	}
	/* x is the highest node under the root; its label is its own */
	node_t top = anc[x], above = x;
	while (below != HW_NONE) {
		node_t down = anc[below];
		if (semi[label[above]] < semi[label[below]])
			label[below] = label[above];
		anc[below] = top;
		above = below;
		below = down;
	}
}

/* The node of least semidominator on the forest path from v up to its
 * root, the root excluded; v itself when v is a root. */
static node_t eval(struct dt *d, node_t v)
{
	if (d->anc[v] == HW_NONE)
		return v;
	compress(d, v);
	return d->label[v];
}

/* Every node whose semidominator is w learns its relative dominator: w
 * itself, or a node between them with the same idom. Runs before w is
 * linked, so the forest path ends just under w. */
static void drain(struct dt *d, node_t w)
{
	for (node_t v = d->semi[w]; v != HW_NONE;) {
		node_t next = d->parent[v], u = eval(d, v);
		d->parent[v] = d->semi[u] < w ? u : w;
		v = next;
	}
}

/* semi(w): the least number from which a path reaches w through higher
 * numbers only. Predecessors below w count as themselves (they are not
 * linked, and their semi slot is still a bucket head); unreached ones
 * not at all. */
static void semidominator(struct dt *d, node_t w)
{
	const struct dgraph *g = d->g;
	node_t v = d->vertex[w], s = d->parent[w];

	for (edge_t j = g->in_start[v]; j < g->in_start[v + 1]; j++) {
		node_t p = d->pre[g->in[j]];
		if (p == 0)
			continue;
		p--;
		node_t c = p <= w ? p : d->semi[eval(d, p)];
		if (c < s)
			s = c;
	}
	d->semi[w] = s;
	d->label[w] = w;
	d->anc[w] = d->parent[w]; /* link w under its parent... */
	d->parent[w] = d->semi[s]; /* ...which frees the slot for the bucket */
	d->semi[s] = w;
}

static void semidominators(struct dt *d)
{
	for (node_t i = 0; i < d->n; i++) {
		d->semi[i] = HW_NONE; /* empty buckets */
		d->anc[i] = HW_NONE;
	}
	/* bucket w is drained at w's turn: all numbers above w are linked by
	 * then, and w is not */
	for (node_t w = d->n; w-- > 0;) {
		drain(d, w);
		if (w == 0)
			break;
		semidominator(d, w);
		if ((w & PROGRESS_EVERY) == 0)
			report(d, 1, d->n - w, d->n);
	}
}

/* Relative dominators to idoms, in increasing numbers: a node's relative
 * dominator is lower, so its idom is known already. Then back to nodes. */
static void finish(struct dt *d, node_t *idom)
{
	node_t *dom = d->parent;

	for (node_t w = 1; w < d->n; w++)
		if (dom[w] != d->semi[w])
			dom[w] = dom[dom[w]];
	report(d, 2, 0, 1);
	for (node_t v = 0; v < d->g->n; v++)
		idom[v] = HW_NONE;
	idom[d->g->root] = d->g->root;
	for (node_t w = 1; w < d->n; w++)
		idom[d->vertex[w]] = d->vertex[dom[w]];
}

void domtree_compute(const struct dgraph *g, node_t *idom, node_t *order, node_t *norder,
		     void (*progress)(void *, uint64_t, uint64_t), void *arg)
{
	struct dt d = { .g = g, .progress = progress, .arg = arg };
	size_t n = g->n;

	if (n == 0) {
		/* no nodes, so no root: nothing is reached */
		if (norder != NULL)
			*norder = 0;
		return;
	}
	d.pre = xcalloc(n, sizeof *d.pre);
	d.vertex = order != NULL ? order : xmalloc(n * sizeof *d.vertex);
	d.parent = xmalloc(n * sizeof *d.parent);
	d.label = idom; /* idle until the idoms are written, at the very end */
	dfs(&d);
	if (g->after_dfs != NULL)
		g->after_dfs(g->after_dfs_arg);
	d.semi = xmalloc(n * sizeof *d.semi);
	d.anc = xmalloc(n * sizeof *d.anc);
	semidominators(&d);
	free(d.anc);
	free(d.pre);
	finish(&d, idom);
	if (norder != NULL)
		*norder = d.n;
	free(d.semi);
	free(d.parent);
	if (order == NULL)
		free(d.vertex);
}
