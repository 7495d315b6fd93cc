/* jvm_coll.c — the JDK's classes from the inside, see jvm_coll.h: instance
 * fields by name, and size, capacity and contents of java.util
 * collections, read straight from the mapped records (field names as
 * in OpenJDK 8 to 17, checked with javap -p).
 *
 * Per class, two caches: the collection kind, and the offsets of the
 * few fields the collections need (an array per class, indexed by enum
 * fid, made when the class is first asked). jfield_offset() with any
 * other name goes through a small hash keyed by class and name. Walks
 * allocate nothing but the growing stack of a TreeMap walk, kept in
 * struct jcoll for the next call. */
#include "runtime/jvm_coll.h"

#include <stdlib.h>
#include <string.h>

#include "graph/reader.h"
#include "graph/analysis.h"

enum { KIND_UNKNOWN = 0xff, WRAP_DEPTH = 8, LINEAR_OUT = 16 };

/* The fields the collections read. */
enum fid {
	F_SIZE, F_ELEMENTDATA, F_ELEMENTCOUNT, F_ELEMENTS, F_HEAD, F_TAIL, F_FIRST,
	F_ITEM, F_NEXT, F_TABLE, F_KEY, F_VALUE, F_VAL, F_HASH, F_MAP, F_COUNT,
	F_REFERENT, F_ROOT, F_LEFT, F_RIGHT, F_M, F_BASECOUNT, F_COUNTERCELLS,
	F_ARRAY, F_AL, F_C, F_NF
};
static const char *const fid_name[F_NF] = {
	"size", "elementData", "elementCount", "elements", "head", "tail", "first",
	"item", "next", "table", "key", "value", "val", "hash", "map", "count",
	"referent", "root", "left", "right", "m", "baseCount", "counterCells",
	"array", "al", "c",
};

struct fslot { int32_t off; uint8_t type; }; /* off -2: not looked up yet */

/* jfield_offset()'s cache: open addressing on (class, name). */
struct fent { uint32_t c; uint64_t hash; char *name; int32_t off; uint8_t type; };

struct jcoll {
	const struct heap *h;
	uint8_t *kind;          /* per class: enum coll_kind, KIND_UNKNOWN */
	struct fslot **fc;      /* per class: NULL or F_NF slots */
	struct fent *tab;
	size_t tabcap, tabn;
	node_t *stack;          /* TreeMap walks */
	size_t stackcap;
	int nulls_known;
	node_t ihm_null, whm_null; /* the NULL_KEY sentinels, HW_NONE if none */
};

static const struct { const char *name; enum coll_kind kind; } known[] = {
	{ "java.util.ArrayList", CK_ARRAYLIST },
	{ "java.util.Vector", CK_VECTOR },
	{ "java.util.ArrayDeque", CK_ARRAYDEQUE },
	{ "java.util.LinkedList", CK_LINKEDLIST },
	{ "java.util.HashMap", CK_HASHMAP },
	{ "java.util.LinkedHashMap", CK_LINKEDHASHMAP },
	{ "java.util.HashSet", CK_HASHSET },
	{ "java.util.LinkedHashSet", CK_LINKEDHASHSET },
	{ "java.util.Hashtable", CK_HASHTABLE },
	{ "java.util.WeakHashMap", CK_WEAKHASHMAP },
	{ "java.util.IdentityHashMap", CK_IDENTITYHASHMAP },
	{ "java.util.TreeMap", CK_TREEMAP },
	{ "java.util.TreeSet", CK_TREESET },
	{ "java.util.concurrent.ConcurrentHashMap", CK_CHM },
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
		return "java.lang.Object[]";
	if (k == CK_WRAPPER)
		return "java.util.Collections wrapper";
	for (size_t i = 0; i < sizeof known / sizeof *known; i++)
		if (known[i].kind == k)
			return known[i].name;
	return "none";
}

struct jcoll *jcoll_new(const struct heap *h)
{
	struct jcoll *j = xcalloc(1, sizeof *j);

	j->h = h;
	j->kind = xmalloc((size_t)h->ncls + 1);
	memset(j->kind, KIND_UNKNOWN, (size_t)h->ncls + 1);
	j->fc = xcalloc((size_t)h->ncls + 1, sizeof *j->fc);
	return j;
}

const struct heap *jcoll_heap(const struct jcoll *j)
{
	return j->h;
}

void jcoll_free(struct jcoll *j)
{
	if (j == NULL)
		return;
	for (uint32_t c = 0; c < j->h->ncls; c++)
		free(j->fc[c]);
	for (size_t i = 0; i < j->tabcap; i++)
		free(j->tab[i].name);
	free(j->fc);
	free(j->tab);
	free(j->kind);
	free(j->stack);
	free(j);
}

enum coll_kind jcoll_kind(struct jcoll *j, uint32_t c)
{
	const struct heap *h = j->h;
	enum coll_kind k = CK_NONE;

