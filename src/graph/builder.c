/* builder.c — a reader's objects, types, references and roots into
 * struct heap: see builder.h. */
#include "graph/builder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/analysis.h"
#include "graph/cache.h"
#include "graph/resident.h"
#include "graph/store.h"

/* The builder's own memory, counted: old bytes become new ones. */
static void own(struct heap_builder *b, size_t old, size_t now)
{
	b->own += now - old;
	if (b->own > b->own_peak)
		b->own_peak = b->own;
}

#define OWN_GROW(b, v, n, cap) do { \
	if ((n) == (cap)) { \
		size_t old_ = (cap) * sizeof *(v); \
		(cap) = (cap) ? (cap) * 2 : 256; \
		(v) = xreallocarray((v), (cap), sizeof *(v)); \
		own((b), old_, (cap) * sizeof *(v)); \
	} \
} while (0)

static void node_arrays(struct heap_builder *b, size_t cap)
{
	struct heap *h = b->h;

	h->node_id = xreallocarray(h->node_id, cap, sizeof *h->node_id);
	h->node_class = xreallocarray(h->node_class, cap, sizeof *h->node_class);
	h->node_shallow = xreallocarray(h->node_shallow, cap, sizeof *h->node_shallow);
	h->node_kind = xreallocarray(h->node_kind, cap, 1);
	if (b->given_refs != NULL) { /* grown zeroed (hb_object_refs) */
		b->given_refs = big_resize(b->given_refs, b->cap * sizeof *b->given_refs, cap * sizeof *b->given_refs);
		own(b, b->cap * sizeof *b->given_refs, cap * sizeof *b->given_refs);
	}
	b->cap = cap;
}

/* Node 0: the virtual root. */
static void root_node(struct heap *h)
{
	h->node_id[0] = 0;
	h->node_class[0] = HW_NONE;
	h->node_shallow[0] = 0;
	h->node_kind[0] = NK_ROOT;
}

void hb_start(struct heap_builder *b, struct heap *h, struct nametab *nt, size_t objects, unsigned flags)
{
	memset(b, 0, sizeof *b);
	b->h = h;
	b->own_nt.h = h;
	b->nt = nt != NULL ? nt : &b->own_nt;
	b->flags = flags;
	b->ascending = 1;
	node_arrays(b, objects + 1);
	root_node(h);
}

struct nametab *hb_names(struct heap_builder *b)
{
	return b->nt;
}

static size_t type_slot(const struct heap_builder *b, uint32_t name, uint64_t id)
{
	uint64_t k[2] = { name, id };
	size_t j = hw_fnv(k, sizeof k) & (b->thash_cap - 1);

	while (b->thash[j] != HW_NONE && (b->ty[b->thash[j]].name != name || b->ty[b->thash[j]].id != id))
		j = (j + 1) & (b->thash_cap - 1);
	return j;
}

static void type_rehash(struct heap_builder *b)
{
	size_t old = b->thash_cap;

	free(b->thash);
	b->thash_cap = old ? old * 2 : 1024;
	b->thash = xmalloc(b->thash_cap * sizeof *b->thash);
	own(b, old * sizeof *b->thash, b->thash_cap * sizeof *b->thash);
	memset(b->thash, 0xff, b->thash_cap * sizeof *b->thash);
	for (uint32_t t = 0; t < b->nty; t++)
		b->thash[type_slot(b, b->ty[t].name, b->ty[t].id)] = t;
}

uint32_t hb_type(struct heap_builder *b, uint32_t name, uint64_t id)
{
	if (b->thash == NULL || (size_t)b->nty * 2 >= b->thash_cap)
		type_rehash(b);
	size_t j = type_slot(b, name, id);
	if (b->thash[j] == HW_NONE) {
		OWN_GROW(b, b->ty, b->nty, b->cty);
		b->ty[b->nty] = (struct hb_type){ name, 0, id, 0 };
		b->thash[j] = b->nty++;
	}
	return b->thash[j];
}

void hb_type_qual(struct heap_builder *b, uint32_t type, uint32_t qual)
{
	if (type >= b->nty)
		hw_fatal("hb_type_qual: type %u not made by hb_type", type); /* a reader's bug */
	b->ty[type].qual = qual + 1;
}

void hb_type_key(struct heap_builder *b, uint32_t type, uint32_t key)
{
	if (type >= b->nty)
		hw_fatal("hb_type_key: type %u not made by hb_type", type); /* a reader's bug */
	b->ty[type].key = key + 1;
}

uint32_t hb_type_str(struct heap_builder *b, const char *name, size_t len, uint64_t id)
{
	return hb_type(b, names_intern(b->nt, name, len), id);
}

uint32_t hb_type_unnamed(struct heap_builder *b, const char *prefix, uint64_t id)
{
	char tmp[96];
	int len = snprintf(tmp, sizeof tmp, "%.60s(0x%llx)", prefix, (unsigned long long)id);

	return hb_type_str(b, tmp, (size_t)len, id);
}

/* The counts given with the objects (hb_object_refs) let go: the nodes
 * will be sorted, and the counts' array beside the sort's would make
 * the builder's peak; the reader counts after hb_nodes_done instead. */
static void refs_dropped(struct heap_builder *b)
{
	b->refs_dropped = 1;
	if (b->given_refs == NULL)
		return;
	big_free(b->given_refs, b->cap * sizeof *b->given_refs);
	own(b, b->cap * sizeof *b->given_refs, 0);
	b->given_refs = NULL;
	b->counted = 0;
	b->ncounted = 0;
}

/* Objects whose columns' pages hb_object makes at once, ahead of them:
 * a few pages, not a fault each; and little memory ahead of use. */
#define POPULATE_AHEAD 8192u

void hb_object(struct heap_builder *b, uint64_t id, uint32_t type, uint64_t size, uint8_t kind)
{
	struct heap *h = b->h;

	if (b->n >= (uint64_t)UINT32_MAX - 2) /* node_t: 2^32 - 2 objects and the root */
		hw_fatal("%s: more than 2^32 objects: not supported yet", esc_str(h->path));
	if (b->nodes_done)
		hw_fatal("hb_object after hb_nodes_done"); /* a reader's bug */
	if (type >= b->nty)
		hw_fatal("hb_object: type %u not made by hb_type", type); /* a reader's bug */
	if (b->n + 1 >= b->cap)
		node_arrays(b, b->cap * 2);
	node_t v = ++b->n;
	if ((v & (POPULATE_AHEAD - 1)) == 1) { /* the next columns' pages at once */
		size_t e = v + POPULATE_AHEAD < b->cap ? v + POPULATE_AHEAD : b->cap;
		mem_populate(h->node_id, v * sizeof *h->node_id, e * sizeof *h->node_id);
		mem_populate(h->node_class, v * sizeof *h->node_class, e * sizeof *h->node_class);
		mem_populate(h->node_shallow, v * sizeof *h->node_shallow, e * sizeof *h->node_shallow);
		mem_populate(h->node_kind, v, e);
	}
	if (b->n > 1 && id <= b->last_id && b->ascending) {
		b->ascending = 0;
		refs_dropped(b);
	}
	b->last_id = id;
	h->node_id[v] = id;
	h->node_class[v] = type; /* a type until hb_finish makes it a class */
	h->node_shallow[v] = size > UINT32_MAX ? UINT32_MAX : (uint32_t)size;
	h->node_kind[v] = kind;
	if (size >= UINT32_MAX) {
		OWN_GROW(b, b->big, b->nbig, b->cbig);
		b->big[b->nbig++] = (struct big){ v, size };
	}
}

void hb_object_refs(struct heap_builder *b, size_t n)
{
	if (b->refs_dropped)
		return;
	if (b->n == 0 || b->nodes_done || (b->counted && b->given_refs == NULL))
		hw_fatal("hb_object_refs: out of turn"); /* a reader's bug */
	if (b->given_refs == NULL) { /* mapped: zeroed, and no hole left in malloc's heap */
		b->given_refs = big_alloc(b->cap * sizeof *b->given_refs);
		own(b, 0, b->cap * sizeof *b->given_refs);
		b->counted = 1;
	}
	b->given_refs[b->n] = (edge_t)n; /* past 2^32 in all: counted_room says */
	b->ncounted += n;
}

int hb_refs_counted(const struct heap_builder *b)
{
	return b->counted != 0;
}

/* The labels (HB_LABELS) parallel to the references, by id or by key:
 * grown as OWN_GROW is about to grow theirs (n of cap used). */
static void label_room(struct heap_builder *b, size_t n, size_t cap)
{
	if (n != cap || !(b->flags & HB_LABELS))
		return;
	size_t c = cap ? cap * 2 : 256;
	b->label = xreallocarray(b->label, c, sizeof *b->label);
	own(b, cap * sizeof *b->label, c * sizeof *b->label);
}

/* A reference between nodes as a key (no counts given). */
static inline void key_add(struct heap_builder *b, node_t from, node_t to, uint32_t label)
{
	label_room(b, b->nkey, b->ckey);
	OWN_GROW(b, b->key, b->nkey, b->ckey);
	if (b->flags & HB_LABELS)
		b->label[b->nkey] = label;
	b->key[b->nkey++] = (uint64_t)from << 32 | to;
}

/* HB_FEW_FINDS' lookup: the ids searched (in order, the first of an id
 * given twice: as idindex_find finds it). */
static node_t ids_find(const struct heap_builder *b, uint64_t id)
{
	const struct heap *h = b->h;

	if (h->node_id == NULL)
		hw_fatal("hb_find: the ids are parked"); /* the builder's bug */
	size_t i = lower_bound_u64_range(h->node_id, sizeof *h->node_id, 1, h->n, id);
	return i < h->n && h->node_id[i] == id ? (node_t)i : HW_NONE;
}

/* hb_find once the nodes are done (the id index made), inline: every
 * reference asks it. */
static inline node_t node_of(const struct heap_builder *b, uint64_t id)
{
	node_t v = b->flags & HB_FEW_FINDS ? ids_find(b, id) : idindex_find(&b->ix, id);

	return v == 0 ? HW_NONE : v;
}

