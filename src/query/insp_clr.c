/* insp_clr.c — the .NET inspections, see inspect.h: finalizer-queue,
 * pinned, gc-handles. They read the root records (runtime/clr.h's kinds)
 * and the handles the runtime's table gives (struct runtime_ops); each
 * is a pass over the roots and the set, and a group is the members of
 * the set it names. */
#include "query/inspect.h"

#include <stdlib.h>
#include <string.h>

#include "graph/classes.h"
#include "graph/reader.h"
#include "runtime/clr.h"

/* Bytes retained, and a priority by them: >= 10% of the heap high,
 * >= 1% medium. */
static void add_group(struct insp_result *r, const struct heap *h, char *name, node_t *nodes, uint64_t n)
{
	uint64_t bytes = insp_retained(h, nodes, n, NULL), total = h->retained[0];
	enum insp_priority prio = bytes > 0 && bytes * 10 >= total ? IP_HIGH
				  : bytes > 0 && bytes * 100 >= total ? IP_MEDIUM : IP_LOW;

	if (n == 0) {
		free(name);
		free(nodes);
		return;
	}
	insp_add(r, h, name, prio, nodes, n, bytes);
}

/* The members of the set in bits, ascending; *n their count. */
static node_t *members(const struct heap *h, const struct objset *set, const bits_t *bits, uint64_t *n)
{
	node_t *list = NULL;
	size_t cap = 0;

	*n = 0;
	for (node_t v = 1; v < h->n; v++)
		if (bit_get(bits, v) && objset_has(set, v)) {
			VEC_GROW(list, *n, cap);
			list[(*n)++] = v;
		}
	return list;
}

/* One group per way of holding: ways[k]'s bits, named names[k]. */
static void groups_of_ways(struct insp_result *r, const struct heap *h, const struct objset *set,
			   bits_t **ways, const char *const *names, size_t nways)
{
	for (size_t k = 0; k < nways; k++) {
		uint64_t n;
		node_t *list = members(h, set, ways[k], &n);
		add_group(r, h, xstrdup(names[k]), list, n);
		free(ways[k]);
	}
}

/* The objects of root records of the reader's own kind native
 * (runtime/clr.h: CLR_ROOT_*). */
static bits_t *root_bits(const struct heap *h, unsigned native)
{
	bits_t *b = xcalloc(bits_words(h->n), sizeof *b);

	for (size_t i = 0; i < h->nroot_rec; i++)
		if (h->root_rec[i].kind < RK_WEAK_ONLY && h->root_rec[i].native == native)
			bit_set(b, h->root_rec[i].node);
	return b;
}

/* Objects the finalizer queue holds, one group per class. */
static int finalizer_queue(struct heap *h, const struct objset *set, const char *arg, struct insp_result *r,
			   struct progress *p, struct sbuf *err)
{
	bits_t *q = root_bits(h, CLR_ROOT_FINALIZER);
	uint64_t n;
	node_t *list = members(h, set, q, &n);

	(void)arg, (void)p, (void)err;
	/* by class, then node: a counting sort over the classes */
	uint64_t *start = xcalloc((size_t)h->ncls + 2, sizeof *start);
	for (uint64_t i = 0; i < n; i++)
		start[h->node_class[list[i]] + 1]++;
	for (uint32_t c = 0; c < h->ncls; c++)
		start[c + 1] += start[c];
	node_t *by = xmalloc((n + 1) * sizeof *by);
	uint64_t *at = xmalloc(((size_t)h->ncls + 1) * sizeof *at);
	memcpy(at, start, (size_t)h->ncls * sizeof *at);
	for (uint64_t i = 0; i < n; i++)
		by[at[h->node_class[list[i]]]++] = list[i];
	for (uint32_t c = 0; c < h->ncls; c++) {
		uint64_t k = start[c + 1] - start[c];
		if (k == 0)
			continue;
		node_t *g = xmalloc(k * sizeof *g);
		memcpy(g, by + start[c], k * sizeof *g);
		add_group(r, h, xasprintf("%s awaiting finalization", class_name(h, c)), g, k);
	}
	free(at);
	free(by);
	free(start);
	free(list);
	free(q);
	r->examined = set->count;
	return 0;
}

/* Objects the GC may not move. */
static int pinned(struct heap *h, const struct objset *set, const char *arg, struct insp_result *r,
		  struct progress *p, struct sbuf *err)
{
	static const char *const names[] = { "pinned GC handle", "pinned local", "pinned object heap" };
	bits_t *ways[3] = { root_bits(h, CLR_ROOT_PINNED), root_bits(h, CLR_ROOT_STACK_PINNED),
			    xcalloc(bits_words(h->n), sizeof(bits_t)) };

	(void)arg, (void)p, (void)err;
	for (node_t v = 1; h->node_gen != NULL && v < h->n; v++)
		if (h->node_gen[v] == CLR_POH)
			bit_set(ways[2], v);
	if (h->node_gen == NULL) { /* said, not a group found empty */
		struct sbuf why;
		sbuf_init(&why);
		sbuf_adds(&why, "the pinned object heap is not counted: ");
		heap_gen_none(h, &why);
		r->note = why.buf;
	}
	groups_of_ways(r, h, set, ways, names, 3);
	r->examined = set->count;
	return 0;
}

/* A handle's target into its way: weak handles the third, dependent
 * handles' values the fourth (with the roots a .gcdump makes of them). */
static void handle_way(void *arg, node_t target, enum handle_kind kind)
{
	bits_t **ways = arg;

	bit_set(ways[kind == HK_WEAK ? 2 : 3], target);
}

/* The targets of GC handles by the handle's kind. */
static int gc_handles(struct heap *h, const struct objset *set, const char *arg, struct insp_result *r,
		      struct progress *p, struct sbuf *err)
{
	/* named as the roots of their kinds are (and as pinned's group) */
	static const char *const names[] = { "strong GC handle", "pinned GC handle", "weak GC handle",
					     "dependent handle (values)", "sized reference handle",
					     "ref-counted handle" };
	const struct runtime_ops *rt = heap_runtime(h);
	/* dependent handles: the values a trace pairs with keys, and the
	 * roots a .gcdump makes of them (it keeps no keys) */
	bits_t *ways[6] = { root_bits(h, CLR_ROOT_HANDLE), root_bits(h, CLR_ROOT_PINNED),
			    xcalloc(bits_words(h->n), sizeof(bits_t)), root_bits(h, CLR_ROOT_DEPENDENT),
			    root_bits(h, CLR_ROOT_SIZEDREF), root_bits(h, CLR_ROOT_REFCOUNTED) };

	(void)arg, (void)p, (void)err;
	if (rt != NULL && rt->handles != NULL)
		rt->handles(h, handle_way, ways);
	if (!heap_knows_weak_handles(h)) /* said, not a group found empty */
		r->note = xasprintf("weak GC handles are not counted: %s files do not keep them", h->fmt->label);
	groups_of_ways(r, h, set, ways, names, 6);
	r->examined = set->count;
	return 0;
}

const struct inspection insp_clr[] = {
	{ "finalizer-queue", ".NET", "Objects waiting on the finalizer queue, per class", NULL, 0, "retained", 1,
	  finalizer_queue, 0, "clr", 0 },
	{ "pinned", ".NET", "Objects the GC may not move: pinned by a handle, a local, or on the pinned object heap",
	  NULL, 0, "retained", 1, pinned, 0, "clr", 0 },
	{ "gc-handles", ".NET", "The targets of GC handles, per kind of handle", NULL, 0, "retained", 1,
	  gc_handles, 0, "clr", 0 },
	{ .name = NULL },
};
