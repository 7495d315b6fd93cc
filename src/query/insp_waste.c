/* insp_waste.c — the Waste inspections, see inspect.h: memory spent on
 * duplicates, zero-length, sparse, empty and under-filled containers,
 * colliding hash tables, fields that are nearly always null, and boxes.
 *
 * Everything reads the mapped records directly. The content-based
 * inspections hash each candidate's bytes into an open-addressing table
 * of candidate indexes (equal hashes are settled by comparing the
 * bytes), and every grouping goes through flat arrays sized once, so
 * nothing is allocated per object: a pass over 22 million objects must
 * take a second or two, not a minute.
 *
 * Priority: HIGH when a group's wasted bytes are >= 1% of the set's
 * shallow bytes, MEDIUM >= 0.1%, else LOW (hash-collisions, which
 * wastes no bytes of its own: by its range, see collide_prio).
 * Choices inspect.h leaves open:
 * - Strings are equal when their value arrays are (element type, the
 *   coder, the bytes). Strings sharing one array are copies too; the
 *   array is wasted once per distinct array, not per String. The value
 *   array counts even when it is not in the set (it is the String's).
 * - Class-based groups are named by the class as the dump names it
 *   (jcmd's "[I", "[Ljava.lang.Object;").
 * - The collection inspections skip object arrays (their own
 *   inspections above), wrappers (the wrapped collection counts) and
 *   the backing map or list of a set in the set (counted with the set:
 *   an empty HashSet wastes itself, its HashMap and the map's table).
 *   A collection's array counts only with capacity > 0: the zero-length
 *   one of an empty ArrayList is shared by all of them.
 * - collection-fill: the fill range rounds a non-zero ratio up (3 of
 *   1000 is "1-25%"); the empty slots of a hash table are its empty
 *   buckets, of the others capacity - size.
 * - null-fields: Reference.referent is left out (null there means
 *   cleared, not waste); a group's name says how many are null. */
#include "query/inspect.h"

#include <stdlib.h>
#include <string.h>

#include "graph/reader.h"
#include "graph/analysis.h"

#define NAME_MAX_BYTES 60 /* of a string value or array preview in a group name */
#define POLL 0xffff       /* check for cancellation every 64K nodes */

/* ---- records ---- */

/* HIGH when the group wastes >= 1% of the set's shallow bytes, MEDIUM
 * >= 0.1%, else LOW (see inspect.h). */
static enum insp_priority prio_of(const struct objset *set, uint64_t wasted)
{
	if (wasted == 0)
		return IP_LOW;
	if (wasted * 100 >= set->shallow)
		return IP_HIGH;
	if (wasted * 1000 >= set->shallow)
		return IP_MEDIUM;
	return IP_LOW;
}

/* Array v's elements; 0, or -1 if v is no array or its elements are
 * not in the dump (left out, or cut short). */
static int array_at(const struct heap *h, node_t v, struct harray *a)
{
	return heap_array_data(h, v, a) == 0 && a->data != NULL ? 0 : -1;
}

/* The class index named `name`, HW_NONE if none (the first of several). */
static uint32_t class_named(const struct heap *h, const char *name)
{
	for (uint32_t c = 0; c < h->ncls; c++)
		if (strcmp(class_name(h, c), name) == 0)
			return c;
	return HW_NONE;
}

/* The node among v's references whose id is `id`, HW_NONE if none. */
static node_t ref_by_id(const struct heap *h, node_t v, uint64_t id)
{
	if (id == 0)
		return HW_NONE;
	for (edge_t j = h->out_start[v]; j < h->out_start[v + 1]; j++)
		if (heap_node_id(h, h->out[j]) == id)
			return h->out[j];
	return heap_find_id(h, id);
}

/* ---- a fast hash of bytes (64-bit words, multiply and rotate) ---- */

static uint64_t rotl(uint64_t x, int r) { return x << r | x >> (64 - r); }

static uint64_t hash_bytes(const uint8_t *p, uint64_t n, uint64_t seed)
{
	uint64_t h = seed * 0x9e3779b97f4a7c15ULL ^ n, w;

	for (; n >= 8; n -= 8, p += 8) {
		memcpy(&w, p, 8);
		h = rotl(h ^ w * 0x87c37b91114253d5ULL, 31) * 0x4cf5ad432745937fULL;
	}
	w = 0;
	if (n > 0)
		memcpy(&w, p, n);
	h = rotl(h ^ w * 0x87c37b91114253d5ULL, 31) * 0x4cf5ad432745937fULL;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	return h ^ h >> 29;
}

/* ---- bins: members in node order, each in one bin, a group per bin ---- */

struct bins {
	uint32_t nbins;
	uint64_t *count, *extra, *a1, *a2; /* per bin; a1, a2: the inspection's own */
	node_t *v;
	uint32_t *bin;
	size_t n, cap;
};

static void bins_init(struct bins *b, uint32_t nbins)
{
	memset(b, 0, sizeof *b);
	b->nbins = nbins;
	b->count = xcalloc((size_t)nbins + 1, sizeof *b->count);
	b->extra = xcalloc((size_t)nbins + 1, sizeof *b->extra);
	b->a1 = xcalloc((size_t)nbins + 1, sizeof *b->a1);
	b->a2 = xcalloc((size_t)nbins + 1, sizeof *b->a2);
}

