/* merged.c — one level of a merged reference tree: the neighbours of a
 * set of objects grouped by class (or class and field), with the set's
 * members that reach each group. See merged.h for the contract.
 *
 * One pass over the references of the set. A neighbour joins the first
 * group it meets through a per-node group number (by class: its class's
 * group); one met again through another field (a map node holding a
 * member as key and as value) also joins that group, in a short list per
 * node. A scan of the marks then lists each group's neighbours in index
 * order: nothing is sorted. Members come one at a time, so a group's
 * members need no sort either (but those a chain added, and those of
 * a large set whose incoming references by field are read from the
 * referrers' side, in file order: see incoming_by_referrer).
 *
 * Field labels are numbers, not strings: a field's name offset in the
 * heap's names, or one of the L_* below. Each member's record is read
 * once: by the sorted ids of its reference fields for outgoing
 * references (out[] is sorted by node, and nodes by id), by its own id
 * against the referrer's fields for incoming ones. A label is never
 * found by scanning an array for an element. */
#include "query/merged.h"

#include <stdlib.h>
#include <string.h>

#include "graph/reader.h"
#include "graph/analysis.h"
#include "graph/reader.h"

#define L_NONE    0xffffffffu /* by class */
#define L_ARRAY   0xfffffff0u /* "[]": any element of an object array */
#define L_CLASS   0xfffffff1u /* "<class>": an instance's class object */
#define L_TRANS   0xfffffff2u /* "<transitive>": a dominator that holds it indirectly */
#define L_UNKNOWN 0xfffffff3u /* "<?>" */
#define L_CELEM   0xfffffff4u /* a collection's element (runtime_ops) */
#define L_CKEY    0xfffffff5u /* a map's key */
#define L_CVALUE  0xfffffff6u /* a map's value */
#define L_STR     0x80000000u /* | index of an interned string */

/* ---- small vectors ---- */
struct nvec {
	node_t *v;
	size_t n, cap;
};

static void nvec_grow(struct nvec *a)
{
	a->cap = a->cap ? a->cap * 2 : 16;
	a->v = xreallocarray(a->v, a->cap, sizeof *a->v);
}

/* Inlined into the per-reference loops: a call per reference shows. */
#define HOT static inline __attribute__((always_inline))

HOT void nvec_push(struct nvec *a, node_t x)
{
	if (a->n == a->cap)
		nvec_grow(a);
	a->v[a->n++] = x;
}

static int cmp_node(const void *a, const void *b, void *ctx)
{
	node_t x = *(const node_t *)a, y = *(const node_t *)b;

	(void)ctx;
	return x < y ? -1 : x > y;
}

/* Sort node indices: LSD radix by 16 bits for big arrays (a by-field
 * level over every object sorts millions of extras). */
static void sort_nodes(node_t *v, size_t n)
{
	if (n < 4096) {
		hw_sort(v, n, sizeof *v, cmp_node, NULL);
		return;
	}
	node_t *tmp = xmalloc(n * sizeof *tmp), *src = v, *dst = tmp;
	size_t *cnt = xmalloc(65537 * sizeof *cnt);
	for (int shift = 0; shift < 32; shift += 16) {
		memset(cnt, 0, 65537 * sizeof *cnt);
		for (size_t i = 0; i < n; i++)
			cnt[((src[i] >> shift) & 0xffff) + 1]++;
		for (size_t i = 1; i < 65537; i++)
			cnt[i] += cnt[i - 1];
		for (size_t i = 0; i < n; i++)
			dst[cnt[(src[i] >> shift) & 0xffff]++] = src[i];
		node_t *t = src;
		src = dst;
		dst = t;
	}
	free(tmp); /* two passes: the result is back in v */
	free(cnt);
}

/* Sort a list of nodes and keep each once. */
static void nodes_unique(struct nvec *a)
{
	size_t k = 0;

	sort_nodes(a->v, a->n);
	for (size_t i = 0; i < a->n; i++)
		if (k == 0 || a->v[k - 1] != a->v[i])
			a->v[k++] = a->v[i];
	a->n = k;
}

/* ---- group keys: a class and, by field, a label ---- */
/* by_cls's slot of a class: the virtual root's groups after the classes */
static inline uint32_t cls_slot(uint32_t cls, uint32_t ncls)
{
	return cls == MG_ROOT ? ncls : cls == MG_WEAKLY ? ncls + 1 : cls == MG_UNREACHABLE ? ncls + 2 : cls;
}
#define CLS_SLOTS(ncls) ((size_t)(ncls) + 3)

struct key {
	uint32_t cls;
	uint32_t lid;
	uint32_t weak;  /* a weak reference's group: apart from the strong one */
};

struct groups {
	struct key *k;
	size_t n, cap;
	uint32_t *by_cls;      /* by class: class (cls_slot) -> group + 1 */
	uint32_t *hash;        /* by field: open addressing, group + 1 */
	size_t hcap;
};

static uint64_t key_hash(uint32_t cls, uint32_t lid, uint32_t weak)
{
	uint64_t x = ((uint64_t)cls << 32 | lid) * 0x9e3779b97f4a7c15ull + weak;

	return x ^ x >> 29;
}

static uint32_t group_new(struct groups *g, uint32_t cls, uint32_t lid, uint32_t weak)
{
	if (g->n == g->cap) {
		g->cap = g->cap ? g->cap * 2 : 16;
		g->k = xreallocarray(g->k, g->cap, sizeof *g->k);
	}
	g->k[g->n] = (struct key){ cls, lid, weak };
	return (uint32_t)g->n++;
}

/* Room for every group, at most half full: by class the strong groups
 * live in by_cls and the hash is first made when a weak one comes, with
 * hundreds of groups already there. */
static void rehash(struct groups *g)
{
	size_t cap = g->hcap ? g->hcap * 2 : 64;
	while (cap < 2 * (g->n + 1))
		cap *= 2;
	uint32_t *t = xcalloc(cap, sizeof *t);

	for (size_t i = 0; i < g->n; i++) {
		size_t j = key_hash(g->k[i].cls, g->k[i].lid, g->k[i].weak) & (cap - 1);
		while (t[j] != 0)
			j = (j + 1) & (cap - 1);
		t[j] = (uint32_t)i + 1;
	}
	free(g->hash);
	g->hash = t;
	g->hcap = cap;
}

/* By class a strong group is found in a table by class; the others (by
 * field, and weak ones) in the hash. */
static uint32_t group_of(struct groups *g, uint32_t ncls, uint32_t cls, uint32_t lid, uint32_t weak)
{
	if (lid == L_NONE && !weak) {
		uint32_t slot = cls_slot(cls, ncls);
		if (g->by_cls[slot] == 0)
			g->by_cls[slot] = group_new(g, cls, L_NONE, 0) + 1;
		return g->by_cls[slot] - 1;
	}
	if (2 * (g->n + 1) > g->hcap)
		rehash(g);
	size_t j = key_hash(cls, lid, weak) & (g->hcap - 1);
	while (g->hash[j] != 0) {
		struct key *k = &g->k[g->hash[j] - 1];
		if (k->cls == cls && k->lid == lid && k->weak == weak)
			return g->hash[j] - 1;
		j = (j + 1) & (g->hcap - 1);
	}
	uint32_t id = group_new(g, cls, lid, weak);
	g->hash[j] = id + 1;
	return id;
}

/* ---- field labels ---- */
struct idslot {
	uint64_t id;
	uint32_t slot;  /* index into the class's reference fields; SLOT_CLASS */
};
#define SLOT_CLASS 0xffffffffu

/* The virtual root's groups: see root_group. */
struct rootgroups {
	const bits_t *strong, *live;
};

