/* build.c — raw records to nodes and references, see build.h. */
#include "format/hprof_build.h"

#include <stdlib.h>
#include <string.h>

#include <sys/mman.h>

#include "format/hprof_record.h"
#include "format/hprof_classes.h"
#include "format/hprof_layout.h"
#include "graph/cache.h"
#include "graph/idindex.h"
#include "graph/resident.h"
#include "graph/reader.h"

#define WARN_EACH 10 /* per kind of problem: the first few name their offsets */


void scan_free(struct scan *s)
{
	free(s->obj);
	free(s->cd);
	free(s->root);
	free(s->str);
	free(s->lc);
	free(s->frame);
	free(s->trace);
	free(s->thread);
	memset(s, 0, sizeof *s);
}

static int sorted_by_id(const struct raw_obj *o, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (o[i].id < o[i - 1].id)
			return 0;
	return 1;
}

/* Stable LSD radix sort by id, a byte at a time, skipping bytes that
 * are the same in every id (ids are addresses: the top bytes are). */
static void radix_sort(struct raw_obj *o, size_t n)
{
	struct raw_obj *tmp = xmalloc(n * sizeof *tmp), *a = o, *b = tmp;
	size_t count[256];

	for (int shift = 0; shift < 64; shift += 8) {
		memset(count, 0, sizeof count);
		for (size_t i = 0; i < n; i++)
			count[(a[i].id >> shift) & 0xff]++;
		if (count[(a[0].id >> shift) & 0xff] == n)
			continue;
		size_t sum = 0;
		for (int d = 0; d < 256; d++) {
			size_t c = count[d];
			count[d] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			b[count[(a[i].id >> shift) & 0xff]++] = a[i];
		struct raw_obj *t = a;
		a = b;
		b = t;
	}
	if (a != o)
		memcpy(o, a, n * sizeof *o);
	free(tmp);
}

static int cmp_obj(const void *a, const void *b)
{
	const struct raw_obj *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off; /* stable: file order */
}

/* HotSpot writes the class dumps and a few stragglers, then the heap in
 * address order: one long sorted run and little else. Sort the rest (a
 * copy: it is small) and merge it with that run, in place: the run goes
 * to the end, and the merge writes from the front, never past what it
 * has read. Returns 0 (nothing done) when the longest run is not most
 * of the objects. */
/* The longest run of ascending ids: where it starts, how long it is. */
static size_t longest_run(const struct raw_obj *o, size_t n, size_t *best)
{
	size_t best_len = 0, start = 0;

	*best = 0;
	for (size_t i = 1; i <= n; i++)
		if (i == n || o[i].id < o[i - 1].id) {
			if (i - start > best_len) {
				*best = start;
				best_len = i - start;
			}
			start = i;
		}
	return best_len;
}

/* Is most of it one run (what sort_long_run takes)? */
static int one_long_run(const struct raw_obj *o, size_t n)
{
	size_t best;

	return longest_run(o, n, &best) >= n - n / 8;
}

static int sort_long_run(struct raw_obj *o, size_t n)
{
	size_t best, best_len = longest_run(o, n, &best);

	if (best_len < n - n / 8)
		return 0;
	size_t nrest = n - best_len;
	struct raw_obj *rest = xmalloc((nrest + 1) * sizeof *rest);
	memcpy(rest, o, best * sizeof *o);
	memcpy(rest + best, o + best + best_len, (n - best - best_len) * sizeof *o);
	hw_qsort(rest, nrest, sizeof *rest, cmp_obj);
	memmove(o + nrest, o + best, best_len * sizeof *o);
	size_t i = nrest, j = 0, k = 0;
	while (j < nrest) /* then the run's tail is in place; ties: the earlier record first */
		if (i < n && (o[i].id < rest[j].id || (o[i].id == rest[j].id && o[i].off < rest[j].off)))
			o[k++] = o[i++];
		else
			o[k++] = rest[j++];
	free(rest);
	return 1;
}

/* Nodes: the virtual root, then the objects by id, duplicates dropped.
 * The ids go into the compact map (graph/idindex.h; node_id[] when they
 * spread too thin for it), the offsets into the first half of the
 * scan's own array: an offset is written at 8k when the record at 16i,
 * i >= k - 1, has been read, so none is lost. */
static void make_nodes(struct heap *h, struct scan *s)
{
	size_t n = s->nobj, dup = 0;
	uint64_t base = 0, max = 0, any = 0, prev = 0, prev_off = 0;
	struct idmap_fill f;

	if (n > 0 && !sorted_by_id(s->obj, n) && !sort_long_run(s->obj, n))
		radix_sort(s->obj, n);
	for (size_t i = 0; i < n; i++)
		if (s->obj[i].id != 0) {
			if (base == 0)
				base = s->obj[i].id;
			any |= s->obj[i].id - base;
			max = s->obj[i].id;
		}
	unsigned shift = 0;
	while (any != 0 && !(any & ((uint64_t)1 << shift)))
		shift++;
	int compact = n > 0 && idmap_begin(&f, h, (node_t)(n + 1), base, max, shift) == 0;
	if (!compact) {
		h->node_id = xmalloc((n + 1) * sizeof *h->node_id);
		h->node_id[0] = 0;
	}
	uint64_t *off = (uint64_t *)(void *)s->obj;
	node_t k = 1;
	for (size_t i = 0; i < n; i++) {
		struct raw_obj o = s->obj[i];
		if (o.id == 0) {
			warn_add(&h->warn, "%s: offset %llu: object with id 0 (null); skipped",
				 h->path, (unsigned long long)o.off);
			continue;
		}
		if (k > 1 && prev == o.id) {
			if (dup++ < WARN_EACH)
				warn_add(&h->warn, "%s: offset %llu: duplicate object id 0x%llx; the record "
					 "at offset %llu is kept", h->path, (unsigned long long)o.off,
					 (unsigned long long)o.id, (unsigned long long)prev_off);
			continue;
		}
		off[k] = o.off;
		if (compact)
			idmap_set(&f, k, o.id);
		else
			h->node_id[k] = o.id;
		prev = o.id;
		prev_off = o.off;
		k++;
	}
	if (dup > WARN_EACH)
		warn_add(&h->warn, "%s: %zu duplicate object ids in all", h->path, dup);
	if (compact)
		idmap_end(&f, k);
	if (s->obj == NULL) /* no object at all */
		off = xmalloc(sizeof *off);
	off[0] = 0;
	h->node_off = xreallocarray(off, k, sizeof *off);
	s->obj = NULL;
	s->capobj = 0;
	h->n = k;
	h->node_class = xmalloc((size_t)k * sizeof *h->node_class);
	h->node_shallow = xcalloc(k, sizeof *h->node_shallow);
	h->node_kind = xcalloc(k, sizeof *h->node_kind);
	h->node_class[0] = HW_NONE;
	h->node_kind[0] = NK_ROOT;
}

/* State of the reference pass. */
struct refs {
	struct heap *h;
	struct classtab *ct;
	struct idindex idx;  /* without the compact map: over node_id[] */
	node_t *t;           /* the current node's targets */
	size_t nt, capt;
	uint64_t dangling, expected; /* references to ids not in the dump; of them, expected */
	node_t cur;
	uint64_t miss[3];    /* the current node's first ids not in the dump */
	uint32_t nmiss;      /* how many it has */
	node_t *rootv;       /* the nodes JNI globals hold, sorted */
	size_t nrootv;
	uint32_t object_array; /* the class java.lang.Object[], HW_NONE if none */
	node_t archive;      /* the array whose missing references were expected */
	node_t *wsrc, *wdst;
	size_t nweak, capweak;
	/* where the targets go: the scratch file, piece by piece, or an
	 * array grown as it fills */
	struct store_writer w;
	int to_file;
	node_t *out;
	uint64_t nout, capout;
	int again;           /* a second pass: its warnings said already */
};

static node_t find(const struct refs *r, uint64_t id)
{
	return r->h->id_low != NULL ? idmap_find(r->h, id) : idindex_find(&r->idx, id);
}

static void push(struct refs *r, node_t t)
{
	VEC_GROW(r->t, r->nt, r->capt);
	r->t[r->nt++] = t;
}

static void emit(struct refs *r, uint64_t id)
{
	if (id == 0)
		return;
	node_t t = find(r, id);
	if (t == HW_NONE) { /* judged when the node ends: settle_missing */
		if (r->nmiss < 3)
			r->miss[r->nmiss] = id;
		r->nmiss++;
		return;
	}
	push(r, t);
}

static int in_sorted(const node_t *v, size_t n, node_t x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid] == x)
			return 1;
		if (v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* With a CDS archive, HotSpot keeps the archived heap's roots in one
 * Object[] held by a JNI global: among them the mirrors of archived
 * classes not loaded yet (loading a class clears its slot). The dumper
 * writes a class object only for a loaded class, so that array's
 * references to mirrors are missing by design, not damage: counted as
 * expected, not warned of. There is one such array: missing references
 * from a second, from any other object, from an Object[] no JNI global
 * holds, or from an array of another class are warned of. */
static int missing_expected(const struct refs *r)
{
	return r->object_array != HW_NONE && r->h->node_kind[r->cur] == NK_OBJARRAY &&
	       r->h->node_class[r->cur] == r->object_array && in_sorted(r->rootv, r->nrootv, r->cur) &&
	       (r->archive == HW_NONE || r->archive == r->cur);
}

/* The current node's references to ids not in the dump, once its
 * targets are known: expected, or dangling (a few examples warned of,
 * then a total). */
static void settle_missing(struct refs *r)
{
	if (r->nmiss == 0)
		return;
	if (missing_expected(r)) {
		r->expected += r->nmiss;
		r->archive = r->cur;
	} else {
		for (uint32_t k = 0; k < r->nmiss && k < 3; k++)
			if (r->dangling - r->expected + k < 3 && !r->again)
				warn_add(&r->h->warn, "%s: offset %llu: object 0x%llx refers to 0x%llx, which "
					 "is not in the dump; reference dropped", r->h->path,
					 (unsigned long long)r->h->node_off[r->cur],
					 (unsigned long long)heap_node_id(r->h, r->cur),
					 (unsigned long long)r->miss[k]);
	}
	r->dangling += r->nmiss;
	r->nmiss = 0;
}

static void emit_node(struct refs *r, node_t t)
{
	if (t != HW_NONE)
		push(r, t);
}

static void weak(struct refs *r, uint64_t id)
{
	if (id == 0)
		return;
	node_t t = find(r, id);
	if (t == HW_NONE) { /* counted and reported as any dangling reference */
		if (r->dangling++ - r->expected < 3 && !r->again)
			warn_add(&r->h->warn, "%s: offset %llu: object 0x%llx has referent 0x%llx, "
				 "which is not in the dump; reference dropped", r->h->path,
				 (unsigned long long)r->h->node_off[r->cur],
				 (unsigned long long)heap_node_id(r->h, r->cur), (unsigned long long)id);
		return;
	}
	VEC_GROW(r->wsrc, r->nweak, r->capweak);
	r->wdst = xreallocarray(r->wdst, r->capweak, sizeof *r->wdst);
	r->wsrc[r->nweak] = r->cur;
	r->wdst[r->nweak++] = t;
}

/* What missing_expected asks of a node with references missing: the
 * nodes JNI globals hold, sorted, and the class Object[]. */
static void archive_roots(struct refs *r, const struct scan *s)
{
	struct heap *h = r->h;

	r->rootv = xmalloc((s->nroot + 1) * sizeof *r->rootv);
	for (size_t i = 0; i < s->nroot; i++) {
		node_t v = s->root[i].id && s->root[i].native == HPN_JNI_GLOBAL ? find(r, s->root[i].id) : HW_NONE;
		if (v != HW_NONE)
			r->rootv[r->nrootv++] = v;
	}
	sort_u32(r->rootv, r->nrootv);
	r->object_array = HW_NONE;
	r->archive = HW_NONE;
	for (uint32_t c = 0; c < h->ncls && r->object_array == HW_NONE; c++)
		if (!(h->cls[c].flags & HC_SYNTHETIC) && strcmp(class_name(h, c), "[Ljava.lang.Object;") == 0)
			r->object_array = c;
}

/* The refs functions get `q`, the node's record (its sub-tag byte). */
static void instance_refs(struct refs *r, node_t i, const uint8_t *q)
{
	struct heap *h = r->h;
	unsigned ids = h->layout.idsize;
	uint32_t c = classes_find(r->ct, hprof_inst_class(q, ids), 0, h->node_off[i]);

	h->node_class[i] = c;
	h->node_kind[i] = NK_INSTANCE;
	const struct hclass *k = &h->cls[c];
	uint32_t nbytes = hprof_inst_nbytes(q, ids);
	const uint8_t *data = hprof_inst_fields(q, ids);
	if (nbytes < k->inst_bytes && !(k->flags & HC_SYNTHETIC) && !r->again)
		warn_add(&h->warn, "%s: offset %llu: instance of %s has %u bytes of fields, its "
			 "class says %u; missing fields read as null", h->path,
			 (unsigned long long)h->node_off[i], class_name(h, c), nbytes, k->inst_bytes);
	for (uint32_t j = 0; j < k->nrefs; j++) { /* the hottest loop of the build */
		uint32_t off = h->refoffs[k->ref_first + j];
		if ((uint64_t)off + ids <= nbytes) /* in 64 bits: a forged offset near 2^32 wraps */
			emit(r, beid(data + off, ids));
	}
	if (k->referent_off != HW_NONE)
		weak(r, hprof_ref_at(data, nbytes, k->referent_off, ids));
	emit_node(r, k->node); /* an instance keeps its class alive */
}

static void objarray_refs(struct refs *r, node_t i, const uint8_t *q)
{
	struct heap *h = r->h;
	unsigned ids = h->layout.idsize;
	uint32_t len = hprof_arr_len(q, ids);

	h->node_class[i] = classes_find(r->ct, hprof_objarr_class(q, ids), 1, h->node_off[i]);
	h->node_kind[i] = NK_OBJARRAY;
	h->node_shallow[i] = len; /* the layout turns lengths into sizes */
	const uint8_t *e = hprof_objarr_elems(q, ids);
	for (uint32_t j = 0; j < len; j++, e += ids)
		emit(r, beid(e, ids));
	emit_node(r, h->cls[h->node_class[i]].node);
}

static void primarray_refs(struct refs *r, node_t i, const uint8_t *q)
{
	struct heap *h = r->h;
	unsigned ids = h->layout.idsize;
	uint8_t t = hprof_primarr_type(q, ids);
	uint32_t c = t < 12 ? r->ct->prim[t] : HW_NONE;

	h->node_class[i] = c != HW_NONE ? c : r->ct->prim[T_BYTE];
	h->node_kind[i] = NK_PRIMARRAY;
	h->node_shallow[i] = hprof_arr_len(q, ids);
	emit_node(r, h->cls[h->node_class[i]].node);
}

static void class_refs(struct refs *r, node_t i, const uint8_t *q)
{
	struct heap *h = r->h;
	unsigned ids = h->layout.idsize;

	h->node_class[i] = r->ct->java_lang_class;
	h->node_kind[i] = NK_CLASS;
	/* the class this node describes, for its mirror size */
	h->node_shallow[i] = classes_find(r->ct, hprof_rec_id(q, ids), 0, h->node_off[i]);
	for (unsigned k = CD_SUPER; k <= CD_PROTECTION_DOMAIN; k++)
		emit(r, hprof_cd_link(q, ids, k));
	unsigned ncp, nst;
	const uint8_t *e = hprof_list(hprof_cd_pool(q, ids), &ncp);
	for (unsigned j = 0; j < ncp; j++, e = hprof_pool_next(e, ids))
		if (hprof_pool_type(e) == T_OBJECT)
			emit(r, beid(hprof_pool_value(e), ids));
	e = hprof_list(e, &nst);
	for (unsigned j = 0; j < nst; j++, e = hprof_static_next(e, ids))
		if (hprof_entry_type(e, ids) == T_OBJECT)
			emit(r, beid(hprof_static_value(e, ids), ids));
}

static void node_refs(struct refs *r, node_t i)
{
	const uint8_t *q = hprof_node_rec(r->h, i);

	r->cur = i;
	switch (hprof_rec_tag(q)) {
	case HPROF_INSTANCE: instance_refs(r, i, q); break;
	case HPROF_OBJ_ARRAY: objarray_refs(r, i, q); break;
	case HPROF_CLASS_DUMP: class_refs(r, i, q); break;
	default: primarray_refs(r, i, q); break; /* with or without data */
	}
}

/* The targets of the current node, ascending (as every reader gives
 * them: the views pair them with fields sorted by id), after those
 * before. */
static void put_targets(struct refs *r)
{
	sort_u32(r->t, r->nt);
	if (r->nt == 0)
		return;
	if (r->to_file) {
		store_write(&r->w, r->t, r->nt * sizeof *r->t);
	} else {
		while (r->nout + r->nt > r->capout) {
			r->capout = r->capout ? r->capout * 2 : 1024;
			r->out = xreallocarray(r->out, (size_t)r->capout, sizeof *r->out);
		}
		memcpy(r->out + r->nout, r->t, r->nt * sizeof *r->t);
	}
	r->nout += r->nt;
	r->nt = 0;
}

/* One pass over the records, in node order (the dump's order, mostly):
 * each node's class, kind and size (an array's length, until the
 * layout), and its references, resolved and written where they wait
 * for the analyses: the scratch file behind the heap when there is one
 * (then the targets are never all in memory here), else memory. */
static void build_refs(struct heap *h, struct classtab *ct, const struct scan *s, struct progress *p)
{
	struct refs r = { .h = h, .ct = ct };
	struct store *st = heap_scratch(h);
	uint32_t out_id = cache_scratch_id(HP_OUT_TO);

	if (h->id_low == NULL)
		idindex_build(&r.idx, h->node_id, h->n);
	archive_roots(&r, s);
	r.to_file = st != NULL;
	if (r.to_file)
		store_begin(st, &r.w, out_id, sizeof(node_t));
	h->out_start = xmalloc(((size_t)h->n + 1) * sizeof *h->out_start);
	h->out_start[0] = h->out_start[1] = 0;
	progress_begin(p, "references", h->n, "objects");
	heap_map_advise(h, MADV_SEQUENTIAL); /* records in node order: the file's, mostly */
	/* a dump large beside the memory: the pages behind the pass go as
	 * it moves on (records come in the file's order, mostly: a MiB kept
	 * behind for those a little out of it) */
	struct behind behind;
	heap_behind_init(h, &behind);
	for (node_t i = 1; i < h->n; i++) {
		h->out_start[i] = (edge_t)r.nout;
		node_refs(&r, i);
		settle_missing(&r);
		put_targets(&r);
		if (r.nout > (uint64_t)UINT32_MAX - 1)
			hw_fatal("%s: more than 2^32 references: not supported yet", esc_str(h->path));
		if ((i & 0xfffff) == 0) {
			progress_update(p, i);
			if (h->node_off[i] > ((uint64_t)1 << 20))
				heap_behind(h, &behind, h->node_off[i] - ((uint64_t)1 << 20));
		}
	}
	/* the pass read every record: their pages go (the kernel keeps them
	 * if it has room), then the views read them at random */
	heap_map_advise(h, MADV_DONTNEED);
	heap_map_advise(h, MADV_RANDOM);
	h->out_start[h->n] = (edge_t)r.nout;
	h->nedges = r.nout;
	if (r.to_file && store_end(&r.w) == 0) {
		cache_adopt(h, HP_OUT_TO, out_id);
	} else if (r.to_file) { /* the file failed (no room): the pass again, into memory */
		r.to_file = 0;
		r.again = 1;
		r.nout = 0;
		r.nweak = 0;
		r.dangling = 0;
		r.expected = 0;
		r.archive = HW_NONE;
		for (node_t i = 1; i < h->n; i++) {
			node_refs(&r, i);
			settle_missing(&r);
			put_targets(&r);
		}
	}
	if (!r.to_file)
		h->out = xreallocarray(r.out, (size_t)r.nout + 1, sizeof *h->out);
	free(r.t);
	free(r.rootv);
	h->dangling_refs = r.dangling;
	h->dangling_expected = r.expected;
	if (r.dangling - r.expected > 3)
		warn_add(&h->warn, "%s: %llu references to objects not in the dump, in all%s", h->path,
			 (unsigned long long)(r.dangling - r.expected),
			 r.expected ? ", besides those of the archive's roots (info: dangling_expected)" : "");
	h->weak_src = r.wsrc;
	h->weak_dst = r.wdst;
	h->nweak = r.nweak;
	h->weak_rule = xmalloc((r.nweak + 1) * sizeof *h->weak_rule);
	for (size_t i = 0; i < r.nweak; i++)
		h->weak_rule[i] = WEAK_BUILTIN;
	if (h->id_low == NULL)
		idindex_free(&r.idx);
	progress_end(p);
}

static int cmp_root(const void *a, const void *b)
{
	const struct root *x = a, *y = b;

	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->native != y->native)
		return x->native < y->native ? -1 : 1;
	if (x->thread_serial != y->thread_serial)
		return x->thread_serial < y->thread_serial ? -1 : 1;
	return x->frame < y->frame ? -1 : x->frame > y->frame;
}

