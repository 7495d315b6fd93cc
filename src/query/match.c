/* match.c — pairing the objects of two ordinary dumps of one JVM.
 *
 * Object ids are addresses and the collector moves objects, so an
 * object that survived from the older dump (A) to the newer (B) has to
 * be recognised by what it is. Evidence, strongest first:
 *
 *   classes       class objects pair by name;
 *   content       a content hash h0 (class name, primitive fields,
 *                 primitive array contents, array length) and a context
 *                 hash h1 (h0 with the children's h0, in reference
 *                 order): an object whose h1 is unique in both dumps
 *                 pairs with its namesake;
 *   references    from a pair (a, b): a's and b's children pair field by
 *                 field (instances), by content among the siblings, by
 *                 class when one of a class is left on each side, and,
 *                 in arrays and a class's statics, by position between
 *                 paired elements; a's and b's referrers pair when one
 *                 of a class is left on each side. Each new pair
 *                 spreads further (a queue).
 *
 * Rounds: classes, unique h1, then spreading; unique h0 among what is
 * left (objects whose children changed), spreading again; then
 * identical objects that nothing refers to (held by roots only) pair in
 * order, as their count says; last, identical objects at one address
 * whose referrers are all paired (not spread from: a guess; not when
 * ids are no addresses, MATCH_BLIND). What stays unpaired in B is new,
 * in A gone, unless an unpaired object of the other side is alike, or
 * an alike one was paired by a guess (answer()): then it is ambiguous.
 * A pair made by a guess among lookalikes (in order, by address) is no
 * answer either: a list whose members were swapped for lookalikes looks
 * unchanged (doubtful_pairs). Both its objects are ambiguous, and so is
 * what its spreading paired that only ambiguous or new objects hold.
 *
 * Formats without field bytes (V8, .NET, Mono) give an object's class,
 * size and a string's text as its content; alike elements ("[i]") of
 * one object pair by place only: a guess (field_round).
 *
 * Every step visits nodes in index order and sorts stably, so the same
 * two dumps always give the same pairs. */
#include "query/match.h"

#include <stdlib.h>
#include <string.h>

#include "graph/reader.h"
#include "engine/open.h"

enum { HOW_NONE, HOW_CLASS, HOW_H1, HOW_H0, HOW_FIELD, HOW_SIBLING, HOW_GAP,
       HOW_REFERRER, HOW_ROOTED, HOW_ADDRESS, HOW_COUNT };

struct side {
	struct heap *h;
	uint64_t *h0, *h1;
	uint64_t *cname;    /* per class: hash of its name (class_match_name) */
	node_t *peer;       /* the paired node on the other side, HW_NONE */
	uint8_t *how;       /* how it was paired (HOW_*) */
	uint8_t *immutable; /* per class: values (String, the boxes: value_classes) */
};

struct pairq {
	node_t *a, *b;
	size_t n, cap, head;
};

struct kv { uint64_t key; node_t v; };

struct matcher {
	struct side s[2];   /* 0: A (older), 1: B */
	uint8_t *dup;       /* scratch: a child's place among alike siblings (field_round) */
	size_t dupcap;
	struct sbuf label;  /* scratch: a reference's name */
	uint32_t *posb;     /* scratch: a node of B -> its index in the array at hand */
	struct pairq q;
	node_t *place;      /* per node of A: the bigger one of B queued as having taken its place (push) */
	uint64_t pairs[HOW_COUNT];
	uint8_t round_how;  /* how the join at hand pairs */
	struct progress *p;
};

static inline uint64_t mix(uint64_t a, uint64_t b)
{
	a = (a ^ b) * 0xff51afd7ed558ccdull;
	a ^= a >> 32;
	a *= 0xc4ceb9fe1a85ec53ull;
	return a ^ (a >> 29);
}

static uint64_t hash_bytes(const uint8_t *p, size_t n, uint64_t seed)
{
	uint64_t x = seed ^ (n * 0x9e3779b97f4a7c15ull);
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, p + i, 8);
		x = (x ^ w) * 0x100000001b3ull;
		x ^= x >> 31;
	}
	for (; i < n; i++)
		x = (x ^ p[i]) * 0x100000001b3ull;
	return mix(x, n);
}

static uint64_t hash_str(const char *s)
{
	return hash_bytes((const uint8_t *)s, strlen(s), 0x51);
}

static inline uint64_t cname_of(const struct side *s, node_t v)
{
	uint32_t c = s->h->node_class[v];

	return c == HW_NONE ? 0 : s->cname[c];
}

/* h0: what the object holds itself, without its references' ids. */
static void content_hashes(struct side *s, int qual)
{
	const struct heap *h = s->h;
	unsigned ids = h->layout.idsize;
	uint8_t *buf = NULL;
	size_t cap = 0;
	int strings = heap_has_strings(h);
	struct sbuf text;

	sbuf_init(&text);
	s->cname = xmalloc(((size_t)h->ncls + 1) * sizeof *s->cname);
	for (uint32_t c = 0; c < h->ncls; c++)
		s->cname[c] = hash_str(class_match_name(h, c, qual));
	s->h0 = xcalloc(h->n, sizeof *s->h0);
	for (node_t v = 1; v < h->n; v++) {
		uint64_t x = cname_of(s, v);
		struct harray a;
		uint32_t nb;
		const uint8_t *data;
		switch (h->node_kind[v]) {
		case NK_INSTANCE: {
			const struct hclass *k = &h->cls[h->node_class[v]];
			if ((data = heap_inst_data(h, v, &nb)) == NULL) {
				/* no field bytes (V8, .NET, Mono): its size, and a
				 * string's text */
				x = mix(x, h->node_shallow[v]);
				if (strings && heap_is_string(h, v)) {
					sbuf_reset(&text);
					if (heap_string(h, v, &text, 4096) == 0) /* 1: a name, not its text */
						x = hash_bytes((const uint8_t *)text.buf, text.len, x);
				}
				break;
			}
			if (nb > cap) {
				cap = (size_t)nb * 2;
				buf = xrealloc(buf, cap);
			}
			if (nb > 0) /* buf is NULL until an instance has fields */
				memcpy(buf, data, nb);
			for (uint32_t j = 0; j < k->nrefs; j++) { /* ids are addresses: out */
				uint32_t off = h->refoffs[k->ref_first + j];
				if ((uint64_t)off + ids <= nb) /* in 64 bits: no wrap */
					memset(buf + off, 0, ids);
			}
			if (k->referent_off != HW_NONE && (uint64_t)k->referent_off + ids <= nb)
				memset(buf + k->referent_off, 0, ids);
			x = hash_bytes(buf, nb, x);
			break;
		}
		case NK_OBJARRAY:
			if (heap_array_data(h, v, &a) == 0)
				x = mix(x, a.len);
			break;
		case NK_PRIMARRAY:
			if (heap_array_data(h, v, &a) < 0)
				break;
			if (a.data == NULL) /* Android's array without its data: the length says it all */
				x = mix(mix(x, a.len), a.type);
			else
				x = hash_bytes(a.data, (size_t)(a.len * a.esize), mix(x, a.len));
			break;
		default:
			break;
		}
		s->h0[v] = x;
	}
	/* a class object: the class it describes */
	for (uint32_t c = 0; c < h->ncls; c++)
		if (h->cls[c].node != HW_NONE)
			s->h0[h->cls[c].node] = mix(s->cname[c], 0xc1a55);
	free(buf);
	sbuf_free(&text);
}

