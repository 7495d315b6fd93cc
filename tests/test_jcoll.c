/* test_jcoll.c — fields by name and the JDK's collections, against a
 * real JVM's dump of tests/java/Colls: every collection there has a size,
 * capacity and bucket layout known by construction (the comments in
 * Colls.java and the JDK's sizing rules), and elements whose values say
 * what they are; two were corrupted into loops. The test finds them
 * through Colls's static fields, read with hprof_fields(), and names the
 * targets of a walk by decoding them, without jcoll. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/hprof.h"
#include "runtime/jvm_coll.h"
#include "engine/open.h"
#include "hprofw.h"
#include "suites.h"


/* Make the dump once per build (again when Colls.java changes). */
static const char *colls_dump(void)
{
	static char path[512];

	workload_dump("Colls", "colls", "--add-opens java.base/java.util=ALL-UNNAMED", path, sizeof path);
	return path;
}

static void open_colls(struct heap *h)
{
	struct open_opts o = { .no_cache = 1, .quiet = 1 };
	struct sbuf err;

	sbuf_init(&err);
	ck_assert_msg(heap_open(h, colls_dump(), &o, NULL, &err) == 0, "%s", err.buf);
	heap_need(h, HP_ALL, NULL);
	sbuf_free(&err);
}

static uint32_t find_class(const struct heap *h, const char *name)
{
	for (uint32_t c = 0; c < h->ncls; c++)
		if (strcmp(class_name(h, c), name) == 0)
			return c;
	ck_abort_msg("no class %s", name);
	return HW_NONE;
}

/* A field (static of a class node, or of an instance) by hprof_fields. */
struct fget { const char *want; struct hvalue val; int found; };

static void fget_cb(void *arg, const char *name, const struct hvalue *val)
{
	struct fget *f = arg;

	if (!f->found && strcmp(name, f->want) == 0) {
		f->val = *val;
		f->found = 1;
	}
}

static struct hvalue field_value(const struct heap *h, node_t v, const char *name)
{
	struct fget f = { name, { 0 }, 0 };

	hprof_fields(h, v, fget_cb, &f);
	ck_assert_msg(f.found, "no field %s", name);
	return f.val;
}

static node_t field_ref(const struct heap *h, node_t v, const char *name)
{
	return heap_find_id(h, field_value(h, v, name).v.id);
}

/* Colls.NAME */
static node_t planted(const struct heap *h, const char *name)
{
	node_t v = field_ref(h, h->cls[find_class(h, "Colls")].node, name);

	ck_assert_msg(v != HW_NONE, "Colls.%s not in the dump", name);
	return v;
}

/* What a target is: a String's text, "I:n" for an Integer, "K:id" for a
 * Colls$K. */
static void label(const struct heap *h, node_t t, char *buf, size_t n)
{
	const char *cn = class_name(h, h->node_class[t]);
	struct sbuf sb;

	if (strcmp(cn, "java.lang.String") == 0) {
		sbuf_init(&sb);
		ck_assert(hprof_string_value(h, t, &sb, 100) == 0);
		snprintf(buf, n, "%s", sb.buf);
		sbuf_free(&sb);
	} else if (strcmp(cn, "java.lang.Integer") == 0) {
		snprintf(buf, n, "I:%lld", (long long)field_value(h, t, "value").v.i);
	} else if (strcmp(cn, "Colls$K") == 0) {
		snprintf(buf, n, "K:%lld", (long long)field_value(h, t, "id").v.i);
	} else {
		snprintf(buf, n, "?%s", cn);
	}
}

/* What one walk found. */
struct seen {
	const struct heap *h;
	size_t n;
	char lab[2100][24];
	node_t holder[2100], target[2100];
	unsigned roles;
};

static void seen_cb(void *arg, node_t holder, node_t target, enum coll_role role)
{
	struct seen *s = arg;

	ck_assert_uint_lt(s->n, 2100);
	ck_assert_uint_lt(holder, s->h->n);
	ck_assert_uint_lt(target, s->h->n);
	s->roles |= role;
	s->holder[s->n] = holder;
	s->target[s->n] = target;
	label(s->h, target, s->lab[s->n], sizeof s->lab[0]);
	s->n++;
}

static int cmp_lab(const void *a, const void *b) { return strcmp(a, b); }

/* Walk Colls.NAME for roles: exactly the labels `want` (printf format
 * with one int, for i in [from, to)), every call with role `as`, every
 * holder of class `holder` (or one of two, "|"-separated) if given. */
