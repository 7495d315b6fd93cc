/* builder.c — a reader's objects, types, references and roots into
 * struct heap: see builder.h. */
#include "graph/builder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/analysis.h"

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
	b->cap = cap;
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
	h->node_id[0] = 0; /* node 0: the virtual root */
	h->node_class[0] = HW_NONE;
	h->node_shallow[0] = 0;
	h->node_kind[0] = NK_ROOT;
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
		b->ty[b->nty] = (struct hb_type){ name, id };
		b->thash[j] = b->nty++;
	}
	return b->thash[j];
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
	if (b->n > 1 && id <= b->last_id)
		b->ascending = 0;
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

/* hb_find once the nodes are done (the id index made), inline: every
 * reference asks it. */
static inline node_t node_of(const struct heap_builder *b, uint64_t id)
{
	node_t v = idindex_find(&b->ix, id);

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

	if (s == HW_NONE || t == HW_NONE) {
		b->dangling++;
		return;
	}
	label_room(b, b->nkey, b->ckey);
	OWN_GROW(b, b->key, b->nkey, b->ckey);
	if (b->flags & HB_LABELS)
		b->label[b->nkey] = label;
	b->key[b->nkey++] = (uint64_t)s << 32 | t;
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

/* v's room (cap, for elements of size) made n at least; the labels'
 * beside it too (HB_LABELS). */
static void *room_for(struct heap_builder *b, void *v, size_t *cap, size_t size, size_t n)
{
	if (n <= *cap)
		return v;
	v = xreallocarray(v, n, size);
	own(b, *cap * size, n * size);
	if (b->flags & HB_LABELS) {
		b->label = xreallocarray(b->label, n, sizeof *b->label);
		own(b, *cap * sizeof *b->label, n * sizeof *b->label);
	}
	*cap = n;
	return v;
}

void hb_refs_expected(struct heap_builder *b, size_t refs)
{
	if (b->nodes_done)
		b->key = room_for(b, b->key, &b->ckey, sizeof *b->key, b->nkey + refs);
	else
		b->ref = room_for(b, b->ref, &b->cref, sizeof *b->ref, b->nref + refs);
}

void hb_refs(struct heap_builder *b, uint64_t from, const uint64_t *to, size_t n)
{
	if (!b->nodes_done || (b->flags & HB_LABELS)) {
		for (size_t i = 0; i < n; i++)
			hb_ref_label(b, from, to[i], 0);
		return;
	}
	if (n == 0)
		return;
	node_t s = source_node(b, from);
	if (s == HW_NONE) {
		b->dangling += n;
		return;
	}
	if (n > b->ckey - b->nkey) /* grown as one at a time would */
		b->key = room_for(b, b->key, &b->ckey, sizeof *b->key,
				  b->nkey + n > 2 * b->ckey ? b->nkey + n : b->ckey ? 2 * b->ckey : 256);
	for (size_t i = 0; i < n; i++) {
		node_t t = node_of(b, to[i]);
		if (t == HW_NONE)
			b->dangling++;
		else
			b->key[b->nkey++] = (uint64_t)s << 32 | t;
	}
}

void hb_ref(struct heap_builder *b, uint64_t from, uint64_t to)
{
	hb_ref_label(b, from, to, 0);
}

void hb_root(struct heap_builder *b, uint64_t id, uint16_t kind, uint32_t detail)
{
	OWN_GROW(b, b->root, b->nroot, b->croot);
	b->root[b->nroot++] = (struct hb_root){ id, detail, kind };
}

/* ---- hb_finish ---- */

/* perm (nodes) by their ids, stably, so that of an id given twice the
 * first stays first: a radix sort, 16 bits a pass over the bits where
 * the ids differ (addresses: three passes or fewer), the other pass's
 * order in `other` (n nodes). */
static void radix_by_id(struct heap_builder *b, const uint64_t *id, node_t *perm, node_t *other, node_t n)
{
	enum { BITS = 16, NB = 1 << BITS };
	uint64_t diff = 0;

	for (node_t i = 1; i < n; i++)
		diff |= id[perm[i]] ^ id[perm[0]];
	if (diff == 0)
		return;
	unsigned lo = (unsigned)__builtin_ctzll(diff), hi = 64 - (unsigned)__builtin_clzll(diff);
	size_t *cnt = xmalloc(NB * sizeof *cnt);
	node_t *a = perm, *c = other;
	own(b, 0, NB * sizeof *cnt);
	for (unsigned shift = lo; shift < hi; shift += BITS) {
		memset(cnt, 0, NB * sizeof *cnt);
		for (node_t i = 0; i < n; i++)
			cnt[(id[a[i]] >> shift) & (NB - 1)]++;
		for (size_t k = 0, sum = 0; k < NB; k++) {
			size_t m = cnt[k];
			cnt[k] = sum;
			sum += m;
		}
		for (node_t i = 0; i < n; i++)
			c[cnt[(id[a[i]] >> shift) & (NB - 1)]++] = a[i];
		node_t *t = a;
		a = c;
		c = t;
	}
	if (a != perm)
		memcpy(perm, a, (size_t)n * sizeof *perm);
	free(cnt);
	own(b, NB * sizeof *cnt, 0);
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

/* perm (the nodes 1..n as given) by their ids, stably, when they came
 * in a few ascending runs (a runtime's heap walked region by region):
 * the runs merged through a heap of their heads (of equal ids, the
 * earlier run's first). 0, perm untouched, when there are more runs. */
static int merge_runs(const uint64_t *id, node_t *perm, node_t n)
{
	node_t at[MAXRUNS], end[MAXRUNS];
	size_t nruns = 0;

	for (node_t v = 1; v <= n; v++)
		if (v == 1 || id[v - 1] > id[v]) {
			if (nruns == MAXRUNS)
				return 0;
			at[nruns++] = v;
		}
	for (size_t r = 0; r < nruns; r++)
		end[r] = r + 1 < nruns ? at[r + 1] : n + 1;
	if (disjoint_runs(id, perm, at, end, nruns))
		return 1;
	size_t hp[MAXRUNS], nh = nruns; /* the runs, a min-heap by their heads */
	for (size_t r = 0; r < nruns; r++)
		hp[r] = r;
	for (size_t r = nruns / 2; r-- > 0;)
		sift(id, at, hp, nh, r);
	for (node_t i = 0; i < n; i++) {
		size_t r = hp[0];
		perm[i] = at[r]++;
		if (at[r] == end[r]) /* run r done */
			hp[0] = hp[--nh];
		sift(id, at, hp, nh, 0);
	}
	return 1;
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

#define PERMUTE(h, arr, type, perm, n, tmp) do { \
	type *t_ = (void *)(tmp); \
	for (node_t i_ = 0; i_ < (n); i_++) \
		t_[i_] = (h)->arr[(perm)[i_]]; \
	memcpy((h)->arr + 1, t_, (size_t)(n) * sizeof *t_); \
} while (0)

/* Nodes by ascending id, each id once: sorted only when they did not
 * come so. */
static void order_nodes(struct heap_builder *b)
{
	struct heap *h = b->h;
	node_t n = b->n, k = 0;

	if (b->ascending)
		return;
	node_t *perm = xmalloc(((size_t)n + 1) * sizeof *perm);
	own(b, 0, ((size_t)n + 1) * sizeof *perm);
	uint64_t *tmp = xmalloc(((size_t)n + 1) * sizeof *tmp); /* the sort's, then the moves' */
	own(b, 0, ((size_t)n + 1) * sizeof *tmp);
	if (!merge_runs(h->node_id, perm, n)) {
		for (node_t i = 0; i < n; i++)
			perm[i] = i + 1;
		radix_by_id(b, h->node_id, perm, (node_t *)(void *)tmp, n);
	}
	for (node_t i = 0; i < n; i++) /* an id given twice: the first */
		if (k > 0 && h->node_id[perm[k - 1]] == h->node_id[perm[i]])
			b->dup_ids++;
		else
			perm[k++] = perm[i];
	PERMUTE(h, node_id, uint64_t, perm, k, tmp);
	PERMUTE(h, node_class, uint32_t, perm, k, tmp);
	PERMUTE(h, node_shallow, uint32_t, perm, k, tmp);
	PERMUTE(h, node_kind, uint8_t, perm, k, tmp);
	if (b->nbig > 0)
		big_moved(b, perm, k);
	free(tmp);
	free(perm);
	own(b, ((size_t)n + 1) * (sizeof *perm + sizeof *tmp), 0);
	b->n = k;
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
		if (cls[t] == HW_NONE)
			cls[t] = class_by_name(h, &cn, b->ty[t].name, b->ty[t].id);
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

/* Each node's run of targets (and labels) ascending: sorted as pairs
 * (target << 32 | label) in scratch. */
static void sort_runs(struct heap *h, uint32_t *label, uint64_t *scratch)
{
	for (node_t v = 1; v < h->n; v++) {
		edge_t lo = h->out_start[v], m = h->out_start[v + 1] - lo;
		if (label == NULL) {
			sort_u32(h->out + lo, m);
			continue;
		}
		for (edge_t i = 0; i < m; i++)
			scratch[i] = (uint64_t)h->out[lo + i] << 32 | label[lo + i];
		sort_u64(scratch, m);
		for (edge_t i = 0; i < m; i++) {
			h->out[lo + i] = (node_t)(scratch[i] >> 32);
			label[lo + i] = (uint32_t)scratch[i];
		}
	}
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
	sort_runs(h, lab, key);
	h->nedges = k;
	h->dangling_refs = b->dangling;
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

static int cmp_hbroot(const void *x, const void *y)
{
	const struct hb_root *a = x, *c = y;

	if (a->id != c->id)
		return a->id < c->id ? -1 : 1;
	if (a->kind != c->kind)
		return a->kind < c->kind ? -1 : 1;
	return a->detail < c->detail ? -1 : a->detail > c->detail;
}

/* Root records: by node and kind, each once (the least detail of a
 * pair given twice, whatever the order given). */
static void make_roots(struct heap_builder *b)
{
	struct heap *h = b->h;

	hw_qsort(b->root, b->nroot, sizeof *b->root, cmp_hbroot);
	h->root_rec = xmalloc((b->nroot + 1) * sizeof *h->root_rec);
	for (size_t i = 0; i < b->nroot; i++) {
		const struct hb_root *r = &b->root[i];
		node_t v = hb_find(b, r->id);
		if (v == HW_NONE)
			b->lost_roots++;
		else if (h->nroot_rec == 0 || h->root_rec[h->nroot_rec - 1].node != v ||
			 h->root_rec[h->nroot_rec - 1].kind != r->kind)
			h->root_rec[h->nroot_rec++] = (struct root){ v, r->kind, r->detail, HW_NONE };
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
	if (b->dup_ids > 0)
		warn_add(&h->warn, "%s: %llu %s", h->path, (unsigned long long)b->dup_ids,
			 b->dup_what != NULL ? b->dup_what
					     : "objects have an id given to an object before; the first of each is kept");
	make_classes(b);
	idindex_build(&b->ix, h->node_id, h->n);
	own(b, 0, (size_t)(b->ix.nb + 1) * sizeof *b->ix.start);
	resolve_refs(b);
	b->nodes_done = 1;
}

void hb_finish(struct heap_builder *b)
{
	struct heap *h = b->h;

	hb_nodes_done(b);
	make_refs(b);
	make_roots(b);
	h->weak_src = xmalloc(sizeof *h->weak_src);
	h->weak_dst = xmalloc(sizeof *h->weak_dst);
	h->weak_rule = xmalloc(sizeof *h->weak_rule);
	h->nweak = 0;
}

node_t hb_find(const struct heap_builder *b, uint64_t id)
{
	return b->ix.start == NULL ? HW_NONE : node_of(b, id); /* none before the nodes are done */
}

uint32_t *hb_labels_take(struct heap_builder *b)
{
	uint32_t *l = b->out_label;

	b->out_label = NULL;
	return l;
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
	if (b->ix.start != NULL)
		idindex_free(&b->ix);
	names_free(&b->own_nt);
	memset(b, 0, sizeof *b);
}