	if (c >= h->ncls)
		return CK_NONE;
	if (j->kind[c] != KIND_UNKNOWN)
		return (enum coll_kind)j->kind[c];
	if (h->cls[c].flags & HC_ARRAY) {
		k = h->cls[c].elem_type == T_OBJECT ? CK_ARRAY : CK_NONE;
	} else {
		for (uint32_t d = c, depth = 0; d != HW_NONE && depth < h->ncls && k == CK_NONE;
		     d = h->cls[d].super, depth++)
			for (size_t i = 0; i < sizeof known / sizeof *known; i++)
				if (strcmp(class_name(h, d), known[i].name) == 0) {
					k = known[i].kind;
					break;
				}
	}
	j->kind[c] = (uint8_t)k;
	return k;
}

/* ---- fields ---- */

/* The offset of `name` in instances of c, uncached. */
static int field_lookup(const struct heap *h, uint32_t c, const char *name, uint8_t *type)
{
	uint32_t off;
	const struct hfield *f = class_field(h, c, name, &off);

	if (f == NULL || off > INT32_MAX / 2)
		return -1;
	*type = f->type;
	return (int)off;
}

static uint64_t name_hash(uint32_t c, const char *s)
{
	uint64_t x = 1469598103934665603ULL ^ c;

	for (; *s; s++)
		x = (x ^ (uint8_t)*s) * 1099511628211ULL;
	return x;
}

static void tab_grow(struct jcoll *j)
{
	struct fent *old = j->tab;
	size_t oldcap = j->tabcap;

	j->tabcap = oldcap ? oldcap * 2 : 64;
	j->tab = xcalloc(j->tabcap, sizeof *j->tab);
	for (size_t i = 0; i < oldcap; i++) {
		if (old[i].name == NULL)
			continue;
		size_t k = old[i].hash & (j->tabcap - 1);
		while (j->tab[k].name != NULL)
			k = (k + 1) & (j->tabcap - 1);
		j->tab[k] = old[i];
	}
	free(old);
}

int jfield_offset(struct jcoll *j, uint32_t c, const char *name, uint8_t *type)
{
	uint64_t x = name_hash(c, name);
	size_t k;

	if (c >= j->h->ncls)
		return -1;
	if (j->tabn * 2 >= j->tabcap)
		tab_grow(j);
	for (k = x & (j->tabcap - 1); j->tab[k].name != NULL; k = (k + 1) & (j->tabcap - 1)) {
		struct fent *e = &j->tab[k];
		if (e->hash == x && e->c == c && strcmp(e->name, name) == 0) {
			*type = e->type;
			return e->off;
		}
	}
	struct fent *e = &j->tab[k];
	e->c = c;
	e->hash = x;
	e->name = xstrdup(name);
	e->type = 0;
	e->off = field_lookup(j->h, c, name, &e->type);
	j->tabn++;
	*type = e->type;
	return e->off;
}

/* The cached offset of field f in class c; -1 if none. */
static int foff(struct jcoll *j, uint32_t c, enum fid f, uint8_t *type)
{
	struct fslot *s;

	if (c >= j->h->ncls)
		return -1;
	if (j->fc[c] == NULL) {
		j->fc[c] = xmalloc(F_NF * sizeof **j->fc);
		for (int i = 0; i < F_NF; i++)
			j->fc[c][i].off = -2;
	}
	s = &j->fc[c][f];
	if (s->off == -2) {
		s->type = 0;
		s->off = field_lookup(j->h, c, fid_name[f], &s->type);
	}
	*type = s->type;
	return s->off;
}

uint64_t jfield_raw(const struct heap *h, node_t v, int off, uint8_t type)
{
	unsigned ids = h->layout.idsize, sz = field_type_size(type, ids);
	const uint8_t *q;
	uint32_t len;

	if (off < 0 || sz == 0 || (q = heap_inst_data(h, v, &len)) == NULL || (uint64_t)off + sz > len)
		return 0;
	q += off;
	switch (type) {
	case T_OBJECT: return beid(q, ids);
	case T_BOOLEAN: case T_BYTE: return (uint64_t)(int64_t)(int8_t)q[0];
	case T_CHAR: return be16(q);
	case T_SHORT: return (uint64_t)(int64_t)(int16_t)be16(q);
	case T_INT: return (uint64_t)(int64_t)(int32_t)be32(q);
	case T_FLOAT: return be32(q);
	default: return be64(q); /* long, double */
	}
}

/* Among v's strong references: a short list is scanned, a long one
 * searched as if sorted by target (ownership.c sorts them; the dump's
 * order is field order), which finds nothing when it is not. */
static node_t out_find(const struct heap *h, node_t v, uint64_t id)
{
	edge_t s = h->out_start[v], e = h->out_start[v + 1];

	if (e - s <= LINEAR_OUT) {
		for (edge_t k = s; k < e; k++)
			if (heap_node_id(h, h->out[k]) == id)
				return h->out[k];
		return HW_NONE;
	}
	while (s < e) {
		edge_t mid = s + (e - s) / 2;
		uint64_t m = heap_node_id(h, h->out[mid]);
		if (m == id)
			return h->out[mid];
		if (m < id)
			s = mid + 1;
		else
			e = mid;
	}
	return HW_NONE;
}