static void bins_add(struct bins *b, node_t v, uint32_t bin, uint64_t extra)
{
	if (b->n == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 4096;
		b->v = xreallocarray(b->v, b->cap, sizeof *b->v);
		b->bin = xreallocarray(b->bin, b->cap, sizeof *b->bin);
	}
	b->v[b->n] = v;
	b->bin[b->n++] = bin;
	b->count[bin]++;
	b->extra[bin] += extra;
}

typedef char *(*bin_name_fn)(const struct heap *h, const struct bins *b, uint32_t bin);
typedef enum insp_priority (*bin_prio_fn)(const struct objset *set, uint32_t bin, uint64_t extra);

/* A group per non-empty bin, named by fn, its priority by prio or (if
 * NULL) by its extra as wasted bytes; members ascending as added. */
static void bins_emit(struct bins *b, const struct heap *h, const struct objset *set,
		      struct insp_result *r, bin_name_fn fn, bin_prio_fn prio)
{
	node_t **m = xcalloc((size_t)b->nbins + 1, sizeof *m);
	uint64_t *fill = xcalloc((size_t)b->nbins + 1, sizeof *fill);

	for (uint32_t k = 0; k < b->nbins; k++)
		if (b->count[k] > 0)
			m[k] = xmalloc(b->count[k] * sizeof **m);
	for (size_t i = 0; i < b->n; i++)
		m[b->bin[i]][fill[b->bin[i]]++] = b->v[i];
	for (uint32_t k = 0; k < b->nbins; k++)
		if (b->count[k] > 0)
			insp_add(r, h, fn(h, b, k), prio != NULL ? prio(set, k, b->extra[k])
				 : prio_of(set, b->extra[k]), m[k], b->count[k], b->extra[k]);
	free(m);
	free(fill);
}

static void bins_free(struct bins *b)
{
	free(b->count);
	free(b->extra);
	free(b->a1);
	free(b->a2);
	free(b->v);
	free(b->bin);
}

/* ---- duplicates: candidates, an open-addressing table, groups ---- */

struct key {
	const uint8_t *p;
	uint64_t bytes;
	uint32_t tag; /* element type, and a String's coder */
};

struct dups {
	const struct heap *h;
	node_t *cand;     /* candidates, ascending */
	node_t *val;      /* strings: their value arrays */
	uint32_t *rep;    /* per candidate: the first candidate equal to it */
	uint32_t *cnt;    /* per representative: its copies */
	size_t n, cap;
	int strings;
	uint32_t coder_off, value_off; /* java.lang.String's fields, or HW_NONE */
};

static void dups_push(struct dups *d, node_t v, node_t val)
{
	if (d->n == d->cap) {
		d->cap = d->cap ? d->cap * 2 : 65536;
		d->cand = xreallocarray(d->cand, d->cap, sizeof *d->cand);
		if (d->strings)
			d->val = xreallocarray(d->val, d->cap, sizeof *d->val);
	}
	if (d->strings)
		d->val[d->n] = val;
	d->cand[d->n++] = v;
}

/* The bytes compared for candidate i. */
static void dups_key(const struct dups *d, size_t i, struct key *k)
{
	struct harray a;
	node_t v = d->strings ? d->val[i] : d->cand[i];

	if (array_at(d->h, v, &a) < 0) { /* checked when collected */
		*k = (struct key){ NULL, 0, 0 };
		return;
	}
	k->p = a.data;
	k->bytes = a.len * a.esize;
	k->tag = a.type;
	if (d->strings && d->coder_off != HW_NONE) {
		uint32_t len;
		const uint8_t *f = heap_inst_data(d->h, d->cand[i], &len);
		if (f != NULL && d->coder_off < len)
			k->tag |= (uint32_t)f[d->coder_off] << 8;
	}
}

/* Fill rep[] and cnt[]: candidates with equal keys share a representative. */
static void dups_match(struct dups *d, struct progress *p)
{
	uint64_t size = 16;

	while (size < 2 * (uint64_t)d->n)
		size *= 2;
	uint32_t *slot = xcalloc(size, sizeof *slot), *shash = xmalloc(size * sizeof *shash);
	d->rep = xmalloc((d->n + 1) * sizeof *d->rep);
	d->cnt = xcalloc(d->n + 1, sizeof *d->cnt);
	for (size_t i = 0; i < d->n; i++) {
		struct key k, o;
		dups_key(d, i, &k);
		uint64_t hv = hash_bytes(k.p, k.bytes, k.tag), s = hv & (size - 1);
		uint32_t h32 = (uint32_t)(hv >> 32);
		for (;; s = (s + 1) & (size - 1)) {
			if (slot[s] == 0) {
				slot[s] = (uint32_t)i + 1;
				shash[s] = h32;
				d->rep[i] = (uint32_t)i;
				break;
			}
			if (shash[s] != h32)
				continue;
			dups_key(d, slot[s] - 1, &o);
			if (o.tag == k.tag && o.bytes == k.bytes &&
			    (k.bytes == 0 || memcmp(o.p, k.p, k.bytes) == 0)) {
				d->rep[i] = slot[s] - 1;
				break;
			}
		}
		d->cnt[d->rep[i]]++;
		if ((i & POLL) == 0) {
			progress_update(p, (uint64_t)d->h->n + i);
			if (progress_cancelled(p))
				break;
		}
	}
	free(slot);
	free(shash);
}

