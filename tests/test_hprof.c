/* test_hprof.c — the reader: both versions and identifier sizes, every
 * root kind, frames and traces, class dumps with constant pools and
 * statics of every type, and damaged files, each of which must open as
 * far as it is valid with a warning that names the offset, or fail with
 * a one-line error naming the file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/hprof.h"
#include "engine/open.h"
#include "query/baseline.h"
#include "hprofw.h"
#include "suites.h"

#define V102 "JAVA PROFILE 1.0.2"
/* "JAVA PROFILE 1.0.x\0", u4 identifier size, u8 time: 31 bytes either version */
#define HEADER_LEN ((size_t)31)

/* The reader's heap as it built it: hand-made dumps leave objects no
 * root reaches, whose references the default analysis would move aside
 * (WEAK_GARBAGE, tests/test_garbage.c); these tests are the reader's. */
static int open_file(const char *path, struct heap *h, struct sbuf *err)
{
	struct open_opts o = { .no_cache = 1, .quiet = 1, .keep_unreachable = 1 };
	struct progress p;

	progress_init(&p, 1);
	sbuf_init(err);
	if (heap_open(h, path, &o, &p, err) < 0)
		return -1;
	heap_need(h, HP_ALL, &p);
	return 0;
}

/* Open w's bytes (the first len) as a file named name; must succeed. */
static void open_ok(const struct hw *w, const char *name, size_t len, struct heap *h)
{
	struct sbuf err;
	char *path = hw_write(w, name, len);

	ck_assert_msg(open_file(path, h, &err) == 0, "%s: %s", name, err.buf);
	sbuf_free(&err);
	free(path);
}

/* Open w's bytes as a file; must fail with an error naming the file. */
static void open_fails(const struct hw *w, const char *name, const char *what)
{
	struct heap h;
	struct sbuf err;
	char *path = hw_write(w, name, SIZE_MAX);

	ck_assert_msg(open_file(path, &h, &err) == -1, "%s opened", name);
	ck_assert_msg(strstr(err.buf, path) != NULL, "%s: error without the path: %s", name, err.buf);
	ck_assert_msg(what == NULL || strstr(err.buf, what) != NULL, "%s: %s", name, err.buf);
	ck_assert_msg(strchr(err.buf, '\n') == NULL, "%s: not one line: %s", name, err.buf);
	sbuf_free(&err);
	free(path);
}

/* A warning "... offset N: ..." that also contains `what` (NULL: any). */
static int warned(const struct heap *h, const char *what, unsigned long long offset)
{
	char at[48];

	snprintf(at, sizeof at, "offset %llu:", offset);
	for (size_t i = 0; i < h->warn.n; i++)
		if ((what == NULL || strstr(h->warn.msg[i], what)) && strstr(h->warn.msg[i], at))
			return 1;
	return 0;
}

static void dump_warnings(const struct heap *h)
{
	for (size_t i = 0; i < h->warn.n; i++)
		fprintf(stderr, "  warning: %s\n", h->warn.msg[i]);
}

#define ck_warned(h, what, off)                                                          \
	do {                                                                              \
		if (!warned(h, what, off))                                                \
			dump_warnings(h);                                                 \
		ck_assert_msg(warned(h, what, off), "no warning \"%s\" at offset %llu",   \
			      (what) ? (const char *)(what) : "", (unsigned long long)(off)); \
	} while (0)

static int in_roots(const struct heap *h, node_t v)
{
	for (size_t i = 0; i < h->nroots; i++)
		if (h->roots[i] == v)
			return 1;
	return 0;
}

static const struct root *root_of(const struct heap *h, node_t v, unsigned kind)
{
	for (size_t i = 0; i < h->nroot_rec; i++)
		if (h->root_rec[i].node == v && h->root_rec[i].kind == kind)
			return &h->root_rec[i];
	return NULL;
}

/* The class whose class object has id cid. */
static uint32_t class_by_id(const struct heap *h, uint64_t cid)
{
	for (uint32_t c = 0; c < h->ncls; c++)
		if (h->cls[c].id == cid && !(h->cls[c].flags & HC_SYNTHETIC))
			return c;
	return HW_NONE;
}

static int out_edge(const struct heap *h, node_t a, node_t b)
{
	for (edge_t j = h->out_start[a]; j < h->out_start[a + 1]; j++)
		if (h->out[j] == b)
			return 1;
	return 0;
}

START_TEST(test_versions_and_id_sizes)
{
	static const char *v[] = { "JAVA PROFILE 1.0.1", "JAVA PROFILE 1.0.2" };

	for (int i = 0; i < 2; i++)
		for (unsigned ids = 4; ids <= 8; ids += 4) {
			struct hw w;
			struct hw_sample s;
			struct heap h;
			hw_sample(&w, v[i], ids, &s);
			open_ok(&w, "v.hprof", SIZE_MAX, &h);
			ck_assert_str_eq(h.version, v[i]);
			ck_assert_uint_eq(h.layout.idsize, ids);
			ck_assert_uint_eq(h.timestamp_ms, 1700000000000ull);
			ck_assert_uint_eq(h.n, 16);
			ck_assert_uint_eq(h.warn.n, 0);
			/* same graph either way: A retains B, C, D and X; with 4-byte
			 * ids, a 32-bit JVM: Node 8 + 3 * 4 = 20 -> 24, byte[100]
			 * 12 + 100 = 112, so A = 3 * 24 + 24 + 112 = 208 */
			node_t a = heap_find_id(&h, S_A);
			ck_assert_uint_eq(h.retained[a], ids == 8 ? 216 : 208);
			heap_free(&h);
			hw_free(&w);
		}
}
END_TEST

/* Roots of every kind, HotSpot's and Android's, each on its own object;
 * Android's heap-info record and data-less primitive array between them. */
static const uint8_t root_kinds[] = { 0xff, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
				      0x89, 0x8a, 0x8b, 0x8c, 0x8d, 0x8e, 0x90 };
#define NKINDS ((int)sizeof root_kinds)
/* Each tag's row in the table of kinds (graph/rootkind.h) and the name
 * JVM users know it by, as the HPROF spec and Android's hprof name them;
 * a record with a thread keeps its serial. */
static const struct { unsigned kind; const char *name; int thread; } root_rows[NKINDS] = {
	{ RK_UNKNOWN, "unknown", 0 }, { RK_GLOBAL_HANDLE, "JNI global", 0 },
	{ RK_LOCAL_HANDLE, "JNI local", 1 }, { RK_STACK, "Java frame", 1 }, { RK_STACK, "native stack", 1 },
	{ RK_STATICS, "system class", 0 }, { RK_STACK, "thread block", 1 }, { RK_MONITOR, "busy monitor", 0 },
	{ RK_THREAD, "thread", 1 }, { RK_INTERNED, "interned string", 0 }, { RK_FINALIZER, "finalizing", 0 },
	{ RK_DEBUGGER, "debugger", 0 }, { RK_FINALIZER, "reference cleanup", 0 },
	{ RK_VM_INTERNAL, "VM internal", 0 }, { RK_MONITOR, "JNI monitor", 1 }, { RK_OTHER, "unreachable (Android)", 0 },
};

static void check_root_record(uint8_t kind, const struct root *r)
{
	switch (kind) {
	case 0x02: case 0x03: case 0x8e: /* thread 7, frame (depth) 3 */
		ck_assert_uint_eq(r->thread_serial, 7);
		ck_assert_uint_eq(r->frame, 3);
		break;
	case 0x04: case 0x06: case 0x08: /* thread 7, no frame */
		ck_assert_uint_eq(r->thread_serial, 7);
		ck_assert_uint_eq(r->frame, HW_NONE);
		break;
	default:
		ck_assert_uint_eq(r->thread_serial, 0);
		ck_assert_uint_eq(r->frame, HW_NONE);
		break;
	}
}

START_TEST(test_every_root_kind)
{
	for (unsigned ids = 4; ids <= 8; ids += 4) {
		struct hw w;
		struct heap h;

		hw_begin(&w, V102, ids);
		hw_sample_classes(&w);
		hw_heap_begin(&w);
		hw_class_dump(&w, S_OBJ, 0, 0, NULL, 0, NULL, 0, NULL, 0);
		hw_heap_info(&w, 1, 0);
		for (int i = 0; i < NKINDS; i++)
			hw_root(&w, root_kinds[i], 0x2001 + 2 * (uint64_t)i, 7, 3);
		hw_heap_info(&w, 2, 0);
		for (int i = 0; i < NKINDS; i++)
			hw_instance(&w, 0x2001 + 2 * (uint64_t)i, S_OBJ, NULL, 0);
		hw_primarray_nodata(&w, 0x3001, T_INT, 10);
		hw_instance(&w, 0x3003, S_OBJ, NULL, 0); /* read after the 0xc3 */
		hw_root(&w, 0x01, 0x3003, 0, 0);
		hw_heap_end(&w);
		hw_dump_end(&w);
		open_ok(&w, "roots.hprof", SIZE_MAX, &h);
		dump_warnings(&h);
		ck_assert_uint_eq(h.warn.n, 0);
		ck_assert_uint_eq(h.n, 1 + 1 + NKINDS + 2);
		for (int i = 0; i < NKINDS; i++) {
			node_t v = heap_find_id(&h, 0x2001 + 2 * (uint64_t)i);
			ck_assert(v != HW_NONE);
			const struct root *r = root_of(&h, v, root_rows[i].kind);
			ck_assert_msg(r != NULL, "ids %u: root kind 0x%02x missing (as %s)", ids, root_kinds[i],
				      root_kind_name(root_rows[i].kind));
			const struct root_native *n = heap_root_native(&h, r);
			ck_assert_msg(n != NULL && strcmp(n->name, root_rows[i].name) == 0 && n->kind == r->kind,
				      "root kind 0x%02x: %s", root_kinds[i], n != NULL ? n->name : "no native kind");
			ck_assert_int_eq(heap_root_has_thread(&h, r), root_rows[i].thread);
			check_root_record(root_kinds[i], r);
			ck_assert_msg(in_roots(&h, v), "root kind 0x%02x: not a successor of node 0",
				      root_kinds[i]);
			ck_assert_uint_eq(h.idom[v], 0);
		}
		/* roots[] is sorted and unique */
		for (size_t i = 1; i < h.nroots; i++)
			ck_assert(h.roots[i - 1] < h.roots[i]);
		node_t p = heap_find_id(&h, 0x3001);
		ck_assert(p != HW_NONE);
		ck_assert_uint_eq(h.node_kind[p], NK_PRIMARRAY);
		if (ids == 8)
			ck_assert_uint_eq(h.node_shallow[p], 16 + 40); /* int[10] */
		ck_assert(in_roots(&h, heap_find_id(&h, 0x3003)));
		/* THREAD_OBJ: thread serial 7, stack trace serial 3 */
		ck_assert_uint_eq(h.nthreads, 1);
		ck_assert_uint_eq(h.threads[0].serial, 7);
		ck_assert_uint_eq(h.threads[0].trace_serial, 3);
		ck_assert_uint_eq(h.threads[0].obj, heap_find_id(&h, 0x2001 + 2 * 8));
		heap_free(&h);
		hw_free(&w);
	}
}
END_TEST

