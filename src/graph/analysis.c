/* analysis.c — roots, dominators, retained sizes, see analysis.h. */
#include "graph/analysis.h"

#include <stdlib.h>
#include <string.h>

#include "graph/cache.h"
#include "graph/domtree.h"
#include "graph/reader.h"
#include "graph/resident.h"

/* Nodes found by a marking (weak_roots'). */
struct found {
	const bits_t *which; /* those of these bits */
	node_t *v;
	size_t n, cap;
};

/* Depth-first marking over strong references from `start`, not
 * entering skip; the stack (*stack, *cap entries) grows as it needs.
 * With p: progress, and it stops early (the marks then incomplete) once
 * p is cancelled. With f: the nodes marked that f->which has, added. */
static uint64_t mark_found(const struct heap *h, bits_t *seen, node_t **stack, size_t *cap, node_t start,
			   const bits_t *skip, struct progress *p, struct found *f)
{
	size_t sp = 0;
	uint64_t count = 0;

	if (bit_get(seen, start) || (skip && bit_get(skip, start)))
		return 0;
	bit_set(seen, start);
	(*stack)[sp++] = start;
	while (sp > 0) {
		node_t v = (*stack)[--sp];
		if (f != NULL && bit_get(f->which, v)) {
			if (f->n == f->cap) {
				f->cap = f->cap ? 2 * f->cap : 256;
				f->v = xreallocarray(f->v, f->cap, sizeof *f->v);
			}
			f->v[f->n++] = v;
		}
		if ((++count & 0xffff) == 0 && p != NULL) {
			progress_update(p, count);
			if (progress_cancelled(p))
				break;
		}
		const node_t *e = v == 0 ? h->roots : h->out + h->out_start[v];
		size_t ne = v == 0 ? h->nroots : h->out_start[v + 1] - h->out_start[v];
		if (sp + ne > *cap) {
			*cap = (sp + ne) * 2;
			*stack = xreallocarray(*stack, *cap, sizeof **stack);
		}
		for (size_t j = 0; j < ne; j++) {
			node_t t = e[j];
			if (bit_get(seen, t) || (skip && bit_get(skip, t)))
				continue;
			bit_set(seen, t);
			(*stack)[sp++] = t;
		}
	}
	return count;
}

static uint64_t mark_from(const struct heap *h, bits_t *seen, node_t **stack, size_t *cap, node_t start,
			  const bits_t *skip, struct progress *p)
{
	return mark_found(h, seen, stack, cap, start, skip, p, NULL);
}

/* A marking stack to start with; mark_from grows it. */
struct mstack {
	node_t *v;
	size_t cap;
};

static void mstack_init(struct mstack *m)
{
	m->cap = 4096;
	m->v = xmalloc(m->cap * sizeof *m->v);
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
	rl->rec[rl->nrec++] = (struct root){ v, (uint8_t)kind, 0, 0, 0, HW_NONE };
	(void)h;
}

/* The shallow bytes of the objects in after but not in before: word by
 * word, most of them the same in both. */
static uint64_t bytes_of_new(const struct heap *h, const bits_t *before, const bits_t *after)
{
	uint64_t b = 0;

	for (size_t w = 0; w < bits_words(h->n); w++)
		for (bits_t d = after[w] & ~before[w]; d != 0; d &= d - 1) {
			node_t v = (node_t)(w * 64 + (unsigned)__builtin_ctzll(d));
			if (v >= 1 && v < h->n)
				b += h->node_shallow[v];
		}
	return b;
}

/* Is every object 1..n-1 in set? */
static int all_set(const struct heap *h, const bits_t *set)
{
	for (node_t v = 1; v < h->n; v++) {
		if ((v & 63) == 0 && h->n - v >= 64) { /* a whole word at once */
			if (set[v >> 6] != ~(bits_t)0)
				return 0;
			v += 63;
			continue;
		}
		if (!bit_get(set, v))
			return 0;
	}
	return 1;
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
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->native < y->native ? -1 : x->native > y->native;
}