/* The name of the group of representative i. */
typedef char *(*dup_name_fn)(const struct dups *d, size_t i, uint64_t count);

/* A group per representative with two or more copies, members
 * ascending. Wasted: every member but one, and for Strings every
 * distinct value array but one (Strings sharing an array are duplicate
 * Strings whose array costs once). One mark per array suffices for all
 * groups: equal contents, one group. */
static void dups_emit(struct dups *d, struct insp_result *r, const struct objset *set,
		      dup_name_fn fn)
{
	const struct heap *h = d->h;
	uint32_t *gid = xmalloc((d->n + 1) * sizeof *gid), ng = 0;

	for (size_t i = 0; i < d->n; i++)
		gid[i] = d->rep[i] == i && d->cnt[i] >= 2 ? ng++ : HW_NONE;
	node_t **m = xcalloc((size_t)ng + 1, sizeof *m);
	uint64_t *fill = xcalloc((size_t)ng + 1, sizeof *fill);
	uint64_t *wasted = xcalloc((size_t)ng + 1, sizeof *wasted);
	bits_t *mark = d->strings ? xcalloc(bits_words(h->n), sizeof *mark) : NULL;
	for (size_t i = 0; i < d->n; i++) {
		uint32_t g = gid[d->rep[i]];
		if (g == HW_NONE)
			continue;
		if (m[g] == NULL)
			m[g] = xmalloc(d->cnt[d->rep[i]] * sizeof **m);
		m[g][fill[g]++] = d->cand[i];
		wasted[g] += h->node_shallow[d->cand[i]];
		if (d->strings && !bit_get(mark, d->val[i])) {
			bit_set(mark, d->val[i]);
			wasted[g] += h->node_shallow[d->val[i]];
		}
	}
	for (size_t i = 0; i < d->n; i++) {
		uint32_t g = gid[i];
		if (g == HW_NONE)
			continue;
		uint64_t w = wasted[g] - h->node_shallow[d->cand[i]] -
			     (d->strings ? h->node_shallow[d->val[i]] : 0);
		insp_add(r, h, fn(d, i, d->cnt[i]), prio_of(set, w), m[g], d->cnt[i], w);
	}
	r->examined = d->n;
	free(gid);
	free(m);
	free(fill);
	free(wasted);
	free(mark);
}

static void dups_free(struct dups *d)
{
	free(d->cand);
	free(d->val);
	free(d->rep);
	free(d->cnt);
}

/* ---- duplicate-strings ---- */

static char *dupstr_name(const struct dups *d, size_t i, uint64_t count)
{
	struct sbuf sb;

	sbuf_init(&sb);
	sbuf_addc(&sb, '"');
	heap_string(d->h, d->cand[i], &sb, NAME_MAX_BYTES);
	sbuf_printf(&sb, "\" (%llu copies)", (unsigned long long)count);
	return sbuf_detach(&sb);
}

/* Duplicate strings where the format tells strings and their values
 * (V8): by value, hashed, each group's members compared whole with its
 * first. */
struct sval { uint64_t hash, len; node_t v; };

static int cmp_sval(const void *a, const void *b)
{
	const struct sval *x = a, *y = b;

	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return x->v < y->v ? -1 : x->v > y->v;
}

static int run_dupstr_values(struct heap *h, const struct objset *set, struct insp_result *r,
			     struct progress *p)
{
	struct sval *sv = NULL;
	size_t n = 0, cap = 0;
	struct sbuf a, b;

	sbuf_init(&a);
	sbuf_init(&b);
	progress_begin(p, "duplicate strings", (uint64_t)h->n, "objects");
	for (node_t v = 1; v < h->n && !progress_cancelled(p); v++) {
		if ((v & POLL) == 0)
			progress_update(p, v);
		if (!objset_has(set, v) || !heap_is_string(h, v))
			continue;
		sbuf_reset(&a);
		if (heap_string(h, v, &a, SIZE_MAX) != 0) /* no text, or not its own */
			continue;
		VEC_GROW(sv, n, cap);
		sv[n++] = (struct sval){ hw_fnv(a.buf, a.len), a.len, v };
	}
	hw_qsort(sv, n, sizeof *sv, cmp_sval);
	node_t *m = xmalloc((n + 1) * sizeof *m);
	for (size_t i = 0; i < n && !progress_cancelled(p);) {
		size_t j = i + 1;
		while (j < n && sv[j].hash == sv[i].hash && sv[j].len == sv[i].len)
			j++;
		if (j - i < 2) { /* a value seen once: nothing to decode again */
			i = j;
			continue;
		}
		/* the run's members equal to its first (a hash collision apart) */
		size_t k = 1;
		uint64_t shallow = h->node_shallow[sv[i].v];
		m[0] = sv[i].v;
		sbuf_reset(&a);
		heap_string(h, sv[i].v, &a, SIZE_MAX);
		for (size_t q = i + 1; q < j; q++) {
			sbuf_reset(&b);
			heap_string(h, sv[q].v, &b, SIZE_MAX);
			if (b.len == a.len && memcmp(a.buf, b.buf, a.len) == 0) {
				m[k++] = sv[q].v;
				shallow += h->node_shallow[sv[q].v];
			}
		}
		if (k >= 2) {
			node_t *g = xmalloc(k * sizeof *g);
			memcpy(g, m, k * sizeof *g); /* ascending: sorted by node within a run */
			uint64_t wasted = shallow - h->node_shallow[g[0]];
			struct sbuf nm;
			sbuf_init(&nm);
			sbuf_addc(&nm, '"');
			heap_string(h, g[0], &nm, NAME_MAX_BYTES);
			sbuf_printf(&nm, "\" (%zu copies)", k);
			insp_add(r, h, sbuf_detach(&nm), prio_of(set, wasted), g, k, wasted);
		}
		i = j;
	}
	r->examined = n;
	progress_end(p);
	free(m);
	free(sv);
	sbuf_free(&a);
	sbuf_free(&b);
	return 0;
}