/* FRAME and TRACE records, and a thread whose Java frame holds a local. */
START_TEST(test_frames_and_traces)
{
	enum { RUN = 0x5001, VSIG = 0x5003, SRC = 0x5005, MAIN = 0x5007, MSIG = 0x5009,
	       MAINCLS = 0x4001, THR = 0x6001, LOCAL = 0x6003, FR1 = 0x7001, FR2 = 0x7003 };
	const uint64_t frames[] = { FR1, FR2 };
	struct hw w;
	struct heap h;

	hw_begin(&w, V102, 8);
	hw_sample_classes(&w);
	hw_utf8(&w, RUN, "run");
	hw_utf8(&w, VSIG, "()V");
	hw_utf8(&w, SRC, "Main.java");
	hw_utf8(&w, MAIN, "main");
	hw_utf8(&w, MSIG, "([Ljava/lang/String;)V");
	hw_class_name(&w, 8, MAINCLS, "app/Main");
	hw_frame(&w, FR1, RUN, VSIG, SRC, 8, 12);
	hw_frame(&w, FR2, MAIN, MSIG, SRC, 8, -3);
	hw_trace(&w, 5, 9, frames, 2);
	hw_trace(&w, 1, 0, NULL, 0); /* an empty trace, as HotSpot writes first */
	hw_heap_begin(&w);
	hw_class_dump(&w, S_OBJ, 0, 0, NULL, 0, NULL, 0, NULL, 0);
	hw_root(&w, 0x08, THR, 9, 5);
	hw_root(&w, 0x03, LOCAL, 9, 1);
	hw_instance(&w, THR, S_OBJ, NULL, 0);
	hw_instance(&w, LOCAL, S_OBJ, NULL, 0);
	hw_heap_end(&w);
	hw_dump_end(&w);
	open_ok(&w, "frames.hprof", SIZE_MAX, &h);
	dump_warnings(&h);
	ck_assert_uint_eq(h.warn.n, 0);
	ck_assert_uint_eq(h.nframes, 2);
	ck_assert_uint_eq(h.frames[0].id, FR1); /* sorted by id */
	ck_assert_str_eq(heap_str(&h, h.frames[0].method), "run");
	ck_assert_str_eq(heap_str(&h, h.frames[0].signature), "()V");
	ck_assert_str_eq(heap_str(&h, h.frames[0].source), "Main.java");
	ck_assert_int_eq(h.frames[0].line, 12);
	ck_assert_str_eq(heap_str(&h, h.frames[1].method), "main");
	ck_assert_int_eq(h.frames[1].line, -3);
	ck_assert_uint_eq(h.ntraces, 2);
	ck_assert_uint_eq(h.traces[0].serial, 1); /* sorted by serial */
	ck_assert_uint_eq(h.traces[0].nframes, 0);
	const struct htrace *t = &h.traces[1];
	ck_assert_uint_eq(t->serial, 5);
	ck_assert_uint_eq(t->thread_serial, 9);
	ck_assert_uint_eq(t->nframes, 2);
	ck_assert_uint_eq(h.frames[h.trace_frames[t->frame_first]].id, FR1);
	ck_assert_uint_eq(h.frames[h.trace_frames[t->frame_first + 1]].id, FR2);
	ck_assert_uint_eq(h.nthreads, 1);
	ck_assert_uint_eq(h.threads[0].serial, 9);
	ck_assert_uint_eq(h.threads[0].trace_serial, 5);
	ck_assert_uint_eq(h.threads[0].obj, heap_find_id(&h, THR));
	const struct root *r = root_of(&h, heap_find_id(&h, LOCAL), RK_STACK);
	ck_assert(r != NULL);
	ck_assert_uint_eq(r->thread_serial, 9);
	ck_assert_uint_eq(r->frame, 1);
	/* the class of a frame, by its LOAD_CLASS serial: in the dotted form
	 * every other class name has */
	ck_assert_str_eq(heap_str(&h, h.frames[0].class_name), "app.Main");
	heap_free(&h);
	hw_free(&w);
}
END_TEST

/* ---- class dumps: a constant pool and statics of every type ---- */

enum { H2 = 0x7001, H2_O = 0x7101, H2_O2 = 0x7103, H2_I = 0x7105,
       N_F = 0x7201, N_G = 0x7203, N_ST = 0x7301 /* + 2 * i */ };
static const char *st_names[] = { "zz", "zc", "zf", "zd", "zb", "zs", "zi", "zj", "zo" };
static const uint8_t st_types[] = { T_BOOLEAN, T_CHAR, T_FLOAT, T_DOUBLE, T_BYTE, T_SHORT,
				    T_INT, T_LONG, T_OBJECT };
/* values: true, U+263A, 1.5f, -2.25, -2, -300, -70000, -2^40, H2_O2 */
static const uint64_t st_values[] = { 1, 0x263a, 0x3fc00000, 0xc002000000000000ull,
				      (uint64_t)-2, (uint64_t)-300, (uint64_t)-70000,
				      (uint64_t)-(1ll << 40), H2_O2 };
#define NST 9

struct got { int n; char name[NST + 2][16]; struct hvalue v[NST + 2]; };

static void collect(void *arg, const char *name, const struct hvalue *val)
{
	struct got *g = arg;

	if (g->n < NST + 2) {
		snprintf(g->name[g->n], sizeof g->name[0], "%s", name);
		g->v[g->n] = *val;
	}
	g->n++;
}

static void write_holder2(struct hw *w)
{
	struct hw_field cp[NST], st[NST];
	const struct hw_field fields[] = { { N_F, T_INT, 0 }, { N_G, T_OBJECT, 0 } };
	const struct hw_field inst[] = { { 0, T_INT, 99 }, { 0, T_OBJECT, H2_O } };

	for (int i = 0; i < NST; i++) {
		/* the pool holds the same values at indexes 1..9, H2_O for the object */
		cp[i] = (struct hw_field){ (uint64_t)i + 1, st_types[i],
					   st_types[i] == T_OBJECT ? H2_O : st_values[i] };
		st[i] = (struct hw_field){ N_ST + 2 * (uint64_t)i, st_types[i], st_values[i] };
	}
	hw_class_dump(w, H2, S_OBJ, 0, cp, NST, st, NST, fields, 2);
	hw_instance(w, H2_I, H2, inst, 2); /* right after: the class dump's length was right */
	hw_instance(w, H2_O, S_OBJ, NULL, 0);
	hw_instance(w, H2_O2, S_OBJ, NULL, 0);
}

static void check_statics(const struct got *g)
{
	ck_assert_int_eq(g->n, NST);
	for (int i = 0; i < NST; i++) {
		ck_assert_str_eq(g->name[i], st_names[i]);
		ck_assert_uint_eq(g->v[i].type, st_types[i]);
	}
	ck_assert_int_eq(g->v[0].v.i, 1);
	ck_assert_uint_eq(g->v[1].v.u, 0x263a);
	ck_assert(g->v[2].v.f == 1.5f);
	ck_assert(g->v[3].v.d == -2.25);
	ck_assert_int_eq(g->v[4].v.i, -2);
	ck_assert_int_eq(g->v[5].v.i, -300);
	ck_assert_int_eq(g->v[6].v.i, -70000);
	ck_assert_int_eq(g->v[7].v.i, -(1ll << 40));
	ck_assert_uint_eq(g->v[8].v.id, H2_O2);
}

START_TEST(test_class_dump_pool_and_statics)
{
	for (unsigned ids = 4; ids <= 8; ids += 4) {
		struct hw w;
		struct heap h;
		struct got g = { 0 };

		hw_begin(&w, V102, ids);
		hw_sample_classes(&w);
		hw_utf8(&w, N_F, "f");
		hw_utf8(&w, N_G, "g");
		for (int i = 0; i < NST; i++)
			hw_utf8(&w, N_ST + 2 * (uint64_t)i, st_names[i]);
		hw_class_name(&w, 9, H2, "app/Holder2");
		hw_heap_begin(&w);
		hw_class_dump(&w, S_OBJ, 0, 0, NULL, 0, NULL, 0, NULL, 0);
		write_holder2(&w);
		hw_root(&w, 0x05, H2, 0, 0);
		hw_root(&w, 0x05, S_OBJ, 0, 0);
		hw_root(&w, 0x01, H2_I, 0, 0);
		hw_heap_end(&w);
		hw_dump_end(&w);
		open_ok(&w, "statics.hprof", SIZE_MAX, &h);
		dump_warnings(&h);
		ck_assert_uint_eq(h.warn.n, 0);
		ck_assert_uint_eq(h.n, 1 + 2 + 3);
		node_t cn = heap_find_id(&h, H2), i = heap_find_id(&h, H2_I);
		node_t o = heap_find_id(&h, H2_O), o2 = heap_find_id(&h, H2_O2);
		ck_assert(cn != HW_NONE && i != HW_NONE && o != HW_NONE && o2 != HW_NONE);
		ck_assert_uint_eq(h.node_kind[cn], NK_CLASS);
		uint32_t c = class_by_id(&h, H2);
		ck_assert(c != HW_NONE);
		ck_assert_str_eq(class_name(&h, c), "app.Holder2");
		ck_assert_uint_eq(h.cls[c].nstatics, NST);
		ck_assert_uint_eq(h.cls[c].nfields, 2);
		ck_assert_uint_eq(h.cls[c].inst_bytes, 4 + ids);
		/* statics: names, types, values */
		ck_assert_int_eq(hprof_fields(&h, cn, collect, &g), NST);
		check_statics(&g);
		/* the instance after the class dump: its fields */
		memset(&g, 0, sizeof g);
		ck_assert_int_eq(hprof_fields(&h, i, collect, &g), 2);
		ck_assert_str_eq(g.name[0], "f");
		ck_assert_int_eq(g.v[0].v.i, 99);
		ck_assert_str_eq(g.name[1], "g");
		ck_assert_uint_eq(g.v[1].v.id, H2_O);
		/* a static object field is an edge from the class */
		ck_assert(out_edge(&h, cn, o2));
		ck_assert(out_edge(&h, i, o));
		ck_assert(out_edge(&h, i, cn));
		ck_assert(!out_edge(&h, i, o2));
		ck_assert_uint_eq(h.idom[o2], cn);
		heap_free(&h);
		hw_free(&w);
	}
}
END_TEST

/* ---- field offsets: a chain of three classes, a name declared twice ---- */

enum { FB = 0x7401, FM = 0x7403, FL = 0x7405, FB_I = 0x7501, FL_I = 0x7503, FO = 0x7505,
       N_B = 0x7601, N_L = 0x7603, N_O = 0x7605, N_I = 0x7607, N_S = 0x7609, N_C = 0x760b,
       N_P = 0x760d };

/* The value of `size` big-endian bytes at offset off of v's instance
 * data, read as the format lays an INSTANCE_DUMP out (independently of
 * the reader): sub-tag, id, u4 trace, class id, u4 length, data. */
static uint64_t inst_bytes_at(const struct heap *h, node_t v, uint32_t off, unsigned size)
{
	unsigned ids = h->layout.idsize;
	const uint8_t *q = h->map + h->node_off[v];
	uint32_t len = (uint32_t)q[1 + 2 * ids + 4] << 24 | (uint32_t)q[1 + 2 * ids + 5] << 16 |
		       (uint32_t)q[1 + 2 * ids + 6] << 8 | q[1 + 2 * ids + 7];
	uint64_t x = 0;

	ck_assert_uint_le(off + size, len);
	for (unsigned i = 0; i < size; i++)
		x = x << 8 | q[1 + 2 * ids + 8 + off + i];
	return x;
}

/* class_field(): Base { byte b; long l; Object o }, Mid extends Base
 * { int i; short s }, Leaf extends Mid { char c; Object p; byte b }.
 * An instance of Leaf holds Leaf's fields, then Mid's, then Base's, so
 * (ids = 4 or 8) Leaf: c 0, p 2, b 2+ids; Mid: i 3+ids, s 7+ids; Base:
 * b 9+ids, l 10+ids, o 18+ids; 18+2*ids bytes in all. */