/* The node of a reference's source. A reader gives an object's
 * references together, and its objects mostly by id: the last source's
 * node is kept, and the next one looked for a few nodes on before a
 * lookup. */
static node_t source_node(struct heap_builder *b, uint64_t from)
{
	const uint64_t *id = b->h->node_id;
	node_t v = HW_NONE;

	if (b->from_known && from == b->from_id)
		return b->from_node;
	if (b->from_known && b->from_node != HW_NONE && from > b->from_id) {
		node_t end = b->h->n - b->from_node > 16 ? b->from_node + 16 : b->h->n;
		for (node_t u = b->from_node + 1; u < end && id[u] <= from; u++)
			if (id[u] == from)
				v = u;
	}
	b->from_id = from;
	b->from_node = v != HW_NONE ? v : node_of(b, from);
	b->from_known = 1;
	return b->from_node;
}

/* A reference between nodes, once they are done: its key. */
static void ref_key(struct heap_builder *b, uint64_t from, uint64_t to, uint32_t label)
{
	node_t s = source_node(b, from), t = node_of(b, to);

	if (s == HW_NONE || t == HW_NONE)
		b->dangling++;
	else if (b->counted)
		hb_ref_node(b, s, t, label);
	else
		key_add(b, s, t, label);
}

void hb_ref_label(struct heap_builder *b, uint64_t from, uint64_t to, uint32_t label)
{
	if (b->nodes_done) {
		ref_key(b, from, to, label);
		return;
	}
	label_room(b, b->nref, b->cref);
	OWN_GROW(b, b->ref, b->nref, b->cref);
	if (b->flags & HB_LABELS)
		b->label[b->nref] = label;
	b->ref[b->nref++] = (struct hb_ref){ from, to };
}

node_t *hb_given_take(struct heap_builder *b)
{
	node_t *g = b->given;

	if (g != NULL)
		own(b, b->ngiven * sizeof *g, 0);
	b->given = NULL;
	return g;
}

/* HB_RUNS: the words of the bitmap of the nodes whose run was given */
static size_t done_words(const struct heap *h)
{
	return ((size_t)h->n + 64) / 64;
}

/* Room for the references counted (hb_refs_count), each node's from
 * its start on: out_start[v] is v's next place until hb_finish. */
static void counted_room(struct heap_builder *b)
{
	struct heap *h = b->h;
	edge_t sum = 0;

	if (b->ncounted > (uint64_t)UINT32_MAX - 1) /* edge_t */
		hw_fatal("%s: more than 2^32 references: not supported yet", esc_str(h->path));
	for (node_t v = 0; v <= h->n; v++) {
		edge_t c = h->out_start[v];
		h->out_start[v] = sum;
		sum += c;
	}
	h->nedges = sum;
	/* every reference counted is placed: written whole (a 4 KB fault a
	 * page of its last part else, 400 on a 1.4 M-node V8 snapshot) */
	h->out = xmalloc_whole(((size_t)sum + 1) * sizeof *h->out);
	if ((b->flags & (HB_LABELS | HB_RUNS)) == (HB_LABELS | HB_RUNS)) {
		struct hb_runs *r = &b->runs;
		r->on = 1;
		r->chunk = xmalloc(STORE_CHUNK);
		/* filled whole before each is put, as far as there are labels */
		mem_populate(r->chunk, 0, (size_t)sum < STORE_CHUNK / 4 ? (size_t)sum * 4 : STORE_CHUNK);
		r->done = xcalloc(done_words(h), sizeof *r->done);
		own(b, 0, STORE_CHUNK + done_words(h) * sizeof *r->done);
	} else if (b->flags & HB_LABELS) {
		b->out_label = xmalloc(((size_t)sum + 1) * sizeof *b->out_label); /* the reader's */
	}
	b->counted = 2;
}

/* The first count: in turn? */
static void count_start(struct heap_builder *b)
{
	if (!b->nodes_done || b->counted > 1 || b->nkey > 0)
		hw_fatal("hb_refs_count: out of turn"); /* a reader's bug */
	b->h->out_start = xcalloc((size_t)b->h->n + 1, sizeof *b->h->out_start);
	/* counted in the readers' order, all over it: its pages at once */
	mem_populate(b->h->out_start, 0, ((size_t)b->h->n + 1) * sizeof *b->h->out_start);
	b->counted = 1;
}

void hb_refs_count(struct heap_builder *b, node_t from, size_t n)
{
	if (b->counted != 1)
		count_start(b);
	if (from - 1 >= b->h->n - 1) /* 0 or past the nodes */
		hw_fatal("hb_refs_count: node %u not made", from); /* a reader's bug */
	b->ncounted += n;
	b->h->out_start[from] += (edge_t)n; /* past 2^32 in all: counted_room says */
}

/* ---- HB_RUNS: each node's run sorted when done, its labels to disk ---- */

#define HB_CHUNK_ID (STORE_SCRATCH + 0x100000) /* and on: the labels' chunks in the scratch file */
#define CHUNK_LABELS (STORE_CHUNK / sizeof(uint32_t))

static void sort_run(struct heap_builder *b, node_t *to, uint32_t *label, edge_t m, uint64_t **scratch, uint32_t **lt,
		     size_t *cap);

/* The chunk of labels made: a section of the scratch file, or (with
 * none, or once a write there failed: every one after it too) kept in
 * memory. */
static void chunk_flush(struct heap_builder *b)
{
	struct hb_runs *r = &b->runs;
	struct store *st = r->nmem == 0 ? heap_scratch(b->h) : NULL;

	if (st != NULL && store_put(st, HB_CHUNK_ID + r->nwritten, r->chunk, sizeof *r->chunk, r->nchunk_label) == 0) {
		r->nwritten++;
	} else {
		if (r->nmem + r->nchunk_label > r->cmem) {
			size_t old = r->cmem;
			r->cmem = r->cmem * 2 > r->nmem + r->nchunk_label ? r->cmem * 2 : r->nmem + CHUNK_LABELS;
			r->mem = xreallocarray(r->mem, r->cmem, sizeof *r->mem);
			own(b, old * sizeof *r->mem, r->cmem * sizeof *r->mem);
		}
		memcpy(r->mem + r->nmem, r->chunk, r->nchunk_label * sizeof *r->mem);
		r->nmem += r->nchunk_label;
	}
	r->nchunk_label = 0;
}

static void labels_add(struct heap_builder *b, const uint32_t *p, size_t k)
{
	struct hb_runs *r = &b->runs;

	r->nlab += k;
	while (k > 0) {
		size_t c = CHUNK_LABELS - r->nchunk_label < k ? CHUNK_LABELS - r->nchunk_label : k;
		memcpy(r->chunk + r->nchunk_label, p, c * sizeof *p);
		r->nchunk_label += c;
		p += c;
		k -= c;
		if (r->nchunk_label == CHUNK_LABELS)
			chunk_flush(b);
	}
}

/* The run given is done: sorted in place (its holes, HW_NONE, last), and
 * the labels of what is not a hole added. */
static void run_end(struct heap_builder *b)
{
	struct hb_runs *r = &b->runs;
	node_t *to = b->h->out + r->at;
	edge_t k = r->len;

	r->open = 0;
	sort_run(b, to, r->label, r->len, &r->sort, &r->lt, &r->sort_cap);
	while (k > 0 && to[k - 1] == HW_NONE)
		k--;
	labels_add(b, r->label, k);
	r->next = r->at + r->len;
}

/* A node's run begins (the one before it is done): where it lies after
 * the one before, the stretch goes on, else a new one begins. */
static void run_begin(struct heap_builder *b, node_t from)
{
	struct hb_runs *r = &b->runs;

	if (r->open)
		run_end(b);
	if (from >= b->h->n || (r->done[from / 64] >> (from % 64) & 1))
		hw_fatal("hb_refs_room: node %u's references in two stretches", from); /* a reader's bug */
	edge_t at = b->h->out_start[from];
	r->done[from / 64] |= 1ull << (from % 64);
	if (r->nseg == 0 || at != r->next) {
		OWN_GROW(b, r->seg, r->nseg, r->cseg);
		r->seg[r->nseg++] = (struct hb_seg){ from, r->nlab };
	}
	r->open = 1;
	r->node = from;
	r->at = at;
	r->len = 0;
}

static uint32_t *run_room(struct heap_builder *b, size_t n)
{
	struct hb_runs *r = &b->runs;

	if (r->len + n > r->cap) {
		size_t old = r->cap;
		r->cap = r->cap * 2 > r->len + n ? r->cap * 2 : r->len + n + 64;
		r->label = xreallocarray(r->label, r->cap, sizeof *r->label);
		own(b, old * sizeof *r->label, r->cap * sizeof *r->label);
	}
	r->len += (edge_t)n;
	return r->label + r->len - n;
}

/* A run's room (its labels, and to sort it in) let go. */
static void run_room_free(struct heap_builder *b)
{
	struct hb_runs *r = &b->runs;

	own(b, r->cap * sizeof *r->label, 0);
	free(r->label);
	free(r->sort);
	free(r->lt);
	r->label = NULL;
	r->sort = NULL;
	r->lt = NULL;
	r->cap = r->sort_cap = 0;
}

/* The last run done, and the last chunk made. */
static void runs_end(struct heap_builder *b)
{
	struct hb_runs *r = &b->runs;

	if (r->open)
		run_end(b);
	if (r->nchunk_label > 0)
		chunk_flush(b);
	run_room_free(b);
	if (r->done != NULL) { /* no run comes after the last */
		own(b, done_words(b->h) * sizeof *r->done, 0);
		free(r->done);
		r->done = NULL;
	}
}

/* Chunk c's labels (those of h->out's order from c * CHUNK_LABELS on, as
 * given): read back into r->chunk (chunk *held there), or in memory.
 * NULL if it cannot be read back. */