void heap_roots_unique(struct heap *h)
{
	size_t k = 0;

	hw_qsort(h->root_rec, h->nroot_rec, sizeof *h->root_rec, cmp_rootrec);
	for (size_t i = 0; i < h->nroot_rec; i++)
		if (k == 0 || cmp_rootrec(&h->root_rec[k - 1], &h->root_rec[i]) != 0)
			h->root_rec[k++] = h->root_rec[i];
		else if (h->root_rec[k - 1].copies < UINT16_MAX - h->root_rec[i].copies)
			h->root_rec[k - 1].copies += h->root_rec[i].copies + 1;
		else
			h->root_rec[k - 1].copies = UINT16_MAX;
	h->nroot_rec = k;
}

/* Objects only weakly reachable: every weak referent of a marked object
 * that nothing strong reaches (strong) becomes a pseudo root, once, even
 * where another's marking reached it first (else that other would be
 * its dominator: a referent is kept by its Reference, not by a
 * neighbour the next GC may clear as well); and so on while new objects
 * get marked (their referents may qualify in turn). The roots so made
 * and what they mark are those of the fixpoint, whatever the order:
 * one pass over all the weak references, then those of each object the
 * markings since found that has any (a worklist: linear, however deep
 * the chain of weak references). */
static void weak_root(struct heap *h, bits_t *seen, const bits_t *strong, struct mstack *st, struct rootlist *rl,
		      bits_t *rooted, struct found *f, uint64_t i)
{
	node_t s = h->weak_src[i], t = h->weak_dst[i];

	if (!bit_get(seen, s) || bit_get(strong, t) || weak_left_out(h, i) || bit_get(rooted, t))
		return;
	bit_set(rooted, t);
	add_pseudo(h, rl, t, RK_WEAK_ONLY);
	h->weakonly_count += mark_found(h, seen, &st->v, &st->cap, t, NULL, NULL, f);
}

static void weak_roots(struct heap *h, bits_t *seen, const bits_t *strong, struct mstack *st, struct rootlist *rl)
{
	if (h->nweak == 0)
		return;
	bits_t *rooted = xcalloc(bits_words(h->n), sizeof *rooted), *from = xcalloc(bits_words(h->n), sizeof *from);
	struct found f = { .which = from };
	for (uint64_t i = 0; i < h->nweak; i++)
		bit_set(from, h->weak_src[i]);
	for (uint64_t i = 0; i < h->nweak; i++)
		weak_root(h, seen, strong, st, rl, rooted, &f, i);
	while (f.n > 0) {
		node_t u = f.v[--f.n];
		for (uint64_t i = heap_weak_first(h, u); i < h->nweak && h->weak_src[i] == u; i++)
			weak_root(h, seen, strong, st, rl, rooted, &f, i);
	}
	free(f.v);
	free(rooted);
	free(from);
}

/* Unreachable objects: first those that no other unreachable object
 * refers to, then (cycles) the rest, in index order. */
static void unreachable_roots(struct heap *h, bits_t *seen, struct mstack *st, struct rootlist *rl)
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
			h->unreachable_count += mark_from(h, seen, &st->v, &st->cap, v, NULL, NULL);
		}
	free(pointed);
}

/* Merge n references (src[i], dst[i]), sorted by source then target,
 * into the weak ones, which stay sorted, each with rule `rule`. */
static void weaken(struct heap *h, const node_t *src, const node_t *dst, uint64_t n, uint16_t rule)
{
	uint64_t nw = h->nweak + n, a = 0, b = 0, k = 0;
	node_t *ws = xmalloc(((size_t)nw + 1) * sizeof *ws), *wd = xmalloc(((size_t)nw + 1) * sizeof *wd);
	uint16_t *wr = xmalloc(((size_t)nw + 1) * sizeof *wr);

	while (a < h->nweak || b < n) {
		int first = b == n || (a < h->nweak && (h->weak_src[a] < src[b] ||
			    (h->weak_src[a] == src[b] && h->weak_dst[a] <= dst[b])));
		if (first) {
			ws[k] = h->weak_src[a];
			wd[k] = h->weak_dst[a];
			wr[k++] = h->weak_rule != NULL ? h->weak_rule[a] : WEAK_BUILTIN;
			a++;
		} else {
			ws[k] = src[b];
			wd[k] = dst[b];
			wr[k++] = rule;
			b++;
		}
	}
	free(h->weak_src);
	free(h->weak_dst);
	free(h->weak_rule);
	h->weak_src = ws;
	h->weak_dst = wd;
	h->weak_rule = wr;
	h->nweak = nw;
}