START_TEST(test_field_offsets)
{
	for (unsigned ids = 4; ids <= 8; ids += 4) {
		const struct hw_field fb[] = { { N_B, T_BYTE, 0 }, { N_L, T_LONG, 0 }, { N_O, T_OBJECT, 0 } };
		const struct hw_field fm[] = { { N_I, T_INT, 0 }, { N_S, T_SHORT, 0 } };
		const struct hw_field fl[] = { { N_C, T_CHAR, 0 }, { N_P, T_OBJECT, 0 }, { N_B, T_BYTE, 0 } };
		const struct hw_field leaf[] = {
			{ 0, T_CHAR, 0x263a }, { 0, T_OBJECT, FO }, { 0, T_BYTE, 0x7f },
			{ 0, T_INT, 0x01020304 }, { 0, T_SHORT, 0xbeef },
			{ 0, T_BYTE, 0x11 }, { 0, T_LONG, 0x1122334455667788ull }, { 0, T_OBJECT, FB_I },
		};
		const struct hw_field base[] = { { 0, T_BYTE, 0x22 }, { 0, T_LONG, 42 }, { 0, T_OBJECT, FO } };
		static const struct { const char *name; unsigned off, size; uint64_t leaf; } want[] = {
			{ "c", 0, 2, 0x263a }, { "p", 2, 0, FO }, { "b", 2, 1, 0x7f }, /* + ids from b on */
			{ "i", 3, 4, 0x01020304 }, { "s", 7, 2, 0xbeef },
			{ "l", 10, 8, 0x1122334455667788ull }, { "o", 18, 0, FB_I },
		};
		struct hw w;
		struct heap h;

		hw_begin(&w, V102, ids);
		hw_sample_classes(&w);
		const char *names[] = { "b", "l", "o", "i", "s", "c", "p" };
		for (int i = 0; i < 7; i++)
			hw_utf8(&w, N_B + 2 * (uint64_t)i, names[i]);
		hw_class_name(&w, 11, FB, "app/Base");
		hw_class_name(&w, 12, FM, "app/Mid");
		hw_class_name(&w, 13, FL, "app/Leaf");
		hw_heap_begin(&w);
		hw_class_dump(&w, S_OBJ, 0, 0, NULL, 0, NULL, 0, NULL, 0);
		hw_class_dump(&w, FB, S_OBJ, 0, NULL, 0, NULL, 0, fb, 3);
		hw_class_dump(&w, FM, FB, 0, NULL, 0, NULL, 0, fm, 2);
		hw_class_dump(&w, FL, FM, 0, NULL, 0, NULL, 0, fl, 3);
		hw_instance(&w, FL_I, FL, leaf, 8);
		hw_instance(&w, FB_I, FB, base, 3);
		hw_instance(&w, FO, S_OBJ, NULL, 0);
		hw_root(&w, 0x01, FL_I, 0, 0);
		hw_heap_end(&w);
		hw_dump_end(&w);
		open_ok(&w, "offsets.hprof", SIZE_MAX, &h);
		ck_assert_uint_eq(h.warn.n, 0);
		uint32_t cb = class_by_id(&h, FB), cl = class_by_id(&h, FL);
		node_t li = heap_find_id(&h, FL_I), bi = heap_find_id(&h, FB_I);
		ck_assert_uint_eq(h.cls[cl].inst_bytes, 18 + 2 * ids);
		ck_assert_uint_eq(h.cls[cb].inst_bytes, 9 + ids);
		for (size_t k = 0; k < sizeof want / sizeof *want; k++) {
			unsigned off = want[k].off + (k >= 2 ? ids : 0), size = want[k].size ? want[k].size : ids;
			uint32_t got = HW_NONE;
			const struct hfield *f = class_field(&h, cl, want[k].name, &got);
			ck_assert_msg(f != NULL, "Leaf.%s not found", want[k].name);
			ck_assert_msg(got == off, "Leaf.%s at %u, want %u", want[k].name, got, off);
			ck_assert_str_eq(heap_str(&h, f->name), want[k].name);
			ck_assert(class_field_at(&h, cl, off) == f);
			ck_assert_uint_eq(inst_bytes_at(&h, li, got, size), want[k].leaf);
		}
		/* Base's own instance: its fields from 0; the hidden Base.b is
		 * found only at its offset in Leaf */
		uint32_t off;
		const struct hfield *f = class_field(&h, cb, "b", &off);
		ck_assert(f != NULL && off == 0 && f->type == T_BYTE && f->off == 0);
		ck_assert_uint_eq(inst_bytes_at(&h, bi, off, 1), 0x22);
		ck_assert(class_field(&h, cb, "o", &off) != NULL && off == 9);
		ck_assert_uint_eq(inst_bytes_at(&h, bi, off, ids), FO);
		f = class_field_at(&h, cl, 9 + ids);
		ck_assert(f != NULL && f->type == T_BYTE && f->off == 0);
		ck_assert_uint_eq(inst_bytes_at(&h, li, 9 + ids, 1), 0x11);
		/* nothing at a byte inside a field, past the end or by another name */
		ck_assert(class_field_at(&h, cl, 1) == NULL);
		ck_assert(class_field_at(&h, cl, 18 + 2 * ids) == NULL);
		ck_assert(class_field(&h, cl, "nosuch", &off) == NULL);
		ck_assert(class_field(&h, cb, "p", &off) == NULL);
		heap_free(&h);
		hw_free(&w);
	}
}
END_TEST

/* The record accessors (format/hprof_record.h) on records whose bytes
 * the test writer laid out: an instance's field bytes, an object array,
 * a primitive array with and without its elements, and what they say
 * of nodes that are none of these. */
START_TEST(test_record_accessors)
{
	enum { STR = 0x8101, BYTES = 0x8103, ARR = 0x8109, NODATA = 0x810b };
	const uint64_t elems[] = { STR, BYTES, 0 };

	for (unsigned ids = 4; ids <= 8; ids += 4) {
		struct hw w;
		struct heap h;
		struct harray a;
		uint32_t len = 0;

		hw_begin(&w, V102, ids);
		hw_jdk_names(&w);
		hw_heap_begin(&w);
		hw_jdk_classes(&w);
		hw_root(&w, 0x01, ARR, 0, 0);
		hw_objarray(&w, ARR, J_OBJARR, elems, 3);
		hw_jdk_string(&w, STR, BYTES);
		hw_primarray(&w, BYTES, T_BYTE, 5, "hello");
		hw_primarray_nodata(&w, NODATA, T_INT, 1000);
		hw_heap_end(&w);
		hw_dump_end(&w);
		open_ok(&w, "records.hprof", SIZE_MAX, &h);
		node_t s = heap_find_id(&h, STR), b = heap_find_id(&h, BYTES);
		node_t arr = heap_find_id(&h, ARR), nd = heap_find_id(&h, NODATA);
		node_t cls = h.cls[class_by_id(&h, J_STRING)].node;
		/* String: value (an id), int hash, byte coder, boolean hashIsZero */
		const uint8_t *d = hprof_inst_data(&h, s, &len);
		ck_assert_ptr_nonnull(d);
		ck_assert_uint_eq(len, ids + 6);
		ck_assert_uint_eq(hprof_ref_at(d, len, 0, ids), BYTES);
		ck_assert_uint_eq(hprof_ref_at(d, ids, 0, ids), BYTES);     /* just fits */
		ck_assert_uint_eq(hprof_ref_at(d, ids - 1, 0, ids), 0);     /* cut short: null */
		ck_assert_uint_eq(hprof_ref_at(d, len, len - ids + 1, ids), 0);
		ck_assert_uint_eq(hprof_ref_at(d, len, UINT32_MAX, ids), 0);
		ck_assert_ptr_null(hprof_inst_data(&h, b, &len));
		ck_assert_ptr_null(hprof_inst_data(&h, arr, &len));
		ck_assert_ptr_null(hprof_inst_data(&h, cls, &len));
		ck_assert_ptr_null(hprof_inst_data(&h, 0, &len));
		ck_assert_ptr_null(hprof_inst_data(&h, h.n, &len));
		/* byte[] "hello" */
		ck_assert_int_eq(hprof_array_data(&h, b, &a), 0);
		ck_assert_uint_eq(a.type, T_BYTE);
		ck_assert_uint_eq(a.len, 5);
		ck_assert_uint_eq(a.esize, 1);
		ck_assert(a.data != NULL && memcmp(a.data, "hello", 5) == 0);
		/* Object[] { STR, BYTES, null }: ids as stored */
		ck_assert_int_eq(hprof_array_data(&h, arr, &a), 0);
		ck_assert_uint_eq(a.type, T_OBJECT);
		ck_assert_uint_eq(a.len, 3);
		ck_assert_uint_eq(a.esize, ids);
		for (unsigned i = 0; i < 3; i++)
			ck_assert_uint_eq(beid(a.data + i * ids, ids), elems[i]);
		/* int[1000] without its elements */
		ck_assert_int_eq(hprof_array_data(&h, nd, &a), 0);
		ck_assert_ptr_null(a.data);
		ck_assert_uint_eq(a.len, 1000);
		ck_assert_uint_eq(a.type, T_INT);
		ck_assert_uint_eq(a.esize, 4);
		/* not arrays */
		ck_assert_int_eq(hprof_array_data(&h, s, &a), -1);
		ck_assert_int_eq(hprof_array_data(&h, cls, &a), -1);
		ck_assert_int_eq(hprof_array_data(&h, 0, &a), -1);
		ck_assert_int_eq(hprof_array_data(&h, h.n, &a), -1);
		/* the writer's allocation trace serial is 0 */
		ck_assert_uint_eq(hprof_node_trace(&h, s), 0);
		heap_free(&h);
		hw_free(&w);
	}
}
END_TEST

/* The JDK-like class set: names in dotted form, Reference and ClassLoader
 * flags down the hierarchy, a Latin-1 String's text. */
