/* test_rootkind.c — the one table of GC root kinds (graph/rootkind.h):
 * every reader's own kinds map to a row of it, on the dumps of every
 * runtime (an HPROF dump of the test workload, whose root sub-records
 * this file counts itself; the committed .NET and Mono recordings; a V8
 * snapshot of tests/node/workload.js, whose synthetic root's edges this
 * file reads itself), and the same concept in two runtimes is one
 * kind: a thread's stack. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "engine/open.h"
#include "graph/reader.h"
#include "graph/resident.h"
#include "histo.h"
#include "hprofw.h"
#include "jsonck.h"
#include "query/objset.h"
#include "query/views.h"
#include "suites.h"

#define DUMPS TEST_BUILDDIR "/dumps"
#define V8DIR TEST_BUILDDIR "/dumps/v8root"

static void open_dump(struct heap *h, const char *path)
{
	struct open_opts o = { .no_cache = 1, .quiet = 1 };
	struct sbuf err;

	sbuf_init(&err);
	ck_assert_msg(heap_open(h, path, &o, NULL, &err) == 0, "%s: %s", path, err.buf);
	sbuf_free(&err);
	heap_need(h, HP_ALL, NULL);
}

/* Every record of h: a kind of the table; a real one of a native kind
 * of the reader's that is that kind. */
static void records_in_table(const struct heap *h)
{
	ck_assert_uint_gt(h->nroot_rec, 0);
	for (size_t i = 0; i < h->nroot_rec; i++) {
		const struct root *r = &h->root_rec[i];
		ck_assert_uint_lt(r->kind, RK_NKINDS);
		if (r->kind >= RK_WEAK_ONLY)
			continue;
		const struct root_native *n = heap_root_native(h, r);
		ck_assert_msg(n != NULL, "%s: record %zu: native kind %u not the reader's", h->path, i, r->native);
		ck_assert_msg(n->kind == r->kind, "%s: record %zu: %s is %s, the record %s", h->path, i, n->name,
			      root_kind_name(n->kind), root_kind_name(r->kind));
	}
}

/* Records of the reader's kind named name: how many; 0 if none; with
 * *all, the dump's records they stand for (copies folded in too). */
static size_t records_named(const struct heap *h, const char *name, unsigned *kind, size_t *all)
{
	size_t n = 0;

	*all = 0;
	for (size_t i = 0; i < h->nroot_rec; i++) {
		const struct root_native *rn = heap_root_native(h, &h->root_rec[i]);
		if (rn != NULL && strcmp(rn->name, name) == 0) {
			*kind = h->root_rec[i].kind;
			n++;
			*all += 1 + (size_t)h->root_rec[i].copies;
		}
	}
	return n;
}

/* The table itself: a name and a meaning per kind, no two alike, the
 * pseudo kinds last; every reader's native kinds name a real kind. */
START_TEST(test_table)
{
	for (unsigned k = 0; k < RK_NKINDS; k++) {
		ck_assert_msg(strcmp(root_kind_name(k), "?") != 0 && root_kind_name(k)[0] != '\0', "kind %u", k);
		ck_assert_msg(root_kind_meaning(k)[0] != '\0', "kind %u", k);
		for (unsigned j = 0; j < k; j++)
			ck_assert_str_ne(root_kind_name(j), root_kind_name(k));
	}
	ck_assert_str_eq(root_kind_name(RK_WEAK_ONLY), "weakly reachable");
	ck_assert_str_eq(root_kind_name(RK_UNREACHABLE), "unreachable");
	ck_assert_uint_eq(RK_UNREACHABLE + 1, RK_NKINDS);
	ck_assert_str_eq(root_kind_name(RK_NKINDS), "?");
	size_t readers = 0;
	for (size_t f = 0; format_at(f) != NULL; f++) {
		const struct format_ops *ops = format_at(f);
		if (ops->nroot_natives == 0)
			continue;
		readers++;
		ck_assert(ops->root_natives != NULL && ops->nroot_natives <= 256);
		for (unsigned i = 0; i < ops->nroot_natives; i++) {
			const struct root_native *n = &ops->root_natives[i];
			ck_assert_msg(n->name != NULL && n->name[0] != '\0', "%s: native kind %u", ops->name, i);
			ck_assert_msg(n->kind < RK_WEAK_ONLY, "%s: %s is kind %u", ops->name, n->name, n->kind);
		}
	}
	ck_assert_uint_ge(readers, 5); /* HPROF, V8, .nettrace, .gcdump, Mono */
}
END_TEST

