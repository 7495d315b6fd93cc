/* test_retain.c — the Retention, Class loaders and Search inspections
 * (insp_retention.c, insp_search.c) against a dump of tests/java/Retain,
 * which plants one instance of each problem with sizes known by
 * construction. Every expectation is computed here independently: the
 * planted values from the workload's source and the JVM's layout, and
 * what the JDK itself contributes by a brute-force scan that reads
 * fields by name (hprof_fields) rather than through the code under
 * test. */
#include <stdlib.h>
#include <string.h>

#include "format/hprof.h"
#include "graph/analysis.h"
#include "graph/rootkind.h"
#include "engine/open.h"
#include "query/inspect.h"
#include "query/views.h"
#include "hprofw.h"
#include "histo.h"
#include "suites.h"


static const char *retain_dump(void)
{
	static char path[512];

	workload_dump("Retain", "retain", "-Xmx64m", path, sizeof path);
	return path;
}

static struct heap H;
static struct heap *const h = &H;

static void open_dump(void)
{
	struct open_opts o = { .no_cache = 1, .quiet = 1 };
	struct sbuf err;

	sbuf_init(&err);
	ck_assert_msg(heap_open(h, retain_dump(), &o, NULL, &err) == 0, "%s", err.buf);
	sbuf_free(&err);
	heap_need(h, HP_ALL, NULL);
}

static void close_dump(void)
{
	heap_free(h);
}

/* ---- reading the dump by name, independently ---- */

struct fld { const char *name; struct hvalue val; int found; };

static void fld_cb(void *arg, const char *name, const struct hvalue *val)
{
	struct fld *f = arg;

	if (!f->found && strcmp(name, f->name) == 0) {
		f->val = *val;
		f->found = 1;
	}
}

/* Field (or, of a class object, static) `name` of v as a node. */
static node_t ref_of(node_t v, const char *name)
{
	struct fld f = { name, { 0 }, 0 };

	if (v == HW_NONE || hprof_fields(h, v, fld_cb, &f) < 0 || !f.found || f.val.type != T_OBJECT ||
	    f.val.v.id == 0)
		return HW_NONE;
	return heap_find_id(h, f.val.v.id);
}

static uint32_t class_named(const char *name)
{
	for (uint32_t c = 0; c < h->ncls; c++)
		if (strcmp(class_name(h, c), name) == 0 && h->cls[c].node != HW_NONE)
			return c;
	ck_abort_msg("no class %s in the dump", name);
	return HW_NONE;
}

static node_t static_of(const char *cls, const char *field)
{
	node_t v = ref_of(h->cls[class_named(cls)].node, field);

	ck_assert_msg(v != HW_NONE, "no static %s.%s", cls, field);
	return v;
}

static int is_subclass(uint32_t c, const char *name)
{
	for (uint32_t k = 0; c != HW_NONE && k < h->ncls; c = h->cls[c].super, k++)
		if (strcmp(class_name(h, c), name) == 0)
			return 1;
	return 0;
}

static int64_t array_len(node_t v)
{
	uint8_t t;

	return hprof_array_length(h, v, &t);
}

static void text_of(node_t v, struct sbuf *sb)
{
	sbuf_reset(sb);
	ck_assert(hprof_string_value(h, v, sb, 1 << 20) == 0);
}

/* The JVM's sizes here: compressed oops, 12-byte headers, 16-byte array
 * headers, 8-byte alignment (checked below against the detected layout). */
static uint64_t arr_bytes(uint64_t n, unsigned esize)
{
	return (16 + n * esize + 7) / 8 * 8;
}

/* ---- running ---- */

static void run_on(const char *name, const char *arg, const struct objset *set, struct insp_result *r)
{
	struct sbuf err;

	sbuf_init(&err);
	ck_assert_msg(inspect_run(h, inspect_find(name), arg, set, r, NULL, &err) == 0, "%s: %s", name,
		      err.buf);
	sbuf_free(&err);
}

static void run_all(const char *name, const char *arg, struct insp_result *r)
{
	struct objset all;

	objset_whole(h, &all);
	run_on(name, arg, &all, r);
}

/* The set of the n nodes v. */
static void set_of(struct objset *s, const node_t *v, size_t n)
{
	objset_empty(h, s);
	for (size_t i = 0; i < n; i++)
		bit_set(s->bits, v[i]);
	objset_recount(h, s);
}

static const struct insp_group *group_named(const struct insp_result *r, const char *name)
{
	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->g[i].name, name) == 0)
			return &r->g[i];
	return NULL;
}

static const struct insp_group *group_prefixed(const struct insp_result *r, const char *prefix)
{
	const struct insp_group *found = NULL;

	for (size_t i = 0; i < r->n; i++)
		if (strncmp(r->g[i].name, prefix, strlen(prefix)) == 0) {
			ck_assert_msg(found == NULL, "two groups named %s...", prefix);
			found = &r->g[i];
		}
	ck_assert_msg(found != NULL, "no group named %s...", prefix);
	return found;
}

/* Node lists: sorted, no repeats. */
struct list { node_t *v; size_t n, cap; };

static void push(struct list *l, node_t v)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		l->v = xreallocarray(l->v, l->cap, sizeof *l->v);
	}
	l->v[l->n++] = v;
}

static int cmp_node(const void *a, const void *b)
{
	node_t x = *(const node_t *)a, y = *(const node_t *)b;

	return x < y ? -1 : x > y;
}

static void normalize(struct list *l)
{
	size_t k = 0;

	hw_qsort(l->v, l->n, sizeof *l->v, cmp_node);
	for (size_t i = 0; i < l->n; i++)
		if (k == 0 || l->v[k - 1] != l->v[i])
			l->v[k++] = l->v[i];
	l->n = k;
}

static void assert_members(const struct insp_group *g, struct list *want)
{
	normalize(want);
	ck_assert_msg(g->count == want->n, "%s: %llu members, expected %zu", g->name,
		      (unsigned long long)g->count, want->n);
	for (size_t i = 0; i < want->n; i++)
		ck_assert_msg(g->nodes[i] == want->v[i], "%s: member %zu differs", g->name, i);
}

static uint64_t exact_retained(const node_t *v, size_t n)
{
	bits_t *b = xcalloc(bits_words(h->n), sizeof *b);

	for (size_t i = 0; i < n; i++)
		bit_set(b, v[i]);
	uint64_t bytes = analysis_retained_set(h, b, NULL, NULL, NULL);
	free(b);
	return bytes;
}

/* `thread "NAME"` of thread object t, read by field name. */
static void thread_name(node_t t, struct sbuf *out)
{
	struct sbuf s;

	sbuf_init(&s);
	text_of(ref_of(t, "name"), &s);
	sbuf_reset(out);
	sbuf_printf(out, "thread \"%s\"", s.buf);
	sbuf_free(&s);
}