START_TEST(test_jdk_classes)
{
	enum { MYLOADER = 0x8001, STR = 0x8101, BYTES = 0x8103, LDR = 0x8105, WR = 0x8107,
	       ARR = 0x8109, STR16 = 0x810b, BYTES16 = 0x810d };
	/* a UTF-16 String (coder 1), little-endian units: 'a', a pair, a
	 * high one alone before 'b', a low one alone, a high one at the end */
	static const uint8_t u16[] = { 'a', 0, 0x3d, 0xd8, 0x00, 0xde, 0x00, 0xd8, 'b', 0, 0x00, 0xdc, 0x3d, 0xd8 };
	const struct hw_field s16[] = { { 0, T_OBJECT, BYTES16 }, { 0, T_INT, 0 }, { 0, T_BYTE, 1 }, { 0, T_BOOLEAN, 0 } };
	const uint64_t elems[] = { STR, WR };
	struct hw w;
	struct heap h;

	hw_begin(&w, V102, 8);
	hw_jdk_names(&w);
	hw_class_name(&w, 20, MYLOADER, "app/MyLoader");
	hw_heap_begin(&w);
	hw_jdk_classes(&w);
	hw_class_dump(&w, MYLOADER, J_LOADER, 0, NULL, 0, NULL, 0, NULL, 0);
	hw_root(&w, 0x01, ARR, 0, 0);
	hw_root(&w, 0x01, LDR, 0, 0);
	hw_objarray(&w, ARR, J_OBJARR, elems, 2);
	hw_jdk_string(&w, STR, BYTES);
	hw_primarray(&w, BYTES, T_BYTE, 5, "hello");
	hw_root(&w, 0x01, STR16, 0, 0);
	hw_instance(&w, STR16, J_STRING, s16, 4);
	hw_primarray(&w, BYTES16, T_BYTE, sizeof u16, u16);
	hw_jdk_loader(&w, LDR, 0);
	hw_jdk_weakref(&w, WR, STR);
	hw_heap_end(&w);
	hw_dump_end(&w);
	open_ok(&w, "jdk.hprof", SIZE_MAX, &h);
	dump_warnings(&h);
	ck_assert_uint_eq(h.warn.n, 0);
	static const struct { uint64_t id; const char *name; uint32_t flags; } want[] = {
		{ J_OBJECT, "java.lang.Object", 0 },
		{ J_CLASS, "java.lang.Class", 0 },
		{ J_STRING, "java.lang.String", 0 },
		{ J_REFERENCE, "java.lang.ref.Reference", HC_REFERENCE },
		{ J_WEAKREF, "java.lang.ref.WeakReference", HC_REFERENCE },
		{ J_LOADER, "java.lang.ClassLoader", HC_LOADER },
		{ MYLOADER, "app.MyLoader", HC_LOADER },
	};
	for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
		uint32_t c = class_by_id(&h, want[k].id);
		ck_assert_msg(c != HW_NONE, "%s missing", want[k].name);
		ck_assert_str_eq(class_name(&h, c), want[k].name);
		ck_assert_uint_eq(h.cls[c].flags & (HC_REFERENCE | HC_LOADER), want[k].flags);
	}
	uint32_t arr = class_by_id(&h, J_OBJARR);
	ck_assert(arr != HW_NONE && (h.cls[arr].flags & HC_ARRAY));
	ck_assert_uint_eq(h.node_class[heap_find_id(&h, ARR)], arr);
	ck_assert_uint_eq(h.node_class[heap_find_id(&h, LDR)], class_by_id(&h, J_LOADER));
	/* String: 12 + value 4 + hash 4 + coder 1 + hashIsZero 1 = 22 -> 24 */
	node_t s = heap_find_id(&h, STR);
	ck_assert_uint_eq(h.node_shallow[s], 24);
	struct sbuf text;
	sbuf_init(&text);
	ck_assert_int_eq(hprof_string_value(&h, s, &text, 100), 0);
	ck_assert_str_eq(text.buf, "hello");
	sbuf_reset(&text);
	ck_assert_int_eq(hprof_string_value(&h, heap_find_id(&h, STR16), &text, 100), 0);
	ck_assert_str_eq(text.buf, "a\xf0\x9f\x98\x80\xef\xbf\xbd" "b\xef\xbf\xbd\xef\xbf\xbd");
	sbuf_free(&text);
	/* the weak reference's referent is a weak edge, the array's a strong one */
	ck_assert_uint_eq(h.nweak, 1);
	ck_assert_uint_eq(h.weak_src[0], heap_find_id(&h, WR));
	ck_assert_uint_eq(h.weak_dst[0], s);
	ck_assert(!out_edge(&h, heap_find_id(&h, WR), s));
	ck_assert(out_edge(&h, heap_find_id(&h, ARR), s));
	heap_free(&h);
	hw_free(&w);
}
END_TEST

START_TEST(test_unknown_top_level_tag_skipped)
{
	struct hw w;
	struct hw_sample s;
	struct heap h;

	hw_begin(&w, V102, 8);
	hw_rec_begin(&w, 0x77); /* not a tag anyone knows: skipped by length */
	hw_u8(&w, 0x0102030405060708ull);
	hw_u1(&w, 0x21); /* bytes that would look like a record, were they read */
	hw_rec_end(&w);
	hw_rec_begin(&w, 0x0d); /* CPU_SAMPLES: known, not read */
	hw_u4(&w, 0);
	hw_u4(&w, 0);
	hw_rec_end(&w);
	hw_rec_begin(&w, 0x0a); /* START_THREAD, empty: odd but harmless */
	hw_rec_end(&w);
	struct hw rest;
	hw_sample(&rest, V102, 8, &s);
	size_t header = HEADER_LEN;
	hw_bytes(&w, rest.b.buf + header, rest.b.len - header);
	open_ok(&w, "tags.hprof", SIZE_MAX, &h);
	/* said, and what it was is not known (a heap segment's tag damaged?):
	 * the dump is whole only up to it */
	ck_warned(&h, "a record of tag 0x77, which HPROF does not define, skipped (9 bytes)", HEADER_LEN);
	ck_assert_uint_eq(h.warn.n, 1);
	ck_assert_uint_eq(h.truncated_at, HEADER_LEN);
	ck_assert_uint_eq(h.n, 16);
	heap_free(&h);
	hw_free(&w);
	hw_free(&rest);
}
END_TEST

/* HEAP_DUMP (0x0c), the one-record form older writers use, reads the same
 * as segments; zero-length segments anywhere are fine. */
START_TEST(test_heap_dump_and_empty_segments)
{
	for (int form = 0; form < 2; form++) {
		struct hw w;
		struct hw_sample s;
		struct heap h;

		hw_sample(&w, V102, 8, &s);
		/* rewrite the segment's tag, or put an empty segment before it */
		struct hw x;
		hw_init(&x, 8);
		hw_bytes(&x, w.b.buf, s.seg);
		if (form == 0) {
			w.b.buf[s.seg] = 0x0c;
		} else {
			hw_heap_begin(&x);
			hw_heap_end(&x);
			hw_rec_begin(&x, 0x0c);
			hw_rec_end(&x);
		}
		hw_bytes(&x, w.b.buf + s.seg, w.b.len - s.seg);
		hw_heap_begin(&x); /* and one after the end record */
		hw_heap_end(&x);
		open_ok(&x, "heapdump.hprof", SIZE_MAX, &h);
		dump_warnings(&h);
		ck_assert_uint_eq(h.warn.n, 0);
		ck_assert_uint_eq(h.n, 16);
		ck_assert_uint_eq(h.retained[heap_find_id(&h, S_A)], 216);
		heap_free(&h);
		hw_free(&x);
		hw_free(&w);
	}
}
END_TEST

START_TEST(test_truncated_mid_record)
{
	struct hw w;
	struct hw_sample s;
	struct heap h;

	hw_sample(&w, V102, 8, &s);
	/* cut in the middle of A's instance record: the segment's length runs
	 * past the end, and A's record past what is left */
	open_ok(&w, "cut.hprof", s.a_at + 10, &h);
	ck_warned(&h, "runs past the end of the file", s.seg);
	ck_warned(&h, "runs past the end of its segment", s.a_at);
	ck_assert(heap_find_id(&h, S_A) == HW_NONE);
	ck_assert(heap_find_id(&h, S_NODE) != HW_NONE); /* what came before is there */
	heap_free(&h);
	/* cut right after A: A is there, B is not */
	open_ok(&w, "cut2.hprof", s.after_a + 3, &h);
	ck_warned(&h, NULL, s.seg);
	ck_warned(&h, NULL, s.after_a);
	ck_assert(heap_find_id(&h, S_A) != HW_NONE);
	ck_assert(heap_find_id(&h, S_B) == HW_NONE);
	heap_free(&h);
	hw_free(&w);
}
END_TEST

/* Cut between two records, a dump reads whole but for what followed:
 * the file says so only by what is missing, HEAP DUMP END after the
 * segments (the JDK's and Android's dumpers end with it), or the heap
 * itself. Each is a dump cut short (truncated_at, a warning at the
 * file's end), the whole one is not. */
START_TEST(test_truncated_between_records)
{
	struct hw w;
	struct hw_sample s;
	struct heap h;

	hw_sample(&w, V102, 8, &s);
	size_t len = w.b.len;
	ck_assert(len > 9 && (uint8_t)w.b.buf[len - 9] == 0x2c); /* the sample ends so */
	open_ok(&w, "whole.hprof", SIZE_MAX, &h);
	ck_assert_uint_eq(h.truncated_at, 0);
	ck_assert_uint_eq(h.warn.n, 0);
	heap_free(&h);
	open_ok(&w, "noend.hprof", len - 9, &h);
	ck_warned(&h, "without HEAP DUMP END", len - 9);
	ck_assert_uint_eq(h.truncated_at, len - 9);
	ck_assert(heap_find_id(&h, S_B) != HW_NONE); /* every record there is read */
	heap_free(&h);
	open_ok(&w, "noheap.hprof", s.seg, &h);
	ck_warned(&h, "before any heap dump record", s.seg);
	ck_assert_uint_eq(h.truncated_at, s.seg);
	heap_free(&h);
	hw_free(&w);
}
END_TEST

START_TEST(test_truncated_in_header_and_strings)
{
	struct hw w;
	struct hw_sample s;
	struct heap h;
	struct sbuf err;

	hw_sample(&w, V102, 8, &s);
	/* the header cut, in the version and in the id size: an error naming
	 * the file and the offset */
	for (size_t len = 10; len <= 30; len += 10) {
		char *path = hw_write(&w, "head.hprof", len);
		ck_assert_int_eq(open_file(path, &h, &err), -1);
		ck_assert_msg(strstr(err.buf, path) && strstr(err.buf, "offset"), "%s", err.buf);
		sbuf_free(&err);
		free(path);
	}
	/* cut inside the first UTF8 record (after its 9-byte record header) */
	size_t first = HEADER_LEN;
	open_ok(&w, "utf8.hprof", first + 12, &h);
	ck_warned(&h, "runs past the end of the file", first);
	ck_assert_uint_eq(h.n, 1); /* nothing but the virtual root */
	/* and that the heap is not there: the cut came before it */
	ck_warned(&h, "the file is cut short before any heap dump record: no object in it", first + 12);
	heap_free(&h);
	/* cut inside a record header */
	open_ok(&w, "rechead.hprof", first + 4, &h);
	ck_warned(&h, "truncated record header", first);
	ck_warned(&h, "the file is cut short before any heap dump record", first + 4);
	heap_free(&h);
	/* cut inside the heap: it has objects, and no such warning */
	open_ok(&w, "inheap.hprof", w.b.len - 12, &h);
	ck_assert(h.n > 1);
	for (size_t i = 0; i < h.warn.n; i++)
		ck_assert_msg(strstr(h.warn.msg[i], "before any heap dump record") == NULL, "%s", h.warn.msg[i]);
	heap_free(&h);
	hw_free(&w);
}
END_TEST

/* A last record whose length claims more than the file has. */
START_TEST(test_record_length_past_eof)
{
	struct hw w;
	struct hw_sample s;
	struct heap h;

	hw_sample(&w, V102, 8, &s);
	size_t at = hw_pos(&w);
	hw_u1(&w, 0x01);
	hw_u4(&w, 0);
	hw_u4(&w, 1000);
	hw_id(&w, 0x9999);
	hw_bytes(&w, "abc", 3);
	open_ok(&w, "reclen.hprof", SIZE_MAX, &h);
	ck_warned(&h, NULL, at);
	ck_assert_uint_eq(h.n, 16); /* all that came before */
	heap_free(&h);
	/* a segment that claims 4 GB: read as far as the file goes */
	hw_truncate(&w, at);
	at = hw_pos(&w);
	hw_u1(&w, 0x1c);
	hw_u4(&w, 0);
	hw_u4(&w, 0xffffffffu);
	hw_instance(&w, 0x9001, S_OBJ, NULL, 0);
	hw_root(&w, 0x01, 0x9001, 0, 0);
	open_ok(&w, "seglen.hprof", SIZE_MAX, &h);
	ck_warned(&h, NULL, at);
	ck_assert_uint_eq(h.n, 17);
	ck_assert(in_roots(&h, heap_find_id(&h, 0x9001)));
	heap_free(&h);
	hw_free(&w);
}
END_TEST