struct walk {
	struct heap *h;
	enum merged_kind kind;
	enum merged_by by;
	uint32_t **slots;      /* per class: the name of each reference field, lazily */
	char **strs;           /* interned labels (L_STR) */
	size_t nstrs;
	struct idslot *ids;    /* scratch: one record's reference fields */
	size_t idscap;
	uint32_t *match;       /* scratch: the fields of a referrer that hold the member */
	size_t matchcap;
	const struct runtime_ops *rt; /* by field, in and out: collections as their contents, */
	void *jc;                     /* in rt's context; NULL: none */
	struct sbuf tmp;
	/* references are named edges (V8), not fields at offsets: a label
	 * is the edge's name, elements grouped as "[]" */
	int named;
	uint32_t *strs_hash;   /* intern's index over strs, open addressing */
	size_t strs_hcap;
	/* incoming with the weak holders: the objects whose only root is the
	 * engine's pseudo root for the weakly reachable, which is no GC root:
	 * their weak holders stand for it (NULL: no weak holders shown) */
	bits_t *wonly;
	struct rootgroups rgs, *rg; /* the virtual root's groups (rg NULL: the roots' alone) */
};

/* ---- the virtual root's groups ----
 * The virtual root stands for the GC roots (or the analysis root) and
 * for the engine's pseudo roots, which are none: an object it holds
 * that the roots do not reach over strong references is weakly
 * reachable (MG_WEAKLY) or unreachable (MG_UNREACHABLE), in a group of
 * that name, not with the roots. By the analysis's markings (heap.h's
 * reach_strong, reach_live), made once. */

/* 0 where every object the virtual root holds is the roots' (no pseudo
 * roots), rg unset. */
static int rootgroups_make(struct heap *h, struct rootgroups *rg)
{
	if (!analysis_reach(h))
		return 0;
	rg->strong = h->reach_strong;
	rg->live = h->reach_live;
	return 1;
}

/* The group (MG_ROOT, MG_WEAKLY, MG_UNREACHABLE) of x, a neighbour of
 * the virtual root. */
static uint32_t root_group(const struct rootgroups *rg, node_t x)
{
	if (rg == NULL || bit_get(rg->strong, x))
		return MG_ROOT;
	return bit_get(rg->live, x) ? MG_WEAKLY : MG_UNREACHABLE;
}

const char *merged_cls_name(const struct heap *h, uint32_t cls)
{
	int a = h->aroot != 0;

	switch (cls) {
	case MG_ROOT: return a ? "analysis root" : "GC roots";
	case MG_WEAKLY: return a ? "not the analysis root's: weakly reachable" : "no GC root: weakly reachable";
	case MG_UNREACHABLE: return a ? "not the analysis root's: unreachable" : "no GC root: unreachable";
	default: return class_name(h, cls);
	}
}

static void walk_init(struct walk *w, struct heap *h, enum merged_kind kind, enum merged_by by)
{
	memset(w, 0, sizeof *w);
	w->h = h;
	w->kind = kind;
	w->by = by;
	w->named = !heap_runtime_is(h, "jvm");
	if (by != MG_BY_CLASS)
		w->slots = xcalloc((size_t)h->ncls + 1, sizeof *w->slots);
	/* the runtime's knowledge of collections (runtime_ops): the one hook */
	if (by == MG_BY_FIELD && kind != MG_DOMINATING && !w->named)
		w->jc = (w->rt = heap_runtime(h)) != NULL && w->rt->contents_open != NULL ? w->rt->contents_open(h)
											    : NULL;
	sbuf_init(&w->tmp);
}

static void walk_free(struct walk *w)
{
	for (uint32_t c = 0; w->slots != NULL && c < w->h->ncls; c++)
		free(w->slots[c]);
	free(w->slots);
	for (size_t i = 0; i < w->nstrs; i++)
		free(w->strs[i]);
	free(w->strs);
	free(w->strs_hash);
	free(w->ids);
	free(w->match);
	free(w->wonly);
	if (w->jc != NULL)
		w->rt->contents_close(w->jc);
	sbuf_free(&w->tmp);
}

static void strs_rehash(struct walk *w)
{
	size_t cap = w->strs_hcap ? w->strs_hcap * 2 : 256;

	free(w->strs_hash);
	w->strs_hash = xmalloc(cap * sizeof *w->strs_hash);
	memset(w->strs_hash, 0xff, cap * sizeof *w->strs_hash);
	w->strs_hcap = cap;
	for (size_t i = 0; i < w->nstrs; i++) {
		size_t j = hw_fnv(w->strs[i], strlen(w->strs[i])) & (cap - 1);
		while (w->strs_hash[j] != HW_NONE)
			j = (j + 1) & (cap - 1);
		w->strs_hash[j] = (uint32_t)i;
	}
}

/* The label of a string: interned (class records, odd cases, and every
 * edge name of a format whose references are named). */
static uint32_t intern(struct walk *w, const char *s)
{
	if (w->nstrs * 2 >= w->strs_hcap)
		strs_rehash(w);
	size_t j = hw_fnv(s, strlen(s)) & (w->strs_hcap - 1);
	for (; w->strs_hash[j] != HW_NONE; j = (j + 1) & (w->strs_hcap - 1))
		if (strcmp(w->strs[w->strs_hash[j]], s) == 0)
			return L_STR | w->strs_hash[j];
	/* the table grown as the hash is (it holds at most half as many):
	 * a string at a time moved it all each time where realloc could
	 * not grow it in place (a Mono file's fuzzed input: 6 s, under ASan) */
	if (w->nstrs == 0 || (w->nstrs & (w->nstrs - 1)) == 0)
		w->strs = xreallocarray(w->strs, w->nstrs ? 2 * w->nstrs : 1, sizeof *w->strs);
	w->strs[w->nstrs] = xstrdup(s);
	w->strs_hash[j] = (uint32_t)w->nstrs;
	return L_STR | (uint32_t)w->nstrs++;
}

static uint32_t name_label(struct walk *w, uint32_t off)
{
	return off < L_STR ? off : intern(w, heap_str(w->h, off));
}

/* How class object y refers to x, read from its record (statics, super,
 * loader...): interned. */
static uint32_t record_label(struct walk *w, node_t y, node_t x)
{
	sbuf_reset(&w->tmp);
	heap_edge_label(w->h, y, x, &w->tmp);
	return intern(w, w->tmp.buf);
}

/* How y refers to x when references are named edges: the edge's name,
 * an element ("[7]", or an internal slot named by its index, "7") as
 * any element. A weak one's name without the reader's "weak " (its
 * row is marked weak): V8's weak slots ("weak 3") are elements too. */
static uint32_t edge_group_label(struct walk *w, node_t y, node_t x, int weak)
{
	sbuf_reset(&w->tmp);
	heap_edge_label(w->h, y, x, &w->tmp);
	const char *s = w->tmp.buf;
	size_t n = w->tmp.len;
	if (weak && n > 5 && strncmp(s, "weak ", 5) == 0) {
		s += 5;
		n -= 5;
	}
	if (label_is_element(s, n))
		return L_ARRAY;
	return intern(w, s);
}

static const char *label_text(const struct walk *w, uint32_t lid)
{
	switch (lid) {
	case L_ARRAY: return "[]"; /* array elements: one group, not one per index */
	case L_CLASS: return "<class>";
	case L_TRANS: return "<transitive>";
	case L_UNKNOWN: return "<?>";
	case L_CELEM: return coll_role_name(CR_ELEMENT);
	case L_CKEY: return coll_role_name(CR_KEY);
	case L_CVALUE: return coll_role_name(CR_VALUE);
	}
	return lid & L_STR ? w->strs[lid & ~L_STR] : heap_str(w->h, lid);
}

/* The name of each reference field of class c, in the order of
 * h->refoffs (graph/classes.c): fields found by their offsets, so that
 * what the builder left out (Reference.referent) stays out here too. */
static const uint32_t *slot_names(struct walk *w, uint32_t c)
{
	struct heap *h = w->h;
	const struct hclass *k = &h->cls[c];

	if (w->slots[c] != NULL)
		return w->slots[c];
	uint32_t *s = xmalloc(((size_t)k->nrefs + 1) * sizeof *s);
	for (uint32_t j = 0; j < k->nrefs; j++)
		s[j] = L_UNKNOWN;
	uint32_t j = 0;
	for (uint32_t d = c, depth = 0; d != HW_NONE && depth < h->ncls; d = h->cls[d].super, depth++)
		for (unsigned i = 0; i < h->cls[d].nfields; i++) {
			const struct hfield *f = &h->fields[h->cls[d].field_first + i];
			/* refoffs ascend in record order: match them as they come */
			if (f->type == T_OBJECT && j < k->nrefs &&
			    h->refoffs[k->ref_first + j] == class_field_base(h, c, d) + f->off)
				s[j++] = name_label(w, f->name);
		}
	w->slots[c] = s;
	return s;
}

