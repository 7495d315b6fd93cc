/* jcoll.c — the JDK's classes from the inside, see jcoll.h. Field names
 * are those of OpenJDK 17 (javap -p). */
#include "graph/jcoll.h"

#include <stdlib.h>
#include <string.h>

#include "format/hprof.h"

enum { SUB_INSTANCE = 0x21, SUB_OBJ_ARRAY = 0x22 };

/* A cached field lookup: class, name (by pointer and by text), result. */
struct fslot {
	uint32_t cls;
	const char *name;
	int off;
	uint8_t type;
	uint8_t used;
};

#define FCACHE 4096 /* slots, a power of two */

struct jcoll {
	const struct heap *h;
	uint8_t *kind;             /* per class: enum coll_kind + 1, 0 unknown yet */
	struct fslot fc[FCACHE];
	uint32_t treebin;          /* ConcurrentHashMap$TreeBin's class, or HW_NONE */
	node_t *stack;             /* TreeMap walks */
	size_t cap;
};

static const struct { const char *name; enum coll_kind kind; } known[] = {
	{ "java.util.ArrayList", CK_ARRAYLIST }, { "java.util.Vector", CK_VECTOR },
	{ "java.util.ArrayDeque", CK_ARRAYDEQUE }, { "java.util.LinkedList", CK_LINKEDLIST },
	{ "java.util.HashMap", CK_HASHMAP }, { "java.util.LinkedHashMap", CK_LINKEDHASHMAP },
	{ "java.util.HashSet", CK_HASHSET }, { "java.util.LinkedHashSet", CK_LINKEDHASHSET },
	{ "java.util.Hashtable", CK_HASHTABLE }, { "java.util.WeakHashMap", CK_WEAKHASHMAP },
	{ "java.util.IdentityHashMap", CK_IDENTITYHASHMAP }, { "java.util.TreeMap", CK_TREEMAP },
	{ "java.util.TreeSet", CK_TREESET }, { "java.util.concurrent.ConcurrentHashMap", CK_CHM },
	{ "java.util.concurrent.CopyOnWriteArrayList", CK_COWLIST },
	{ "java.util.concurrent.CopyOnWriteArraySet", CK_COWSET },
	{ "java.util.concurrent.ConcurrentLinkedQueue", CK_CLQ },
	{ "java.util.Collections$UnmodifiableCollection", CK_WRAPPER },
	{ "java.util.Collections$UnmodifiableMap", CK_WRAPPER },
	{ "java.util.Collections$SynchronizedCollection", CK_WRAPPER },
	{ "java.util.Collections$SynchronizedMap", CK_WRAPPER },
};

const char *coll_kind_name(enum coll_kind k)
{
	if (k == CK_ARRAY)
		return "array";
	for (size_t i = 0; i < sizeof known / sizeof *known; i++)
		if (known[i].kind == k)
			return known[i].name;
	return "none";
}

struct jcoll *jcoll_new(const struct heap *h)
{
	struct jcoll *j = xcalloc(1, sizeof *j);

	j->h = h;
	j->kind = xcalloc((size_t)h->ncls + 1, 1);
	j->treebin = HW_NONE;
	for (uint32_t c = 0; c < h->ncls; c++)
		if (strcmp(class_name(h, c), "java.util.concurrent.ConcurrentHashMap$TreeBin") == 0)
			j->treebin = c;
	return j;
}

void jcoll_free(struct jcoll *j)
{
	if (j == NULL)
		return;
	free(j->kind);
	free(j->stack);
	free(j);
}

enum coll_kind jcoll_kind(struct jcoll *j, uint32_t c)
{
	const struct heap *h = j->h;

	if (c == HW_NONE || c >= h->ncls)
		return CK_NONE;
	if (j->kind[c] == 0) {
		enum coll_kind k = CK_NONE;
		if ((h->cls[c].flags & HC_ARRAY) && h->cls[c].elem_type == T_OBJECT)
			k = CK_ARRAY;
		for (uint32_t d = c, n = 0; k == CK_NONE && d != HW_NONE && n < h->ncls; d = h->cls[d].super, n++)
			for (size_t i = 0; i < sizeof known / sizeof *known; i++)
				if (strcmp(class_name(h, d), known[i].name) == 0) {
					k = known[i].kind;
					break;
				}
		j->kind[c] = (uint8_t)(k + 1);
	}
	return (enum coll_kind)(j->kind[c] - 1);
}