/* The top-level records of an HPROF file, walked here (the test's own
 * reading): each one's offset, tag and length, up to max. */
struct toprec { size_t at; uint8_t tag; uint32_t len; };

static size_t top_records(const uint8_t *b, size_t n, struct toprec *out, size_t max)
{
	size_t p = strlen((const char *)b) + 1 + 4 + 8, k = 0;

	while (p + 9 <= n && k < max) {
		uint32_t len = (uint32_t)b[p + 5] << 24 | (uint32_t)b[p + 6] << 16 | (uint32_t)b[p + 7] << 8 | b[p + 8];
		out[k++] = (struct toprec){ p, b[p], len };
		p += 9 + (size_t)len;
	}
	return k;
}

/* A copy of b (n bytes) with one change, opened: the heap, its
 * warnings (all of them: -v's), classes in h. */
static void open_changed(const uint8_t *b, size_t n, size_t at, uint32_t len, int tag, const char *name,
			 struct heap *h)
{
	uint8_t *c = xmalloc(n);
	memcpy(c, b, n);
	if (tag >= 0)
		c[at] = (uint8_t)tag;
	else
		for (int i = 0; i < 4; i++)
			c[at + 5 + (size_t)i] = (uint8_t)(len >> (24 - 8 * i));
	char *path = xasprintf("%s/%s", hw_tmpdir(), name);
	FILE *f = fopen(path, "wb");
	ck_assert(f != NULL && fwrite(c, 1, n, f) == n && fclose(f) == 0);
	struct sbuf err;
	ck_assert_msg(open_file(path, h, &err) == 0, "%s: %s", name, err.buf);
	sbuf_free(&err);
	free(path);
	free(c);
}

/* One damaged length or tag in a jcmd dump lost the rest of it: a name's
 * record's length with a high bit set read the whole dump as that name
 * (0 objects, "truncated" at the file's end); a heap segment's, read to
 * the file's end, took the records after it for sub-records (1799
 * objects of 42569). Where records go on in good order after the damage
 * (as this test's own walk of the file finds them), they are read: every
 * object, the dump whole, a warning naming the damage and where reading
 * went on; a segment made shorter or a record's tag damaged loses its
 * objects (fewer), and the dump is whole only up to the damage. */
START_TEST(test_damaged_length_resync)
{
	char path[512];
	size_t n;
	struct heap h, whole;
	static struct toprec rec[1 << 16];

	workload_dump("Workload", "coops", "", path, sizeof path);
	uint8_t *b = (uint8_t *)file_bytes(path, &n);
	size_t nrec = top_records(b, n, rec, sizeof rec / sizeof *rec);
	ck_assert(nrec > 100 && nrec < sizeof rec / sizeof *rec);
	size_t utf = 3, seg = SIZE_MAX;
	for (size_t i = 0; i < nrec && seg == SIZE_MAX; i++)
		if (rec[i].tag == 0x1c && i + 1 < nrec && rec[i + 1].tag == 0x1c)
			seg = i;
	ck_assert(rec[utf].tag == 0x01 && seg != SIZE_MAX);
	struct sbuf err;
	ck_assert_msg(open_file(path, &whole, &err) == 0, "%s", err.buf);
	sbuf_free(&err);
	ck_assert_uint_eq(whole.truncated_at, 0);

	/* a name's length, a high byte set: that name lost, nothing else */
	open_changed(b, n, rec[utf].at, rec[utf].len | 0x40000000u, -1, "utf8len.hprof", &h);
	char *want = xasprintf("is damaged: records go on in good order at offset %zu; what lies between skipped",
			       rec[utf + 1].at);
	ck_warned(&h, want, rec[utf].at);
	free(want);
	ck_assert_uint_eq(h.n, whole.n);
	ck_assert_uint_eq(h.truncated_at, 0);
	heap_free(&h);

	/* a heap segment's length grown past the file: its objects all read */
	open_changed(b, n, rec[seg].at, rec[seg].len | 0x40000000u, -1, "seglen.hprof", &h);
	want = xasprintf("is damaged: records go on in good order at offset %zu; its objects read up to there",
			 rec[seg + 1].at);
	ck_warned(&h, want, rec[seg].at);
	free(want);
	ck_assert_uint_eq(h.n, whole.n);
	ck_assert_uint_eq(h.nedges, whole.nedges);
	ck_assert_uint_eq(h.truncated_at, 0);
	heap_free(&h);

	/* shorter by 1000 bytes: what those held is lost, and said */
	open_changed(b, n, rec[seg].at, rec[seg].len - 1000, -1, "segshort.hprof", &h);
	ck_assert(h.n < whole.n && h.n > whole.n / 2);
	ck_assert(h.truncated_at > rec[seg].at && h.truncated_at < rec[seg + 1].at);
	heap_free(&h);

	/* a segment's tag damaged: that segment lost, the rest read */
	open_changed(b, n, rec[seg].at, 0, 0x77, "segtag.hprof", &h);
	want = xasprintf("a record of tag 0x77, which HPROF does not define, skipped (%u bytes)", rec[seg].len);
	ck_warned(&h, want, rec[seg].at);
	free(want);
	ck_assert(h.n < whole.n && h.n > whole.n / 2);
	ck_assert_uint_eq(h.truncated_at, rec[seg].at);
	heap_free(&h);
	heap_free(&whole);
	free(b);
}
END_TEST

START_TEST(test_sub_record_length_past_segment)
{
	struct hw w;
	struct heap h;

	hw_begin(&w, V102, 8);
	hw_sample_classes(&w);
	hw_heap_begin(&w);
	hw_class_dump(&w, S_OBJ, 0, 0, NULL, 0, NULL, 0, NULL, 0);
	size_t bad = hw_pos(&w);
	hw_u1(&w, 0x21); /* an instance that claims 1000 bytes of fields */
	hw_id(&w, 0x5001);
	hw_u4(&w, 0);
	hw_id(&w, S_OBJ);
	hw_u4(&w, 1000);
	hw_u8(&w, 0);
	hw_heap_end(&w);
	/* a second, good segment after it is still read */
	hw_heap_begin(&w);
	hw_instance(&w, 0x5003, S_OBJ, NULL, 0);
	size_t bad2 = hw_pos(&w);
	hw_u1(&w, 0x22); /* an array of 2^30 elements */
	hw_id(&w, 0x5005);
	hw_u4(&w, 0);
	hw_u4(&w, 1u << 30);
	hw_id(&w, S_OBJ);
	hw_heap_end(&w);
	hw_heap_begin(&w);
	size_t bad3 = hw_pos(&w);
	hw_root(&w, 0x03, 0x5003, 1, 2);
	hw_truncate(&w, hw_pos(&w) - 3); /* a root cut short at the segment's end */
	hw_heap_end(&w);
	hw_heap_begin(&w);
	hw_root(&w, 0x05, 0x5003, 0, 0);
	hw_heap_end(&w);
	open_ok(&w, "sub.hprof", SIZE_MAX, &h);
	ck_warned(&h, "runs past the end of its segment", bad);
	ck_warned(&h, NULL, bad2);
	ck_warned(&h, NULL, bad3);
	ck_assert(heap_find_id(&h, 0x5001) == HW_NONE);
	ck_assert(heap_find_id(&h, 0x5005) == HW_NONE);
	ck_assert(heap_find_id(&h, 0x5003) != HW_NONE);
	ck_assert(in_roots(&h, heap_find_id(&h, 0x5003)));
	heap_free(&h);
	hw_free(&w);
}
END_TEST

/* Count fields near 2^32 (the probe's class of input): an array of
 * 2^32 - 1 longs (32 GB by its count), an object array of 2^32 - 2
 * elements, an instance claiming 2^32 - 1 bytes of fields, a trace of
 * 2^32 - 1 frames; each is a warning at its offset, never an
 * allocation by the count, and what follows in a later segment is read. */
START_TEST(test_counts_near_2_32)
{
	struct hw w;
	struct heap h;

	hw_begin(&w, V102, 8);
	hw_sample_classes(&w);
	size_t bad_trace = hw_pos(&w);
	hw_rec_begin(&w, 0x05); /* TRACE claiming 2^32 - 1 frames, holding one */
	hw_u4(&w, 7);
	hw_u4(&w, 1);
	hw_u4(&w, 0xffffffffu);
	hw_id(&w, 0x77);
	hw_rec_end(&w);
	hw_heap_begin(&w);
	hw_class_dump(&w, S_OBJ, 0, 0, NULL, 0, NULL, 0, NULL, 0);
	hw_instance(&w, 0x6001, S_OBJ, NULL, 0);
	size_t bad_prim = hw_pos(&w);
	hw_u1(&w, 0x23); /* PRIMITIVE ARRAY: 2^32 - 1 longs */
	hw_id(&w, 0x6003);
	hw_u4(&w, 0);
	hw_u4(&w, 0xffffffffu);
	hw_u1(&w, 11);
	hw_u8(&w, 42);
	hw_heap_end(&w);
	hw_heap_begin(&w);
	size_t bad_objarr = hw_pos(&w);
	hw_u1(&w, 0x22); /* OBJECT ARRAY: 2^32 - 2 elements */
	hw_id(&w, 0x6005);
	hw_u4(&w, 0);
	hw_u4(&w, 0xfffffffeu);
	hw_id(&w, S_OBJ);
	hw_id(&w, 0x6001);
	hw_heap_end(&w);
	hw_heap_begin(&w);
	size_t bad_inst = hw_pos(&w);
	hw_u1(&w, 0x21); /* INSTANCE claiming 2^32 - 1 bytes of fields */
	hw_id(&w, 0x6007);
	hw_u4(&w, 0);
	hw_id(&w, S_OBJ);
	hw_u4(&w, 0xffffffffu);
	hw_u8(&w, 0);
	hw_heap_end(&w);
	hw_heap_begin(&w);
	hw_instance(&w, 0x6009, S_OBJ, NULL, 0);
	hw_root(&w, 0x05, 0x6009, 0, 0);
	hw_heap_end(&w);
	open_ok(&w, "counts.hprof", SIZE_MAX, &h);
	ck_warned(&h, NULL, bad_prim);
	ck_warned(&h, NULL, bad_objarr);
	ck_warned(&h, NULL, bad_inst);
	(void)bad_trace; /* a trace's frames are read by their record's length: no warning needed */
	ck_assert(heap_find_id(&h, 0x6001) != HW_NONE);
	ck_assert(heap_find_id(&h, 0x6003) == HW_NONE);
	ck_assert(heap_find_id(&h, 0x6005) == HW_NONE);
	ck_assert(heap_find_id(&h, 0x6007) == HW_NONE);
	ck_assert(heap_find_id(&h, 0x6009) != HW_NONE);
	ck_assert(in_roots(&h, heap_find_id(&h, 0x6009)));
	for (node_t v = 1; v < h.n; v++)
		ck_assert_uint_lt(h.node_shallow[v], 1u << 20);
	heap_free(&h);
	hw_free(&w);
}
END_TEST