/* out[v] = in[v] combined with the children's in[], in reference order. */
static uint64_t *context_hashes(const struct heap *h, const uint64_t *in)
{
	uint64_t *out = xmalloc((size_t)h->n * sizeof *out);

	out[0] = 0;
	for (node_t v = 1; v < h->n; v++) {
		uint64_t x = in[v];
		for (edge_t e = h->out_start[v]; e < h->out_start[v + 1]; e++)
			x = mix(x, in[h->out[e]]);
		out[v] = x;
	}
	return out;
}

static void enqueue(struct pairq *q, node_t a, node_t b)
{
	if (q->n == q->cap) {
		q->cap = q->cap ? q->cap * 2 : 4096;
		q->a = xreallocarray(q->a, q->cap, sizeof *q->a);
		q->b = xreallocarray(q->b, q->cap, sizeof *q->b);
	}
	q->a[q->n] = a;
	q->b[q->n++] = b;
}

/* a of the earlier dump and b of the later one taken for one object:
 * never where b weighs more and the runtime grows no object in place.
 * Such a b took a's place (a grown array's new store, the old one's
 * elements copied into it): a is gone and b new, and what they hold
 * and what holds them are compared all the same (once), as a pair's. */
static void push(struct matcher *m, node_t a, node_t b, uint8_t how)
{
	if (!heap_may_be_earlier(m->s[1].h, b, m->s[0].h->node_shallow[a])) {
		if (m->place[a] == HW_NONE) {
			m->place[a] = b;
			enqueue(&m->q, a, b);
		}
		return;
	}
	m->s[0].peer[a] = b;
	m->s[1].peer[b] = a;
	m->s[0].how[a] = m->s[1].how[b] = how;
	m->pairs[how]++;
	enqueue(&m->q, a, b);
}

/* ---- keyed rounds over whole dumps ---- */


/* Stable sort by key. The keys are hashes, spread evenly: two LSD radix
 * passes over the upper 32 bits, 16 at a time, then the few runs that
 * share them sorted by the whole key (stable insertion). */
