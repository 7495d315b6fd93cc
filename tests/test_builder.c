/* test_builder.c — heaps handed to graph/builder.c by hand: what it
 * makes is checked against a model worked out here (nodes by id, the
 * first of an id given twice, classes by name, references to missing
 * ids counted), the dominators and retained sizes of what the GC roots
 * reach against brute force (what becomes unreachable without each
 * object), and the same heap given in other orders must come out byte
 * for byte the same; sizes past 32 bits, and cut where objects would
 * overlap (HB_DISJOINT). The analyses of a heap with a file behind it,
 * the out-edges' targets parked while in[] is made, are those of the
 * heap all in memory. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/analysis.h"
#include "graph/builder.h"
#include "graph/cache.h"
#include "graph/idindex.h"
#include "graph/open.h"
#include "suites.h"

#define MAXO 48

/* A heap as a reader would hand it over. */
struct spec {
	size_t no, nr, nt;
	struct { uint64_t id, size; int cls; uint8_t kind; } o[MAXO + 8];
	struct { uint64_t from, to; } r[4 * MAXO];
	struct { uint64_t id; uint16_t kind; uint32_t detail; } t[2 * MAXO];
};

/* Class c's name and its type id: classes 0 and 1 share the name "A"
 * under two type ids (one class, whose id is its first object's type);
 * class 4 has no name. */
static const char *const cname[] = { "A", "A", "B", "C", NULL };
static const uint64_t ctype[] = { 0x100, 0x108, 0x200, 0x300, 0x400 };

static unsigned rnd(unsigned *s, unsigned n)
{
	*s = *s * 1103515245u + 12345u;
	return (*s >> 16) % n;
}

/* Distinct ids, 8 apart or more, not ascending as drawn; every third
 * heap's past 32 bits. */
static void draw(struct spec *sp, unsigned seed, int dups, int missing)
{
	unsigned s = seed;

	memset(sp, 0, sizeof *sp);
	sp->no = 2 + rnd(&s, MAXO - 1);
	for (size_t i = 0; i < sp->no; i++) {
		sp->o[i].id = 0x1000 + 8 * (uint64_t)(i * 7 % 64) + 0x400 * (uint64_t)(i / 64);
		if (seed % 3 == 2) /* ids past 32 bits (8 GiB apart): their high halves move too */
			sp->o[i].id += (uint64_t)(i % 3) << 33;
		sp->o[i].size = 8 + 8 * rnd(&s, 20);
		sp->o[i].cls = (int)rnd(&s, 5);
		sp->o[i].kind = rnd(&s, 3) == 0 ? NK_OBJARRAY : NK_INSTANCE;
	}
	if (seed % 4 == 0) /* an object at 0, the virtual root's id */
		sp->o[rnd(&s, (unsigned)sp->no)].id = 0;
	sp->nr = rnd(&s, 3 * (unsigned)sp->no);
	for (size_t i = 0; i < sp->nr; i++) {
		sp->r[i].from = sp->o[rnd(&s, (unsigned)sp->no)].id;
		sp->r[i].to = sp->o[rnd(&s, (unsigned)sp->no)].id;
		if (missing && rnd(&s, 6) == 0) /* a target no object has, or 0 (one may) */
			sp->r[i].to = rnd(&s, 2) ? 0x999999 : 0;
		if (missing && rnd(&s, 12) == 0)
			sp->r[i].from = 0x777777;
	}
	sp->nt = 1 + rnd(&s, 4);
	for (size_t i = 0; i < sp->nt; i++) {
		sp->t[i].id = sp->o[rnd(&s, (unsigned)sp->no)].id;
		sp->t[i].kind = (uint16_t)rnd(&s, 3); /* a kind of the table and a native kind */
		sp->t[i].detail = rnd(&s, 4);
		if (missing && rnd(&s, 5) == 0)
			sp->t[i].id = 0x555555;
	}
	for (int d = 0; d < dups; d++) { /* an id given again, later, unlike */
		size_t k = rnd(&s, (unsigned)sp->no);
		sp->o[sp->no] = sp->o[k];
		sp->o[sp->no].size += 1000;
		sp->o[sp->no].cls = (sp->o[k].cls + 2) % 5;
		sp->no++;
	}
}

static void shuffle(void *base, size_t n, size_t size, unsigned *s)
{
	char tmp[64], *a = base;

	for (size_t i = n; i > 1; i--) {
		size_t j = rnd(s, (unsigned)i);
		memcpy(tmp, a + (i - 1) * size, size);
		memcpy(a + (i - 1) * size, a + j * size, size);
		memcpy(a + j * size, tmp, size);
	}
}

static int cmp_from(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, c = *(const uint64_t *)y;

	return a < c ? -1 : a > c;
}

/* The spec through the builder, in one of six ways: objects,
 * references, roots (mode 0); references and roots before the objects
 * (1); the nodes done after the objects and half the references (2);
 * the nodes done after the objects, then the references by source,
 * each source's together (hb_refs) (3); so, counted first by source
 * node (hb_refs_count) (4), or each object's count given with it
 * (hb_object_refs), kept while the ids come ascending, else counted as
 * in 4, as .NET's reader does (5). */
static struct heap *build(const struct spec *sp, int mode)
{
	struct heap *h = xcalloc(1, sizeof *h);
	struct heap_builder b;
	uint32_t type[5];
	size_t half = sp->nr / 2;
	struct { uint64_t from, to; } r[4 * MAXO];

	h->path = xstrdup("builder-test");
	h->fd = -1;
	hb_start(&b, h, NULL, sp->no / 2, 0); /* too few: the arrays grow */
	memset(type, 0xff, sizeof type);
	for (size_t i = 0; mode == 1 && i < sp->nr; i++)
		hb_ref(&b, sp->r[i].from, sp->r[i].to);
	for (size_t i = 0; mode == 1 && i < sp->nt; i++)
		hb_root(&b, sp->t[i].id, (uint8_t)sp->t[i].kind, (uint8_t)sp->t[i].kind, sp->t[i].detail);
	for (size_t i = 0; i < sp->no; i++) {
		int c = sp->o[i].cls;
		if (type[c] == HW_NONE) /* made when first needed: in the order given */
			type[c] = cname[c] ? hb_type_str(&b, cname[c], strlen(cname[c]), ctype[c])
					   : hb_type_unnamed(&b, "Type", ctype[c]);
		hb_object(&b, sp->o[i].id, type[c], sp->o[i].size, sp->o[i].kind);
		size_t m = 0;
		for (size_t j = 0; mode == 5 && j < sp->nr; j++)
			m += sp->r[j].from == sp->o[i].id;
		if (mode == 5)
			hb_object_refs(&b, m);
	}
	if (mode >= 3) {
		hb_nodes_done(&b);
		memcpy(r, sp->r, sp->nr * sizeof *r);
		qsort(r, sp->nr, sizeof *r, cmp_from);
	}
	if (mode == 5) /* kept while the ids came ascending (then no sort) */
		ck_assert_int_eq(hb_refs_counted(&b), b.ascending);
	int count = mode == 4 || (mode == 5 && !hb_refs_counted(&b));
	for (size_t i = 0, j; count && i < sp->nr; i = j) { /* the targets missing or not */
		for (j = i; j < sp->nr && r[j].from == r[i].from; j++)
			;
		if (hb_find(&b, r[i].from) != HW_NONE)
			hb_refs_count(&b, hb_find(&b, r[i].from), j - i);
	}
	for (size_t i = 0, j; mode >= 3 && i < sp->nr; i = j) {
		uint64_t to[4 * MAXO];
		for (j = i; j < sp->nr && r[j].from == r[i].from; j++)
			to[j - i] = r[j].to;
		hb_refs(&b, r[i].from, to, j - i);
	}
	for (size_t i = 0; mode != 1 && mode < 3 && i < sp->nr; i++) {
		if (mode == 2 && i == half)
			hb_nodes_done(&b);
		hb_ref(&b, sp->r[i].from, sp->r[i].to);
	}
	for (size_t i = 0; mode != 1 && i < sp->nt; i++)
		hb_root(&b, sp->t[i].id, (uint8_t)sp->t[i].kind, (uint8_t)sp->t[i].kind, sp->t[i].detail);
	hb_finish(&b);
	for (size_t i = 0; i < sp->no; i++) /* every object is found by its id */
		ck_assert_uint_eq(h->node_id[hb_find(&b, sp->o[i].id)], sp->o[i].id);
	ck_assert_uint_eq(hb_find(&b, 0x999999), HW_NONE);
	hb_free(&b);
	return h;
}