/* Does (v, t) cross the border of in? */
static inline int crosses(const bits_t *in, node_t v, node_t t)
{
	return bit_get(in, v) != bit_get(in, t);
}

/* The references of source v that cross in's border, appended to the
 * moved ones (by source, then as out[] has them). */
static void moved_of(const struct heap *h, const bits_t *in, node_t v, node_t **src, node_t **dst, uint64_t *n,
		     uint64_t *cap)
{
	for (edge_t j = h->out_start[v]; j < h->out_start[v + 1]; j++) {
		if (!crosses(in, v, h->out[j]))
			continue;
		if (*n == *cap) {
			*cap = *cap ? 2 * *cap : 256;
			*src = xreallocarray(*src, *cap, sizeof **src);
			*dst = xreallocarray(*dst, *cap, sizeof **dst);
		}
		(*src)[*n] = v;
		(*dst)[(*n)++] = h->out[j];
	}
}

/* The references to move are found through from's bits (the sources
 * its callers name are few: garbage, a focus's outside), every node's
 * only without from; then out[] is closed up by moving what lies
 * between their sources: no pass over every reference when none
 * moves or few do. */
uint64_t analysis_weaken_across(struct heap *h, const bits_t *in, const bits_t *from, uint16_t rule)
{
	node_t *src = NULL, *dst = NULL;
	uint64_t nmv = 0, cap = 0;

	if (from == NULL)
		for (node_t v = 1; v < h->n; v++)
			moved_of(h, in, v, &src, &dst, &nmv, &cap);
	else
		for (size_t w = 0; w < bits_words(h->n); w++)
			for (bits_t b = from[w]; b != 0; b &= b - 1) {
				node_t v = (node_t)(w * 64 + (unsigned)__builtin_ctzll(b));
				if (v != 0 && v < h->n)
					moved_of(h, in, v, &src, &dst, &nmv, &cap);
			}
	if (nmv == 0)
		return 0;
	heap_refs_changing(h); /* out[] and its starts still as they were */
	/* from the first source on: the references between two sources
	 * moved down whole, each source's filtered, every start lowered */
	edge_t removed = 0, run = h->out_start[src[0]], total = h->out_start[h->n];
	uint64_t k = 0;
	for (node_t v = src[0]; v < h->n; v++) {
		edge_t b = h->out_start[v], e = h->out_start[v + 1]; /* as they were */
		h->out_start[v] = b - removed;
		if (k == nmv || src[k] != v)
			continue;
		memmove(h->out + run - removed, h->out + run, (size_t)(b - run) * sizeof *h->out);
		edge_t o = b - removed;
		for (edge_t j = b; j < e; j++)
			if (!crosses(in, v, h->out[j]))
				h->out[o++] = h->out[j];
		removed += (e - b) - (o - (b - removed));
		while (k < nmv && src[k] == v)
			k++;
		run = e;
	}
	memmove(h->out + run - removed, h->out + run, (size_t)(total - run) * sizeof *h->out);
	h->out_start[h->n] = total - removed;
	h->nedges = total - removed;
	weaken(h, src, dst, nmv, rule);
	free(src);
	free(dst);
	return nmv;
}

/* The dump's own root records, not the pseudo roots of an earlier
 * analysis, nor an analysis root; over the weak references too (an
 * object only weakly reachable is alive until the next GC clears its
 * referent) but those left out, and over the strong ones the analyses
 * moved aside (a focus's border: the program holds them). With strong:
 * the strong references first, what they reach then in *strong (a copy,
 * the caller's), before the weak ones are followed from there. */