/* Among v's weak references (weak_src ascending). */
static node_t weak_find(const struct heap *h, node_t v, uint64_t id)
{
	for (uint64_t lo = heap_weak_first(h, v); lo < h->nweak && h->weak_src[lo] == v; lo++)
		if (heap_node_id(h, h->weak_dst[lo]) == id)
			return h->weak_dst[lo];
	return HW_NONE;
}

node_t jref_node(const struct heap *h, node_t v, uint64_t id)
{
	node_t t = HW_NONE;

	if (id == 0)
		return HW_NONE;
	if (v != 0 && v < h->n && h->out_start != NULL && h->out != NULL)
		t = out_find(h, v, id);
	if (t == HW_NONE && v != 0 && v < h->n && h->weak_src != NULL)
		t = weak_find(h, v, id);
	return t != HW_NONE ? t : heap_find_id(h, id);
}

node_t jfield_ref(const struct heap *h, node_t v, int off)
{
	return jref_node(h, v, jfield_raw(h, v, off, T_OBJECT));
}

node_t jfield_node(struct jcoll *j, node_t v, const char *name)
{
	const struct heap *h = j->h;
	uint8_t type;
	int off;

	if (v == 0 || v >= h->n || h->node_kind[v] != NK_INSTANCE)
		return HW_NONE;
	off = jfield_offset(j, h->node_class[v], name, &type);
	return off >= 0 && type == T_OBJECT ? jfield_ref(h, v, off) : HW_NONE;
}

int64_t jfield_int(struct jcoll *j, node_t v, const char *name)
{
	const struct heap *h = j->h;
	uint8_t type;
	int off;

	if (v == 0 || v >= h->n || h->node_kind[v] != NK_INSTANCE)
		return 0;
	off = jfield_offset(j, h->node_class[v], name, &type);
	return off >= 0 && type != T_OBJECT ? (int64_t)jfield_raw(h, v, off, type) : 0;
}

/* Field f of instance v through the per-class cache: a node (HW_NONE
 * if null, absent or no reference), an integer (0 if absent). */
static node_t fref(struct jcoll *j, node_t v, enum fid f)
{
	uint8_t type;
	int off;

	if (v == HW_NONE || v == 0 || v >= j->h->n)
		return HW_NONE;
	off = foff(j, j->h->node_class[v], f, &type);
	return off >= 0 && type == T_OBJECT ? jfield_ref(j->h, v, off) : HW_NONE;
}

static int64_t fint(struct jcoll *j, node_t v, enum fid f)
{
	uint8_t type;
	int off;

	if (v == HW_NONE || v == 0 || v >= j->h->n)
		return 0;
	off = foff(j, j->h->node_class[v], f, &type);
	return off >= 0 && type != T_OBJECT ? (int64_t)jfield_raw(j->h, v, off, type) : 0;
}

/* ---- object arrays ---- */

/* The slots of an object array. Its out-edges, in the dump's order,
 * are its non-null slots in order: a cursor over them resolves most
 * slots without a search. */
struct slots {
	const struct heap *h;
	node_t a;
	const uint8_t *e;
	uint32_t len;
	edge_t cur, end;
};

static int slots_open(const struct heap *h, node_t a, struct slots *s)
{
	struct harray arr;

	s->len = 0;
	if (a == HW_NONE || heap_array_data(h, a, &arr) < 0 || arr.type != T_OBJECT)
		return -1;
	s->h = h;
	s->a = a;
	s->len = (uint32_t)arr.len;
	s->e = arr.data;
	s->cur = s->end = 0;
	if (h->out_start != NULL && h->out != NULL) {
		s->cur = h->out_start[a];
		s->end = h->out_start[a + 1];
	}
	return 0;
}

static uint64_t slot_id(const struct slots *s, uint32_t i)
{
	return beid(s->e + (uint64_t)i * s->h->layout.idsize, s->h->layout.idsize);
}

static node_t slot_node(struct slots *s, uint32_t i)
{
	uint64_t id = slot_id(s, i);

	if (id == 0)
		return HW_NONE;
	if (s->cur < s->end && heap_node_id(s->h, s->h->out[s->cur]) == id)
		return s->h->out[s->cur++];
	return jref_node(s->h, s->a, id);
}

/* ---- walking ---- */

/* One walk: what is wanted, where it goes, and the steps left. */
struct walk {
	struct jcoll *j;
	unsigned roles;  /* of the structure walked (a set's map: CR_KEY) */
	int set;         /* report keys as CR_ELEMENT */
	coll_fn fn;      /* NULL: only count (jcoll_info) */
	void *arg;
	int64_t calls;
	uint64_t budget;
	struct coll_info *ci;
};

static void emit(struct walk *w, node_t holder, node_t t, enum coll_role r)
{
	if (w->fn == NULL || t == HW_NONE || !(w->roles & r))
		return;
	w->fn(w->arg, holder, t, w->set && r == CR_KEY ? CR_ELEMENT : r);
	w->calls++;
}