START_TEST(layout_as_assumed)
{
	open_dump();
	ck_assert_uint_eq(h->layout.ref_size, 4);
	ck_assert_uint_eq(h->layout.header, 12);
	ck_assert_uint_eq(h->layout.array_header, 16);
	ck_assert_uint_eq(h->layout.align, 8);
	close_dump();
}
END_TEST

/* ---- thread-locals ---- */

/* Every thread's ThreadLocalMap values, read by name. */
static void brute_locals(node_t t, struct list *out)
{
	static const char *const maps[] = { "threadLocals", "inheritableThreadLocals" };

	for (int m = 0; m < 2; m++) {
		node_t tab = ref_of(ref_of(t, maps[m]), "table");
		for (int64_t i = 0; tab != HW_NONE && i < array_len(tab); i++) {
			struct hvalue e;
			ck_assert(hprof_array_elem(h, tab, (uint64_t)i, &e) == 0);
			node_t val = e.v.id ? ref_of(heap_find_id(h, e.v.id), "value") : HW_NONE;
			if (val != HW_NONE)
				push(out, val);
		}
	}
}

START_TEST(thread_locals)
{
	struct insp_result r;
	struct sbuf name;
	size_t groups = 0;

	open_dump();
	sbuf_init(&name);
	run_all("thread-locals", NULL, &r);
	for (node_t v = 1; v < h->n; v++) {
		if (h->node_kind[v] != NK_INSTANCE || !is_subclass(h->node_class[v], "java.lang.Thread"))
			continue;
		struct list want = { 0 };
		brute_locals(v, &want);
		if (want.n == 0)
			continue;
		groups++;
		thread_name(v, &name);
		const struct insp_group *g = group_named(&r, name.buf);
		ck_assert_msg(g != NULL, "no group %s", name.buf);
		assert_members(g, &want);
		free(want.v);
	}
	ck_assert_uint_eq(r.n, groups);
	/* the planted one: a Local (12 + 4 bytes) and its byte[1000000] */
	const struct insp_group *g = group_named(&r, "thread \"heapwalk-retain-local\"");
	ck_assert(g != NULL);
	ck_assert_uint_eq(g->count, 1);
	ck_assert_str_eq(class_name(h, h->node_class[g->nodes[0]]), "Retain$Local");
	ck_assert_uint_eq(g->extra, 16 + arr_bytes(1000000, 1));
	ck_assert_uint_eq(g->extra, exact_retained(g->nodes, g->count));
	insp_result_free(&r);
	sbuf_free(&name);
	close_dump();
}
END_TEST

/* ---- thread-stacks ---- */

/* The line of Retain.java holding `what`. */
static int source_line(const char *what)
{
	FILE *f = fopen(TEST_SRCDIR "/java/Retain.java", "r");
	char buf[512];
	int no = 0, at = 0;

	ck_assert(f != NULL);
	while (fgets(buf, sizeof buf, f) != NULL) {
		no++;
		if (strstr(buf, what) != NULL)
			at = no;
	}
	fclose(f);
	ck_assert_msg(at > 0, "no %s in Retain.java", what);
	return at;
}

START_TEST(thread_stacks)
{
	struct insp_result r;
	char want[256];

	open_dump();
	run_all("thread-stacks", NULL, &r);
	/* the planted frame: holdStack's locals, its parameter (the latch)
	 * included; sleep() is frame 0 */
	snprintf(want, sizeof want,
		 "thread \"heapwalk-retain-stack\", frame 1: Retain.holdStack(Retain.java:%d)",
		 source_line("STACK-FRAME-LINE"));
	const struct insp_group *g = group_named(&r, want);
	ck_assert_msg(g != NULL, "no group %s", want);
	ck_assert_uint_eq(g->count, 3);
	int held = 0, ints = 0, latch = 0;
	uint64_t bytes = 0;
	for (size_t i = 0; i < 3; i++) {
		const char *cn = class_name(h, h->node_class[g->nodes[i]]);
		if (strcmp(cn, "Retain$StackHeld") == 0) {
			held++;
			bytes += 16 + arr_bytes(300000, 1);
		} else if (strcmp(cn, "[I") == 0 && array_len(g->nodes[i]) == 4321) {
			ints++;
			bytes += arr_bytes(4321, 4);
		} else if (strcmp(cn, "java.util.concurrent.CountDownLatch") == 0) {
			latch++;
			bytes += h->retained[g->nodes[i]];
		}
	}
	ck_assert(held == 1 && ints == 1 && latch == 1);
	ck_assert_uint_eq(g->extra, bytes);
	ck_assert_uint_eq(g->extra, exact_retained(g->nodes, g->count));
	/* main's frame holds the three big arrays */
	g = group_prefixed(&r, "thread \"main\", frame 1: Retain.main(Retain.java:");
	int big = 0;
	for (size_t i = 0; i < g->count; i++)
		big += array_len(g->nodes[i]) == 300001 || array_len(g->nodes[i]) == 400003 ||
		       array_len(g->nodes[i]) == 600011;
	ck_assert_int_eq(big, 3);
	/* the rest: one group per thread and frame of the stack roots, each
	 * named after a thread of the dump */
	struct sbuf tn;
	sbuf_init(&tn);
	size_t pairs = 0;
	for (size_t i = 0; i < h->nroot_rec; i++) {
		const struct root *a = &h->root_rec[i];
		if ((a->kind != RK_STACK && a->kind != RK_LOCAL_HANDLE) || a->thread_serial == 0)
			continue;
		int dup = 0;
		for (size_t j = 0; j < i && !dup; j++) {
			const struct root *b = &h->root_rec[j];
			dup = (b->kind == RK_STACK || b->kind == RK_LOCAL_HANDLE) &&
			      b->thread_serial == a->thread_serial && b->frame == a->frame;
		}
		pairs += !dup;
	}
	ck_assert_uint_eq(r.n, pairs);
	for (size_t i = 0; i < r.n; i++) {
		int named = 0;
		for (uint32_t t = 0; t < h->nthreads && !named; t++) {
			if (h->threads[t].obj == HW_NONE)
				continue;
			thread_name(h->threads[t].obj, &tn);
			named = strncmp(r.g[i].name, tn.buf, tn.len) == 0 && r.g[i].name[tn.len] == ',';
		}
		ck_assert_msg(named, "group %s is no thread's", r.g[i].name);
	}
	sbuf_free(&tn);
	insp_result_free(&r);
	close_dump();
}
END_TEST

/* ---- outer-instances ---- */

struct outer_scan { node_t v; struct list *out; };