static bits_t *live_set(const struct heap *h, bits_t **strong)
{
	bits_t *live = xcalloc(bits_words(h->n), sizeof *live);
	node_t *stack = xmalloc(((size_t)h->n + 1) * sizeof *stack);
	/* the sources of weak references: only theirs are looked up (a
	 * search in weak_src for every node was most of the walk's time) */
	bits_t *weak_from = xcalloc(bits_words(h->n), sizeof *weak_from);
	size_t sp = 0;
	int weak = strong == NULL; /* followed yet */

	for (uint64_t i = 0; i < h->nweak; i++)
		bit_set(weak_from, h->weak_src[i]);

	for (size_t i = 0; i < h->nroot_rec; i++) {
		node_t r = h->root_rec[i].node;
		if (h->root_rec[i].kind != RK_WEAK_ONLY && h->root_rec[i].kind != RK_UNREACHABLE &&
		    r != 0 && !bit_get(live, r)) {
			bit_set(live, r);
			stack[sp++] = r;
		}
	}
	for (;;) {
		while (sp > 0) {
			node_t u = stack[--sp];
			for (edge_t j = h->out_start[u]; j < h->out_start[u + 1]; j++)
				if (!bit_get(live, h->out[j])) {
					bit_set(live, h->out[j]);
					stack[sp++] = h->out[j];
				}
			if (!weak || !bit_get(weak_from, u))
				continue;
			for (uint64_t i = heap_weak_first(h, u); i < h->nweak && h->weak_src[i] == u; i++)
				if ((!weak_left_out(h, i) || weak_moved(h, i)) && !bit_get(live, h->weak_dst[i])) {
					bit_set(live, h->weak_dst[i]);
					stack[sp++] = h->weak_dst[i];
				}
		}
		if (weak)
			break;
		/* the strong references' part done: the weak ones from there */
		*strong = xmalloc(bits_words(h->n) * sizeof **strong);
		memcpy(*strong, live, bits_words(h->n) * sizeof **strong);
		weak = 1;
		for (uint64_t i = 0; i < h->nweak; i++)
			if (bit_get(live, h->weak_src[i]) && (!weak_left_out(h, i) || weak_moved(h, i)) &&
			    !bit_get(live, h->weak_dst[i])) {
				bit_set(live, h->weak_dst[i]);
				stack[sp++] = h->weak_dst[i];
			}
	}
	free(weak_from);
	heap_recycle(h, stack); /* in the build: the size of a column loaded next */
	return live;
}

bits_t *analysis_live_set(const struct heap *h)
{
	return live_set(h, NULL);
}

int analysis_reach(struct heap *h)
{
	if (h->reach_live != NULL)
		return 1;
	/* no pseudo root (each marks itself at least); an analysis root's
	 * analysis made its markings */
	if (h->weakonly_count + h->unreachable_count == 0 || h->aroot != 0)
		return 0;
	heap_load(h, HP_OUT | HP_WEAK, NULL);
	if (h->reach_live == NULL) /* (a load that found the cache corrupt analysed again: made) */
		h->reach_live = live_set(h, &h->reach_strong);
	return 1;
}

/* Whether the marking over the strong references from the root records
 * is the one analysis_roots makes first: so without pseudo roots among
 * the records (which the live set leaves out and an analysis has
 * dropped by then). Cutting the garbage changes it not: only the
 * references of objects outside the live set go. */
static int strong_is_first(const struct heap *h)
{
	if (h->aroot != 0)
		return 0;
	for (size_t i = 0; i < h->nroot_rec; i++)
		if (h->root_rec[i].kind == RK_WEAK_ONLY || h->root_rec[i].kind == RK_UNREACHABLE)
			return 0;
	return 1;
}

/* analysis_cut_garbage; with keep, the marking over the strong
 * references it made first when analysis_roots may take it for its own
 * first marking (strong_is_first), else *keep NULL. */
static void cut_garbage(struct heap *h, struct progress *p, bits_t **keep)
{
	bits_t *strong = NULL;

	if (keep != NULL)
		*keep = NULL;
	h->garbage_refs = 0;
	if (h->keep_unreachable || h->aroot != 0) /* an analysis root: its border is the focus's */
		return;
	heap_load(h, HP_OUT | HP_WEAK, p);
	bits_t *live = live_set(h, keep != NULL && strong_is_first(h) ? &strong : NULL);

	/* garbage's references into the live heap: those across the live
	 * set's border whose source is outside it (none without garbage, as
	 * most dumps are: a GC ran before them; then no pass over them all) */
	if (!all_set(h, live)) {
		bits_t *dead = xmalloc(bits_words(h->n) * sizeof *dead);
		for (size_t w = 0; w < bits_words(h->n); w++)
			dead[w] = ~live[w];
		h->garbage_refs = analysis_weaken_across(h, live, dead, WEAK_GARBAGE);
		free(dead);
	}
	if (strong != NULL)
		*keep = strong;
	free(live);
	if (h->garbage_refs > 0)
		cache_changed(h, HP_OUT | HP_WEAK);
}

void analysis_cut_garbage(struct heap *h, struct progress *p)
{
	cut_garbage(h, p, NULL);
}

