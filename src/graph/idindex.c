/* idindex.c — bucketed id lookup, see idindex.h. */
#include "graph/idindex.h"

#include <stdlib.h>

#include "graph/reader.h"

/* A gap of more slots than this between two ids starts a segment: its
 * blocks would cost more than the segment's entry and a step of the
 * search. */
#define SEG_GAP (64 * 64)

/* The bitmap (idindex.h) over ids 1..n-1 (n >= 2): 0, or -1 if the
 * ids do not suit it (given twice, or too sparse). */
static int bitmap_build(struct idindex *x, const uint64_t *ids, node_t n)
{
	uint64_t all = 0, nslots = 0, nblk = 0;
	size_t nseg = 1;

	for (node_t i = 2; i < n; i++) {
		if (ids[i] <= ids[i - 1])
			return -1;
		all |= ids[i] - ids[1];
	}
	x->slot = all == 0 ? 0 : (unsigned)__builtin_ctzll(all);
	uint64_t segbase = ids[1];
	for (node_t i = 2; i <= n; i++) /* i == n closes the last segment */
		if (i == n || (ids[i] - ids[i - 1]) >> x->slot > SEG_GAP) {
			nslots = ((ids[i - 1] - segbase) >> x->slot) + 1;
			nblk += (nslots + 63) / 64;
			if (i < n) {
				nseg++;
				segbase = ids[i];
			}
		}
	/* blocks and segments at most 4 bytes a node, as the buckets', and
	 * 64 KiB besides (a small heap) */
	if (nblk > (uint64_t)n + 4096 ||
	    nblk * sizeof *x->blk + (uint64_t)nseg * sizeof *x->seg > (uint64_t)n * 4 + 65536)
		return -1;
	x->seg = xmalloc(nseg * sizeof *x->seg);
	x->blk = xcalloc((size_t)nblk, sizeof *x->blk);
	x->nseg = nseg;
	x->nblk = nblk;
	size_t s = 0;
	x->seg[0] = (struct idseg){ ids[1], 0, 0 };
	for (node_t i = 1; i < n; i++) {
		if (i > 1 && (ids[i] - ids[i - 1]) >> x->slot > SEG_GAP) {
			struct idseg *p = &x->seg[s++];
			p->nslots = ((ids[i - 1] - p->base) >> x->slot) + 1;
			x->seg[s] = (struct idseg){ ids[i], 0, p->blk0 + (p->nslots + 63) / 64 };
		}
		uint64_t k = (ids[i] - x->seg[s].base) >> x->slot;
		struct idblk *bk = &x->blk[x->seg[s].blk0 + (k >> 6)];
		if (bk->bits == 0)
			bk->rank = i;
		bk->bits |= (uint64_t)1 << (k & 63);
	}
	x->seg[s].nslots = ((ids[n - 1] - x->seg[s].base) >> x->slot) + 1;
	/* the directory: buckets no wider than the closest two segments'
	 * bases are apart (a segment's base at most in each), but no more
	 * buckets than one a 64 nodes and 1024 besides: then, over a wide
	 * range, a bucket holds many bases (idindex_cur_seek searches
	 * between a bucket's first and the next's by halves) */
	uint64_t range = ids[n - 1] - ids[1], close = range;
	for (size_t k = 1; k < nseg; k++)
		if (x->seg[k].base - x->seg[k - 1].base < close)
			close = x->seg[k].base - x->seg[k - 1].base;
	while (x->dshift < 63 && ((uint64_t)2 << x->dshift) <= close)
		x->dshift++;
	while ((range >> x->dshift) >= (uint64_t)n / 64 + 1024)
		x->dshift++;
	x->ndir = (range >> x->dshift) + 1;
	x->dir = xmalloc((size_t)x->ndir * sizeof *x->dir);
	s = 0;
	for (uint64_t d = 0; d < x->ndir; d++) {
		uint64_t first = ids[1] + (d << x->dshift);
		while (s + 1 < nseg && x->seg[s + 1].base <= first)
			s++;
		x->dir[d] = (uint32_t)s;
	}
	return 0;
}

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
	if (bitmap_build(x, ids, n) == 0)
		return;
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
	free(x->seg);
	free(x->blk);
	free(x->dir);
	x->dir = NULL;
	x->start = NULL;
	x->seg = NULL;
	x->blk = NULL;
}

int idindex_made(const struct idindex *x)
{
	return x->start != NULL || x->blk != NULL;
}

size_t idindex_bytes(const struct idindex *x)
{
	if (x->blk != NULL)
		return x->nseg * sizeof *x->seg + (size_t)x->nblk * sizeof *x->blk + (size_t)x->ndir * sizeof *x->dir;
	return x->start != NULL ? (size_t)(x->nb + 1) * sizeof *x->start : 0;
}

int idmap_begin(struct idmap_fill *f, struct heap *h, node_t n, uint64_t base, uint64_t max, unsigned shift)
{
	uint64_t keys = max < base || shift > 63 ? 0 : ((max - base) >> shift) + 1;
	unsigned bits = 0;

	f->h = h;
	f->next = 0;
	/* buckets of about sixteen nodes: the fewest bits that give that */
	while (bits < 16 && (keys >> bits) > (uint64_t)n / 16 + 1)
		bits++;
	uint64_t nb = (keys >> bits) + 1;
	if (shift > 63 || nb > (uint64_t)n / 2 + 65536)
		return -1;
	h->id_base = base;
	h->id_shift = shift;
	h->id_bits = bits;
	h->id_nb = nb;
	h->id_start = xmalloc(((size_t)nb + 1) * sizeof *h->id_start);
	h->id_low = xmalloc(((size_t)n + 1) * sizeof *h->id_low);
	h->id_low[0] = 0; /* the root's: it has no id */
	return 0;
}

void idmap_end(struct idmap_fill *f, node_t n)
{
	struct heap *h = f->h;

	while (f->next <= h->id_nb)
		h->id_start[f->next++] = n;
	h->id_low = xreallocarray(h->id_low, (size_t)n + 1, sizeof *h->id_low);
}

/* The bucket of node v (0 < v < n): the last b with id_start[b] <= v. */
static uint64_t bucket_of(const struct heap *h, node_t v)
{
	uint64_t lo = 0, hi = h->id_nb; /* id_start[0] <= v < id_start[nb] */

	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (h->id_start[mid] <= v)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
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
	if (h->id_low != NULL)
		return idmap_id(h, v, bucket_of(h, v));
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
	if (h->id_low != NULL)
		return idmap_find(h, id);
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