static void sort_kv(struct kv *a, size_t n)
{
	struct kv *tmp = xmalloc((n ? n : 1) * sizeof *tmp);
	size_t *cnt = xmalloc(65536 * sizeof *cnt);
	struct kv *src = a, *dst = tmp;

	for (int shift = 32; shift < 64; shift += 16) {
		memset(cnt, 0, 65536 * sizeof *cnt);
		for (size_t i = 0; i < n; i++)
			cnt[(src[i].key >> shift) & 0xffff]++;
		size_t sum = 0;
		for (size_t d = 0; d < 65536; d++) {
			size_t c = cnt[d];
			cnt[d] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			dst[cnt[(src[i].key >> shift) & 0xffff]++] = src[i];
		struct kv *t = src;
		src = dst;
		dst = t;
	}
	/* two passes: back in a */
	for (size_t i = 1; i < n; i++) {
		if ((a[i].key >> 32) != (a[i - 1].key >> 32) || a[i].key >= a[i - 1].key)
			continue;
		struct kv x = a[i];
		size_t j = i;
		while (j > 0 && (a[j - 1].key >> 32) == (x.key >> 32) && a[j - 1].key > x.key) {
			a[j] = a[j - 1];
			j--;
		}
		a[j] = x;
	}
	free(tmp);
	free(cnt);
}

static uint64_t key_at(const char *p, size_t size, size_t i)
{
	uint64_t k;

	memcpy(&k, p + i * size, sizeof k);
	return k;
}

/* Merge join of two arrays sorted by key, whose elements (of the given
 * size) start with their uint64_t key: f gets each key present on both
 * sides, as the run of elements with that key on each side. */
typedef void join_fn(struct matcher *m, const void *a, size_t na, const void *b, size_t nb);

static void join_runs(struct matcher *m, const void *a, size_t na, const void *b, size_t nb,
		      size_t size, join_fn *f)
{
	const char *pa = a, *pb = b;
	size_t i = 0, j = 0;

	while (i < na && j < nb) {
		uint64_t x = key_at(pa, size, i), y = key_at(pb, size, j);
		if (x < y) {
			i++;
		} else if (x > y) {
			j++;
		} else {
			size_t i1 = i + 1, j1 = j + 1;
			while (i1 < na && key_at(pa, size, i1) == x)
				i1++;
			while (j1 < nb && key_at(pb, size, j1) == x)
				j1++;
			f(m, pa + i * size, i1 - i, pb + j * size, j1 - j);
			i = i1;
			j = j1;
		}
	}
}

/* Objects nothing but roots refers to. */
static int rooted_only(const struct heap *h, node_t v)
{
	for (edge_t e = h->in_start[v]; e < h->in_start[v + 1]; e++)
		if (h->in[e] != 0)
			return 0;
	return 1;
}

/* The unpaired objects of a side whose key is in quarter part (its top
 * two bits), with their keys, sorted. */
static struct kv *unpaired(const struct side *s, const uint64_t *key, int rooted, unsigned part, size_t *n)
{
	const struct heap *h = s->h;
	size_t k = 0;

	for (node_t v = 1; v < h->n; v++) /* count first: later rounds have few left */
		k += s->peer[v] == HW_NONE && key[v] >> 62 == part && (!rooted || rooted_only(h, v));
	struct kv *a = xmalloc((k + 1) * sizeof *a);
	k = 0;
	for (node_t v = 1; v < h->n; v++)
		if (s->peer[v] == HW_NONE && key[v] >> 62 == part && (!rooted || rooted_only(h, v)))
			a[k++] = (struct kv){ key[v], v };
	sort_kv(a, k);
	*n = k;
	return a;
}

/* Equal keys: as many as both sides have, in index order. */
static void pair_in_order(struct matcher *m, const void *a, size_t na, const void *b, size_t nb)
{
	const struct kv *x = a, *y = b;

	for (size_t i = 0; i < na && i < nb; i++)
		push(m, x[i].v, y[i].v, m->round_how);
}

/* Equal keys: only an object alone with its key on each side. */
static void pair_unique(struct matcher *m, const void *a, size_t na, const void *b, size_t nb)
{
	const struct kv *x = a, *y = b;

	if (na == 1 && nb == 1)
		push(m, x->v, y->v, m->round_how);
}

/* Pair objects whose key is unique on both sides (groups == 0), or, with
 * groups, as many of equal keys as both sides have, in index order; with
 * groups, only objects that nothing but roots refers to take part. A
 * quarter of the keys at a time (equal keys share a quarter, and the
 * quarters come in key order): a quarter of the memory. */
static void keyed_round(struct matcher *m, const uint64_t *ka, const uint64_t *kb, int groups,
			uint8_t how)
{
	m->round_how = how;
	for (unsigned part = 0; part < 4 && !progress_cancelled(m->p); part++) {
		size_t na, nb;
		struct kv *a = unpaired(&m->s[0], ka, groups, part, &na);
		struct kv *b = unpaired(&m->s[1], kb, groups, part, &nb);
		join_runs(m, a, na, b, nb, sizeof *a, groups ? pair_in_order : pair_unique);
		free(a);
		free(b);
	}
}

/* ---- spreading along references ---- */

/* Reference fields of an instance in field order, each the node or
 * HW_NONE for null; 0 if the out-list does not line up (a dropped
 * dangling reference). */
static size_t field_children(const struct heap *h, node_t v, node_t *out, size_t max)
{
	const struct hclass *k = &h->cls[h->node_class[v]];
	uint32_t nb;
	const uint8_t *data = heap_inst_data(h, v, &nb);
	edge_t e = h->out_start[v], end = h->out_start[v + 1];
	size_t n = 0;

	if (data == NULL)
		return 0;
	for (uint32_t j = 0; j < k->nrefs && n < max; j++) {
		uint64_t id = inst_ref_at(data, nb, h->refoffs[k->ref_first + j], h->layout.idsize);
		if (id == 0) {
			out[n++] = HW_NONE;
		} else {
			if (e >= end)
				return 0;
			out[n++] = h->out[e++];
		}
	}
	return n;
}

/* Values that are replaced, never changed: a field that holds another one
 * holds another object, so they pair only with equal contents (h1: a
 * String's or BigInteger's array included). */
static int immutable(const struct matcher *m, node_t x)
{
	uint32_t c = m->s[0].h->node_class[x];

	return c != HW_NONE && m->s[0].immutable[c];
}

struct sib { uint64_t key; node_t v; size_t pos; };

static int cmp_sib(const void *x, const void *y)
{
	const struct sib *a = x, *b = y;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return a->pos < b->pos ? -1 : a->pos > b->pos;
}

/* Equal keys among siblings: one object on each side, not paired yet (the
 * same object may be listed twice, as two fields' value). */
static void pair_lone_siblings(struct matcher *m, const void *a, size_t na, const void *b, size_t nb)
{
	const struct sib *x = a, *y = b;

	if (na == 1 && nb == 1 && m->s[0].peer[x->v] == HW_NONE && m->s[1].peer[y->v] == HW_NONE)
		push(m, x->v, y->v, HOW_SIBLING);
}

/* Among unpaired children of a and b: pair those whose key is unique on
 * both sides. */
static void sibling_round(struct matcher *m, const node_t *ca, size_t na, const node_t *cb, size_t nb,
			  int keykind, struct sib *sa, struct sib *sb)
{
	size_t ka = 0, kb = 0;

	for (int side = 0; side < 2; side++) {
		const node_t *c = side ? cb : ca;
		size_t n = side ? nb : na, k = 0;
		struct sib *out = side ? sb : sa;
		const struct side *s = &m->s[side];
		for (size_t i = 0; i < n; i++) {
			node_t v = c[i];
			if (v == HW_NONE || s->peer[v] != HW_NONE || s->h->node_kind[v] == NK_CLASS)
				continue;
			if (keykind < 1 && side == 0 && immutable(m, v))
				continue; /* by class or own fields: not a replaced value */
			uint64_t key = keykind == 1 ? s->h1[v] : keykind == 0 ? s->h0[v] : cname_of(s, v);
			out[k++] = (struct sib){ key, v, i };
		}
		qsort(out, k, sizeof *out, cmp_sib);
		if (side)
			kb = k;
		else
			ka = k;
	}
	join_runs(m, sa, ka, sb, kb, sizeof *sa, pair_lone_siblings);
}

/* An element a gap can pair: unpaired, and not a class object (they
 * pair by name only, and all have one class). */
static int gap_member(const struct side *s, node_t v)
{
	return v != HW_NONE && s->peer[v] == HW_NONE && s->h->node_kind[v] != NK_CLASS;
}

/* Arrays: between elements paired already, the unpaired ones in the same
 * gap, of one class, as many on both sides: in order. */
static void gap_round(struct matcher *m, const node_t *ca, size_t na, const node_t *cb, size_t nb)
{
	uint32_t *pos = m->posb;
	size_t i = 0, j = 0;

	for (size_t y = 0; y < nb; y++)
		if (cb[y] != HW_NONE)
			pos[cb[y]] = (uint32_t)y;
	while (i <= na && j <= nb) {
		/* the next element of a whose peer is in b, after j; not a
		 * class (an array's own: references are in id order, and a
		 * class's id is above its array's elements' in HotSpot's
		 * dumps, addresses, and below them in the agent's, tags: 100
		 * elements of 200 changed in place were new and gone for it) */
		size_t i1 = i, j1 = nb;
		for (; i1 < na; i1++) {
			node_t v = ca[i1];
			if (v == HW_NONE || m->s[0].peer[v] == HW_NONE || m->s[0].h->node_kind[v] == NK_CLASS)
				continue;
			uint32_t y = pos[m->s[0].peer[v]];
			if (y != UINT32_MAX && y < nb && cb[y] == m->s[0].peer[v] && y >= j) {
				j1 = y;
				break;
			}
		}
		/* the gap: ca[i..i1), cb[j..j1) */
		size_t ua = 0, ub = 0;
		uint64_t cls = 0;
		int one_class = 1;
		for (size_t x = i; x < i1 && x < na; x++)
			if (gap_member(&m->s[0], ca[x])) {
				uint64_t c = cname_of(&m->s[0], ca[x]);
				one_class &= ua == 0 || c == cls;
				cls = c;
				ua++;
			}
		for (size_t y = j; y < j1 && y < nb; y++)
			if (gap_member(&m->s[1], cb[y])) {
				uint64_t c = cname_of(&m->s[1], cb[y]);
				one_class &= (ua == 0 && ub == 0) || c == cls;
				cls = c;
				ub++;
			}
		if (ua > 0 && ua == ub && one_class) {
			size_t x = i, y = j, xe = i1 < na ? i1 : na, ye = j1 < nb ? j1 : nb;
			/* in order; an object listed twice pairs once (then the
			 * rest of the gap may run short on one side) */
			for (;;) {
				while (x < xe && !gap_member(&m->s[0], ca[x]))
					x++;
				while (y < ye && !gap_member(&m->s[1], cb[y]))
					y++;
				if (x >= xe || y >= ye)
					break;
				push(m, ca[x++], cb[y++], HOW_GAP);
			}
		}
		if (i1 >= na)
			break;
		i = i1 + 1;
		j = j1 + 1;
	}
	for (size_t y = 0; y < nb; y++)
		if (cb[y] != HW_NONE)
			pos[cb[y]] = UINT32_MAX;
}

/* Referrers of one class: one object on each side (perhaps listed more
 * than once, referring through several fields) pairs. */
static size_t distinct_referrers(const struct sib *x, size_t n)
{
	size_t d = n ? 1 : 0;

	for (size_t i = 1; i < n; i++)
		d += x[i].v != x[i - 1].v;
	return d;
}

static void pair_lone_referrers(struct matcher *m, const void *a, size_t na, const void *b, size_t nb)
{
	const struct sib *x = a, *y = b;

	if (distinct_referrers(x, na) == 1 && distinct_referrers(y, nb) == 1)
		push(m, x->v, y->v, HOW_REFERRER);
}

/* Referrers of a and b: one unpaired of a class on each side pairs. */
static void referrer_round(struct matcher *m, node_t a, node_t b, struct sib *sa, struct sib *sb)
{
	const struct heap *ha = m->s[0].h, *hb = m->s[1].h;
	edge_t a0 = ha->in_start[a], a1 = ha->in_start[a + 1], b0 = hb->in_start[b], b1 = hb->in_start[b + 1];
	size_t ka = 0, kb = 0;

	if (a1 - a0 > 64 || b1 - b0 > 64) /* a class, a shared constant: no evidence */
		return;
	for (edge_t e = a0; e < a1; e++)
		if (ha->in[e] != 0 && m->s[0].peer[ha->in[e]] == HW_NONE && ha->node_kind[ha->in[e]] != NK_CLASS)
			sa[ka++] = (struct sib){ cname_of(&m->s[0], ha->in[e]), ha->in[e], e };
	for (edge_t e = b0; e < b1; e++)
		if (hb->in[e] != 0 && m->s[1].peer[hb->in[e]] == HW_NONE && hb->node_kind[hb->in[e]] != NK_CLASS)
			sb[kb++] = (struct sib){ cname_of(&m->s[1], hb->in[e]), hb->in[e], e };
	qsort(sa, ka, sizeof *sa, cmp_sib);
	qsort(sb, kb, sizeof *sb, cmp_sib);
	join_runs(m, sa, ka, sb, kb, sizeof *sa, pair_lone_referrers);
}

/* The children of v in reference order (array elements in index order). */
static size_t out_children(const struct heap *h, node_t v, node_t *buf)
{
	size_t n = 0;

	for (edge_t e = h->out_start[v]; e < h->out_start[v + 1]; e++)
		buf[n++] = h->out[e];
	return n;
}

static uint64_t alike_key(const struct matcher *m, int side, node_t v);

static int cmp_sib_v(const void *x, const void *y)
{
	const struct sib *a = x, *b = y;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	if (a->v != b->v)
		return a->v < b->v ? -1 : 1;
	return a->pos < b->pos ? -1 : a->pos > b->pos;
}

/* Does the reference from p to c name an element ("[i]", "[]", an
 * internal index "3"), not a field? */
static int element_ref(const struct heap *h, node_t p, node_t c, struct sbuf *label)
{
	sbuf_reset(label);
	heap_edge_label(h, p, c, label);
	if (label->len == 0)
		return 0;
	if (label->buf[0] == '[')
		return 1;
	for (size_t i = 0; i < label->len; i++)
		if (label->buf[i] < '0' || label->buf[i] > '9')
			return 0;
	return 1;
}

/* Marks in m->dup (bit side + 1) the places of p's children c[0..n)
 * that are elements (element_ref), unpaired, and alike (alike_key) to
 * another such child of the list, another object (one listed twice is
 * no choice). */
static void mark_alike(struct matcher *m, int side, node_t p, const node_t *c, size_t n, struct sib *x)
{
	const struct side *s = &m->s[side];
	size_t k = 0;

	for (size_t j = 0; j < n; j++)
		if (c[j] != HW_NONE && s->peer[c[j]] == HW_NONE && s->h->node_kind[c[j]] != NK_CLASS)
			x[k++] = (struct sib){ alike_key(m, side, c[j]), c[j], j };
	qsort(x, k, sizeof *x, cmp_sib_v);
	for (size_t i = 0; i < k;) {
		size_t e = i + 1, objects = 1;
		for (; e < k && x[e].key == x[i].key; e++)
			objects += x[e].v != x[e - 1].v;
		if (objects > 1)
			for (size_t r = i; r < e; r++)
				if (element_ref(s->h, p, x[r].v, &m->label))
					m->dup[x[r].pos] |= (uint8_t)(side + 1);
		i = e;
	}
}

/* A's and B's children of a pair, field by field: the same field holding
 * objects of one class (an immutable value only when equal). Where the
 * class declares no reference field (a V8, .NET or Mono object: its
 * references are a list), an element ("[i]") alike to another is told
 * from it by its place only: a pair made in order, as in an array's gap
 * (doubtful_pairs weighs it). */
static void field_round(struct matcher *m, node_t a, node_t b, node_t *ca, node_t *cb, size_t cap,
			struct sib *sa, struct sib *sb)
{
	const struct heap *ha = m->s[0].h, *hb = m->s[1].h;
	size_t na = ha->out_start[a + 1] - ha->out_start[a], nb = hb->out_start[b + 1] - hb->out_start[b];
	int same = na == nb;

	/* The references in field order, nulls left out: when both have as
	 * many, of the same classes in the same order, position is field
	 * (or, at worst, the one object of a class each side has, which the
	 * rounds by class pair anyway). Otherwise the records say. */
	for (size_t j = 0; j < na && same; j++)
		same = cname_of(&m->s[0], ha->out[ha->out_start[a] + j]) ==
		       cname_of(&m->s[1], hb->out[hb->out_start[b] + j]);
	if (same) {
		memcpy(ca, ha->out + ha->out_start[a], na * sizeof *ca);
		memcpy(cb, hb->out + hb->out_start[b], nb * sizeof *cb);
	} else {
		na = field_children(ha, a, ca, cap);
		nb = field_children(hb, b, cb, cap);
	}
	if (na == 0 || na != nb)
		return;
	int list = na > 1 && ha->cls[ha->node_class[a]].nrefs == 0;
	if (list) {
		if (na > m->dupcap)
			m->dup = xrealloc(m->dup, m->dupcap = na * 2);
		memset(m->dup, 0, na);
		mark_alike(m, 0, a, ca, na, sa);
		mark_alike(m, 1, b, cb, nb, sb);
	}
	for (size_t j = 0; j < na; j++) {
		node_t x = ca[j], y = cb[j];
		if (x == HW_NONE || y == HW_NONE || m->s[0].peer[x] != HW_NONE || m->s[1].peer[y] != HW_NONE)
			continue;
		if (ha->node_kind[x] == NK_CLASS || hb->node_kind[y] == NK_CLASS ||
		    cname_of(&m->s[0], x) != cname_of(&m->s[1], y))
			continue;
		if (immutable(m, x) && m->s[0].h1[x] != m->s[1].h1[y])
			continue;
		push(m, x, y, list && m->dup[j] ? HOW_GAP : HOW_FIELD);
	}
}

/* The children not paired yet (classes aside), in order, into out
 * (which may be c); how many. */
static size_t unpaired_kids(const struct side *s, const node_t *c, size_t n, node_t *out)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (c[i] != HW_NONE && s->peer[c[i]] == HW_NONE && s->h->node_kind[c[i]] != NK_CLASS)
			out[k++] = c[i];
	return k;
}