/* An instance's field bytes (none if x has no fields to read). */
static inline const uint8_t *inst_data(const struct heap *h, node_t x, uint32_t *nbytes)
{
	const uint8_t *d = heap_inst_data(h, x, nbytes);

	if (d == NULL)
		*nbytes = 0;
	return d;
}

static void ids_grow(struct walk *w, size_t n)
{
	if (n > w->idscap) {
		w->idscap = n * 2;
		w->ids = xreallocarray(w->ids, w->idscap, sizeof *w->ids);
		w->match = xreallocarray(w->match, w->idscap, sizeof *w->match);
	}
}

static int cmp_idslot(const void *a, const void *b, void *ctx)
{
	const struct idslot *x = a, *y = b;

	(void)ctx;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->slot < y->slot ? -1 : x->slot > y->slot;
}

/* The non-null reference fields of instance x (and its class object),
 * sorted by id; their number. */
static size_t inst_ids(struct walk *w, node_t x)
{
	const struct heap *h = w->h;
	const struct hclass *k = &h->cls[h->node_class[x]];
	unsigned ids = h->layout.idsize;
	uint32_t nbytes;
	const uint8_t *data = inst_data(h, x, &nbytes);
	size_t n = 0;

	ids_grow(w, (size_t)k->nrefs + 1);
	for (uint32_t j = 0; j < k->nrefs; j++) {
		uint32_t off = h->refoffs[k->ref_first + j];
		uint64_t id = (uint64_t)off + ids <= nbytes ? beid(data + off, ids) : 0; /* no wrap */
		if (id != 0)
			w->ids[n++] = (struct idslot){ id, j };
	}
	if (k->node != HW_NONE)
		w->ids[n++] = (struct idslot){ k->id, SLOT_CLASS };
	if (n > 16) {
		hw_sort(w->ids, n, sizeof *w->ids, cmp_idslot, NULL);
		return n;
	}
	for (size_t i = 1; i < n; i++) /* a handful of fields: no call per member */
		for (size_t j = i; j > 0 && cmp_idslot(&w->ids[j - 1], &w->ids[j], NULL) > 0; j--) {
			struct idslot t = w->ids[j];
			w->ids[j] = w->ids[j - 1];
			w->ids[j - 1] = t;
		}
	return n;
}

HOT uint32_t slot_label(struct walk *w, uint32_t c, uint32_t slot)
{
	if (slot == SLOT_CLASS)
		return L_CLASS;
	return (w->slots[c] != NULL ? w->slots[c] : slot_names(w, c))[slot];
}

typedef void (*visit_fn)(void *arg, node_t x, node_t y, uint32_t lid);

static uint32_t role_label(enum coll_role r)
{
	return r == CR_KEY ? L_CKEY : r == CR_VALUE ? L_CVALUE : L_CELEM;
}

/* Outgoing from a collection: its contents, then its own references but
 * those to its inside. */
struct coll_out {
	struct walk *w;
	visit_fn fn;
	void *arg;
	node_t x;
};

static void coll_content(void *arg, node_t holder, node_t target, enum coll_role role)
{
	struct coll_out *a = arg;

	(void)holder;
	a->fn(a->arg, a->x, target, role_label(role));
}

static void coll_own(void *arg, node_t x, node_t y, uint32_t lid)
{
	struct coll_out *a = arg;

	if (!a->w->rt->contents_inside(a->w->jc, x, y))
		a->fn(a->arg, x, y, lid);
}

static void out_labels(struct walk *w, node_t x, visit_fn fn, void *arg);

static void out_coll(struct walk *w, node_t x, visit_fn fn, void *arg)
{
	struct coll_out a = { w, fn, arg, x };

	w->rt->contents_walk(w->jc, x, coll_content, &a);
	out_labels(w, x, coll_own, &a);
}

/* Outgoing, by field: x's references with their fields. out[x] is
 * sorted by node and so by id: when it has as many entries as x has
 * non-null fields, they pair up in order; else (rules took some away,
 * or one pointed outside the dump) each target's id is read. */
static void out_labels(struct walk *w, node_t x, visit_fn fn, void *arg)
{
	struct heap *h = w->h;
	edge_t s = h->out_start[x], e = h->out_start[x + 1];
	uint32_t c = h->node_class[x];

	if (w->named) {
		for (edge_t j = s; j < e; j++)
			fn(arg, x, h->out[j], edge_group_label(w, x, h->out[j], 0));
		return;
	}
	switch (h->node_kind[x]) {
	case NK_INSTANCE: {
		size_t n = inst_ids(w, x);
		if (n == e - s) {
			for (edge_t j = s; j < e; j++)
				fn(arg, x, h->out[j], slot_label(w, c, w->ids[j - s].slot));
			break;
		}
		for (edge_t j = s; j < e; j++) {
			uint64_t id = heap_node_id(h, h->out[j]);
			uint32_t lid = L_UNKNOWN;
			for (size_t i = 0; i < n; i++)
				if (w->ids[i].id == id) {
					lid = slot_label(w, c, w->ids[i].slot);
					w->ids[i].id = 0; /* each field once */
					break;
				}
			fn(arg, x, h->out[j], lid);
		}
		break;
	}
	case NK_OBJARRAY: {
		int cls_seen = 0;
		for (edge_t j = s; j < e; j++) {
			node_t y = h->out[j];
			int is_cls = y == h->cls[c].node && !cls_seen;
			cls_seen |= is_cls;
			fn(arg, x, y, is_cls ? L_CLASS : L_ARRAY);
		}
		break;
	}
	case NK_PRIMARRAY:
		for (edge_t j = s; j < e; j++)
			fn(arg, x, h->out[j], L_CLASS);
		break;
	default: /* a class: statics, super, loader... read from its record */
		for (edge_t j = s; j < e; j++) {
			fn(arg, x, h->out[j], record_label(w, x, h->out[j]));
		}
	}
}

/* The label of the r-th reference (from 0) from y to x; xid is x's id
 * (0: not read yet, read here). */
static uint32_t ref_label(struct walk *w, node_t y, node_t x, unsigned r, uint64_t *xid)
{
	struct heap *h = w->h;
	uint32_t c = h->node_class[y];
	int is_cls = h->cls[c].node == x;

	if (w->named)
		return edge_group_label(w, y, x, 0);
	switch (h->node_kind[y]) {
	case NK_OBJARRAY:
		return is_cls && r == 0 ? L_CLASS : L_ARRAY;
	case NK_PRIMARRAY:
		return L_CLASS;
	case NK_INSTANCE: {
		const struct hclass *k = &h->cls[c];
		unsigned ids = h->layout.idsize;
		uint32_t nbytes, m = 0;
		const uint8_t *data = inst_data(h, y, &nbytes);
		if (*xid == 0)
			*xid = heap_node_id(h, x);
		for (uint32_t j = 0; j < k->nrefs; j++) { /* the r-th field holding x */
			uint32_t off = h->refoffs[k->ref_first + j];
			if ((uint64_t)off + ids <= nbytes && beid(data + off, ids) == *xid && m++ == r)
				return slot_label(w, c, j);
		}
		return is_cls ? L_CLASS : L_UNKNOWN;
	}
	default:
		return record_label(w, y, x);
	}
}

/* Does y refer to x? Over x's referrers: a dominator can be a huge
 * array, its dominated objects have few referrers each. */
static int refers(const struct heap *h, node_t y, node_t x)
{
	for (edge_t j = h->in_start[x]; j < h->in_start[x + 1]; j++)
		if (h->in[j] == y)
			return 1;
	return 0;
}