static void outer_cb(void *arg, const char *name, const struct hvalue *val)
{
	struct outer_scan *s = arg;

	if (strncmp(name, "this$", 5) != 0 || val->type != T_OBJECT || val->v.id == 0)
		return;
	node_t o = heap_find_id(h, val->v.id);
	if (o != HW_NONE && h->idom[o] == s->v)
		push(s->out, o);
}

START_TEST(outer_instances)
{
	struct insp_result r;
	struct list want = { 0 }, got = { 0 };

	open_dump();
	run_all("outer-instances", NULL, &r);
	for (node_t v = 1; v < h->n; v++)
		if (h->node_kind[v] == NK_INSTANCE) {
			struct outer_scan s = { v, &want };
			hprof_fields(h, v, outer_cb, &s);
		}
	for (size_t i = 0; i < r.n; i++)
		for (uint64_t k = 0; k < r.g[i].count; k++)
			push(&got, r.g[i].nodes[k]);
	normalize(&want);
	normalize(&got);
	ck_assert_uint_eq(got.n, want.n);
	for (size_t i = 0; i < got.n; i++)
		ck_assert_uint_eq(got.v[i], want.v[i]);
	/* the planted Outer: 12 + 4 bytes and its byte[50000] */
	const struct insp_group *g = group_named(&r, "Retain$Outer$Inner.this$0");
	ck_assert(g != NULL);
	ck_assert_uint_eq(g->count, 1);
	ck_assert_uint_eq(g->nodes[0], ref_of(static_of("Retain", "INNER"), "this$0"));
	ck_assert_uint_eq(g->extra, 16 + arr_bytes(50000, 1));
	free(want.v);
	free(got.v);
	insp_result_free(&r);
	close_dump();
}
END_TEST

/* ---- leak-suspects ---- */

/* Naively: the child of v retaining most (lowest node on ties). */
static node_t naive_biggest_child(node_t v)
{
	node_t best = HW_NONE;

	for (node_t c = 1; c < h->n; c++)
		if (h->idom[c] == v && c != v &&
		    (best == HW_NONE || h->retained[c] > h->retained[best]))
			best = c;
	return best;
}

static node_t naive_point(node_t v)
{
	for (node_t b; (b = naive_biggest_child(v)) != HW_NONE && h->retained[b] * 10 >= h->retained[v] * 8 &&
	     h->node_class[b] != h->node_class[v];)
		v = b;
	return v;
}

/* Where the bytes of class c's top members (those no member of c
 * dominates) gather: each member's retained added to every node above
 * it, then down from the root the child with most while it has 80% and
 * is of another class than c and than its parent. 0: nowhere. */
static node_t naive_holder(uint32_t c)
{
	uint64_t *acc = xcalloc((size_t)h->n + 1, sizeof *acc), all = 0;

	for (node_t v = 1; v < h->n; v++) {
		if (h->node_class[v] != c || h->node_kind[v] == NK_CLASS)
			continue;
		int under = 0;
		for (node_t d = h->idom[v]; d != 0 && d != HW_NONE && !under; d = h->idom[d])
			under = h->node_class[d] == c && h->node_kind[d] != NK_CLASS;
		if (under)
			continue;
		all += h->retained[v];
		for (node_t d = v;; d = h->idom[d]) {
			acc[d] += h->retained[v];
			if (d == 0)
				break;
		}
	}
	node_t v = 0;
	for (;;) {
		node_t best = HW_NONE;
		for (node_t x = 1; x < h->n; x++) /* the children of v, by a scan */
			if (h->idom[x] == v && x != v && (best == HW_NONE || acc[x] > acc[best]))
				best = x;
		if (best == HW_NONE || acc[best] * 10 < all * 8 || h->node_class[best] == c ||
		    (v != 0 && h->node_class[best] == h->node_class[v]))
			break;
		v = best;
	}
	free(acc);
	return v;
}

START_TEST(leak_suspects)
{
	struct insp_result r;
	uint64_t total;
	node_t pts[64], holder = HW_NONE;
	size_t npts = 0, nclass = 0;
	char id[32], prefix[256];

	open_dump();
	total = h->retained[0];
	run_all("leak-suspects", NULL, &r);
	/* the planted leak: Leak.LIST's elementData, with 400 byte[50000] */
	node_t data = ref_of(static_of("Retain$Leak", "LIST"), "elementData");
	struct list bytes = { 0 };
	for (node_t v = 1; v < h->n; v++)
		if (h->idom[v] == data) {
			ck_assert_uint_eq(array_len(v), 50000);
			push(&bytes, v);
		}
	ck_assert_uint_eq(bytes.n, 400);
	/* object suspects: the root's children retaining 20% or more */
	for (node_t v = 1; v < h->n; v++) {
		if (h->idom[v] != 0 || h->retained[v] * 5 < total)
			continue;
		node_id_text(h, v, id, sizeof id);
		snprintf(prefix, sizeof prefix, "%s @%s retains ", class_name(h, h->node_class[v]), id);
		const struct insp_group *g = group_prefixed(&r, prefix);
		ck_assert_uint_eq(g->extra, h->retained[v]);
		ck_assert(npts < 64);
		pts[npts++] = naive_point(v);
		node_id_text(h, pts[npts - 1], id, sizeof id);
		ck_assert_msg(strstr(g->name, id) != NULL, "%s: not the point %s", g->name, id);
		if (pts[npts - 1] == data) {
			assert_members(g, &bytes);
			holder = v;
		}
	}
	int found = 0;
	for (size_t i = 0; i < npts; i++)
		found += pts[i] == data;
	ck_assert_int_eq(found, 1);
	/* class suspects: by the per-class dominator-based figure, unless the
	 * biggest instance leads to an object suspect's point */
	for (uint32_t c = 0; c < h->ncls; c++) {
		if (h->cls[c].retained_lb * 5 < total || strcmp(class_name(h, c), "java.lang.Class") == 0)
			continue;
		node_t big = HW_NONE;
		for (node_t v = 1; v < h->n; v++)
			if (h->node_class[v] == c && h->node_kind[v] != NK_CLASS &&
			    (big == HW_NONE || h->retained[v] > h->retained[big]))
				big = v;
		int same = 0;
		node_t pt;
		if (h->retained[big] * 10 >= h->cls[c].retained_lb * 8)
			pt = naive_point(big);
		else /* spread: where its top members' bytes gather, or nowhere */
			pt = naive_holder(c);
		same = pt == 0;
		for (size_t i = 0; i < npts; i++)
			same |= pts[i] == pt;
		snprintf(prefix, sizeof prefix, "class %s (%llu instances) retains ", class_name(h, c),
			 (unsigned long long)h->cls[c].count);
		if (same)
			continue;
		nclass++;
		const struct insp_group *g = group_prefixed(&r, prefix);
		ck_assert_uint_eq(g->extra, h->cls[c].retained_lb);
		node_id_text(h, pt, id, sizeof id);
		ck_assert_msg(strstr(g->name, id) != NULL, "%s: not the point %s", g->name, id);
	}
	ck_assert_uint_eq(r.n, npts + nclass);
	/* byte[] holds most of the heap, but in the planted list: the leak
	 * already named, no suspect of its own ("its 7000 top instances"
	 * was no answer) */
	for (size_t i = 0; i < r.n; i++)
		ck_assert_msg(strncmp(r.g[i].name, "class [B (", 10) != 0, "%s", r.g[i].name);
	insp_result_free(&r);
	/* a set of the suspect alone, its point (elementData) and the
	 * point's children outside it: the group is the suspect, not empty */
	ck_assert(holder != HW_NONE && holder != data);
	struct objset one;
	set_of(&one, &holder, 1);
	run_on("leak-suspects", NULL, &one, &r);
	ck_assert_uint_ge(r.n, 1);
	for (size_t i = 0; i < r.n; i++)
		ck_assert_msg(r.g[i].count == 1 && r.g[i].nodes[0] == holder, "%s: %llu members", r.g[i].name,
			      (unsigned long long)r.g[i].count);
	objset_free(&one);
	free(bytes.v);
	insp_result_free(&r);
	close_dump();
}
END_TEST