static const uint32_t *chunk_at(struct heap_builder *b, uint64_t c, uint64_t *held)
{
	struct hb_runs *r = &b->runs;

	if (c >= r->nwritten)
		return r->mem + (c - r->nwritten) * CHUNK_LABELS;
	if (*held == c)
		return r->chunk;
	const struct store *st = heap_scratch_kept(b->h);
	const struct store_sect *sc = st == NULL ? NULL : store_find(st, HB_CHUNK_ID + (uint32_t)c);
	if (sc == NULL || sc->raw > STORE_CHUNK ||
	    store_load(st, HB_CHUNK_ID + (uint32_t)c, sizeof *r->chunk, sc->raw / sizeof *r->chunk, r->chunk) < 0) {
		*held = UINT64_MAX;
		return NULL;
	}
	*held = c;
	return r->chunk;
}

/* The labels of h->out's places [w0, w1) into dst: each stretch's part
 * there. 0, or -1 (a chunk could not be read back). */
static int place_window(struct heap_builder *b, uint32_t *dst, uint64_t w0, uint64_t w1, uint64_t *held)
{
	struct hb_runs *r = &b->runs;

	for (size_t i = 0; i < r->nseg; i++) {
		uint64_t li = r->seg[i].li, len = (i + 1 < r->nseg ? r->seg[i + 1].li : r->nlab) - li;
		uint64_t p = b->h->out_start[r->seg[i].v];
		uint64_t a = p > w0 ? p : w0, e = p + len < w1 ? p + len : w1;
		while (a < e) {
			uint64_t l = li + (a - p), off = l % CHUNK_LABELS, take = CHUNK_LABELS - off;
			const uint32_t *src = chunk_at(b, l / CHUNK_LABELS, held);
			if (src == NULL)
				return -1;
			take = take < e - a ? take : e - a;
			memcpy(dst + (a - w0), src + off, take * sizeof *dst);
			a += take;
		}
	}
	return 0;
}

/* The chunks let go. */
static void runs_free(struct heap_builder *b)
{
	struct hb_runs *r = &b->runs;
	struct store *st = r->nwritten > 0 ? heap_scratch_kept(b->h) : NULL;

	for (uint32_t c = 0; c < r->nwritten && st != NULL; c++)
		store_drop(st, HB_CHUNK_ID + c);
	run_room_free(b);
	own(b, (r->chunk != NULL ? STORE_CHUNK : 0) + (r->done != NULL ? done_words(b->h) * sizeof *r->done : 0) +
		       r->cmem * sizeof *r->mem + r->cseg * sizeof *r->seg, 0);
	free(r->chunk);
	free(r->mem);
	free(r->seg);
	free(r->done);
	memset(r, 0, sizeof *r);
}

/* h->out's labels from place `from` on, in its order, each window (an
 * eighth of them, a chunk's four at least, whole chunks) read from the
 * chunks that hold a part of it: into w when there is one, else each
 * window a section of st from HB_CHUNK_ID + r->nwritten + *nids on,
 * its id appended to ids. 0, or -1. */
static int labels_placed(struct heap_builder *b, struct store *st, struct store_writer *w, uint64_t from,
			 uint32_t *ids, size_t *nids)
{
	struct hb_runs *r = &b->runs;
	uint64_t n = b->h->nedges, win = n / 8 > CHUNK_LABELS * 4 ? n / 8 : CHUNK_LABELS * 4, held = UINT64_MAX;

	win = (win + CHUNK_LABELS - 1) / CHUNK_LABELS * CHUNK_LABELS;
	win = win < n - from ? win : n - from;
	uint32_t *buf = xmalloc(((size_t)win + 1) * sizeof *buf);
	int rc = 0;

	for (uint64_t w0 = from; w0 < n && rc == 0; w0 += win) {
		uint64_t w1 = n - w0 < win ? n : w0 + win;
		rc = place_window(b, buf, w0, w1, &held);
		if (rc == 0 && w != NULL) {
			store_write(w, buf, (size_t)(w1 - w0) * sizeof *buf);
		} else if (rc == 0) {
			uint32_t tid = HB_CHUNK_ID + r->nwritten + (uint32_t)*nids;
			if ((rc = store_put(st, tid, buf, sizeof *buf, w1 - w0)) == 0)
				ids[(*nids)++] = tid;
		}
	}
	free(buf);
	return rc < 0 ? -1 : 0;
}

int hb_labels_park(struct heap_builder *b, struct store *st, uint32_t id)
{
	struct hb_runs *r = &b->runs;
	struct heap *h = b->h;
	int rc;

	if (!r->on || st == NULL || !store_ok(st))
		return -1;
	/* the chunks that hold h->out's first places in order (the first
	 * stretch's, from place 0) kept as they are, the rest placed anew
	 * after them and the two joined; on a V8 snapshot all but the last
	 * hundred or so are in order (its last nodes' ids are not). With
	 * none kept, all placed anew, written once */
	uint64_t first = r->nseg == 0 ? 0 : r->nseg > 1 ? r->seg[1].li : r->nlab, whole = 0, from = 0;
	if (r->nmem == 0 && r->nseg > 0 && h->out_start[r->seg[0].v] == 0 && st == heap_scratch_kept(h)) {
		whole = first == r->nlab ? r->nwritten : first / CHUNK_LABELS;
		whole = whole < r->nwritten ? whole : r->nwritten;
		from = whole == r->nwritten ? r->nlab : whole * CHUNK_LABELS;
	}
	uint64_t rest = h->nedges > from ? (uint64_t)h->nedges - from : 0;
	if (whole == 0) {
		struct store_writer w;
		store_begin(st, &w, id, sizeof(uint32_t));
		rc = labels_placed(b, st, &w, 0, NULL, NULL);
		if (store_end(&w) < 0 || rc < 0) {
			store_drop(st, id);
			rc = -1;
		}
	} else {
		size_t nids = 0;
		uint32_t *ids = xmalloc(((size_t)whole + 2 + (size_t)(rest / CHUNK_LABELS)) * sizeof *ids);
		for (uint64_t c = 0; c < whole; c++)
			ids[nids++] = HB_CHUNK_ID + (uint32_t)c;
		rc = rest > 0 ? labels_placed(b, st, NULL, from, ids, &nids) : 0;
		if (rc == 0)
			rc = store_concat(st, id, st, ids, nids);
		for (size_t i = (size_t)whole; i < nids; i++) /* the windows placed anew */
			store_drop(st, ids[i]);
		free(ids);
		if (rc < 0)
			store_drop(st, id);
	}
	if (rc == 0)
		runs_free(b);
	return rc;
}

node_t *hb_refs_room(struct heap_builder *b, node_t from, size_t n, uint32_t **label)
{
	struct heap *h = b->h;

	if (b->counted == 1)
		counted_room(b);
	if (b->counted != 2 || n > h->nedges - b->placed)
		hw_fatal("hb_refs_room: more references than counted"); /* a reader's bug */
	if (b->runs.on && (!b->runs.open || b->runs.node != from))
		run_begin(b, from);
	b->placed += n;
	edge_t at = h->out_start[from];
	h->out_start[from] += (edge_t)n;
	uint32_t *l = b->runs.on ? run_room(b, n) : b->out_label != NULL ? b->out_label + at : NULL;
	if (label != NULL)
		*label = l;
	return h->out + at;
}

void hb_ref_node(struct heap_builder *b, node_t from, node_t to, uint32_t label)
{
	if (b->counted) {
		uint32_t *l;
		*hb_refs_room(b, from, 1, &l) = to;
		if (l != NULL)
			*l = label;
		return;
	}
	key_add(b, from, to, label);
}

void hb_weak_node(struct heap_builder *b, node_t from, node_t to, uint32_t label)
{
	OWN_GROW(b, b->weak, b->nweak, b->cweak);
	b->weak[b->nweak++] = (struct hb_weak){ from, to, label };
}

void hb_weak(struct heap_builder *b, uint64_t from, uint64_t to, uint32_t label)
{
	node_t s = hb_find(b, from), t = hb_find(b, to);

	if (s == HW_NONE || t == HW_NONE)
		b->dangling++;
	else
		hb_weak_node(b, s, t, label);
}

/* hb_refs once counted: straight to the source's room, a target that is
 * no object's left a hole there (HW_NONE) that hb_finish closes. */
static void refs_counted(struct heap_builder *b, uint64_t from, const uint64_t *to, size_t n)
{
	node_t s = source_node(b, from);

	if (s == HW_NONE) { /* no object: none counted */
		b->dangling += n;
		return;
	}
	node_t *out = hb_refs_room(b, s, n, NULL);
	for (size_t i = 0; i < n; i++)
		out[i] = node_of(b, to[i]);
}

void hb_refs(struct heap_builder *b, uint64_t from, const uint64_t *to, size_t n)
{
	if (b->counted && !(b->flags & HB_LABELS) && n > 0) {
		if (!b->nodes_done) /* counts given with the objects: placed once the nodes are */
			hw_fatal("hb_refs: counted references before hb_nodes_done"); /* a reader's bug */
		refs_counted(b, from, to, n);
		return;
	}
	for (size_t i = 0; i < n; i++)
		hb_ref_label(b, from, to[i], 0);
}

void hb_ref(struct heap_builder *b, uint64_t from, uint64_t to)
{
	hb_ref_label(b, from, to, 0);
}

void hb_root(struct heap_builder *b, uint64_t id, uint8_t kind, uint8_t native, uint32_t detail)
{
	if (b->nodes_done) {
		node_t v = hb_find(b, id);
		if (v == HW_NONE)
			b->lost_roots++;
		else
			hb_root_node(b, v, kind, native, detail);
		return;
	}
	OWN_GROW(b, b->root, b->nroot, b->croot);
	b->root[b->nroot++] = (struct hb_root){ id, detail, kind, native };
}

/* Once the nodes are done, a root's id field holds its node. */
void hb_root_node(struct heap_builder *b, node_t v, uint8_t kind, uint8_t native, uint32_t detail)
{
	OWN_GROW(b, b->root, b->nroot, b->croot);
	b->root[b->nroot++] = (struct hb_root){ v, detail, kind, native };
}