/* Take one step of the walk's budget: 0 when it is spent (a corrupt
 * dump's loop ends here). */
static int budget_take(struct walk *w)
{
	if (w->budget == 0)
		return 0;
	w->budget--;
	return 1;
}

static uint64_t ulen(int64_t x) { return x > 0 ? (uint64_t)x : 0; }

/* ArrayList, Vector, CopyOnWriteArrayList: slots [0, size). */
static void walk_list(struct walk *w, node_t arr, uint64_t size)
{
	struct slots s;

	w->ci->size = size;
	if (slots_open(w->j->h, arr, &s) < 0)
		return;
	w->ci->capacity = s.len;
	if (w->fn == NULL || !(w->roles & CR_ELEMENT))
		return;
	for (uint32_t i = 0; i < s.len && i < size; i++)
		emit(w, arr, slot_node(&s, i), CR_ELEMENT);
}

/* Object arrays: every non-null slot is an element. */
static void walk_array(struct walk *w, node_t arr)
{
	struct slots s;

	if (slots_open(w->j->h, arr, &s) < 0)
		return;
	w->ci->capacity = s.len;
	for (uint32_t i = 0; i < s.len; i++) {
		if (slot_id(&s, i) == 0)
			continue;
		w->ci->size++;
		if (w->fn != NULL && (w->roles & CR_ELEMENT))
			emit(w, arr, slot_node(&s, i), CR_ELEMENT);
	}
}

/* ArrayDeque: elements[head], ... circularly up to tail. */
static void walk_deque(struct walk *w, node_t v)
{
	struct slots s;
	int64_t head = fint(w->j, v, F_HEAD), tail = fint(w->j, v, F_TAIL);

	if (slots_open(w->j->h, fref(w->j, v, F_ELEMENTS), &s) < 0 || s.len == 0)
		return;
	if (head < 0 || tail < 0 || head >= s.len || tail >= s.len)
		return;
	w->ci->capacity = s.len;
	w->ci->size = (uint64_t)((tail - head + s.len) % s.len);
	if (w->fn == NULL || !(w->roles & CR_ELEMENT))
		return;
	for (uint64_t k = 0; k < w->ci->size; k++) {
		uint32_t i = (uint32_t)(((uint64_t)head + k) % s.len);
		emit(w, s.a, slot_node(&s, i), CR_ELEMENT);
	}
}

/* LinkedList and ConcurrentLinkedQueue: first/head, then next. A
 * queue's unlinked node points to itself; its dummy head has no item. */
static void walk_chain(struct walk *w, node_t n, int count)
{
	int want = w->fn != NULL && (w->roles & CR_ELEMENT);

	while (n != HW_NONE && budget_take(w)) {
		node_t next = fref(w->j, n, F_NEXT);
		if (want || count) {
			node_t item = fref(w->j, n, F_ITEM);
			if (count)
				w->ci->size += item != HW_NONE;
			emit(w, n, item, CR_ELEMENT);
		}
		n = next == n ? HW_NONE : next;
	}
}

/* The key of a hash entry (a WeakHashMap's is its referent). */
static node_t entry_key(struct walk *w, node_t e, enum coll_kind k)
{
	node_t t = fref(w->j, e, k == CK_WEAKHASHMAP ? F_REFERENT : F_KEY);

	if (t != HW_NONE && k == CK_WEAKHASHMAP && t == w->j->whm_null)
		return HW_NONE; /* the null key */
	return t;
}

static void entry_emit(struct walk *w, node_t e, enum coll_kind k)
{
	if (w->fn == NULL)
		return;
	if (w->roles & CR_KEY)
		emit(w, e, entry_key(w, e, k), CR_KEY);
	if (w->roles & CR_VALUE)
		emit(w, e, fref(w->j, e, k == CK_CHM ? F_VAL : F_VALUE), CR_VALUE);
}

/* One bucket's chain from e; its length. A ConcurrentHashMap bin
 * headed by a TreeBin (hash -2) holds its entries in the `first` list;
 * other negative hashes (moved, reserved) hold none here. */
static uint64_t walk_bucket(struct walk *w, node_t e, enum coll_kind k)
{
	uint64_t len = 0;
	int64_t hash = k == CK_CHM ? fint(w->j, e, F_HASH) : 0;

	if (hash < 0) {
		if (hash != -2)
			return 0;
		e = fref(w->j, e, F_FIRST);
	}
	while (e != HW_NONE && budget_take(w)) {
		entry_emit(w, e, k);
		len++;
		e = fref(w->j, e, F_NEXT);
	}
	return len;
}

