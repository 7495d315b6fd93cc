/* domtree.c — Lengauer–Tarjan dominators with path compression (simple
 * linking), every loop iterative.
 *
 * Not Semi-NCA: its last step climbs the dominator tree from each node's
 * DFS parent up to its semidominator, which is quadratic for a heap's
 * commonest shapes — a long linked list whose values an array also
 * holds (100,000 entries took 7 s; see test_domtree.c). Lengauer–Tarjan
 * answers the same question with the compressed forest, O(m log n)
 * whatever the shape.
 *
 * Nodes are renumbered in DFS preorder: number i is node vertex[i], and
 * pre[v] = i + 1 (0: not reached). The work is done in phases, and each
 * holds only what it reads; with a scratch store the rest waits there
 * (four bytes a node each, "pred" four bytes a reference):
 *
 *   phase           in memory                    read in order / written
 *   depth-first     pre, parent, the out-edges   vertex written
 *   predecessors    pre, istart, pred            the out-edges, twice
 *   semidominators  parent, semi, label, anc,    pred
 *                   istart
 *   idoms           dom (parent), semi; then
 *                   vertex, dom, idom
 *
 * pred holds, for each number w from the last down to the first, the
 * numbers of w's predecessors (istart[r] .. istart[r + 1] for r = n-1-w),
 * so that the semidominator pass, which runs from the last number down,
 * reads it front to back. In the semidominator pass parent[w] is w's DFS
 * parent until w is done, then the next in w's bucket, then its relative
 * dominator; semi[w] is the head of w's bucket until w is done, then
 * semi(w); anc is the forest link (HW_NONE: a root of the forest). */
#include "graph/domtree.h"

#include <stdlib.h>
#include <string.h>

#define PROGRESS_EVERY 0xfffff /* mask: report every 2^20 nodes */

enum { S_PARENT, S_VERTEX, S_PRED, NSCRATCH };

struct dt {
	const struct dgraph *g;
	node_t *pre, *vertex, *parent, *label, *semi, *anc;
	edge_t *istart;
	node_t n; /* nodes reached */
	struct store_writer vw; /* vertex, as the depth-first pass numbers */
	void (*progress)(void *, uint64_t, uint64_t);
	void *arg;
};

/* Reports `i` of `of` done within phase `phase` of four, on the scale of
 * the node count, as analysis.c's progress bar counts objects. */
static void report(const struct dt *d, int phase, node_t i, node_t of)
{
	uint64_t total = d->g->n;

	if (d->progress != NULL)
		d->progress(d->arg, (total * (uint64_t)phase + total * i / (of ? of : 1)) / 4, total);
}

static uint32_t sid(const struct dt *d, int k)
{
	return d->g->scratch_id + (uint32_t)k;
}

/* The array p of n words parked in the scratch store (and freed), or
 * kept: what is returned is NULL when it went, else p. */
static node_t *park(struct dt *d, int k, node_t *p, size_t n)
{
	struct store *st = d->g->scratch;

	if (st == NULL || !store_ok(st) || store_put(st, sid(d, k), p, sizeof *p, n) < 0)
		return p;
	hw_recycle(p); /* its room, as another array of the same size comes */
	return NULL;
}