static void expect_walk(struct jcoll *j, const struct heap *h, const char *name, unsigned roles,
			enum coll_role as, const char *fmt, int from, int to, const char *holder)
{
	static struct seen s;
	static char want[2100][24];
	size_t nw = 0;

	memset(&s, 0, sizeof s);
	s.h = h;
	int64_t calls = jcoll_walk(j, planted(h, name), roles, seen_cb, &s);
	ck_assert_msg(calls == (int64_t)s.n, "%s: %lld calls, %zu seen", name, (long long)calls, s.n);
	for (int i = from; i < to; i++)
		snprintf(want[nw++], sizeof want[0], fmt, i);
	ck_assert_msg(s.n == nw, "%s roles %u: %zu targets, want %zu", name, roles, s.n, nw);
	if (nw == 0)
		return;
	ck_assert_msg(s.roles == (unsigned)as, "%s: roles %u, want %u", name, s.roles, (unsigned)as);
	qsort(s.lab, s.n, sizeof s.lab[0], cmp_lab);
	qsort(want, nw, sizeof want[0], cmp_lab);
	for (size_t i = 0; i < nw; i++)
		ck_assert_msg(strcmp(s.lab[i], want[i]) == 0, "%s: target %s, want %s", name, s.lab[i], want[i]);
	for (size_t i = 0; holder != NULL && i < s.n; i++) {
		const char *cn = class_name(h, h->node_class[s.holder[i]]);
		const char *bar = strchr(holder, '|');
		int ok = bar ? (strncmp(cn, holder, (size_t)(bar - holder)) == 0 && cn[bar - holder] == '\0') ||
				       strcmp(cn, bar + 1) == 0
			     : strcmp(cn, holder) == 0;
		ck_assert_msg(ok, "%s: holder of class %s, want %s", name, cn, holder);
	}
}

START_TEST(test_fields)
{
	struct heap h;
	open_colls(&h);
	struct jcoll *j = jcoll_new(&h);
	node_t p = planted(&h, "PLAIN");
	uint32_t c = h.node_class[p];
	unsigned ids = h.layout.idsize;
	uint8_t t;

	ck_assert_str_eq(class_name(&h, c), "Colls$Plain");
	ck_assert_int_eq(jfield_int(j, p, "pb"), -3);
	ck_assert_int_eq(jfield_int(j, p, "pc"), 'x');
	ck_assert_int_eq(jfield_int(j, p, "ps"), -300);
	ck_assert_int_eq(jfield_int(j, p, "pz"), 1);
	ck_assert_int_eq(jfield_int(j, p, "pi"), 123456);
	ck_assert_int_eq(jfield_int(j, p, "bi"), 77); /* the subclass's, hiding Base.bi */
	ck_assert(jfield_int(j, p, "bl") == 0x1122334455667788LL);
	double d = 2.5;
	uint64_t bits;
	memcpy(&bits, &d, 8);
	int pd = jfield_offset(j, c, "pd", &t);
	ck_assert(jfield_raw(&h, p, pd, t) == bits);
	ck_assert_int_eq(t, T_DOUBLE);
	/* Plain's own fields come first: 1+2+2+1+4+8+4+4 bytes and a ref */
	unsigned own = 26 + ids;
	const char *mine[] = { "pb", "pc", "ps", "pz", "pi", "po", "pd", "pf", "bi" };
	for (size_t i = 0; i < sizeof mine / sizeof *mine; i++)
		ck_assert_int_lt(jfield_offset(j, c, mine[i], &t), (int)own);
	int bl = jfield_offset(j, c, "bl", &t);
	ck_assert_int_ge(bl, (int)own);
	ck_assert_int_lt(bl, (int)own + 12 + (int)ids);
	ck_assert_int_eq(t, T_LONG);
	ck_assert_int_eq(jfield_offset(j, c, "bl", &t), bl); /* cached */
	ck_assert_int_eq(jfield_offset(j, c, "po", &t) >= 0, 1);
	ck_assert_int_eq(t, T_OBJECT);
	ck_assert_int_eq(jfield_offset(j, c, "nosuch", &t), -1);
	ck_assert_int_eq(jfield_offset(j, c, "nosuch", &t), -1);
	ck_assert_int_eq(jfield_int(j, p, "nosuch"), 0);
	ck_assert_uint_eq(jfield_node(j, p, "nosuch"), HW_NONE);
	ck_assert_uint_eq(jfield_node(j, p, "pi"), HW_NONE); /* no reference */

	char buf[64];
	label(&h, jfield_node(j, p, "po"), buf, sizeof buf);
	ck_assert_str_eq(buf, "plain");
	label(&h, jfield_node(j, p, "bo"), buf, sizeof buf);
	ck_assert_str_eq(buf, "base");
	/* not an instance: nothing */
	node_t arr = planted(&h, "ARR");
	ck_assert_uint_eq(jfield_raw(&h, arr, 0, T_INT), 0);
	ck_assert_uint_eq(jfield_node(j, arr, "po"), HW_NONE);
	jcoll_free(j);
	heap_free(&h);
}
END_TEST