static void build_roots(struct heap *h, const struct scan *s)
{
	size_t missing = 0;

	h->root_rec = xmalloc((s->nroot + 1) * sizeof *h->root_rec);
	h->nroot_rec = 0;
	for (size_t i = 0; i < s->nroot; i++) {
		const struct raw_root *r = &s->root[i];
		const struct root_native *n = &hprof_root_natives[r->native];
		node_t v = heap_find_id(h, r->id);
		if (v == HW_NONE) {
			if (r->id != 0 && missing++ < WARN_EACH)
				warn_add(&h->warn, "%s: offset %llu: GC root (%s) 0x%llx is not in the "
					 "dump; ignored", h->path, (unsigned long long)r->off,
					 n->name, (unsigned long long)r->id);
			continue;
		}
		h->root_rec[h->nroot_rec++] = (struct root){ v, n->kind, r->native, 0, r->thread, r->frame };
	}
	hw_qsort(h->root_rec, h->nroot_rec, sizeof *h->root_rec, cmp_root);
	size_t k = 0; /* the same root twice is one record, which counts its copies */
	for (size_t i = 0; i < h->nroot_rec; i++)
		if (k == 0 || cmp_root(&h->root_rec[k - 1], &h->root_rec[i]) != 0)
			h->root_rec[k++] = h->root_rec[i];
		else if (h->root_rec[k - 1].copies < UINT16_MAX)
			h->root_rec[k - 1].copies++;
	h->nroot_rec = k;
}