/* Calls fn for every neighbour y of x, once per reference, with the
 * field's label by field (L_NONE by class and for the GC roots).
 * Inlined, so that each caller's fn is a direct call. */
HOT void neighbours(struct walk *w, node_t x, visit_fn fn, void *arg)
{
	struct heap *h = w->h;
	int byf = w->by != MG_BY_CLASS;
	uint64_t xid = 0;

	switch (w->kind) {
	case MG_OUTGOING:
		if (byf && w->jc != NULL && w->rt->contents_is_coll(w->jc, x)) {
			out_coll(w, x, fn, arg);
			break;
		}
		if (byf) {
			out_labels(w, x, fn, arg);
			break;
		}
		for (edge_t j = h->out_start[x]; j < h->out_start[x + 1]; j++)
			fn(arg, x, h->out[j], L_NONE);
		break;
	case MG_INCOMING: {
		unsigned r = 0;
		for (edge_t j = h->in_start[x]; j < h->in_start[x + 1]; j++) {
			node_t y = h->in[j];
			/* in[] is sorted by referrer: a referrer's references in a run */
			r = j > h->in_start[x] && h->in[j - 1] == y ? r + 1 : 0;
			if (y == 0 && w->wonly != NULL && bit_get(w->wonly, x))
				continue; /* weakly reachable: its weak holders say so */
			if (byf && y != 0 && w->jc != NULL) { /* inside a collection: the collection */
				enum coll_role role;
				node_t c = w->rt->contents_holder(w->jc, y, x, r, &xid, &role);
				if (c != HW_NONE) {
					fn(arg, x, c, role_label(role));
					continue;
				}
			}
			fn(arg, x, y, byf && y != 0 ? ref_label(w, y, x, r, &xid) : L_NONE);
		}
		break;
	}
	case MG_DOMINATING: {
		node_t y = h->idom[x];
		if (y == HW_NONE || y == x)
			break;
		uint32_t lid = L_NONE;
		if (byf && y != 0)
			lid = refers(h, y, x) ? ref_label(w, y, x, 0, &xid) : L_TRANS;
		fn(arg, x, y, lid);
		break;
	}
	}
}

/* ---- the closure over a class-recursive chain ---- */
struct closure {
	const struct heap *h;
	uint32_t cls;
	bits_t *in;
	struct nvec list;
};

HOT void close_visit(void *arg, node_t x, node_t y, uint32_t lid)
{
	struct closure *c = arg;

	(void)x;
	(void)lid;
	if (y == 0 || bit_get(c->in, y) || c->h->node_class[y] != c->cls)
		return;
	bit_set(c->in, y);
	nvec_push(&c->list, y);
}

/* F into c (marks and list), closed over steps to objects of class pcls
 * when pcls is a class; -1 when cancelled. */
static int closure_make(struct heap *h, enum merged_kind kind, const node_t *from, size_t nfrom,
			uint32_t pcls, struct closure *c, struct progress *p)
{
	struct walk cw;

	memset(c, 0, sizeof *c);
	c->h = h;
	c->cls = pcls;
	c->in = xcalloc(bits_words(h->n), sizeof *c->in);
	c->list.cap = nfrom + 16;
	c->list.v = xmalloc(c->list.cap * sizeof *c->list.v);
	for (size_t i = 0; i < nfrom; i++)
		if (!bit_get(c->in, from[i])) {
			bit_set(c->in, from[i]);
			c->list.v[c->list.n++] = from[i];
		}
	if (pcls == HW_NONE || mg_root_group(pcls)) /* no class: nothing to close over */
		return 0;
	walk_init(&cw, h, kind, MG_BY_CLASS);
	for (size_t i = 0; i < c->list.n; i++) {
		neighbours(&cw, c->list.v[i], close_visit, c);
		if ((i & 0xffff) == 0xffff && (progress_update(p, i), progress_cancelled(p))) {
			walk_free(&cw);
			return -1;
		}
	}
	walk_free(&cw);
	return 0;
}

static void closure_free(struct closure *c)
{
	free(c->in);
	free(c->list.v);
}

/* ---- grouping ---- */
struct collect {
	const struct heap *h;
	struct groups g;
	const bits_t *in;   /* the closed F */
	uint32_t pcls;
	uint32_t *gid;      /* by field, per node: 1 + the first group it joined
	                     * (by class a node's group is its class's) */
	uint32_t last_cls, last_lid, last_g; /* the group of the last visit */
	struct key *memo_k;  /* by field: a direct-mapped cache of group_of */
	uint32_t *memo_g;
	bits_t *seen;       /* the nodes with a gid */
	size_t *cnt;        /* per group: nodes whose first group it is */
	struct more { uint32_t g, next; } *more; /* by field: further groups of a node, */
	uint32_t *more_head; /* lists from more_head[node] (index + 1 into more) */
	size_t nmore, capmore;
	struct nvec *reach; /* per group: members with a neighbour in it */
	const struct rootgroups *rg; /* the walk's */
	int unsorted;       /* members come out of order (from the referrers' side) */
	size_t cap;         /* of cnt, reach */
};

static void per_group_grow(struct collect *c)
{
	size_t old = c->cap;

	if (c->g.n <= old)
		return;
	c->cap = c->g.n * 2;
	c->cnt = xreallocarray(c->cnt, c->cap, sizeof *c->cnt);
	c->reach = xreallocarray(c->reach, c->cap, sizeof *c->reach);
	memset(c->cnt + old, 0, (c->cap - old) * sizeof *c->cnt);
	memset(c->reach + old, 0, (c->cap - old) * sizeof *c->reach);
}

/* A visit's group: by class one look-up in a table; by field the last
 * visit's group when the key is the same (a member's fields often are),
 * else the hash. */
/* y is also in group g (not its first), unless it was already. */
static void more_add(struct collect *c, node_t y, uint32_t g)
{
	for (uint32_t k = c->more_head[y]; k != 0; k = c->more[k - 1].next)
		if (c->more[k - 1].g == g)
			return;
	if (c->nmore == c->capmore) {
		c->capmore = c->capmore ? c->capmore * 2 : 1024;
		if (c->capmore >= UINT32_MAX)
			hw_fatal("merged references: more than 2^32 (group, object) pairs");
		c->more = xreallocarray(c->more, c->capmore, sizeof *c->more);
	}
	c->more[c->nmore++] = (struct more){ g, c->more_head[y] };
	c->more_head[y] = (uint32_t)c->nmore;
	c->cnt[g]++;
}

HOT uint32_t collect_group(struct collect *c, uint32_t cls, uint32_t lid, uint32_t weak)
{
	uint32_t g;

	if (lid == L_NONE && !weak) {
		g = c->g.by_cls[cls_slot(cls, c->h->ncls)];
		if (g != 0)
			return g - 1;
	} else if (cls == c->last_cls && lid == c->last_lid && !weak) {
		return c->last_g;
	} else {
		size_t m = (cls * 0x9e3779b1u ^ lid * 0x85ebca6bu ^ weak) >> 22;
		if (c->memo_k[m].cls == cls && c->memo_k[m].lid == lid && c->memo_k[m].weak == weak)
			return c->memo_g[m];
		g = group_of(&c->g, c->h->ncls, cls, lid, weak);
		c->memo_k[m] = (struct key){ cls, lid, weak };
		c->memo_g[m] = g;
		if (g >= c->cap)
			per_group_grow(c);
		return g;
	}
	g = group_of(&c->g, c->h->ncls, cls, lid, 0);
	if (g >= c->cap)
		per_group_grow(c);
	c->last_cls = cls;
	c->last_lid = lid;
	c->last_g = g;
	return g;
}