/* ---- HPROF: the dump's root sub-records, counted here ---- */

/* Each root tag of the HPROF format (and Android's): its row in the
 * table, the name JVM users know, the bytes after the id, and whether
 * a thread serial (then a frame or depth) follows the id. */
static const struct {
	uint8_t tag;
	unsigned kind;
	const char *name;
	unsigned rest, thread, frame;
} tags[] = {
	{ 0xff, RK_UNKNOWN, "unknown", 0, 0, 0 },
	{ 0x01, RK_GLOBAL_HANDLE, "JNI global", 1, 0, 0 }, /* the rest: an id */
	{ 0x02, RK_LOCAL_HANDLE, "JNI local", 8, 1, 1 },
	{ 0x03, RK_STACK, "Java frame", 8, 1, 1 },
	{ 0x04, RK_STACK, "native stack", 4, 1, 0 },
	{ 0x05, RK_STATICS, "system class", 0, 0, 0 },
	{ 0x06, RK_STACK, "thread block", 4, 1, 0 },
	{ 0x07, RK_MONITOR, "busy monitor", 0, 0, 0 },
	{ 0x08, RK_THREAD, "thread", 8, 1, 0 },
	{ 0x89, RK_INTERNED, "interned string", 0, 0, 0 },
	{ 0x8a, RK_FINALIZER, "finalizing", 0, 0, 0 },
	{ 0x8b, RK_DEBUGGER, "debugger", 0, 0, 0 },
	{ 0x8c, RK_FINALIZER, "reference cleanup", 0, 0, 0 },
	{ 0x8d, RK_VM_INTERNAL, "VM internal", 0, 0, 0 },
	{ 0x8e, RK_MONITOR, "JNI monitor", 8, 1, 1 },
	{ 0x90, RK_OTHER, "unreachable (Android)", 0, 0, 0 },
};
#define NTAGS (sizeof tags / sizeof tags[0])

struct hroot { uint64_t id; uint32_t thread, frame; uint8_t t; };

static uint64_t be(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	while (n-- > 0)
		v = v << 8 | *p++;
	return v;
}

static unsigned type_size(uint8_t t, unsigned ids)
{
	static const unsigned sz[12] = { 0, 0, 0, 0, 1, 2, 4, 8, 1, 2, 4, 8 };

	return t == 2 ? ids : t < 12 ? sz[t] : 0;
}

/* What a walk of a dump's sub-records gathers: its root records; with
 * ids set, every object's id, the class dumps' ids and where the object
 * arrays are. */
struct walk {
	struct hroot *r;
	size_t n, cap;
	int ids;
	uint64_t *id, *cls;
	size_t nid, capid, ncls, capcls;
	const uint8_t **arr; /* OBJECT ARRAY DUMP bodies */
	size_t narr, caparr;
	uint64_t object_array; /* the class id LOAD CLASS names [Ljava/lang/Object; */
};

static void *grow(void *v, size_t n, size_t *cap, size_t elem)
{
	if (n < *cap)
		return v;
	*cap = *cap ? 2 * *cap : 1024;
	v = realloc(v, *cap * elem);
	ck_assert(v != NULL);
	return v;
}

