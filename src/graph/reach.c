/* reach.c — deep size and the path between two objects, see reach.h. */
#include "graph/reach.h"

#include <stdlib.h>
#include <string.h>

#include "graph/ownership.h"

/* One breadth-first walk: the nodes seen, the queue, and for a path how
 * each node was reached (parent[], how[]: kind | back << 2). */
struct walk {
	const struct heap *h;
	unsigned flags;
	node_t *rx_fwd;    /* incidental references as (src, dst) pairs, by src */
	node_t *weak_bwd;  /* weak ones as (dst, src) pairs, by dst (undirected) */
	bits_t *seen;
	node_t *queue;
	size_t qh, qt;
	node_t *parent;    /* NULL: no path wanted (deep size) */
	uint8_t *how;
};

static int cmp_pair(const void *a, const void *b)
{
	const node_t *x = a, *y = b;

	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* (a[i], b[i]) pairs sorted: the heap keeps these references sorted by
 * the other end. */
static node_t *pairs_by(const node_t *a, const node_t *b, uint64_t n)
{
	node_t *pairs = xmalloc(((size_t)n + 1) * 2 * sizeof *pairs);

	for (uint64_t i = 0; i < n; i++) {
		pairs[2 * i] = a[i];
		pairs[2 * i + 1] = b[i];
	}
	hw_qsort(pairs, (size_t)n, 2 * sizeof *pairs, cmp_pair);
	return pairs;
}

static void walk_init(struct walk *w, const struct heap *h, unsigned flags, int path)
{
	memset(w, 0, sizeof *w);
	w->h = h;
	w->flags = flags;
	w->rx_fwd = pairs_by(h->rx_src, h->rx_dst, h->nrx);
	if (flags & REACH_UNDIRECTED) /* the focus's strong ones among them too */
		w->weak_bwd = pairs_by(h->weak_dst, h->weak_src, h->nweak);
	w->seen = xcalloc(bits_words(h->n), sizeof *w->seen);
	w->queue = xmalloc(((size_t)h->n + 1) * sizeof *w->queue);
	if (path) {
		w->parent = xmalloc(((size_t)h->n + 1) * sizeof *w->parent);
		w->how = xmalloc((size_t)h->n + 1);
	}
}

static void walk_free(struct walk *w)
{
	free(w->rx_fwd);
	free(w->weak_bwd);
	free(w->seen);
	free(w->queue);
	free(w->parent);
	free(w->how);
}

static void visit(struct walk *w, node_t from, node_t y, int kind, int back)
{
	if (y == 0 || bit_get(w->seen, y))
		return;
	bit_set(w->seen, y);
	w->queue[w->qt++] = y;
	if (w->parent != NULL) {
		w->parent[y] = from;
		w->how[y] = (uint8_t)(kind | back << 2);
	}
}

node_t reach_class_ref(const struct heap *h, node_t x)
{
	uint32_t c = h->node_class[x];

	return h->node_kind[x] == NK_CLASS || c == HW_NONE ? HW_NONE : h->cls[c].node;
}

int reach_class_held(const struct heap *h, node_t u, node_t cn)
{
	int n = 0;

	for (edge_t j = h->out_start[u]; j < h->out_start[u + 1]; j++)
		n += h->out[j] == cn;
	return n > 1;
}

/* How a weak reference of rule `rule` is followed: a strong one the
 * analyses moved aside (WEAK_OUTSIDE, WEAK_GARBAGE, WEAK_WEAKLY) as strong; one left out
 * (WEAK_IGNORED) not at all; the others as weak, with REACH_WEAK; -1:
 * not followed. */
static int weak_kind(const struct heap *h, int rule, unsigned flags)
{
	(void)h;
	if (weak_rule_moved((unsigned)rule))
		return REACH_K_STRONG;
	if (rule == WEAK_IGNORED || !(flags & REACH_WEAK))
		return -1;
	return REACH_K_WEAK;
}

/* x's references, and with REACH_UNDIRECTED its referrers. */
static void expand(struct walk *w, node_t x)
{
	const struct heap *h = w->h;
	node_t cn = reach_class_ref(h, x);
	int skipped = 0;

	for (edge_t j = h->out_start[x]; j < h->out_start[x + 1]; j++) {
		if (h->out[j] == cn && !skipped) { /* the implicit one: once */
			skipped = 1;
			continue;
		}
		visit(w, x, h->out[j], REACH_K_STRONG, 0);
	}
	for (size_t i = lower_bound_u32s(w->rx_fwd, h->nrx, 2 * sizeof *w->rx_fwd, x);
	     i < h->nrx && w->rx_fwd[2 * i] == x; i++)
		visit(w, x, w->rx_fwd[2 * i + 1], REACH_K_INCIDENTAL, 0);
	for (uint64_t i = heap_weak_first(h, x); i < h->nweak && h->weak_src[i] == x; i++) {
		int k = weak_kind(h, h->weak_rule != NULL ? h->weak_rule[i] : WEAK_BUILTIN, w->flags);
		if (k >= 0 && !(h->weak_dst[i] == cn && !skipped)) /* an analysis root moved it */
			visit(w, x, h->weak_dst[i], k, 0);
		else if (k >= 0)
			skipped = 1;
	}
	if (!(w->flags & REACH_UNDIRECTED))
		return;
	for (edge_t j = h->in_start[x]; j < h->in_start[x + 1]; j++) {
		node_t u = h->in[j];
		if (u == 0 || bit_get(w->seen, u))
			continue;
		if (reach_class_ref(h, u) == x && !reach_class_held(h, u, x))
			continue;
		visit(w, x, u, REACH_K_STRONG, 1);
	}
	for (size_t i = lower_bound_u32(h->rx_dst, h->nrx, x); i < h->nrx && h->rx_dst[i] == x; i++)
		visit(w, x, h->rx_src[i], REACH_K_INCIDENTAL, 1);
	if (w->weak_bwd != NULL)
		for (size_t i = lower_bound_u32s(w->weak_bwd, h->nweak, 2 * sizeof *w->weak_bwd, x);
		     i < h->nweak && w->weak_bwd[2 * i] == x; i++) {
			node_t u = w->weak_bwd[2 * i + 1];
			int k = bit_get(w->seen, u) ? -1 : weak_kind(h, ref_is_weak(h, u, x), w->flags);
			if (k == REACH_K_STRONG && reach_class_ref(h, u) == x && !reach_class_held(h, u, x))
				continue; /* the implicit one, which an analysis root moved */
			if (k >= 0)
				visit(w, x, u, k, 1);
		}
}

/* Poll every 64k nodes: cheap enough to be unnoticed, often enough for Esc. */
static int walk_tick(struct walk *w, struct progress *p)
{
	if ((w->qh & 0xffff) != 0 || p == NULL)
		return 0;
	progress_update(p, w->qh);
	return progress_cancelled(p);
}

uint64_t reach_deep(const struct heap *h, const bits_t *set, unsigned flags, bits_t *out,
		    uint64_t *count, struct progress *p)
{
	struct walk w;
	uint64_t bytes = 0;

	walk_init(&w, h, flags & REACH_WEAK, 0);
	progress_begin(p, "deep size", h->n, "objects");
	for (node_t v = 1; v < h->n; v++)
		if (bit_get(set, v))
			visit(&w, v, v, REACH_K_STRONG, 0);
	while (w.qh < w.qt && !walk_tick(&w, p)) {
		node_t x = w.queue[w.qh++];
		bytes += h->node_shallow[x];
		if (out != NULL)
			bit_set(out, x);
		expand(&w, x);
	}
	progress_end(p);
	if (count != NULL)
		*count = w.qh;
	walk_free(&w);
	return bytes;
}

/* The path to `to` from the walk's start, read back along parent[]. */
static void path_take(const struct walk *w, node_t from, node_t to, struct reach_path *path)
{
	size_t n = 1;

	for (node_t x = to; x != from; x = w->parent[x])
		n++;
	path->n = n;
	path->nodes = xmalloc(n * sizeof *path->nodes);
	path->back = xcalloc(n, 1);
	path->kind = xcalloc(n, 1);
	for (node_t x = to; n-- > 0; x = w->parent[x]) {
		path->nodes[n] = x;
		if (n > 0) { /* the hop into x, from the node before it */
			path->kind[n - 1] = w->how[x] & 3;
			path->back[n - 1] = (uint8_t)(w->how[x] >> 2);
		}
	}
}

int reach_path(const struct heap *h, node_t from, node_t to, unsigned flags, struct reach_path *path,
	       struct progress *p)
{
	struct walk w;
	int found = 0;

	memset(path, 0, sizeof *path);
	walk_init(&w, h, flags, 1);
	progress_begin(p, "path", h->n, "objects");
	visit(&w, from, from, REACH_K_STRONG, 0);
	/* breadth first: the first time `to` is seen, it is by a shortest path */
	while (w.qh < w.qt && !bit_get(w.seen, to) && !walk_tick(&w, p))
		expand(&w, w.queue[w.qh++]);
	progress_end(p);
	if (bit_get(w.seen, to)) {
		path_take(&w, from, to, path);
		found = 1;
	} else if (progress_cancelled(p)) {
		found = -1;
	}
	walk_free(&w);
	return found;
}

void reach_path_free(struct reach_path *path)
{
	free(path->nodes);
	free(path->back);
	free(path->kind);
	memset(path, 0, sizeof *path);
}