/* Is one of the n nodes (0 is the root) not paired yet? */
static int any_unpaired(const struct side *s, const node_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] != 0 && s->peer[v[i]] == HW_NONE)
			return 1;
	return 0;
}

static uint64_t pairs_so_far(const struct matcher *m)
{
	uint64_t n = 0;

	for (int i = 0; i < HOW_COUNT; i++)
		n += m->pairs[i];
	return n;
}

/* Work off the queue of pairs: each pair's children and referrers. */
static void spread(struct matcher *m)
{
	struct pairq *q = &m->q;
	const struct heap *ha = m->s[0].h, *hb = m->s[1].h;
	size_t cap = 1024;
	node_t *ca = xmalloc(cap * sizeof *ca), *cb = xmalloc(cap * sizeof *cb);
	node_t *xa = xmalloc(cap * sizeof *xa), *xb = xmalloc(cap * sizeof *xb);
	struct sib *sa = xmalloc(cap * sizeof *sa), *sb = xmalloc(cap * sizeof *sb);
	size_t step = 0;

	while (q->head < q->n && !progress_cancelled(m->p)) {
		if (q->head >= 65536 && q->head * 2 >= q->n) { /* the done half goes: a small queue */
			q->n -= q->head;
			memmove(q->a, q->a + q->head, q->n * sizeof *q->a);
			memmove(q->b, q->b + q->head, q->n * sizeof *q->b);
			q->head = 0;
		}
		node_t a = q->a[q->head], b = q->b[q->head];
		/* memory-bound: fetch ahead what the pairs a few steps on read */
		if (q->head + 16 < q->n) {
			__builtin_prefetch(&ha->out_start[q->a[q->head + 16]]);
			__builtin_prefetch(&hb->out_start[q->b[q->head + 16]]);
			__builtin_prefetch(&ha->in_start[q->a[q->head + 16]]);
			__builtin_prefetch(&hb->in_start[q->b[q->head + 16]]);
		}
		if (q->head + 8 < q->n) {
			__builtin_prefetch(&ha->out[ha->out_start[q->a[q->head + 8]]]);
			__builtin_prefetch(&hb->out[hb->out_start[q->b[q->head + 8]]]);
			__builtin_prefetch(&ha->in[ha->in_start[q->a[q->head + 8]]]);
			__builtin_prefetch(&hb->in[hb->in_start[q->b[q->head + 8]]]);
		}
		if (q->head + 4 < q->n) {
			node_t a4 = q->a[q->head + 4], b4 = q->b[q->head + 4];
			if (ha->out_start[a4] < ha->out_start[a4 + 1])
				__builtin_prefetch(&m->s[0].peer[ha->out[ha->out_start[a4]]]);
			if (hb->out_start[b4] < hb->out_start[b4 + 1])
				__builtin_prefetch(&m->s[1].peer[hb->out[hb->out_start[b4]]]);
		}
		q->head++;
		if ((++step & 0xffff) == 0)
			progress_update(m->p, pairs_so_far(m));
		size_t da = ha->out_start[a + 1] - ha->out_start[a];
		size_t db = hb->out_start[b + 1] - hb->out_start[b];
		size_t need = da > db ? da : db;
		if (ha->node_kind[a] == NK_INSTANCE && ha->cls[ha->node_class[a]].nrefs > need)
			need = ha->cls[ha->node_class[a]].nrefs;
		if (hb->node_kind[b] == NK_INSTANCE && hb->cls[hb->node_class[b]].nrefs > need)
			need = hb->cls[hb->node_class[b]].nrefs;
		if (need < 64)
			need = 64; /* the referrer round's */
		if (need > cap) {
			while (cap < need)
				cap *= 2;
			ca = xreallocarray(ca, cap, sizeof *ca);
			cb = xreallocarray(cb, cap, sizeof *cb);
			xa = xreallocarray(xa, cap, sizeof *xa);
			xb = xreallocarray(xb, cap, sizeof *xb);
			sa = xreallocarray(sa, cap, sizeof *sa);
			sb = xreallocarray(sb, cap, sizeof *sb);
		}
		/* most pairs have nothing left to pair around them: look first */
		int kids = any_unpaired(&m->s[0], ha->out + ha->out_start[a], da) &&
			   any_unpaired(&m->s[1], hb->out + hb->out_start[b], db);
		if (kids && ha->node_kind[a] == NK_INSTANCE && hb->node_kind[b] == NK_INSTANCE &&
		    cname_of(&m->s[0], a) == cname_of(&m->s[1], b))
			field_round(m, a, b, ca, cb, cap, sa, sb);
		if (kids) {
			size_t na = out_children(ha, a, ca), nb = out_children(hb, b, cb);
			size_t ua = unpaired_kids(&m->s[0], ca, na, xa), ub = unpaired_kids(&m->s[1], cb, nb, xb);
			for (int key = 1; key >= -1 && ua > 0 && ub > 0; key--) {
				sibling_round(m, xa, ua, xb, ub, key, sa, sb);
				ua = unpaired_kids(&m->s[0], xa, ua, xa);
				ub = unpaired_kids(&m->s[1], xb, ub, xb);
			}
			/* arrays, and a class's static fields: by position */
			if ((ha->node_kind[a] == NK_OBJARRAY && hb->node_kind[b] == NK_OBJARRAY) ||
			    (ha->node_kind[a] == NK_CLASS && hb->node_kind[b] == NK_CLASS))
				gap_round(m, ca, na, cb, nb);
		}
		if (any_unpaired(&m->s[0], ha->in + ha->in_start[a], ha->in_start[a + 1] - ha->in_start[a]) &&
		    any_unpaired(&m->s[1], hb->in + hb->in_start[b], hb->in_start[b + 1] - hb->in_start[b]))
			referrer_round(m, a, b, sa, sb);
	}
	progress_update(m->p, pairs_so_far(m));
	free(ca);
	free(cb);
	free(xa);
	free(xb);
	free(sa);
	free(sb);
}