static int run_dupstr(struct heap *h, const struct objset *set, const char *arg,
		      struct insp_result *r, struct progress *p, struct sbuf *err)
{
	if (!heap_runtime_is(h, "jvm"))
		return run_dupstr_values(h, set, r, p);
	struct dups d = { .h = h, .strings = 1, .coder_off = HW_NONE };
	uint32_t sc = class_named(h, "java.lang.String");
	const struct hfield *f;
	uint32_t voff, coff;

	(void)arg, (void)err;
	if (sc == HW_NONE || (f = class_field(h, sc, "value", &voff)) == NULL || f->type != T_OBJECT)
		return 0;
	if ((f = class_field(h, sc, "coder", &coff)) != NULL && f->type == T_BYTE)
		d.coder_off = coff;
	progress_begin(p, "duplicate strings", (uint64_t)h->n * 2, "objects");
	for (node_t v = 1; v < h->n && !progress_cancelled(p); v++) {
		if ((v & POLL) == 0)
			progress_update(p, v);
		if (h->node_class[v] != sc || !objset_has(set, v))
			continue;
		uint32_t len;
		const uint8_t *data = heap_inst_data(h, v, &len);
		struct harray a;
		if (data == NULL)
			continue;
		node_t val = ref_by_id(h, v, inst_ref_at(data, len, voff, h->layout.idsize));
		if (val != HW_NONE && array_at(h, val, &a) == 0 && a.type != T_OBJECT)
			dups_push(&d, v, val);
	}
	if (!progress_cancelled(p)) {
		dups_match(&d, p);
		if (!progress_cancelled(p))
			dups_emit(&d, r, set, dupstr_name);
	}
	progress_end(p);
	dups_free(&d);
	return 0;
}

/* ---- duplicate-arrays ---- */

static const char *prim_name(uint8_t t)
{
	return hw_type_name(t) ? hw_type_name(t) : "?";
}

/* "int[1000] {0, 7, 14, ...}": the type, length and first elements. */
static void array_preview(const struct heap *h, node_t v, struct sbuf *sb)
{
	struct harray a;

	if (array_at(h, v, &a) < 0)
		return;
	sbuf_printf(sb, "%s[%llu] {", prim_name(a.type), (unsigned long long)a.len);
	size_t start = sb->len;
	for (uint64_t i = 0; i < a.len; i++) {
		struct hvalue e;
		if (sb->len - start >= NAME_MAX_BYTES) {
			sbuf_adds(sb, ", ...");
			break;
		}
		if (heap_array_elem(h, v, i, &e) < 0)
			break;
		if (i > 0)
			sbuf_adds(sb, ", ");
		if (a.type == T_FLOAT || a.type == T_DOUBLE)
			sbuf_printf(sb, "%g", a.type == T_FLOAT ? (double)e.v.f : e.v.d);
		else if (a.type == T_CHAR || a.type == T_BOOLEAN)
			sbuf_printf(sb, "%llu", (unsigned long long)e.v.u);
		else
			sbuf_printf(sb, "%lld", (long long)e.v.i);
	}
	sbuf_addc(sb, '}');
}

static char *duparr_name(const struct dups *d, size_t i, uint64_t count)
{
	struct sbuf sb;

	sbuf_init(&sb);
	array_preview(d->h, d->cand[i], &sb);
	sbuf_printf(&sb, " (%llu copies)", (unsigned long long)count);
	return sbuf_detach(&sb);
}

static int run_duparr(struct heap *h, const struct objset *set, const char *arg,
		      struct insp_result *r, struct progress *p, struct sbuf *err)
{
	struct dups d = { .h = h };

	(void)arg, (void)err;
	progress_begin(p, "duplicate arrays", (uint64_t)h->n * 2, "objects");
	for (node_t v = 1; v < h->n && !progress_cancelled(p); v++) {
		struct harray a;
		if ((v & POLL) == 0)
			progress_update(p, v);
		if (h->node_kind[v] == NK_PRIMARRAY && objset_has(set, v) && array_at(h, v, &a) == 0 &&
		    a.len > 0)
			dups_push(&d, v, 0);
	}
	if (!progress_cancelled(p)) {
		dups_match(&d, p);
		if (!progress_cancelled(p))
			dups_emit(&d, r, set, duparr_name);
	}
	progress_end(p);
	dups_free(&d);
	return 0;
}

/* ---- zero-length-arrays and sparse-arrays: per array class ---- */

static char *class_bin_name(const struct heap *h, const struct bins *b, uint32_t bin)
{
	(void)b;
	return xstrdup(class_name(h, bin));
}