HOT void collect_add(struct collect *c, node_t x, node_t y, uint32_t lid, uint32_t weak)
{
	uint32_t cls = y == 0 ? root_group(c->rg, x) : c->h->node_class[y];

	/* inside the collapsed chain (pcls is HW_NONE, no class, at the top) */
	if (cls == c->pcls && y != 0 && bit_get(c->in, y))
		return;
	uint32_t g = collect_group(c, cls, y == 0 ? L_NONE : lid, weak);
	if (y != 0 && !bit_get(c->seen, y)) { /* the root is no object: its group lists none */
		bit_set(c->seen, y);
		c->cnt[g]++;
		if (c->gid != NULL)
			c->gid[y] = g + 1;
	} else if (y != 0 && c->gid != NULL && c->gid[y] != g + 1) {
		more_add(c, y, g);
	}
	struct nvec *r = &c->reach[g];
	if (r->n > 0 && r->v[r->n - 1] == x)
		return;
	if (c->unsorted && r->n == r->cap && r->n >= 4096) { /* before growing: once each */
		nodes_unique(r);
		if (r->n > r->cap / 2) /* little went: grow, so that the next sort is far */
			nvec_grow(r);
	}
	nvec_push(r, x);
}

HOT void collect_visit(void *arg, node_t x, node_t y, uint32_t lid)
{
	collect_add(arg, x, y, lid, 0);
}

static int cmp_group(const void *a, const void *b, void *ctx)
{
	const struct merged_group *x = a, *y = b;
	const struct heap *h = ctx;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (x->shallow != y->shallow)
		return x->shallow > y->shallow ? -1 : 1;
	if (mg_root_group(x->cls) && mg_root_group(y->cls) && x->cls != y->cls) /* by their names */
		return strcmp(merged_cls_name(h, x->cls), merged_cls_name(h, y->cls));
	const char *nx = mg_root_group(x->cls) ? "" : class_name(h, x->cls);
	const char *ny = mg_root_group(y->cls) ? "" : class_name(h, y->cls);
	int c = strcmp(nx, ny);
	if (c != 0)
		return c;
	c = strcmp(x->field ? x->field : "", y->field ? y->field : "");
	if (c != 0)
		return c;
	/* one name, two loaders' classes; a field in and out of a
	 * collection: an order all the same (qsort is not stable) */
	if (x->cls != y->cls)
		return x->cls < y->cls ? -1 : 1;
	if (x->coll != y->coll)
		return x->coll < y->coll ? -1 : 1;
	if (x->weak != y->weak)
		return x->weak < y->weak ? -1 : 1;
	node_t fx = x->count ? x->nodes[0] : 0, fy = y->count ? y->nodes[0] : 0;
	return fx < fy ? -1 : fx > fy;
}

/* The groups of a finished walk, sorted; `resort`: members came out of
 * index order (the closure's). */
static void level_out(struct heap *h, struct collect *c, const struct walk *w, int resort,
		      struct merged_level *out)
{
	node_t **own = xcalloc(c->g.n + 1, sizeof *own);
	size_t *fill = xcalloc(c->g.n + 1, sizeof *fill);

	for (size_t i = 0; i < c->g.n; i++)
		own[i] = xmalloc((c->cnt[i] + 1) * sizeof **own);
	/* each group's own nodes, in index order: one scan of the marks */
	for (size_t wd = 0; wd < bits_words(h->n); wd++)
		for (bits_t b = c->seen[wd]; b != 0; b &= b - 1) {
			node_t v = (node_t)(wd * 64 + (size_t)__builtin_ctzll(b));
			uint32_t k = c->gid != NULL ? c->gid[v] - 1 : c->g.by_cls[h->node_class[v]] - 1;
			own[k][fill[k]++] = v;
			for (uint32_t j = c->more_head != NULL ? c->more_head[v] : 0; j != 0; j = c->more[j - 1].next) {
				k = c->more[j - 1].g;
				own[k][fill[k]++] = v;
			}
		}
	out->groups = xcalloc(c->g.n + 1, sizeof *out->groups);
	out->n = c->g.n;
	for (uint32_t i = 0; i < c->g.n; i++) {
		struct merged_group *m = &out->groups[i];
		m->cls = c->g.k[i].cls;
		m->field = c->g.k[i].lid == L_NONE ? NULL : xstrdup(label_text(w, c->g.k[i].lid));
		m->coll = c->g.k[i].lid >= L_CELEM && c->g.k[i].lid <= L_CVALUE;
		m->weak = (int)c->g.k[i].weak;
		m->nodes = own[i];
		m->count = c->cnt[i];
		m->reached = c->reach[i].v != NULL ? c->reach[i].v : xmalloc(sizeof *m->reached);
		m->nreached = c->reach[i].n;
		c->reach[i].v = NULL;
		if (resort) { /* and each member once */
			struct nvec a = { m->reached, m->nreached, m->nreached };
			nodes_unique(&a);
			m->nreached = a.n;
		}
		for (size_t k = 0; k < m->count; k++)
			m->shallow += h->node_shallow[m->nodes[k]];
	}
	hw_sort(out->groups, out->n, sizeof *out->groups, cmp_group, h);
	free(own);
	free(fill);
}

static void collect_free(struct collect *c)
{
	for (size_t i = 0; i < c->g.n && c->reach != NULL; i++)
		free(c->reach[i].v);
	free(c->more);
	free(c->more_head);
	free(c->reach);
	free(c->cnt);
	free(c->gid);
	free(c->memo_k);
	free(c->memo_g);
	free(c->seen);
	free(c->g.k);
	free(c->g.by_cls);
	free(c->g.hash);
}

/* ---- incoming references of a large set, referrer by referrer ---- */
/* When the set holds much of the heap, its incoming references are
 * nearly all references: reading them from the referrers' side, in
 * index order, reads each referrer's record once and in file order, and
 * touches the per-node group state of the referrers in order too. The
 * visits are those of neighbours(MG_INCOMING) by field, in another
 * order: (member, referrer or collection, label) for each reference
 * into the set. The members then come out of order: level_out sorts
 * them. */
unsigned merged_referrer_share = 4; /* from a quarter of the heap on */
unsigned long merged_referrer_passes;

struct by_ref {
	struct walk *w;
	struct collect *c;
	const bits_t *in;
	node_t last;  /* the previous target of this referrer */
	unsigned r;   /* how many references to it came before */
};

static void ref_visit(void *arg, node_t y, node_t x, uint32_t lid)
{
	struct by_ref *b = arg;
	uint64_t xid = 0;

	if (!bit_get(b->in, x))
		return;
	b->r = x == b->last ? b->r + 1 : 0; /* out[] is sorted: a target's references in a run */
	b->last = x;
	if (b->w->jc != NULL) { /* inside a collection: the collection */
		enum coll_role role;
		node_t c = b->w->rt->contents_holder(b->w->jc, y, x, b->r, &xid, &role);
		if (c != HW_NONE) {
			collect_visit(b->c, x, c, role_label(role));
			return;
		}
	}
	collect_visit(b->c, x, y, lid);
}

/* progress counts to `total` (the set's size, as the level said) */
static int incoming_by_referrer(struct walk *w, struct collect *c, const bits_t *in, uint64_t total,
				struct progress *p)
{
	struct heap *h = w->h;
	struct by_ref b = { w, c, in, HW_NONE, 0 };

	for (size_t i = 0; i < h->nroots; i++) /* the GC roots (in[]'s referrer 0) */
		if (bit_get(in, h->roots[i]) && (w->wonly == NULL || !bit_get(w->wonly, h->roots[i])))
			collect_visit(c, h->roots[i], 0, L_NONE);
	for (node_t y = 1; y < h->n; y++) {
		edge_t s = h->out_start[y], e = h->out_start[y + 1];
		b.last = HW_NONE;
		if (s == e)
			continue;
		if (h->node_kind[y] == NK_CLASS) { /* a label reads the statics: members only */
			for (edge_t j = s; j < e; j++)
				if (bit_get(in, h->out[j])) {
					ref_visit(&b, y, h->out[j], record_label(w, y, h->out[j]));
				}
		} else {
			out_labels(w, y, ref_visit, &b);
		}
		if ((y & 0xfffff) == 0xfffff &&
		    (progress_update(p, (uint64_t)y * total / h->n), progress_cancelled(p)))
			return -1;
	}
	return 0;
}

/* ---- weak holders ---- */
/* Is weak reference i one that holds its target as a weak holder does
 * (not one the analyses left out or set aside, but for the weakly
 * reachable's strong ones: their source is held no better than weakly)? */
