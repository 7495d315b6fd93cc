/* test_inspect.c — the Waste inspections (src/query/insp_waste.c) on a
 * real JVM dump of tests/java/Inspect, which plants one instance of
 * each problem under a single Inspect$Holder object (made once per
 * build, see inspect_dump()).
 *
 * The expectations are the workload's construction: which objects (the
 * test finds them by decoding the holder's fields itself) form which
 * group, with bytes from the JVM layout (compressed oops: 12-byte
 * headers, 16-byte array headers, 4-byte references, 8-byte alignment,
 * checked against the dump's own shallow sizes first).
 *
 * Two runs per inspection:
 * - on the holder's retained set ("instances Inspect$Holder |
 *   retained"): exactly the planted groups, nothing else, with their
 *   members, names, wasted bytes and priorities;
 * - on the whole heap, where the JDK adds its own objects. They are
 *   accounted for explicitly: U is the holder's retained set. Every
 *   group's members in U must be exactly one planted group's (so the
 *   workload contributes nothing unplanned); groups of a planted class
 *   or value ("alone") must have no member outside U; every member
 *   outside U must be of a JDK class (java., javax., jdk., sun.,
 *   com.sun., or an array of those or of a primitive type). One kind of
 *   merged group has no planted expectation: null-fields of JDK classes
 *   with 100+ instances heap-wide (java.util.HashMap$Node.next, ...),
 *   where planted HashMap internals join; for them the members in U
 *   must be exactly U's instances of that class whose field is null,
 *   decoded by the test.
 * Also: groups are sorted as inspect.h says, members ascending, the
 * same run twice gives the same groups, and the step "inspection NAME
 * group K" gives group K's members. */
#include <stdlib.h>
#include <string.h>

#include "format/hprof.h"
#include "engine/open.h"
#include "query/inspect.h"
#include "query/step.h"
#include "suites.h"

#define DUMPS TEST_BUILDDIR "/dumps"
#define DUMP DUMPS "/inspect.hprof"
#define SUBSET "instances Inspect$Holder | retained"

/* Make DUMPS/inspect.hprof unless it is newer than the workload. */
static void inspect_dump(void)
{
	char path[512];

	workload_dump("Inspect", "inspect", "", path, sizeof path);
}

static void open_dump(struct heap *h)
{
	struct open_opts o = { .no_cache = 1, .quiet = 1 };
	struct sbuf err;

	inspect_dump();
	sbuf_init(&err);
	ck_assert_msg(heap_open(h, DUMP, &o, NULL, &err) == 0, "%s", err.buf);
	heap_need(h, HP_ALL, NULL);
	sbuf_free(&err);
}

/* ---- decoding the planted objects (the test's own reading) ---- */

struct ffind { const char *want; struct hvalue val; int found; };

static void ffind_cb(void *arg, const char *name, const struct hvalue *val)
{
	struct ffind *f = arg;

	if (!f->found && strcmp(name, f->want) == 0) {
		f->val = *val;
		f->found = 1;
	}
}

/* Field `name` of v: present (asserted), and its value. */
static struct hvalue field(const struct heap *h, node_t v, const char *name)
{
	struct ffind f = { name, { 0 }, 0 };

	ck_assert(hprof_fields(h, v, ffind_cb, &f) >= 0);
	ck_assert_msg(f.found, "no field %s in %s", name, class_name(h, h->node_class[v]));
	return f.val;
}

static node_t fnode(const struct heap *h, node_t v, const char *name)
{
	uint64_t id = field(h, v, name).v.id;
	node_t n = id != 0 ? heap_find_id(h, id) : HW_NONE;

	ck_assert_msg(id == 0 || n != HW_NONE, "%s: dangling", name);
	return n;
}

static node_t elem(const struct heap *h, node_t arr, uint64_t i)
{
	struct hvalue e;

	ck_assert(hprof_array_elem(h, arr, i, &e) == 0);
	return e.v.id != 0 ? heap_find_id(h, e.v.id) : HW_NONE;
}

static uint64_t alen(const struct heap *h, node_t arr)
{
	uint8_t t;
	int64_t n = hprof_array_length(h, arr, &t);

	ck_assert(n >= 0);
	return (uint64_t)n;
}

static node_t holder(const struct heap *h)
{
	node_t found = HW_NONE;

	for (node_t v = 1; v < h->n; v++)
		if (h->node_kind[v] == NK_INSTANCE &&
		    strcmp(class_name(h, h->node_class[v]), "Inspect$Holder") == 0) {
			ck_assert_msg(found == HW_NONE, "two holders");
			found = v;
		}
	ck_assert(found != HW_NONE);
	return found;
}