/* Every object that refers to v paired? (a new referrer: v is new too) */
static int referrers_paired(const struct side *s, node_t v)
{
	const struct heap *h = s->h;

	for (edge_t e = h->in_start[v]; e < h->in_start[v + 1]; e++)
		if (h->in[e] != 0 && s->peer[h->in[e]] == HW_NONE)
			return 0;
	return 1;
}

/* Last: what is left, identical (h1: itself and its children's
 * content), at the same address in both dumps, and referred to by
 * paired objects only, was not moved, or is one of several that nothing
 * tells apart, where pairing keeps the per-class counts right. Guesses: they do not spread; the round repeats
 * while it pairs (a referrer paired here lets its children pass). */
static void address_round(struct matcher *m)
{
	const struct heap *ha = m->s[0].h, *hb = m->s[1].h;
	uint64_t before;
	int passes = 0;

	do { /* a chain of such objects takes a pass a link: a few passes at most */
		if (progress_cancelled(m->p))
			break;
		before = m->pairs[HOW_ADDRESS];
		for (node_t y = 1; y < hb->n; y++) {
			if (m->s[1].peer[y] != HW_NONE || hb->node_kind[y] == NK_ROOT)
				continue;
			node_t x = heap_find_id(ha, heap_node_id(hb, y));
			if (x == HW_NONE || m->s[0].peer[x] != HW_NONE || m->s[0].h1[x] != m->s[1].h1[y] ||
			    cname_of(&m->s[0], x) != cname_of(&m->s[1], y) ||
			    !referrers_paired(&m->s[0], x) || !referrers_paired(&m->s[1], y))
				continue;
			push(m, x, y, HOW_ADDRESS);
		}
	} while (m->pairs[HOW_ADDRESS] != before && ++passes < 8);
	m->q.head = m->q.n;
}