/* ---- fields ---- */

static int field_lookup(const struct heap *h, uint32_t c, const char *name, uint8_t *type)
{
	unsigned ids = h->layout.idsize;
	int off = 0;

	for (uint32_t d = c, n = 0; d != HW_NONE && n < h->ncls; d = h->cls[d].super, n++)
		for (unsigned i = 0; i < h->cls[d].nfields; i++) {
			const struct hfield *f = &h->fields[h->cls[d].field_first + i];
			if (strcmp(heap_str(h, f->name), name) == 0) {
				*type = f->type;
				return off;
			}
			off += (int)hprof_type_size(f->type, ids);
		}
	return -1;
}

int jfield_offset(struct jcoll *j, uint32_t c, const char *name, uint8_t *type)
{
	size_t hs = ((size_t)c * 2654435761u) ^ (size_t)(uintptr_t)name;
	struct fslot *s = &j->fc[(hs ^ (hs >> 13)) & (FCACHE - 1)];

	if (s->used && s->cls == c && (s->name == name || strcmp(s->name, name) == 0)) {
		*type = s->type;
		return s->off;
	}
	uint8_t t = 0;
	int off = c < j->h->ncls ? field_lookup(j->h, c, name, &t) : -1;
	*s = (struct fslot){ c, name, off, t, 1 };
	*type = t;
	return off;
}

/* Instance data of v and its length; NULL if v is no instance. */
static const uint8_t *inst_data(const struct heap *h, node_t v, uint32_t *len)
{
	if (v == 0 || v >= h->n || h->node_kind[v] != NK_INSTANCE)
		return NULL;
	const uint8_t *q = h->map + h->node_off[v];
	unsigned ids = h->layout.idsize;
	*len = be32(q + 1 + 2 * ids + 4);
	return q + 1 + 2 * ids + 8;
}

uint64_t jfield_raw(const struct heap *h, node_t v, int off, uint8_t type)
{
	uint32_t len;
	const uint8_t *d = inst_data(h, v, &len);
	unsigned ids = h->layout.idsize, sz = hprof_type_size(type, ids);

	if (d == NULL || off < 0 || (uint32_t)off + sz > len)
		return 0;
	d += off;
	switch (type) {
	case T_OBJECT: return beid(d, ids);
	case T_BOOLEAN: case T_BYTE: return (uint64_t)(int64_t)(int8_t)d[0];
	case T_CHAR: return be16(d);
	case T_SHORT: return (uint64_t)(int64_t)(int16_t)be16(d);
	case T_INT: case T_FLOAT: return (uint64_t)(int64_t)(int32_t)be32(d);
	default: return be64(d);
	}
}

node_t jref_node(const struct heap *h, node_t v, uint64_t id)
{
	if (id == 0)
		return HW_NONE;
	if (h->out_start != NULL && v != 0 && v < h->n) { /* v's targets ascend, as ids do */
		edge_t lo = h->out_start[v], hi = h->out_start[v + 1];
		while (lo < hi) {
			edge_t mid = lo + (hi - lo) / 2;
			if (heap_node_id(h, h->out[mid]) < id)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < h->out_start[v + 1] && heap_node_id(h, h->out[lo]) == id)
			return h->out[lo];
		uint64_t a = 0, b = h->nweak; /* weak_src ascends */
		while (a < b) {
			uint64_t mid = a + (b - a) / 2;
			if (h->weak_src[mid] < v)
				a = mid + 1;
			else
				b = mid;
		}
		for (; a < h->nweak && h->weak_src[a] == v; a++)
			if (heap_node_id(h, h->weak_dst[a]) == id)
				return h->weak_dst[a];
	}
	return heap_find_id(h, id);
}

node_t jfield_ref(const struct heap *h, node_t v, int off)
{
	return jref_node(h, v, jfield_raw(h, v, off, T_OBJECT));
}

node_t jfield_node(struct jcoll *j, node_t v, const char *name)
{
	uint8_t t;
	int off;

	if (v == HW_NONE || v == 0 || v >= j->h->n || j->h->node_kind[v] != NK_INSTANCE)
		return HW_NONE;
	off = jfield_offset(j, j->h->node_class[v], name, &t);
	return off >= 0 && t == T_OBJECT ? jfield_ref(j->h, v, off) : HW_NONE;
}