static int weak_holds(const struct heap *h, uint64_t i)
{
	return h->weak_src[i] != 0 && weak_as_weak(h, i);
}

/* The label of weak reference y -> x: read from y's record (the builder
 * leaves a referent out of the fields merged labels match). */
static uint32_t weak_label(struct walk *w, node_t y, node_t x)
{
	if (w->by == MG_BY_CLASS)
		return L_NONE;
	return w->named ? edge_group_label(w, y, x, 1) : record_label(w, y, x);
}

/* The objects whose roots are all the engine's pseudo roots for the
 * weakly reachable (see struct walk's wonly). */
static bits_t *weak_only_roots(const struct heap *h)
{
	bits_t *real = xcalloc(bits_words(h->n), sizeof *real);
	bits_t *wonly = xcalloc(bits_words(h->n), sizeof *wonly);

	for (size_t i = 0; i < h->nroot_rec; i++)
		if (h->root_rec[i].node < h->n)
			bit_set(h->root_rec[i].kind == RK_WEAK_ONLY ? wonly : real, h->root_rec[i].node);
	for (size_t i = 0; i < bits_words(h->n); i++)
		wonly[i] &= ~real[i];
	free(real);
	return wonly;
}

/* The weak references into the closed F, as visits of their own groups:
 * one pass over them all (they are few next to the strong ones, and
 * sorted by source: members come out of order). */
static void incoming_weak(struct walk *w, struct collect *c, const bits_t *in)
{
	const struct heap *h = w->h;

	for (uint64_t i = 0; i < h->nweak; i++)
		if (bit_get(in, h->weak_dst[i]) && weak_holds(h, i))
			collect_add(c, h->weak_dst[i], h->weak_src[i],
				    weak_label(w, h->weak_src[i], h->weak_dst[i]), 1);
}

/* ---- holders that do not own ----
 * The references an owns rule made incidental (the target has an owner
 * of a higher weight: rx_src/rx_dst, sorted by target then source) into
 * the closed F: fn for each, as neighbours() gives a strong one (inside
 * a collection: the collection). */
static void incoming_rx(struct walk *w, const bits_t *in, visit_fn fn, void *arg)
{
	const struct heap *h = w->h;
	int byf = w->by != MG_BY_CLASS;
	unsigned r = 0;

	for (uint64_t i = 0; i < h->nrx; i++) {
		node_t x = h->rx_dst[i], y = h->rx_src[i];
		r = i > 0 && h->rx_dst[i - 1] == x && h->rx_src[i - 1] == y ? r + 1 : 0;
		if (y == 0 || !bit_get(in, x))
			continue;
		uint64_t xid = 0;
		if (byf && w->jc != NULL) {
			enum coll_role role;
			node_t c = w->rt->contents_holder(w->jc, y, x, r, &xid, &role);
			if (c != HW_NONE) {
				fn(arg, x, c, role_label(role));
				continue;
			}
		}
		fn(arg, x, y, byf ? ref_label(w, y, x, r, &xid) : L_NONE);
	}
}

static void collect_visit_rx(void *arg, node_t x, node_t y, uint32_t lid)
{
	collect_add(arg, x, y, lid, MG_NOT_OWNING);
}

/* Do the incoming levels of h show holders apart from the strong ones
 * (`weak` asked for): the weak (1), those not owning (2), both (3)? */
static int apart(const struct heap *h, enum merged_kind kind, int weak)
{
	if (!weak || kind != MG_INCOMING)
		return 0;
	return (h->nweak > 0 && h->weak_src != NULL ? 1 : 0) | (h->nrx > 0 && h->rx_src != NULL ? 2 : 0);
}

int merged_level(struct heap *h, enum merged_kind kind, enum merged_by by, int weak,
		 const node_t *from, size_t nfrom, uint32_t parent_cls,
		 struct merged_level *out, struct progress *p)
{
	struct walk w;
	struct closure cl;
	struct collect col = { 0 };
	int rc = 0;

	memset(out, 0, sizeof *out);
	progress_begin(p, "merged references", nfrom, "objects");
	if (closure_make(h, kind, from, nfrom, parent_cls, &cl, p) < 0) {
		closure_free(&cl);
		progress_end(p);
		return -1;
	}
	walk_init(&w, h, kind, by);
	int shown = apart(h, kind, weak), rx = shown & 2;
	weak = shown & 1;
	if (weak)
		w.wonly = weak_only_roots(h);
	if (kind != MG_OUTGOING && rootgroups_make(h, &w.rgs))
		w.rg = &w.rgs;
	col.rg = w.rg;
	col.h = h;
	col.in = cl.in;
	col.pcls = parent_cls;
	col.g.by_cls = xcalloc(CLS_SLOTS(h->ncls), sizeof *col.g.by_cls);
	/* per node, but the kernel hands out zero pages: only touched ones
	 * cost; weak holders are in two groups of a class, so by class too */
	if (by != MG_BY_CLASS || shown) {
		col.gid = xcalloc(h->n, sizeof *col.gid);
		col.more_head = xcalloc(h->n, sizeof *col.more_head);
		col.memo_k = xmalloc(1024 * sizeof *col.memo_k);
		col.memo_g = xmalloc(1024 * sizeof *col.memo_g);
		for (size_t i = 0; i < 1024; i++) /* no class: every slot empty */
			col.memo_k[i] = (struct key){ HW_NONE - 1, 0, 0 };
	}
	col.last_cls = HW_NONE - 1; /* no class: the first visit looks its group up */
	col.seen = xcalloc(bits_words(h->n), sizeof *col.seen);
	/* by field, a set of much of the heap: its incoming references from
	 * their referrers' side, in file order (by class there is no record
	 * to read, and the members' order is worth more) */
	int by_referrer = kind == MG_INCOMING && by != MG_BY_CLASS && merged_referrer_share > 0 &&
			  (uint64_t)cl.list.n * merged_referrer_share >= h->n;
	if (by_referrer) {
		merged_referrer_passes++;
		col.unsorted = 1;
		rc = incoming_by_referrer(&w, &col, cl.in, nfrom, p);
	}
	for (size_t i = 0; i < cl.list.n && rc == 0 && !by_referrer; i++) {
		neighbours(&w, cl.list.v[i], collect_visit, &col);
		if ((i & 0xffff) == 0xffff && (progress_update(p, i), progress_cancelled(p)))
			rc = -1;
	}
	if (rc == 0 && weak) {
		col.unsorted = 1;
		incoming_weak(&w, &col, cl.in);
	}
	if (rc == 0 && rx) {
		col.unsorted = 1;
		incoming_rx(&w, cl.in, collect_visit_rx, &col);
	}
	if (rc == 0) {
		level_out(h, &col, &w, cl.list.n > nfrom || by_referrer || shown, out);
		out->chain = cl.list.n - nfrom;
	}
	collect_free(&col);
	walk_free(&w);
	closure_free(&cl);
	progress_end(p);
	return rc;
}

void merged_level_free(struct merged_level *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->groups[i].field);
		free(l->groups[i].nodes);
		free(l->groups[i].reached);
	}
	free(l->groups);
	memset(l, 0, sizeof *l);
}

/* ---- GC roots to objects: down the dominator tree ----
 * Only the ancestors of members count (`anc`: members and every node
 * that dominates one, marked up the idom chains, each node once). The
 * level below objects C (closed over their children of the row's class
 * that lead to members) is C's other such children, grouped; a group's
 * reached is the members in its objects' subtrees, which are disjoint:
 * a child outside the chain's class is on no other child's way. */
static bits_t *anc_marks(const struct heap *h, const node_t *members, size_t n)
{
	bits_t *anc = xcalloc(bits_words(h->n), sizeof *anc);

	for (size_t i = 0; i < n; i++)
		for (node_t v = members[i]; v != 0 && v != HW_NONE && !bit_get(anc, v); v = h->idom[v]) {
			bit_set(anc, v);
			if (h->idom[v] == v)
				break;
		}
	return anc;
}