static void pair_classes(struct matcher *m)
{
	size_t na, nb;
	struct kv *a = xmalloc(((size_t)m->s[0].h->ncls + 1) * sizeof *a);
	struct kv *b = xmalloc(((size_t)m->s[1].h->ncls + 1) * sizeof *b);

	na = nb = 0;
	for (uint32_t c = 0; c < m->s[0].h->ncls; c++)
		if (m->s[0].h->cls[c].node != HW_NONE)
			a[na++] = (struct kv){ m->s[0].cname[c], m->s[0].h->cls[c].node };
	for (uint32_t c = 0; c < m->s[1].h->ncls; c++)
		if (m->s[1].h->cls[c].node != HW_NONE)
			b[nb++] = (struct kv){ m->s[1].cname[c], m->s[1].h->cls[c].node };
	sort_kv(a, na);
	sort_kv(b, nb);
	/* one name, several loaders: in order of their ids */
	m->round_how = HOW_CLASS;
	join_runs(m, a, na, b, nb, sizeof *a, pair_in_order);
	free(a);
	free(b);
}

/* What makes two unpaired objects alike: their own content, or for a
 * value that is replaced, never changed (a String), its content with
 * its children's (the characters). */
static uint64_t alike_key(const struct matcher *m, int side, node_t v)
{
	const struct side *s = &m->s[side];
	uint32_t c = s->h->node_class[v];

	if (c == HW_NONE)
		return s->h0[v];
	if (s->immutable[c])
		return s->h1[v];
	return s->h0[v];
}

/* Is every referrer of v in sure and not in swapped (and there is one,
 * no root)? */
static int held_only_by(const struct heap *h, const struct objset *sure, const uint8_t *swapped, node_t v)
{
	if (h->in_start[v] == h->in_start[v + 1])
		return 0;
	for (edge_t e = h->in_start[v]; e < h->in_start[v + 1]; e++)
		if (h->in[e] == 0 || !bit_get(sure->bits, h->in[e]) || swapped[h->in[e]])
			return 0;
	return 1;
}

/* An ambiguous object that only new objects refer to (only gone ones,
 * on the older side) is new (gone) with them: a survivor would be held
 * by a survivor. But not by a new object that took a gone one's place
 * (swapped: a grown list's new array, on the older side its old one):
 * the survivors moved into it. From sure to amb's objects it holds, a
 * worklist. */
static void held_by_sure(const struct heap *h, struct objset *sure, struct objset *amb, const uint8_t *swapped)
{
	node_t *work = NULL;
	size_t n = 0, cap = 0;

	for (node_t v = 1; v < h->n; v++)
		if (bit_get(amb->bits, v) && held_only_by(h, sure, swapped, v)) {
			if (n == cap)
				work = xreallocarray(work, cap = cap ? cap * 2 : 256, sizeof *work);
			work[n++] = v;
			bit_clear(amb->bits, v);
			bit_set(sure->bits, v);
		}
	while (n > 0) {
		node_t v = work[--n];
		for (edge_t e = h->out_start[v]; e < h->out_start[v + 1]; e++) {
			node_t y = h->out[e];
			if (!bit_get(amb->bits, y) || !held_only_by(h, sure, swapped, y))
				continue;
			if (n == cap)
				work = xreallocarray(work, cap = cap ? cap * 2 : 256, sizeof *work);
			work[n++] = y;
			bit_clear(amb->bits, y);
			bit_set(sure->bits, y);
		}
	}
	free(work);
}

/* Per class of h: are its objects values (the runtime's value_classes)? */
static uint8_t *value_classes(const struct heap *h)
{
	const struct runtime_ops *rt = heap_runtime(h);
	uint8_t *is = xcalloc((size_t)h->ncls + 1, 1);

	if (rt == NULL || rt->value_classes == NULL)
		return is;
	for (uint32_t c = 0; c < h->ncls; c++)
		for (const char *const *n = rt->value_classes; *n != NULL; n++)
			if (strcmp(class_name(h, c), *n) == 0)
				is[c] = 1;
	return is;
}

/* A side's unpaired objects with the keys that make them alike, sorted. */
static struct kv *unpaired_alike(const struct matcher *m, int side, size_t *n)
{
	const struct side *s = &m->s[side];
	size_t k = 0;

	for (node_t v = 1; v < s->h->n; v++)
		k += s->peer[v] == HW_NONE;
	struct kv *a = xmalloc((k + 1) * sizeof *a);
	k = 0;
	for (node_t v = 1; v < s->h->n; v++)
		if (s->peer[v] == HW_NONE)
			a[k++] = (struct kv){ alike_key(m, side, v), v };
	sort_kv(a, k);
	*n = k;
	return a;
}

/* Pairs made by a guess among lookalikes: in order among identical
 * objects (a gap of an array, objects only roots hold), or by address. */
static int guessed(uint8_t how)
{
	return how == HOW_GAP || how == HOW_ROOTED || how == HOW_ADDRESS;
}

/* The keys (alike_key) of both members of every guessed pair, sorted. */
static struct kv *guessed_keys(const struct matcher *m, size_t *n)
{
	size_t k = 0;

	for (int i = 0; i < 2; i++)
		for (node_t v = 1; v < m->s[i].h->n; v++)
			k += m->s[i].peer[v] != HW_NONE && guessed(m->s[i].how[v]);
	struct kv *a = xmalloc((k + 1) * sizeof *a);
	k = 0;
	for (int i = 0; i < 2; i++)
		for (node_t v = 1; v < m->s[i].h->n; v++)
			if (m->s[i].peer[v] != HW_NONE && guessed(m->s[i].how[v]))
				a[k++] = (struct kv){ alike_key(m, i, v), v };
	sort_kv(a, k);
	*n = k;
	return a;
}