static int run_zerolen(struct heap *h, const struct objset *set, const char *arg,
		       struct insp_result *r, struct progress *p, struct sbuf *err)
{
	struct bins b;
	uint64_t *first = xcalloc((size_t)h->ncls + 1, sizeof *first);

	(void)arg, (void)err;
	bins_init(&b, h->ncls);
	progress_begin(p, "zero-length arrays", h->n, "objects");
	for (node_t v = 1; v < h->n && !progress_cancelled(p); v++) {
		struct harray a;
		if ((v & POLL) == 0)
			progress_update(p, v);
		if ((h->node_kind[v] != NK_PRIMARRAY && h->node_kind[v] != NK_OBJARRAY) ||
		    !objset_has(set, v) || array_at(h, v, &a) < 0)
			continue;
		r->examined++;
		if (a.len != 0)
			continue;
		uint32_t c = h->node_class[v];
		bins_add(&b, v, c, first[c]++ ? h->node_shallow[v] : 0); /* all but one */
	}
	progress_end(p);
	bins_emit(&b, h, set, r, class_bin_name, NULL);
	bins_free(&b);
	free(first);
	return 0;
}

/* Zero elements of a (all bytes zero: null, 0, false, +0.0), counting
 * stops early once more than `most` are non-zero. */
static uint64_t zero_elems(const struct harray *a, uint64_t most)
{
	uint64_t zeros = 0, i = 0, per = 8 / a->esize;
	const uint8_t *d = a->data;

	while (i < a->len && i - zeros <= most) {
		uint64_t w = 1;
		if (a->len - i >= per && per > 0)
			memcpy(&w, d + i * a->esize, 8);
		if (w == 0) { /* a whole word of zero elements */
			zeros += per;
			i += per;
			continue;
		}
		uint64_t end = i + (per > 0 ? per : 1);
		for (; i < end && i < a->len; i++) {
			const uint8_t *e = d + i * a->esize;
			unsigned k = 0;
			while (k < a->esize && e[k] == 0)
				k++;
			zeros += k == a->esize;
		}
	}
	return zeros;
}

static char *sparse_bin_name(const struct heap *h, const struct bins *b, uint32_t bin)
{
	int obj = h->cls[bin].elem_type == T_OBJECT || h->cls[bin].elem_type == 0;

	return xasprintf("%s (%llu%% %s)", class_name(h, bin),
			 (unsigned long long)(b->a2[bin] * 100 / (b->a1[bin] ? b->a1[bin] : 1)),
			 obj ? "null" : "zero");
}

static int run_sparse(struct heap *h, const struct objset *set, const char *arg,
		      struct insp_result *r, struct progress *p, struct sbuf *err)
{
	struct bins b;

	(void)arg, (void)err;
	bins_init(&b, h->ncls);
	progress_begin(p, "sparse arrays", h->n, "objects");
	for (node_t v = 1; v < h->n && !progress_cancelled(p); v++) {
		struct harray a;
		if ((v & POLL) == 0)
			progress_update(p, v);
		if ((h->node_kind[v] != NK_PRIMARRAY && h->node_kind[v] != NK_OBJARRAY) ||
		    !objset_has(set, v) || array_at(h, v, &a) < 0)
			continue;
		r->examined++;
		if (a.len < 8)
			continue;
		uint64_t most = a.len - (3 * a.len + 3) / 4; /* non-zero ones allowed */
		uint64_t z = zero_elems(&a, most);
		if (a.len - z > most)
			continue;
		uint32_t c = h->node_class[v];
		unsigned esize = a.type == T_OBJECT ? h->layout.ref_size : a.esize;
		bins_add(&b, v, c, z * esize);
		b.a1[c] += a.len;
		b.a2[c] += z;
	}
	progress_end(p);
	bins_emit(&b, h, set, r, sparse_bin_name, NULL);
	bins_free(&b);
	return 0;
}

/* ---- collections: empty-collections, collection-fill, hash-collisions ---- */

/* What the collection inspections share: the kind of every class, and
 * the backing collections of the set's sets, which are counted with
 * their set and skipped on their own. */
struct colls {
	const struct heap *h;
	const struct runtime_ops *rt; /* its coll_class and coll_info: the runtime's knowledge */
	void *ctx;
	struct coll_class *cls; /* per class */
	bits_t *inner;
};

/* The reference field `name` of v, HW_NONE if none (through c's runtime). */
static node_t cfield(const struct colls *c, node_t v, const char *name)
{
	return insp_field(c->h, c->rt, c->ctx, v, name);
}

static void colls_init(struct colls *c, const struct heap *h, const struct objset *set)
{
	c->h = h;
	c->rt = heap_runtime(h);
	if (c->rt != NULL && (c->rt->coll_class == NULL || c->rt->coll_info == NULL))
		c->rt = NULL; /* a runtime that knows no collections */
	c->ctx = c->rt != NULL ? c->rt->open(h) : NULL;
	c->cls = xcalloc((size_t)h->ncls + 1, sizeof *c->cls);
	c->inner = xcalloc(bits_words(h->n), sizeof *c->inner);
	for (uint32_t k = 0; k < h->ncls && c->rt != NULL; k++)
		c->rt->coll_class(c->ctx, k, &c->cls[k]);
	for (node_t v = 1; v < h->n; v++) {
		if (h->node_kind[v] != NK_INSTANCE)
			continue;
		const char *f = c->cls[h->node_class[v]].backing;
		if (f != NULL && objset_has(set, v)) {
			node_t m = cfield(c, v, f);
			if (m != HW_NONE)
				bit_set(c->inner, m);
		}
	}
}