/* in[] from the out-edges and the roots: sources in index order, the
 * root (0) first. start[] counts at t + 1 (from the out-edges in
 * memory), then serves as the fill cursor, then is shifted back into
 * place. With `park`, the out-edges' targets wait on disk while in[] is
 * filled, read back from there once, in order (when they can be put
 * there: else from memory). */
static void build_in(struct heap *h, int park)
{
	cache_changed(h, HP_IN); /* made anew */
	free(h->in);
	free(h->in_start);
	h->in = NULL;
	edge_t *cnt = xcalloc_whole((size_t)h->n + 1, sizeof *cnt);
	uint32_t id;
	struct seq sq;

	for (size_t i = 0; i < h->nroots; i++)
		cnt[h->roots[i] + 1]++;
	/* the references the fill reads below: node 1's on, from out[0]
	 * (node 0, the root, has none: its successors are roots[]) */
	edge_t m = h->n > 1 ? h->out_start[h->n] - h->out_start[1] : 0;
	for (edge_t j = 0; j < m; j++)
		cnt[h->out[j] + 1]++;
	for (node_t v = 0; v < h->n; v++)
		cnt[v + 1] += cnt[v];
	if (park && heap_store(h, HP_OUT_TO) == 0)
		heap_park(h, HP_OUT_TO);
	const struct store *st = h->out == NULL ? heap_section(h, HP_OUT_TO, &id) : NULL;
	h->in = xmalloc_whole(((size_t)h->nedges + h->nroots + 1) * sizeof *h->in);
	for (size_t i = 0; i < h->nroots; i++)
		h->in[cnt[h->roots[i]]++] = 0;
	if (st == NULL)
		seq_mem(&sq, h->out, sizeof *h->out);
	else if (seq_open(&sq, st, id, sizeof *h->out) < 0)
		hw_fatal("%s: cannot read the references back from the index file", esc_str(h->path));
	for (node_t v = 1; v < h->n; v++) {
		edge_t ne = h->out_start[v + 1] - h->out_start[v];
		const node_t *e = seq_span(&sq, ne);
		if (e == NULL)
			hw_fatal("%s: cannot read the references back from the index file", esc_str(h->path));
		for (edge_t j = 0; j < ne; j++)
			h->in[cnt[e[j]]++] = v;
	}
	seq_end(&sq);
	memmove(cnt + 1, cnt, (size_t)h->n * sizeof *cnt);
	cnt[0] = 0;
	h->in_start = cnt;
}

/* The references of objects only weakly reachable (reach, not strong)
 * into what strong references from the GC roots reach (strong) are
 * moved aside as WEAK_WEAKLY, as garbage's are: such an object (a soft
 * cache's value, its Reference alive) holds nothing the roots hold,
 * whose dominators and retained sizes are then those of the strong
 * references alone, as the retained size is defined. Not with an
 * analysis root (its border is the focus's). */
static void weakly_held(struct heap *h, const bits_t *strong, const bits_t *reach)
{
	if (h->aroot != 0 || h->weakonly_count == 0)
		return;
	bits_t *weakly = xmalloc(bits_words(h->n) * sizeof *weakly);
	for (size_t w = 0; w < bits_words(h->n); w++)
		weakly[w] = reach[w] & ~strong[w];
	uint64_t moved = analysis_weaken_across(h, strong, weakly, WEAK_WEAKLY);
	h->garbage_refs += moved; /* strong ones among the weak, as garbage's */
	if (moved > 0)
		cache_changed(h, HP_OUT | HP_WEAK);
	free(weakly);
}

/* analysis_roots; live: cut_garbage's live set, the first marking's
 * (taken and freed), or NULL. */