/* The model's node of id: its place among the distinct ids, ascending. */
static node_t model_node(const uint64_t *ids, node_t n, uint64_t id)
{
	for (node_t v = 1; v < n; v++)
		if (ids[v] == id)
			return v;
	return HW_NONE;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/* What reaches from the roots over adj (n x n counts) without node `gone`. */
static void reach(const uint8_t *adj, node_t n, const uint8_t *isroot, node_t gone, uint8_t *seen)
{
	node_t st[MAXO + 8], sp = 0;

	memset(seen, 0, n);
	for (node_t v = 1; v < n; v++)
		if (isroot[v] && v != gone) {
			seen[v] = 1;
			st[sp++] = v;
		}
	while (sp > 0) {
		node_t v = st[--sp];
		for (node_t t = 1; t < n; t++)
			if (adj[v * n + t] && !seen[t] && t != gone) {
				seen[t] = 1;
				st[sp++] = t;
			}
	}
}

/* Everything the builder set, against the model; then the analyses,
 * and the dominators and retained sizes of what the GC roots reach
 * against brute force. */
static void check_model(const struct spec *sp, struct heap *h)
{
	uint64_t ids[MAXO + 9], sizes[MAXO + 9] = { 0 };
	node_t n = 1;
	int cls[MAXO + 9];

	ids[0] = 0;
	for (size_t i = 0; i < sp->no; i++)
		ids[n++] = sp->o[i].id;
	qsort(ids + 1, n - 1, sizeof *ids, cmp_u64);
	node_t k = 1;
	for (node_t v = 1; v < n; v++)
		if (k == 1 || ids[k - 1] != ids[v])
			ids[k++] = ids[v];
	n = k;
	ck_assert_uint_eq(h->n, n);
	uint64_t total = 0, dangling = 0;
	for (node_t v = 1; v < n; v++) {
		size_t i = 0;
		while (sp->o[i].id != ids[v]) /* the first given of its id */
			i++;
		sizes[v] = sp->o[i].size;
		cls[v] = sp->o[i].cls;
		total += sizes[v];
		ck_assert_uint_eq(h->node_id[v], ids[v]);
		ck_assert_uint_eq(h->node_shallow[v], sizes[v]);
		ck_assert_uint_eq(h->node_kind[v], sp->o[i].kind);
		char want[32];
		if (cname[cls[v]] == NULL)
			snprintf(want, sizeof want, "Type(0x%llx)", (unsigned long long)ctype[cls[v]]);
		ck_assert_str_eq(class_name(h, h->node_class[v]), cname[cls[v]] ? cname[cls[v]] : want);
	}
	ck_assert_uint_eq(h->node_kind[0], NK_ROOT);
	ck_assert_uint_eq(h->node_class[0], HW_NONE);
	ck_assert_uint_eq(h->total_shallow, total);
	/* classes: one per name, numbered by their first node, with totals */
	node_t prev_first = 0;
	for (uint32_t c = 0; c < h->ncls; c++) {
		uint64_t cnt = 0, sum = 0;
		node_t first = HW_NONE;
		for (node_t v = 1; v < n; v++)
			if (h->node_class[v] == c) {
				cnt++;
				sum += sizes[v];
				if (first == HW_NONE)
					first = v;
			}
		ck_assert_uint_gt(cnt, 0);
		ck_assert_uint_eq(h->cls[c].count, cnt);
		ck_assert_uint_eq(h->cls[c].shallow_total, sum);
		ck_assert_uint_eq(h->cls[c].id, ctype[cls[first]]);
		ck_assert_uint_gt(first, prev_first); /* numbered by their first node */
		prev_first = first;
		for (uint32_t d = 0; d < c; d++)
			ck_assert_str_ne(class_name(h, c), class_name(h, d));
	}
	/* references: per node its targets ascending, every copy */
	uint8_t *adj = xcalloc((size_t)n * n, 1);
	for (size_t i = 0; i < sp->nr; i++) {
		node_t s = model_node(ids, n, sp->r[i].from), t = model_node(ids, n, sp->r[i].to);
		if (s == HW_NONE || t == HW_NONE)
			dangling++;
		else
			adj[s * n + t]++;
	}
	ck_assert_uint_eq(h->dangling_refs, dangling);
	ck_assert_uint_eq(h->out_start[0], 0);
	ck_assert_uint_eq(h->out_start[1], 0);
	uint64_t m = 0;
	for (node_t v = 1; v < n; v++) {
		edge_t e = h->out_start[v];
		for (node_t t = 1; t < n; t++)
			for (unsigned c = 0; c < adj[v * n + t]; c++) {
				ck_assert_uint_lt(e, h->out_start[v + 1]);
				ck_assert_uint_eq(h->out[e++], t);
			}
		ck_assert_uint_eq(e, h->out_start[v + 1]);
		m += e - h->out_start[v];
	}
	ck_assert_uint_eq(h->nedges, m);
	/* roots: by node and kind, each pair once with its least detail */
	uint8_t isroot[MAXO + 9] = { 0 };
	size_t nrec = 0;
	for (node_t v = 1; v < n; v++)
		for (unsigned kind = 0; kind < 3; kind++) {
			uint32_t best = HW_NONE;
			for (size_t i = 0; i < sp->nt; i++)
				if (sp->t[i].id == ids[v] && sp->t[i].kind == kind && sp->t[i].detail < best)
					best = sp->t[i].detail;
			if (best == HW_NONE)
				continue;
			isroot[v] = 1;
			ck_assert_uint_lt(nrec, h->nroot_rec);
			ck_assert_uint_eq(h->root_rec[nrec].node, v);
			ck_assert_uint_eq(h->root_rec[nrec].kind, kind);
			ck_assert_uint_eq(h->root_rec[nrec].native, kind);
			ck_assert_uint_eq(h->root_rec[nrec++].thread_serial, best);
		}
	ck_assert_uint_eq(h->nroot_rec, nrec);
	/* dominators and retained sizes of what the GC roots reach (the
	 * analyses move references among garbage aside: after the above) */
	heap_analyse(h, NULL);
	uint8_t live[MAXO + 9], seen[MAXO + 9], dom[MAXO + 9][MAXO + 9];
	uint64_t unreachable = 0;
	reach(adj, n, isroot, HW_NONE, live);
	memset(dom, 0, sizeof dom);
	for (node_t d = 1; d < n; d++) {
		reach(adj, n, isroot, d, seen);
		uint64_t ret = 0;
		for (node_t v = 1; v < n; v++)
			if (live[v] && (!seen[v] || v == d)) {
				ret += sizes[v];
				dom[v][d] = 1; /* d dominates v */
			}
		if (live[d])
			ck_assert_uint_eq(h->retained[d], ret);
		unreachable += !live[d];
	}
	ck_assert_uint_eq(h->unreachable_count, unreachable);
	for (node_t v = 1; v < n; v++) {
		if (!live[v])
			continue;
		node_t want = 0; /* the strict dominator with the most dominators */
		unsigned most = 0;
		for (node_t d = 1; d < n; d++)
			if (d != v && dom[v][d]) {
				unsigned c = 0;
				for (node_t e = 1; e < n; e++)
					c += dom[d][e];
				if (c > most)
					most = c, want = d;
			}
		ck_assert_uint_eq(h->idom[v], want);
	}
	free(adj);
}

/* The heap as bytes: its arrays and class names, the analyses' dominators
 * and retained sizes (the names table is the reader's, in its order). */
static void put(struct sbuf *sb, const void *p, size_t len)
{
	sbuf_add(sb, (const char *)p, len);
}

static void image(const struct heap *h, struct sbuf *sb)
{
	put(sb, &h->n, sizeof h->n);
	put(sb, h->node_id, h->n * sizeof *h->node_id);
	put(sb, h->node_class, h->n * sizeof *h->node_class);
	put(sb, h->node_shallow, h->n * sizeof *h->node_shallow);
	put(sb, h->node_kind, h->n);
	put(sb, h->out_start, ((size_t)h->n + 1) * sizeof *h->out_start);
	put(sb, h->out, h->nedges * sizeof *h->out);
	for (size_t i = 0; i < h->nroot_rec; i++) /* fields: not the padding */
		sbuf_printf(sb, "%u/%u/%u/%u/%u;", h->root_rec[i].node, h->root_rec[i].kind, h->root_rec[i].native,
			    h->root_rec[i].thread_serial, h->root_rec[i].frame);
	put(sb, h->idom, h->n * sizeof *h->idom);
	put(sb, h->retained, h->n * sizeof *h->retained);
	for (uint32_t c = 0; c < h->ncls; c++) {
		sbuf_printf(sb, "%s/%llx/%llu/%llu;", class_name(h, c), (unsigned long long)h->cls[c].id,
			    (unsigned long long)h->cls[c].count, (unsigned long long)h->cls[c].shallow_total);
	}
	sbuf_printf(sb, "%llu %llu %llu", (unsigned long long)h->dangling_refs, (unsigned long long)h->total_shallow,
		    (unsigned long long)h->nedges);
}

static void free_heap(struct heap *h)
{
	heap_free(h);
	free(h);
}

/* Random heaps, unsorted, no duplicates, nothing missing. */
START_TEST(test_random_unsorted)
{
	struct spec sp;

	for (unsigned i = 0; i < RANDOM_HEAPS(300); i++) {
		draw(&sp, i + 1, 0, 0);
		struct heap *h = build(&sp, (int)(i % 6));
		check_model(&sp, h);
		ck_assert_uint_eq(h->dangling_refs, 0);
		free_heap(h);
	}
}
END_TEST

static int cmp_obj(const void *x, const void *y)
{
	const uint64_t *a = x, *b = y; /* each object's id comes first */

	return *a < *b ? -1 : *a > *b;
}

/* The same heaps with their objects given by ascending id: the path
 * without a sort. */
/* Objects given region by region, the regions out of order (as a
 * runtime walks its heap): each region ascending, none overlapping
 * another, or (every fourth heap) two of them sharing an id. */
START_TEST(test_regions)
{
	struct spec sp;

	for (unsigned i = 0; i < RANDOM_HEAPS(200); i++) {
		draw(&sp, i + 1, 0, 1);
		qsort(sp.o, sp.no, sizeof sp.o[0], cmp_obj);
		size_t a = sp.no / 3, c = 2 * sp.no / 3, k = 0;
		if (i % 4 == 3 && a > 0) { /* the last of the first region again, later */
			sp.o[sp.no] = sp.o[a - 1];
			sp.o[sp.no++].size += 1000;
		}
		struct spec g = sp; /* the regions [c, no), [0, a), [a, c) */
		for (size_t j = c; j < sp.no; j++)
			g.o[k++] = sp.o[j];
		for (size_t j = 0; j < c; j++)
			g.o[k++] = sp.o[j];
		struct heap *h = build(&g, (int)(i % 4));
		check_model(&g, h);
		free_heap(h);
	}
}
END_TEST

START_TEST(test_random_sorted)
{
	struct spec sp;

	for (unsigned i = 0; i < RANDOM_HEAPS(300); i++) {
		draw(&sp, i + 1, 0, 1);
		qsort(sp.o, sp.no, sizeof sp.o[0], cmp_obj);
		struct heap *h = build(&sp, (int)(i % 6));
		check_model(&sp, h);
		free_heap(h);
	}
}
END_TEST

/* Ids given twice (the second unlike the first): the first kept, each
 * counted in a warning. */
START_TEST(test_duplicates)
{
	struct spec sp;

	for (unsigned i = 0; i < RANDOM_HEAPS(300); i++) {
		draw(&sp, i + 1, 1 + (int)(i % 3), 0);
		struct heap *h = build(&sp, (int)(i % 6));
		check_model(&sp, h);
		ck_assert_uint_eq(h->warn.n, 1);
		ck_assert_ptr_nonnull(strstr(h->warn.msg[0], "objects have an id given to an object before"));
		free_heap(h);
	}
}
END_TEST

/* References and roots to ids no object has (and to 0, the virtual
 * root's): counted, not kept. */
START_TEST(test_missing)
{
	struct spec sp;
	uint64_t dangling = 0;

	for (unsigned i = 0; i < RANDOM_HEAPS(300); i++) {
		draw(&sp, i + 1, 0, 1);
		struct heap *h = build(&sp, (int)(i % 6));
		check_model(&sp, h);
		dangling += h->dangling_refs;
		free_heap(h);
	}
	ck_assert_uint_gt(dangling, 100);
}
END_TEST

/* Objects, references and roots shuffled: the same heap, byte for byte. */
START_TEST(test_orders)
{
	struct spec sp;

	for (unsigned i = 0; i < RANDOM_HEAPS(100); i++) {
		struct sbuf first, again;
		unsigned s = i * 31 + 7;
		draw(&sp, i + 1, 0, 1);
		sp.t[sp.nt] = sp.t[0]; /* a root given twice, with another detail */
		sp.t[sp.nt++].detail += 3;
		sbuf_init(&first);
		struct heap *h = build(&sp, 0);
		heap_analyse(h, NULL);
		image(h, &first);
		free_heap(h);
		for (int k = 0; k < 6; k++) {
			if (k == 0) {
				qsort(sp.o, sp.no, sizeof sp.o[0], cmp_obj);
			} else {
				shuffle(sp.o, sp.no, sizeof sp.o[0], &s);
				shuffle(sp.r, sp.nr, sizeof sp.r[0], &s);
				shuffle(sp.t, sp.nt, sizeof sp.t[0], &s);
			}
			h = build(&sp, k);
			heap_analyse(h, NULL);
			sbuf_init(&again);
			image(h, &again);
			ck_assert_uint_eq(again.len, first.len);
			ck_assert_msg(memcmp(again.buf, first.buf, first.len) == 0, "heap %u, order %d differs", i, k);
			sbuf_free(&again);
			free_heap(h);
		}
		sbuf_free(&first);
	}
}
END_TEST

/* What the analyses make, as bytes: the references both ways, the
 * roots, the pseudo roots among the root records, the dominators and
 * retained sizes. */
static void analyses_image(const struct heap *h, struct sbuf *sb)
{
	put(sb, &h->n, sizeof h->n);
	put(sb, h->out_start, ((size_t)h->n + 1) * sizeof *h->out_start);
	put(sb, h->out, h->nedges * sizeof *h->out);
	put(sb, h->in_start, ((size_t)h->n + 1) * sizeof *h->in_start);
	put(sb, h->in, (size_t)h->in_start[h->n] * sizeof *h->in);
	put(sb, h->roots, h->nroots * sizeof *h->roots);
	for (size_t i = 0; i < h->nroot_rec; i++)
		sbuf_printf(sb, "%u/%u/%u;", h->root_rec[i].node, h->root_rec[i].kind, h->root_rec[i].native);
	put(sb, h->idom, h->n * sizeof *h->idom);
	put(sb, h->retained, h->n * sizeof *h->retained);
	sbuf_printf(sb, "%llu %llu %llu", (unsigned long long)h->weakonly_bytes,
		    (unsigned long long)h->unreachable_bytes, (unsigned long long)h->garbage_refs);
}

/* analysis_roots makes in[] with the out-edges' targets waiting on disk
 * (a file behind the heap: cache_begin's) when the two would take more
 * than HEAP_BUILD_BYTES an object, whatever memory there is: random
 * heaps of four references an object (V8's have 3.2: 34 bytes an
 * object) take that way, their targets parked when it is done; under
 * one an object, they stay in memory. Either way in[], the dominators
 * and the retained sizes are byte for byte those of the same heap
 * analysed with no file behind it, all in memory. */
START_TEST(test_in_refs_parked)
{
	struct spec sp;

	for (unsigned i = 0; i < RANDOM_HEAPS(200); i++) {
		unsigned s = i * 17 + 3;
		int dense = i % 2;
		struct sbuf img[2];
		int parked[2];

		draw(&sp, i + 1, 0, 0);
		sp.nr = dense ? 4 * sp.no : rnd(&s, (unsigned)sp.no);
		for (size_t j = 0; j < sp.nr; j++) {
			sp.r[j].from = sp.o[rnd(&s, (unsigned)sp.no)].id;
			sp.r[j].to = sp.o[rnd(&s, (unsigned)sp.no)].id;
		}
		for (int k = 0; k < 2; k++) { /* with a file behind it, then without */
			struct heap *h = build(&sp, (int)(i % 6));
			if (k == 0)
				ck_assert_int_eq(cache_begin(h), 0);
			/* heap_analyse, a step at a time */
			cache_changed(h, HP_IN | HP_DOM);
			analysis_cut_garbage(h, NULL);
			analysis_roots(h, NULL);
			parked[k] = h->out == NULL && h->nedges > 0;
			analysis_dominators(h, NULL);
			cache_built(h); /* (what the builder makes not, such as offsets) */
			heap_need(h, HP_ALL, NULL);
			sbuf_init(&img[k]);
			analyses_image(h, &img[k]);
			free_heap(h);
		}
		ck_assert_msg(parked[0] == dense, "heap %u (%zu objects, %zu references): targets %s", i, sp.no,
			      sp.nr, parked[0] ? "parked" : "in memory");
		ck_assert_int_eq(parked[1], 0);
		ck_assert_uint_eq(img[0].len, img[1].len);
		ck_assert_msg(memcmp(img[0].buf, img[1].buf, img[0].len) == 0, "heap %u: parked or not, it differs", i);
		sbuf_free(&img[0]);
		sbuf_free(&img[1]);
	}
}
END_TEST

static int cmp_pair(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/* Labelled references (Mono's offsets): each node's (target, label)
 * pairs, every copy, ascending, the labels parallel to out; the same
 * given again as weak references by id, sorted alike. */
START_TEST(test_labels)
{
	struct spec sp;

	for (unsigned i = 0; i < RANDOM_HEAPS(200); i++) {
		unsigned s = i + 99;
		draw(&sp, i + 1, (int)(i % 2), 1);
		struct heap *h = xcalloc(1, sizeof *h);
		struct heap_builder b;
		uint32_t lab[4 * MAXO];
		h->path = xstrdup("builder-test");
		h->fd = -1;
		hb_start(&b, h, NULL, 0, HB_LABELS);
		uint32_t t = hb_type_str(&b, "L", 1, 1);
		for (size_t j = 0; j < sp.no; j++)
			hb_object(&b, sp.o[j].id, t, sp.o[j].size, NK_INSTANCE);
		for (size_t j = 0; j < sp.nr; j++) {
			lab[j] = rnd(&s, 4) * 8;
			if (j == sp.nr / 3)
				hb_nodes_done(&b);
			hb_ref_label(&b, sp.r[j].from, sp.r[j].to, lab[j]);
		}
		hb_nodes_done(&b);
		for (size_t j = sp.nr; j-- > 0;) /* the same again, weak, by id */
			hb_weak(&b, sp.r[j].from, sp.r[j].to, lab[j]);
		hb_finish(&b);
		uint32_t *got = hb_labels_take(&b), *wl = hb_weak_labels_take(&b);
		uint64_t w = 0;
		uint64_t want[4 * MAXO];
		for (node_t v = 1; v < h->n; v++) {
			size_t m = 0;
			for (size_t j = 0; j < sp.nr; j++) {
				node_t a = hb_find(&b, sp.r[j].from), c = hb_find(&b, sp.r[j].to);
				if (a == v && c != HW_NONE)
					want[m++] = (uint64_t)c << 32 | lab[j];
			}
			qsort(want, m, sizeof *want, cmp_pair);
			ck_assert_uint_eq(h->out_start[v + 1] - h->out_start[v], m);
			for (size_t j = 0; j < m; j++) {
				edge_t e = h->out_start[v] + (edge_t)j;
				ck_assert_uint_eq((uint64_t)h->out[e] << 32 | got[e], want[j]);
				/* the weak ones alike: by target, then label */
				ck_assert_uint_lt(w, h->nweak);
				ck_assert_uint_eq(h->weak_src[w], v);
				ck_assert_uint_eq(h->weak_rule[w], WEAK_BUILTIN);
				ck_assert_uint_eq((uint64_t)h->weak_dst[w] << 32 | wl[w], want[j]);
				w++;
			}
		}
		ck_assert_uint_eq(h->nweak, w);
		ck_assert_uint_eq(h->dangling_refs, 2 * (sp.nr - h->nedges)); /* each missing twice */
		free(wl);
		free(got);
		hb_free(&b);
		free_heap(h);
	}
}
END_TEST

/* A heap given by place (HB_PLACES | HB_GIVEN | HB_LABELS, and
 * HB_TWICE in every other one), as a reader of records that name each
 * other by number hands it over: objects in a few ascending runs of ids
 * (merged) or shuffled (the radix sort), ids given twice; references
 * by node (keys, or counted first and placed one by one or a node's at
 * once), weak ones, roots; each checked against brute force here. */
struct placed { size_t no, nr, nw; uint64_t id[MAXO + 4]; uint32_t rf[4 * MAXO], rt[4 * MAXO], wf[MAXO], wt[MAXO]; };

static void draw_placed(struct placed *p, unsigned seed, int runs)
{
	unsigned s = seed;

	memset(p, 0, sizeof *p);
	p->no = 3 + rnd(&s, MAXO - 2);
	for (size_t i = 0; i < p->no; i++) /* distinct ids, ascending */
		p->id[i] = 0x1000 + 16 * (uint64_t)i + 8 * (uint64_t)(i > 5);
	if (runs) { /* cut into runs, each moved in front of the last */
		uint64_t tmp[MAXO + 4];
		size_t at = p->no, k = 0;
		while (at > 0) {
			size_t len = 1 + rnd(&s, (unsigned)at);
			memcpy(tmp + k, p->id + at - len, len * sizeof *tmp);
			k += len;
			at -= len;
		}
		memcpy(p->id, tmp, p->no * sizeof *tmp);
	} else {
		shuffle(p->id, p->no, sizeof p->id[0], &s);
	}
	for (unsigned d = rnd(&s, 3); d > 0; d--) { /* an id given again */
		uint64_t again = p->id[rnd(&s, (unsigned)p->no)];
		p->id[p->no++] = again;
	}
	p->nr = rnd(&s, 3 * (unsigned)p->no);
	for (size_t i = 0; i < p->nr; i++) {
		p->rf[i] = rnd(&s, 3) ? rnd(&s, (unsigned)p->no) : p->rf[i > 0 ? i - 1 : 0]; /* runs of one source */
		p->rt[i] = rnd(&s, 3) ? rnd(&s, (unsigned)p->no) : p->rt[i > 0 ? i - 1 : 0]; /* targets again */
	}
	p->nw = rnd(&s, (unsigned)p->no);
	for (size_t i = 0; i < p->nw; i++) {
		p->wf[i] = rnd(&s, (unsigned)p->no);
		p->wt[i] = rnd(&s, 2) ? rnd(&s, (unsigned)p->no) : p->wt[i > 0 ? i - 1 : 0];
	}
}

/* The node of place i as brute force makes it: places in id order,
 * stably; one node per id, its first place's (or one per place, twice). */
static node_t placed_node(const struct placed *p, size_t i, int twice)
{
	node_t v = 1;

	for (size_t j = 0; j < p->no; j++) {
		int first = 1;
		for (size_t k = 0; k < j; k++)
			first &= p->id[k] != p->id[j];
		if (twice)
			v += p->id[j] < p->id[i] || (p->id[j] == p->id[i] && j < i);
		else
			v += first && p->id[j] < p->id[i];
	}
	return v;
}

START_TEST(test_by_place)
{
	struct placed p;

	for (unsigned i = 0; i < RANDOM_HEAPS(400); i++) {
		int twice = i % 2, mode = (int)(i / 2 % 3);
		draw_placed(&p, i + 5, i % 4 < 2);
		struct heap *h = xcalloc(1, sizeof *h);
		struct heap_builder b;
		h->path = xstrdup("builder-test");
		h->fd = -1;
		hb_start(&b, h, NULL, p.no, HB_LABELS | HB_GIVEN | HB_PLACES | (twice ? HB_TWICE : 0));
		uint32_t t = hb_type_str(&b, "P", 1, 1);
		for (size_t j = 0; j < p.no; j++)
			hb_object(&b, p.id[j], t, 8, NK_INSTANCE);
		hb_nodes_done(&b);
		node_t *g = hb_given_take(&b);
		for (size_t j = 0; j < p.no; j++) {
			ck_assert_uint_eq(g[j], placed_node(&p, j, twice));
			ck_assert_uint_eq(h->node_id[g[j]], p.id[j]);
		}
		if (mode > 0) /* counted first */
			for (size_t j = 0; j < p.nr; j++)
				hb_refs_count(&b, g[p.rf[j]], 1);
		for (size_t j = 0; j < p.nr;) {
			size_t m = 1; /* mode 2: a run of one source's at once */
			while (mode == 2 && j + m < p.nr && p.rf[j + m] == p.rf[j])
				m++;
			if (mode < 2) {
				hb_ref_node(&b, g[p.rf[j]], g[p.rt[j]], (uint32_t)(p.nr - j)); /* labels descend */
			} else {
				uint32_t *l;
				node_t *to = hb_refs_room(&b, g[p.rf[j]], m, &l);
				for (size_t k = 0; k < m; k++) {
					to[k] = g[p.rt[j + k]];
					l[k] = (uint32_t)(p.nr - j - k);
				}
			}
			j += m;
		}
		for (size_t j = p.nw; j-- > 0;) /* in the other order: the labels say it */
			hb_weak_node(&b, g[p.wf[j]], g[p.wt[j]], (uint32_t)j);
		hb_root_node(&b, g[0], RK_OTHER, 0, 2);
		hb_root_node(&b, g[0], RK_OTHER, 0, 1);
		hb_finish(&b);
		uint32_t *lab = hb_labels_take(&b), *wl = hb_weak_labels_take(&b);
		/* each node's references: by target, then as given (not by label) */
		for (node_t v = 1; v < h->n; v++) {
			edge_t e = h->out_start[v];
			for (node_t to = 1; to < h->n; to++)
				for (size_t j = 0; j < p.nr; j++)
					if (g[p.rf[j]] == v && g[p.rt[j]] == to) {
						ck_assert_msg(e < h->out_start[v + 1], "heap %u mode %d twice %d node %u", i, mode, twice, v);
						ck_assert_uint_eq(h->out[e], to);
						ck_assert_uint_eq(lab[e++], p.nr - j);
					}
			ck_assert_uint_eq(e, h->out_start[v + 1]);
		}
		ck_assert_uint_eq(h->nedges, p.nr);
		/* weak ones: by source and target, then as given (here: the
		 * labels descending) */
		uint64_t w = 0;
		for (node_t v = 1; v < h->n; v++)
			for (node_t to = 1; to < h->n; to++)
				for (size_t j = p.nw; j-- > 0;)
					if (g[p.wf[j]] == v && g[p.wt[j]] == to) {
						ck_assert_uint_eq(h->weak_src[w], v);
						ck_assert_uint_eq(h->weak_dst[w], to);
						ck_assert_uint_eq(h->weak_rule[w], WEAK_BUILTIN);
						ck_assert_uint_eq(wl[w++], j);
					}
		ck_assert_uint_eq(h->nweak, w);
		ck_assert_uint_eq(h->nroot_rec, 1);
		ck_assert_uint_eq(h->root_rec[0].node, g[0]);
		ck_assert_uint_eq(h->root_rec[0].thread_serial, 1);
		size_t distinct = 0;
		for (size_t j = 0; j < p.no; j++) {
			size_t k = 0;
			while (k < j && p.id[k] != p.id[j])
				k++;
			distinct += k == j;
		}
		ck_assert_uint_eq(b.dup_ids, p.no - distinct);
		ck_assert_uint_eq(h->n - 1, twice ? p.no : distinct);
		ck_assert_uint_eq(h->warn.n, twice ? 0 : b.dup_ids > 0);
		free(g);
		free(lab);
		free(wl);
		hb_free(&b);
		free_heap(h);
	}
}
END_TEST

/* HB_GIVEN_NODES: each object's node in the order given, as by place,
 * while the ids stay the objects' and hb_find finds them (the .NET
 * readers walk their objects again in the order given): ids shuffled,
 * in runs or ascending, some given twice (the kept one's node). */
START_TEST(test_given_nodes)
{
	struct placed p;

	for (unsigned i = 0; i < RANDOM_HEAPS(400); i++) {
		draw_placed(&p, i + 7, i % 3 == 0);
		if (i % 3 == 2) /* ascending: no sort, no id twice */
			for (size_t j = 0; j < p.no; j++)
				p.id[j] = 0x1000 + 24 * (uint64_t)j;
		struct heap *h = xcalloc(1, sizeof *h);
		struct heap_builder b;
		h->path = xstrdup("builder-test");
		h->fd = -1;
		hb_start(&b, h, NULL, p.no, HB_GIVEN_NODES);
		uint32_t t = hb_type_str(&b, "G", 1, 1);
		for (size_t j = 0; j < p.no; j++)
			hb_object(&b, p.id[j], t, 8, NK_INSTANCE);
		hb_nodes_done(&b);
		node_t *g = hb_given_take(&b);
		ck_assert_ptr_nonnull(g);
		for (size_t j = 0; j < p.no; j++) {
			ck_assert_uint_eq(g[j], placed_node(&p, j, 0));
			ck_assert_uint_eq(h->node_id[g[j]], p.id[j]);
			ck_assert_uint_eq(hb_find(&b, p.id[j]), g[j]);
		}
		hb_finish(&b);
		free(g);
		hb_free(&b);
		free_heap(h);
	}
}
END_TEST

/* HB_GIVEN_NODES past merge_runs' 64 runs (shuffled), each against a
 * sort here: ids in one region (each node put at its place through a
 * bitmap), the same with an id given twice (the radix sort: the first
 * kept), and ids whose high halves differ (addresses in several 4 GB
 * windows, too far apart for the bitmap; the sort's copy keeps each
 * one's high half as a byte) in 3 windows, 256 and 257 (the byte's
 * bound) and 300 (the copy of 8 bytes); one window whose ids lie in
 * three regions with empty chunks between them (the bitmap's chunks
 * apart). The ids in order, each place's node its id's, and each node's
 * size its id's first object's (every object's size its own). */
START_TEST(test_given_nodes_high)
{
	enum { NO = 900 };
	static const struct { unsigned windows; int twice, regions; } cases[] = {
		{ 1, 0, 0 }, { 1, 1, 0 }, { 1, 0, 1 }, { 1, 1, 1 }, { 3, 0, 0 }, { 256, 0, 0 }, { 257, 0, 0 }, { 300, 0, 0 }
	};
	uint64_t id[NO], sorted[NO];

	for (size_t w = 0; w < sizeof cases / sizeof cases[0]; w++) {
		unsigned s = 11 + (unsigned)w;
		for (size_t j = 0; j < NO; j++) /* distinct, 8-aligned; regions 16 MiB apart: 32 chunks of 2^16 slots */
			id[j] = (uint64_t)(7 + 5 * (j % cases[w].windows)) << 32 | (0x1000 + 16 * (uint64_t)j + 8 * (j % 7 == 3)) |
				(cases[w].regions ? (uint64_t)(j % 3) << 24 : 0);
		shuffle(id, NO, sizeof id[0], &s);
		if (cases[w].twice)
			id[NO - 1] = id[NO / 2];
		memcpy(sorted, id, sizeof id);
		qsort(sorted, NO, sizeof sorted[0], cmp_u64);
		size_t distinct = 0;
		for (size_t j = 0; j < NO; j++)
			if (j == 0 || sorted[j] != sorted[distinct - 1])
				sorted[distinct++] = sorted[j];
		struct heap *h = xcalloc(1, sizeof *h);
		struct heap_builder b;
		h->path = xstrdup("builder-test");
		h->fd = -1;
		hb_start(&b, h, NULL, NO, HB_GIVEN_NODES);
		uint32_t t = hb_type_str(&b, "G", 1, 1);
		for (size_t j = 0; j < NO; j++)
			hb_object(&b, id[j], t, 8 * (j + 1), NK_INSTANCE);
		hb_nodes_done(&b);
		node_t *g = hb_given_take(&b);
		ck_assert_uint_eq(h->n, distinct + 1);
		ck_assert_uint_eq(b.dup_ids, NO - distinct);
		for (size_t j = 0; j < distinct; j++)
			ck_assert_uint_eq(h->node_id[j + 1], sorted[j]);
		for (size_t j = 0; j < NO; j++) {
			ck_assert_uint_eq(h->node_id[g[j]], id[j]);
			ck_assert_uint_eq(hb_find(&b, id[j]), g[j]);
		}
		hb_finish(&b);
		for (size_t j = 0; j < NO; j++) {
			size_t first = 0;
			while (id[first] != id[j])
				first++;
			ck_assert_msg(h->node_shallow[g[j]] == 8 * (first + 1), "case %zu: object %zu's node has size %llu",
				      w, j, (unsigned long long)h->node_shallow[g[j]]);
		}
		free(g);
		hb_free(&b);
		free_heap(h);
	}
}
END_TEST

/* Ids almost ascending (V8's snapshots: a few dozen nodes of a million
 * out of place): pairs of places swapped far apart, short blocks moved
 * a few places on, ids given twice (kept, HB_TWICE; without it the
 * first only), sizes past 32 bits on moved and unmoved nodes. Each
 * place's node, id, size, kind and class against a stable sort here,
 * and the sizes past 32 bits at their nodes; with n / 32 nodes moved
 * or fewer, no permutation of them all is made (the builder's own
 * memory at its peak: the places it gives, 4 bytes a node, and little
 * more), with more the sort's (12 bytes a node). */
struct almost { uint64_t id, size; uint32_t place; };

static int cmp_almost(const void *x, const void *y)
{
	const struct almost *a = x, *c = y;

	return a->id != c->id ? (a->id < c->id ? -1 : 1) : (a->place < c->place ? -1 : a->place > c->place);
}

START_TEST(test_almost_sorted)
{
	enum { NO = 20000 };
	static const struct { unsigned swaps, blocks, by, twice; unsigned flags; int few; } cases[] = {
		{ 1, 0, 8, 0, HB_PLACES | HB_TWICE, 1 },       /* one swap: 2 nodes moved */
		{ 9, 4, 8, 0, HB_PLACES | HB_TWICE, 1 },       /* cycles of 2 and longer ones */
		{ 6, 3, 8, 3, HB_PLACES | HB_TWICE, 1 },       /* ids given twice, kept */
		{ 6, 3, 8, 0, HB_GIVEN_NODES, 1 },              /* the id index made too */
		{ 6, 3, 8, 2, HB_GIVEN_NODES, 0 },              /* twice without HB_TWICE: the first kept (the sort) */
		{ 2, 1, 700, 0, HB_PLACES | HB_TWICE, 0 },     /* a block moved far: more than n / 32 (625) move */
		{ 0, 2, 8, 0, HB_PLACES | HB_TWICE, 1 },       /* blocks only */
	};
	static struct almost o[NO], sorted[NO];
	const char *tname[3] = { "X", "Y", "Z" };

	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		unsigned s = 101 + (unsigned)c;
		for (uint32_t j = 0; j < NO; j++)
			o[j] = (struct almost){ 0x10000 + 16 * (uint64_t)j, 8 + 8 * (uint64_t)rnd(&s, 50), j };
		for (unsigned k = 0; k < cases[c].swaps; k++) { /* far apart */
			size_t a = rnd(&s, NO / 2), b = NO / 2 + rnd(&s, NO / 2);
			uint64_t t = o[a].id;
			o[a].id = o[b].id;
			o[b].id = t;
		}
		for (unsigned k = 0; k < cases[c].blocks; k++) { /* 3 to 7 ids moved 1 to 8 places on, or `by` */
			size_t len = 3 + rnd(&s, 5), by = cases[c].by > 8 ? cases[c].by : 1 + rnd(&s, 8), a = rnd(&s, NO - 1024);
			static uint64_t t[1024];
			for (size_t j = 0; j < len + by; j++)
				t[j] = o[a + (j + len) % (len + by)].id;
			for (size_t j = 0; j < len + by; j++)
				o[a + j].id = t[j];
		}
		for (unsigned k = 0; k < cases[c].twice; k++) /* a neighbour's id again */
			o[100 + 7000 * k].id = o[101 + 7000 * k].id;
		for (unsigned k = 0; k < 3; k++) /* past 32 bits, here and there */
			o[rnd(&s, NO)].size = (uint64_t)(5 + k) << 32;
		for (uint32_t j = 0, k = 0; j < NO && k < 3; j++) /* and on nodes that move */
			if (o[j].id != 0x10000 + 16 * (uint64_t)j)
				o[j].size = (uint64_t)(8 + k++) << 32;
		for (uint32_t j = 0; j < NO; j++) /* the sizes, kinds and types stay the place's */
			o[j].size += j % 3;
		memcpy(sorted, o, sizeof o);
		qsort(sorted, NO, sizeof sorted[0], cmp_almost);
		node_t want[NO], nn = 0;
		for (size_t j = 0; j < NO; j++) {
			int again = j > 0 && sorted[j].id == sorted[j - 1].id;
			if (!again || (cases[c].flags & HB_TWICE))
				nn++;
			want[sorted[j].place] = nn; /* an id given twice without HB_TWICE: the kept one's */
		}
		struct heap *h = xcalloc(1, sizeof *h);
		struct heap_builder b;
		h->path = xstrdup("builder-test");
		h->fd = -1;
		hb_start(&b, h, NULL, NO, cases[c].flags);
		uint32_t type[3];
		for (int t = 0; t < 3; t++)
			type[t] = hb_type_str(&b, tname[t], 1, (uint64_t)t + 1);
		for (uint32_t j = 0; j < NO; j++)
			hb_object(&b, o[j].id, type[j % 3], o[j].size, (uint8_t)(j % 3 == 1 ? NK_OBJARRAY : NK_INSTANCE));
		hb_nodes_done(&b);
		if (cases[c].few)
			ck_assert_msg(b.own_peak < 6 * NO, "case %zu: own peak %zu", c, b.own_peak);
		else
			ck_assert_msg(b.own_peak >= 12 * NO, "case %zu: own peak %zu", c, b.own_peak);
		node_t *g = hb_given_take(&b);
		ck_assert_uint_eq(h->n, nn + 1);
		ck_assert_uint_eq(b.dup_ids, cases[c].twice);
		uint64_t total[3] = { 0 };
		for (uint32_t j = 0; j < NO; j++) {
			node_t v = g[j];
			ck_assert_msg(v == want[j], "case %zu: place %u: node %u, not %u", c, j, v, want[j]);
			ck_assert_uint_eq(h->node_id[v], o[j].id);
			if (v > 1)
				ck_assert_uint_le(h->node_id[v - 1], h->node_id[v]);
			uint32_t first = j; /* the kept object of the id: the first given (its neighbour) */
			while (first > 0 && want[first - 1] == v)
				first--;
			if (first != j)
				continue;
			ck_assert_uint_eq(h->node_shallow[v], o[j].size > UINT32_MAX ? UINT32_MAX : o[j].size);
			ck_assert_uint_eq(h->node_kind[v], j % 3 == 1 ? NK_OBJARRAY : NK_INSTANCE);
			ck_assert_str_eq(h->names + h->cls[h->node_class[v]].name, tname[j % 3]);
			total[j % 3] += o[j].size;
			if (o[j].size > UINT32_MAX) { /* at its node among the sizes past 32 bits */
				size_t k = 0;
				while (k < b.nbig && b.big[k].at != v)
					k++;
				ck_assert_msg(k < b.nbig && b.big[k].size == o[j].size, "case %zu: place %u's size", c, j);
			}
			if (cases[c].flags & HB_GIVEN_NODES)
				ck_assert_uint_eq(hb_find(&b, o[j].id), v);
		}
		for (size_t k = 1; k < b.nbig; k++)
			ck_assert_uint_lt(b.big[k - 1].at, b.big[k].at);
		for (uint32_t k = 1; k < h->ncls; k++)
			for (int t = 0; t < 3; t++)
				if (strcmp(h->names + h->cls[k].name, tname[t]) == 0)
					ck_assert_uint_eq(h->cls[k].shallow_total, total[t]);
		hb_finish(&b);
		free(g);
		hb_free(&b);
		free_heap(h);
	}
}
END_TEST

/* Sizes past 32 bits: node_shallow holds UINT32_MAX, the totals the
 * sizes, carried through the sort (and a duplicate's left out). */
START_TEST(test_big_sizes)
{
	static const uint64_t id[] = { 0x300, 0x100, 0x200, 0x100, 0x400 };
	static const uint64_t size[] = { 5ull << 30, 24, 7ull << 32, 9ull << 32, UINT32_MAX };
	struct heap *h = xcalloc(1, sizeof *h);
	struct heap_builder b;

	h->path = xstrdup("builder-test");
	h->fd = -1;
	hb_start(&b, h, NULL, 5, 0);
	uint32_t t = hb_type_str(&b, "Big", 3, 1), u = hb_type_str(&b, "Small", 5, 2);
	for (int i = 0; i < 5; i++)
		hb_object(&b, id[i], i == 1 ? u : t, size[i], NK_PRIMARRAY);
	hb_finish(&b);
	ck_assert_uint_eq(h->n, 5);
	ck_assert_uint_eq(h->node_shallow[1], 24);
	ck_assert_uint_eq(h->node_shallow[2], UINT32_MAX);
	ck_assert_uint_eq(h->node_shallow[3], UINT32_MAX);
	ck_assert_uint_eq(h->node_shallow[4], UINT32_MAX);
	ck_assert_uint_eq(h->total_shallow, 24 + (5ull << 30) + (7ull << 32) + UINT32_MAX);
	ck_assert_uint_eq(h->cls[h->node_class[2]].shallow_total, (5ull << 30) + (7ull << 32) + UINT32_MAX);
	ck_assert_uint_eq(h->cls[h->node_class[1]].shallow_total, 24);
	ck_assert_uint_eq(b.dup_ids, 1);
	hb_free(&b);
	free_heap(h);
}
END_TEST

/* HB_DISJOINT: sizes reaching past the next object's address (or the
 * end of the address space) cut to it, past 32 bits or not, whatever
 * the order given; without it, the sizes as given. */
static void disjoint(unsigned flags)
{
	enum { N = 6 };
	static const uint64_t id[N] = { 0x300, 0x100, UINT64_MAX - 0x10, 0x200, 0x300 + (6ull << 32), 0x180 };
	static const uint64_t size[N] = { 9ull << 32, 0x100, 0x20, 7ull << 32, 5ull << 32, 8 };
	/* by address: 0x100, 0x180, 0x200, 0x300, 0x300 + 6 << 32, the last */
	static const uint64_t cut[N] = { 0x80, 8, 0x100, 6ull << 32, 5ull << 32, 0x10 };
	static const uint64_t whole[N] = { 0x100, 8, 7ull << 32, 9ull << 32, 5ull << 32, 0x20 };
	const uint64_t *want = flags & HB_DISJOINT ? cut : whole;
	struct heap *h = xcalloc(1, sizeof *h);
	struct heap_builder b;
	uint64_t total = 0;

	h->path = xstrdup("builder-test");
	h->fd = -1;
	hb_start(&b, h, NULL, 2, flags);
	uint32_t t = hb_type_str(&b, "T", 1, 1);
	for (int i = 0; i < N; i++)
		hb_object(&b, id[i], t, size[i], NK_INSTANCE);
	hb_finish(&b);
	ck_assert_uint_eq(h->n, N + 1);
	for (node_t v = 1; v <= N; v++) {
		total += want[v - 1];
		ck_assert_uint_eq(h->node_shallow[v], want[v - 1] > UINT32_MAX ? UINT32_MAX : want[v - 1]);
	}
	ck_assert_uint_eq(h->total_shallow, total);
	ck_assert_uint_eq(h->cls[h->node_class[1]].shallow_total, total);
	ck_assert_uint_eq(b.cut_sizes, flags & HB_DISJOINT ? 4 : 0);
	hb_free(&b);
	free_heap(h);
}

START_TEST(test_disjoint)
{
	disjoint(HB_DISJOINT);
	disjoint(0);
}
END_TEST

/* A heap with known dominators: 1 -> 2 -> {3, 4} -> 5, and 6 -> 5 from
 * another root; sizes so that every retained size is distinct. */
START_TEST(test_known)
{
	struct spec sp;

	memset(&sp, 0, sizeof sp);
	static const uint64_t id[] = { 0x60, 0x10, 0x50, 0x30, 0x20, 0x40 }; /* objects 6, 1, 5, 3, 2, 4 */
	for (size_t i = 0; i < 6; i++, sp.no++) {
		sp.o[sp.no].id = id[i];
		sp.o[sp.no].size = (id[i] >> 4) * 10;
		sp.o[sp.no].cls = 2;
		sp.o[sp.no].kind = NK_INSTANCE;
	}
	static const uint64_t e[][2] = { { 0x10, 0x20 }, { 0x20, 0x30 }, { 0x20, 0x40 }, { 0x30, 0x50 },
					 { 0x40, 0x50 }, { 0x60, 0x50 }, { 0x40, 0x70 } };
	for (size_t i = 0; i < 7; i++, sp.nr++) {
		sp.r[sp.nr].from = e[i][0];
		sp.r[sp.nr].to = e[i][1];
	}
	sp.t[0].id = 0x10;
	sp.t[0].kind = 0;
	sp.t[1].id = 0x60;
	sp.t[1].kind = 1;
	sp.nt = 2;
	struct heap *h = build(&sp, 2);
	check_model(&sp, h);
	static const node_t idom[] = { 0, 0, 1, 2, 2, 0, 0 };
	static const uint64_t ret[] = { 0, 100, 90, 30, 40, 50, 60 };
	for (node_t v = 1; v < 7; v++) {
		ck_assert_uint_eq(h->idom[v], idom[v]);
		ck_assert_uint_eq(h->retained[v], ret[v]);
	}
	ck_assert_uint_eq(h->dangling_refs, 1);
	free_heap(h);
}
END_TEST

/* The builder's own memory at its peak, per object, on a heap of a
 * million objects with two references each, given unsorted: with the
 * references by id (done 0) or after hb_nodes_done (1), or counted
 * first and then given by id each source's together (2: no reference
 * kept but in the heap's arrays). */
static size_t own_peak(int done)
{
	enum { N = 1000000 };
	struct heap *h = xcalloc(1, sizeof *h);
	struct heap_builder b;

	h->path = xstrdup("builder-test");
	h->fd = -1;
	hb_start(&b, h, NULL, N, 0);
	uint32_t t = hb_type_str(&b, "T", 1, 1);
	for (uint64_t i = 0; i < N; i++) /* every one once, not in order */
		hb_object(&b, 16 * ((i * 7919) % N + 1), t, 24, NK_INSTANCE);
	if (done)
		hb_nodes_done(&b);
	for (uint64_t i = 0; done == 2 && i < N; i++)
		hb_refs_count(&b, hb_find(&b, 16 * ((i * 7919) % N + 1)), 2);
	for (uint64_t i = 0; i < N; i++) {
		uint64_t k = (i * 7919) % N, to[2] = { 16 * ((k * 31 + 1) % N + 1), 16 * ((k * 17 + 5) % N + 1) };
		if (done == 2) {
			hb_refs(&b, 16 * (k + 1), to, 2);
			continue;
		}
		hb_ref(&b, 16 * (k + 1), to[0]);
		hb_ref(&b, 16 * (k + 1), to[1]);
	}
	hb_root(&b, 16, RK_OTHER, 0, 0);
	hb_finish(&b);
	ck_assert_uint_eq(h->n, N + 1);
	ck_assert_uint_eq(h->nedges, 2 * N);
	size_t peak = b.own_peak;
	printf("builder: own memory at its peak %.1f bytes an object (%d objects, 2 references each, %s)\n",
	       (double)peak / N, N, done == 2 ? "references counted" : done ? "references after hb_nodes_done"
								      : "references by id");
	hb_free(&b);
	free_heap(h);
	return peak / N;
}

START_TEST(test_own_memory)
{
	ck_assert_uint_le(own_peak(0), 64);
	ck_assert_uint_le(own_peak(1), 32);
	ck_assert_uint_le(own_peak(2), 12); /* the sort of the nodes: no reference kept */
}
END_TEST

/* The id index (graph/idindex.h) against a search of the ids: sorted
 * ids in clusters (heap segments) with gaps from a slot to 2^40 bytes
 * between them, aligned to 1 to 16 bytes, each found at its node and
 * none of the ids around them that no node has; ids given twice, and
 * ids too sparse for the bitmap, the same through the buckets. */
static node_t id_searched(const uint64_t *ids, node_t n, uint64_t id)
{
	for (node_t i = 1; i < n; i++) /* the first of an id given twice */
		if (ids[i] == id)
			return i;
	return HW_NONE;
}

START_TEST(test_id_index)
{
	enum { M = 3000 };
	uint64_t *ids = xmalloc((M + 1) * sizeof *ids);
	unsigned s = 7;
	int bitmap = 0, buckets = 0;

	int single = 0;

	/* rounds 60 on: one segment (no gap; one of 2 objects; ids at the
	 * top of the 64-bit space), then ids mostly 16-aligned with some
	 * 8-aligned among them */
	for (unsigned round = 0; round < 80; round++) {
		int one = round >= 60 && round < 70, mixed = round >= 70;
		uint64_t align = mixed ? 16 : (uint64_t)1 << (round % 5), at = 0x7f0000000000ULL + align * rnd(&s, 1000);
		node_t n = round == 60 ? 2 : 2 + (node_t)rnd(&s, M - 1);
		if (round == 61 || round == 62)
			at = (UINT64_MAX - (uint64_t)M * 8 * align) & ~(align - 1);
		ids[0] = 0;
		for (node_t i = 1; i < n; i++) {
			unsigned k = rnd(&s, 100);
			uint64_t step = one ? align * (1 + rnd(&s, 6))
				      : k < 2 ? ((uint64_t)1 << (12 + rnd(&s, 29))) + align * rnd(&s, 64) /* a gap */
				      : k < 4 ? align * (64 * 64 + rnd(&s, 3)) /* about the cut */
				      : mixed && k < 20 ? align * (1 + rnd(&s, 6)) + 8 /* 8-aligned */
				      : round % 7 == 6 ? align * (500 + rnd(&s, 2000)) /* sparse */
				      : align * (1 + rnd(&s, 6));
			if (round % 10 == 9 && k == 50 && i > 1 && !one)
				step = 0; /* an id given twice */
			at += i == 1 ? 0 : step;
			ids[i] = at;
		}
		struct idindex x;
		idindex_build(&x, ids, n);
		if (one) {
			ck_assert_msg(x.blk != NULL && x.nseg == 1, "round %u: not one segment's bitmap", round);
			single++;
		}
		bitmap += x.blk != NULL;
		buckets += x.blk == NULL;
		for (node_t i = 1; i < n; i++) {
			uint64_t probe[] = { ids[i], ids[i] - 1, ids[i] + 1, ids[i] - align, ids[i] + align,
					     ids[i] + 64 * 64 * align, ids[i] - 64 * align, ids[i] + 63 * align };
			for (size_t j = 0; j < sizeof probe / sizeof probe[0]; j++)
				ck_assert_uint_eq(idindex_find(&x, probe[j]), id_searched(ids, n, probe[j]));
		}
		/* the bitmap with a segment held (idindex_find_cur): the same
		 * probes, in the ids' order and at random, and the far ones,
		 * one cursor throughout */
		struct idcur cur = { 0, 0, NULL };
		for (node_t j = 1; x.blk != NULL && j < 3 * n; j++) {
			node_t i = j < n ? j : 1 + (node_t)rnd(&s, n - 1);
			uint64_t probe[] = { ids[i], ids[i] - 1, ids[i] + 1, ids[i] - align, ids[i] + align,
					     ids[i] + 64 * 64 * align, ids[i] - 64 * align, ids[i] + 63 * align,
					     0, UINT64_MAX, ids[1] - align };
			for (size_t k = 0; k < sizeof probe / sizeof probe[0]; k++)
				ck_assert_uint_eq(idindex_find_cur(&x, probe[k], &cur), id_searched(ids, n, probe[k]));
		}
		ck_assert_uint_eq(idindex_find(&x, 0), HW_NONE);
		ck_assert_uint_eq(idindex_find(&x, ids[1] - align), HW_NONE);
		ck_assert_uint_eq(idindex_find(&x, UINT64_MAX), HW_NONE);
		idindex_free(&x);
	}
	ck_assert_int_eq(single, 10);
	ck_assert_int_gt(bitmap, 0); /* both ways were taken */
	ck_assert_int_gt(buckets, 0);
	free(ids);
}
END_TEST

/* Many segments over a wide range (one object far above the rest): the
 * directory's buckets hold thousands of segments' bases each, and the
 * segment of an id must still be found by halves, not by a walk through
 * them (2 M misses of the cursor over 400,000 segments: a walk takes
 * minutes, the timeout's hang; the halves a fraction of a second). */
START_TEST(test_id_index_wide)
{
	enum { SEGS = 400000, PER = 12 };
	node_t n = SEGS * PER + 2;
	uint64_t *ids = xmalloc((size_t)n * sizeof *ids);
	unsigned s = 11;

	ids[0] = 0;
	for (node_t i = 1; i + 1 < n; i++)
		ids[i] = 0x10000000ULL + (uint64_t)((i - 1) / PER) * 80000 + (uint64_t)((i - 1) % PER) * 8;
	ids[n - 1] = (uint64_t)1 << 62;
	struct idindex x;
	idindex_build(&x, ids, n);
	ck_assert_msg(x.blk != NULL && x.nseg == SEGS + 1, "not the bitmap's %u segments", SEGS + 1);
	struct idcur cur = { 0, 0, NULL };
	for (unsigned j = 0; j < 2000000; j++) {
		node_t i = 1 + (node_t)(((uint64_t)rnd(&s, 1u << 16) << 16 | rnd(&s, 1u << 16)) % (n - 1));
		ck_assert_uint_eq(idindex_find_cur(&x, ids[i], &cur), i);
		ck_assert_uint_eq(idindex_find_cur(&x, ids[i] + 4, &cur), HW_NONE);
	}
	idindex_free(&x);
	free(ids);
}
END_TEST

/* HB_RUNS: each node's references given in one stretch (in pieces of
 * any size), the nodes in their order (the labels' chunks kept as they
 * are), in order but for the last few (those before them kept as they
 * are, the rest placed back: a V8 snapshot's last nodes' ids are not
 * in order), or in any (placed back), holes (HW_NONE) among them; sorted by
 * target, then as given (HB_GIVEN) or by label. With a scratch file
 * (the labels parked there and read back, or taken), with none (kept in
 * memory), and with its writes failing part way (those after it in
 * memory); the first five past several chunks of labels (STORE_CHUNK
 * bytes each).
 * Checked against each node's references sorted here. */
struct rref { node_t to; uint32_t label, seq; };

static int cmp_rref(const void *x, const void *y, void *by_label)
{
	const struct rref *a = x, *c = y;

	if (a->to != c->to)
		return a->to < c->to ? -1 : 1;
	if (by_label != NULL && a->label != c->label)
		return a->label < c->label ? -1 : 1;
	return a->seq < c->seq ? -1 : a->seq > c->seq;
}

START_TEST(test_runs)
{
	for (unsigned i = 0; i < RANDOM_HEAPS(60) + 5; i++) {
		unsigned s = i * 7919 + 3;
		int big = i < 5 || i == 7, given = i % 2, tail = i % 6 == 1, ordered = tail || i / 2 % 2;
		int disk = i % 3 != 2, fail = disk && i % 5 == 4;
		int park = i % 7 != 3;
		node_t n = big ? 400000 + rnd(&s, 1000) : 1 + rnd(&s, 60);
		struct heap *h = xcalloc(1, sizeof *h);
		struct heap_builder b;
		h->path = xstrdup("builder-test");
		h->fd = -1;
		if (disk)
			ck_assert_int_eq(cache_begin(h), 0);
		hb_start(&b, h, NULL, n, HB_LABELS | HB_PLACES | HB_RUNS | (given ? HB_GIVEN : 0));
		uint32_t t = hb_type_str(&b, "R", 1, 1);
		for (node_t j = 0; j < n; j++)
			hb_object(&b, 0x1000 + 8 * (uint64_t)j, t, 8, NK_INSTANCE);
		hb_nodes_done(&b);
		free(hb_given_take(&b)); /* ids ascending: node j + 1 is the j'th given */
		size_t *start = xcalloc((size_t)n + 2, sizeof *start);
		for (node_t v = 1; v <= n; v++)
			start[v + 1] = start[v] + rnd(&s, big ? 7 : 5);
		size_t nr = start[n + 1];
		struct rref *r = xmalloc((nr + 1) * sizeof *r);
		for (node_t v = 1; v <= n; v++) {
			for (size_t e = start[v]; e < start[v + 1]; e++) {
				r[e].to = rnd(&s, 4) == 0 ? HW_NONE : 1 + rnd(&s, big ? n : (unsigned)(n < 4 ? n : 4));
				r[e].label = e > start[v] && rnd(&s, 3) == 0 ? r[e - 1].label : rnd(&s, 5);
				r[e].seq = (uint32_t)(e - start[v]);
			}
			if (start[v + 1] > start[v])
				hb_refs_count(&b, v, start[v + 1] - start[v]);
		}
		node_t *order = xmalloc(((size_t)n + 1) * sizeof *order);
		for (node_t j = 0; j < n; j++)
			order[j] = j + 1;
		if (!ordered)
			shuffle(order, n, sizeof *order, &s);
		else if (tail && n > 1) { /* the last 2 + n/1000 nodes in any order; heap 7's last 30%
					   * (placed anew in several windows after the chunks kept) */
			node_t k = i == 7 ? n * 3 / 10 : 2 + n / 1000;
			k = k < n ? k : n;
			shuffle(order + n - k, k, sizeof *order, &s);
		}
		for (node_t j = 0; j < n; j++) {
			node_t v = order[j];
			if (fail && j == n / 2) /* the scratch file's writes fail from here on */
				heap_scratch(h)->err = EIO;
			for (size_t e = start[v]; e < start[v + 1];) {
				size_t m = 1 + rnd(&s, (unsigned)(start[v + 1] - e));
				uint32_t *l;
				node_t *to = hb_refs_room(&b, v, m, &l);
				for (size_t k = 0; k < m; k++, e++) {
					to[k] = r[e].to;
					l[k] = r[e].label;
				}
			}
		}
		hb_finish(&b);
		uint32_t *lab = NULL;
		if (park) {
			struct store *st = heap_scratch(h);
			int rc = hb_labels_park(&b, st, 77);
			ck_assert_int_eq(rc, disk && !fail ? 0 : -1);
			if (rc == 0) {
				lab = store_get(st, 77, sizeof *lab, h->nedges);
				ck_assert_ptr_nonnull(lab);
				store_drop(st, 77);
			}
		}
		if (lab == NULL)
			lab = hb_labels_take(&b);
		edge_t e = 0;
		for (node_t v = 1; v <= n; v++) {
			hw_merge_sort(r + start[v], start[v + 1] - start[v], sizeof *r, cmp_rref, given ? NULL : r);
			ck_assert_uint_eq(h->out_start[v], e);
			for (size_t k = start[v]; k < start[v + 1] && r[k].to != HW_NONE; k++, e++) {
				ck_assert_msg(h->out[e] == r[k].to && lab[e] == r[k].label,
					      "heap %u (n %u, given %d, ordered %d, tail %d, disk %d, fail %d) node %u: %u/%u, not %u/%u",
					      i, n, given, ordered, tail, disk, fail, v, h->out[e], lab[e], r[k].to, r[k].label);
			}
		}
		ck_assert_uint_eq(h->out_start[n + 1], e);
		ck_assert_uint_eq(h->nedges, e);
		if (disk && !fail) /* the chunks let go */
			ck_assert_uint_eq(heap_scratch(h)->nsect, 0);
		free(lab);
		free(order);
		free(r);
		free(start);
		hb_free(&b);
		free_heap(h);
	}
}
END_TEST

Suite *builder_suite(void)
{
	Suite *s = suite_create("builder");
	TCase *tc = tcase_create("model");

	tcase_add_test(tc, test_known);
	tcase_add_test(tc, test_random_unsorted);
	tcase_add_test(tc, test_random_sorted);
	tcase_add_test(tc, test_regions);
	tcase_add_test(tc, test_duplicates);
	tcase_add_test(tc, test_missing);
	tcase_add_test(tc, test_orders);
	tcase_add_test(tc, test_in_refs_parked);
	tcase_add_test(tc, test_labels);
	tcase_add_test(tc, test_by_place);
	tcase_add_test(tc, test_given_nodes);
	tcase_add_test(tc, test_runs);
	tcase_add_test(tc, test_given_nodes_high);
	tcase_add_test(tc, test_almost_sorted);
	tcase_add_test(tc, test_big_sizes);
	tcase_add_test(tc, test_disjoint);
	tcase_add_test(tc, test_own_memory);
	tcase_add_test(tc, test_id_index);
	tcase_add_test(tc, test_id_index_wide);
	suite_add_tcase(s, tc);
	return s;
}