/* ---- expected groups ---- */

struct exp {
	char pre[96], suf[32]; /* the name starts and ends so; whole heap: see check_whole */
	node_t v[256];         /* members, sorted by exp_done */
	size_t n;
	uint64_t extra;
	int alone;             /* no JDK object can join it */
	int matched;
};

struct plan {
	struct exp e[8];
	size_t n;
};

static struct exp *exp_new(struct plan *pl, const char *pre, const char *suf, uint64_t extra, int alone)
{
	ck_assert(pl->n < sizeof pl->e / sizeof *pl->e);
	struct exp *e = &pl->e[pl->n++];
	memset(e, 0, sizeof *e);
	snprintf(e->pre, sizeof e->pre, "%s", pre);
	snprintf(e->suf, sizeof e->suf, "%s", suf);
	e->extra = extra;
	e->alone = alone;
	return e;
}

static void exp_add(struct exp *e, node_t v)
{
	ck_assert(v != HW_NONE && e->n < sizeof e->v / sizeof *e->v);
	e->v[e->n++] = v;
}

/* Elements [from, to) of the object array in holder field f. */
static void exp_elems(struct exp *e, const struct heap *h, node_t hold, const char *f, uint64_t from,
		      uint64_t to)
{
	node_t a = fnode(h, hold, f);

	ck_assert(to <= alen(h, a));
	for (uint64_t i = from; i < to; i++)
		exp_add(e, elem(h, a, i));
}

static int cmp_node(const void *a, const void *b)
{
	node_t x = *(const node_t *)a, y = *(const node_t *)b;

	return x < y ? -1 : x > y;
}

/* JVM sizes with compressed oops, checked against the dump for the
 * planted objects (the arithmetic below uses these constants). */
enum {
	SZ_STRING = 24,      /* 12 + value 4 + hash 4 + coder 1 + hashIsZero 1 -> 24 */
	SZ_BYTES15 = 32,     /* 16 + 15 -> 32 */
	SZ_INTS1000 = 4016,  /* 16 + 4000 */
	SZ_ARRAY0 = 16,      /* header only */
	SZ_INTEGER = 16, SZ_LONG = 24,
	SZ_ARRAYLIST = 24,   /* 12 + modCount, size, elementData */
	SZ_HASHMAP = 48,     /* 12 + keySet, values, table, entrySet, size, modCount, threshold, loadFactor -> 44 -> 48 */
	SZ_HASHSET = 16,     /* 12 + map */
	SZ_OBJECTS16 = 80,   /* 16 + 16 * 4 */
	REF = 4,
};

static void check_size(const struct heap *h, node_t v, uint32_t want)
{
	ck_assert_msg(h->node_shallow[v] == want, "%s: shallow %u, expected %u",
		      class_name(h, h->node_class[v]), h->node_shallow[v], want);
}