START_TEST(test_unknown_sub_tag)
{
	struct hw w;
	struct heap h;

	hw_begin(&w, V102, 8);
	hw_sample_classes(&w);
	hw_heap_begin(&w);
	hw_class_dump(&w, S_OBJ, 0, 0, NULL, 0, NULL, 0, NULL, 0);
	hw_instance(&w, 0x5001, S_OBJ, NULL, 0);
	size_t bad = hw_pos(&w);
	hw_u1(&w, 0x55);
	hw_u8(&w, 0);
	hw_instance(&w, 0x5003, S_OBJ, NULL, 0); /* lost with the rest of the segment */
	hw_heap_end(&w);
	hw_heap_begin(&w); /* the next segment is read again */
	hw_instance(&w, 0x5005, S_OBJ, NULL, 0);
	hw_heap_end(&w);
	open_ok(&w, "subtag.hprof", SIZE_MAX, &h);
	ck_warned(&h, "0x55", bad);
	ck_assert(heap_find_id(&h, 0x5001) != HW_NONE);
	ck_assert(heap_find_id(&h, 0x5003) == HW_NONE);
	ck_assert(heap_find_id(&h, 0x5005) != HW_NONE);
	heap_free(&h);
	hw_free(&w);
}
END_TEST

START_TEST(test_dangling_and_duplicates)
{
	struct hw w;
	struct heap h;
	const struct hw_field dangle[] = { { 0, 2, 0xdead1 }, { 0, 2, 0 }, { 0, 10, 0 } };
	const struct hw_field first[] = { { 0, 2, 0 }, { 0, 2, 0 }, { 0, 10, 1 } };
	const struct hw_field second[] = { { 0, 2, 0 }, { 0, 2, 0 }, { 0, 10, 2 } };
	static const struct hw_field node[] = { { F_NEXT, 2, 0 }, { F_OTHER, 2, 0 }, { F_VAL, 10, 0 } };

	hw_begin(&w, V102, 8);
	hw_sample_classes(&w);
	hw_heap_begin(&w);
	hw_class_dump(&w, S_OBJ, 0, 0, NULL, 0, NULL, 0, NULL, 0);
	hw_class_dump(&w, S_NODE, S_OBJ, 0, NULL, 0, NULL, 0, node, 3);
	size_t d_at = hw_pos(&w);
	hw_instance(&w, 0x6001, S_NODE, dangle, 3);
	size_t first_at = hw_pos(&w);
	hw_instance(&w, 0x6003, S_NODE, first, 3);
	size_t second_at = hw_pos(&w);
	hw_instance(&w, 0x6003, S_NODE, second, 3);
	hw_heap_end(&w);
	hw_heap_begin(&w); /* a zero-length segment: nothing to say */
	hw_heap_end(&w);
	hw_dump_end(&w);
	open_ok(&w, "dup.hprof", SIZE_MAX, &h);
	dump_warnings(&h);
	ck_warned(&h, "0xdead1", d_at);
	ck_assert_uint_eq(h.dangling_refs, 1);
	ck_warned(&h, "0x6003", second_at);
	ck_assert_uint_eq(h.n, 1 + 2 + 2);
	node_t v = heap_find_id(&h, 0x6003);
	ck_assert_uint_eq(h.node_off[v], first_at); /* the first one is kept */
	struct got g = { 0 };
	hprof_fields(&h, v, collect, &g);
	ck_assert_int_eq(g.n, 3);
	ck_assert_int_eq(g.v[2].v.i, 1);
	ck_assert_uint_eq(h.warn.n, 2);
	/* the dangling field is no edge: 0x6001's only one is to its class */
	node_t d = heap_find_id(&h, 0x6001);
	ck_assert_uint_eq(h.out_start[d + 1] - h.out_start[d], 1);
	ck_assert_uint_eq(h.out[h.out_start[d]], heap_find_id(&h, S_NODE));
	heap_free(&h);
	hw_free(&w);
}
END_TEST

/* HotSpot's CDS archive: one Object[], held by a JNI global, refers to
 * the mirrors of archived classes, and the dump leaves out those of
 * classes not loaded. Its missing references are expected (counted, no
 * warning); the same array not a root, held by a root of another kind,
 * or of another class, an instance's missing reference beside it, or a
 * second such array's, is warned of. */
START_TEST(test_dangling_expected)
{
	struct hw w;
	struct heap h;
	const uint64_t elems[] = { 0x6009, 0xdead3, 0, 0xdead5 }, second[] = { 0xdead7, 0xdead9 };
	const struct hw_field inst[] = { { 0, T_OBJECT, 0xdead1 }, { 0, T_OBJECT, 0 }, { 0, T_INT, 0 } };
	static const struct hw_field node[] = { { F_NEXT, 2, 0 }, { F_OTHER, 2, 0 }, { F_VAL, 10, 0 } };
	enum { OBJARR = 0x71, STRARR = 0x73 };

	/* case 0: the archive's array alone; 1: no root holds it; 2: a
	 * Java frame does; 3: a String[]; 4: an instance's missing
	 * reference as well; 5: a second Object[] a JNI global holds */
	for (int c = 0; c < 6; c++) {
		hw_begin(&w, V102, 8);
		hw_sample_classes(&w);
		hw_class_name(&w, 7, OBJARR, "[Ljava/lang/Object;");
		hw_class_name(&w, 8, STRARR, "[Ljava/lang/String;");
		hw_heap_begin(&w);
		hw_class_dump(&w, S_OBJ, 0, 0, NULL, 0, NULL, 0, NULL, 0);
		hw_class_dump(&w, OBJARR, S_OBJ, 0, NULL, 0, NULL, 0, NULL, 0);
		hw_class_dump(&w, STRARR, S_OBJ, 0, NULL, 0, NULL, 0, NULL, 0);
		hw_class_dump(&w, S_NODE, S_OBJ, 0, NULL, 0, NULL, 0, node, 3);
		hw_objarray(&w, 0x6003, c == 3 ? STRARR : OBJARR, elems, 4);
		hw_instance(&w, 0x6009, S_OBJ, NULL, 0);
		size_t inst_at = hw_pos(&w);
		if (c == 4)
			hw_instance(&w, 0x6001, S_NODE, inst, 3);
		if (c == 5) {
			hw_objarray(&w, 0x6005, OBJARR, second, 2);
			hw_root(&w, 0x01, 0x6005, 0, 0);
		}
		if (c == 2)
			hw_root(&w, 0x03, 0x6003, 1, 0); /* Java frame */
		else if (c != 1)
			hw_root(&w, 0x01, 0x6003, 0, 0); /* JNI global */
		hw_root(&w, 0x01, 0x6009, 0, 0);
		hw_heap_end(&w);
		hw_dump_end(&w);
		open_ok(&w, "archive.hprof", SIZE_MAX, &h);
		dump_warnings(&h);
		ck_assert_msg(h.dangling_refs == (uint64_t)(2 + (c == 4) + 2 * (c == 5)), "case %d: %llu dangling", c,
			      (unsigned long long)h.dangling_refs);
		uint64_t want = c == 0 || c >= 4 ? 2 : 0;
		ck_assert_msg(h.dangling_expected == want, "case %d: %llu expected, not %llu", c,
			      (unsigned long long)h.dangling_expected, (unsigned long long)want);
		ck_assert_msg(h.warn.n == (c == 0 ? 0 : c == 4 ? 1 : 2), "case %d: %zu warnings", c, h.warn.n);
		if (c == 4)
			ck_warned(&h, "0xdead1", inst_at);
		else if (c == 5)
			ck_assert(strstr(h.warn.msg[0], "0xdead7") && strstr(h.warn.msg[1], "0xdead9"));
		else if (c != 0)
			ck_assert(strstr(h.warn.msg[0], "0xdead3") && strstr(h.warn.msg[1], "0xdead5"));
		/* the array keeps its references to what the dump has */
		node_t a = heap_find_id(&h, 0x6003);
		ck_assert_uint_eq(h.out_start[a + 1] - h.out_start[a], 2);
		heap_free(&h);
		hw_free(&w);
	}
}
END_TEST

/* Dangling references from every kind of record: an instance field, an
 * array element, a static field; a root on a missing object. */
START_TEST(test_dangling_everywhere)
{
	struct hw w;
	struct heap h;
	const struct hw_field so[] = { { F_STATIC + 16, T_OBJECT, 0xdead5 } };
	const struct hw_field inst[] = { { 0, T_OBJECT, 0xdead1 }, { 0, T_OBJECT, 0x6009 },
					 { 0, T_INT, 0 } };
	static const struct hw_field node[] = { { F_NEXT, 2, 0 }, { F_OTHER, 2, 0 }, { F_VAL, 10, 0 } };
	const uint64_t elems[] = { 0x6009, 0xdead3, 0 };
	enum { OBJARR = 0x71 };

	hw_begin(&w, V102, 8);
	hw_sample_classes(&w);
	hw_class_name(&w, 7, OBJARR, "[Ljava/lang/Object;");
	hw_heap_begin(&w);
	hw_class_dump(&w, S_OBJ, 0, 0, NULL, 0, NULL, 0, NULL, 0);
	hw_class_dump(&w, OBJARR, S_OBJ, 0, NULL, 0, NULL, 0, NULL, 0);
	hw_class_dump(&w, S_NODE, S_OBJ, 0, NULL, 0, NULL, 0, node, 3);
	size_t cls_at = hw_pos(&w);
	hw_class_dump(&w, S_HOLDER, S_OBJ, 0, NULL, 0, so, 1, NULL, 0);
	size_t inst_at = hw_pos(&w);
	hw_instance(&w, 0x6001, S_NODE, inst, 3);
	size_t arr_at = hw_pos(&w);
	hw_objarray(&w, 0x6003, OBJARR, elems, 3);
	hw_instance(&w, 0x6009, S_OBJ, NULL, 0);
	size_t root_at = hw_pos(&w);
	hw_root(&w, 0x01, 0xdead7, 0, 0);
	hw_heap_end(&w);
	open_ok(&w, "dangling.hprof", SIZE_MAX, &h);
	dump_warnings(&h);
	ck_assert_uint_eq(h.dangling_refs, 3);
	ck_warned(&h, "0xdead5", cls_at);
	ck_warned(&h, "0xdead1", inst_at);
	ck_warned(&h, "0xdead3", arr_at);
	ck_warned(&h, "0xdead7", root_at);
	/* the good references are there */
	node_t t = heap_find_id(&h, 0x6009);
	ck_assert(t != HW_NONE);
	ck_assert(out_edge(&h, heap_find_id(&h, 0x6001), t));
	ck_assert(out_edge(&h, heap_find_id(&h, 0x6003), t));
	heap_free(&h);
	hw_free(&w);
}
END_TEST

/* Lines of text holding needle. */
static int lines_with(const char *text, const char *needle)
{
	int n = 0;

	for (const char *p = text; (p = strstr(p, needle)) != NULL; p += strlen(needle))
		n++;
	return n;
}

/* A command's standard error (its stdout thrown away). */
static char *stderr_of(const char *args)
{
	char cmd[2048];
	int st;

	snprintf(cmd, sizeof cmd, "%s %s 2>&1 >/dev/null", heapwalk(), args);
	char *out = run(cmd, &st);
	ck_assert_msg(st == 0, "%s: %s", cmd, out);
	return out;
}

/* Four warnings (three dangling references, a root not in the dump):
 * a command says them in one line, read from the dump or the cache; -v
 * says each, -q none, info lists them; info reads the same with the
 * cache and without it, whatever path the cache was made through. */