static void colls_free(struct colls *c)
{
	if (c->ctx != NULL)
		c->rt->close(c->ctx);
	free(c->cls);
	free(c->inner);
}

/* Is v a collection for these inspections: an instance (object arrays
 * and wrappers aside: the arrays have their own inspections, a wrapped
 * collection is counted itself) in the set, not a set's backing map? */
static int coll_member(const struct colls *c, const struct heap *h, const struct objset *set,
		       node_t v, struct coll_info *ci)
{
	if (h->node_kind[v] != NK_INSTANCE)
		return 0;
	if (!c->cls[h->node_class[v]].whole || !objset_has(set, v) || bit_get(c->inner, v))
		return 0;
	return c->rt->coll_info(c->ctx, v, ci) == 0;
}

/* The element array or table of collection v, HW_NONE if none. */
static node_t coll_array(const struct colls *c, node_t v)
{
	static const char *const names[] = { "table", "elementData", "elements", "array" };
	node_t a = HW_NONE;

	for (size_t i = 0; i < sizeof names / sizeof *names && a == HW_NONE; i++)
		a = cfield(c, v, names[i]);
	return a;
}

/* Collection v's bytes when empty: itself, and its array if it has
 * slots (a zero-length one is shared by every empty instance). */
static uint64_t empty_bytes(const struct colls *c, const struct heap *h, node_t v, uint64_t capacity)
{
	uint64_t b = h->node_shallow[v];
	node_t a;

	if (capacity > 0 && (a = coll_array(c, v)) != HW_NONE)
		b += h->node_shallow[a];
	return b;
}

/* The collection inspections' one pass: every member collection goes
 * to `bin`, which gives it a bin and a figure (or returns 0 to leave it
 * out); nbins_per_class bins per class. */
typedef int (*coll_bin_fn)(struct colls *c, const struct heap *h, node_t v, const struct coll_info *ci,
			   uint32_t *bin, uint64_t *w);

static int coll_scan(struct heap *h, const struct objset *set, struct insp_result *r,
		     struct progress *p, const char *what, uint32_t nbins_per_class, coll_bin_fn bin,
		     bin_name_fn name, bin_prio_fn prio)
{
	struct colls c;
	struct bins b;

	progress_begin(p, what, h->n, "objects");
	colls_init(&c, h, set);
	bins_init(&b, h->ncls * nbins_per_class);
	for (node_t v = 1; v < h->n && !progress_cancelled(p); v++) {
		struct coll_info ci;
		uint32_t k;
		uint64_t w;
		if ((v & POLL) == 0)
			progress_update(p, v);
		if (!coll_member(&c, h, set, v, &ci))
			continue;
		r->examined++;
		if (bin(&c, h, v, &ci, &k, &w))
			bins_add(&b, v, k, w);
	}
	progress_end(p);
	bins_emit(&b, h, set, r, name, prio);
	bins_free(&b);
	colls_free(&c);
	return 0;
}

/* Empty: per class, its bytes (and its backing map's, for a set). */
static int bin_empty(struct colls *c, const struct heap *h, node_t v, const struct coll_info *ci,
		     uint32_t *bin, uint64_t *w)
{
	if (ci->size != 0)
		return 0;
	const char *bf = c->cls[h->node_class[v]].backing;
	node_t m = bf != NULL ? cfield(c, v, bf) : HW_NONE;
	*w = m != HW_NONE ? h->node_shallow[v] + empty_bytes(c, h, m, ci->capacity)
			  : empty_bytes(c, h, v, ci->capacity);
	*bin = h->node_class[v];
	return 1;
}

static int run_empty(struct heap *h, const struct objset *set, const char *arg,
		     struct insp_result *r, struct progress *p, struct sbuf *err)
{
	(void)arg, (void)err;
	return coll_scan(h, set, r, p, "empty collections", 1, bin_empty, class_bin_name, NULL);
}

/* Fill or colliding ratios as ranges: 0 "0%", 1 "1-25%", 2 "26-50%",
 * 3 "51-75%", 4 "76-100%"; a non-zero part rounds up. */
static const char *const range_names[] = { "0%", "1-25%", "26-50%", "51-75%", "76-100%" };

static uint32_t range_of(uint64_t part, uint64_t whole)
{
	if (part == 0 || whole == 0)
		return 0;
	uint64_t pct = (part * 100 + whole - 1) / whole;
	return pct <= 25 ? 1 : pct <= 50 ? 2 : pct <= 75 ? 3 : 4;
}

static char *range_bin_name(const struct heap *h, const struct bins *b, uint32_t bin)
{
	(void)b;
	return xasprintf("%s %s", class_name(h, bin / 5), range_names[bin % 5]);
}