/* Field offsets of every class of a real dump against a brute-force
 * walk: a class's fields, then its super's, each at the sum of the
 * HPROF sizes (the test writer's, not the reader's) before it; and
 * every instance record holds as many bytes as its class says. */
START_TEST(test_field_offsets)
{
	struct heap h;
	open_colls(&h);
	unsigned ids = h.layout.idsize;
	uint64_t checked = 0;

	for (uint32_t c = 0; c < h.ncls; c++) {
		uint64_t at = 0;
		for (uint32_t d = c; d != HW_NONE; d = h.cls[d].super)
			for (unsigned i = 0; i < h.cls[d].nfields; i++) {
				const struct hfield *f = &h.fields[h.cls[d].field_first + i];
				const char *name = heap_str(&h, f->name);
				uint32_t off = HW_NONE;
				const struct hfield *g = class_field(&h, c, name, &off);
				ck_assert(g != NULL);
				/* a name declared again further down hides this one */
				ck_assert(g == f || off < at);
				ck_assert(g != f || off == at);
				ck_assert(class_field_at(&h, c, (uint32_t)at) == f);
				at += hw_type_size(f->type, ids);
				checked++;
			}
		ck_assert_uint_eq(h.cls[c].inst_bytes, at);
	}
	ck_assert_uint_gt(checked, 1000);
	for (node_t v = 1; v < h.n; v++) {
		if (h.node_kind[v] != NK_INSTANCE)
			continue;
		const uint8_t *q = h.map + h.node_off[v] + 1 + 2 * ids + 4;
		uint32_t len = (uint32_t)q[0] << 24 | (uint32_t)q[1] << 16 | (uint32_t)q[2] << 8 | q[3];
		ck_assert_uint_eq(len, h.cls[h.node_class[v]].inst_bytes);
	}
	heap_free(&h);
}
END_TEST

/* heap_weak_first() for every node, against one walk down weak_src. */
START_TEST(test_weak_first)
{
	struct heap h;
	open_colls(&h);
	uint64_t i = 0, from = 0;

	ck_assert_uint_gt(h.nweak, 10);
	for (node_t v = 0; v <= h.n; v++) {
		while (i < h.nweak && h.weak_src[i] < v)
			i++;
		ck_assert_uint_eq(heap_weak_first(&h, v), i);
		from += i < h.nweak && h.weak_src[i] == v;
	}
	ck_assert_uint_gt(from, 10); /* and found the references of that many nodes */
	heap_free(&h);
}
END_TEST

/* jref_node agrees with a search over every id, for every reference
 * of every instance and object array (and a WeakHashMap entry's
 * referent), both with out-edges in the dump's order and sorted. */
struct refcheck { const struct heap *h; node_t v; uint64_t n; };

static void ref_cb(void *arg, const char *name, const struct hvalue *val)
{
	struct refcheck *r = arg;

	(void)name;
	if (val->type != T_OBJECT || val->v.id == 0)
		return;
	ck_assert_uint_eq(jref_node(r->h, r->v, val->v.id), heap_find_id(r->h, val->v.id));
	r->n++;
}