/* The sub-records of one heap dump segment body [p, end). */
static void segment_walk(const uint8_t *p, const uint8_t *end, unsigned ids, struct walk *w)
{
	while (p < end) {
		uint8_t tag = *p++;
		size_t t = 0;
		while (t < NTAGS && tags[t].tag != tag)
			t++;
		if (t < NTAGS) {
			w->r = grow(w->r, w->n, &w->cap, sizeof *w->r);
			struct hroot r = { be(p, ids), 0, HW_NONE, (uint8_t)t };
			if (tags[t].thread)
				r.thread = (uint32_t)be(p + ids, 4);
			if (tags[t].frame)
				r.frame = (uint32_t)be(p + ids + 4, 4);
			w->r[w->n++] = r;
			p += ids + (tags[t].rest == 1 ? ids : tags[t].rest);
			continue;
		}
		if (w->ids && tag >= 0x20 && tag <= 0x23) {
			w->id = grow(w->id, w->nid, &w->capid, sizeof *w->id);
			w->id[w->nid++] = be(p, ids);
		}
		switch (tag) {
		case 0x20: { /* CLASS DUMP */
			if (w->ids) {
				w->cls = grow(w->cls, w->ncls, &w->capcls, sizeof *w->cls);
				w->cls[w->ncls++] = be(p, ids);
			}
			p += 7 * ids + 8;
			unsigned k = (unsigned)be(p, 2);
			p += 2;
			for (unsigned i = 0; i < k; i++) /* constant pool */
				p += 3 + type_size(p[2], ids);
			k = (unsigned)be(p, 2);
			p += 2;
			for (unsigned i = 0; i < k; i++) /* statics */
				p += ids + 1 + type_size(p[ids], ids);
			k = (unsigned)be(p, 2);
			p += 2 + (size_t)k * (ids + 1);
			break;
		}
		case 0x21: /* INSTANCE DUMP */
			p += 2 * ids + 8 + be(p + 2 * ids + 4, 4);
			break;
		case 0x22: /* OBJECT ARRAY DUMP */
			if (w->ids) {
				w->arr = grow(w->arr, w->narr, &w->caparr, sizeof *w->arr);
				w->arr[w->narr++] = p;
			}
			p += 2 * ids + 8 + be(p + ids + 4, 4) * ids;
			break;
		case 0x23: /* PRIMITIVE ARRAY DUMP */
			p += ids + 9 + be(p + ids + 4, 4) * type_size(p[ids + 8], ids);
			break;
		default:
			ck_abort_msg("sub-record tag 0x%02x: not in a HotSpot dump", tag);
		}
	}
}

/* The whole file, read into memory (*m, freed by the caller), walked;
 * its identifier size returned. */
static unsigned dump_walk(const char *path, struct walk *w, uint8_t **m)
{
	FILE *f = fopen(path, "rb");
	struct stat st;

	ck_assert_msg(f != NULL && stat(path, &st) == 0, "%s", path);
	*m = malloc((size_t)st.st_size);
	ck_assert(*m != NULL && fread(*m, 1, (size_t)st.st_size, f) == (size_t)st.st_size);
	fclose(f);
	const uint8_t *p = *m + strlen((char *)*m) + 1, *end = *m + st.st_size;
	unsigned ids = (unsigned)be(p, 4);
	static const char oa[] = "[Ljava/lang/Object;";
	uint64_t oa_name = 0;
	for (p += 12; p + 9 <= end;) {
		uint64_t len = be(p + 5, 4);
		if (p[0] == 0x0c || p[0] == 0x1c)
			segment_walk(p + 9, p + 9 + len, ids, w);
		else if (p[0] == 0x01 && len == ids + strlen(oa) && memcmp(p + 9 + ids, oa, strlen(oa)) == 0)
			oa_name = be(p + 9, ids); /* UTF8 */
		else if (p[0] == 0x02 && oa_name != 0 && be(p + 9 + 8 + ids, ids) == oa_name)
			w->object_array = be(p + 9 + 4, ids); /* LOAD CLASS: after its UTF8 */
		p += 9 + len;
	}
	return ids;
}