/* The planted groups of inspection `name`, from the workload's source. */
static void plan_for(struct plan *pl, const struct heap *h, node_t hold, const char *name)
{
	struct exp *e;
	node_t a;

	pl->n = 0;
	ck_assert_int_eq(h->layout.ref_size, REF);
	ck_assert_int_eq(h->layout.array_header, 16);
	if (strcmp(name, "duplicate-strings") == 0) {
		/* 37 copies, each String and byte[15] its own: all but one wasted */
		e = exp_new(pl, "\"heapwalk-dup-37\" (37 copies)", "", 36 * (SZ_STRING + SZ_BYTES15), 1);
		exp_elems(e, h, hold, "dupStrings", 0, 37);
		for (size_t i = 0; i < e->n; i++) {
			check_size(h, e->v[i], SZ_STRING);
			check_size(h, fnode(h, e->v[i], "value"), SZ_BYTES15);
		}
		/* 5 Strings, one shared byte[]: only the Strings are wasted */
		e = exp_new(pl, "\"heapwalk-shared-5\" (5 copies)", "", 4 * SZ_STRING, 1);
		exp_elems(e, h, hold, "sharedStrings", 0, 5);
		for (size_t i = 1; i < e->n; i++)
			ck_assert(fnode(h, e->v[i], "value") == fnode(h, e->v[0], "value"));
	} else if (strcmp(name, "duplicate-arrays") == 0) {
		/* k * 7919 ^ 0x5eed: 24301, 16386, ... */
		e = exp_new(pl, "int[1000] {24301, 16386, ", "(11 copies)", 10 * SZ_INTS1000, 1);
		exp_elems(e, h, hold, "dupArrays", 0, 11);
		check_size(h, e->v[0], SZ_INTS1000);
		/* the value arrays of the 37 equal Strings: "he..." */
		e = exp_new(pl, "byte[15] {104, 101, ", "(37 copies)", 36 * SZ_BYTES15, 1);
		a = fnode(h, hold, "dupStrings");
		for (uint64_t i = 0; i < 37; i++)
			exp_add(e, fnode(h, elem(h, a, i), "value"));
	} else if (strcmp(name, "zero-length-arrays") == 0) {
		e = exp_new(pl, "[LInspect$Plant;", "", 22 * SZ_ARRAY0, 1);
		exp_elems(e, h, hold, "zeroPlants", 0, 23);
		check_size(h, e->v[0], SZ_ARRAY0);
		e = exp_new(pl, "[J", "", 5 * SZ_ARRAY0, 0);
		exp_elems(e, h, hold, "zeroLongs", 0, 6);
	} else if (strcmp(name, "sparse-arrays") == 0) {
		/* 5 x 90 + 6 of 5 x 100 + 8 elements null: 456 / 508 = 89% */
		e = exp_new(pl, "[LInspect$Plant; (89% null)", "", (5 * 90 + 6) * REF, 1);
		exp_elems(e, h, hold, "sparsePlants", 0, 6);
		/* 3 x 60 of 3 x 64 zero: 93% */
		e = exp_new(pl, "[D (93% zero)", "", 3 * 60 * 8, 0);
		exp_elems(e, h, hold, "sparseDoubles", 0, 3);
		/* elementData: 3 x 997 of 1000 and 4 x 16 of 16 null: 3055 / 3064 = 99% */
		e = exp_new(pl, "[Ljava.lang.Object; (99% null)", "", (3 * 997 + 4 * 16) * REF, 0);
		a = fnode(h, hold, "underFilled");
		for (uint64_t i = 0; i < 3; i++)
			exp_add(e, fnode(h, elem(h, a, i), "elementData"));
		a = fnode(h, hold, "emptyLists");
		for (uint64_t i = 13; i < 17; i++)
			exp_add(e, fnode(h, elem(h, a, i), "elementData"));
		/* the colliding map's table: 15 of 16 buckets empty: 93% */
		e = exp_new(pl, "[Ljava.util.HashMap$Node; (93% null)", "", 15 * REF, 0);
		exp_add(e, fnode(h, fnode(h, hold, "collide"), "table"));
	} else if (strcmp(name, "empty-collections") == 0) {
		/* 13 without an array, 4 with an Object[16] */
		e = exp_new(pl, "java.util.ArrayList", "", 17 * SZ_ARRAYLIST + 4 * SZ_OBJECTS16, 0);
		exp_elems(e, h, hold, "emptyLists", 0, 17);
		check_size(h, e->v[0], SZ_ARRAYLIST);
		check_size(h, fnode(h, e->v[16], "elementData"), SZ_OBJECTS16);
		e = exp_new(pl, "java.util.HashMap", "", 7 * SZ_HASHMAP, 0);
		exp_elems(e, h, hold, "emptyMaps", 0, 7);
		check_size(h, e->v[0], SZ_HASHMAP);
		/* a set with its backing map (no table yet) */
		e = exp_new(pl, "java.util.HashSet", "", 3 * (SZ_HASHSET + SZ_HASHMAP), 0);
		exp_elems(e, h, hold, "emptySets", 0, 3);
		check_size(h, e->v[0], SZ_HASHSET);
	} else if (strcmp(name, "collection-fill") == 0) {
		e = exp_new(pl, "java.util.ArrayList 0%", "", 4 * 16 * REF, 0);
		exp_elems(e, h, hold, "emptyLists", 13, 17);
		e = exp_new(pl, "java.util.ArrayList 1-25%", "", 3 * 997 * REF, 0);
		exp_elems(e, h, hold, "underFilled", 0, 3);
		/* 8 / 16 = 50%, 15 empty buckets; 10 / 16 = 63%, 6 empty */
		e = exp_new(pl, "java.util.HashMap 26-50%", "", 15 * REF, 0);
		exp_add(e, fnode(h, hold, "collide"));
		e = exp_new(pl, "java.util.HashMap 51-75%", "", 6 * REF, 0);
		exp_add(e, fnode(h, hold, "spread"));
	} else if (strcmp(name, "hash-collisions") == 0) {
		e = exp_new(pl, "java.util.HashMap 76-100%", "", 8, 0);
		exp_add(e, fnode(h, hold, "collide"));
		e = exp_new(pl, "java.util.HashMap 0%", "", 0, 0);
		exp_add(e, fnode(h, hold, "spread"));
	} else if (strcmp(name, "null-fields") == 0) {
		e = exp_new(pl, "Inspect$Rare.rarelySet (95% null)", "", 190 * REF, 1);
		a = fnode(h, hold, "rare");
		for (uint64_t i = 0; i < 200; i++)
			if (i % 20 != 0)
				exp_add(e, elem(h, a, i));
		e = exp_new(pl, "Inspect$Rare2.b (90% null)", "", 90 * REF, 1);
		exp_elems(e, h, hold, "rare2", 10, 100);
	} else if (strcmp(name, "boxed-primitives") == 0) {
		e = exp_new(pl, "java.lang.Integer", "", 50 * (SZ_INTEGER - 4), 0);
		exp_elems(e, h, hold, "ints", 0, 50);
		check_size(h, e->v[0], SZ_INTEGER);
		e = exp_new(pl, "java.lang.Long", "", 20 * (SZ_LONG - 8), 0);
		exp_elems(e, h, hold, "longs", 0, 20);
		check_size(h, e->v[0], SZ_LONG);
	} else {
		ck_abort_msg("no plan for %s", name);
	}
	for (size_t i = 0; i < pl->n; i++)
		qsort(pl->e[i].v, pl->e[i].n, sizeof *pl->e[i].v, cmp_node);
}

