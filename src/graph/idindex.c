/* idindex.c — bucketed id lookup, see idindex.h. */
#include "graph/idindex.h"

#include <stdlib.h>

#include "graph/reader.h"

void idindex_build(struct idindex *x, const uint64_t *ids, node_t n)
{
	*x = (struct idindex){ .ids = ids, .n = n };
	if (n < 2) { /* only the root: an empty range that finds nothing */
		x->base = 1;
		x->max = 0;
		x->start = xcalloc(2, sizeof *x->start);
		return;
	}
	x->base = ids[1]; /* ids[0] is the virtual root's 0 */
	x->max = ids[n - 1];
	uint64_t range = x->max - x->base;
	/* at most about one bucket per node: 4 bytes a node */
	while ((range >> x->shift) >= (uint64_t)n)
		x->shift++;
	x->nb = (range >> x->shift) + 1;
	x->start = xmalloc((size_t)(x->nb + 1) * sizeof *x->start);
	node_t i = 1;
	for (uint64_t b = 0; b <= x->nb; b++) {
		while (i < n && ((ids[i] - x->base) >> x->shift) < b)
			i++;
		x->start[b] = i;
	}
}

void idindex_free(struct idindex *x)
{
	free(x->start);
	x->start = NULL;
}

/* A reader whose records hold the ids (HPROF) lets the heap drop them
 * once the graph is built (8 bytes an object): a lookup then reads the
 * records it probes. */
uint64_t heap_node_id(const struct heap *h, node_t v)
{
	if (v == 0)
		return 0;
	if (h->node_id != NULL)
		return h->node_id[v];
	return h->fmt->node_id(h, v);
}

node_t heap_find_id(const struct heap *h, uint64_t id)
{
	if (id == 0 || h->n < 2)
		return HW_NONE;
	if (h->node_id != NULL) {
		node_t i = idindex_search(h->node_id, 1, h->n, id);
		return i < h->n && h->node_id[i] == id ? i : HW_NONE;
	}
	node_t lo = 1, hi = h->n;
	while (lo < hi) {
		node_t mid = lo + (hi - lo) / 2;
		if (heap_node_id(h, mid) < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < h->n && heap_node_id(h, lo) == id ? lo : HW_NONE;
}