START_TEST(test_warnings_said_once)
{
	struct hw w;
	const struct hw_field inst[] = { { 0, T_OBJECT, 0xdead1 }, { 0, T_OBJECT, 0x6009 },
					 { 0, T_INT, 0 } };
	static const struct hw_field node[] = { { F_NEXT, 2, 0 }, { F_OTHER, 2, 0 }, { F_VAL, 10, 0 } };
	const uint64_t elems[] = { 0x6009, 0xdead3, 0xdead5 };
	enum { OBJARR = 0x71 };
	char args[1400], other[1200];

	hw_begin(&w, V102, 8);
	hw_sample_classes(&w);
	hw_class_name(&w, 7, OBJARR, "[Ljava/lang/Object;");
	hw_heap_begin(&w);
	hw_class_dump(&w, S_OBJ, 0, 0, NULL, 0, NULL, 0, NULL, 0);
	hw_class_dump(&w, OBJARR, S_OBJ, 0, NULL, 0, NULL, 0, NULL, 0);
	hw_class_dump(&w, S_NODE, S_OBJ, 0, NULL, 0, NULL, 0, node, 3);
	hw_instance(&w, 0x6001, S_NODE, inst, 3);
	hw_objarray(&w, 0x6003, OBJARR, elems, 3);
	hw_instance(&w, 0x6009, S_OBJ, NULL, 0);
	hw_root(&w, 0x01, 0x6001, 0, 0);
	hw_root(&w, 0x03, 0x6003, 1, 0); /* a JNI global's Object[] would be HotSpot's archive */
	hw_root(&w, 0x01, 0xdead7, 0, 0);
	hw_heap_end(&w);
	hw_dump_end(&w);
	char *path = hw_write(&w, "warned.hprof", SIZE_MAX);
	hw_free(&w);
	for (int cached = 0; cached < 2; cached++) { /* the dump, then its cache */
		snprintf(args, sizeof args, "classes '%s'", path);
		char *err = stderr_of(args);
		ck_assert_msg(lines_with(err, "\n") == 1 && lines_with(err, "4 warnings while reading it") == 1,
			      "run %d: %s", cached, err);
		ck_assert_msg(strstr(err, "-v, or the info command, lists them") != NULL, "%s", err);
		free(err);
	}
	snprintf(args, sizeof args, "-v classes '%s'", path);
	char *err = stderr_of(args);
	ck_assert_msg(lines_with(err, "heapwalk: warning: ") == 4, "-v: %s", err);
	ck_assert(strstr(err, "0xdead1") && strstr(err, "0xdead3") && strstr(err, "0xdead5") &&
		  strstr(err, "0xdead7"));
	/* the one line quotes the first of them, as -v says it (the path once) */
	const char *v1 = strstr(err, ": offset ");
	ck_assert_ptr_nonnull(v1);
	char *first = strndup(v1 + 2, strcspn(v1 + 2, "\n"));
	free(err);
	snprintf(args, sizeof args, "classes '%s'", path);
	err = stderr_of(args);
	char *want = xasprintf("; the first: %s\n", first);
	ck_assert_msg(strstr(err, want) != NULL, "%s\nwant %s", err, want);
	free(want);
	free(first);
	free(err);
	snprintf(args, sizeof args, "-q classes '%s'", path);
	err = stderr_of(args);
	ck_assert_str_eq(err, "");
	free(err);
	/* info lists them, the same from the cache made through another path */
	char *dir = strndup(path, (size_t)(strrchr(path, '/') - path));
	snprintf(other, sizeof other, "%s/./warned.hprof", dir);
	snprintf(args, sizeof args, "%s -q info '%s'", heapwalk(), other);
	int st;
	char *cached = run(args, &st);
	snprintf(args, sizeof args, "%s -q --no-cache info '%s'", heapwalk(), other);
	char *fresh = run(args, &st);
	ck_assert_str_eq(cached, fresh);
	ck_assert_int_eq(lines_with(fresh, "\nwarning: "), 4);
	ck_assert_msg(strstr(fresh, "/./warned.hprof: offset") != NULL, "%s", fresh);
	free(cached);
	free(fresh);
	free(dir);
	free(path);
}
END_TEST

/* The same class dumped twice: the first is kept, like any object. */
START_TEST(test_duplicate_class_dump)
{
	struct hw w;
	struct heap h;
	static const struct hw_field node[] = { { F_NEXT, 2, 0 }, { F_OTHER, 2, 0 }, { F_VAL, 10, 0 } };
	const struct hw_field v[] = { { 0, 2, 0x6003 }, { 0, 2, 0 }, { 0, 10, 5 } };

	hw_begin(&w, V102, 8);
	hw_sample_classes(&w);
	hw_heap_begin(&w);
	hw_class_dump(&w, S_OBJ, 0, 0, NULL, 0, NULL, 0, NULL, 0);
	hw_class_dump(&w, S_NODE, S_OBJ, 0, NULL, 0, NULL, 0, node, 3);
	size_t second = hw_pos(&w);
	hw_class_dump(&w, S_NODE, S_OBJ, 0, NULL, 0, NULL, 0, NULL, 0); /* no fields */
	hw_instance(&w, 0x6001, S_NODE, v, 3);
	hw_instance(&w, 0x6003, S_OBJ, NULL, 0);
	hw_root(&w, 0x01, 0x6001, 0, 0);
	hw_heap_end(&w);
	open_ok(&w, "dupclass.hprof", SIZE_MAX, &h);
	ck_warned(&h, "0x21", second);
	int n = 0;
	for (uint32_t c = 0; c < h.ncls; c++)
		n += h.cls[c].id == S_NODE;
	ck_assert_int_eq(n, 1);
	uint32_t c = class_by_id(&h, S_NODE);
	ck_assert_uint_eq(h.cls[c].nfields, 3);
	node_t a = heap_find_id(&h, 0x6001);
	ck_assert_uint_eq(h.node_class[a], c);
	ck_assert(out_edge(&h, a, heap_find_id(&h, 0x6003))); /* read with the first's fields */
	heap_free(&h);
	hw_free(&w);
}
END_TEST

/* Objects whose class was never dumped are kept, with a warning. */
START_TEST(test_missing_class)
{
	struct hw w;
	struct heap h;
	const struct hw_field v[] = { { 0, T_INT, 1 } };
	const uint64_t e[] = { 0x6001 };

	hw_begin(&w, V102, 8);
	hw_sample_classes(&w);
	hw_heap_begin(&w);
	hw_class_dump(&w, S_OBJ, 0, 0, NULL, 0, NULL, 0, NULL, 0);
	size_t inst_at = hw_pos(&w);
	hw_instance(&w, 0x6001, 0x7777, v, 1);
	size_t arr_at = hw_pos(&w);
	hw_objarray(&w, 0x6003, 0x7779, e, 1);
	hw_root(&w, 0x01, 0x6003, 0, 0);
	hw_heap_end(&w);
	open_ok(&w, "noclass.hprof", SIZE_MAX, &h);
	ck_assert_uint_eq(h.n, 1 + 1 + 2);
	ck_warned(&h, "0x7777", inst_at);
	ck_warned(&h, "0x7779", arr_at);
	node_t a = heap_find_id(&h, 0x6001), arr = heap_find_id(&h, 0x6003);
	ck_assert(a != HW_NONE && arr != HW_NONE);
	ck_assert(out_edge(&h, arr, a));
	ck_assert_uint_eq(h.idom[a], arr);
	heap_free(&h);
	hw_free(&w);
}
END_TEST

/* Two classes each other's superclass: cut with a warning, no endless walk. */
START_TEST(test_superclass_cycle)
{
	struct hw w;
	struct heap h;
	static const struct hw_field f1[] = { { F_NEXT, T_OBJECT, 0 } };
	static const struct hw_field f2[] = { { F_OTHER, T_OBJECT, 0 } };
	const struct hw_field v[] = { { 0, T_OBJECT, 0x6003 }, { 0, T_OBJECT, 0x6003 } };

	hw_begin(&w, V102, 8);
	hw_sample_classes(&w);
	hw_heap_begin(&w);
	size_t c1 = hw_pos(&w);
	hw_class_dump(&w, S_NODE, S_HOLDER, 0, NULL, 0, NULL, 0, f1, 1);
	size_t c2 = hw_pos(&w);
	hw_class_dump(&w, S_HOLDER, S_NODE, 0, NULL, 0, NULL, 0, f2, 1);
	hw_instance(&w, 0x6001, S_NODE, v, 2);
	hw_instance(&w, 0x6003, S_NODE, v, 2);
	hw_root(&w, 0x01, 0x6001, 0, 0);
	hw_heap_end(&w);
	open_ok(&w, "cycle.hprof", SIZE_MAX, &h);
	dump_warnings(&h);
	ck_assert_msg(warned(&h, NULL, c1) || warned(&h, NULL, c2),
		      "no warning at offset %zu or %zu", c1, c2);
	ck_assert(heap_find_id(&h, 0x6001) != HW_NONE);
	struct got g = { 0 };
	ck_assert_int_le(hprof_fields(&h, heap_find_id(&h, 0x6001), collect, &g), 2);
	heap_free(&h);
	hw_free(&w);
}
END_TEST

/* A weak referent to a missing object is a dangling reference too. */
START_TEST(test_dangling_referent)
{
	struct hw w;
	struct heap h;

	hw_begin(&w, V102, 8);
	hw_jdk_names(&w);
	hw_heap_begin(&w);
	hw_jdk_classes(&w);
	size_t at = hw_pos(&w);
	hw_jdk_weakref(&w, 0x6001, 0xdead9);
	hw_root(&w, 0x01, 0x6001, 0, 0);
	hw_heap_end(&w);
	open_ok(&w, "referent.hprof", SIZE_MAX, &h);
	ck_assert_uint_eq(h.nweak, 0);
	ck_assert_uint_eq(h.dangling_refs, 1);
	ck_warned(&h, "0xdead9", at);
	heap_free(&h);
	hw_free(&w);
}
END_TEST

START_TEST(test_not_hprof)
{
	struct hw w;
	struct heap h;
	struct sbuf err;

	/* empty */
	hw_init(&w, 8);
	open_fails(&w, "empty.hprof", NULL);
	/* garbage */
	for (int i = 0; i < 4096; i++)
		hw_u1(&w, (uint8_t)(i * 7919 >> 3));
	open_fails(&w, "garbage.hprof", "offset 0: not a heap dump heapwalk reads");
	hw_free(&w);
	/* text that starts like a header */
	hw_init(&w, 8);
	hw_bytes(&w, "JAVA PROFILE 1.0.3", 19);
	hw_u4(&w, 8);
	hw_u8(&w, 0);
	open_fails(&w, "version.hprof", NULL);
	hw_free(&w);
	hw_init(&w, 8);
	hw_bytes(&w, "JAVA PROFILE 1.0.2 and more text than a header has", 50);
	open_fails(&w, "nonul.hprof", NULL);
	hw_free(&w);
	/* identifier sizes other than 4 and 8 */
	static const unsigned bad_ids[] = { 0, 2, 5, 16, 0x08000000 };
	for (size_t i = 0; i < sizeof bad_ids / sizeof bad_ids[0]; i++) {
		hw_begin(&w, V102, bad_ids[i]);
		hw_sample_classes(&w);
		open_fails(&w, "idsize.hprof", NULL);
		hw_free(&w);
	}
	/* missing */
	char *path = xasprintf("%s/no-such.hprof", hw_tmpdir());
	ck_assert_int_eq(open_file(path, &h, &err), -1);
	ck_assert_msg(strstr(err.buf, path) && strstr(err.buf, "No such file"), "%s", err.buf);
	sbuf_free(&err);
	free(path);
	/* a directory */
	ck_assert_int_eq(open_file(hw_tmpdir(), &h, &err), -1);
	ck_assert_msg(strstr(err.buf, hw_tmpdir()) != NULL, "%s", err.buf);
	sbuf_free(&err);
}
END_TEST

/* A valid header and nothing else: an empty heap, not an error (the
 * header proves it is a dump; say what is in it: nothing). */