/* HashMap, LinkedHashMap, Hashtable, WeakHashMap, ConcurrentHashMap. */
static void walk_hash(struct walk *w, node_t v, enum coll_kind k)
{
	struct coll_info *ci = w->ci;
	struct slots s;

	if (k == CK_CHM) {
		struct slots cc;
		ci->size = ulen(fint(w->j, v, F_BASECOUNT));
		if (slots_open(w->j->h, fref(w->j, v, F_COUNTERCELLS), &cc) == 0)
			for (uint32_t i = 0; i < cc.len; i++)
				ci->size += ulen(fint(w->j, slot_node(&cc, i), F_VALUE));
	} else {
		ci->size = ulen(fint(w->j, v, k == CK_HASHTABLE ? F_COUNT : F_SIZE));
	}
	if (slots_open(w->j->h, fref(w->j, v, F_TABLE), &s) < 0)
		return;
	ci->capacity = s.len;
	w->budget = ci->size + s.len + 16;
	for (uint32_t i = 0; i < s.len && w->budget > 0; i++) {
		node_t e = slot_node(&s, i);
		if (e == HW_NONE)
			continue;
		uint64_t len = walk_bucket(w, e, k);
		ci->used_slots += len > 0;
		if (len > ci->longest)
			ci->longest = len;
		if (len > 1)
			ci->colliding += len;
	}
}

/* IdentityHashMap: keys at even slots, values at the odd ones, probed
 * linearly by address, which the dump does not keep: no chains, so
 * used_slots counts entries, and capacity is in pairs. */
static void walk_identity(struct walk *w, node_t v)
{
	struct coll_info *ci = w->ci;
	struct slots s;

	ci->size = ulen(fint(w->j, v, F_SIZE));
	if (slots_open(w->j->h, fref(w->j, v, F_TABLE), &s) < 0)
		return;
	ci->capacity = s.len / 2;
	for (uint32_t i = 0; i + 1 < s.len; i += 2) {
		if (slot_id(&s, i) == 0)
			continue;
		ci->used_slots++;
		ci->longest = 1;
		if (w->fn == NULL)
			continue;
		node_t key = slot_node(&s, i);
		if (key != w->j->ihm_null)
			emit(w, s.a, key, CR_KEY);
		emit(w, s.a, slot_node(&s, i + 1), CR_VALUE);
	}
}

static void push(struct jcoll *j, size_t *sp, node_t n)
{
	if (n == HW_NONE)
		return;
	if (*sp == j->stackcap) {
		j->stackcap = j->stackcap ? j->stackcap * 2 : 256;
		j->stack = xreallocarray(j->stack, j->stackcap, sizeof *j->stack);
	}
	j->stack[(*sp)++] = n;
}

/* TreeMap: its entries from the root, depth first. */
static void walk_tree(struct walk *w, node_t v)
{
	size_t sp = 0;

	w->ci->size = ulen(fint(w->j, v, F_SIZE));
	if (w->fn == NULL)
		return;
	w->budget = w->ci->size + 16;
	push(w->j, &sp, fref(w->j, v, F_ROOT));
	while (sp > 0 && budget_take(w)) {
		node_t e = w->j->stack[--sp];
		entry_emit(w, e, CK_TREEMAP);
		push(w->j, &sp, fref(w->j, e, F_RIGHT));
		push(w->j, &sp, fref(w->j, e, F_LEFT));
	}
}

/* The sentinels IdentityHashMap and WeakHashMap keep for a null key:
 * static NULL_KEY of the JDK's class. */
struct nullkey { uint64_t id; };

static void nullkey_field(void *arg, const char *name, const struct hvalue *val)
{
	struct nullkey *n = arg;

	if (strcmp(name, "NULL_KEY") == 0 && val->type == T_OBJECT)
		n->id = val->v.id;
}

static node_t null_key(const struct heap *h, const char *cname)
{
	for (uint32_t c = 0; c < h->ncls; c++) {
		struct nullkey n = { 0 };
		if (h->cls[c].node == HW_NONE || h->cls[c].loader_id != 0 ||
		    strcmp(class_name(h, c), cname) != 0)
			continue;
		heap_fields(h, h->cls[c].node, nullkey_field, &n);
		return heap_find_id(h, n.id);
	}
	return HW_NONE;
}

/* Down through wrappers and sets (and a JDK 9+ Properties, whose
 * entries are in its ConcurrentHashMap `map`) to the structure that
 * holds the elements; its kind in *k, *set if a set was crossed. */
static node_t backing(struct jcoll *j, node_t v, enum coll_kind *k, int *set)
{
	const struct heap *h = j->h;

	for (int depth = 0; depth < WRAP_DEPTH && v != HW_NONE; depth++) {
		node_t in;
		*k = jcoll_kind(j, h->node_class[v]);
		switch (*k) {
		case CK_WRAPPER:
			in = fref(j, v, F_C);
			if (in == HW_NONE)
				in = fref(j, v, F_M);
			break;
		case CK_HASHSET: case CK_LINKEDHASHSET:
			in = fref(j, v, F_MAP);
			*set = 1;
			break;
		case CK_TREESET: in = fref(j, v, F_M); *set = 1; break;
		case CK_COWSET: in = fref(j, v, F_AL); *set = 1; break;
		case CK_HASHTABLE: {
			uint8_t type;
			if (foff(j, h->node_class[v], F_MAP, &type) < 0)
				return v;
			in = fref(j, v, F_MAP);
			break;
		}
		default:
			return v;
		}
		v = in;
	}
	*k = CK_NONE;
	return HW_NONE;
}

