/* retained.c — exact retained sizes of up to 64 sets per marking pass,
 * see retained.h.
 *
 * One pass marks, for every node v, the word reach[v]: bit i set when v
 * is reachable from the virtual root by a path that avoids set i. It is
 * a least fixed point, reached by a worklist: a node that gains bits
 * passes them on to its successors; a successor takes them but for the
 * bits of its own sets (a member of set i is never reached avoiding set
 * i), so reach[] never holds a node's own sets and what a node passes on
 * is simply its word. The retained set of set i is then every node
 * without bit i (the members among them). A node is on the worklist at
 * most once at a time, so the stack needs no more than one entry per
 * node; it may be popped again if it gained bits since, which is what
 * lets cycles and late paths converge. On the 1 GB benchmark dump a node
 * is popped 1.02 times on average: about the cost of one marking pass
 * for up to 64 sets, where analysis_retained_set is one pass per set. */
#include "graph/retained.h"

#include <stdlib.h>
#include <string.h>

/* The figures of "every instance of class c": bytes RETAINED_UNKNOWN
 * until computed. Dropped with the dominators they agree with. */
struct retained_memo {
	uint64_t *bytes, *count;
};

/* One batch: the sets' bits per class, and the pass's arrays. */
struct batch {
	const struct heap *h;
	const bits_t *within;
	uint64_t *cmask;  /* ncls + 1: the batch's sets each class is in */
	uint64_t all;     /* the batch's bits */
	uint64_t *reach;  /* n */
	bits_t *queued;   /* on the stack */
	node_t *stack;    /* n: a node is on it once at most */
	struct progress *p;
	uint64_t pops;
};

/* The batch's sets v is a member of. */
static inline uint64_t member(const struct batch *b, node_t v)
{
	uint32_t c = b->h->node_class[v];

	if (v == 0 || c == HW_NONE || (b->within != NULL && !bit_get(b->within, v)))
		return 0;
	return b->cmask[c];
}

/* The worklist. Polls for cancellation every 2^16 nodes; returns -1 if
 * cancelled. */
static int propagate(struct batch *b)
{
	const struct heap *h = b->h;
	size_t sp = 0;

	b->reach[0] = b->all;
	b->stack[sp++] = 0;
	bit_set(b->queued, 0);
	while (sp > 0) {
		node_t u = b->stack[--sp];
		bit_clr(b->queued, u);
		if ((++b->pops & 0xffff) == 0 && b->p != NULL) {
			progress_update(b->p, b->pops);
			if (progress_cancelled(b->p))
				return -1;
		}
		uint64_t give = b->reach[u];
		const node_t *e = u == 0 ? h->roots : h->out + h->out_start[u];
		size_t ne = u == 0 ? h->nroots : h->out_start[u + 1] - h->out_start[u];
		for (size_t j = 0; j < ne; j++) {
			node_t w = e[j];
			uint64_t gain = give & ~b->reach[w];
			/* the member test only for a gain: about once a node */
			if (gain == 0 || (gain &= ~member(b, w)) == 0)
				continue;
			b->reach[w] |= gain;
			if (!bit_get(b->queued, w)) {
				bit_set(b->queued, w);
				b->stack[sp++] = w;
			}
		}
	}
	return 0;
}

/* The batch's sets as class masks: bit i of cmask[c] if class c is in
 * set idx[i]. */
static void batch_masks(struct batch *b, const struct class_sets *s, const size_t *idx, size_t nb)
{
	memset(b->cmask, 0, ((size_t)b->h->ncls + 1) * sizeof *b->cmask);
	for (size_t i = 0; i < nb; i++)
		for (size_t j = s->start[idx[i]]; j < s->start[idx[i] + 1]; j++)
			b->cmask[s->cls[j]] |= (uint64_t)1 << i;
	b->all = nb == 64 ? ~(uint64_t)0 : ((uint64_t)1 << nb) - 1;
}