/* The roots given by id so far, by node (those of no object dropped). */
static void resolve_roots(struct heap_builder *b)
{
	size_t k = 0;

	for (size_t i = 0; i < b->nroot; i++) {
		node_t v = hb_find(b, b->root[i].id);
		if (v == HW_NONE) {
			b->lost_roots++;
			continue;
		}
		b->root[k] = b->root[i];
		b->root[k++].id = v;
	}
	b->nroot = k;
}

/* ---- hb_finish ---- */

/* perm (nodes) by their ids, stably, so that of an id given twice the
 * first stays first: a radix sort, 16 bits a pass over the bits where
 * the ids differ (addresses: three passes or fewer), the other pass's
 * order in `other` (n nodes). The counts of every pass's digits are
 * taken in one read of the ids (they do not depend on the order): the
 * passes after the first read them in an order at random. */
static void radix_by_id(struct heap_builder *b, const uint64_t *id, node_t *perm, node_t *other, node_t n)
{
	enum { BITS = 16, NB = 1 << BITS };
	uint64_t diff = 0;

	for (node_t i = 1; i < n; i++)
		diff |= id[perm[i]] ^ id[perm[0]];
	if (diff == 0)
		return;
	unsigned lo = (unsigned)__builtin_ctzll(diff), hi = 64 - (unsigned)__builtin_clzll(diff);
	unsigned passes = (hi - lo + BITS - 1) / BITS;
	node_t *cnt = xcalloc((size_t)passes * NB, sizeof *cnt);
	node_t *a = perm, *c = other;
	own(b, 0, (size_t)passes * NB * sizeof *cnt);
	for (node_t i = 0; i < n; i++) {
		uint64_t x = id[a[i]] >> lo;
		for (unsigned p = 0; p < passes; p++, x >>= BITS)
			cnt[(size_t)p * NB + (x & (NB - 1))]++;
	}
	for (unsigned p = 0; p < passes; p++) {
		node_t *pc = cnt + (size_t)p * NB;
		unsigned shift = lo + p * BITS;
		for (size_t k = 0, sum = 0; k < NB; k++) {
			node_t m = pc[k];
			pc[k] = (node_t)sum;
			sum += m;
		}
		for (node_t i = 0; i < n; i++)
			c[pc[(id[a[i]] >> shift) & (NB - 1)]++] = a[i];
		node_t *t = a;
		a = c;
		c = t;
	}
	if (a != perm)
		memcpy(perm, a, (size_t)n * sizeof *perm);
	free(cnt);
	own(b, (size_t)passes * NB * sizeof *cnt, 0);
}

enum { MAXRUNS = 64 }; /* runs of ascending ids merged; more: sorted */

/* Runs [at, end) of ascending ids whose spans do not overlap (regions
 * of a heap, each walked by address, in any order): perm is the runs
 * one after the other, by their first ids. 0 if they overlap. */
static int disjoint_runs(const uint64_t *id, node_t *perm, const node_t *at, const node_t *end, size_t nruns)
{
	size_t order[MAXRUNS], k = 0;

	for (size_t r = 0; r < nruns; r++) { /* by first id: an insertion */
		size_t j = r;
		for (; j > 0 && id[at[order[j - 1]]] > id[at[r]]; j--)
			order[j] = order[j - 1];
		order[j] = r;
	}
	for (size_t j = 1; j < nruns; j++)
		if (id[end[order[j - 1]] - 1] >= id[at[order[j]]])
			return 0;
	for (size_t j = 0; j < nruns; j++)
		for (node_t v = at[order[j]]; v < end[order[j]]; v++)
			perm[k++] = v;
	return 1;
}

/* Run r's head before run s's: the lesser id, of equal ids the earlier
 * run's (the sort is stable). */
static inline int head_before(const uint64_t *id, const node_t *at, size_t r, size_t s)
{
	return id[at[r]] < id[at[s]] || (id[at[r]] == id[at[s]] && r < s);
}

/* The heap hp[0..nh) of runs by their heads, mended down from i. */
static void sift(const uint64_t *id, const node_t *at, size_t *hp, size_t nh, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		if (l < nh && head_before(id, at, hp[l], hp[m]))
			m = l;
		if (l + 1 < nh && head_before(id, at, hp[l + 1], hp[m]))
			m = l + 1;
		if (m == i)
			return;
		size_t t = hp[i];
		hp[i] = hp[m];
		hp[m] = t;
		i = m;
	}
}

/* The ascending runs of ids among the nodes 1..n as given: the first
 * node of each (at) and past its last (end); n of them, 0 when there
 * are more than MAXRUNS. */
struct runs { node_t at[MAXRUNS], end[MAXRUNS]; size_t n; };

static void find_runs(const uint64_t *id, node_t n, struct runs *r)
{
	r->n = 0;
	for (node_t v = 1; v <= n; v++)
		if (v == 1 || id[v - 1] > id[v]) {
			if (r->n == MAXRUNS) {
				r->n = 0;
				return;
			}
			r->at[r->n++] = v;
		}
	for (size_t k = 0; k < r->n; k++)
		r->end[k] = k + 1 < r->n ? r->at[k + 1] : n + 1;
}

/* The runs merged through a heap of their heads, each run taken up to
 * the next head (of equal ids, the earlier run's first): perm[i], the
 * node at place i, all n of them; or, perm NULL, only the nodes not at
 * their place (i + 1) into b->moved, by place, 0 once there are more
 * than cap of them (else 1). The runs' heads (ru->at) move on. */
static int merge_heads(struct heap_builder *b, const uint64_t *id, struct runs *ru, node_t n, node_t *perm,
		       size_t cap)
{
	node_t *at = ru->at;
	const node_t *end = ru->end;
	size_t nruns = ru->n, hp[MAXRUNS], nh = nruns; /* the runs, a min-heap by their heads */

	for (size_t r = 0; r < nruns; r++)
		hp[r] = r;
	for (size_t r = nruns / 2; r-- > 0;)
		sift(id, at, hp, nh, r);
	for (node_t i = 0; i < n;) {
		size_t r = hp[0], next = nh < 2 ? SIZE_MAX : nh < 3 || head_before(id, at, hp[1], hp[2]) ? hp[1] : hp[2];
		do {
			node_t v = at[r]++;
			if (perm != NULL) {
				perm[i] = v;
			} else if (v != i + 1) {
				if (b->nmoved == cap)
					return 0;
				OWN_GROW(b, b->moved, b->nmoved, b->cmoved);
				b->moved[b->nmoved++] = (struct hb_moved){ i, v };
			}
			i++;
		} while (at[r] < end[r] && (next == SIZE_MAX || head_before(id, at, r, next)));
		if (at[r] == end[r]) /* run r done */
			hp[0] = hp[--nh];
		sift(id, at, hp, nh, 0);
	}
	return 1;
}

/* perm (the nodes 1..n as given) by their ids, stably, when they came
 * in at most MAXRUNS ascending runs ru (V8 writes its nodes in a few; a
 * runtime walks its heap region by region): runs that do not overlap
 * put one after the other (2: every node may move), else merged
 * (merge_heads; 1: most stay in order). 0, perm untouched, when there
 * are more runs. */
static int merge_runs(struct heap_builder *b, const uint64_t *id, node_t *perm, node_t n, struct runs *ru)
{
	if (ru->n == 0)
		return 0;
	if (disjoint_runs(id, perm, ru->at, ru->end, ru->n))
		return 2;
	return merge_heads(b, id, ru, n, perm, 0);
}

static int cmp_big(const void *x, const void *y)
{
	const struct big *a = x, *c = y;

	return a->at < c->at ? -1 : a->at > c->at;
}

/* The sizes past 32 bits, at their nodes by id: perm[i] is node i + 1's
 * place as given. */
static void big_moved(struct heap_builder *b, const node_t *perm, node_t n)
{
	struct big *to = xmalloc((b->nbig + 1) * sizeof *to);
	size_t k = 0;

	hw_qsort(b->big, b->nbig, sizeof *b->big, cmp_big);
	for (node_t i = 0; i < n; i++) {
		if (b->h->node_shallow[i + 1] != UINT32_MAX)
			continue;
		size_t lo = lower_bound_u64s(b->big, b->nbig, sizeof *b->big, perm[i]);
		if (lo < b->nbig && b->big[lo].at == perm[i])
			to[k++] = (struct big){ (uint64_t)i + 1, b->big[lo].size };
	}
	free(b->big);
	b->big = to;
	b->nbig = k;
}

/* Room for each object's node as given (HB_PLACES, HB_GIVEN_NODES),
 * and one more. */
static void given_room(struct heap_builder *b, node_t n)
{
	b->ngiven = (size_t)n + 1;
	b->given = xmalloc_whole(b->ngiven * sizeof *b->given); /* every node's place written */
	own(b, 0, b->ngiven * sizeof *b->given);
}

/* A chunk of the id space in place_by_bitmap: 2^16 slots, 1024 blocks. */
#define CHUNK_BITS 16

/* perm: the n nodes as given (1..n) in id order, each node put at its
 * place at once, where every id is given once and the ids lie close
 * (addresses: objects side by side in the heap's regions): a bitmap of
 * the slots (2^slot bytes, their common alignment) that hold an id, in
 * chunks of 2^CHUNK_BITS slots, made only for the chunks that hold one
 * (the regions, not the gaps between them); a node's place is the count
 * of the ids below its own, the bits before it. Reads the ids in order
 * only: the radix sort's later passes read them at random. 0, or -1
 * (perm untouched) where an id is given twice, the chunks number more
 * than one per 8 nodes and 4096, or their bitmaps would take more than
 * 4 bytes a node and 64 KiB (then the radix sort). */