int64_t jfield_int(struct jcoll *j, node_t v, const char *name)
{
	uint8_t t;
	int off;

	if (v == HW_NONE || v == 0 || v >= j->h->n || j->h->node_kind[v] != NK_INSTANCE)
		return 0;
	off = jfield_offset(j, j->h->node_class[v], name, &t);
	return off >= 0 && t != T_OBJECT ? (int64_t)jfield_raw(j->h, v, off, t) : 0;
}

/* ---- object arrays ---- */

static uint32_t array_len(const struct heap *h, node_t a)
{
	if (a == HW_NONE || a == 0 || a >= h->n || h->node_kind[a] != NK_OBJARRAY)
		return 0;
	return be32(h->map + h->node_off[a] + 1 + h->layout.idsize + 4);
}

static node_t array_elem(const struct heap *h, node_t a, uint32_t i)
{
	unsigned ids = h->layout.idsize;
	const uint8_t *e = h->map + h->node_off[a] + 1 + 2 * ids + 8 + (uint64_t)i * ids;

	return jref_node(h, a, beid(e, ids));
}

/* ---- the collections ---- */

struct walk {
	struct jcoll *j;
	unsigned roles;
	coll_fn fn;
	void *arg;
	int64_t calls;
	struct coll_info *ci;  /* when filling info, else NULL */
};

static void emit(struct walk *w, node_t holder, node_t target, enum coll_role role)
{
	if (target == HW_NONE || w->fn == NULL || !(w->roles & role))
		return;
	w->fn(w->arg, holder, target, role);
	w->calls++;
}

/* Slots of an array as elements (or as keys for a set's view). */
static void walk_array(struct walk *w, node_t a, enum coll_role role)
{
	uint32_t n = array_len(w->j->h, a);

	if (w->ci != NULL)
		w->ci->capacity = n;
	for (uint32_t i = 0; i < n; i++) {
		node_t t = array_elem(w->j->h, a, i);
		if (t != HW_NONE && w->ci != NULL)
			w->ci->used_slots++;
		emit(w, a, t, role);
	}
}

/* A hash table of chained entries: table[] of nodes with key, value and
 * next fields (names differ per class); `as_set` reports keys as
 * elements (HashSet's map). */
static void walk_table(struct walk *w, node_t table, const char *key, const char *val,
		       const char *next, int as_set, uint64_t bound)
{
	const struct heap *h = w->j->h;
	uint32_t n = array_len(h, table);

	if (w->ci != NULL)
		w->ci->capacity = n;
	for (uint32_t i = 0; i < n; i++) {
		node_t e = array_elem(h, table, i);
		uint64_t chain = 0;
		for (; e != HW_NONE && chain <= bound; chain++) {
			/* ConcurrentHashMap's tree bins: their entries hang off `first` */
			if (h->node_class[e] == w->j->treebin && w->j->treebin != HW_NONE) {
				e = jfield_node(w->j, e, "first");
				continue;
			}
			if (h->node_kind[e] != NK_INSTANCE)
				break;
			node_t k = jfield_node(w->j, e, key); /* WeakHashMap's: "referent" */
			if (as_set) {
				emit(w, e, k, CR_ELEMENT);
			} else {
				emit(w, e, k, CR_KEY);
				emit(w, e, jfield_node(w->j, e, val), CR_VALUE);
			}
			e = jfield_node(w->j, e, next);
		}
		if (w->ci != NULL && chain > 0) {
			w->ci->used_slots++;
			if (chain > w->ci->longest)
				w->ci->longest = chain;
			if (chain > 1)
				w->ci->colliding += chain;
		}
	}
}

/* A linked list from `first` through `next`, items in `item`. */
static void walk_linked(struct walk *w, node_t first, const char *item, const char *next,
			uint64_t bound)
{
	uint64_t k = 0;

	for (node_t e = first; e != HW_NONE && k <= bound; k++) {
		node_t it = jfield_node(w->j, e, item);
		if (w->ci != NULL && it != HW_NONE && w->ci->kind == CK_CLQ)
			w->ci->size++;
		emit(w, e, it, CR_ELEMENT);
		e = jfield_node(w->j, e, next);
	}
}