static int cmp_hroot(const void *a, const void *b)
{
	const struct hroot *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return x->frame < y->frame ? -1 : x->frame > y->frame;
}

/* The dump's root records of each tag, distinct and of an object in h;
 * all of them (of such an object) in all. */
static void count_roots(const char *path, const struct heap *h, size_t *count, size_t *all)
{
	struct walk w = { 0 };
	uint8_t *m;

	dump_walk(path, &w, &m);
	qsort(w.r, w.n, sizeof *w.r, cmp_hroot);
	memset(count, 0, NTAGS * sizeof *count);
	memset(all, 0, NTAGS * sizeof *all);
	for (size_t i = 0; i < w.n; i++)
		if (heap_find_id(h, w.r[i].id) != HW_NONE) {
			count[w.r[i].t] += i == 0 || cmp_hroot(&w.r[i - 1], &w.r[i]) != 0;
			all[w.r[i].t]++;
		}
	free(w.r);
	free(m);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int has_u64(const uint64_t *v, size_t n, uint64_t x)
{
	return bsearch(&x, v, n, sizeof *v, cmp_u64) != NULL;
}

/* HotSpot's CDS archive: the archived heap's roots are one Object[],
 * held by a JNI global, that refers to the mirrors of archived classes
 * not loaded; the dump has class objects only for those loaded. Counted
 * here from the file: the missing elements of the Object[]s JNI globals
 * hold are what the reader calls expected, every other array's missing
 * element dangling; and a HotSpot dump opens with no warning about them.
 * That they are class mirrors: the JVM's own histogram, taken with the
 * dump, counts at least that many more java.lang.Class objects than the
 * dump has class dumps. */
START_TEST(test_hprof_archive_mirrors)
{
	struct heap h;
	struct walk w = { .ids = 1 };
	struct hist hi = { 0 };
	uint8_t *m;
	uint64_t expected = 0, other = 0, holders = 0;

	ensure_dump("coops", "");
	unsigned ids = dump_walk(DUMPS "/coops.hprof", &w, &m);
	ck_assert(w.object_array != 0);
	uint64_t *globals = malloc((w.n + 1) * sizeof *globals);
	size_t ng = 0;
	ck_assert(globals != NULL);
	for (size_t i = 0; i < w.n; i++)
		if (tags[w.r[i].t].tag == 0x01)
			globals[ng++] = w.r[i].id;
	qsort(globals, ng, sizeof *globals, cmp_u64);
	qsort(w.id, w.nid, sizeof *w.id, cmp_u64);
	for (size_t a = 0; a < w.narr; a++) {
		const uint8_t *p = w.arr[a], *e = p + 2 * ids + 8;
		uint64_t len = be(p + ids + 4, 4), missing = 0;
		for (uint64_t i = 0; i < len; i++) {
			uint64_t t = be(e + i * ids, ids);
			missing += t != 0 && !has_u64(w.id, w.nid, t);
		}
		if (be(p + ids + 8, ids) == w.object_array && has_u64(globals, ng, be(p, ids))) {
			expected += missing;
			holders += missing > 0;
		} else {
			other += missing;
		}
	}
	size_t class_dumps = w.ncls;
	free(globals);
	free(w.r);
	free(w.id);
	free(w.cls);
	free(w.arr);
	free(m);
	if (expected == 0) {
		printf("rootkind: this JDK's dump leaves out no archived mirror: nothing to check\n");
		return;
	}
	ck_assert_uint_eq(holders, 1);
	read_histo(DUMPS "/coops.histo", &hi);
	unsigned long long mirrors = hist_find(&hi, "java.lang.Class", 0);
	free_hist(&hi);
	ck_assert_msg(mirrors >= class_dumps + expected, "the JVM counts %llu class objects, the dump has %zu and "
		      "leaves out %llu", mirrors, class_dumps, (unsigned long long)expected);
	open_dump(&h, DUMPS "/coops.hprof");
	ck_assert_msg(h.dangling_expected == expected, "%llu expected, the file has %llu",
		      (unsigned long long)h.dangling_expected, (unsigned long long)expected);
	ck_assert_msg(h.dangling_refs == expected + other, "%llu dangling, the file's arrays have %llu",
		      (unsigned long long)h.dangling_refs, (unsigned long long)(expected + other));
	ck_assert_msg(h.warn.n == 0, "%zu warnings, the first: %s", h.warn.n, h.warn.n ? h.warn.msg[0] : "");
	heap_free(&h);
}
END_TEST

START_TEST(test_hprof_kinds)
{
	struct heap h;
	size_t count[NTAGS], all[NTAGS], present = 0;

	ensure_dump("coops", "");
	open_dump(&h, DUMPS "/coops.hprof");
	records_in_table(&h);
	count_roots(DUMPS "/coops.hprof", &h, count, all);
	for (size_t t = 0; t < NTAGS; t++) {
		unsigned kind = RK_NKINDS;
		size_t got_all, got = records_named(&h, tags[t].name, &kind, &got_all);
		ck_assert_msg(got == count[t], "tag 0x%02x (%s): %zu records, the dump has %zu", tags[t].tag,
			      tags[t].name, got, count[t]);
		/* two alike (a frame's two locals of one object) one record, both counted */
		ck_assert_msg(got_all == all[t], "tag 0x%02x (%s): %zu records in all, the dump has %zu", tags[t].tag,
			      tags[t].name, got_all, all[t]);
		if (got > 0) {
			present++;
			ck_assert_msg(kind == tags[t].kind, "%s is %s", tags[t].name, root_kind_name(kind));
		}
	}
	/* a HotSpot dump: Java frames, JNI globals, system classes, threads */
	ck_assert_uint_ge(present, 4);
	for (size_t i = 0; i < h.nroot_rec; i++) /* thread and frame kept for the thread's kinds */
		if (h.root_rec[i].kind == RK_STACK)
			ck_assert(heap_root_has_thread(&h, &h.root_rec[i]) && h.root_rec[i].thread_serial != 0);
	heap_free(&h);
}
END_TEST

/* Records alike, as HotSpot writes a frame's two locals that hold one
 * object (the record tells no slot): info counts every record, and
 * each object once. Before, three alike were one record. Made here: X
 * held by three alike Java frame records and one of another depth, two
 * alike JNI globals; Y by one of each. */
START_TEST(test_hprof_records_alike)
{
	enum { X = 0x5001, Y = 0x5011 };
	struct hw w;
	struct heap h;
	struct objset all;
	struct info_view v;

	hw_begin(&w, "JAVA PROFILE 1.0.2", 8);
	hw_jdk_names(&w);
	hw_heap_begin(&w);
	hw_jdk_classes(&w);
	hw_instance(&w, X, J_OBJECT, NULL, 0);
	hw_instance(&w, Y, J_OBJECT, NULL, 0);
	for (int i = 0; i < 3; i++)
		hw_root(&w, HW_ROOT_JAVA_FRAME, X, 1, 2);
	hw_root(&w, HW_ROOT_JAVA_FRAME, X, 1, 3);
	hw_root(&w, HW_ROOT_JAVA_FRAME, Y, 1, 2);
	hw_root(&w, HW_ROOT_JNI_GLOBAL, X, 0x77, 0);
	hw_root(&w, HW_ROOT_JNI_GLOBAL, X, 0x77, 0);
	hw_root(&w, HW_ROOT_JNI_GLOBAL, Y, 0x78, 0);
	hw_heap_end(&w);
	hw_dump_end(&w);
	char *path = hw_write(&w, "alike.hprof", SIZE_MAX);
	hw_free(&w);
	open_dump(&h, path);
	objset_all(&h, &all);
	view_info(&h, &all, &v);
	int frames = 0, globals = 0;
	for (size_t i = 0; i < v.nroots; i++) {
		struct root r = { .kind = (uint8_t)v.roots[i].kind, .native = (uint8_t)v.roots[i].native };
		const struct root_native *n = heap_root_native(&h, &r);
		if (n != NULL && strcmp(n->name, "Java frame") == 0) {
			ck_assert_uint_eq(v.roots[i].records, 5);
			ck_assert_uint_eq(v.roots[i].objects, 2);
			frames++;
		} else if (n != NULL && strcmp(n->name, "JNI global") == 0) {
			ck_assert_uint_eq(v.roots[i].records, 3);
			ck_assert_uint_eq(v.roots[i].objects, 2);
			globals++;
		}
	}
	ck_assert_int_eq(frames, 1);
	ck_assert_int_eq(globals, 1);
	info_view_free(&v);
	objset_free(&all);
	heap_free(&h);
	free(path);
}
END_TEST

/* ---- the other readers, on their committed recordings ---- */

START_TEST(test_clr_mono_kinds)
{
	static const char *const dumps[] = {
		TEST_SRCDIR "/dotnet/workload-1.nettrace",
		TEST_SRCDIR "/dotnet/workload.gcdump",
		TEST_SRCDIR "/mono/workload.mlpd",
	};

	for (size_t i = 0; i < sizeof dumps / sizeof dumps[0]; i++) {
		struct heap h;
		open_dump(&h, dumps[i]);
		records_in_table(&h);
		heap_free(&h);
	}
}
END_TEST

/* A thread's stack is one kind whatever the runtime: HotSpot's Java
 * frames, .NET's and Mono's stack roots. */
START_TEST(test_stack_is_one_kind)
{
	static const struct { const char *dump, *name; } stacks[] = {
		{ DUMPS "/coops.hprof", "Java frame" },
		{ TEST_SRCDIR "/dotnet/workload-1.nettrace", "stack" },
		{ TEST_SRCDIR "/mono/workload.mlpd", "stack" },
	};

	ensure_dump("coops", "");
	for (size_t i = 0; i < sizeof stacks / sizeof stacks[0]; i++) {
		struct heap h;
		unsigned kind = RK_NKINDS;
		size_t all;
		open_dump(&h, stacks[i].dump);
		ck_assert_msg(records_named(&h, stacks[i].name, &kind, &all) > 0, "%s: no %s root", stacks[i].dump,
			      stacks[i].name);
		ck_assert_msg(kind == RK_STACK, "%s: %s is %s", stacks[i].dump, stacks[i].name, root_kind_name(kind));
		heap_free(&h);
	}
}
END_TEST

/* ---- V8: the synthetic root's edges, read here ---- */

static int v8_snapshot(void)
{
	struct stat d, w;

	if (!have("node")) {
		fprintf(stderr, "rootkind: node is not installed: the V8 test is skipped\n");
		return 0;
	}
	if (stat(V8DIR "/a.heapsnapshot", &d) == 0 && stat(TEST_SRCDIR "/node/workload.js", &w) == 0 &&
	    d.st_mtime >= w.st_mtime && d.st_size > 0)
		return 1;
	ck_assert_int_eq(system("mkdir -p " V8DIR " && node --expose-gc " TEST_SRCDIR "/node/workload.js " V8DIR
				" >/dev/null"), 0);
	return 1;
}

static int field_at(const struct jv *names, const char *name)
{
	for (size_t i = 0; i < names->n; i++)
		if (strcmp(names->v[i].s, name) == 0)
			return (int)i;
	ck_abort_msg("no field %s", name);
	return -1;
}

/* The root's edges (node 0's, the first ones) by what they are: to
 * "(GC roots)", shortcuts (user roots), the rest but weak ones
 * (embedder roots): distinct targets of each. */
static void v8_root_edges(const char *path, size_t want[3])
{
	size_t n;
	char *text = file_bytes(path, &n), err[256];
	struct jv doc;

	ck_assert_msg(json_parse(text, n, &doc, err, sizeof err) == 0, "%s: %s", path, err);
	const struct jv *meta = jv_get(jv_get(&doc, "snapshot"), "meta");
	const struct jv *nf = jv_get(meta, "node_fields"), *ef = jv_get(meta, "edge_fields");
	const struct jv *etypes = &jv_get(meta, "edge_types")->v[0];
	const struct jv *nodes = jv_get(&doc, "nodes"), *edges = jv_get(&doc, "edges");
	const struct jv *strings = jv_get(&doc, "strings");
	int ec = field_at(nf, "edge_count"), nname = field_at(nf, "name");
	int et = field_at(ef, "type"), eto = field_at(ef, "to_node");
	int shortcut = field_at(etypes, "shortcut"), weak = field_at(etypes, "weak");
	uint64_t nroot = nodes->v[ec].u, targets[3][4096];
	memset(want, 0, 3 * sizeof *want);
	for (uint64_t e = 0; e < nroot; e++) {
		const struct jv *edge = &edges->v[e * ef->n];
		uint64_t type = edge[et].u, to = edge[eto].u;
		if (type == (uint64_t)weak)
			continue;
		const char *name = strings->v[nodes->v[to + (uint64_t)nname].u].s;
		size_t c = type == (uint64_t)shortcut ? 1 : strcmp(name, "(GC roots)") == 0 ? 0 : 2;
		size_t k = 0;
		while (k < want[c] && targets[c][k] != to)
			k++;
		if (k == want[c]) {
			ck_assert_uint_lt(want[c], 4096);
			targets[c][want[c]++] = to;
		}
	}
	jv_free(&doc);
	free(text);
}

START_TEST(test_v8_kinds)
{
	static const struct { const char *name; unsigned kind; } v8[3] = {
		{ "GC roots", RK_VM_INTERNAL }, { "user root (global)", RK_STATICS }, { "embedder root", RK_NATIVE },
	};
	struct heap h;
	size_t want[3];

	if (!v8_snapshot())
		return;
	open_dump(&h, V8DIR "/a.heapsnapshot");
	records_in_table(&h);
	v8_root_edges(V8DIR "/a.heapsnapshot", want);
	ck_assert_uint_eq(want[0], 1);
	for (size_t c = 0; c < 3; c++) {
		unsigned kind = RK_NKINDS;
		size_t all, got = records_named(&h, v8[c].name, &kind, &all);
		ck_assert_msg(got == want[c], "%s: %zu records, the snapshot's root has %zu", v8[c].name, got,
			      want[c]);
		if (got > 0)
			ck_assert_msg(kind == v8[c].kind, "%s is %s", v8[c].name, root_kind_name(kind));
	}
	heap_free(&h);
}
END_TEST

Suite *rootkind_suite(void)
{
	Suite *s = suite_create("rootkind");
	TCase *tc = tcase_create("table");

	tcase_set_timeout(tc, HANG_TIMEOUT);
	tcase_add_test(tc, test_table);
	tcase_add_test(tc, test_clr_mono_kinds);
	tcase_add_test(tc, test_hprof_records_alike);
	suite_add_tcase(s, tc);
	tc = tcase_create("dumps");
	tcase_set_timeout(tc, FIXTURE_TIMEOUT);
	tcase_add_test(tc, test_hprof_kinds);
	tcase_add_test(tc, test_hprof_archive_mirrors);
	tcase_add_test(tc, test_stack_is_one_kind);
	tcase_add_test(tc, test_v8_kinds);
	suite_add_tcase(s, tc);
	return s;
}