/* The members in the subtree of v (v included), appended to r. */
static void subtree_members(const struct heap *h, const bits_t *anc, const bits_t *mem, node_t v,
			    struct nvec *r, struct nvec *stack)
{
	stack->n = 0;
	nvec_push(stack, v);
	while (stack->n > 0) {
		node_t u = stack->v[--stack->n];
		if (bit_get(mem, u))
			nvec_push(r, u);
		for (node_t j = h->dom_start[u]; j < h->dom_start[u + 1]; j++)
			if (bit_get(anc, h->dom_child[j]))
				nvec_push(stack, h->dom_child[j]);
	}
}

struct down {
	struct heap *h;
	struct walk w;
	bits_t *anc, *mem, *in;
	struct nvec list;    /* C */
	uint32_t pcls;
};

/* C: from (the root at the top), closed over children of class pcls on
 * the way to members. */
static void down_closure(struct down *d, const node_t *from, size_t nfrom)
{
	struct heap *h = d->h;

	d->in = xcalloc(bits_words(h->n), sizeof *d->in);
	if (from == NULL) {
		nvec_push(&d->list, 0);
		return;
	}
	for (size_t i = 0; i < nfrom; i++)
		if (!bit_get(d->in, from[i])) {
			bit_set(d->in, from[i]);
			nvec_push(&d->list, from[i]);
		}
	for (size_t i = 0; i < d->list.n && d->pcls != HW_NONE; i++) {
		node_t u = d->list.v[i];
		for (node_t j = h->dom_start[u]; j < h->dom_start[u + 1]; j++) {
			node_t c = h->dom_child[j];
			if (bit_get(d->anc, c) && !bit_get(d->in, c) && h->node_class[c] == d->pcls) {
				bit_set(d->in, c);
				nvec_push(&d->list, c);
			}
		}
	}
}

/* The children of C on the way to members, into the groups of col. */
static void down_children(struct down *d, struct collect *col)
{
	struct heap *h = d->h;
	uint64_t xid;

	for (size_t i = 0; i < d->list.n; i++) {
		node_t u = d->list.v[i];
		for (node_t j = h->dom_start[u]; j < h->dom_start[u + 1]; j++) {
			node_t c = h->dom_child[j];
			if (!bit_get(d->anc, c) || bit_get(d->in, c))
				continue;
			uint32_t lid = L_NONE;
			xid = 0;
			if (d->w.by != MG_BY_CLASS && u != 0) /* how the dominator holds it */
				lid = refers(h, u, c) ? ref_label(&d->w, u, c, 0, &xid) : L_TRANS;
			uint32_t g = collect_group(col, h->node_class[c], lid, 0);
			if (!bit_get(col->seen, c)) { /* one parent: once, one group */
				bit_set(col->seen, c);
				col->cnt[g]++;
				if (col->gid != NULL)
					col->gid[c] = g + 1;
			}
		}
	}
}

int merged_level_down(struct heap *h, enum merged_by by, const node_t *members, size_t nmembers,
		      const node_t *from, size_t nfrom, uint32_t parent_cls, struct merged_level *out,
		      struct progress *p)
{
	struct down d = { 0 };
	struct collect col = { 0 };
	struct nvec stack = { 0 };

	memset(out, 0, sizeof *out);
	progress_begin(p, "GC roots to objects", nmembers, "objects");
	analysis_domchildren(h);
	d.h = h;
	d.pcls = from == NULL ? HW_NONE : parent_cls;
	walk_init(&d.w, h, MG_DOMINATING, by);
	d.anc = anc_marks(h, members, nmembers);
	d.mem = xcalloc(bits_words(h->n), sizeof *d.mem);
	for (size_t i = 0; i < nmembers; i++)
		bit_set(d.mem, members[i]);
	down_closure(&d, from, nfrom);
	col.h = h;
	col.pcls = HW_NONE;
	col.g.by_cls = xcalloc(CLS_SLOTS(h->ncls), sizeof *col.g.by_cls);
	col.seen = xcalloc(bits_words(h->n), sizeof *col.seen);
	if (by != MG_BY_CLASS) {
		col.gid = xcalloc(h->n, sizeof *col.gid);
		col.memo_k = xcalloc(1024, sizeof *col.memo_k);
		col.memo_g = xcalloc(1024, sizeof *col.memo_g);
		for (size_t i = 0; i < 1024; i++)
			col.memo_k[i] = (struct key){ HW_NONE - 1, 0, 0 };
	}
	col.last_cls = HW_NONE - 1;
	down_children(&d, &col);
	per_group_grow(&col);
	/* each group's reached: the members below its objects */
	for (size_t wd = 0; wd < bits_words(h->n); wd++)
		for (bits_t b = col.seen[wd]; b != 0; b &= b - 1) {
			node_t v = (node_t)(wd * 64 + (size_t)__builtin_ctzll(b));
			uint32_t g = col.gid != NULL ? col.gid[v] - 1 : col.g.by_cls[h->node_class[v]] - 1;
			subtree_members(h, d.anc, d.mem, v, &col.reach[g], &stack);
		}
	level_out(h, &col, &d.w, 1, out);
	out->chain = from == NULL ? 0 : d.list.n - nfrom;
	free(stack.v);
	collect_free(&col);
	walk_free(&d.w);
	free(d.anc);
	free(d.mem);
	free(d.in);
	free(d.list.v);
	progress_end(p);
	return 0;
}

/* ---- the members of the set reached through a path of rows ----
 * Backwards from the last row: at each level, the objects of the
 * level's closed from-set with a neighbour in the chosen group (and,
 * below the last level, that neighbour among the objects found for the
 * level under it); then back along the collapsed chain to the objects
 * the chain was closed from; they are the neighbours the level above
 * must reach. */
struct rvisit {
	const struct heap *h;
	const struct walk *w;
	const struct merged_step *st;
	const bits_t *in;     /* the level's closed from-set */
	const bits_t *want;   /* NULL, or the neighbours that count */
	int hit;
	bits_t *s;            /* reach_visit_rx: the level's objects that reach */
	struct nvec *work;
};

static void reach_visit(void *arg, node_t x, node_t y, uint32_t lid)
{
	struct rvisit *r = arg;
	uint32_t cls = y == 0 ? root_group(r->w->rg, x) : r->h->node_class[y];

	if (r->hit || cls != r->st->cls)
		return;
	if (y != 0 && cls == r->st->parent_cls && bit_get(r->in, y))
		return; /* inside the collapsed chain: in no group */
	if (r->st->field != NULL && (y == 0 || strcmp(label_text(r->w, lid), r->st->field) != 0 ||
				     (lid >= L_CELEM && lid <= L_CVALUE) != (r->st->coll != 0)))
		return;
	if (r->want != NULL && (y == 0 || !bit_get(r->want, y)))
		return;
	r->hit = 1;
}

/* One incidental reference y -> x (incoming_rx): x joins s when y is of
 * the group. */
static void reach_visit_rx(void *arg, node_t x, node_t y, uint32_t lid)
{
	struct rvisit *r = arg;

	if (bit_get(r->s, x))
		return;
	r->hit = 0;
	reach_visit(r, x, y, lid);
	if (r->hit) {
		bit_set(r->s, x);
		nvec_push(r->work, x);
	}
}

/* Objects of the chain (class pcls, marked in) from which a chain step
 * leads to a marked one join `s`: steps taken backwards. */
static void chain_back(struct heap *h, enum merged_kind kind, const bits_t *in, bits_t *s,
		       struct nvec *work)
{
	if (kind == MG_DOMINATING)
		analysis_domchildren(h);
	while (work->n > 0) {
		node_t v = work->v[--work->n];
		const node_t *p, *e;
		if (kind == MG_OUTGOING) { /* u -> v: u refers to v */
			p = h->in + h->in_start[v];
			e = h->in + h->in_start[v + 1];
		} else if (kind == MG_INCOMING) { /* v refers to u */
			p = h->out + h->out_start[v];
			e = h->out + h->out_start[v + 1];
		} else { /* v is u's immediate dominator */
			p = h->dom_child + h->dom_start[v];
			e = h->dom_child + h->dom_start[v + 1];
		}
		for (; p < e; p++)
			if (*p != 0 && bit_get(in, *p) && !bit_get(s, *p)) {
				bit_set(s, *p);
				nvec_push(work, *p);
			}
	}
}