/* One or two sets: a word per node would cost more than it shares, so
 * each set is its members' bitset and one analysis_retained_set, whose
 * marks are a bit per node (about 2.5 times faster for one set on the
 * 1 GB benchmark dump). */
static int one_by_one(struct batch *b, size_t nb, uint64_t *by, uint64_t *cn)
{
	const struct heap *h = b->h;
	bits_t *set = xmalloc(bits_words(h->n) * sizeof *set);

	for (size_t i = 0; i < nb && !progress_cancelled(b->p); i++) {
		memset(set, 0, bits_words(h->n) * sizeof *set);
		for (node_t v = 1; v < h->n; v++)
			if (member(b, v) >> i & 1)
				bit_set(set, v);
		by[i] = analysis_retained_set(h, set, NULL, &cn[i], NULL);
	}
	free(set);
	return progress_cancelled(b->p) ? -1 : 0;
}

/* All sets of the batch in one pass; by[i] and cn[i] of each. */
static int all_at_once(struct batch *b, uint64_t *by, uint64_t *cn)
{
	const struct heap *h = b->h;

	if (b->reach == NULL) { /* fresh from xcalloc: no pages touched yet */
		b->reach = xcalloc((size_t)h->n + 1, sizeof *b->reach);
		b->queued = xcalloc(bits_words(h->n), sizeof *b->queued); /* left clear by a pass */
		b->stack = xmalloc(((size_t)h->n + 1) * sizeof *b->stack);
	} else {
		memset(b->reach, 0, (size_t)h->n * sizeof *b->reach);
	}
	if (propagate(b) < 0)
		return -1;
	for (node_t v = 1; v < h->n; v++) {
		/* retained: not reached avoiding the set (members never are) */
		uint64_t r = ~b->reach[v] & b->all;
		while (r != 0) {
			int i = __builtin_ctzll(r);
			by[i] += h->node_shallow[v];
			cn[i]++;
			r &= r - 1;
		}
	}
	return 0;
}

/* Sets idx[0..nb) of s, nb <= 64: bytes and count of each. */
static int run_batch(struct batch *b, const struct class_sets *s, const size_t *idx, size_t nb,
		     uint64_t *bytes, uint64_t *count)
{
	uint64_t by[64] = { 0 }, cn[64] = { 0 };

	if (progress_cancelled(b->p)) /* before a pass, not only during one */
		return -1;
	batch_masks(b, s, idx, nb);
	if ((nb <= 2 ? one_by_one(b, nb, by, cn) : all_at_once(b, by, cn)) < 0)
		return -1;
	for (size_t i = 0; i < nb; i++) {
		bytes[idx[i]] = by[i];
		count[idx[i]] = cn[i];
	}
	return 0;
}

static struct retained_memo *memo(struct heap *h)
{
	if (h->exact == NULL) {
		h->exact = xmalloc(sizeof *h->exact);
		h->exact->bytes = xmalloc(((size_t)h->ncls + 1) * sizeof *h->exact->bytes);
		h->exact->count = xmalloc(((size_t)h->ncls + 1) * sizeof *h->exact->count);
		for (uint32_t c = 0; c <= h->ncls; c++)
			h->exact->bytes[c] = RETAINED_UNKNOWN;
	}
	return h->exact;
}

/* The class of set i if it is every instance of one class, else
 * HW_NONE. inset[c]: instances of c within s->within. */
static uint32_t whole_class(const struct heap *h, const struct class_sets *s, size_t i,
			    const uint64_t *inset)
{
	uint32_t c = HW_NONE;

	for (size_t j = s->start[i]; j < s->start[i + 1]; j++) {
		if (c != HW_NONE && s->cls[j] != c)
			return HW_NONE;
		c = s->cls[j];
	}
	if (c == HW_NONE || (s->within != NULL && inset[c] != h->cls[c].count))
		return HW_NONE;
	return c;
}

/* Instances of each class within s->within, or NULL when there is no
 * `within` (then every instance counts). */