/* Both entry points: info always, the references when w->fn. */
static int run(struct jcoll *j, node_t v, struct walk *w)
{
	const struct heap *h = j->h;
	enum coll_kind k;
	int set = 0;

	if (v == 0 || v >= h->n || jcoll_kind(j, h->node_class[v]) == CK_NONE)
		return -1;
	if (!j->nulls_known) {
		j->ihm_null = null_key(h, "java.util.IdentityHashMap");
		j->whm_null = null_key(h, "java.util.WeakHashMap");
		j->nulls_known = 1;
	}
	w->ci->kind = jcoll_kind(j, h->node_class[v]);
	v = backing(j, v, &k, &set);
	if (set) { /* a set's elements are its map's keys */
		if (k != CK_COWLIST)
			w->roles = w->roles & CR_ELEMENT ? CR_KEY : 0;
		w->set = 1;
	} else if (k != CK_ARRAY && k != CK_ARRAYLIST && k != CK_VECTOR && k != CK_ARRAYDEQUE &&
		   k != CK_LINKEDLIST && k != CK_COWLIST && k != CK_CLQ) {
		w->roles &= CR_KEY | CR_VALUE; /* a map has no elements */
	}
	if (w->fn != NULL && w->roles == 0)
		return 0;
	w->budget = UINT64_MAX;
	switch (k) {
	case CK_ARRAY: walk_array(w, v); break;
	case CK_ARRAYLIST: walk_list(w, fref(j, v, F_ELEMENTDATA), ulen(fint(j, v, F_SIZE))); break;
	case CK_VECTOR: walk_list(w, fref(j, v, F_ELEMENTDATA), ulen(fint(j, v, F_ELEMENTCOUNT))); break;
	case CK_COWLIST: {
		node_t a = fref(j, v, F_ARRAY);
		struct slots s;
		walk_list(w, a, slots_open(h, a, &s) == 0 ? s.len : 0);
		break;
	}
	case CK_ARRAYDEQUE: walk_deque(w, v); break;
	case CK_LINKEDLIST:
		w->ci->size = ulen(fint(j, v, F_SIZE));
		if (w->fn != NULL) {
			w->budget = w->ci->size + 16;
			walk_chain(w, fref(j, v, F_FIRST), 0);
		}
		break;
	case CK_CLQ:
		w->budget = h->n; /* no size to bound it: a queue counts by walking */
		walk_chain(w, fref(j, v, F_HEAD), 1);
		break;
	case CK_HASHMAP: case CK_LINKEDHASHMAP: case CK_HASHTABLE: case CK_WEAKHASHMAP: case CK_CHM:
		walk_hash(w, v, k);
		break;
	case CK_IDENTITYHASHMAP: walk_identity(w, v); break;
	case CK_TREEMAP: walk_tree(w, v); break;
	default: break; /* a wrapper or set of something unknown */
	}
	return 0;
}

int jcoll_info(struct jcoll *j, node_t v, struct coll_info *ci)
{
	struct walk w = { .j = j, .ci = ci };

	memset(ci, 0, sizeof *ci);
	return run(j, v, &w);
}

int64_t jcoll_walk(struct jcoll *j, node_t v, unsigned roles, coll_fn fn, void *arg)
{
	struct coll_info ci = { 0 };
	struct walk w = { .j = j, .roles = roles, .fn = fn, .arg = arg, .ci = &ci };

	if (run(j, v, &w) < 0)
		return -1;
	return w.calls;
}

/* ---- the merged views' hook: collections as their contents ----
 * For merged references by field (query/merged.c), a collection's
 * elements, keys and values are its own references ("map value of
 * java.util.HashMap") and its inside (tables, nodes, entries, views, a
 * set's backing map) is hidden. Incoming, the inner object that refers
 * to a member is traced up to its collection through the dominator
 * tree: a collection dominates its inside unless something else holds
 * a piece of it, and then the reference is shown as it is. Each
 * collection met is walked once and its (holder, target) pairs kept. */
struct jcontents {
	struct jcoll *j;
	uint8_t *inner;        /* per class: 0 not asked, 1 no, 2 a collection's inside */
	uint32_t *owner;       /* per node: 0 not asked, 1 none, 2 + the collection */
	bits_t *walked;        /* collections whose pairs are in the table */
	struct cpair { uint64_t key; node_t coll; uint8_t roles; } *tab;
	size_t tabn, tabcap;
	node_t outer_k[256], outer_v[256]; /* inner collection + 1 -> its set, or itself */
};

struct jcontents *jcontents_new(const struct heap *h)
{
	struct jcontents *c = xcalloc(1, sizeof *c);

	c->j = jcoll_new(h);
	c->inner = xcalloc((size_t)h->ncls + 1, 1);
	c->owner = xcalloc(h->n, sizeof *c->owner); /* zero pages: only touched ones cost */
	c->walked = xcalloc(bits_words(h->n), sizeof *c->walked);
	return c;
}

