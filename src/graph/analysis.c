/* analysis.c — roots, dominators, retained sizes, see analysis.h. */
#include "graph/analysis.h"

#include <stdlib.h>
#include <string.h>

#include "graph/domtree.h"

/* Depth-first marking over strong references from `start`; the stack
 * holds at most one entry per node, so n entries are enough. */
/* Marks what start reaches, not entering skip. With p: progress, and
 * it stops early (the marks then incomplete) once p is cancelled. */
static uint64_t mark_from(const struct heap *h, bits_t *seen, node_t *stack, node_t start,
			  const bits_t *skip, struct progress *p)
{
	size_t sp = 0;
	uint64_t count = 0;

	if (bit_get(seen, start) || (skip && bit_get(skip, start)))
		return 0;
	bit_set(seen, start);
	stack[sp++] = start;
	while (sp > 0) {
		node_t v = stack[--sp];
		if ((++count & 0xffff) == 0 && p != NULL) {
			progress_update(p, count);
			if (progress_cancelled(p))
				break;
		}
		const node_t *e = v == 0 ? h->roots : h->out + h->out_start[v];
		size_t ne = v == 0 ? h->nroots : h->out_start[v + 1] - h->out_start[v];
		for (size_t j = 0; j < ne; j++) {
			node_t t = e[j];
			if (bit_get(seen, t) || (skip && bit_get(skip, t)))
				continue;
			bit_set(seen, t);
			stack[sp++] = t;
		}
	}
	return count;
}

struct rootlist {
	node_t *v;
	size_t n, cap;
	struct root *rec;
	size_t nrec, caprec;
};

static void add_pseudo(struct heap *h, struct rootlist *rl, node_t v, unsigned kind)
{
	if (rl->nrec == rl->caprec) {
		rl->caprec = rl->caprec ? rl->caprec * 2 : 256;
		rl->rec = xreallocarray(rl->rec, rl->caprec, sizeof *rl->rec);
	}
	rl->rec[rl->nrec++] = (struct root){ v, (uint16_t)kind, 0, HW_NONE };
	(void)h;
}

static uint64_t bytes_of_new(const struct heap *h, const bits_t *before, const bits_t *after)
{
	uint64_t b = 0;

	for (node_t v = 1; v < h->n; v++)
		if (bit_get(after, v) && !bit_get(before, v))
			b += h->node_shallow[v];
	return b;
}

