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

/* ---- a heap's ids kept compact (heap.h: id_low, id_start) ----
 * Ids ascend with the nodes (HPROF: addresses); each is id_base plus a
 * multiple of 2^id_shift (the alignment they share), a key. Keys are cut
 * into buckets of 2^id_bits (at most 16), about sixteen nodes a bucket:
 * id_start[b] is the first node of bucket b, and id_low[v] the low
 * id_bits of v's key. Two bytes a node and a quarter, instead of eight;
 * a lookup is a bucket read and a search among its few nodes (a cache
 * line or two).
 *
 * idmap_begin makes them for nodes 1..n-1 whose ids go from base to
 * max (each base plus a multiple of 2^shift): 0, or -1 when they spread
 * too thin for it (more buckets than about half the nodes: the caller
 * keeps node_id[] then). idmap_set gives node v its id (v ascending),
 * idmap_end closes the last buckets when n nodes were set. */
struct idmap_fill {
	struct heap *h;
	uint64_t next; /* the next bucket whose start is not set */
};
int idmap_begin(struct idmap_fill *f, struct heap *h, node_t n, uint64_t base, uint64_t max, unsigned shift);
void idmap_end(struct idmap_fill *f, node_t n);

static inline void idmap_set(struct idmap_fill *f, node_t v, uint64_t id)
{
	struct heap *h = f->h;
	uint64_t key = (id - h->id_base) >> h->id_shift, b = key >> h->id_bits;

	while (f->next <= b)
		h->id_start[f->next++] = v;
	h->id_low[v] = (uint16_t)(key & (((uint64_t)1 << h->id_bits) - 1));
}

/* The node of id in the compact map, HW_NONE if none. */
static inline node_t idmap_find(const struct heap *h, uint64_t id)
{
	if (id < h->id_base || ((id - h->id_base) & (((uint64_t)1 << h->id_shift) - 1)) != 0)
		return HW_NONE;
	uint64_t key = (id - h->id_base) >> h->id_shift, b = key >> h->id_bits;
	if (b >= h->id_nb)
		return HW_NONE;
	uint16_t low = (uint16_t)(key & (((uint64_t)1 << h->id_bits) - 1));
	node_t lo = h->id_start[b], hi = h->id_start[b + 1], end = hi;
	while (hi - lo > 32) { /* a crowded bucket: halve it first */
		node_t mid = lo + (hi - lo) / 2;
		if (h->id_low[mid] < low)
			lo = mid + 1;
		else
			hi = mid;
	}
	node_t below = 0; /* then count, without a branch to mispredict */
	for (node_t i = lo; i < hi; i++)
		below += h->id_low[i] < low;
	lo += below;
	return lo < end && h->id_low[lo] == low ? lo : HW_NONE;
}

/* Node v's id from the compact map (v > 0). */
static inline uint64_t idmap_id(const struct heap *h, node_t v, uint64_t b)
{
	return h->id_base + ((b << h->id_bits | h->id_low[v]) << h->id_shift);
}

/* The ids of nodes in ascending order, without a search each: a walk
 * remembers the bucket it is in. Any heap (node_id[] or the map). */
struct idwalk {
	const struct heap *h;
	uint64_t b;
};
static inline uint64_t idwalk_id(struct idwalk *w, node_t v)
{
	const struct heap *h = w->h;

	if (h->node_id != NULL)
		return h->node_id[v];
	if (h->id_low == NULL)
		return heap_node_id(h, v);
	while (h->id_start[w->b + 1] <= v)
		w->b++;
	return idmap_id(h, v, w->b);
}

#endif