static int place_by_bitmap(struct heap_builder *b, const uint64_t *id, node_t *perm, node_t n)
{
	uint64_t mn = UINT64_MAX, mx = 0, all = 0;

	for (node_t v = 1; v <= n; v++) {
		mn = id[v] < mn ? id[v] : mn;
		mx = id[v] > mx ? id[v] : mx;
		all |= id[v] - id[1];
	}
	if (n < 2 || all == 0)
		return -1;
	unsigned slot = (unsigned)__builtin_ctzll(all);
	uint64_t nchunk = (((mx - mn) >> slot) >> CHUNK_BITS) + 1;
	if (nchunk > (uint64_t)n / 8 + 4096)
		return -1;
	uint32_t *dir = xcalloc((size_t)nchunk, sizeof *dir); /* chunk: 1 + its blocks' index, 0: none */
	size_t dir_bytes = (size_t)nchunk * sizeof *dir;
	own(b, 0, dir_bytes);
	for (node_t v = 1; v <= n; v++)
		dir[((id[v] - mn) >> slot) >> CHUNK_BITS] = 1;
	uint64_t used = 0;
	for (uint64_t c = 0; c < nchunk; c++) /* in the ids' order: the ranks follow it */
		if (dir[c] != 0)
			dir[c] = (uint32_t)++used;
	const uint64_t per = (uint64_t)1 << (CHUNK_BITS - 6);
	struct idblk *blk = NULL;
	size_t blk_bytes = (size_t)(used * per) * sizeof *blk;
	int rc = -1;
	if (used * per * sizeof *blk > (uint64_t)n * 4 + 65536)
		goto out;
	blk = xcalloc_whole((size_t)(used * per), sizeof *blk); /* every block's rank written */
	own(b, 0, blk_bytes);
	for (node_t v = 1; v <= n; v++) {
		uint64_t k = (id[v] - mn) >> slot;
		struct idblk *bk = &blk[(dir[k >> CHUNK_BITS] - 1) * per + ((k & (((uint64_t)1 << CHUNK_BITS) - 1)) >> 6)];
		uint64_t bit = (uint64_t)1 << (k & 63);
		if (bk->bits & bit) /* given twice: the radix sort keeps the first first */
			goto out;
		bk->bits |= bit;
	}
	uint64_t r = 0;
	for (uint64_t i = 0; i < used * per; i++) {
		blk[i].rank = r;
		r += idindex_bits(blk[i].bits);
	}
	for (node_t v = 1; v <= n; v++) {
		uint64_t k = (id[v] - mn) >> slot;
		const struct idblk *bk = &blk[(dir[k >> CHUNK_BITS] - 1) * per + ((k & (((uint64_t)1 << CHUNK_BITS) - 1)) >> 6)];
		perm[bk->rank + idindex_bits(bk->bits & (((uint64_t)1 << (k & 63)) - 1))] = v;
	}
	rc = 0;
out:
	free(dir);
	own(b, dir_bytes, 0);
	if (blk != NULL) {
		free(blk);
		own(b, blk_bytes, 0);
	}
	return rc;
}

/* perm: the n nodes as given (1..n) in id order, stably: merged when
 * they came in a few ascending runs ru (merge_runs: 1 when most stay in
 * order), else each put at its place by a bitmap of the ids
 * (place_by_bitmap) or sorted by radix (0), the other pass's order in
 * work's first n words (order_nodes' room, which the copy reuses). */
static int sort_by_id(struct heap_builder *b, const uint64_t *id, node_t *perm, node_t *work, node_t n,
		      struct runs *ru)
{
	int merged = merge_runs(b, id, perm, n, ru);

	if (merged > 0)
		return merged == 1;
	if (place_by_bitmap(b, id, perm, n) == 0)
		return 0;
	for (node_t i = 0; i < n; i++)
		perm[i] = i + 1;
	radix_by_id(b, id, perm, work, n);
	return 0;
}

/* Node `from`'s arrays to node `to`'s. */
static void move_node(struct heap *h, node_t to, node_t from)
{
	h->node_id[to] = h->node_id[from];
	h->node_class[to] = h->node_class[from];
	h->node_shallow[to] = h->node_shallow[from];
	h->node_kind[to] = h->node_kind[from];
}

/* The node arrays in perm's order (node i + 1 is the one given at
 * perm[i]), a permutation of all n: moved along its cycles, in place,
 * the first of each held in node 0 (the virtual root's, put back). The
 * few pages of `done` are a mapping of their own, as perm's: a
 * temporary array of malloc's would leave a hole among the heap's. */
static void permute_cycles(struct heap_builder *b, const node_t *perm, node_t n)
{
	struct heap *h = b->h;
	size_t words = ((size_t)n + 64) / 64;
	uint64_t *done = big_alloc(words * sizeof *done); /* zeroed */

	own(b, 0, words * sizeof *done);
	for (node_t i = 0; i < n; i++) {
		if (perm[i] == i + 1 || (done[i / 64] >> (i % 64) & 1))
			continue;
		move_node(h, 0, i + 1);
		for (node_t j = i;;) {
			node_t from = perm[j];
			done[j / 64] |= 1ull << (j % 64);
			move_node(h, j + 1, from == i + 1 ? 0 : from);
			if (from == i + 1)
				break;
			j = from - 1;
		}
	}
	root_node(h);
	big_free(done, words * sizeof *done);
	own(b, words * sizeof *done, 0);
}

/* b->moved's entry of place i (0 for node 1), nmoved if i is not there */
static size_t moved_at(const struct heap_builder *b, node_t i)
{
	size_t k = lower_bound_u32s(b->moved, b->nmoved, sizeof *b->moved, i);

	return k < b->nmoved && b->moved[k].at == i ? k : b->nmoved;
}

static int cmp_moved_from(const void *x, const void *y)
{
	const struct hb_moved *a = x, *c = y;

	return a->from < c->from ? -1 : a->from > c->from;
}

/* The sizes past 32 bits at their nodes' places once b->moved's moved:
 * the places they came from looked up among the entries by from. */
static void big_moved_few(struct heap_builder *b)
{
	size_t nm = b->nmoved;
	struct hb_moved *by_from = xmalloc((nm + 1) * sizeof *by_from);

	memcpy(by_from, b->moved, nm * sizeof *by_from);
	hw_qsort(by_from, nm, sizeof *by_from, cmp_moved_from);
	for (size_t i = 0; i < b->nbig; i++) {
		size_t k = lower_bound_u32s(&by_from[0].from, nm, sizeof *by_from, (uint32_t)b->big[i].at);
		if (k < nm && by_from[k].from == b->big[i].at)
			b->big[i].at = (uint64_t)by_from[k].at + 1;
	}
	free(by_from);
	hw_qsort(b->big, b->nbig, sizeof *b->big, cmp_big);
}

/* The n nodes by id when they came almost ascending (V8's snapshots:
 * ascending but for a few dozen nodes): merged as merge_runs would, but
 * only the nodes that move kept (b->moved), n / 32 of them at most, and
 * moved along their cycles as permute_cycles does: no permutation of
 * all n nodes, whose 4 bytes a node were the builder's peak beside the
 * node arrays. Every node kept (an id given twice: with HB_TWICE). 0,
 * nothing changed (b->moved empty), when the ids are not so. ru: the
 * runs of the ids as given (find_runs). */
static int order_few_moved(struct heap_builder *b, node_t n, const struct runs *ru)
{
	struct heap *h = b->h;
	const uint64_t *id = h->node_id;
	struct runs heads = *ru; /* merge_heads moves them on: ru is the sort's after it */
	uint64_t twice = 0;

	if (ru->n == 0 || !merge_heads(b, id, &heads, n, NULL, n / 32))
		goto not;
	for (node_t i = 1, c = 0, last = 0; i <= n; i++) { /* the ids given twice, in the new order */
		node_t v = c < b->nmoved && b->moved[c].at == i - 1 ? b->moved[c++].from : i;
		twice += i > 1 && id[v] == id[last];
		last = v;
	}
	if (twice > 0 && !(b->flags & HB_TWICE))
		goto not;
	b->dup_ids += twice;
	if (b->nbig > 0 && b->nmoved > 0) /* none moved: the big sizes stay where they are */
		big_moved_few(b);
	uint8_t *done = xcalloc(b->nmoved + 1, 1);
	own(b, 0, b->nmoved + 1);
	for (size_t e = 0; e < b->nmoved; e++) {
		if (done[e])
			continue;
		node_t first = b->moved[e].at + 1;
		move_node(h, 0, first);
		for (size_t f = e;;) {
			node_t from = b->moved[f].from;
			done[f] = 1;
			move_node(h, b->moved[f].at + 1, from == first ? 0 : from);
			if (from == first)
				break;
			if ((f = moved_at(b, from - 1)) == b->nmoved)
				hw_fatal("order_few_moved: no cycle"); /* the builder's bug */
		}
	}
	root_node(h);
	free(done);
	own(b, b->nmoved + 1, 0);
	return 1;
not:
	free(b->moved);
	own(b, b->cmoved * sizeof *b->moved, 0);
	b->moved = NULL;
	b->nmoved = b->cmoved = 0;
	return 0;
}

#define PERMUTE(h, arr, type, perm, n, tmp) do { \
	type *t_ = (void *)(tmp); \
	for (node_t i_ = 0; i_ < (n); i_++) \
		t_[i_] = (h)->arr[(perm)[i_]]; \
	memcpy((h)->arr + 1, t_, (size_t)(n) * sizeof *t_); \
} while (0)

/* The ids in perm's order (k of them) through tmp, perm kept: each
 * one's low half in tmp's first 4 bytes a node and its high half as a
 * byte after them, an index into the high halves met (addresses lie in
 * a few 4 GB windows; V8's ids in one): 5 bytes a node of tmp touched,
 * not 8, at the sort's peak. 0, or -1 (the ids untouched) when the
 * high halves take more than 256 values. */