/* TreeMap entries from the root, with an explicit stack. */
static void walk_tree(struct walk *w, node_t root, int as_set, uint64_t bound)
{
	struct jcoll *j = w->j;
	size_t sp = 0;
	uint64_t seen = 0;

	if (root == HW_NONE)
		return;
	if (j->cap == 0) {
		j->cap = 256;
		j->stack = xmalloc(j->cap * sizeof *j->stack);
	}
	j->stack[sp++] = root;
	while (sp > 0 && seen++ <= bound) {
		node_t e = j->stack[--sp];
		if (as_set) {
			emit(w, e, jfield_node(j, e, "key"), CR_ELEMENT);
		} else {
			emit(w, e, jfield_node(j, e, "key"), CR_KEY);
			emit(w, e, jfield_node(j, e, "value"), CR_VALUE);
		}
		node_t kids[2] = { jfield_node(j, e, "left"), jfield_node(j, e, "right") };
		for (int i = 0; i < 2; i++) {
			if (kids[i] == HW_NONE)
				continue;
			if (sp == j->cap) {
				j->cap *= 2;
				j->stack = xreallocarray(j->stack, j->cap, sizeof *j->stack);
			}
			j->stack[sp++] = kids[i];
		}
	}
}

static uint64_t bound_of(const struct heap *h, uint64_t size, uint64_t cap)
{
	uint64_t b = size + cap + 16;
	return b < h->n ? b : h->n;
}