/* ---- leak-suspects: accumulations ---- */

static void open_path(const char *path)
{
	struct open_opts o = { .no_cache = 1, .quiet = 1 };
	struct sbuf err;

	sbuf_init(&err);
	ck_assert_msg(heap_open(h, path, &o, NULL, &err) == 0, "%s", err.buf);
	sbuf_free(&err);
	heap_need(h, HP_ALL, NULL);
}

/* Every object's shallow bytes: the heap's size, counted here. */
static uint64_t heap_bytes(void)
{
	uint64_t b = 0;

	for (node_t v = 1; v < h->n; v++)
		b += h->node_shallow[v];
	return b;
}

/* The instances of class c (no class objects), and their bytes with
 * those of what their reference field `field` holds. */
static uint64_t instances_with(uint32_t c, const char *field, struct list *out, struct list *inner)
{
	uint64_t b = 0;

	for (node_t v = 1; v < h->n; v++) {
		if (h->node_class[v] != c || h->node_kind[v] == NK_CLASS)
			continue;
		node_t a = ref_of(v, field);
		ck_assert_msg(a != HW_NONE, "%s @%llx has no %s", class_name(h, c),
			      (unsigned long long)heap_node_id(h, v), field);
		push(out, v);
		push(inner, a);
		b += h->node_shallow[v] + h->node_shallow[a];
	}
	return b;
}

/* Does object y refer to a member of `in` (a field, or an element)?
 * Read from its record, not through the graph's references. */
static int refers_to(node_t y, const bits_t *in, const char *field)
{
	uint8_t t;
	int64_t len = h->node_kind[y] == NK_OBJARRAY ? hprof_array_length(h, y, &t) : -1;

	if (len >= 0) {
		for (int64_t i = 0; i < len; i++) {
			struct hvalue e;
			node_t x = heap_array_elem(h, y, (uint64_t)i, &e) == 0 && e.v.id ? heap_find_id(h, e.v.id) : HW_NONE;
			if (x != HW_NONE && bit_get(in, x))
				return 1;
		}
		return 0;
	}
	node_t x = h->node_kind[y] == NK_INSTANCE ? ref_of(y, field) : HW_NONE;
	return x != HW_NONE && bit_get(in, x);
}

/* How many objects of class c refer to a member of `in` through
 * `field`, by a scan of every object. */
static uint64_t holders_of(const bits_t *in, uint32_t c, const char *field)
{
	uint64_t n = 0;

	for (node_t y = 1; y < h->n; y++)
		n += h->node_class[y] == c && h->node_kind[y] == NK_INSTANCE && refers_to(y, in, field);
	return n;
}

static bits_t *bits_of(const struct list *l)
{
	bits_t *b = xcalloc(bits_words(h->n), sizeof *b);

	for (size_t i = 0; i < l->n; i++)
		bit_set(b, l->v[i]);
	return b;
}

/* How many of l's objects a GC root holds, from the reader's root table. */
static uint64_t roots_among(const bits_t *in)
{
	bits_t *seen = xcalloc(bits_words(h->n), sizeof *seen);
	uint64_t n = 0;

	for (size_t i = 0; i < h->nroot_rec; i++) {
		node_t v = h->root_rec[i].node;
		if (h->root_rec[i].kind < RK_WEAK_ONLY && v < h->n && bit_get(in, v) && !bit_get(seen, v)) {
			bit_set(seen, v);
			n++;
		}
	}
	free(seen);
	return n;
}

/* No group holds an object of `inner` (the arrays inside the
 * accumulated objects): one accumulation, said once. */
static void assert_said_once(const struct insp_result *r, const struct list *inner)
{
	bits_t *in = bits_of(inner);

	for (size_t i = 0; i < r->n; i++)
		for (uint64_t k = 0; k < r->g[i].count; k++)
			ck_assert_msg(!bit_get(in, r->g[i].nodes[k]), "%s: holds what another suspect holds",
				      r->g[i].name);
	free(in);
}

/* A written heap: Bufs behind 4 soft and 1 weak reference, Items each
 * held by its Owner and by one array (and one a GC root), Cells all in
 * one Bag (an object suspect already). */
