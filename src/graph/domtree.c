/* domtree.c — Semi-NCA dominators (Georgiadis, Tarjan, Werneck:
 * semidominators by path compression, then idoms as nearest common
 * ancestors on the DFS tree). Every loop is iterative.
 *
 * Work happens in DFS preorder numbers: node `vertex[i]` has number i,
 * pre[v] = i + 1 (0: not reached). Arrays of the reached count N:
 *   vertex  preorder -> node (the caller's `order` when given)
 *   parent  DFS tree parent, a preorder number
 *   semi    the semidominator (allocated after the DFS)
 *   label   DFS: the stack; then the least semi on the compressed path
 *           (in the caller's idom array, which is written only at the end)
 *   anc     forest links for path compression; then the idom numbers
 * and `stk`, the path stack of eval(), grown as needed: paths are short
 * once compressed, and n more words at the peak of the build would cost
 * 4 bytes an object. */
#include "graph/domtree.h"

#include <stdlib.h>
#include <string.h>

struct dt {
	const struct dgraph *g;
	node_t *pre, *vertex, *parent, *semi, *label, *anc, *stk;
	size_t stk_cap;
	node_t n; /* reached */
};

static inline void succ(const struct dgraph *g, node_t v, const node_t **e, edge_t *ne)
{
	if (v == g->root && g->root_succ != NULL) {
		*e = g->root_succ;
		*ne = (edge_t)g->nroot_succ;
	} else {
		*e = g->out + g->out_start[v];
		*ne = g->out_start[v + 1] - g->out_start[v];
	}
}

/* Depth-first preorder; successors in CSR order, so it is repeatable. */
/* Depth-first preorder; successors in CSR order, so it is repeatable.
 * The next edge of each frame sits on a stack grown on demand: deep
 * only for chains, and no n-word array while the graph is all there. */
static void dfs(struct dt *d, void (*progress)(void *, uint64_t, uint64_t), void *arg)
{
	const struct dgraph *g = d->g;
	node_t *stack = d->label;
	size_t sp = 0, cap = 1024;
	edge_t *cursor = xmalloc(cap * sizeof *cursor);

	d->pre[g->root] = 1;
	d->vertex[0] = g->root;
	d->parent[0] = 0;
	cursor[0] = 0;
	stack[sp++] = 0;
	d->n = 1;
	while (sp > 0) {
		node_t i = stack[sp - 1];
		const node_t *e;
		edge_t ne;
		succ(g, d->vertex[i], &e, &ne);
		if (cursor[sp - 1] == ne) {
			sp--;
			continue;
		}
		node_t t = e[cursor[sp - 1]++];
		if (d->pre[t] != 0)
			continue;
		node_t k = d->n++;
		d->pre[t] = k + 1;
		d->vertex[k] = t;
		d->parent[k] = i;
		if (sp == cap) {
			cap *= 2;
			cursor = xreallocarray(cursor, cap, sizeof *cursor);
		}
		cursor[sp] = 0;
		stack[sp++] = k;
		if (progress != NULL && (k & 0xfffff) == 0)
			progress(arg, k / 2, g->n);
	}
	free(cursor);
}

/* The least label on the forest path from v up to (not including) its
 * root, compressing the path on the way. */
static node_t eval(struct dt *d, node_t v)
{
	node_t *anc = d->anc, *label = d->label, orig = v;
	size_t sp = 0;

	if (anc[v] == HW_NONE)
		return label[v];
	/* collect the path whose links can be shortened */
	while (anc[anc[v]] != HW_NONE) {
		if (sp == d->stk_cap) {
			d->stk_cap *= 2;
			d->stk = xreallocarray(d->stk, d->stk_cap, sizeof *d->stk);
		}
		d->stk[sp++] = v;
		v = anc[v];
	}
	/* from the top down: each takes its ancestor's label and link */
	while (sp > 0) {
		node_t x = d->stk[--sp], a = anc[x];
		if (label[a] < label[x])
			label[x] = label[a];
		anc[x] = anc[a];
	}
	return label[orig];
}

static void semidominators(struct dt *d, void (*progress)(void *, uint64_t, uint64_t), void *arg)
{
	const struct dgraph *g = d->g;

	for (node_t i = 0; i < d->n; i++) {
		d->label[i] = i;
		d->anc[i] = HW_NONE;
	}
	for (node_t w = d->n; w-- > 1;) {
		node_t v = d->vertex[w], s = d->parent[w];
		for (edge_t j = g->in_start[v]; j < g->in_start[v + 1]; j++) {
			node_t p = d->pre[g->in[j]];
			if (p == 0)
				continue; /* an unreached predecessor does not count */
			p--;
			node_t c = p <= w ? p : eval(d, p);
			if (c < s)
				s = c;
		}
		d->semi[w] = s;
		d->label[w] = s;
		d->anc[w] = d->parent[w]; /* link w under its parent */
		if (progress != NULL && (w & 0xfffff) == 0)
			progress(arg, d->n / 2 + (d->n - w) / 2, g->n);
	}
}

void domtree_compute(const struct dgraph *g, node_t *idom, node_t *order, node_t *norder,
		     void (*progress)(void *, uint64_t, uint64_t), void *arg)
{
	struct dt d = { .g = g };
	size_t n = (size_t)g->n + 1;

	d.pre = xcalloc(n, sizeof *d.pre);
	d.vertex = order != NULL ? order : xmalloc(n * sizeof *d.vertex);
	d.parent = xmalloc(n * sizeof *d.parent);
	d.label = idom; /* unused until the idoms are written, at the very end */
	dfs(&d, progress, arg);
	if (g->after_dfs != NULL)
		g->after_dfs(g->after_dfs_arg);
	d.semi = xmalloc(n * sizeof *d.semi);
	d.anc = xmalloc(n * sizeof *d.anc);
	d.stk_cap = 1024;
	d.stk = xmalloc(d.stk_cap * sizeof *d.stk);
	semidominators(&d, progress, arg);
	free(d.stk);
	/* nearest common ancestor: climb from the parent while above semi */
	node_t *ipre = d.anc;
	ipre[0] = 0;
	for (node_t w = 1; w < d.n; w++) {
		node_t x = d.parent[w];
		while (x > d.semi[w])
			x = ipre[x];
		ipre[w] = x;
	}
	for (node_t v = 0; v < g->n; v++)
		idom[v] = HW_NONE;
	for (node_t w = 0; w < d.n; w++)
		idom[d.vertex[w]] = d.vertex[ipre[w]];
	if (norder != NULL)
		*norder = d.n;
	free(d.pre);
	free(d.parent);
	free(d.semi);
	free(d.anc);
	if (order == NULL)
		free(d.vertex);
}