static int permute_ids_split(struct heap *h, const node_t *perm, node_t k, void *tmp)
{
	uint32_t *lo = tmp;
	uint8_t *hix = (uint8_t *)(lo + k);
	uint64_t his[256];
	unsigned nhis = 0, last = 0;

	for (node_t i = 0; i < k; i++) {
		uint64_t id = h->node_id[perm[i]], hi = id >> 32;
		if (nhis == 0 || his[last] != hi) {
			unsigned j = 0;
			while (j < nhis && his[j] != hi)
				j++;
			if (j == nhis) {
				if (nhis == 256)
					return -1;
				his[nhis++] = hi;
			}
			last = j;
		}
		lo[i] = (uint32_t)id;
		hix[i] = (uint8_t)last;
	}
	for (node_t i = 0; i < k; i++)
		h->node_id[i + 1] = his[hix[i]] << 32 | lo[i];
	return 0;
}

/* The kept nodes (k of the n given) in perm's order, ids given twice
 * left out: through a copy in tmp, one array after another (faster
 * than the cycles when most nodes move). Unless keep (perm is read
 * after), the copy is of 4 bytes a node, not 8 (the sort's peak: perm
 * and it): the ids' high halves go over perm, each read once, at its
 * own place; with keep, of 5 bytes where it can (permute_ids_split). */
static void permute_kept(struct heap_builder *b, node_t *perm, node_t k, int keep, void *tmp)
{
	struct heap *h = b->h;

	PERMUTE(h, node_class, uint32_t, perm, k, tmp);
	PERMUTE(h, node_shallow, uint32_t, perm, k, tmp);
	PERMUTE(h, node_kind, uint8_t, perm, k, tmp);
	if (keep) {
		if (permute_ids_split(h, perm, k, tmp) != 0)
			PERMUTE(h, node_id, uint64_t, perm, k, tmp);
	} else { /* the ids last: perm is gone after them */
		uint32_t *lo = tmp;
		for (node_t i = 0; i < k; i++) {
			uint64_t id = h->node_id[perm[i]];
			lo[i] = (uint32_t)id;
			perm[i] = (node_t)(id >> 32);
		}
		for (node_t i = 0; i < k; i++)
			h->node_id[i + 1] = (uint64_t)perm[i] << 32 | lo[i];
	}
}

/* The counts given with the objects (hb_object_refs), the n nodes in
 * the order given (ids ascending), counted in h->out_start. */
static void refs_given(struct heap_builder *b, node_t n)
{
	struct heap *h = b->h;

	if (b->given_refs == NULL)
		return;
	h->out_start = xmalloc(((size_t)n + 2) * sizeof *h->out_start);
	memcpy(h->out_start, b->given_refs, ((size_t)n + 1) * sizeof *h->out_start);
	h->out_start[0] = h->out_start[n + 1] = 0;
	big_free(b->given_refs, b->cap * sizeof *b->given_refs);
	own(b, b->cap * sizeof *b->given_refs, 0);
	b->given_refs = NULL;
}

/* perm (node i + 1 is the one given at perm[i], all n of them) made its
 * inverse in place, cycle by cycle: perm[j] is then the node of the
 * object given at place j + 1. */
static void invert(struct heap_builder *b, node_t *perm, node_t n)
{
	size_t words = ((size_t)n + 64) / 64;
	uint64_t *done = big_alloc(words * sizeof *done); /* zeroed */

	own(b, 0, words * sizeof *done);
	for (node_t i = 0; i < n; i++) {
		if (done[i / 64] >> (i % 64) & 1)
			continue;
		node_t prev = i, cur = perm[i] - 1;
		for (;;) {
			node_t next = perm[cur] - 1;
			perm[cur] = prev + 1;
			done[cur / 64] |= 1ull << (cur % 64);
			if (cur == i)
				break;
			prev = cur;
			cur = next;
		}
	}
	big_free(done, words * sizeof *done);
	own(b, words * sizeof *done, 0);
}

/* Nodes by ascending id, each id once (or as given, HB_TWICE): sorted
 * only when they did not come so. */
static void order_nodes(struct heap_builder *b)
{
	struct heap *h = b->h;
	node_t n = b->n, k = 0;

	if (b->ascending) { /* each object's node as given: places_made */
		refs_given(b, n);
		return;
	}
	struct runs ru;
	find_runs(h->node_id, n, &ru);
	if (order_few_moved(b, n, &ru))
		return;
	/* not malloc's: no hole left; but where each object's node as given
	 * is wanted (HB_PLACES, HB_GIVEN_NODES) it becomes those */
	int want_given = (b->flags & (HB_PLACES | HB_GIVEN_NODES)) != 0;
	node_t *perm = want_given ? xmalloc_whole(((size_t)n + 1) * sizeof *perm)
				  : big_alloc(((size_t)n + 1) * sizeof *perm);
	own(b, 0, ((size_t)n + 1) * sizeof *perm);
	/* One room for the sort's other order (its first n words) and then
	 * the copy (permute_kept), and for .NET's places after them: the
	 * pages each of them would map and the kernel zero anew are touched
	 * once (on a 5 M-object .gcdump, 40 MB of 100 fewer). Each is used
	 * once the one before is done, and its pages are touched no earlier
	 * than theirs were: the peak is as it was. As .NET's places it is
	 * malloc's (shrunk in place); else mapped, as perm. */
	int keep = b->nbig > 0 || want_given;
	int work_given = (b->flags & HB_GIVEN_NODES) && !(b->flags & HB_PLACES);
	size_t wb = ((size_t)n + 1) * (keep ? sizeof(uint64_t) : sizeof(uint32_t));
	void *work = work_given ? xmalloc(wb) : big_alloc(wb);
	own(b, 0, wb);
	int merged = sort_by_id(b, h->node_id, perm, work, n, &ru);
	struct hb_dup { node_t place, node; } *dup = NULL; /* ids given twice, left out */
	size_t ndup = 0, cdup = 0;
	for (node_t i = 0; i < n; i++) { /* an id given twice: the first (or both, HB_TWICE) */
		node_t p = perm[i];
		int twice = k > 0 && h->node_id[perm[k - 1]] == h->node_id[p];
		b->dup_ids += twice;
		if (!twice || (b->flags & HB_TWICE)) {
			perm[k++] = p;
		} else if (want_given) {
			OWN_GROW(b, dup, ndup, cdup);
			dup[ndup++] = (struct hb_dup){ p, k }; /* the kept one's */
		}
	}
	node_t moved = 0; /* merged runs may still move most nodes (regions interleaved) */
	for (node_t i = 0; i < k && merged; i++)
		moved += perm[i] != i + 1;
	if (k == n && merged && moved < n / 2) /* most in place already */
		permute_cycles(b, perm, n);
	else /* perm is read after it by big_moved, and becomes the places */
		permute_kept(b, perm, k, keep, work);
	if (b->nbig > 0)
		big_moved(b, perm, k);
	b->n = k;
	if (work_given) { /* the places: in the room's first n + 1 words */
		b->ngiven = (size_t)n + 1;
		b->given = xreallocarray(work, b->ngiven, sizeof *b->given);
		own(b, wb, b->ngiven * sizeof *b->given);
	} else {
		big_free(work, wb);
		own(b, wb, 0);
	}
	/* every object kept (k == n), V8's order (HB_PLACES): perm's inverse,
	 * in its room (4 bytes a node less at the peak). Not for .NET's
	 * (HB_GIVEN_NODES): its objects come in another order, where the
	 * inversion's walk of cycles, one miss after another, took 15% of a
	 * 5 M-object .gcdump's open; there the scatter below does it, once
	 * the permutation's copy is gone */
	if ((b->flags & HB_PLACES) && ndup == 0) {
		invert(b, perm, n);
		b->given = perm;
		b->ngiven = (size_t)n + 1;
		return;
	}
	if (want_given) { /* once the permutation's copy is gone: not beside it at the peak */
		if (b->given == NULL)
			given_room(b, n);
		for (node_t i = 0; i < k; i++)
			b->given[perm[i] - 1] = i + 1;
		for (size_t i = 0; i < ndup; i++)
			b->given[dup[i].place - 1] = dup[i].node;
		free(perm);
	} else {
		big_free(perm, ((size_t)n + 1) * sizeof *perm);
	}
	own(b, ((size_t)n + 1) * sizeof *perm, 0);
	free(dup);
	own(b, cdup * sizeof *dup, 0);
}

/* Each object's node as given (HB_PLACES, HB_GIVEN_NODES) where the
 * nodes needed no permutation of them all: in place but for b->moved's.
 * Made once the node arrays are parked, not beside them at the peak. */
static void places_made(struct heap_builder *b)
{
	if (b->given == NULL && (b->flags & (HB_PLACES | HB_GIVEN_NODES))) {
		given_room(b, b->n);
		for (node_t i = 0; i < b->n; i++)
			b->given[i] = i + 1;
		for (size_t e = 0; e < b->nmoved; e++)
			b->given[b->moved[e].from - 1] = b->moved[e].at + 1;
	}
	free(b->moved);
	own(b, b->cmoved * sizeof *b->moved, 0);
	b->moved = NULL;
	b->nmoved = b->cmoved = 0;
}

/* HB_DISJOINT: each node's size cut to the room before the next one's
 * id (the last's, before the end of the address space); the sizes
 * past 32 bits that remain so kept, in node order. */
static void bound_sizes(struct heap_builder *b)
{
	struct heap *h = b->h;
	size_t bi = 0, k = 0;

	for (node_t v = 1; v <= b->n; v++) {
		uint64_t room = v < b->n ? h->node_id[v + 1] - h->node_id[v] : UINT64_MAX - h->node_id[v];
		uint64_t size = h->node_shallow[v];
		for (; bi < b->nbig && b->big[bi].at < v; bi++)
			;
		if (bi < b->nbig && b->big[bi].at == v)
			size = b->big[bi].size;
		if (size > room) {
			size = room;
			b->cut_sizes++;
		}
		h->node_shallow[v] = size > UINT32_MAX ? UINT32_MAX : (uint32_t)size;
		if (size >= UINT32_MAX)
			b->big[k++] = (struct big){ v, size };
	}
	b->nbig = k;
}

/* Types into classes by name, numbered by their first object; the
 * classes' and the heap's totals. */