START_TEST(test_header_only)
{
	static const char *v[] = { "JAVA PROFILE 1.0.1", V102 };

	for (int i = 0; i < 2; i++)
		for (unsigned ids = 4; ids <= 8; ids += 4) {
			struct hw w;
			struct heap h;
			hw_begin(&w, v[i], ids);
			open_ok(&w, "header-only.hprof", SIZE_MAX, &h);
			ck_assert_uint_eq(h.n, 1);
			ck_assert_uint_eq(h.nroots, 0);
			ck_assert_uint_eq(h.total_shallow, 0);
			ck_assert_uint_eq(h.layout.idsize, ids);
			heap_free(&h);
			/* strings and classes but no heap: the same */
			hw_sample_classes(&w);
			open_ok(&w, "no-heap.hprof", SIZE_MAX, &h);
			ck_assert_uint_eq(h.n, 1);
			heap_free(&h);
			hw_free(&w);
		}
}
END_TEST

/* Every prefix of the sample opens or fails cleanly: no crash, no hang;
 * a prefix that stops inside a record says at which offset. Every third
 * length; under the sanitizers, where each open is ~10x slower, every
 * seventh (the fuzzers cut dumps short too). */
#ifdef HW_TEST_ASAN
#define PREFIX_STEP 7
#else
#define PREFIX_STEP 3
#endif
START_TEST(test_every_prefix)
{
	for (unsigned ids = 4; ids <= 8; ids += 4) {
		struct hw w;
		struct hw_sample s;

		hw_sample(&w, V102, ids, &s);
		for (size_t len = 0; len <= w.b.len; len += PREFIX_STEP) {
			struct heap h;
			struct sbuf err;
			char *path = hw_write(&w, "prefix.hprof", len);
			if (open_file(path, &h, &err) == 0) {
				ck_assert_msg(len >= HEADER_LEN, "opened at %zu", len);
				ck_assert_uint_ge(h.n, 1);
				for (size_t i = 0; i < h.warn.n; i++)
					ck_assert_msg(strstr(h.warn.msg[i], "offset") != NULL ||
						      strstr(h.warn.msg[i], "in all") != NULL,
						      "%s", h.warn.msg[i]);
				heap_free(&h);
			} else {
				ck_assert_msg(len < HEADER_LEN, "failed at %zu: %s", len, err.buf);
				ck_assert(strstr(err.buf, path) != NULL);
			}
			sbuf_free(&err);
			free(path);
		}
		hw_free(&w);
	}
}
END_TEST

/* Flipped bytes anywhere: opens or fails with a message, never crashes. */
START_TEST(test_corrupt_bytes)
{
	struct hw w;
	struct hw_sample s;
	unsigned seed = 99;

	hw_sample(&w, V102, 8, &s);
	for (int round = 0; round < 300; round++) {
		struct hw c;
		hw_init(&c, 8);
		hw_bytes(&c, w.b.buf, w.b.len);
		for (int k = 0; k < 3; k++) {
			seed = seed * 1103515245u + 12345u;
			size_t at = 31 + (seed >> 8) % (c.b.len - 31);
			c.b.buf[at] = (char)(seed >> 20);
		}
		struct heap h;
		struct sbuf err;
		char *path = hw_write(&c, "corrupt.hprof", SIZE_MAX);
		if (open_file(path, &h, &err) == 0)
			heap_free(&h);
		sbuf_free(&err);
		free(path);
		hw_free(&c);
	}
	hw_free(&w);
}
END_TEST

/* ---- hidden classes from run to run ---- */

/* A dump of classes named as HPROF names them (internal, a hidden
 * class's address after '+'), each with count instances of no fields. */
struct named_count { const char *name; int count; };

static char *write_named(const char *file, const struct named_count *c, int n)
{
	struct hw w;
	uint64_t id = 0x100000;

	hw_begin(&w, V102, 8);
	hw_sample_classes(&w);
	for (int i = 0; i < n; i++)
		hw_class_name(&w, 100 + (uint32_t)i, 0x8001 + 0x10 * (uint64_t)i, c[i].name);
	hw_heap_begin(&w);
	hw_class_dump(&w, S_OBJ, 0, 0, NULL, 0, NULL, 0, NULL, 0);
	for (int i = 0; i < n; i++) {
		uint64_t cid = 0x8001 + 0x10 * (uint64_t)i;
		hw_class_dump(&w, cid, S_OBJ, 0, NULL, 0, NULL, 0, NULL, 0);
		for (int k = 0; k < c[i].count; k++, id += 0x10) {
			hw_root(&w, 0x05, id, 0, 0); /* a sticky class's: every object reached */
			hw_instance(&w, id, cid, NULL, 0);
		}
	}
	hw_heap_end(&w);
	hw_dump_end(&w);
	char *path = hw_write(&w, file, SIZE_MAX);
	hw_free(&w);
	return path;
}

static const struct class_delta *delta_row(const struct diff_view *v, const char *name)
{
	const struct class_delta *found = NULL;

	for (size_t r = 0; r < v->n; r++)
		if (strcmp(v->rows[r].name, name) == 0) {
			ck_assert_msg(found == NULL, "two rows named %s", name);
			found = &v->rows[r];
		}
	ck_assert_msg(found != NULL, "no row named %s", name);
	return found;
}

/* A JVM's hidden class (a lambda's) is named with the address it was
 * made at, "A$$Lambda$1/0x7f63...", which another run of the program
 * makes it at elsewhere: two dumps of two runs showed it as one class
 * gone and another new. Of two runs, a class that its whole name leaves
 * alone on each side is paired by its name up to the "/0x" where each
 * dump has one class of that start: A. Two of one start in a dump (B's
 * in the first) stay apart; a class not hidden, named as the start
 * without "/0x", is a class of its own (C's); a whole name in both
 * dumps stays one row though the second has another of its start (E's:
 * one row 3 -> 5, and E/0x2000 new). Of one run (the addresses exact),
 * nothing is paired by its start. */
START_TEST(test_hidden_classes_across_runs)
{
	static const struct named_count first[] = {
		{ "app/A$$Lambda$1+0x00007f6338003a10", 2 },
		{ "app/B$$Lambda$2+0x00007f6338003b10", 1 },
		{ "app/B$$Lambda$2+0x00007f6338003c10", 1 },
		{ "app/C$$Lambda$3+0x00007f6338003d10", 1 },
		{ "app/C$$Lambda$3", 1 },
		{ "app/D+0xzz", 1 },
		{ "app/E$$Lambda+0x1000", 3 },
	};
	static const struct named_count second[] = {
		{ "app/A$$Lambda$1+0x00007f47d4003a10", 5 },
		{ "app/B$$Lambda$2+0x00007f47d4003b10", 1 },
		{ "app/C$$Lambda$3+0x00007f47d4003d10", 3 },
		{ "app/D+0xzz", 2 },
		{ "app/E$$Lambda+0x1000", 5 },
		{ "app/E$$Lambda+0x2000", 1 },
	};
	static const struct { const char *name; uint64_t before, now; } runs[] = {
		{ "app.A$$Lambda$1/0x00007f47d4003a10", 2, 5 },
		{ "app.B$$Lambda$2/0x00007f6338003b10", 1, 0 },
		{ "app.B$$Lambda$2/0x00007f6338003c10", 1, 0 },
		{ "app.B$$Lambda$2/0x00007f47d4003b10", 0, 1 },
		{ "app.C$$Lambda$3/0x00007f47d4003d10", 1, 3 },
		{ "app.C$$Lambda$3", 1, 0 },
		{ "app.D/0xzz", 1, 2 },
		{ "app.E$$Lambda/0x1000", 3, 5 },
		{ "app.E$$Lambda/0x2000", 0, 1 },
	};
	struct heap a, b;
	struct sbuf err;
	struct diff_view v;
	char *pa = write_named("hidden-1.hprof", first, 7), *pb = write_named("hidden-2.hprof", second, 6);

	ck_assert_msg(open_file(pa, &a, &err) == 0, "%s", err.buf);
	sbuf_free(&err);
	ck_assert_msg(open_file(pb, &b, &err) == 0, "%s", err.buf);
	sbuf_free(&err);
	diff_classes(&a, &b, NULL, 1, &v);
	for (size_t i = 0; i < sizeof runs / sizeof *runs; i++) {
		const struct class_delta *d = delta_row(&v, runs[i].name);
		ck_assert_msg(d->old_count == runs[i].before && d->count == runs[i].now, "%s: %llu -> %llu",
			      runs[i].name, (unsigned long long)d->old_count, (unsigned long long)d->count);
	}
	ck_assert_uint_eq(v.n, sizeof runs / sizeof *runs + 1); /* and java.lang.Class (the class objects) */
	diff_view_free(&v);
	/* one run: A and C's hidden ones gone and new, each a row */
	diff_classes(&a, &b, NULL, 0, &v);
	const struct class_delta *d = delta_row(&v, "app.A$$Lambda$1/0x00007f6338003a10");
	ck_assert(d->old_count == 2 && d->count == 0);
	d = delta_row(&v, "app.A$$Lambda$1/0x00007f47d4003a10");
	ck_assert(d->old_count == 0 && d->count == 5);
	d = delta_row(&v, "app.C$$Lambda$3/0x00007f6338003d10");
	ck_assert(d->old_count == 1 && d->count == 0);
	ck_assert_uint_eq(v.n, sizeof runs / sizeof *runs + 1 + 2);
	diff_view_free(&v);
	heap_free(&a);
	heap_free(&b);
	free(pa);
	free(pb);
}
END_TEST

Suite *hprof_suite(void)
{
	Suite *s = suite_create("hprof");
	TCase *tc = tcase_create("reader");

	tcase_set_timeout(tc, HANG_TIMEOUT);
	tcase_add_test(tc, test_versions_and_id_sizes);
	tcase_add_test(tc, test_every_root_kind);
	tcase_add_test(tc, test_frames_and_traces);
	tcase_add_test(tc, test_class_dump_pool_and_statics);
	tcase_add_test(tc, test_field_offsets);
	tcase_add_test(tc, test_record_accessors);
	tcase_add_test(tc, test_jdk_classes);
	tcase_add_test(tc, test_unknown_top_level_tag_skipped);
	tcase_add_test(tc, test_heap_dump_and_empty_segments);
	tcase_add_test(tc, test_truncated_mid_record);
	tcase_add_test(tc, test_truncated_between_records);
	tcase_add_test(tc, test_truncated_in_header_and_strings);
	tcase_add_test(tc, test_record_length_past_eof);
	tcase_add_test(tc, test_damaged_length_resync);
	tcase_add_test(tc, test_sub_record_length_past_segment);
	tcase_add_test(tc, test_counts_near_2_32);
	tcase_add_test(tc, test_unknown_sub_tag);
	tcase_add_test(tc, test_dangling_and_duplicates);
	tcase_add_test(tc, test_dangling_everywhere);
	tcase_add_test(tc, test_dangling_expected);
	tcase_add_test(tc, test_warnings_said_once);
	tcase_add_test(tc, test_duplicate_class_dump);
	tcase_add_test(tc, test_missing_class);
	tcase_add_test(tc, test_superclass_cycle);
	tcase_add_test(tc, test_dangling_referent);
	tcase_add_test(tc, test_not_hprof);
	tcase_add_test(tc, test_header_only);
	tcase_add_test(tc, test_every_prefix);
	tcase_add_test(tc, test_corrupt_bytes);
	tcase_add_test(tc, test_hidden_classes_across_runs);
	suite_add_tcase(s, tc);
	return s;
}