/* The walk (and, with w->ci, the figures) of collection v; -1 if none. */
static int walk(struct walk *w, node_t v, int depth)
{
	struct jcoll *j = w->j;
	const struct heap *h = j->h;

	if (v == HW_NONE || v == 0 || v >= h->n || depth > 8)
		return -1;
	enum coll_kind k = jcoll_kind(j, h->node_class[v]);
	struct coll_info *ci = w->ci;
	int as_set = 0;
	node_t m;
	if (ci != NULL && depth == 0)
		*ci = (struct coll_info){ .kind = k };
	switch (k) {
	case CK_NONE:
	case CK_COUNT:
		return -1;
	case CK_ARRAY:
		walk_array(w, v, CR_ELEMENT);
		if (ci != NULL)
			ci->size = ci->used_slots, ci->used_slots = 0;
		return 0;
	case CK_ARRAYLIST:
	case CK_VECTOR: {
		node_t a = jfield_node(j, v, "elementData");
		if (ci != NULL)
			ci->size = (uint64_t)jfield_int(j, v, k == CK_VECTOR ? "elementCount" : "size");
		walk_array(w, a, CR_ELEMENT);
		if (ci != NULL)
			ci->used_slots = 0;
		return 0;
	}
	case CK_ARRAYDEQUE: {
		node_t a = jfield_node(j, v, "elements");
		walk_array(w, a, CR_ELEMENT);
		if (ci != NULL) {
			int64_t head = jfield_int(j, v, "head"), tail = jfield_int(j, v, "tail");
			int64_t cap = (int64_t)ci->capacity;
			ci->size = cap > 0 ? (uint64_t)(((tail - head) % cap + cap) % cap) : 0;
			ci->used_slots = 0;
		}
		return 0;
	}
	case CK_COWLIST:
		walk_array(w, jfield_node(j, v, "array"), CR_ELEMENT);
		if (ci != NULL) {
			ci->size = ci->capacity; /* a copy-on-write array is exactly full */
			ci->used_slots = 0;
		}
		return 0;
	case CK_COWSET:
		return walk(w, jfield_node(j, v, "al"), depth + 1);
	case CK_LINKEDLIST: {
		uint64_t size = (uint64_t)jfield_int(j, v, "size");
		if (ci != NULL)
			ci->size = size;
		walk_linked(w, jfield_node(j, v, "first"), "item", "next", bound_of(h, size, 0));
		return 0;
	}
	case CK_CLQ:
		walk_linked(w, jfield_node(j, v, "head"), "item", "next", h->n);
		return 0;
	case CK_HASHSET:
	case CK_LINKEDHASHSET:
		as_set = 1;
		m = jfield_node(j, v, "map");
		if (m == HW_NONE)
			return 0;
		v = m; /* the backing HashMap */
		/* fall through */
	case CK_HASHMAP:
	case CK_LINKEDHASHMAP: {
		uint64_t size = (uint64_t)jfield_int(j, v, "size");
		node_t t = jfield_node(j, v, "table");
		if (ci != NULL)
			ci->size = size;
		walk_table(w, t, "key", "value", "next", as_set, bound_of(h, size, array_len(h, t)));
		return 0;
	}
	case CK_HASHTABLE: {
		m = jfield_node(j, v, "map"); /* java.util.Properties keeps a ConcurrentHashMap */
		if (m != HW_NONE)
			return walk(w, m, depth + 1) < 0 ? 0 : 0;
		uint64_t size = (uint64_t)jfield_int(j, v, "count");
		node_t t = jfield_node(j, v, "table");
		if (ci != NULL)
			ci->size = size;
		walk_table(w, t, "key", "value", "next", 0, bound_of(h, size, array_len(h, t)));
		return 0;
	}
	case CK_WEAKHASHMAP: {
		uint64_t size = (uint64_t)jfield_int(j, v, "size");
		node_t t = jfield_node(j, v, "table");
		if (ci != NULL)
			ci->size = size;
		walk_table(w, t, "referent", "value", "next", 0, bound_of(h, size, array_len(h, t)));
		return 0;
	}
	case CK_CHM: {
		node_t t = jfield_node(j, v, "table");
		uint32_t n = array_len(h, t);
		walk_table(w, t, "key", "val", "next", 0, bound_of(h, h->n, n));
		if (ci != NULL) { /* no size field: baseCount plus the counter cells */
			int64_t size = jfield_int(j, v, "baseCount");
			node_t cells = jfield_node(j, v, "counterCells");
			for (uint32_t i = 0; i < array_len(h, cells); i++)
				size += jfield_int(j, array_elem(h, cells, i), "value");
			ci->size = size > 0 ? (uint64_t)size : 0;
		}
		return 0;
	}
	case CK_IDENTITYHASHMAP: {
		node_t t = jfield_node(j, v, "table");
		uint32_t n = array_len(h, t);
		if (ci != NULL) {
			ci->size = (uint64_t)jfield_int(j, v, "size");
			ci->capacity = n / 2;
		}
		for (uint32_t i = 0; i + 1 < n; i += 2) { /* key, value, key, value... */
			node_t key = array_elem(h, t, i);
			if (key == HW_NONE)
				continue;
			if (ci != NULL)
				ci->used_slots++;
			emit(w, t, key, CR_KEY);
			emit(w, t, array_elem(h, t, i + 1), CR_VALUE);
		}
		return 0;
	}
	case CK_TREESET:
		as_set = 1;
		m = jfield_node(j, v, "m");
		if (m == HW_NONE || jcoll_kind(j, h->node_class[m]) != CK_TREEMAP)
			return walk(w, m, depth + 1) < 0 ? 0 : 0;
		v = m;
		/* fall through */
	case CK_TREEMAP: {
		uint64_t size = (uint64_t)jfield_int(j, v, "size");
		if (ci != NULL)
			ci->size = size;
		walk_tree(w, jfield_node(j, v, "root"), as_set, bound_of(h, size, 0));
		return 0;
	}
	case CK_WRAPPER: {
		static const char *const inner[] = { "c", "m", "list", "s" };
		for (size_t i = 0; i < sizeof inner / sizeof *inner; i++) {
			m = jfield_node(j, v, inner[i]);
			if (m != HW_NONE && walk(w, m, depth + 1) == 0) {
				if (ci != NULL)
					ci->kind = CK_WRAPPER;
				return 0;
			}
		}
		return 0;
	}
	}
	return -1;
}

int jcoll_info(struct jcoll *j, node_t v, struct coll_info *ci)
{
	struct walk w = { .j = j, .ci = ci };

	memset(ci, 0, sizeof *ci);
	return walk(&w, v, 0);
}

int64_t jcoll_walk(struct jcoll *j, node_t v, unsigned roles, coll_fn fn, void *arg)
{
	struct walk w = { .j = j, .roles = roles, .fn = fn, .arg = arg };

	if (walk(&w, v, 0) < 0)
		return -1;
	return w.calls;
}