static uint64_t *instances_within(const struct heap *h, const struct class_sets *s)
{
	if (s->within == NULL)
		return NULL;
	uint64_t *inset = xcalloc((size_t)h->ncls + 1, sizeof *inset);
	for (node_t v = 1; v < h->n; v++)
		if (bit_get(s->within, v) && h->node_class[v] != HW_NONE)
			inset[h->node_class[v]]++;
	return inset;
}

/* The sets the memo does not answer (the others get their figures),
 * into todo; their number. */
static size_t unknown_sets(const struct heap *h, const struct class_sets *s, const uint64_t *inset,
			   uint64_t *bytes, uint64_t *count, size_t *todo)
{
	size_t ntodo = 0;

	for (size_t i = 0; i < s->n; i++) {
		uint32_t c = whole_class(h, s, i, inset);
		bytes[i] = RETAINED_UNKNOWN;
		if (c == HW_NONE || !retained_class_known(h, c, &bytes[i], &count[i]))
			todo[ntodo++] = i;
	}
	return ntodo;
}

/* The sets in todo, 64 at a time; the whole classes among them are
 * remembered. */
static int compute(struct heap *h, const struct class_sets *s, const uint64_t *inset,
		   const size_t *todo, size_t ntodo, uint64_t *bytes, uint64_t *count,
		   struct progress *p)
{
	struct batch b = { .h = h, .within = s->within, .p = p };
	int rc = 0;

	b.cmask = xmalloc(((size_t)h->ncls + 1) * sizeof *b.cmask);
	progress_begin(p, "exact retained sizes", (uint64_t)h->n * ((ntodo + 63) / 64), "objects");
	for (size_t k = 0; k < ntodo && rc == 0; k += 64) {
		size_t nb = ntodo - k < 64 ? ntodo - k : 64;
		if ((rc = run_batch(&b, s, todo + k, nb, bytes, count)) < 0)
			break;
		for (size_t i = 0; i < nb; i++) {
			uint32_t c = whole_class(h, s, todo[k + i], inset);
			if (c != HW_NONE) {
				memo(h)->bytes[c] = bytes[todo[k + i]];
				h->exact->count[c] = count[todo[k + i]];
			}
		}
	}
	progress_end(p);
	free(b.cmask);
	free(b.reach);
	free(b.queued);
	free(b.stack);
	return rc;
}

int retained_sets(struct heap *h, const struct class_sets *s, uint64_t *bytes,
		  uint64_t *count, struct progress *p)
{
	size_t *todo = xmalloc((s->n + 1) * sizeof *todo);
	uint64_t *cnt = count != NULL ? count : xmalloc((s->n + 1) * sizeof *cnt);
	uint64_t *inset = instances_within(h, s);
	int rc = 0;

	size_t ntodo = unknown_sets(h, s, inset, bytes, cnt, todo);
	if (ntodo > 0)
		rc = compute(h, s, inset, todo, ntodo, bytes, cnt, p);
	if (cnt != count)
		free(cnt);
	free(inset);
	free(todo);
	return rc;
}

uint64_t retained_class(struct heap *h, uint32_t c, const bits_t *within, uint64_t *count,
			struct progress *p)
{
	size_t start[2] = { 0, 1 };
	struct class_sets s = { .n = 1, .start = start, .cls = &c, .within = within };
	uint64_t bytes;

	retained_sets(h, &s, &bytes, count, p);
	return bytes;
}

int retained_class_known(const struct heap *h, uint32_t c, uint64_t *bytes, uint64_t *count)
{
	if (h->exact == NULL || c >= h->ncls || h->exact->bytes[c] == RETAINED_UNKNOWN)
		return 0;
	if (bytes != NULL)
		*bytes = h->exact->bytes[c];
	if (count != NULL)
		*count = h->exact->count[c];
	return 1;
}

void retained_forget(struct heap *h)
{
	if (h->exact == NULL)
		return;
	free(h->exact->bytes);
	free(h->exact->count);
	free(h->exact);
	h->exact = NULL;
}