void jcontents_free(struct jcontents *c)
{
	if (c == NULL)
		return;
	jcoll_free(c->j);
	free(c->inner);
	free(c->owner);
	free(c->walked);
	free(c->tab);
	free(c);
}

/* The inside of the JDK's collections: object arrays (tables, element
 * arrays) and java.util's nested classes (nodes, entries, views). */
static int inner_class(struct jcontents *c, uint32_t k)
{
	const struct heap *h = c->j->h;

	if (c->inner[k] == 0) {
		const char *n = class_name(h, k);
		int in = (h->cls[k].flags & HC_ARRAY) ? h->cls[k].elem_type == T_OBJECT
			 : strncmp(n, "java.util.", 10) == 0 && strchr(n, '$') != NULL;
		c->inner[k] = in ? 2 : 1;
	}
	return c->inner[k] == 2;
}

static int is_coll(struct jcontents *c, node_t v)
{
	enum coll_kind k = jcoll_kind(c->j, c->j->h->node_class[v]);

	return k != CK_NONE && k != CK_ARRAY;
}

int jcontents_is_coll(struct jcontents *c, node_t v)
{
	return v != 0 && v < c->j->h->n && is_coll(c, v);
}

static uint64_t pair_hash(uint64_t key)
{
	key *= 0x9e3779b97f4a7c15ull;
	return key ^ key >> 31;
}

static void tab_rehash(struct jcontents *c)
{
	struct cpair *old = c->tab;
	size_t oldcap = c->tabcap;

	c->tabcap = oldcap ? oldcap * 2 : 1024;
	c->tab = xcalloc(c->tabcap, sizeof *c->tab);
	c->tabn = 0;
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].roles != 0) {
			size_t k = pair_hash(old[i].key) & (c->tabcap - 1);
			while (c->tab[k].roles != 0)
				k = (k + 1) & (c->tabcap - 1);
			c->tab[k] = old[i];
			c->tabn++;
		}
	free(old);
}

/* pair_put's argument: the table, and the collection being walked. */
struct putarg { struct jcontents *c; node_t coll; };

static void pair_put(void *arg, node_t holder, node_t target, enum coll_role role)
{
	struct putarg *p = arg;
	struct jcontents *c = p->c;

	if (2 * (c->tabn + 1) > c->tabcap)
		tab_rehash(c);
	uint64_t key = (uint64_t)holder << 32 | target;
	size_t k = pair_hash(key) & (c->tabcap - 1);
	while (c->tab[k].roles != 0 && c->tab[k].key != key)
		k = (k + 1) & (c->tabcap - 1);
	if (c->tab[k].roles == 0) {
		c->tab[k] = (struct cpair){ key, p->coll, 0 };
		c->tabn++;
	}
	c->tab[k].roles |= (uint8_t)role;
}

static const struct cpair *pair_get(const struct jcontents *c, node_t holder, node_t target)
{
	uint64_t key = (uint64_t)holder << 32 | target;

	if (c->tabcap == 0)
		return NULL;
	for (size_t k = pair_hash(key) & (c->tabcap - 1); c->tab[k].roles != 0; k = (k + 1) & (c->tabcap - 1))
		if (c->tab[k].key == key)
			return &c->tab[k];
	return NULL;
}

/* A set (or JDK 9+ Properties) whose backing structure v is: elements
 * are reported for the set, as jcoll_walk does. */
static node_t set_of(struct jcontents *c, node_t v)
{
	const struct heap *h = c->j->h;
	uint8_t type;

	for (edge_t e = h->in_start[v]; e < h->in_start[v + 1]; e++) {
		node_t s = h->in[e];
		if (s == 0)
			continue;
		uint32_t k = h->node_class[s];
		switch (jcoll_kind(c->j, k)) {
		case CK_HASHSET: case CK_LINKEDHASHSET:
			if (fref(c->j, s, F_MAP) == v)
				return s;
			break;
		case CK_TREESET:
			if (fref(c->j, s, F_M) == v)
				return s;
			break;
		case CK_COWSET:
			if (fref(c->j, s, F_AL) == v)
				return s;
			break;
		case CK_HASHTABLE:
			if (foff(c->j, k, F_MAP, &type) >= 0 && fref(c->j, s, F_MAP) == v)
				return s;
			break;
		default:
			break;
		}
	}
	return v;
}

/* The collection whose inside y is (up y's dominators through inner
 * objects), HW_NONE if none; remembered for every node on the way. */
static node_t owner_of(struct jcontents *c, node_t y)
{
	const struct heap *h = c->j->h;
	node_t v = y, res = HW_NONE, first = y;

	for (;;) {
		if (v == 0 || v == HW_NONE || v >= h->n)
			break;
		if (c->owner[v] != 0) {
			res = c->owner[v] == 1 ? HW_NONE : c->owner[v] - 2;
			break;
		}
		if (is_coll(c, v)) {
			res = v;
			break;
		}
		if (!inner_class(c, h->node_class[v]))
			break;
		v = h->idom[v];
	}
	/* again from y, the same way, to remember the answer */
	for (v = first; v != 0 && v != HW_NONE && v < h->n && c->owner[v] == 0; v = h->idom[v]) {
		c->owner[v] = res == HW_NONE ? 1 : res + 2;
		if (is_coll(c, v) || !inner_class(c, h->node_class[v]))
			break;
	}
	return res;
}