/* Fill: per class and range of size / capacity; the empty slots' bytes. */
static int bin_fill(struct colls *c, const struct heap *h, node_t v, const struct coll_info *ci,
		    uint32_t *bin, uint64_t *w)
{
	if (ci->capacity == 0)
		return 0;
	uint64_t used = c->cls[h->node_class[v]].hashed ? ci->used_slots : ci->size;
	uint64_t empty = used < ci->capacity ? ci->capacity - used : 0;
	*bin = h->node_class[v] * 5 + range_of(ci->size, ci->capacity);
	*w = empty * h->layout.ref_size;
	return 1;
}

static int run_fill(struct heap *h, const struct objset *set, const char *arg,
		    struct insp_result *r, struct progress *p, struct sbuf *err)
{
	(void)arg, (void)err;
	return coll_scan(h, set, r, p, "collection fill", 5, bin_fill, range_bin_name, NULL);
}

/* Priority by the range, since nothing here is wasted bytes: HIGH for
 * 76-100% colliding, MEDIUM for 51-75%, LOW below (random hash codes
 * in a table at the default load factor collide up to about half). */
static enum insp_priority collide_prio(const struct objset *set, uint32_t bin, uint64_t extra)
{
	(void)set, (void)extra;
	return bin % 5 == 4 ? IP_HIGH : bin % 5 == 3 ? IP_MEDIUM : IP_LOW;
}

/* Collisions: hash tables of 8 entries or more, per class and range of
 * colliding entries; the colliding entries. */
static int bin_collide(struct colls *c, const struct heap *h, node_t v, const struct coll_info *ci,
		       uint32_t *bin, uint64_t *w)
{
	if (!c->cls[h->node_class[v]].hashed || ci->size < 8)
		return 0;
	*bin = h->node_class[v] * 5 + range_of(ci->colliding, ci->size);
	*w = ci->colliding;
	return 1;
}

static int run_collide(struct heap *h, const struct objset *set, const char *arg,
		       struct insp_result *r, struct progress *p, struct sbuf *err)
{
	(void)arg, (void)err;
	return coll_scan(h, set, r, p, "hash collisions", 5, bin_collide, range_bin_name, collide_prio);
}

/* ---- null-fields ---- */

struct nulls {
	uint32_t *base;    /* per class: its first counter in null[] */
	uint64_t *inst;    /* per class: members */
	uint64_t *null;    /* per class and reference field: members where null */
	uint32_t *group;   /* per counter: group index + 1, 0 none */
	uint64_t nctr;
};

/* Count members per class and null references per field. */
static void nulls_count(struct nulls *s, const struct heap *h, const struct objset *set,
			struct progress *p)
{
	unsigned ids = h->layout.idsize;

	s->base = xmalloc(((size_t)h->ncls + 1) * sizeof *s->base);
	s->inst = xcalloc((size_t)h->ncls + 1, sizeof *s->inst);
	s->nctr = 0;
	for (uint32_t c = 0; c < h->ncls; c++) {
		s->base[c] = (uint32_t)s->nctr;
		s->nctr += h->cls[c].nrefs;
	}
	s->null = xcalloc(s->nctr + 1, sizeof *s->null);
	s->group = xcalloc(s->nctr + 1, sizeof *s->group);
	for (node_t v = 1; v < h->n && !progress_cancelled(p); v++) {
		uint32_t len;
		const uint8_t *d;
		if ((v & POLL) == 0)
			progress_update(p, v);
		if (h->node_kind[v] != NK_INSTANCE || !objset_has(set, v) ||
		    (d = heap_inst_data(h, v, &len)) == NULL)
			continue;
		uint32_t c = h->node_class[v];
		s->inst[c]++;
		if (h->cls[c].nrefs == 0) /* refoffs is NULL when no class has one */
			continue;
		const uint32_t *offs = h->refoffs + h->cls[c].ref_first;
		uint64_t *nl = s->null + s->base[c];
		for (uint32_t k = 0; k < h->cls[c].nrefs; k++)
			nl[k] += inst_ref_at(d, len, offs[k], ids) == 0;
	}
}

/* Number the (class, field) pairs null in >= 90% of the class's >= 100
 * members from 1 in s->group[], mark their classes in any[]; their
 * null counts in want[] (allocated here). Returns how many. */
static uint32_t nulls_select(struct nulls *s, const struct heap *h, uint8_t *any, uint64_t **want)
{
	uint32_t ng = 0;

	*want = xmalloc((s->nctr + 1) * sizeof **want);
	for (uint32_t c = 0; c < h->ncls; c++)
		for (uint32_t k = 0; k < h->cls[c].nrefs && s->inst[c] >= 100; k++) {
			uint64_t n = s->null[s->base[c] + k];
			if (n * 10 < s->inst[c] * 9)
				continue;
			(*want)[ng++] = n;
			s->group[s->base[c] + k] = ng;
			any[c] = 1;
		}
	return ng;
}

static int run_nulls(struct heap *h, const struct objset *set, const char *arg,
		     struct insp_result *r, struct progress *p, struct sbuf *err)
{
	struct nulls s;
	unsigned ids = h->layout.idsize;
	node_t **m;
	uint64_t *want;