START_TEST(leak_accumulated_written)
{
	char *path = hw_write_accum();
	struct list bufs = { 0 }, data = { 0 }, items = { 0 }, payload = { 0 }, cells = { 0 }, cdata = { 0 };
	struct insp_result r;
	char want[512];

	open_path(path);
	uint64_t total = heap_bytes();
	ck_assert_uint_eq(h->retained[0], total);
	uint64_t bb = instances_with(class_named("t.Buf"), "data", &bufs, &data);
	uint64_t ib = instances_with(class_named("t.Item"), "payload", &items, &payload);
	uint64_t cb = instances_with(class_named("t.Cell"), "payload", &cells, &cdata);
	ck_assert_uint_eq(bufs.n, 5);
	ck_assert_uint_eq(items.n, 6);
	/* Items between 10% and 20%: the accumulated rule alone finds them */
	ck_assert(ib * 10 >= total && ib * 5 < total);
	ck_assert(cb * 10 >= total && cb * 5 < total);
	run_all("leak-suspects", NULL, &r);
	snprintf(want, sizeof want,
		 "accumulated in instances of t.Buf: 5 instances retain %.1f%%, no one object keeps them alive; "
		 "held by 4 soft holders (4 java.lang.ref.SoftReference.referent), 1 weak (1 "
		 "java.lang.ref.WeakReference.referent)", 100.0 * (double)bb / (double)total);
	const struct insp_group *g = group_named(&r, want);
	ck_assert_msg(g != NULL, "no group %s", want);
	ck_assert_uint_eq(g->extra, bb);
	ck_assert_uint_eq(g->point, HW_NONE);
	ck_assert_int_eq(g->priority, bb * 5 >= total ? IP_HIGH : IP_MEDIUM); /* 20% */
	assert_members(g, &bufs);
	snprintf(want, sizeof want,
		 "accumulated in instances of t.Item: 6 instances retain %.1f%%, no one object keeps them alive; "
		 "held by 7 strong holders (6 t.Owner.item); 1 of them a GC root", 100.0 * (double)ib / (double)total);
	g = group_named(&r, want);
	ck_assert_msg(g != NULL, "no group %s", want);
	ck_assert_uint_eq(g->extra, ib);
	ck_assert_int_eq(g->priority, IP_MEDIUM); /* under 20% */
	assert_members(g, &items);
	/* the Bag: an object suspect, its Cells (over 10%) no accumulation
	 * of their own */
	ck_assert_uint_eq(r.n, 3);
	node_t bag = heap_find_id(h, AC_BAGOBJ);
	char id[32];
	node_id_text(h, bag, id, sizeof id);
	snprintf(want, sizeof want, "t.Bag @%s retains ", id);
	group_prefixed(&r, want);
	/* the total: the bytes the three rows tell, which share none (the
	 * Bag's group holds its Cells, its bytes are the Bag's) */
	ck_assert_msg(r.total.extra == bb + ib + h->retained[bag], "total retained %llu, the rows %llu",
		      (unsigned long long)r.total.extra, (unsigned long long)(bb + ib + h->retained[bag]));
	assert_said_once(&r, &data);
	assert_said_once(&r, &payload);
	assert_said_once(&r, &cdata);
	insp_result_free(&r);
	free(bufs.v), free(data.v), free(items.v), free(payload.v), free(cells.v), free(cdata.v);
	close_dump();
	free(path);
}
END_TEST

/* No byte is told twice: an accumulation's bytes leave out the object
 * suspects' (on the small JDK dumps, HotSpot's archive array is an
 * object suspect and an Object[] among that class's top instances).
 * Counted here up the dominator tree: the object suspects are the
 * root's children retaining 20% (every object a member); an
 * accumulation's bytes are its members' retained, less the object
 * suspects below them, and none of its members lies below one. */
START_TEST(leak_accumulated_not_twice)
{
	/* each dump of the workload every suite makes it of (the dump's
	 * name is the fixture's: the first suite to ask makes it) */
	static const struct { const char *workload, *name, *opts; } dumps[] = {
		{ "Inspect", "inspect", "" },
		{ "Colls", "colls", "--add-opens java.base/java.util=ALL-UNNAMED" },
	};
	struct insp_result r;
	char path[512];
	int seen = 0;

	for (size_t d = 0; d < sizeof dumps / sizeof dumps[0]; d++) {
		workload_dump(dumps[d].workload, dumps[d].name, dumps[d].opts, path, sizeof path);
		open_path(path);
		uint64_t total = h->retained[0];
		struct { node_t v[64]; size_t n; } sus = { .n = 0 }; /* at most 5 of 20% */
		for (node_t v = 1; v < h->n; v++)
			if (h->idom[v] == 0 && h->retained[v] * 100 >= total * 20)
				sus.v[sus.n++] = v;
		run_all("leak-suspects", NULL, &r);
		for (size_t i = 0; i < r.n; i++) {
			const struct insp_group *g = &r.g[i];
			if (strncmp(g->name, "accumulated in instances of ", 28) != 0)
				continue;
			bits_t *in = xcalloc(bits_words(h->n), sizeof *in);
			uint64_t want = 0;
			for (uint64_t k = 0; k < g->count; k++) {
				bit_set(in, g->nodes[k]);
				want += h->retained[g->nodes[k]];
				for (node_t a = g->nodes[k]; a != 0; a = h->idom[a])
					for (size_t s = 0; s < sus.n; s++)
						ck_assert_msg(a != sus.v[s], "%s: a member of '%s' lies below an object suspect",
							      dumps[d].name, g->name);
			}
			for (size_t s = 0; s < sus.n; s++) {
				seen += h->node_class[sus.v[s]] == h->node_class[g->nodes[0]];
				for (node_t a = h->idom[sus.v[s]]; a != 0; a = h->idom[a])
					if (bit_get(in, a)) {
						want -= h->retained[sus.v[s]];
						break;
					}
			}
			ck_assert_msg(g->extra == want, "%s: '%s' tells %llu bytes, its own are %llu", dumps[d].name, g->name,
				      (unsigned long long)g->extra, (unsigned long long)want);
			free(in);
		}
		insp_result_free(&r);
		close_dump();
	}
	ck_assert_int_gt(seen, 0); /* an object suspect of an accumulated class was met */
}
END_TEST

/* A JVM's dump (tests/java/Accum.java): 2000 Bufs behind SoftReferences,
 * 3000 Items held each by its Owner and by one array; counts against
 * the JVM's own histogram, bytes and holders by a scan here. */