/* The pairs of collection v, walked once. */
static void walk_once(struct jcontents *c, node_t v)
{
	if (!bit_get(c->walked, v)) {
		struct putarg p = { c, v };
		bit_set(c->walked, v);
		jcoll_walk(c->j, v, CR_ELEMENT | CR_KEY | CR_VALUE, pair_put, &p);
	}
}

/* Does reference field f of y hold the object with id xid? */
static int fholds(struct jcontents *c, node_t y, enum fid f, uint64_t xid)
{
	uint8_t type;
	int off = foff(c->j, c->j->h->node_class[y], f, &type);

	return off >= 0 && type == T_OBJECT && jfield_raw(c->j->h, y, off, T_OBJECT) == xid;
}

/* The roles in which y, inside the collection `in` of kind k, holds x,
 * read from y's own fields (the common kinds: no walk); 0 when y is
 * not such a piece, -1 when the kind needs a walk. */
static int direct_roles(struct jcontents *c, node_t in, enum coll_kind k, node_t y, uint64_t xid)
{
	const struct heap *h = c->j->h;

	if (h->node_kind[y] == NK_OBJARRAY) { /* an element array */
		enum fid f = k == CK_COWLIST ? F_ARRAY : k == CK_ARRAYDEQUE ? F_ELEMENTS : F_ELEMENTDATA;
		/* a hash table's buckets hold its nodes, never a key or value */
		if (k == CK_HASHMAP || k == CK_LINKEDHASHMAP || k == CK_HASHTABLE || k == CK_CHM)
			return 0;
		if (k != CK_ARRAYLIST && k != CK_VECTOR && k != CK_COWLIST && k != CK_ARRAYDEQUE)
			return -1;
		return fholds(c, in, f, heap_node_id(h, y)) ? CR_ELEMENT : 0; /* ids: no search */
	}
	switch (k) {
	case CK_HASHMAP: case CK_LINKEDHASHMAP: case CK_HASHTABLE: case CK_TREEMAP: case CK_CHM:
		return (fholds(c, y, F_KEY, xid) ? CR_KEY : 0) |
		       (fholds(c, y, k == CK_CHM ? F_VAL : F_VALUE, xid) ? CR_VALUE : 0);
	case CK_LINKEDLIST: case CK_CLQ:
		return fholds(c, y, F_ITEM, xid) ? CR_ELEMENT : 0;
	default:
		return -1;
	}
}

node_t jcontents_holder(struct jcontents *c, node_t y, node_t x, unsigned r, uint64_t *xid,
			enum coll_role *role)
{
	const struct heap *h = c->j->h;
	static const enum coll_role order[] = { CR_KEY, CR_VALUE, CR_ELEMENT };

	if (y == 0 || y >= h->n || !inner_class(c, h->node_class[y]))
		return HW_NONE;
	node_t in = owner_of(c, y);
	if (in == HW_NONE)
		return HW_NONE;
	/* a set's backing map: the set, remembered for the next piece */
	size_t m = (in * 0x9e3779b1u) >> 24;
	if (c->outer_k[m] != in + 1) {
		c->outer_k[m] = in + 1;
		c->outer_v[m] = set_of(c, in);
	}
	node_t coll = c->outer_v[m];
	if (*xid == 0)
		*xid = heap_node_id(h, x);
	int roles = direct_roles(c, in, jcoll_kind(c->j, h->node_class[in]), y, *xid);
	if (roles < 0) { /* the rarer kinds: their pairs, from a walk */
		walk_once(c, coll);
		const struct cpair *p = pair_get(c, y, x);
		roles = p != NULL && p->coll == coll ? p->roles : 0;
	} else if (coll != in && jcoll_kind(c->j, h->node_class[coll]) != CK_HASHTABLE) {
		/* a set's elements are its map's keys (or its list's elements);
		 * a Properties keeps its map's keys and values */
		roles = roles & (CR_KEY | CR_ELEMENT) ? CR_ELEMENT : 0;
	}
	/* y's r-th reference to x: key before value, as in the record */
	for (unsigned i = 0, k = 0; i < 3; i++)
		if ((roles & (int)order[i]) && k++ == r) {
			*role = order[i];
			return coll;
		}
	return HW_NONE;
}

int64_t jcontents_walk(struct jcontents *c, node_t v, coll_fn fn, void *arg)
{
	return jcoll_walk(c->j, v, CR_ELEMENT | CR_KEY | CR_VALUE, fn, arg);
}

int jcontents_inside(struct jcontents *c, node_t v, node_t y)
{
	const struct heap *h = c->j->h;

	(void)v;
	return y != 0 && y < h->n && (inner_class(c, h->node_class[y]) || is_coll(c, y));
}