/* ---- checks ---- */

static int name_is(const char *name, const char *pre, const char *suf)
{
	size_t n = strlen(name), p = strlen(pre), s = strlen(suf);

	return n >= p + s && strncmp(name, pre, p) == 0 && strcmp(name + n - s, suf) == 0;
}

/* The documented priority of a group (inspect.h, insp_waste.c). */
static enum insp_priority want_prio(const char *insp, const struct insp_group *g, uint64_t set_shallow)
{
	if (strcmp(insp, "hash-collisions") == 0)
		return name_is(g->name, "", " 76-100%") ? IP_HIGH : name_is(g->name, "", " 51-75%") ? IP_MEDIUM : IP_LOW;
	if (g->extra > 0 && g->extra * 100 >= set_shallow)
		return IP_HIGH;
	if (g->extra > 0 && g->extra * 1000 >= set_shallow)
		return IP_MEDIUM;
	return IP_LOW;
}

/* Every group well formed, and the table in the documented order. */
static void check_form(const struct heap *h, const char *insp, const struct insp_result *r,
		       uint64_t set_shallow)
{
	for (size_t i = 0; i < r->n; i++) {
		const struct insp_group *g = &r->g[i];
		uint64_t sh = 0;
		ck_assert_msg(g->count > 0 && g->name != NULL, "%s: empty group", insp);
		for (uint64_t k = 0; k < g->count; k++) {
			ck_assert(k == 0 || g->nodes[k - 1] < g->nodes[k]);
			sh += h->node_shallow[g->nodes[k]];
		}
		ck_assert_uint_eq(sh, g->shallow);
		ck_assert_msg(g->priority == want_prio(insp, g, set_shallow), "%s: %s: priority %d",
			      insp, g->name, g->priority);
		if (i > 0) {
			const struct insp_group *f = &r->g[i - 1];
			int ordered = f->priority > g->priority ||
				      (f->priority == g->priority && (f->extra > g->extra ||
				      (f->extra == g->extra && f->shallow >= g->shallow)));
			ck_assert_msg(ordered, "%s: %s before %s", insp, f->name, g->name);
		}
	}
}

static struct exp *match(struct plan *pl, const node_t *v, size_t n)
{
	for (size_t i = 0; i < pl->n; i++)
		if (pl->e[i].n == n && memcmp(pl->e[i].v, v, n * sizeof *v) == 0)
			return &pl->e[i];
	return NULL;
}

static void run_insp(struct heap *h, const char *insp, const struct objset *set, struct insp_result *r)
{
	const struct inspection *in = inspect_find(insp);
	struct sbuf err;

	ck_assert_msg(in != NULL, "no inspection %s", insp);
	ck_assert_str_eq(in->category, "Waste");
	sbuf_init(&err);
	ck_assert_msg(inspect_run(h, in, NULL, set, r, NULL, &err) == 0, "%s", err.buf);
	ck_assert(!r->cancelled);
	sbuf_free(&err);
}