static int has_key(const struct kv *a, size_t n, uint64_t key)
{
	size_t lo = lower_bound_u64s(a, n, sizeof *a, key);

	return lo < n && a[lo].key == key;
}

/* How many of the sorted keys a are key (two binary searches: a group
 * of 300,000 alike is counted as fast as one). */
static size_t key_count(const struct kv *a, size_t n, uint64_t key)
{
	size_t lo = lower_bound_u64s(a, n, sizeof *a, key), hi = n;

	if (lo == n || a[lo].key != key)
		return 0;
	for (size_t l = lo; l < hi;) { /* the first past key */
		size_t mid = l + (hi - l) / 2;
		if (a[mid].key <= key)
			l = mid + 1;
		else
			hi = mid;
	}
	return hi - lo;
}

/* Per node of A: is its pair a choice among lookalikes? A pair made in
 * order where an object alike to either member (alike_key) was left
 * unpaired or paired by a guess too, on either side: the truth may be
 * any other partner, or none (300,000 identical objects in a list, 1,000
 * dropped at its head and 1,000 made at its end pair all in order, and
 * none would be new). A pair at one address where an object alike was
 * left unpaired on either side: some of its kind died or were made, and
 * a new one may sit where a dead one was (a compacting collector's
 * addresses come round again). 1: doubtful. */
static uint8_t *doubtful_pairs(const struct matcher *m, struct kv *const unp[2], const size_t nu[2])
{
	const struct side *sa = &m->s[0];
	struct kv *cand[2];
	size_t nc[2];

	for (int i = 0; i < 2; i++) { /* the unpaired (answer()'s, sorted) and the guessed */
		const struct side *s = &m->s[i];
		size_t k = nu[i];
		for (node_t v = 1; v < s->h->n; v++)
			k += s->peer[v] != HW_NONE && guessed(s->how[v]);
		cand[i] = xmalloc((k + 1) * sizeof *cand[i]);
		memcpy(cand[i], unp[i], nu[i] * sizeof *cand[i]);
		k = nu[i];
		for (node_t v = 1; v < s->h->n; v++)
			if (s->peer[v] != HW_NONE && guessed(s->how[v]))
				cand[i][k++] = (struct kv){ alike_key(m, i, v), v };
		sort_kv(cand[i], k);
		nc[i] = k;
	}
	uint8_t *d = xcalloc(sa->h->n, 1);
	for (node_t x = 1; x < sa->h->n; x++) {
		if (sa->peer[x] == HW_NONE || !guessed(sa->how[x]))
			continue;
		node_t y = sa->peer[x];
		uint64_t kx = alike_key(m, 0, x), ky = alike_key(m, 1, y);
		if (sa->how[x] == HOW_ADDRESS) {
			/* at one address: a new object took a dead one's place
			 * only where some of its kind died or were made */
			d[x] = key_count(unp[0], nu[0], kx) + key_count(unp[1], nu[1], kx) +
				       key_count(unp[0], nu[0], ky) + key_count(unp[1], nu[1], ky) > 0;
			continue;
		}
		size_t gx = key_count(cand[0], nc[0], kx) + key_count(cand[1], nc[1], kx) - (kx == ky);
		size_t gy = key_count(cand[0], nc[0], ky) + key_count(cand[1], nc[1], ky) - (kx == ky);
		d[x] = gx > 1 || gy > 1;
	}
	free(cand[0]);
	free(cand[1]);
	return d;
}

/* Pairs made by spreading along references (not by a name, a unique
 * content or an address). */
static int spread_how(uint8_t how)
{
	return how == HOW_FIELD || how == HOW_SIBLING || how == HOW_GAP || how == HOW_REFERRER;
}

/* Is every referrer of v new or ambiguous (in one of the sets), no root?
 * The sets only grow while the doubt spreads: seen[v] referrers were in
 * them at an earlier look, and the next look goes on from there (a
 * shared object held by 100,000 doubtful ones is read once, not once
 * for each). */
static int held_by_unsure(const struct heap *h, const struct objset *a, const struct objset *b, node_t v,
			  uint32_t *seen)
{
	edge_t s = h->in_start[v], e = s + seen[v];

	if (s == h->in_start[v + 1])
		return 0;
	for (; e < h->in_start[v + 1]; e++)
		if (h->in[e] == 0 || (!bit_get(a->bits, h->in[e]) && !bit_get(b->bits, h->in[e])))
			break;
	seen[v] = (uint32_t)(e - s);
	return e == h->in_start[v + 1];
}

/* The doubtful pairs' objects are ambiguous, and so is a pair made by
 * spreading whose object is held, on either side, only by ambiguous or
 * new (gone) objects: it came with them, and may be as new as they may
 * be (a doubtful Thing's payload). A worklist from the doubtful pairs
 * down their references. */
static void doubt_spreads(const struct matcher *m, struct objset *sure[2], struct objset *amb[2],
			  struct kv *const unp[2], const size_t nu[2])
{
	uint8_t *d = doubtful_pairs(m, unp, nu);
	const struct heap *h[2] = { m->s[0].h, m->s[1].h };
	node_t *work = NULL;
	size_t n = 0, cap = 0;
	uint32_t *seen[2] = { xcalloc(h[0]->n, sizeof *seen[0]), xcalloc(h[1]->n, sizeof *seen[1]) };

	for (node_t x = 1; x < h[0]->n; x++)
		if (d[x]) {
			if (n == cap)
				work = xreallocarray(work, cap = cap ? cap * 2 : 256, sizeof *work);
			work[n++] = x;
			bit_set(amb[0]->bits, x);
			bit_set(amb[1]->bits, m->s[0].peer[x]);
		}
	free(d);
	while (n > 0) {
		node_t p[2];
		p[0] = work[--n];
		p[1] = m->s[0].peer[p[0]];
		for (int i = 0; i < 2; i++)
			for (edge_t e = h[i]->out_start[p[i]]; e < h[i]->out_start[p[i] + 1]; e++) {
				node_t c = h[i]->out[e];
				const struct side *s = &m->s[i];
				if (s->peer[c] == HW_NONE || bit_get(amb[i]->bits, c) || !spread_how(s->how[c]) ||
				    !held_by_unsure(h[i], sure[i], amb[i], c, seen[i]))
					continue;
				node_t x = i == 0 ? c : s->peer[c];
				bit_set(amb[0]->bits, x);
				bit_set(amb[1]->bits, m->s[0].peer[x]);
				if (n == cap)
					work = xreallocarray(work, cap = cap ? cap * 2 : 256, sizeof *work);
				work[n++] = x;
			}
	}
	free(work);
	free(seen[0]);
	free(seen[1]);
}