START_TEST(leak_accumulated_jdk)
{
	char path[512], histo[600], want[512];
	struct list bufs = { 0 }, data = { 0 }, items = { 0 }, payload = { 0 };
	struct insp_result r;
	struct hist hs = { 0 };

	workload_dump("Accum", "accum", "-Xmx256m -XX:+UseSerialGC -XX:SoftRefLRUPolicyMSPerMB=1000000", path,
		      sizeof path);
	snprintf(histo, sizeof histo, "%.*s.histo", (int)(strlen(path) - 6), path);
	read_histo(histo, &hs);
	open_path(path);
	uint64_t total = heap_bytes();
	uint32_t buf = class_named("Accum$Buf"), item = class_named("Accum$Item");
	uint64_t bb = instances_with(buf, "data", &bufs, &data);
	uint64_t ib = instances_with(item, "payload", &items, &payload);
	ck_assert_uint_eq(bufs.n, hist_find(&hs, "Accum$Buf", 0));
	ck_assert_uint_eq(items.n, hist_find(&hs, "Accum$Item", 0));
	ck_assert_uint_eq(bufs.n, 2000);
	ck_assert_uint_eq(items.n, 3000);
	bits_t *bin = bits_of(&bufs), *iin = bits_of(&items);
	uint64_t soft = holders_of(bin, class_named("java.lang.ref.SoftReference"), "referent");
	uint64_t owners = holders_of(iin, class_named("Accum$Owner"), "item");
	uint64_t arrays = 0;
	for (node_t y = 1; y < h->n; y++)
		arrays += h->node_kind[y] == NK_OBJARRAY && refers_to(y, iin, NULL);
	uint64_t iroots = roots_among(iin);
	ck_assert_uint_eq(roots_among(bin), 0);
	run_all("leak-suspects", NULL, &r);
	snprintf(want, sizeof want,
		 "accumulated in instances of Accum$Buf: 2000 instances retain %.1f%%, no one object keeps them alive; "
		 "held by %llu soft holders (%llu java.lang.ref.SoftReference.referent)",
		 100.0 * (double)bb / (double)total, (unsigned long long)soft, (unsigned long long)soft);
	const struct insp_group *g = group_named(&r, want);
	ck_assert_msg(g != NULL, "no group %s", want);
	ck_assert_uint_eq(soft, 2000);
	ck_assert_uint_eq(g->extra, bb);
	assert_members(g, &bufs);
	int n = snprintf(want, sizeof want,
			 "accumulated in instances of Accum$Item: 3000 instances retain %.1f%%, no one object keeps "
			 "them alive; held by %llu strong holders (%llu Accum$Owner.item)",
			 100.0 * (double)ib / (double)total, (unsigned long long)(owners + arrays),
			 (unsigned long long)owners);
	if (iroots > 0)
		snprintf(want + n, sizeof want - (size_t)n, "; %llu of them %s", (unsigned long long)iroots,
			 iroots == 1 ? "a GC root" : "GC roots");
	g = group_named(&r, want);
	ck_assert_msg(g != NULL, "no group %s", want);
	ck_assert_uint_eq(owners, 3000);
	ck_assert_uint_eq(g->extra, ib);
	assert_members(g, &items);
	assert_said_once(&r, &data);
	assert_said_once(&r, &payload);
	free(bin);
	free(iin);
	free_hist(&hs);
	insp_result_free(&r);
	free(bufs.v), free(data.v), free(items.v), free(payload.v);
	close_dump();
}
END_TEST

/* ---- class-loaders and duplicate-classes ---- */

/* The class that class object v describes. */
static uint32_t described(node_t v)
{
	for (uint32_t c = 0; c < h->ncls; c++)
		if (h->cls[c].node == v)
			return c;
	return HW_NONE;
}

START_TEST(class_loaders)
{
	struct insp_result r;
	uint64_t ids[256];
	size_t nids = 0;

	open_dump();
	run_all("class-loaders", NULL, &r);
	for (uint32_t c = 0; c < h->ncls; c++) {
		int seen = 0;
		for (size_t i = 0; i < nids; i++)
			seen |= ids[i] == h->cls[c].loader_id;
		if (!seen) {
			ck_assert(nids < 256);
			ids[nids++] = h->cls[c].loader_id;
		}
	}
	uint32_t *of = xmalloc((size_t)h->n * sizeof *of);
	for (node_t v = 1; v < h->n; v++)
		of[v] = h->node_kind[v] == NK_CLASS ? described(v) : h->node_class[v];
	size_t groups = 0;
	for (size_t i = 0; i < nids; i++) {
		struct list want = { 0 };
		uint64_t ncls = 0;
		for (uint32_t c = 0; c < h->ncls; c++)
			if (h->cls[c].loader_id == ids[i]) {
				int any = 0;
				for (node_t v = 1; v < h->n; v++)
					if (of[v] == c) {
						push(&want, v);
						any = 1;
					}
				ncls += any;
			}
		if (want.n == 0)
			continue;
		groups++;
		char name[256];
		node_t ld = ids[i] ? heap_find_id(h, ids[i]) : HW_NONE;
		if (ids[i] == 0)
			snprintf(name, sizeof name, "bootstrap");
		else
			snprintf(name, sizeof name, "%s @0x%llx", class_name(h, h->node_class[ld]),
				 (unsigned long long)ids[i]);
		const struct insp_group *g = group_named(&r, name);
		ck_assert_msg(g != NULL, "no group %s", name);
		assert_members(g, &want);
		ck_assert_uint_eq(g->extra, ncls);
		free(want.v);
	}
	ck_assert_uint_eq(r.n, groups);
	/* the planted loader: one class (Dup), its class object and 3 instances */
	node_t ld = static_of("Retain", "LOADER");
	char name[128];
	snprintf(name, sizeof name, "Retain$ByteLoader @0x%llx", (unsigned long long)heap_node_id(h, ld));
	const struct insp_group *g = group_named(&r, name);
	ck_assert(g != NULL);
	ck_assert_uint_eq(g->count, 4);
	ck_assert_uint_eq(g->extra, 1);
	free(of);
	insp_result_free(&r);
	close_dump();
}
END_TEST

START_TEST(duplicate_classes)
{
	struct insp_result r;
	size_t groups = 0;

	open_dump();
	run_all("duplicate-classes", NULL, &r);
	for (uint32_t c = 0; c < h->ncls; c++) {
		if (h->cls[c].node == HW_NONE)
			continue;
		int first = 1;
		struct list want = { 0 };
		uint64_t loaders[64];
		size_t nl = 0;
		for (uint32_t d = 0; d < h->ncls; d++) {
			if (h->cls[d].node == HW_NONE || strcmp(class_name(h, c), class_name(h, d)) != 0)
				continue;
			first &= d >= c;
			push(&want, h->cls[d].node);
			int seen = 0;
			for (size_t i = 0; i < nl; i++)
				seen |= loaders[i] == h->cls[d].loader_id;
			if (!seen && nl < 64)
				loaders[nl++] = h->cls[d].loader_id;
		}
		if (first && nl >= 2) {
			char name[512];
			snprintf(name, sizeof name, "%s (%zu loaders)", class_name(h, c), nl);
			const struct insp_group *g = group_named(&r, name);
			ck_assert_msg(g != NULL, "no group %s", name);
			assert_members(g, &want);
			ck_assert_uint_eq(g->extra, nl);
			groups++;
		}
		free(want.v);
	}
	ck_assert_uint_eq(r.n, groups);
	const struct insp_group *g = group_named(&r, "Retain$Dup (2 loaders)");
	ck_assert(g != NULL);
	ck_assert_uint_eq(g->count, 2);
	/* the histogram tells the two apart: each row names its class
	 * object, with as many instances as that class has (the app
	 * loader's 2, the ByteLoader's 3); a name one class has, alone */
	char cmd[1024];
	int st;
	snprintf(cmd, sizeof cmd, "'%s' -q -f csv classes -n 0 -e 'instances /Retain/' '%s'", heapwalk(), retain_dump());
	char *csv = run(cmd, &st);
	ck_assert_int_eq(st, 0);
	int rows = 0;
	for (uint32_t c = 0; c < h->ncls; c++) {
		if (strcmp(class_name(h, c), "Retain$Dup") != 0 || h->cls[c].node == HW_NONE)
			continue;
		uint64_t n = 0;
		for (node_t v = 1; v < h->n; v++)
			n += h->node_kind[v] == NK_INSTANCE && h->node_class[v] == c;
		char row[128];
		snprintf(row, sizeof row, "\n\"Retain$Dup (class 0x%llx)\",%llu,",
			 (unsigned long long)h->cls[c].id, (unsigned long long)n);
		ck_assert_msg(strstr(csv, row) != NULL, "no %s in %.600s", row + 1, csv);
		rows++;
	}
	ck_assert_int_eq(rows, 2);
	ck_assert_msg(strstr(csv, "\nRetain$Dup,") == NULL && strstr(csv, "\nRetain$Node,") != NULL, "%.600s", csv);
	free(csv);
	insp_result_free(&r);
	close_dump();
}
END_TEST