static void subset(struct heap *h, struct objset *s, const char *expr)
{
	struct pipeline pl;
	struct sbuf err;

	sbuf_init(&err);
	ck_assert_msg(pipeline_parse(expr, &pl, &err) == 0, "%s", err.buf);
	objset_whole(h, s);
	for (size_t i = 0; i < pl.n; i++)
		ck_assert_msg(step_apply(h, &pl.steps[i], s, NULL, &err) == 0, "%s", err.buf);
	pipeline_free(&pl);
	sbuf_free(&err);
}

/* On the holder's retained set: exactly the plan; each group is also
 * what the step "inspection NAME group K" selects. */
static void check_subset(const char *insp)
{
	struct heap h;
	struct objset s;
	struct insp_result r;
	struct plan pl;

	open_dump(&h);
	plan_for(&pl, &h, holder(&h), insp);
	subset(&h, &s, SUBSET);
	run_insp(&h, insp, &s, &r);
	check_form(&h, insp, &r, s.shallow);
	ck_assert_msg(r.n == pl.n, "%s: %zu groups, planted %zu", insp, r.n, pl.n);
	for (size_t i = 0; i < r.n; i++) {
		struct insp_group *g = &r.g[i];
		struct exp *e = match(&pl, g->nodes, g->count);
		ck_assert_msg(e != NULL && !e->matched, "%s: group %s is no planted one", insp, g->name);
		e->matched = 1;
		ck_assert_msg(name_is(g->name, e->pre, e->suf), "%s: named %s, expected %s...%s", insp,
			      g->name, e->pre, e->suf);
		ck_assert_msg(g->extra == e->extra, "%s: %s: %s %llu, expected %llu", insp, g->name,
			      inspect_find(insp)->extra_name, (unsigned long long)g->extra,
			      (unsigned long long)e->extra);

		char expr[256];
		struct objset k;
		snprintf(expr, sizeof expr, SUBSET " | inspection %s group %zu", insp, i + 1);
		subset(&h, &k, expr);
		ck_assert_uint_eq(k.count, g->count);
		for (uint64_t j = 0; j < g->count; j++)
			ck_assert(objset_has(&k, g->nodes[j]));
		objset_free(&k);
	}
	insp_result_free(&r);
	objset_free(&s);
	heap_free(&h);
}

static int jdk_class(const char *name)
{
	static const char *const pre[] = { "java.", "javax.", "jdk.", "sun.", "com.sun." };

	while (*name == '[')
		name++;
	if (strlen(name) == 1 && strchr("BCDFIJSZ", *name) != NULL)
		return 1; /* a primitive array */
	if (*name == 'L')
		name++;
	for (size_t i = 0; i < sizeof pre / sizeof *pre; i++)
		if (strncmp(name, pre[i], strlen(pre[i])) == 0)
			return 1;
	return 0;
}

/* null-fields group "C.f (P% null)" of a JDK class C: its members in U
 * are U's instances of C whose field f is null. */
static void check_jdk_nulls(const struct heap *h, const struct objset *u, const char *gname,
			    const node_t *in_u, size_t n)
{
	char cls[256];
	const char *dot = strstr(gname, " (");

	ck_assert(dot != NULL);
	while (dot > gname && *dot != '.')
		dot--;
	snprintf(cls, sizeof cls, "%.*s", (int)(dot - gname), gname);
	char *f = xstrdup(dot + 1);
	*strchr(f, ' ') = '\0';
	size_t k = 0;
	for (node_t v = 1; v < h->n; v++)
		if (objset_has(u, v) && h->node_kind[v] == NK_INSTANCE &&
		    strcmp(class_name(h, h->node_class[v]), cls) == 0 && field(h, v, f).v.id == 0) {
			ck_assert_msg(k < n && in_u[k] == v, "%s: planted member missing", gname);
			k++;
		}
	ck_assert_msg(k == n, "%s: %zu planted members, expected %zu", gname, n, k);
	free(f);
}