/* The answer: B's unpaired are new, A's unpaired gone, unless one of the
 * other side's unpaired is alike (alike_key), or an object alike was
 * paired by a guess (it may have been this one's partner): then nothing
 * told them apart, and it may be a survivor as well as a new (gone)
 * object. A doubtful pair (doubtful_pairs) is no answer either: both its
 * objects are ambiguous. Those are in no set but their own, unless only
 * new (gone) objects hold them. */
static void answer(const struct matcher *m, struct match_result *r)
{
	struct heap *h[2] = { m->s[0].h, m->s[1].h };
	struct objset *sure[2] = { &r->gone, &r->fresh }, *amb[2] = { &r->amb_gone, &r->amb_new };
	size_t n[2], ng;
	struct kv *keys[2] = { unpaired_alike(m, 0, &n[0]), unpaired_alike(m, 1, &n[1]) };
	struct kv *guess = guessed_keys(m, &ng);

	for (int i = 0; i < 2; i++) {
		objset_empty(h[i], sure[i]);
		objset_empty(h[i], amb[i]);
		for (size_t k = 0; k < n[i]; k++) {
			uint64_t key = keys[i][k].key;
			int alike = has_key(keys[!i], n[!i], key) || has_key(guess, ng, key);
			bit_set(alike ? amb[i]->bits : sure[i]->bits, keys[i][k].v);
		}
	}
	free(guess);
	doubt_spreads(m, sure, amb, keys, n);
	uint8_t *swapped[2] = { xcalloc(h[0]->n, 1), xcalloc(h[1]->n, 1) };
	for (node_t a = 1; a < h[0]->n; a++)
		if (m->place[a] != HW_NONE && m->s[0].peer[a] == HW_NONE)
			swapped[0][a] = swapped[1][m->place[a]] = 1;
	for (int i = 0; i < 2; i++) {
		held_by_sure(h[i], sure[i], amb[i], swapped[i]);
		objset_recount(h[i], sure[i]);
		objset_recount(h[i], amb[i]);
		free(swapped[i]);
	}
	/* the new ones that took a gone one's place */
	objset_empty(h[1], &r->took_place);
	for (node_t a = 1; a < h[0]->n; a++) {
		node_t b = m->place[a];
		if (b != HW_NONE && m->s[0].peer[a] == HW_NONE && objset_has(&r->fresh, b))
			bit_set(r->took_place.bits, b);
	}
	objset_recount(h[1], &r->took_place);
	free(keys[0]);
	free(keys[1]);
}

/* The confidence of the "new" answers, fresh's mean: 0.99 for an object
 * whose content no object of A has at all, made since; 0.9 where a
 * paired object of A has it (the references said it is not that one,
 * but an old object changed beyond recognition would look so too).
 * tests/test_calibrate.c holds these figures to the measured precision. */
static double confidence(const struct matcher *m, const struct objset *fresh)
{
	const struct heap *a = m->s[0].h, *b = m->s[1].h;
	struct kv *all = xmalloc(((size_t)a->n + 1) * sizeof *all);
	size_t n = 0;
	double sum = 0;

	if (fresh->count == 0) {
		free(all);
		return 1.0;
	}
	for (node_t v = 1; v < a->n; v++)
		all[n++] = (struct kv){ m->s[0].h0[v], v };
	sort_kv(all, n);
	for (node_t v = 1; v < b->n; v++) {
		if (!bit_get(fresh->bits, v))
			continue;
		size_t lo = lower_bound_u64s(all, n, sizeof *all, m->s[1].h0[v]);
		sum += lo < n && all[lo].key == m->s[1].h0[v] ? 0.9 : 0.99;
	}
	free(all);
	return sum / (double)fresh->count;
}

int match_dumps(struct heap *a, struct heap *b, unsigned flags, struct match_result *r,
		struct progress *p)
{
	struct matcher m;

	memset(&m, 0, sizeof m);
	memset(r, 0, sizeof *r);
	m.p = p;
	sbuf_init(&m.label);
	heap_need(a, HP_NODES | HP_SHALLOW | HP_OUT | HP_IN, p);
	heap_need(b, HP_NODES | HP_SHALLOW | HP_OUT | HP_IN, p);
	/* every object's contents are read, those of pairs again along the
	 * references: at random (a gzip dump through its view would inflate
	 * each member again and again) */
	heap_whole(a, p);
	heap_whole(b, p);
	m.s[0].h = a;
	m.s[1].h = b;
	progress_begin(p, "matching objects", b->n, "pairs");
	for (int i = 0; i < 2; i++) {
		struct side *s = &m.s[i];
		s->peer = xmalloc((size_t)s->h->n * sizeof *s->peer);
		memset(s->peer, 0xff, (size_t)s->h->n * sizeof *s->peer);
		s->how = xcalloc(s->h->n, 1);
		content_hashes(s, classes_qualified(a, b));
		s->h1 = context_hashes(s->h, s->h0);
	}
	m.place = xmalloc((size_t)a->n * sizeof *m.place);
	memset(m.place, 0xff, (size_t)a->n * sizeof *m.place);
	m.posb = xmalloc((size_t)b->n * sizeof *m.posb);
	memset(m.posb, 0xff, (size_t)b->n * sizeof *m.posb);
	m.s[0].immutable = value_classes(a);
	m.s[1].immutable = value_classes(b);
	/* the strong evidence first: names of classes, unique contents; then
	 * what the references say */
	pair_classes(&m);
	keyed_round(&m, m.s[0].h1, m.s[1].h1, 0, HOW_H1);
	spread(&m);
	/* own content alone (changed children): over what is left, far less */
	keyed_round(&m, m.s[0].h0, m.s[1].h0, 0, HOW_H0);
	spread(&m);
	keyed_round(&m, m.s[0].h1, m.s[1].h1, 1, HOW_ROOTED);
	spread(&m);
	if (!(flags & MATCH_BLIND))
		address_round(&m);
	progress_end(p);

	answer(&m, r);
	r->pairs = pairs_so_far(&m);
	r->pairs_amb = 0;
	for (node_t v = 1; v < b->n; v++)
		r->pairs_amb += m.s[1].peer[v] != HW_NONE && objset_has(&r->amb_new, v);
	r->confidence = confidence(&m, &r->fresh);
	free(m.s[0].immutable);
	free(m.s[1].immutable);

	for (int i = 0; i < 2; i++) {
		free(m.s[i].h0);
		free(m.s[i].h1);
		free(m.s[i].cname);
		free(m.s[i].peer);
		free(m.s[i].how);
	}
	free(m.q.a);
	free(m.q.b);
	free(m.posb);
	free(m.place);
	free(m.dup);
	sbuf_free(&m.label);
	return 0;
}

void match_result_free(struct match_result *r)
{
	objset_free(&r->fresh);
	objset_free(&r->gone);
	objset_free(&r->amb_new);
	objset_free(&r->amb_gone);
	objset_free(&r->took_place);
}