static void make_classes(struct heap_builder *b)
{
	struct heap *h = b->h;
	struct class_names cn = { 0 };
	uint32_t *cls = xmalloc(((size_t)b->nty + 1) * sizeof *cls);
	size_t bi = 0;

	own(b, 0, ((size_t)b->nty + 1) * sizeof *cls);
	memset(cls, 0xff, ((size_t)b->nty + 1) * sizeof *cls);
	for (node_t v = 1; v < h->n; v++) {
		uint32_t t = h->node_class[v];
		if (cls[t] == HW_NONE) {
			cls[t] = class_by_name(h, &cn, b->ty[t].name, b->ty[t].id);
			if (h->cls[cls[t]].qual == 0)
				h->cls[cls[t]].qual = b->ty[t].qual;
			if (h->cls[cls[t]].key == 0)
				h->cls[cls[t]].key = b->ty[t].key;
		}
		uint64_t size = h->node_shallow[v];
		for (; bi < b->nbig && b->big[bi].at < v; bi++)
			;
		if (bi < b->nbig && b->big[bi].at == v)
			size = b->big[bi].size;
		h->node_class[v] = cls[t];
		h->cls[cls[t]].count++;
		h->cls[cls[t]].shallow_total += size;
		h->total_shallow += size;
	}
	class_names_free(&cn);
	free(cls);
	own(b, ((size_t)b->nty + 1) * sizeof *cls, 0);
}

/* The references given by id so far, resolved: each (source, target)
 * node pair a key, written over the pair of ids it was made from. */
static void resolve_refs(struct heap_builder *b)
{
	uint64_t *key = (uint64_t *)b->ref;
	uint32_t *label = b->flags & HB_LABELS ? b->label : NULL;
	size_t k = 0;

	for (size_t i = 0; i < b->nref; i++) {
		node_t s = source_node(b, b->ref[i].from), t = node_of(b, b->ref[i].to);
		if (s == HW_NONE || t == HW_NONE) {
			b->dangling++;
			continue;
		}
		if (label != NULL)
			label[k] = label[i];
		key[k++] = (uint64_t)s << 32 | t;
	}
	b->key = b->cref > 0 ? xreallocarray(b->ref, b->cref, sizeof *b->key) : NULL; /* 16 bytes become 8 */
	own(b, b->cref * sizeof *b->ref, b->cref * sizeof *b->key);
	b->nkey = k;
	b->ckey = b->cref; /* the labels' room too */
	b->ref = NULL;
	b->nref = b->cref = 0;
}

#define SMALL_RUN 32 /* targets of a run, up to which it is sorted in place */

/* A run of m targets (and their labels) ascending by target, equal
 * ones as they came: in place when short, else as pairs (target << 32
 * | place) in scratch, the labels moved through lt. */
static void sort_run_given(node_t *to, uint32_t *label, edge_t m, uint64_t *scratch, uint32_t *lt)
{
	edge_t i = 1;

	while (i < m && to[i - 1] <= to[i])
		i++;
	if (i >= m)
		return;
	if (m <= SMALL_RUN) {
		for (; i < m; i++) {
			node_t t = to[i];
			uint32_t l = label[i];
			edge_t j = i;
			for (; j > 0 && to[j - 1] > t; j--) {
				to[j] = to[j - 1];
				label[j] = label[j - 1];
			}
			to[j] = t;
			label[j] = l;
		}
		return;
	}
	for (i = 0; i < m; i++)
		scratch[i] = (uint64_t)to[i] << 32 | i;
	sort_u64(scratch, m);
	for (i = 0; i < m; i++) {
		to[i] = (node_t)(scratch[i] >> 32);
		lt[i] = label[(uint32_t)scratch[i]];
	}
	memcpy(label, lt, (size_t)m * sizeof *lt);
}

/* A run of m targets (and labels) ascending: by label after the target
 * (pairs (target << 32 | label) sorted), or as given (HB_GIVEN); the
 * room to sort in grown as needed. */
static void sort_run(struct heap_builder *b, node_t *to, uint32_t *label, edge_t m, uint64_t **scratch, uint32_t **lt,
		     size_t *cap)
{
	if (m < 2)
		return;
	if (label == NULL) {
		if (m == 2) { /* the commonest list to sort: a swap at most */
			if (to[0] > to[1]) {
				node_t t = to[0];
				to[0] = to[1];
				to[1] = t;
			}
		} else {
			sort_u32(to, m);
		}
		return;
	}
	if (m > *cap) {
		*cap = m;
		*scratch = xreallocarray(*scratch, *cap, sizeof **scratch);
		if (b->flags & HB_GIVEN)
			*lt = xreallocarray(*lt, *cap, sizeof **lt);
	}
	if (b->flags & HB_GIVEN) {
		sort_run_given(to, label, m, *scratch, *lt);
		return;
	}
	for (edge_t i = 0; i < m; i++)
		(*scratch)[i] = (uint64_t)to[i] << 32 | label[i];
	sort_u64(*scratch, m);
	for (edge_t i = 0; i < m; i++) {
		to[i] = (node_t)((*scratch)[i] >> 32);
		label[i] = (uint32_t)(*scratch)[i];
	}
}

/* Each node's run of targets (and labels) ascending (sort_run). */
static void sort_runs(struct heap_builder *b, uint32_t *label)
{
	struct heap *h = b->h;
	uint64_t *scratch = NULL;
	uint32_t *lt = NULL;
	size_t cap = 0;

	for (node_t v = 1; v < h->n; v++) {
		edge_t lo = h->out_start[v];
		sort_run(b, h->out + lo, label != NULL ? label + lo : NULL, h->out_start[v + 1] - lo, &scratch, &lt, &cap);
	}
	free(scratch);
	free(lt);
}

/* The keys as CSR: counted by source, placed, each node's run sorted
 * (no sort of them all: linear, whatever order they came in). */
static void make_refs(struct heap_builder *b)
{
	struct heap *h = b->h;
	uint64_t *key = b->key;
	uint32_t *label = b->flags & HB_LABELS ? b->label : NULL, *lab = NULL;
	size_t k = b->nkey;

	if (k > (uint64_t)UINT32_MAX - 1) /* edge_t */
		hw_fatal("%s: more than 2^32 references: not supported yet", esc_str(h->path));
	h->out_start = xcalloc((size_t)h->n + 1, sizeof *h->out_start);
	h->out = xmalloc((k + 1) * sizeof *h->out);
	for (size_t e = 0; e < k; e++)
		h->out_start[(key[e] >> 32) + 1]++;
	for (node_t v = 0; v < h->n; v++)
		h->out_start[v + 1] += h->out_start[v];
	if (label != NULL) {
		lab = xmalloc((k + 1) * sizeof *lab);
		own(b, 0, (k + 1) * sizeof *lab);
	}
	for (size_t e = 0; e < k; e++) { /* out_start[v]: v's next place */
		edge_t at = h->out_start[key[e] >> 32]++;
		h->out[at] = (node_t)key[e];
		if (lab != NULL)
			lab[at] = label[e];
	}
	memmove(h->out_start + 1, h->out_start, (size_t)h->n * sizeof *h->out_start);
	h->out_start[0] = 0;
	h->nedges = k;
	if (label != NULL)
		own(b, b->ckey * sizeof *label, 0);
	free(label);
	b->label = NULL;
	b->out_label = lab;
	if (lab != NULL)
		own(b, (k + 1) * sizeof *lab, 0); /* the reader's now */
	free(key);
	own(b, b->ckey * sizeof *b->key, 0);
	b->key = NULL;
	b->nkey = b->ckey = 0;
}

/* The counted references' holes (targets no object has: hb_refs) closed
 * up, their labels' with them, and counted as dangling. */
static void close_holes(struct heap_builder *b)
{
	struct heap *h = b->h;
	uint32_t *label = b->out_label;
	edge_t k = 0, e = 0;

	while (e < h->nedges && h->out[e] != HW_NONE)
		e++;
	if (e == h->nedges)
		return;
	for (node_t v = 0; v < h->n; v++) {
		edge_t lo = h->out_start[v], hi = h->out_start[v + 1];
		h->out_start[v] = k; /* k <= lo: nothing unread is written */
		for (e = lo; e < hi; e++) {
			if (h->out[e] == HW_NONE)
				continue;
			if (label != NULL)
				label[k] = label[e];
			h->out[k++] = h->out[e];
		}
	}
	h->out_start[h->n] = k;
	b->dangling += h->nedges - k;
	h->nedges = k;
	h->out = xreallocarray(h->out, (size_t)k + 1, sizeof *h->out);
	if (label != NULL)
		b->out_label = xreallocarray(label, (size_t)k + 1, sizeof *label);
}

/* The references counted first, all placed: each node's start back. */
static void counted_refs(struct heap_builder *b)
{
	struct heap *h = b->h;

	if (b->counted == 1)
		counted_room(b);
	if (b->runs.on)
		runs_end(b);
	if (b->placed != h->nedges)
		hw_fatal("hb_refs_room: fewer references than counted"); /* a reader's bug */
	memmove(h->out_start + 1, h->out_start, (size_t)h->n * sizeof *h->out_start);
	h->out_start[0] = 0;
	close_holes(b);
}

static int cmp_weak(const void *x, const void *y, void *by_label)
{
	const struct hb_weak *a = x, *c = y;

	if (a->from != c->from)
		return a->from < c->from ? -1 : 1;
	if (a->to != c->to)
		return a->to < c->to ? -1 : 1;
	return by_label == NULL ? 0 : a->label < c->label ? -1 : a->label > c->label;
}

/* The weak references into the heap's weak_* (sorted stably). */
static void make_weak(struct heap_builder *b)
{
	struct heap *h = b->h;
	size_t n = b->nweak;

	hw_merge_sort(b->weak, n, sizeof *b->weak, cmp_weak, b->flags & HB_GIVEN ? NULL : b);
	h->nweak = n;
	h->weak_src = xmalloc((n + 1) * sizeof *h->weak_src);
	h->weak_dst = xmalloc((n + 1) * sizeof *h->weak_dst);
	h->weak_rule = xmalloc((n + 1) * sizeof *h->weak_rule);
	if (b->flags & HB_LABELS)
		b->weak_label = xmalloc((n + 1) * sizeof *b->weak_label); /* the reader's */
	for (size_t i = 0; i < n; i++) {
		h->weak_src[i] = b->weak[i].from;
		h->weak_dst[i] = b->weak[i].to;
		h->weak_rule[i] = WEAK_BUILTIN;
		if (b->weak_label != NULL)
			b->weak_label[i] = b->weak[i].label;
	}
	free(b->weak);
	own(b, b->cweak * sizeof *b->weak, 0);
	b->weak = NULL;
	b->nweak = b->cweak = 0;
}