static int cmp_node(const void *a, const void *b)
{
	node_t x = *(const node_t *)a, y = *(const node_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t check_refs(const struct heap *h)
{
	struct refcheck r = { h, 0, 0 };

	for (node_t v = 1; v < h->n; v++) {
		r.v = v;
		if (h->node_kind[v] == NK_INSTANCE) {
			hprof_fields(h, v, ref_cb, &r);
		} else if (h->node_kind[v] == NK_OBJARRAY) {
			uint8_t t;
			int64_t len = hprof_array_length(h, v, &t);
			for (int64_t i = 0; i < len; i++) {
				struct hvalue e;
				ck_assert_int_eq(hprof_array_elem(h, v, (uint64_t)i, &e), 0);
				ref_cb(&r, "", &e);
			}
		}
	}
	return r.n;
}

START_TEST(test_jref)
{
	struct heap h;
	open_colls(&h);

	uint64_t n = check_refs(&h);
	ck_assert_uint_gt(n, 10000);
	/* ids not in the dump; null */
	uint64_t last = heap_node_id(&h, h.n - 1);
	ck_assert_uint_eq(jref_node(&h, h.n - 1, last + 8), HW_NONE);
	ck_assert_uint_eq(jref_node(&h, 1, 0), HW_NONE);
	/* the WeakHashMap's keys are its entries' referents: weak edges */
	struct jcoll *j = jcoll_new(&h);
	node_t keys = planted(&h, "WHM_KEYS");
	node_t table = field_ref(&h, planted(&h, "WHM"), "table"), e = HW_NONE;
	for (uint64_t i = 0; i < 16 && e == HW_NONE; i++) {
		struct hvalue slot;
		ck_assert_int_eq(hprof_array_elem(&h, table, i, &slot), 0);
		e = heap_find_id(&h, slot.v.id);
	}
	ck_assert_str_eq(class_name(&h, h.node_class[e]), "java.util.WeakHashMap$Entry");
	node_t k = jfield_node(j, e, "referent");
	ck_assert(k != HW_NONE);
	ck_assert_uint_eq(k, field_ref(&h, e, "referent"));
	int strong = 0;
	for (edge_t x = h.out_start[e]; x < h.out_start[e + 1]; x++)
		strong |= h.out[x] == k;
	ck_assert_int_eq(strong, 0);
	int in_keys = 0;
	for (edge_t x = h.out_start[keys]; x < h.out_start[keys + 1]; x++)
		in_keys |= h.out[x] == k;
	ck_assert_int_eq(in_keys, 1);
	jcoll_free(j);
	/* out-edges sorted, as after rules: the searches take the other path */
	for (node_t v = 1; v < h.n; v++)
		qsort(h.out + h.out_start[v], h.out_start[v + 1] - h.out_start[v], sizeof *h.out, cmp_node);
	ck_assert_uint_eq(check_refs(&h), n);
	heap_free(&h);
}
END_TEST

START_TEST(test_kinds)
{
	struct heap h;
	open_colls(&h);
	struct jcoll *j = jcoll_new(&h);

	ck_assert_str_eq(coll_kind_name(CK_HASHMAP), "java.util.HashMap");
	ck_assert_str_eq(coll_kind_name(CK_CHM), "java.util.concurrent.ConcurrentHashMap");
	ck_assert_int_eq(jcoll_kind(j, find_class(&h, "java.util.Stack")), CK_VECTOR);
	ck_assert_int_eq(jcoll_kind(j, find_class(&h, "java.util.Properties")), CK_HASHTABLE);
	ck_assert_int_eq(jcoll_kind(j, find_class(&h, "java.util.LinkedHashMap")), CK_LINKEDHASHMAP);
	ck_assert_int_eq(jcoll_kind(j, find_class(&h, "java.util.Collections$UnmodifiableRandomAccessList")),
			 CK_WRAPPER);
	ck_assert_int_eq(jcoll_kind(j, find_class(&h, "[Ljava.lang.Object;")), CK_ARRAY);
	ck_assert_int_eq(jcoll_kind(j, find_class(&h, "[I")), CK_NONE);
	ck_assert_int_eq(jcoll_kind(j, find_class(&h, "Colls$Plain")), CK_NONE);
	ck_assert_int_eq(jcoll_kind(j, find_class(&h, "java.util.HashMap$Node")), CK_NONE);
	ck_assert_int_eq(jcoll_kind(j, h.ncls), CK_NONE);
	jcoll_free(j);
	heap_free(&h);
}
END_TEST

/* Java's String.hashCode of ASCII text, and the buckets of HashMap
 * (spread h ^ h >>> 16) or ConcurrentHashMap (the same, sign cleared). */
static int32_t jhash(const char *s)
{
	uint32_t x = 0;

	for (; *s; s++)
		x = 31 * x + (uint8_t)*s;
	return (int32_t)x;
}

static void string_buckets(const char *const *keys, size_t n, unsigned cap, uint64_t *used,
			   uint64_t *longest, uint64_t *colliding)
{
	unsigned count[64] = { 0 };

	*used = *longest = *colliding = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t x = (uint32_t)jhash(keys[i]);
		count[((x ^ x >> 16) & 0x7fffffff) & (cap - 1)]++;
	}
	for (unsigned b = 0; b < cap; b++) {
		*used += count[b] > 0;
		if (count[b] > *longest)
			*longest = count[b];
		if (count[b] > 1)
			*colliding += count[b];
	}
}

struct want { const char *name; enum coll_kind kind; long long size, cap, used, longest, colliding; };

START_TEST(test_info)
{
	struct heap h;
	open_colls(&h);
	struct jcoll *j = jcoll_new(&h);
	static const char *const lhs[] = { "lhs-a", "lhs-b", "lhs-c" };
	static const char *const props[] = { "pk0", "pk1", "pk2", "pk3" };
	uint64_t lu, ll, lc, pu, pl, pc;

	string_buckets(lhs, 3, 16, &lu, &ll, &lc);
	string_buckets(props, 4, 16, &pu, &pl, &pc);
	/* -1: not checked; lists and trees have no buckets (0) */
	const struct want w[] = {
		{ "AL", CK_ARRAYLIST, 7, 100, 0, 0, 0 },
		{ "AL_EMPTY", CK_ARRAYLIST, 0, 0, 0, 0, 0 },
		{ "VEC", CK_VECTOR, 3, 10, 0, 0, 0 },
		{ "STACK", CK_VECTOR, 4, 10, 0, 0, 0 },
		{ "DEQUE", CK_ARRAYDEQUE, 8, 17, 0, 0, 0 },
		{ "LL", CK_LINKEDLIST, 10, 0, 0, 0, 0 },
		{ "HM_COLL", CK_HASHMAP, 12, 16, 9, 3, 5 },
		{ "HM_TREE", CK_HASHMAP, 13, 64, 4, 10, 10 },
		{ "HM_EMPTY", CK_HASHMAP, 0, 0, 0, 0, 0 },
		{ "HM_13", CK_HASHMAP, 13, 32, 13, 1, 0 },
		{ "LHM", CK_LINKEDHASHMAP, 5, 16, 5, 1, 0 },
		{ "HS", CK_HASHSET, 20, 32, 20, 1, 0 },
		{ "LHS", CK_LINKEDHASHSET, 3, 16, (long long)lu, (long long)ll, (long long)lc },
		{ "HT", CK_HASHTABLE, 5, 11, 3, 3, 3 },
		{ "PROPS", CK_HASHTABLE, 4, 16, (long long)pu, (long long)pl, (long long)pc },
		{ "WHM", CK_WEAKHASHMAP, 5, 16, 4, 2, 2 },
		{ "IHM", CK_IDENTITYHASHMAP, 6, 32, 6, 1, 0 },
		{ "TM", CK_TREEMAP, 50, 0, 0, 0, 0 },
		{ "TS", CK_TREESET, 7, 0, 0, 0, 0 },
		{ "CHM", CK_CHM, 1000, 2048, 1000, 1, 0 },
		{ "CHM_TREE", CK_CHM, 12, 128, 3, 10, 10 },
		{ "COW", CK_COWLIST, 4, 4, 0, 0, 0 },
		{ "COWSET", CK_COWSET, 3, 3, 0, 0, 0 },
		{ "CLQ", CK_CLQ, 6, 0, 0, 0, 0 },
		{ "UNMOD_LIST", CK_WRAPPER, 3, 3, 0, 0, 0 },
		{ "SYNC_MAP", CK_WRAPPER, 2, 16, -1, -1, -1 },
		{ "UNMOD_SET", CK_WRAPPER, 2, 16, -1, -1, -1 },
		{ "SYNC_LIST", CK_WRAPPER, 4, 0, 0, 0, 0 },
		{ "ARR", CK_ARRAY, 4, 10, 0, 0, 0 },
		{ "LL_LOOP", CK_LINKEDLIST, 5, 0, 0, 0, 0 },
	};
	for (size_t i = 0; i < sizeof w / sizeof *w; i++) {
		struct coll_info ci;
		node_t v = planted(&h, w[i].name);
		ck_assert_msg(jcoll_info(j, v, &ci) == 0, "%s: no collection", w[i].name);
		ck_assert_msg(ci.kind == w[i].kind, "%s: kind %d", w[i].name, ci.kind);
		ck_assert_msg(ci.size == (uint64_t)w[i].size, "%s: size %llu", w[i].name,
			      (unsigned long long)ci.size);
		ck_assert_msg(ci.capacity == (uint64_t)w[i].cap, "%s: capacity %llu", w[i].name,
			      (unsigned long long)ci.capacity);
		if (w[i].used >= 0)
			ck_assert_msg(ci.used_slots == (uint64_t)w[i].used && ci.longest == (uint64_t)w[i].longest &&
				      ci.colliding == (uint64_t)w[i].colliding,
				      "%s: used %llu longest %llu colliding %llu", w[i].name,
				      (unsigned long long)ci.used_slots, (unsigned long long)ci.longest,
				      (unsigned long long)ci.colliding);
	}
	struct coll_info ci;
	ck_assert_int_eq(jcoll_info(j, planted(&h, "PLAIN"), &ci), -1);
	ck_assert_int_eq(jcoll_info(j, 0, &ci), -1);
	ck_assert_int_eq(jcoll_info(j, h.n, &ci), -1);
	/* a loop in a bucket: bounded, and the entries before it counted */
	ck_assert_int_eq(jcoll_info(j, planted(&h, "HM_LOOP"), &ci), 0);
	ck_assert_uint_eq(ci.size, 3);
	ck_assert_uint_eq(ci.used_slots, 1);
	ck_assert_uint_ge(ci.longest, 3);
	ck_assert_uint_le(ci.longest, 3 + 16 + 16);
	jcoll_free(j);
	heap_free(&h);
}
END_TEST

START_TEST(test_walk)
{
	struct heap h;
	open_colls(&h);
	struct jcoll *j = jcoll_new(&h);
	const unsigned E = CR_ELEMENT, K = CR_KEY, V = CR_VALUE, ALL = E | K | V;

	expect_walk(j, &h, "AL", E, CR_ELEMENT, "I:%d", 1000, 1007, "[Ljava.lang.Object;");
	expect_walk(j, &h, "AL", K | V, CR_ELEMENT, "", 0, 0, NULL);
	expect_walk(j, &h, "AL_EMPTY", ALL, CR_ELEMENT, "", 0, 0, NULL);
	expect_walk(j, &h, "VEC", E, CR_ELEMENT, "vec%d", 0, 3, "[Ljava.lang.Object;");
	expect_walk(j, &h, "STACK", ALL, CR_ELEMENT, "stack%d", 0, 4, "[Ljava.lang.Object;");
	expect_walk(j, &h, "DEQUE", E, CR_ELEMENT, "dq%d", 0, 8, "[Ljava.lang.Object;");
	expect_walk(j, &h, "LL", E, CR_ELEMENT, "ll%d", 0, 10, "java.util.LinkedList$Node");
	expect_walk(j, &h, "HM_COLL", K, CR_KEY, "K:%d", 0, 12, "java.util.HashMap$Node");
	expect_walk(j, &h, "HM_COLL", V, CR_VALUE, "v%d", 0, 12, "java.util.HashMap$Node");
	expect_walk(j, &h, "HM_COLL", E, CR_ELEMENT, "", 0, 0, NULL); /* a map has no elements */
	expect_walk(j, &h, "HM_TREE", K, CR_KEY, "K:%d", 0, 13,
		    "java.util.HashMap$Node|java.util.HashMap$TreeNode");
	expect_walk(j, &h, "HM_TREE", V, CR_VALUE, "t%d", 0, 13, NULL);
	expect_walk(j, &h, "HM_EMPTY", ALL, CR_KEY, "", 0, 0, NULL);
	expect_walk(j, &h, "HM_13", K, CR_KEY, "I:%d", 2000, 2013, NULL);
	expect_walk(j, &h, "LHM", K, CR_KEY, "I:%d", 3000, 3005, "java.util.LinkedHashMap$Entry");
	expect_walk(j, &h, "LHM", V, CR_VALUE, "l%d", 0, 5, NULL);
	expect_walk(j, &h, "HS", E, CR_ELEMENT, "I:%d", 4000, 4020, "java.util.HashMap$Node");
	expect_walk(j, &h, "HS", K | V, CR_ELEMENT, "", 0, 0, NULL);
	expect_walk(j, &h, "LHS", ALL, CR_ELEMENT, "lhs-%c", 'a', 'd', "java.util.LinkedHashMap$Entry");
	expect_walk(j, &h, "HT", K, CR_KEY, "K:%d", 0, 5, "java.util.Hashtable$Entry");
	expect_walk(j, &h, "HT", V, CR_VALUE, "ht%d", 0, 5, NULL);
	expect_walk(j, &h, "PROPS", K, CR_KEY, "pk%d", 0, 4, "java.util.concurrent.ConcurrentHashMap$Node");
	expect_walk(j, &h, "PROPS", V, CR_VALUE, "pv%d", 0, 4, NULL);
	expect_walk(j, &h, "WHM", K, CR_KEY, "K:%d", 0, 5, "java.util.WeakHashMap$Entry");
	expect_walk(j, &h, "WHM", V, CR_VALUE, "w%d", 0, 5, NULL);
	expect_walk(j, &h, "IHM", K, CR_KEY, "ik%d", 0, 5, "[Ljava.lang.Object;"); /* null key: none */
	expect_walk(j, &h, "TM", K, CR_KEY, "I:%d", 5000, 5050, "java.util.TreeMap$Entry");
	expect_walk(j, &h, "TM", V, CR_VALUE, "t%d", 0, 50, NULL);
	expect_walk(j, &h, "TS", E, CR_ELEMENT, "ts%d", 0, 7, "java.util.TreeMap$Entry");
	expect_walk(j, &h, "CHM", K, CR_KEY, "I:%d", 0, 1000, "java.util.concurrent.ConcurrentHashMap$Node");
	expect_walk(j, &h, "CHM", V, CR_VALUE, "c%d", 0, 1000, NULL);
	expect_walk(j, &h, "CHM_TREE", K, CR_KEY, "K:%d", 0, 12,
		    "java.util.concurrent.ConcurrentHashMap$Node|java.util.concurrent.ConcurrentHashMap$TreeNode");
	expect_walk(j, &h, "CHM_TREE", V, CR_VALUE, "ct%d", 0, 12, NULL);
	expect_walk(j, &h, "COW", E, CR_ELEMENT, "cow%d", 0, 4, "[Ljava.lang.Object;");
	expect_walk(j, &h, "COWSET", E, CR_ELEMENT, "cs%d", 0, 3, "[Ljava.lang.Object;");
	expect_walk(j, &h, "CLQ", E, CR_ELEMENT, "q%d", 2, 8, "java.util.concurrent.ConcurrentLinkedQueue$Node");
	expect_walk(j, &h, "UNMOD_LIST", E, CR_ELEMENT, "u%d", 0, 3, "[Ljava.lang.Object;");
	expect_walk(j, &h, "SYNC_MAP", K, CR_KEY, "s%d", 0, 2, "java.util.HashMap$Node");
	expect_walk(j, &h, "SYNC_MAP", V, CR_VALUE, "sv%d", 0, 2, NULL);
	expect_walk(j, &h, "UNMOD_SET", E, CR_ELEMENT, "us%d", 0, 2, NULL);
	expect_walk(j, &h, "SYNC_LIST", E, CR_ELEMENT, "sl%d", 0, 4, "java.util.LinkedList$Node");
	ck_assert_int_eq(jcoll_walk(j, planted(&h, "PLAIN"), ALL, seen_cb, NULL), -1);

	/* both roles at once: keys and values, each entry's from its node */
	static struct seen s;
	memset(&s, 0, sizeof s);
	s.h = &h;
	ck_assert_int_eq(jcoll_walk(j, planted(&h, "HT"), K | V, seen_cb, &s), 10);
	for (size_t i = 0; i < s.n; i++) {
		node_t e = s.holder[i];
		ck_assert(s.target[i] == field_ref(&h, e, "key") || s.target[i] == field_ref(&h, e, "value"));
	}
	/* the value of IdentityHashMap's null key is a value like the others */
	memset(&s, 0, sizeof s);
	s.h = &h;
	ck_assert_int_eq(jcoll_walk(j, planted(&h, "IHM"), V, seen_cb, &s), 6);
	qsort(s.lab, s.n, sizeof s.lab[0], cmp_lab);
	ck_assert_str_eq(s.lab[0], "iv-null"); /* '-' sorts before digits */
	for (int i = 0; i < 5; i++) {
		char want[16];
		snprintf(want, sizeof want, "iv%d", i);
		ck_assert_str_eq(s.lab[i + 1], want);
	}
	/* holders: an array's slots are the array's; WHM keys are the kept ones */
	memset(&s, 0, sizeof s);
	s.h = &h;
	node_t arr = planted(&h, "ARR");
	ck_assert_int_eq(jcoll_walk(j, arr, ALL, seen_cb, &s), 4);
	qsort(s.lab, s.n, sizeof s.lab[0], cmp_lab);
	ck_assert_str_eq(s.lab[0], "a1");
	ck_assert_str_eq(s.lab[1], "a4");
	ck_assert_str_eq(s.lab[2], "a5");
	ck_assert_str_eq(s.lab[3], "a9");
	for (size_t i = 0; i < s.n; i++)
		ck_assert_uint_eq(s.holder[i], arr);
	memset(&s, 0, sizeof s);
	s.h = &h;
	node_t al = planted(&h, "AL");
	ck_assert_int_eq(jcoll_walk(j, al, E, seen_cb, &s), 7);
	for (size_t i = 0; i < s.n; i++)
		ck_assert_uint_eq(s.holder[i], field_ref(&h, al, "elementData"));
	memset(&s, 0, sizeof s);
	s.h = &h;
	node_t keys = planted(&h, "WHM_KEYS");
	ck_assert_int_eq(jcoll_walk(j, planted(&h, "WHM"), K, seen_cb, &s), 5);
	for (size_t i = 0; i < s.n; i++) {
		struct hvalue e;
		int found = 0;
		for (uint64_t k = 0; k < 5; k++) {
			ck_assert_int_eq(hprof_array_elem(&h, keys, k, &e), 0);
			found |= heap_find_id(&h, e.v.id) == s.target[i];
		}
		ck_assert(found);
	}
	jcoll_free(j);
	heap_free(&h);
}
END_TEST

/* Loops made with reflection: every walk ends, within its bound. */
START_TEST(test_loops)
{
	struct heap h;
	open_colls(&h);
	struct jcoll *j = jcoll_new(&h);
	static struct seen s;

	memset(&s, 0, sizeof s);
	s.h = &h;
	int64_t n = jcoll_walk(j, planted(&h, "LL_LOOP"), CR_ELEMENT, seen_cb, &s);
	ck_assert_int_ge(n, 5);
	ck_assert_int_le(n, 5 + 16);
	memset(&s, 0, sizeof s);
	s.h = &h;
	n = jcoll_walk(j, planted(&h, "HM_LOOP"), CR_KEY | CR_VALUE, seen_cb, &s);
	ck_assert_int_ge(n, 6);
	ck_assert_int_le(n, 2 * (3 + 16 + 16));
	jcoll_free(j);
	heap_free(&h);
}
END_TEST

/* The values of the String rows of `heapwalk -e EXPR objects` (CSV,
 * every row), as one text with a line each. */
static char *string_values(const char *expr)
{
	char cmd[1024];
	int st;
	struct sbuf out;

	snprintf(cmd, sizeof cmd, "%s -q -f csv -n 0 -e '%s | instances java.lang.String' objects %s",
		 heapwalk(), expr, colls_dump());
	char *csv = run(cmd, &st);
	ck_assert_msg(st == 0, "%s: %s", cmd, csv);
	sbuf_init(&out);
	sbuf_addc(&out, '\n');
	for (char *p = strchr(csv, '\n'); p != NULL && p[1]; p = strchr(p + 1, '\n')) {
		char *e = strchr(p + 1, '\n'), *last = p + 1;
		size_t len = e ? (size_t)(e - (p + 1)) : strlen(p + 1);
		for (size_t k = 0; k < len; k++)
			if (p[1 + k] == ',')
				last = p + 2 + k;
		sbuf_add(&out, last, (size_t)(p + 1 + len - last));
		sbuf_addc(&out, '\n');
	}
	free(csv);
	return sbuf_detach(&out);
}

/* The step elements: TM's values are the Strings t0..t49, its keys
 * Integers (no String among them from TM); LL's elements ll0..ll9. */
START_TEST(test_elements_step)
{
	char want[32];
	char *vals = string_values("instances java.util.TreeMap | elements values");
	for (int i = 0; i < 50; i++) {
		snprintf(want, sizeof want, "\nt%d\n", i);
		ck_assert_msg(strstr(vals, want) != NULL, "no value t%d among:\n%s", i, vals);
	}
	free(vals);
	char *keys = string_values("instances java.util.TreeMap | elements keys");
	for (int i = 0; i < 50; i++) {
		snprintf(want, sizeof want, "\nt%d\n", i);
		ck_assert_msg(strstr(keys, want) == NULL, "value t%d among the keys", i);
	}
	free(keys);
	char *ll = string_values("instances java.util.LinkedList | elements");
	for (int i = 0; i < 10; i++) {
		snprintf(want, sizeof want, "\nll%d\n", i);
		ck_assert_msg(strstr(ll, want) != NULL, "no element ll%d among:\n%s", i, ll);
	}
	free(ll);
}
END_TEST

Suite *jcoll_suite(void)
{
	Suite *s = suite_create("jcoll");
	TCase *tc = tcase_create("jvm");

	tcase_set_timeout(tc, FIXTURE_TIMEOUT);
	tcase_add_test(tc, test_fields);
	tcase_add_test(tc, test_field_offsets);
	tcase_add_test(tc, test_weak_first);
	tcase_add_test(tc, test_jref);
	tcase_add_test(tc, test_kinds);
	tcase_add_test(tc, test_info);
	tcase_add_test(tc, test_walk);
	tcase_add_test(tc, test_loops);
	tcase_add_test(tc, test_elements_step);
	suite_add_tcase(s, tc);
	return s;
}