	(void)arg, (void)err;
	progress_begin(p, "null fields", (uint64_t)h->n * 2, "objects");
	nulls_count(&s, h, set, p);
	uint8_t *any = xcalloc((size_t)h->ncls + 1, 1);
	uint32_t ng = nulls_select(&s, h, any, &want);
	m = xcalloc((size_t)ng + 1, sizeof *m);
	for (uint32_t g = 0; g < ng; g++)
		m[g] = xmalloc(want[g] * sizeof **m);
	uint64_t *fill = xcalloc((size_t)ng + 1, sizeof *fill);
	for (node_t v = 1; v < h->n && ng > 0 && !progress_cancelled(p); v++) {
		uint32_t len, c = h->node_class[v];
		const uint8_t *d;
		if ((v & POLL) == 0)
			progress_update(p, (uint64_t)h->n + v);
		if (h->node_kind[v] != NK_INSTANCE || !any[c] || !objset_has(set, v) ||
		    (d = heap_inst_data(h, v, &len)) == NULL)
			continue;
		for (uint32_t k = 0; k < h->cls[c].nrefs; k++) {
			uint32_t g = s.group[s.base[c] + k], off = h->refoffs[h->cls[c].ref_first + k];
			if (g != 0 && fill[g - 1] < want[g - 1] && inst_ref_at(d, len, off, ids) == 0)
				m[g - 1][fill[g - 1]++] = v;
		}
	}
	for (uint32_t c = 0; c < h->ncls; c++) {
		r->examined += s.inst[c];
		for (uint32_t k = 0; k < h->cls[c].nrefs; k++) {
			uint32_t g = s.group[s.base[c] + k];
			if (g == 0)
				continue;
			const struct hfield *f = class_field_at(h, c, h->refoffs[h->cls[c].ref_first + k]);
			char *name = xasprintf("%s.%s (%llu%% null)", class_name(h, c),
					       f != NULL ? heap_str(h, f->name) : "?",
					       (unsigned long long)(want[g - 1] * 100 / s.inst[c]));
			uint64_t wasted = fill[g - 1] * h->layout.ref_size;
			insp_add(r, h, name, prio_of(set, wasted), m[g - 1], fill[g - 1], wasted);
		}
	}
	progress_end(p);
	free(m);
	free(want);
	free(fill);
	free(any);
	free(s.base);
	free(s.inst);
	free(s.null);
	free(s.group);
	return 0;
}

/* ---- boxed-primitives ---- */

static const struct { const char *name; unsigned size; } boxes[] = {
	{ "java.lang.Integer", 4 }, { "java.lang.Long", 8 }, { "java.lang.Short", 2 },
	{ "java.lang.Byte", 1 }, { "java.lang.Character", 2 }, { "java.lang.Boolean", 1 },
	{ "java.lang.Float", 4 }, { "java.lang.Double", 8 },
};

static int run_boxed(struct heap *h, const struct objset *set, const char *arg,
		     struct insp_result *r, struct progress *p, struct sbuf *err)
{
	struct bins b;
	uint8_t *prim = xcalloc((size_t)h->ncls + 1, 1); /* per class: primitive size */

	(void)arg, (void)err;
	for (uint32_t c = 0; c < h->ncls; c++)
		for (size_t i = 0; i < sizeof boxes / sizeof *boxes; i++)
			if (strcmp(class_name(h, c), boxes[i].name) == 0)
				prim[c] = (uint8_t)boxes[i].size;
	bins_init(&b, h->ncls);
	progress_begin(p, "boxed primitives", h->n, "objects");
	for (node_t v = 1; v < h->n && !progress_cancelled(p); v++) {
		if ((v & POLL) == 0)
			progress_update(p, v);
		uint32_t c = h->node_class[v];
		if (h->node_kind[v] != NK_INSTANCE || prim[c] == 0 || !objset_has(set, v))
			continue;
		uint32_t sh = h->node_shallow[v];
		bins_add(&b, v, c, sh > prim[c] ? sh - prim[c] : 0);
	}
	progress_end(p);
	bins_emit(&b, h, set, r, class_bin_name, NULL);
	r->examined = b.n;
	bins_free(&b);
	free(prim);
	return 0;
}

const struct inspection insp_waste[] = {
	{ "duplicate-strings", "Waste", "Strings with equal values", NULL, 0, "wasted", 1,
	  run_dupstr, 1, NULL, 1 },
	{ "duplicate-arrays", "Waste", "Primitive arrays with equal contents", NULL, 0, "wasted", 1,
	  run_duparr, 0, NULL, 0 },
	{ "zero-length-arrays", "Waste", "Arrays of length 0", NULL, 0, "wasted", 1, run_zerolen, 0, NULL, 0 },
	{ "sparse-arrays", "Waste", "Arrays mostly null or zero", NULL, 0, "wasted", 1, run_sparse, 0, NULL, 0 },
	{ "empty-collections", "Waste", "Collections with no elements", NULL, 0, "wasted", 1,
	  run_empty, 0, NULL, 0 },
	{ "collection-fill", "Waste", "Collections by fill ratio (size / capacity)", NULL, 0,
	  "wasted", 1, run_fill, 0, NULL, 0 },
	{ "hash-collisions", "Waste", "Hash tables by share of colliding entries", NULL, 0,
	  "colliding", 0, run_collide, 0, NULL, 0 },
	{ "null-fields", "Waste", "Reference fields null in 90% or more of a class", NULL, 0,
	  "wasted", 1, run_nulls, 0, NULL, 0 },
	{ "boxed-primitives", "Waste", "Boxed primitive values", NULL, 0, "wasted", 1, run_boxed, 0, NULL, 0 },
	{ .name = NULL },
};