static int cmp_hbroot(const void *x, const void *y)
{
	const struct hb_root *a = x, *c = y;

	if (a->id != c->id)
		return a->id < c->id ? -1 : 1;
	if (a->kind != c->kind)
		return a->kind < c->kind ? -1 : 1;
	if (a->native != c->native)
		return a->native < c->native ? -1 : 1;
	return a->detail < c->detail ? -1 : a->detail > c->detail;
}

/* Root records: by node, kind and native kind, each once (the least
 * detail of a pair given twice, whatever the order given). */
static void make_roots(struct heap_builder *b)
{
	struct heap *h = b->h;

	hw_qsort(b->root, b->nroot, sizeof *b->root, cmp_hbroot);
	h->root_rec = xmalloc((b->nroot + 1) * sizeof *h->root_rec);
	for (size_t i = 0; i < b->nroot; i++) {
		const struct hb_root *r = &b->root[i];
		node_t v = (node_t)r->id;
		if (h->nroot_rec == 0 || h->root_rec[h->nroot_rec - 1].node != v ||
			 h->root_rec[h->nroot_rec - 1].kind != r->kind || h->root_rec[h->nroot_rec - 1].native != r->native)
			h->root_rec[h->nroot_rec++] = (struct root){ v, r->kind, r->native, 0, r->detail, HW_NONE };
		else if (h->root_rec[h->nroot_rec - 1].copies < UINT16_MAX)
			h->root_rec[h->nroot_rec - 1].copies++; /* the file's records all counted */
	}
	heap_roots_unique(h); /* in order and unique already: as every reader's */
	free(b->root);
	own(b, b->croot * sizeof *b->root, 0);
	b->root = NULL;
	b->nroot = b->croot = 0;
}

void hb_nodes_done(struct heap_builder *b)
{
	struct heap *h = b->h;

	if (b->nodes_done)
		return;
	order_nodes(b);
	h->n = b->n + 1;
	node_arrays(b, (size_t)h->n); /* no room left unused */
	if (b->flags & HB_DISJOINT)
		bound_sizes(b);
	if (b->dup_ids > 0 && !(b->flags & HB_TWICE))
		warn_add(&h->warn, "%s: %llu %s", h->path, (unsigned long long)b->dup_ids,
			 b->dup_what != NULL ? b->dup_what
					     : "objects have an id given to an object before; the first of each is kept");
	make_classes(b);
	if (!(b->flags & (HB_PLACES | HB_FEW_FINDS))) {
		idindex_build(&b->ix, h->node_id, h->n);
		own(b, 0, idindex_bytes(&b->ix));
	}
	b->ids_ordered = !(b->flags & HB_PLACES);
	resolve_refs(b);
	resolve_roots(b);
	b->nodes_done = 1;
	/* what the objects are waits on disk (when there is a file behind
	 * h) while the references are made: nothing here reads it again */
	heap_park(h, HP_CLASS | HP_SHALLOW | HP_KIND);
	places_made(b);
}

void hb_finish(struct heap_builder *b)
{
	struct heap *h = b->h;

	hb_nodes_done(b);
	if (b->counted)
		counted_refs(b);
	else
		make_refs(b);
	if (!b->runs.on) /* else each was sorted as it came */
		sort_runs(b, b->out_label);
	h->dangling_refs = b->dangling;
	make_roots(b);
	make_weak(b);
}

node_t hb_find(const struct heap_builder *b, uint64_t id)
{
	return !b->ids_ordered ? HW_NONE : node_of(b, id); /* none before the nodes are done */
}

uint32_t *hb_labels_take(struct heap_builder *b)
{
	uint32_t *l = b->out_label;
	uint64_t held = UINT64_MAX;

	if (b->runs.on) { /* from the chunks, at their places */
		l = xmalloc(((size_t)b->h->nedges + 1) * sizeof *l);
		if (place_window(b, l, 0, b->h->nedges, &held) < 0)
			hw_fatal("%s: cannot read back the references' labels that waited on disk", esc_str(b->h->path));
		runs_free(b);
	}
	b->out_label = NULL;
	return l;
}

uint32_t *hb_weak_labels_take(struct heap_builder *b)
{
	uint32_t *l = b->weak_label;

	b->weak_label = NULL;
	return l;
}

void hb_refs_keep(const struct heap *h, struct hb_refs *r)
{
	if (r->own)
		return; /* the first copy is the one as built */
	r->n = h->nedges;
	r->nweak = h->nweak;
	r->start = xmalloc(((size_t)h->n + 1) * sizeof *r->start);
	memcpy(r->start, h->out_start, ((size_t)h->n + 1) * sizeof *r->start);
	r->to = xmalloc(((size_t)r->n + 1) * sizeof *r->to);
	memcpy(r->to, h->out, (size_t)r->n * sizeof *r->to);
	r->wsrc = xmalloc(((size_t)r->nweak + 1) * sizeof *r->wsrc);
	r->wdst = xmalloc(((size_t)r->nweak + 1) * sizeof *r->wdst);
	if (r->nweak > 0) {
		memcpy(r->wsrc, h->weak_src, (size_t)r->nweak * sizeof *r->wsrc);
		memcpy(r->wdst, h->weak_dst, (size_t)r->nweak * sizeof *r->wdst);
	}
	r->own = 1;
}

void hb_refs_view(const struct heap *h, const struct hb_refs *kept, struct hb_refs *out)
{
	if (kept != NULL && kept->own)
		*out = *kept;
	else
		*out = (struct hb_refs){ h->out_start, h->out, h->weak_src, h->weak_dst, h->nedges, h->nweak, 0 };
}

int64_t hb_refs_find(const struct hb_refs *r, node_t src, node_t dst)
{
	edge_t hi = r->start[src + 1];
	size_t at = lower_bound_u32_range(r->to, sizeof *r->to, r->start[src], hi, dst);

	return at < hi && r->to[at] == dst ? (int64_t)at : -1;
}

uint64_t hb_refs_weak_first(const struct hb_refs *r, node_t src)
{
	return lower_bound_u32(r->wsrc, r->nweak, src);
}

int64_t hb_refs_find_weak(const struct hb_refs *r, node_t src, node_t dst)
{
	for (uint64_t i = hb_refs_weak_first(r, src); i < r->nweak && r->wsrc[i] == src; i++)
		if (r->wdst[i] == dst)
			return (int64_t)i;
	return -1;
}

int hb_refs_valid(const struct hb_refs *r, node_t n)
{
	if (!r->own)
		return 1;
	if (r->start == NULL || r->to == NULL || r->wsrc == NULL || r->wdst == NULL || r->start[0] != 0 ||
	    r->start[n] != r->n)
		return 0;
	for (node_t v = 0; v < n; v++)
		if (r->start[v] > r->start[v + 1])
			return 0;
	for (uint64_t i = 0; i < r->n; i++)
		if (r->to[i] >= n)
			return 0;
	for (uint64_t i = 0; i < r->nweak; i++)
		if (r->wsrc[i] >= n || r->wdst[i] >= n || (i > 0 && r->wsrc[i] < r->wsrc[i - 1]))
			return 0;
	return 1;
}

int hb_refs_arrays(const struct heap *h, struct hb_refs *r, struct fmt_array *a)
{
	uint64_t own = r->own ? 1 : 0;

	a[0] = (struct fmt_array){ (void **)&r->start, NULL, sizeof *r->start, own * ((uint64_t)h->n + 1) };
	a[1] = (struct fmt_array){ (void **)&r->to, NULL, sizeof *r->to, own * r->n };
	a[2] = (struct fmt_array){ (void **)&r->wsrc, NULL, sizeof *r->wsrc, own * r->nweak };
	a[3] = (struct fmt_array){ (void **)&r->wdst, NULL, sizeof *r->wdst, own * r->nweak };
	return HB_REFS_ARRAYS;
}

int hb_refs_loaded(const struct heap *h, struct hb_refs *r, const struct fmt_array *a)
{
	r->own = a[0].count > 0;
	r->n = a[1].count;
	r->nweak = a[2].count;
	if (!r->own) /* no copy: h's arrays are as built */
		return a[1].count == 0 && a[2].count == 0 && a[3].count == 0;
	if (r->wsrc == NULL) /* no weak ones: an empty array */
		r->wsrc = xcalloc(1, sizeof *r->wsrc);
	if (r->wdst == NULL)
		r->wdst = xcalloc(1, sizeof *r->wdst);
	if (r->to == NULL)
		r->to = xcalloc(1, sizeof *r->to);
	return a[0].count == (uint64_t)h->n + 1 && a[3].count == r->nweak && hb_refs_valid(r, h->n);
}

void hb_refs_free(struct hb_refs *r) /* a kept one: a view is never freed */
{
	free(r->start);
	free(r->to);
	free(r->wsrc);
	free(r->wdst);
	memset(r, 0, sizeof *r);
}

void hb_free(struct heap_builder *b)
{
	free(b->ty);
	free(b->thash);
	free(b->big);
	free(b->ref);
	free(b->key);
	free(b->label);
	free(b->root);
	free(b->out_label);
	free(b->weak_label);
	free(b->weak);
	free(b->given);
	free(b->moved);
	runs_free(b);
	if (b->given_refs != NULL)
		big_free(b->given_refs, b->cap * sizeof *b->given_refs);
	if (idindex_made(&b->ix))
		idindex_free(&b->ix);
	names_free(&b->own_nt);
	memset(b, 0, sizeof *b);
}