/* ---- string-regex ---- */

/* By hand: does s hold "token=SECRET-" and 4 digits? */
static int token_match(const char *s)
{
	for (const char *p = s; (p = strstr(p, "token=SECRET-")) != NULL; p++) {
		const char *d = p + 13;
		if (d[0] >= '0' && d[0] <= '9' && d[1] >= '0' && d[1] <= '9' && d[2] >= '0' &&
		    d[2] <= '9' && d[3] >= '0' && d[3] <= '9')
			return 1;
	}
	return 0;
}

START_TEST(string_regex)
{
	static const struct { const char *value; uint64_t count; } want[] = {
		{ "token=SECRET-1234", 3 }, { "token=SECRET-5678", 1 },
		{ "token=SECRET-8888 caf\xc3\xa9", 1 }, { "token=SECRET-9999 \xe2\x82\xac", 1 },
	};
	struct insp_result r;
	struct sbuf sb, err;
	uint32_t sc;
	uint64_t matching = 0;

	open_dump();
	sbuf_init(&sb);
	sbuf_init(&err);
	run_all("string-regex", "token=SECRET-[0-9]{4}", &r);
	ck_assert_uint_eq(r.n, 4);
	for (size_t i = 0; i < 4; i++) {
		const struct insp_group *g = group_named(&r, want[i].value);
		ck_assert_msg(g != NULL, "no group %s", want[i].value);
		ck_assert_uint_eq(g->count, want[i].count);
		ck_assert_uint_eq(g->extra, want[i].count);
		for (uint64_t k = 0; k < g->count; k++) {
			text_of(g->nodes[k], &sb);
			ck_assert_str_eq(sb.buf, want[i].value);
		}
	}
	/* no other String in the heap (the JDK's included) matches */
	sc = class_named("java.lang.String");
	for (node_t v = 1; v < h->n; v++)
		if (h->node_class[v] == sc) {
			text_of(v, &sb);
			matching += token_match(sb.buf);
		}
	ck_assert_uint_eq(matching, 3 + 1 + 1 + 1);
	/* the strongest group first: the value seen 3 times */
	ck_assert_str_eq(r.g[0].name, "token=SECRET-1234");
	insp_result_free(&r);
	/* arguments */
	struct objset all;
	objset_whole(h, &all);
	ck_assert_int_eq(inspect_run(h, inspect_find("string-regex"), "token=(", &all, &r, NULL, &err), -1);
	ck_assert_str_eq(err.buf, "regex /token=(/: column 8: missing closing parenthesis");
	sbuf_reset(&err);
	ck_assert_int_eq(inspect_run(h, inspect_find("string-regex"), NULL, &all, &r, NULL, &err), -1);
	ck_assert(strstr(err.buf, "needs an argument") != NULL);
	sbuf_free(&err);
	sbuf_free(&sb);
	close_dump();
}
END_TEST

/* ---- largest-arrays ---- */

static int bigger(node_t a, node_t b)
{
	return h->node_shallow[a] != h->node_shallow[b] ? h->node_shallow[a] > h->node_shallow[b] : a < b;
}

START_TEST(largest_arrays)
{
	struct insp_result r;
	struct sbuf err;
	char id[32], name[128];
	const char *bad[] = { "x", "0", "12abc", "-3", "99999999999" };

	open_dump();
	sbuf_init(&err);
	run_all("largest-arrays", "3", &r);
	ck_assert_uint_eq(r.n, 3);
	static const struct { const char *type; int64_t len; unsigned esize; } planted[] = {
		{ "long", 300001, 8 }, { "int", 400003, 4 }, { "char", 600011, 2 },
	};
	for (size_t i = 0; i < 3; i++) { /* ordered by retained = shallow here */
		ck_assert_uint_eq(r.g[i].count, 1);
		node_t v = r.g[i].nodes[0];
		node_id_text(h, v, id, sizeof id);
		snprintf(name, sizeof name, "%s[%lld] @%s", planted[i].type, (long long)planted[i].len, id);
		ck_assert_str_eq(r.g[i].name, name);
		ck_assert_uint_eq(r.g[i].shallow, arr_bytes((uint64_t)planted[i].len, planted[i].esize));
		ck_assert_uint_eq(r.g[i].extra, h->retained[v]);
	}
	insp_result_free(&r);
	/* the default: 20, the same as sorting every array */
	run_all("largest-arrays", NULL, &r);
	ck_assert_uint_eq(r.n, 20);
	node_t top[20];
	size_t nt = 0;
	for (node_t v = 1; v < h->n; v++) {
		if (h->node_kind[v] != NK_OBJARRAY && h->node_kind[v] != NK_PRIMARRAY)
			continue;
		size_t at = nt < 20 ? nt++ : 20;
		if (at == 20 && !bigger(v, top[19]))
			continue;
		if (at == 20)
			at = 19;
		top[at] = v;
		for (; at > 0 && bigger(top[at], top[at - 1]); at--) {
			node_t t = top[at];
			top[at] = top[at - 1];
			top[at - 1] = t;
		}
	}
	for (size_t i = 0; i < 20; i++) {
		int in = 0;
		for (size_t k = 0; k < r.n; k++)
			in |= r.g[k].nodes[0] == top[i];
		ck_assert_msg(in, "array %zu of the 20 largest missing", i);
	}
	insp_result_free(&r);
	struct objset all;
	objset_whole(h, &all);
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		sbuf_reset(&err);
		ck_assert_int_eq(inspect_run(h, inspect_find("largest-arrays"), bad[i], &all, &r, NULL, &err), -1);
		ck_assert_msg(strstr(err.buf, "N must be a number") != NULL, "%s", err.buf);
		ck_assert(strstr(err.buf, bad[i]) != NULL);
	}
	sbuf_free(&err);
	close_dump();
}
END_TEST