static void roots(struct heap *h, struct progress *p, bits_t *live)
{
	struct rootlist rl = { 0 };
	struct mstack st;

	/* the out-edges and what weakly reachable and garbage weigh: the
	 * rest waits on disk meanwhile (when there is a file behind h) */
	progress_begin(p, "reachability", h->n, "objects");
	heap_park(h, HP_OFF | HP_CLASS | HP_KIND | HP_IDS | HP_IN | HP_DOM); /* first: not both at once */
	heap_load(h, HP_OUT | HP_WEAK | HP_SHALLOW, p);
	bits_t *seen = live != NULL ? live : xcalloc(bits_words(h->n), sizeof *seen);
	mstack_init(&st);
	h->nroots = 0;
	h->roots = xmalloc((h->nroot_rec + 1) * sizeof *h->roots);
	if (h->aroot != 0) /* an analysis root: the only one */
		h->roots[h->nroots++] = h->aroot;
	for (size_t i = 0; i < h->nroot_rec && h->aroot == 0; i++) /* root_rec is sorted by node */
		if (h->nroots == 0 || h->roots[h->nroots - 1] != h->root_rec[i].node)
			h->roots[h->nroots++] = h->root_rec[i].node;
	if (live != NULL) /* marked already: from the root records, node 0 theirs */
		bit_set(seen, 0);
	else
		mark_from(h, seen, &st.v, &st.cap, 0, NULL, NULL);
	bits_t *strong = xmalloc(bits_words(h->n) * sizeof *strong);
	memcpy(strong, seen, bits_words(h->n) * sizeof *strong);
	weak_roots(h, seen, strong, &st, &rl);
	h->weakonly_bytes = bytes_of_new(h, strong, seen);
	weakly_held(h, strong, seen);
	bits_t *marked = strong; /* the strong marking */
	strong = xmalloc(bits_words(h->n) * sizeof *strong);
	memcpy(strong, seen, bits_words(h->n) * sizeof *strong);
	unreachable_roots(h, seen, &st, &rl);
	h->unreachable_bytes = bytes_of_new(h, strong, seen);
	/* the two markings kept where there are pseudo roots (their objects
	 * are the rest): the merged views' rows of the roots */
	free(h->reach_strong);
	free(h->reach_live);
	h->reach_strong = h->reach_live = NULL;
	if (rl.nrec > 0) {
		h->reach_strong = marked;
		h->reach_live = strong;
	} else {
		free(marked);
		free(strong);
	}
	free(seen);
	free(st.v);
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
	/* in[] from the out-edges in memory (they stay, for the dominators
	 * next), then on disk; where the two would take over half the
	 * memory there is, or more than the engine's own HEAP_BUILD_BYTES an
	 * object (resident.h), the out-edges' targets wait on disk while
	 * in[] is filled, read back once (and once more by the dominators,
	 * which write them there anyway: the same section, not written
	 * twice). By the references an object: the V8 bench snapshot's 3.2
	 * (33.9 bytes an object) go to disk; the HPROF bench dump's 2.5
	 * (27.9) and the .gcdump's 2.4 (26.8) stay in memory */
	heap_park(h, HP_SHALLOW | HP_WEAK);
	uint64_t inout = ((uint64_t)h->n * 2 + h->nedges * 2 + h->nroots) * sizeof(node_t);
	build_in(h, heap_tight(inout) || inout > (uint64_t)h->n * HEAP_BUILD_BYTES);
	heap_park(h, HP_IN);
	progress_end(p);
}

void analysis_roots(struct heap *h, struct progress *p)
{
	roots(h, p, NULL);
}

void analysis_garbage_roots(struct heap *h, struct progress *p)
{
	bits_t *live;

	cut_garbage(h, p, &live);
	roots(h, p, live);
}

/* The depth-first pass is over: the out-edges' targets wait on disk
 * (the dominator pass reads them from there in order), four bytes a
 * reference less in memory through the rest. */
static void drop_targets(void *arg)
{
	heap_park(arg, HP_OUT_TO);
}

static void drop_starts(void *arg)
{
	heap_park(arg, HP_OUT_AT);
}

/* Before the predecessors are read from in[]: its starts in, the
 * out-edges' out; and out again after. */
static const edge_t *in_starts(void *arg)
{
	struct heap *h = arg;

	heap_park(h, HP_OUT);
	heap_load(h, HP_IN_AT, NULL);
	return h->in_start;
}

static void drop_in_starts(void *arg)
{
	heap_park(arg, HP_IN_AT);
}