int merged_reached(struct heap *h, enum merged_kind kind, enum merged_by by, int weak,
		   const struct merged_step *path, size_t depth, node_t **out, size_t *nout,
		   struct progress *p)
{
	bits_t *want = NULL;
	struct nvec work = { 0 };
	int rc = 0;

	*out = NULL;
	*nout = 0;
	progress_begin(p, "reached objects", depth, "levels");
	for (size_t i = depth; i-- > 0 && rc == 0;) {
		const struct merged_step *st = &path[i];
		struct closure cl;
		struct walk w;
		if (closure_make(h, kind, st->from, st->nfrom, st->parent_cls, &cl, NULL) < 0)
			rc = -1;
		walk_init(&w, h, kind, by);
		if (apart(h, kind, weak) & 1)
			w.wonly = weak_only_roots(h);
		if (kind != MG_OUTGOING && rootgroups_make(h, &w.rgs))
			w.rg = &w.rgs;
		struct rvisit r = { h, &w, st, cl.in, want, 0, NULL, NULL };
		bits_t *s = xcalloc(bits_words(h->n), sizeof *s);
		for (size_t k = 0; k < cl.list.n && rc == 0 && !st->weak; k++) {
			r.hit = 0;
			neighbours(&w, cl.list.v[k], reach_visit, &r);
			if (r.hit) {
				bit_set(s, cl.list.v[k]);
				nvec_push(&work, cl.list.v[k]);
			}
		}
		/* a group not owning: the incidental references into them */
		r.s = s;
		r.work = &work;
		if (st->weak == MG_NOT_OWNING && h->rx_src != NULL)
			incoming_rx(&w, cl.in, reach_visit_rx, &r);
		/* a weak group: the weak references into the level's objects */
		for (uint64_t k = 0; k < h->nweak && rc == 0 && st->weak == 1 && h->weak_src != NULL; k++) {
			node_t x = h->weak_dst[k], y = h->weak_src[k];
			if (!bit_get(cl.in, x) || bit_get(s, x) || !weak_holds(h, k))
				continue;
			r.hit = 0;
			reach_visit(&r, x, y, weak_label(&w, y, x));
			if (r.hit) {
				bit_set(s, x);
				nvec_push(&work, x);
			}
		}
		if (st->parent_cls != HW_NONE)
			chain_back(h, kind, cl.in, s, &work);
		work.n = 0;
		/* what the level above must reach: objects of this from-set */
		free(want);
		want = xcalloc(bits_words(h->n), sizeof *want);
		for (size_t k = 0; k < st->nfrom; k++)
			if (bit_get(s, st->from[k]))
				bit_set(want, st->from[k]);
		free(s);
		walk_free(&w);
		closure_free(&cl);
		progress_update(p, depth - i);
		if (progress_cancelled(p))
			rc = -1;
	}
	if (rc == 0 && depth > 0) {
		*out = xmalloc((path[0].nfrom + 1) * sizeof **out);
		for (size_t k = 0; k < path[0].nfrom; k++)
			if (bit_get(want, path[0].from[k]))
				(*out)[(*nout)++] = path[0].from[k];
	}
	free(want);
	free(work.v);
	progress_end(p);
	return rc;
}

/* ---- the tree of the batch reports ---- */
static void tree_add(struct merged_tree *t, unsigned depth, struct merged_group *g)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 64;
		t->rows = xreallocarray(t->rows, t->cap, sizeof *t->rows);
	}
	t->rows[t->n++] = (struct merged_row){ depth, g->cls, g->field, g->coll, g->weak, g->count, g->shallow,
					       g->nreached, -1 };
	g->field = NULL;
}

/* The level from `from` as rows at `depth`, each expanded below it
 * while depth allows. */
static int tree_level(struct heap *h, struct merged_tree *t, const node_t *from, size_t nfrom,
		      uint32_t pcls, unsigned depth, unsigned maxdepth, size_t top, struct progress *p)
{
	struct merged_level l;
	int rc = 0;

	int rc0 = t->reverse ? merged_level_down(h, t->by, t->members, t->nmembers, depth ? from : NULL, nfrom,
						 pcls, &l, p)
			     : merged_level(h, t->kind, t->by, t->weak, from, nfrom, pcls, &l, p);
	if (rc0 < 0)
		return -1;
	if (depth > 0)
		t->rows[t->n - 1].chain = (int64_t)l.chain;
	struct rootgroups rg;
	if (t->reverse && depth == 0 && rootgroups_make(h, &rg))
		for (size_t i = 0; i < l.n; i++)
			for (size_t j = 0; j < l.groups[i].count; j++) {
				uint32_t k = root_group(&rg, l.groups[i].nodes[j]);
				t->top_weakly_objs += k == MG_WEAKLY;
				t->top_unreachable_objs += k == MG_UNREACHABLE;
			}
	for (size_t i = 0; i < l.n && depth == 0; i++) {
		t->top_groups++;
		t->top_strong += !mg_root_group(l.groups[i].cls) && l.groups[i].weak != 1;
		t->top_root += l.groups[i].cls == MG_ROOT;
		t->top_weakly += l.groups[i].cls == MG_WEAKLY;
		t->top_unreachable += l.groups[i].cls == MG_UNREACHABLE;
	}
	for (size_t i = 0; i < l.n && rc == 0; i++) {
		struct merged_group *g = &l.groups[i];
		/* -n cuts the classes' rows; the roots' (no objects, so last)
		 * say what holds the set and stay */
		if (top != 0 && i >= top && !(depth == 0 && mg_root_group(g->cls)))
			continue;
		t->top_shown += depth == 0;
		tree_add(t, depth, g);
		if (depth + 1 < maxdepth && g->count > 0)
			rc = tree_level(h, t, g->nodes, g->count, g->cls, depth + 1, maxdepth, top, p);
		free(g->nodes); /* the rows keep figures only: big levels free as they go */
		g->nodes = NULL;
	}
	merged_level_free(&l);
	return rc;
}

/* The set's objects weak references hold, and their holders, into t. */
static void weak_count(const struct heap *h, struct merged_tree *t)
{
	bits_t *mem = xcalloc(bits_words(h->n), sizeof *mem);
	bits_t *seen = xcalloc(bits_words(h->n), sizeof *seen);
	bits_t *held = xcalloc(bits_words(h->n), sizeof *held);

	for (size_t i = 0; i < t->nmembers; i++)
		bit_set(mem, t->members[i]);
	for (uint64_t i = 0; i < h->nweak; i++) {
		node_t x = h->weak_dst[i], y = h->weak_src[i];
		if (!bit_get(mem, x) || !weak_holds(h, i))
			continue;
		if (!bit_get(held, x)) {
			bit_set(held, x);
			t->weak_members++;
		}
		if (!bit_get(seen, y)) {
			bit_set(seen, y);
			t->weak_holders++;
		}
	}
	free(mem);
	free(seen);
	free(held);
}

int merged_tree(struct heap *h, enum merged_kind kind, enum merged_by by, int reverse, int weak,
		const node_t *members, size_t n, unsigned depth, size_t top, struct merged_tree *t,
		struct progress *p)
{
	memset(t, 0, sizeof *t);
	t->kind = kind;
	t->by = by;
	t->reverse = reverse && kind == MG_DOMINATING;
	t->weak = weak && kind == MG_INCOMING;
	t->members = members;
	t->nmembers = n;
	t->set_count = n;
	for (size_t i = 0; i < n; i++)
		t->set_shallow += h->node_shallow[members[i]];
	if (kind == MG_INCOMING && h->weak_src != NULL)
		weak_count(h, t);
	if (tree_level(h, t, members, n, HW_NONE, 0, depth ? depth : 1, top, p) < 0) {
		merged_tree_free(t);
		return -1;
	}
	return 0;
}

void merged_tree_free(struct merged_tree *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->rows[i].field);
	free(t->rows);
	memset(t, 0, sizeof *t);
}
