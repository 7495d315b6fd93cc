/* idindex.h — fast id -> node lookup over the sorted node_id array, for
 * the reference pass. Object ids are addresses: dense where the heap's
 * segments are, with wide gaps between them. Where the ids are unique
 * and share an alignment (2^slot), the index is a bitmap of the
 * segments' slots, each block of 64 slots with the node of its first
 * id (its rank): a lookup is a search among the few segments, one
 * block read (16 bytes) and a count of the bits below, without reading
 * the ids. Otherwise (ids given twice, or too sparse for a bitmap and
 * its segments in 4 bytes a node and 64 KiB) the id space is cut into buckets of 2^shift
 * bytes, each holding the index of its first node; a lookup is one
 * bucket read and a short search. The index borrows `ids`; free with
 * idindex_free(). */
#ifndef HW_IDINDEX_H
#define HW_IDINDEX_H

#include "graph/heap.h"

/* A run of ids without a wide gap: its slots from base on, in blocks
 * from blk0 on. */
struct idseg {
	uint64_t base, nslots;
	uint64_t blk0;
};

struct idblk {
	uint64_t bits; /* slot k of the block holds an id: bit k */
	uint64_t rank; /* the node of the block's first id */
};

struct idindex {
	const uint64_t *ids;
	node_t n;
	uint64_t base, max;
	unsigned shift;
	uint64_t nb;
	node_t *start; /* nb + 1; NULL with the bitmap */
	unsigned slot; /* the bitmap: a slot is 2^slot bytes */
	size_t nseg;
	struct idseg *seg;
	struct idblk *blk;
	uint64_t nblk;
	/* with the bitmap: dir[(id - base) >> dshift] the last segment
	 * from at or below that bucket's first id; a bucket may hold many
	 * segments' bases (a wide range), searched by halves */
	uint32_t *dir;
	unsigned dshift;
	uint64_t ndir;
};

void idindex_build(struct idindex *x, const uint64_t *ids, node_t n);
void idindex_free(struct idindex *x);
/* Made (and not freed)? Its bytes. */
int idindex_made(const struct idindex *x);
size_t idindex_bytes(const struct idindex *x);

/* The bits set in w, inline (without -mpopcnt the compiler's builtin is
 * a call). */
static inline unsigned idindex_bits(uint64_t w)
{
	w -= (w >> 1) & 0x5555555555555555ULL;
	w = (w & 0x3333333333333333ULL) + ((w >> 2) & 0x3333333333333333ULL);
	w = (w + (w >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
	return (unsigned)((w * 0x0101010101010101ULL) >> 56);
}

/* The same in a function made for AVX2 too (util.h's HW_WIDE): one
 * instruction in that clone, a call in the other. */
static inline unsigned idindex_bits_wide(uint64_t w)
{
	return (unsigned)__builtin_popcountll(w);
}

/* The first index in [lo, hi) with ids[i] >= id, hi if none. */
static inline node_t idindex_search(const uint64_t *ids, node_t lo, node_t hi, uint64_t id)
{
	return (node_t)lower_bound_u64_range(ids, sizeof *ids, lo, hi, id);
}

/* The last segment in [lo, hi) whose base is at or below id (that of
 * lo is; that of hi, if any, is not). */
static inline size_t idindex_seg(const struct idindex *x, size_t lo, size_t hi, uint64_t id)
{
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (x->seg[mid].base <= id)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static inline node_t idindex_find(const struct idindex *x, uint64_t id)
{
	if (id < x->base || id > x->max)
		return HW_NONE;
	if (x->blk != NULL) {
		size_t lo = idindex_seg(x, 0, x->nseg, id);
		uint64_t off = id - x->seg[lo].base, k = off >> x->slot;
		if ((off & (((uint64_t)1 << x->slot) - 1)) != 0 || k >= x->seg[lo].nslots)
			return HW_NONE;
		const struct idblk *bk = &x->blk[x->seg[lo].blk0 + (k >> 6)];
		uint64_t bit = (uint64_t)1 << (k & 63);
		if (!(bk->bits & bit))
			return HW_NONE;
		return (node_t)(bk->rank + idindex_bits(bk->bits & (bit - 1)));
	}
	uint64_t b = (id - x->base) >> x->shift;
	node_t i = idindex_search(x->ids, x->start[b], x->start[b + 1], id);
	return i < x->n && x->ids[i] == id ? i : HW_NONE;
}

/* A segment of the bitmap held by a caller that finds many ids, most in
 * the segment of the one before (a reader's references): its first id,
 * the bytes its slots span and its first block. span 0: none held. */
struct idcur {
	uint64_t base, span;
	const struct idblk *blk;
};

/* The segment of id (in the bitmap, x->blk), held in *c: 0, or -1 if
 * id is in none (*c as it was). */
static inline int idindex_cur_seek(const struct idindex *x, uint64_t id, struct idcur *c)
{
	if (id < x->base || id > x->max)
		return -1;
	/* between the bucket's segment and the next bucket's: most often
	 * one or two, but a wide range (a far object) puts many in one */
	uint64_t d = (id - x->base) >> x->dshift;
	size_t lo = idindex_seg(x, x->dir[d], d + 1 < x->ndir ? (size_t)x->dir[d + 1] + 1 : x->nseg, id);
	const struct idseg *g = &x->seg[lo];
	/* its slots' bytes: past 2^64 only for slots no id reaches */
	uint64_t span = g->nslots > (UINT64_MAX >> x->slot) ? UINT64_MAX : g->nslots << x->slot;
	if (id - g->base >= span)
		return -1;
	*c = (struct idcur){ g->base, span, x->blk + g->blk0 };
	return 0;
}

/* idindex_find over the bitmap for a caller made for AVX2 too (util.h's
 * HW_WIDE): the segment held in *c (zeroed at first) tried first, the
 * bits counted by idindex_bits_wide. */
static inline node_t idindex_find_cur(const struct idindex *x, uint64_t id, struct idcur *c)
{
	uint64_t off = id - c->base;

	if (off >= c->span) {
		if (idindex_cur_seek(x, id, c) != 0)
			return HW_NONE;
		off = id - c->base;
	}
	if ((off & (((uint64_t)1 << x->slot) - 1)) != 0)
		return HW_NONE;
	uint64_t k = off >> x->slot, bit = (uint64_t)1 << (k & 63);
	const struct idblk *bk = c->blk + (k >> 6);
	if (!(bk->bits & bit))
		return HW_NONE;
	return (node_t)(bk->rank + idindex_bits_wide(bk->bits & (bit - 1)));
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