/* ---- long-chains ---- */

START_TEST(long_chains)
{
	struct insp_result r;
	struct list nodes = { 0 }, rings = { 0 };
	char name[128], id[32];

	open_dump();
	for (node_t v = static_of("Retain", "HEAD"); v != HW_NONE; v = ref_of(v, "next"))
		push(&nodes, v);
	ck_assert_uint_eq(nodes.n, 5000);
	node_t head = nodes.v[0], r0 = static_of("Retain", "RING"), low = r0;
	for (node_t v = r0; rings.n == 0 || v != r0; v = ref_of(v, "next")) {
		push(&rings, v);
		low = v < low ? v : low;
	}
	ck_assert_uint_eq(rings.n, 1500);
	run_all("long-chains", NULL, &r);
	ck_assert_uint_eq(r.n, 2); /* the JDK has no chain of 1000 */
	node_id_text(h, head, id, sizeof id);
	snprintf(name, sizeof name, "Retain$Node.next: 5000 objects from @%s", id);
	const struct insp_group *g = group_named(&r, name);
	ck_assert_msg(g != NULL, "no group %s", name);
	ck_assert_uint_eq(g->extra, 5000);
	assert_members(g, &nodes);
	node_id_text(h, low, id, sizeof id); /* a ring starts at its lowest node */
	snprintf(name, sizeof name, "Retain$Ring.next: 1500 objects from @%s", id);
	g = group_named(&r, name);
	ck_assert_msg(g != NULL, "no group %s", name);
	assert_members(g, &rings);
	insp_result_free(&r);
	run_all("long-chains", "4999", &r);
	ck_assert_uint_eq(r.n, 1);
	insp_result_free(&r);
	run_all("long-chains", "5000", &r);
	ck_assert_uint_eq(r.n, 0);
	insp_result_free(&r);
	free(nodes.v);
	free(rings.v);
	close_dump();
}
END_TEST

/* ---- subsets: only members count ---- */

START_TEST(subsets)
{
	struct insp_result r;
	struct objset s;
	struct list nodes = { 0 }, dups = { 0 };

	open_dump();
	/* the list without its first 2500 nodes: one chain of 2500 */
	for (node_t v = static_of("Retain", "HEAD"); v != HW_NONE; v = ref_of(v, "next"))
		push(&nodes, v);
	set_of(&s, nodes.v + 2500, 2500);
	run_on("long-chains", "100", &s, &r);
	ck_assert_uint_eq(r.n, 1);
	ck_assert_uint_eq(r.g[0].count, 2500);
	ck_assert_uint_eq(r.g[0].extra, 2500);
	insp_result_free(&r);
	objset_free(&s);
	/* the stack frame's StackHeld alone */
	uint32_t held = class_named("Retain$StackHeld");
	for (node_t v = 1; v < h->n; v++)
		if (h->node_class[v] == held)
			push(&dups, v);
	ck_assert_uint_eq(dups.n, 1);
	set_of(&s, dups.v, 1);
	run_on("thread-stacks", NULL, &s, &r);
	ck_assert_uint_eq(r.n, 1);
	ck_assert_uint_eq(r.g[0].count, 1);
	ck_assert_uint_eq(r.g[0].nodes[0], dups.v[0]);
	insp_result_free(&r);
	run_on("thread-locals", NULL, &s, &r);
	ck_assert_uint_eq(r.n, 0);
	insp_result_free(&r);
	objset_free(&s);
	/* the Dup instances: two loaders, instances only */
	dups.n = 0;
	for (node_t v = 1; v < h->n; v++)
		if (h->node_kind[v] == NK_INSTANCE && strcmp(class_name(h, h->node_class[v]), "Retain$Dup") == 0)
			push(&dups, v);
	ck_assert_uint_eq(dups.n, 5);
	set_of(&s, dups.v, dups.n);
	run_on("class-loaders", NULL, &s, &r);
	ck_assert_uint_eq(r.n, 2);
	ck_assert_uint_eq(r.g[0].count + r.g[1].count, 5);
	ck_assert(r.g[0].count == 3 || r.g[0].count == 2);
	insp_result_free(&r);
	run_on("duplicate-classes", NULL, &s, &r); /* class objects are not members */
	ck_assert_uint_eq(r.n, 0);
	insp_result_free(&r);
	run_on("string-regex", "SECRET", &s, &r);
	ck_assert_uint_eq(r.n, 0);
	insp_result_free(&r);
	objset_free(&s);
	free(nodes.v);
	free(dups.v);
	close_dump();
}
END_TEST

/* The step loaded: the ByteLoader defined one class, Dup, and made 3 of
 * them (the app loader's 2 Dups are not its). */
START_TEST(loaded_step)
{
	char cmd[1024];
	int st;

	snprintf(cmd, sizeof cmd, "%s -q -f csv -e 'instances Retain$ByteLoader | loaded' classes %s",
		 heapwalk(), retain_dump());
	char *csv = run(cmd, &st);
	ck_assert_msg(st == 0, "%s: %s", cmd, csv);
	char *row = strchr(csv, '\n');
	ck_assert(row != NULL);
	/* (Dup is a name two classes have: the row names its class object) */
	ck_assert_msg(strncmp(row + 1, "\"Retain$Dup (class 0x", 21) == 0 && strstr(row, ")\",3,") != NULL, "%s", csv);
	char *next = strchr(row + 1, '\n');
	ck_assert_msg(next == NULL || next[1] == '\0', "more than Dup: %s", csv);
	free(csv);
}
END_TEST

Suite *retain_suite(void)
{
	Suite *s = suite_create("retain");
	TCase *tc = tcase_create("retain");

	tcase_set_timeout(tc, FIXTURE_TIMEOUT);
	tcase_add_test(tc, layout_as_assumed);
	tcase_add_test(tc, thread_locals);
	tcase_add_test(tc, thread_stacks);
	tcase_add_test(tc, outer_instances);
	tcase_add_test(tc, loaded_step);
	tcase_add_test(tc, leak_suspects);
	tcase_add_test(tc, leak_accumulated_written);
	tcase_add_test(tc, leak_accumulated_jdk);
	tcase_add_test(tc, leak_accumulated_not_twice);
	tcase_add_test(tc, class_loaders);
	tcase_add_test(tc, duplicate_classes);
	tcase_add_test(tc, string_regex);
	tcase_add_test(tc, largest_arrays);
	tcase_add_test(tc, long_chains);
	tcase_add_test(tc, subsets);
	suite_add_tcase(s, tc);
	return s;
}