static int cmp_u64_first(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_u32_first(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static uint32_t str_name(struct classtab *ct, const struct scan *s, uint64_t id)
{
	uint32_t len;
	const uint8_t *p = scan_string(ct->h, s, id, &len);

	return p ? names_intern(&ct->nt, (const char *)p, len) : names_intern(&ct->nt, "", 0);
}

/* A frame's class, dotted like the class table's names. */
static uint32_t class_name_of(struct classtab *ct, const struct scan *s, uint64_t id)
{
	uint32_t len;
	const uint8_t *p = scan_string(ct->h, s, id, &len);

	return p ? classes_intern_name(ct, p, len) : names_intern(&ct->nt, "", 0);
}

/* Threads, traces and frames, for thread roots and allocation sites. */
static void build_stacks(struct heap *h, struct classtab *ct, const struct scan *s)
{
	unsigned ids = h->layout.idsize;

	h->nframes = (uint32_t)s->nframe;
	h->frames = xmalloc((s->nframe + 1) * sizeof *h->frames);
	for (size_t i = 0; i < s->nframe; i++) {
		const struct raw_frame *f = &s->frame[i];
		const struct raw_lc *lc = NULL;
		for (size_t j = 0; j < s->nlc && lc == NULL; j++) /* few frames: fine */
			if (s->lc[j].serial == f->class_serial)
				lc = &s->lc[j];
		h->frames[i] = (struct hframe){ f->id, str_name(ct, s, f->method), str_name(ct, s, f->sig),
						str_name(ct, s, f->source),
						lc ? class_name_of(ct, s, lc->name) : names_intern(&ct->nt, "", 0),
						f->line, 0 };
	}
	hw_qsort(h->frames, h->nframes, sizeof *h->frames, cmp_u64_first);
	h->ntraces = (uint32_t)s->ntrace;
	h->traces = xmalloc((s->ntrace + 1) * sizeof *h->traces);
	size_t total = 0;
	for (size_t i = 0; i < s->ntrace; i++)
		total += s->trace[i].nframes;
	h->trace_frames = xmalloc((total + 1) * sizeof *h->trace_frames);
	h->ntrace_frames = 0;
	for (size_t i = 0; i < s->ntrace; i++) {
		const struct raw_trace *t = &s->trace[i];
		struct htrace *o = &h->traces[i];
		*o = (struct htrace){ t->serial, t->thread, h->ntrace_frames, 0 };
		for (uint32_t j = 0; j < t->nframes; j++) {
			uint64_t fid = beid(h->map + t->off + (uint64_t)j * ids, ids);
			struct hframe key = { .id = fid };
			struct hframe *f = bsearch(&key, h->frames, h->nframes, sizeof key, cmp_u64_first);
			if (f != NULL)
				h->trace_frames[h->ntrace_frames++] = (uint32_t)(f - h->frames);
		}
		o->nframes = h->ntrace_frames - o->frame_first;
	}
	hw_qsort(h->traces, h->ntraces, sizeof *h->traces, cmp_u32_first);
	h->nthreads = (uint32_t)s->nthread;
	h->threads = xmalloc((s->nthread + 1) * sizeof *h->threads);
	for (size_t i = 0; i < s->nthread; i++)
		h->threads[i] = (struct hthread){ s->thread[i].serial, heap_find_id(h, s->thread[i].id),
						  s->thread[i].trace };
	hw_qsort(h->threads, h->nthreads, sizeof *h->threads, cmp_u32_first);
}

int build_heap(struct heap *h, struct scan *s, struct progress *p, struct sbuf *err)
{
	struct classtab ct;

	/* objects out of order (not HotSpot's, nor its class dumps first)
	 * take a radix sort, with a copy of them all */
	uint64_t extra = s->nobj > 0 && !sorted_by_id(s->obj, s->nobj) && !one_long_run(s->obj, s->nobj) ?
				 (uint64_t)s->nobj * sizeof *s->obj : 0;
	if (heap_room_for(h, s->nobj + 1, extra, err) < 0) { /* before the work, not halfway */
		scan_free(s);
		return -1;
	}

	progress_begin(p, "nodes", s->nobj, "objects");
	make_nodes(h, s);
	progress_end(p);
	classes_build(&ct, h, s);
	build_refs(h, &ct, s, p);
	progress_begin(p, "layout", h->n, "objects");
	layout_apply(h);
	progress_end(p);
	build_roots(h, s);
	build_stacks(h, &ct, s);
	classes_free(&ct);
	scan_free(s);
	free(h->node_id); /* the records have them: see heap_node_id() */
	h->node_id = NULL;
	return 0;
}