/* The array parked as k back in memory (p itself if it never went). */
static node_t *unpark(struct dt *d, int k, node_t *p, size_t n)
{
	if (p != NULL)
		return p;
	p = store_get(d->g->scratch, sid(d, k), sizeof *p, n);
	if (p == NULL)
		hw_fatal("the dominator pass cannot read back its work file");
	store_drop(d->g->scratch, sid(d, k));
	return p;
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

static void number(struct dt *d, node_t k, node_t v)
{
	d->pre[v] = k + 1;
	if (d->vertex != NULL)
		d->vertex[k] = v;
	else
		store_write(&d->vw, &v, sizeof v);
}

/* Depth-first preorder, successors in CSR order, so it is repeatable.
 * The path back up is the parent[] chain; each depth's node and the
 * next edge to try there sit on a stack grown on demand (deep only for
 * chains): vertex[] need not be in memory. */
static void dfs(struct dt *d)
{
	const struct dgraph *g = d->g;
	struct level { node_t node; edge_t cursor; } *st;
	size_t sp = 0, cap = 1024;
	node_t i = 0;

	st = xmalloc(cap * sizeof *st);
	number(d, 0, g->root);
	d->parent[0] = 0;
	st[0] = (struct level){ g->root, 0 };
	d->n = 1;
	for (;;) {
		const node_t *e;
		edge_t ne;
		succ(g, st[sp].node, &e, &ne);
		if (st[sp].cursor == ne) { /* all edges tried: back up */
			if (sp == 0)
				break;
			sp--;
			i = d->parent[i];
			continue;
		}
		node_t t = e[st[sp].cursor++];
		if (d->pre[t] != 0)
			continue;
		node_t k = d->n++;
		number(d, k, t);
		d->parent[k] = i;
		if (++sp == cap) {
			cap *= 2;
			st = xreallocarray(st, cap, sizeof *st);
		}
		st[sp] = (struct level){ t, 0 };
		i = k;
		if ((k & PROGRESS_EVERY) == 0)
			report(d, 0, k, d->g->n);
	}
	free(st);
}

/* The out-edges read once more, node by node: from memory or the store. */
static void edges_open(const struct dgraph *g, struct seq *s)
{
	if (g->out_store != NULL) {
		if (seq_open(s, g->out_store, g->out_id, sizeof(node_t)) < 0)
			hw_fatal("the dominator pass cannot read the references back");
	} else {
		seq_mem(s, g->out, sizeof(node_t));
	}
}

static const node_t *edges_of(const struct dgraph *g, struct seq *s, node_t v, edge_t *ne)
{
	edge_t n = g->out_start[v + 1] - g->out_start[v];
	const node_t *e = seq_span(s, n);

	if (e == NULL)
		hw_fatal("the dominator pass cannot read the references back");
	if (v == g->root && g->root_succ != NULL) { /* read past, replaced */
		*ne = (edge_t)g->nroot_succ;
		return g->root_succ;
	}
	*ne = n;
	return e;
}

/* pred: the predecessors of each number, last number first (see the top
 * of the file), from two passes over the out-edges: count, then fill.
 * istart counts at r + 1, then serves as the fill cursor, then is
 * shifted back into place. */
static node_t *predecessors(struct dt *d, uint64_t *total)
{
	const struct dgraph *g = d->g;
	node_t n = d->n, *pred = NULL;
	struct seq s;

	d->istart = xcalloc_whole((size_t)n + 1, sizeof *d->istart);
	for (int pass = 0; pass < 2; pass++) {
		edges_open(g, &s);
		for (node_t v = 0; v < g->n; v++) {
			edge_t ne;
			const node_t *e = edges_of(g, &s, v, &ne);
			node_t pv = d->pre[v];
			if (pv == 0)
				continue;
			for (edge_t j = 0; j < ne; j++) {
				node_t pt = d->pre[e[j]];
				if (pt == 0)
					continue;
				node_t r = n - pt; /* n - 1 - (pt - 1) */
				if (pass == 0)
					d->istart[r + 1]++;
				else
					pred[d->istart[r]++] = pv - 1;
			}
		}
		seq_end(&s);
		if (pass == 0) {
			for (node_t r = 0; r < n; r++)
				d->istart[r + 1] += d->istart[r];
			*total = d->istart[n];
			pred = xmalloc_whole(((size_t)*total + 1) * sizeof *pred);
		}
		report(d, 1, (node_t)pass + 1, 2);
	}
	memmove(d->istart + 1, d->istart, (size_t)n * sizeof *d->istart);
	d->istart[0] = 0;
	return pred;
}

/* The same from the references by target, read once: a target's count
 * is its list's length, its sources come ascending as they would from
 * the out-edges; an unreached source (a heap has none) holds its place
 * as HW_NONE. */
static node_t *predecessors_in(struct dt *d, const edge_t *in_start, uint64_t *total)
{
	const struct dgraph *g = d->g;
	node_t n = d->n, *pred;
	struct seq s;

	d->istart = xcalloc_whole((size_t)n + 1, sizeof *d->istart);
	for (node_t t = 0; t < g->n; t++) {
		node_t pt = d->pre[t];
		if (pt != 0)
			d->istart[n - pt + 1] = in_start[t + 1] - in_start[t];
	}
	for (node_t r = 0; r < n; r++)
		d->istart[r + 1] += d->istart[r];
	*total = d->istart[n];
	pred = xmalloc_whole(((size_t)*total + 1) * sizeof *pred);
	if (g->in_store != NULL) {
		if (seq_open(&s, g->in_store, g->in_id, sizeof(node_t)) < 0)
			hw_fatal("the dominator pass cannot read the references back");
	} else {
		seq_mem(&s, g->in, sizeof(node_t));
	}
	for (node_t t = 0; t < g->n; t++) {
		edge_t ne = in_start[t + 1] - in_start[t];
		const node_t *e = seq_span(&s, ne);
		node_t pt = d->pre[t];
		if (e == NULL)
			hw_fatal("the dominator pass cannot read the references back");
		if (pt == 0)
			continue;
		node_t *at = pred + d->istart[n - pt];
		for (edge_t j = 0; j < ne; j++)
			at[j] = d->pre[e[j]] != 0 ? d->pre[e[j]] - 1 : HW_NONE;
	}
	seq_end(&s);
	report(d, 1, 1, 1);
	return pred;
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
 * linked, and their semi slot is still a bucket head). */
static void semidominator(struct dt *d, node_t w, const node_t *pred, edge_t np)
{
	node_t s = d->parent[w];

	for (edge_t j = 0; j < np; j++) {
		node_t p = pred[j];
		if (p == HW_NONE) /* unreached */
			continue;
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

static void semidominators(struct dt *d, const node_t *pred_mem)
{
	node_t n = d->n;
	struct seq s;

	if (pred_mem != NULL)
		seq_mem(&s, pred_mem, sizeof *pred_mem);
	else if (seq_open(&s, d->g->scratch, sid(d, S_PRED), sizeof *pred_mem) < 0)
		hw_fatal("the dominator pass cannot read back its work file");
	for (node_t i = 0; i < n; i++) {
		d->semi[i] = HW_NONE; /* empty buckets */
		d->anc[i] = HW_NONE;
	}
	/* bucket w is drained at w's turn: all numbers above w are linked by
	 * then, and w is not */
	for (node_t w = n; w-- > 0;) {
		drain(d, w);
		if (w == 0)
			break;
		node_t r = n - 1 - w;
		edge_t np = d->istart[r + 1] - d->istart[r];
		const node_t *pred = seq_span(&s, np);
		if (pred == NULL)
			hw_fatal("the dominator pass cannot read back its work file");
		semidominator(d, w, pred, np);
		if ((w & PROGRESS_EVERY) == 0)
			report(d, 2, n - w, n);
	}
	seq_end(&s);
}

void domtree_compute(const struct dgraph *g, node_t **idomp, node_t **order, node_t *norder,
		     void (*progress)(void *, uint64_t, uint64_t), void *arg)
{
	struct dt d = { .g = g, .progress = progress, .arg = arg };
	size_t n = g->n;
	int streamed = g->scratch != NULL && store_ok(g->scratch);
	/* idom is made at the end, when the work arrays are gone */

	if (order != NULL)
		*order = NULL;
	if (norder != NULL)
		*norder = 0;
	if (n == 0) { /* no nodes, so no root: nothing is reached */
		*idomp = xmalloc(sizeof **idomp);
		return;
	}
	/* a focus reaches few: zero pages, made where written */
	d.pre = g->dense ? xcalloc_whole(n, sizeof *d.pre) : xcalloc(n, sizeof *d.pre);
	/* a focus's: its first d.n written, the rest made for nothing */
	d.parent = g->dense ? xmalloc_whole(n * sizeof *d.parent) : xmalloc(n * sizeof *d.parent);
	if (streamed)
		store_begin(g->scratch, &d.vw, sid(&d, S_VERTEX), sizeof(node_t));
	else
		d.vertex = xmalloc_whole(n * sizeof *d.vertex);
	dfs(&d);
	if (streamed && store_end(&d.vw) < 0) { /* no room on disk: the same pass again, in memory */
		memset(d.pre, 0, n * sizeof *d.pre);
		d.vertex = xmalloc_whole(n * sizeof *d.vertex);
		dfs(&d);
	}
	if (g->after_dfs != NULL)
		g->after_dfs(g->after_dfs_arg);
	d.parent = park(&d, S_PARENT, d.parent, d.n);
	uint64_t npred;
	node_t *pred = g->in_starts != NULL ? predecessors_in(&d, g->in_starts(g->after_dfs_arg), &npred)
					     : predecessors(&d, &npred);
	if (g->after_edges != NULL)
		g->after_edges(g->after_dfs_arg);
	hw_recycle(d.pre);
	d.pre = NULL;
	pred = park(&d, S_PRED, pred, npred);
	d.parent = unpark(&d, S_PARENT, d.parent, d.n);
	/* by number, of the d.n reached: written whole */
	d.semi = xmalloc_whole((size_t)d.n * sizeof *d.semi);
	d.label = xmalloc_whole((size_t)d.n * sizeof *d.label);
	d.anc = xmalloc_whole((size_t)d.n * sizeof *d.anc);
	semidominators(&d, pred);
	hw_recycle(pred);
	if (g->scratch != NULL)
		store_drop(g->scratch, sid(&d, S_PRED));
	hw_recycle(d.istart);
	hw_recycle(d.anc);
	hw_recycle(d.label);
	/* relative dominators to idoms, in increasing numbers: a node's
	 * relative dominator is lower, so its idom is known already */
	node_t *dom = d.parent;
	for (node_t w = 1; w < d.n; w++)
		if (dom[w] != d.semi[w])
			dom[w] = dom[dom[w]];
	hw_recycle(d.semi);
	report(&d, 3, 0, 1);
	d.vertex = unpark(&d, S_VERTEX, d.vertex, d.n);
	node_t *idom = xmalloc_whole((n + 1) * sizeof *idom);
	for (node_t v = 0; v < g->n; v++)
		idom[v] = HW_NONE;
	idom[g->root] = g->root;
	for (node_t w = 1; w < d.n; w++)
		idom[d.vertex[w]] = d.vertex[dom[w]];
	hw_recycle(dom);
	*idomp = idom;
	if (norder != NULL)
		*norder = d.n;
	if (order != NULL)
		*order = d.vertex;
	else
		free(d.vertex);
}

int domtree_is_tree(const node_t *idom, node_t n, node_t root)
{
	enum { UNSEEN, CLIMBING, TO_ROOT };
	uint8_t *st;
	int ok = 1;

	if (root >= n || idom[root] != root)
		return 0;
	st = xcalloc(n, 1);
	st[root] = TO_ROOT;
	for (node_t v = 0; v < n && ok; v++) {
		if (st[v] != UNSEEN || idom[v] == HW_NONE)
			continue;
		node_t x = v;
		while (st[x] == UNSEEN) { /* up to a node known, or out */
			if (idom[x] >= n || x == idom[x]) {
				ok = 0;
				break;
			}
			st[x] = CLIMBING;
			x = idom[x];
		}
		if (!ok || st[x] == CLIMBING) { /* out of range, unreached, or round in a cycle */
			ok = 0;
			break;
		}
		for (node_t y = v; st[y] == CLIMBING; y = idom[y])
			st[y] = TO_ROOT;
	}
	free(st);
	return ok;
}