void analysis_dominators(struct heap *h, struct progress *p)
{
	node_t *order, norder;

	/* the out-edges alone: everything else waits on disk */
	progress_begin(p, "dominators", h->n, "objects");
	heap_park(h, HP_ALL & ~HP_OUT);
	heap_load(h, HP_OUT, p);
	struct dgraph g = { .n = h->n, .root = 0, .out_start = h->out_start, .out = h->out,
			    .root_succ = h->roots, .nroot_succ = h->nroots, .scratch = heap_scratch(h),
			    .scratch_id = STORE_SCRATCH, .dense = h->aroot == 0 };
	if (heap_store(h, HP_OUT_TO) == 0) {
		g.out_store = heap_section(h, HP_OUT_TO, &g.out_id);
		g.after_dfs = drop_targets;
		g.after_dfs_arg = h;
		if (heap_store(h, HP_OUT_AT) == 0)
			g.after_edges = drop_starts;
	}
	/* the predecessors from in[], read once, rather than the out-edges
	 * twice (its starts come in when the out-edges' go) */
	uint32_t in_id;
	const struct store *in_store = heap_section(h, HP_IN_FROM, &in_id);
	if (in_store != NULL || h->in != NULL) {
		g.in_store = in_store;
		g.in_id = in_id;
		g.in = h->in;
		g.in_starts = in_starts;
		g.after_edges = drop_in_starts;
		g.after_dfs_arg = h;
	}
	cache_changed(h, HP_DOM); /* made anew */
	free(h->idom);
	free(h->retained);
	h->idom = NULL;
	h->retained = NULL;
	domtree_compute(&g, &h->idom, &order, &norder, progress_cb, p);
	progress_end(p);
	/* retained sizes: reverse preorder, every node done before its
	 * dominator */
	heap_park(h, HP_OUT);
	progress_begin(p, "retained sizes", h->n, "objects");
	heap_load(h, HP_SHALLOW, p);
	h->retained = xmalloc_whole(((size_t)h->n + 1) * sizeof *h->retained);
	for (node_t v = 0; v < h->n; v++)
		h->retained[v] = h->node_shallow[v];
	heap_park(h, HP_SHALLOW);
	for (node_t i = norder; i-- > 1;)
		h->retained[h->idom[order[i]]] += h->retained[order[i]];
	heap_recycle(h, order);
	/* the tree's children, then the idoms wait on disk while the
	 * classes come in */
	analysis_domchildren(h);
	heap_park(h, HP_IDOM);
	uint64_t *lb = xcalloc(h->ncls + 1, sizeof *lb);
	analysis_class_lb(h, NULL, lb);
	for (uint32_t c = 0; c < h->ncls; c++)
		h->cls[c].retained_lb = lb[c];
	free(lb);
	/* 8 bytes an object that most uses never need: rebuilt on demand */
	heap_recycle(h, h->dom_start);
	heap_recycle(h, h->dom_child);
	h->dom_start = h->dom_child = NULL;
	progress_end(p);
}

void analysis_domchildren(struct heap *h)
{
	if (h->dom_start != NULL)
		return;
	heap_load(h, HP_IDOM, NULL);
	/* counted at idom + 2, summed (start[d + 1]: where d's children
	 * begin), filled with start[d + 1] as the cursor: it ends where d's
	 * children end, which is start[d + 1] proper */
	node_t *start = xcalloc_whole((size_t)h->n + 2, sizeof *start);
	for (node_t v = 1; v < h->n; v++)
		if (h->idom[v] != HW_NONE)
			start[h->idom[v] + 2]++;
	for (node_t v = 0; v <= h->n; v++)
		start[v + 1] += start[v];
	node_t *child = xmalloc_whole(((size_t)h->n + 1) * sizeof *child); /* but for a focus: a node each */
	for (node_t v = 1; v < h->n; v++)
		if (h->idom[v] != HW_NONE)
			child[start[h->idom[v] + 1]++] = v;
	h->dom_start = start;
	h->dom_child = child;
}

uint64_t analysis_retained_set(const struct heap *h, const bits_t *set, bits_t *out,
			       uint64_t *count, struct progress *p)
{
	bits_t *seen = xcalloc(bits_words(h->n), sizeof *seen);
	struct mstack st;
	uint64_t bytes = 0, cnt = 0;

	mstack_init(&st);
	progress_begin(p, "retained set", h->n, "objects");
	mark_from(h, seen, &st.v, &st.cap, 0, set, p);
	for (node_t v = 1; v < h->n; v++) {
		if (bit_get(seen, v))
			continue;
		bytes += h->node_shallow[v];
		cnt++;
		if (out != NULL)
			bit_set(out, v);
	}
	free(seen);
	free(st.v);
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
	heap_load(h, HP_CLASS | HP_RETAINED, NULL);
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