/* On the whole heap: the plan within U, JDK objects outside (see top). */
static void check_whole(const char *insp)
{
	struct heap h;
	struct objset u, all;
	struct insp_result r, again;
	struct plan pl;

	open_dump(&h);
	plan_for(&pl, &h, holder(&h), insp);
	subset(&h, &u, SUBSET);
	objset_whole(&h, &all);
	run_insp(&h, insp, &all, &r);
	check_form(&h, insp, &r, h.total_shallow);
	node_t *in_u = xmalloc(((size_t)h.n + 1) * sizeof *in_u);
	for (size_t i = 0; i < r.n; i++) {
		struct insp_group *g = &r.g[i];
		size_t n = 0;
		for (uint64_t k = 0; k < g->count; k++)
			if (objset_has(&u, g->nodes[k]))
				in_u[n++] = g->nodes[k];
			else
				ck_assert_msg(jdk_class(class_name(&h, h.node_class[g->nodes[k]])),
					      "%s: %s: member of %s, outside the holder", insp, g->name,
					      class_name(&h, h.node_class[g->nodes[k]]));
		if (n == 0)
			continue;
		struct exp *e = match(&pl, in_u, n);
		if (e == NULL && strcmp(insp, "null-fields") == 0 &&
		    jdk_class(class_name(&h, h.node_class[g->nodes[0]]))) {
			check_jdk_nulls(&h, &u, g->name, in_u, n);
			continue;
		}
		ck_assert_msg(e != NULL && !e->matched, "%s: %s: %zu planted members, no planted group", insp,
			      g->name, n);
		e->matched = 1;
		/* a merged group's percentage counts the JDK's part too */
		const char *cut = e->alone ? NULL : strstr(e->pre, " (");
		size_t plen = cut != NULL ? (size_t)(cut - e->pre) : strlen(e->pre);
		ck_assert_msg(strncmp(g->name, e->pre, plen) == 0, "%s: named %s, expected %s", insp, g->name,
			      e->pre);
		if (e->alone) {
			ck_assert_msg(name_is(g->name, e->pre, e->suf), "%s: named %s", insp, g->name);
			ck_assert_uint_eq(g->count, e->n);
			ck_assert_uint_eq(g->extra, e->extra);
		}
	}
	for (size_t i = 0; i < pl.n; i++)
		ck_assert_msg(pl.e[i].matched, "%s: planted %s not found", insp, pl.e[i].pre);

	run_insp(&h, insp, &all, &again); /* deterministic */
	ck_assert_uint_eq(again.n, r.n);
	for (size_t i = 0; i < r.n; i++) {
		ck_assert_str_eq(again.g[i].name, r.g[i].name);
		ck_assert_uint_eq(again.g[i].count, r.g[i].count);
		ck_assert(memcmp(again.g[i].nodes, r.g[i].nodes, r.g[i].count * sizeof(node_t)) == 0);
	}
	free(in_u);
	insp_result_free(&again);
	insp_result_free(&r);
	objset_free(&u);
	heap_free(&h);
}

static const char *const waste[] = {
	"duplicate-strings", "duplicate-arrays", "zero-length-arrays", "sparse-arrays",
	"empty-collections", "collection-fill", "hash-collisions", "null-fields", "boxed-primitives",
};

START_TEST(test_subset)
{
	check_subset(waste[_i]);
}
END_TEST

START_TEST(test_whole)
{
	check_whole(waste[_i]);
}
END_TEST

/* The table lists every Waste inspection, in the order of inspect.h. */
START_TEST(test_table)
{
	size_t n, k = 0;
	const struct inspection *in = inspect_all(&n);

	for (size_t i = 0; i < n; i++)
		if (strcmp(in[i].category, "Waste") == 0) {
			ck_assert_uint_lt(k, sizeof waste / sizeof *waste);
			ck_assert_str_eq(in[i].name, waste[k]);
			ck_assert(in[i].arg == NULL && in[i].extra_name != NULL && in[i].title != NULL);
			ck_assert_int_eq(in[i].extra_bytes, strcmp(in[i].name, "hash-collisions") != 0);
			k++;
		}
	ck_assert_uint_eq(k, sizeof waste / sizeof *waste);
}
END_TEST

Suite *inspect_suite(void)
{
	Suite *s = suite_create("inspect");
	TCase *tc = tcase_create("waste");
	int n = (int)(sizeof waste / sizeof *waste);

	tcase_set_timeout(tc, FIXTURE_TIMEOUT); /* the first test may make the dump */
	tcase_add_test(tc, test_table);
	tcase_add_loop_test(tc, test_subset, 0, n);
	tcase_add_loop_test(tc, test_whole, 0, n);
	suite_add_tcase(s, tc);
	return s;
}