static int cmp_node(const void *a, const void *b)
{
	node_t x = *(const node_t *)a, y = *(const node_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_rootrec(const void *a, const void *b)
{
	const struct root *x = a, *y = b;

	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	return x->kind < y->kind ? -1 : x->kind > y->kind;
}

void heap_roots_unique(struct heap *h)
{
	size_t k = 0;

	hw_qsort(h->root_rec, h->nroot_rec, sizeof *h->root_rec, cmp_rootrec);
	for (size_t i = 0; i < h->nroot_rec; i++)
		if (k == 0 || cmp_rootrec(&h->root_rec[k - 1], &h->root_rec[i]) != 0)
			h->root_rec[k++] = h->root_rec[i];
	h->nroot_rec = k;
}

/* Objects only weakly reachable: a weak referent from a marked object
 * that nothing strong reaches becomes a pseudo root; repeat while new
 * objects get marked (their referents may qualify in turn). */
static void weak_roots(struct heap *h, bits_t *seen, node_t *stack, struct rootlist *rl)
{
	for (int changed = 1; changed;) {
		changed = 0;
		for (uint64_t i = 0; i < h->nweak; i++) {
			node_t s = h->weak_src[i], t = h->weak_dst[i];
			if (!bit_get(seen, s) || bit_get(seen, t) || weak_left_out(h, i))
				continue;
			add_pseudo(h, rl, t, RK_WEAK_ONLY);
			h->weakonly_count += mark_from(h, seen, stack, t, NULL, NULL);
			changed = 1;
		}
	}
}

/* Unreachable objects: first those that no other unreachable object
 * refers to, then (cycles) the rest, in index order. */
static void unreachable_roots(struct heap *h, bits_t *seen, node_t *stack, struct rootlist *rl)
{
	bits_t *pointed = xcalloc(bits_words(h->n), sizeof *pointed);

	for (node_t v = 1; v < h->n; v++) {
		if (bit_get(seen, v))
			continue;
		for (edge_t j = h->out_start[v]; j < h->out_start[v + 1]; j++)
			if (h->out[j] != v)
				bit_set(pointed, h->out[j]);
	}
	for (int pass = 0; pass < 2; pass++)
		for (node_t v = 1; v < h->n; v++) {
			if (bit_get(seen, v) || (pass == 0 && bit_get(pointed, v)))
				continue;
			add_pseudo(h, rl, v, RK_UNREACHABLE);
			h->unreachable_count += mark_from(h, seen, stack, v, NULL, NULL);
		}
	free(pointed);
}

static void build_in(struct heap *h)
{
	edge_t *cnt = xcalloc((size_t)h->n + 1, sizeof *cnt);

	for (size_t i = 0; i < h->nroots; i++)
		cnt[h->roots[i] + 1]++;
	for (uint64_t j = 0; j < h->nedges; j++)
		cnt[h->out[j] + 1]++;
	for (node_t v = 0; v < h->n; v++)
		cnt[v + 1] += cnt[v];
	h->in_start = cnt;
	h->in = xmalloc(((size_t)h->nedges + h->nroots + 1) * sizeof *h->in);
	edge_t *pos = xmalloc(((size_t)h->n + 1) * sizeof *pos);
	memcpy(pos, cnt, ((size_t)h->n + 1) * sizeof *pos);
	/* sources in index order: the root (0) first, then by object */
	for (size_t i = 0; i < h->nroots; i++)
		h->in[pos[h->roots[i]]++] = 0;
	for (node_t v = 1; v < h->n; v++)
		for (edge_t j = h->out_start[v]; j < h->out_start[v + 1]; j++)
			h->in[pos[h->out[j]]++] = v;
	free(pos);
}

void analysis_roots(struct heap *h, struct progress *p)
{
	bits_t *seen = xcalloc(bits_words(h->n), sizeof *seen);
	node_t *stack = xmalloc(((size_t)h->n + 1) * sizeof *stack);
	struct rootlist rl = { 0 };

	progress_begin(p, "reachability", h->n, "objects");
	h->nroots = 0;
	h->roots = xmalloc((h->nroot_rec + 1) * sizeof *h->roots);
	if (h->aroot != 0) /* an analysis root: the only one */
		h->roots[h->nroots++] = h->aroot;
	for (size_t i = 0; i < h->nroot_rec && h->aroot == 0; i++) /* root_rec is sorted by node */
		if (h->nroots == 0 || h->roots[h->nroots - 1] != h->root_rec[i].node)
			h->roots[h->nroots++] = h->root_rec[i].node;
	mark_from(h, seen, stack, 0, NULL, NULL);
	bits_t *strong = xmalloc(bits_words(h->n) * sizeof *strong);
	memcpy(strong, seen, bits_words(h->n) * sizeof *strong);
	weak_roots(h, seen, stack, &rl);
	h->weakonly_bytes = bytes_of_new(h, strong, seen);
	memcpy(strong, seen, bits_words(h->n) * sizeof *strong);
	unreachable_roots(h, seen, stack, &rl);
	h->unreachable_bytes = bytes_of_new(h, strong, seen);
	free(strong);
	free(seen);
	free(stack);
	/* the pseudo roots join the root records and the root's successors */
	h->root_rec = xreallocarray(h->root_rec, h->nroot_rec + rl.nrec + 1, sizeof *h->root_rec);
	if (rl.nrec > 0)
		memcpy(h->root_rec + h->nroot_rec, rl.rec, rl.nrec * sizeof *rl.rec);
	h->nroot_rec += rl.nrec;
	hw_qsort(h->root_rec, h->nroot_rec, sizeof *h->root_rec, cmp_rootrec);
	h->roots = xreallocarray(h->roots, h->nroots + rl.nrec + 1, sizeof *h->roots);
	for (size_t i = 0; i < rl.nrec; i++)
		h->roots[h->nroots++] = rl.rec[i].node;
	hw_qsort(h->roots, h->nroots, sizeof *h->roots, cmp_node);
	free(rl.rec);
	build_in(h);
	progress_end(p);
}

/* Once the depth-first pass is done, the out-edges are dropped and
 * rebuilt from the in-edges at the end: the rest of the dominator pass
 * and the class figures then run 4 bytes an object and 4 a reference
 * lighter, which is the peak of the whole build. */
static void drop_out(void *arg)
{
	struct heap *h = arg;

	free(h->out);
	free(h->out_start);
	h->out = NULL;
	h->out_start = NULL;
}

/* out[] again, from in[] (root edges left out: they are roots[]). Each
 * node's targets come out in index order. start[] counts first at s+1,
 * then serves as the fill cursor, then is shifted back into place. */
static void rebuild_out(struct heap *h)
{
	edge_t *start = xcalloc((size_t)h->n + 1, sizeof *start);

	for (edge_t j = 0; j < h->in_start[h->n]; j++)
		if (h->in[j] != 0)
			start[h->in[j] + 1]++;
	for (node_t v = 0; v < h->n; v++)
		start[v + 1] += start[v];
	h->out = xmalloc(((size_t)h->nedges + 1) * sizeof *h->out);
	for (node_t t = 0; t < h->n; t++)
		for (edge_t j = h->in_start[t]; j < h->in_start[t + 1]; j++)
			if (h->in[j] != 0)
				h->out[start[h->in[j]]++] = t;
	memmove(start + 1, start, (size_t)h->n * sizeof *start);
	start[0] = 0;
	h->out_start = start;
}

void analysis_dominators(struct heap *h, struct progress *p)
{
	struct dgraph g = { .n = h->n, .root = 0, .out_start = h->out_start, .out = h->out,
			    .in_start = h->in_start, .in = h->in, .root_succ = h->roots,
			    .nroot_succ = h->nroots, .after_dfs = drop_out, .after_dfs_arg = h };
	node_t *order = xmalloc(((size_t)h->n + 1) * sizeof *order), norder = 0;

	progress_begin(p, "dominators", h->n, "objects");
	h->idom = xmalloc(((size_t)h->n + 1) * sizeof *h->idom);
	domtree_compute(&g, h->idom, order, &norder, progress_cb, p);
	progress_end(p);
	progress_begin(p, "retained sizes", h->n, "objects");
	h->retained = xmalloc(((size_t)h->n + 1) * sizeof *h->retained);
	for (node_t v = 0; v < h->n; v++)
		h->retained[v] = h->node_shallow[v];
	/* reverse preorder: every node is done before its dominator */
	for (node_t i = norder; i-- > 1;)
		h->retained[h->idom[order[i]]] += h->retained[order[i]];
	free(order);
	uint64_t *lb = xcalloc(h->ncls + 1, sizeof *lb);
	analysis_class_lb(h, NULL, lb);
	for (uint32_t c = 0; c < h->ncls; c++)
		h->cls[c].retained_lb = lb[c];
	free(lb);
	/* 8 bytes an object that most uses never need: rebuilt on demand */
	free(h->dom_start);
	free(h->dom_child);
	h->dom_start = h->dom_child = NULL;
	rebuild_out(h);
	progress_end(p);
}

void analysis_domchildren(struct heap *h)
{
	if (h->dom_start != NULL)
		return;
	node_t *start = xcalloc((size_t)h->n + 2, sizeof *start);
	for (node_t v = 1; v < h->n; v++)
		if (h->idom[v] != HW_NONE)
			start[h->idom[v] + 1]++;
	for (node_t v = 0; v <= h->n; v++)
		start[v + 1] += start[v];
	node_t *child = xmalloc(((size_t)h->n + 1) * sizeof *child);
	node_t *pos = xmalloc(((size_t)h->n + 1) * sizeof *pos);
	memcpy(pos, start, ((size_t)h->n + 1) * sizeof *pos);
	for (node_t v = 1; v < h->n; v++)
		if (h->idom[v] != HW_NONE)
			child[pos[h->idom[v]]++] = v;
	free(pos);
	h->dom_start = start;
	h->dom_child = child;
}

uint64_t analysis_retained_set(const struct heap *h, const bits_t *set, bits_t *out,
			       uint64_t *count, struct progress *p)
{
	bits_t *seen = xcalloc(bits_words(h->n), sizeof *seen);
	node_t *stack = xmalloc(((size_t)h->n + 1) * sizeof *stack);
	uint64_t bytes = 0, cnt = 0;

	progress_begin(p, "retained set", h->n, "objects");
	mark_from(h, seen, stack, 0, set, p);
	for (node_t v = 1; v < h->n; v++) {
		if (bit_get(seen, v))
			continue;
		bytes += h->node_shallow[v];
		cnt++;
		if (out != NULL)
			bit_set(out, v);
	}
	free(seen);
	free(stack);
	progress_end(p);
	if (count != NULL)
		*count = cnt;
	return bytes;
}

/* Depth-first over the dominator tree with a count, per class, of the
 * members of that class on the current path: a member adds its
 * retained size only when no member of its class is above it. */
void analysis_class_lb(struct heap *h, const bits_t *set, uint64_t *lb)
{
	uint32_t *active = xcalloc(h->ncls + 1, sizeof *active);
	node_t *stk = NULL, *next = NULL;
	size_t sp = 0, cap = 0;

	analysis_domchildren(h);
	memset(lb, 0, h->ncls * sizeof *lb);
	cap = 1024;
	stk = xmalloc(cap * sizeof *stk);
	next = xmalloc(cap * sizeof *next);
	stk[0] = 0;
	next[0] = h->dom_start[0];
	sp = 1;
	while (sp > 0) {
		node_t v = stk[sp - 1];
		if (next[sp - 1] == h->dom_start[v + 1]) { /* leaving v */
			if (v != 0 && (set == NULL || bit_get(set, v)))
				active[h->node_class[v]]--;
			sp--;
			continue;
		}
		node_t c = h->dom_child[next[sp - 1]++];
		if (set == NULL || bit_get(set, c)) {
			uint32_t k = h->node_class[c];
			if (active[k]++ == 0)
				lb[k] += h->retained[c];
		}
		if (sp == cap) {
			cap *= 2;
			stk = xreallocarray(stk, cap, sizeof *stk);
			next = xreallocarray(next, cap, sizeof *next);
		}
		stk[sp] = c;
		next[sp] = h->dom_start[c];
		sp++;
	}
	free(stk);
	free(next);
	free(active);
}
