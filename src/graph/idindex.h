/* idindex.h — fast id -> node lookup over the sorted node_id array, for
 * the reference pass: the id space is cut into buckets of 2^shift bytes
 * (object ids are addresses, so they are dense), each bucket holding the
 * index of its first node; a lookup is one bucket read and a short
 * search. The index borrows `ids`; free with idindex_free(). */
#ifndef HW_IDINDEX_H
#define HW_IDINDEX_H

#include "graph/heap.h"

struct idindex {
	const uint64_t *ids;
	node_t n;
	uint64_t base, max;
	unsigned shift;
	uint64_t nb;
	node_t *start; /* nb + 1 */
};

void idindex_build(struct idindex *x, const uint64_t *ids, node_t n);
void idindex_free(struct idindex *x);

/* The first index in [lo, hi) with ids[i] >= id, hi if none. */
static inline node_t idindex_search(const uint64_t *ids, node_t lo, node_t hi, uint64_t id)
{
	return (node_t)lower_bound_u64_range(ids, sizeof *ids, lo, hi, id);
}

static inline node_t idindex_find(const struct idindex *x, uint64_t id)
{
	if (id < x->base || id > x->max)
		return HW_NONE;
	uint64_t b = (id - x->base) >> x->shift;
	node_t i = idindex_search(x->ids, x->start[b], x->start[b + 1], id);
	return i < x->n && x->ids[i] == id ? i : HW_NONE;
}

#endif
