/* test_nettrace.c — the nettrace reader on two traces a real runtime
 * wrote (tests/dotnet/workload-{1,2}.nettrace: tests/dotnet/Program.cs
 * on .NET 10, see tests/dotnet/README), checked against what the
 * workload made and against the trace's own redundancy: the nodes'
 * edge counts against the edges sent, the bulk events' indexes, the one
 * induced full GC the dump is made in; then the same files cut short
 * and damaged, which must never crash; then traces crafted here (a small
 * writer of the stream, no code shared with the reader) whose counts,
 * sizes and ids are hostile: through heapwalk's open, each opens with a
 * warning or is refused in one line. */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "engine/open.h"
#include "format/clr_mark.h"
#include "format/nettrace.h"
#include "graph/heap.h"
#include "graph/idindex.h"
#include "hprofw.h"
#include "runtime/clr.h"
#include "suites.h"

#define DOTNET_DIR TEST_SRCDIR "/dotnet"

struct file {
	uint8_t *b;
	size_t n;
};

static struct file slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	struct file r = { NULL, 0 };
	size_t cap = 0, got;

	ck_assert_msg(f != NULL, "%s: cannot read", path);
	do {
		if (r.n + 65536 > cap)
			r.b = xrealloc(r.b, cap = (cap + 65536) * 2);
		got = fread(r.b + r.n, 1, 65536, f);
		r.n += got;
	} while (got > 0);
	fclose(f);
	return r;
}

static uint32_t u32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t u64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }

#define TYPES_MAX 4096
#define NODE_TYPES_MAX 100000

/* What a trace's heap-dump events add up to. */
struct tally {
	unsigned ps;
	uint32_t gc_count, gcs_induced, gc_ends;
	int in_gc;
	uint64_t nodes, nodes_outside, edge_sum, edges, roots, statics;
	uint32_t next_node_index, next_edge_index, index_breaks;
	uint64_t type_id[TYPES_MAX];
	char *type_name[TYPES_MAX];
	size_t ntypes;
	uint64_t node_type[NODE_TYPES_MAX], node_size[NODE_TYPES_MAX];
	size_t nn;
};

static void add_types(struct tally *t, const struct nt_event *e)
{
	const uint8_t *p = e->payload + 6, *end = e->payload + e->len;
	uint32_t n = u32(e->payload);

	for (uint32_t i = 0; i < n && end - p >= 25 && t->ntypes < TYPES_MAX; i++) {
		char name[512];
		size_t k = 0;
		const uint8_t *s = p + 25;
		for (; end - s >= 2 && (s[0] | s[1]) != 0; s += 2)
			if (k < sizeof name - 1)
				name[k++] = s[1] == 0 ? (char)s[0] : '?';
		name[k] = '\0';
		ck_assert(end - s >= 6);
		uint32_t np = u32(s + 2);
		t->type_id[t->ntypes] = u64(p);
		t->type_name[t->ntypes++] = xstrdup(name);
		p = s + 6 + 8 * (size_t)np;
	}
}

static int tally_event(void *arg, const struct nt_event *e)
{
	struct tally *t = arg;

	if (!e->runtime)
		return 0;
	switch (e->id) {
	case 1: /* GCStart: Count, Depth, Reason, Type */
		if (u32(e->payload + 4) == 2 && u32(e->payload + 8) == 1 && u32(e->payload + 12) == 0) {
			t->gcs_induced++;
			t->gc_count = u32(e->payload);
			t->in_gc = 1;
		}
		break;
	case 2: /* GCEnd: Count */
		if (t->in_gc && u32(e->payload) == t->gc_count) {
			t->gc_ends++;
			t->in_gc = 0;
		}
		break;
	case 15:
		add_types(t, e);
		break;
	case 16:
		t->roots += u32(e->payload + 4);
		break;
	case 18: { /* GCBulkNode: Index, Count, ClrInstanceID, then Address, Size, TypeID, EdgeCount */
		uint32_t n = u32(e->payload + 4);
		t->index_breaks += u32(e->payload) != t->next_node_index++;
		ck_assert_uint_ge(e->len, 10 + (uint64_t)n * (t->ps + 24));
		for (uint32_t i = 0; i < n; i++) {
			const uint8_t *q = e->payload + 10 + (size_t)i * (t->ps + 24);
			t->nodes++;
			t->nodes_outside += !t->in_gc;
			t->edge_sum += u64(q + t->ps + 16);
			if (t->nn < NODE_TYPES_MAX) {
				t->node_size[t->nn] = u64(q + t->ps);
				t->node_type[t->nn++] = u64(q + t->ps + 8);
			}
		}
		break;
	}
	case 19: /* GCBulkEdge: Index, Count, ... */
		t->index_breaks += u32(e->payload) != t->next_edge_index++;
		t->edges += u32(e->payload + 4);
		break;
	case 38:
		t->statics += u32(e->payload);
		break;
	default:
		break;
	}
	return 0;
}

static uint64_t type_of(const struct tally *t, const char *name)
{
	for (size_t i = 0; i < t->ntypes; i++)
		if (strcmp(t->type_name[i], name) == 0)
			return t->type_id[i];
	return 0;
}

/* Nodes of the type named so, and their bytes. */
static uint64_t count_of(const struct tally *t, const char *name, uint64_t *bytes)
{
	uint64_t id = type_of(t, name), n = 0;

	*bytes = 0;
	for (size_t i = 0; i < t->nn && id != 0; i++)
		if (t->node_type[i] == id) {
			n++;
			*bytes += t->node_size[i];
		}
	return n;
}

static void tally_free(struct tally *t)
{
	for (size_t i = 0; i < t->ntypes; i++)
		free(t->type_name[i]);
}

static void read_tally(const char *name, struct file f, struct tally *t, struct nt_trace *tr)
{
	struct warnings w = { .quiet = 1 };
	struct sbuf err;

	sbuf_init(&err);
	memset(t, 0, sizeof *t);
	t->ps = 8;
	ck_assert_msg(nt_read(name, f.b, f.n, tr, tally_event, t, &w, &err) == 0, "%s", err.buf);
	ck_assert_msg(w.n == 0, "%s", w.n ? w.msg[0] : "");
	warn_free(&w);
	sbuf_free(&err);
}

START_TEST(test_workload_traces)
{
	struct tally t[2];
	struct nt_trace tr[2];
	uint64_t bytes;

	for (int k = 0; k < 2; k++) {
		char path[256];
		snprintf(path, sizeof path, DOTNET_DIR "/workload-%d.nettrace", k + 1);
		struct file f = slurp(path);
		read_tally(path, f, &t[k], &tr[k]);
		free(f.b);
		ck_assert_uint_eq(tr[k].pointer_size, 8);
		/* one induced, blocking full GC, and every node inside it */
		ck_assert_uint_eq(t[k].gcs_induced, 1);
		ck_assert_uint_eq(t[k].gc_ends, 1);
		ck_assert_uint_gt(t[k].nodes, 4000);
		ck_assert_uint_eq(t[k].nodes_outside, 0);
		/* the two streams agree: each node's edge count, the edges sent */
		ck_assert_uint_eq(t[k].edge_sum, t[k].edges);
		ck_assert_uint_eq(t[k].index_breaks, 0);
		ck_assert_uint_gt(t[k].roots, 0);
		ck_assert_uint_gt(t[k].statics, 0);
		/* what the workload made (its JSON line: tests/dotnet/README) */
		ck_assert_uint_eq(count_of(&t[k], "Workload.Session", &bytes), 300);
		ck_assert_uint_eq(count_of(&t[k], "Workload.CacheEntry", &bytes), 1000);
		ck_assert_uint_eq(count_of(&t[k], "Workload.Publisher", &bytes), 1);
		ck_assert_uint_eq(count_of(&t[k], "Workload.AddedHolder", &bytes), k == 0 ? 0 : 200);
		/* the large array: 200,000 longs and the array's header */
		uint64_t id = type_of(&t[k], "System.Int64[]"), big = 0;
		for (size_t i = 0; i < t[k].nn; i++)
			big += t[k].node_type[i] == id && t[k].node_size[i] >= 200000 * 8;
		ck_assert_uint_eq(big, 1);
	}
	/* one process, twice */
	ck_assert_uint_eq(tr[0].pid, tr[1].pid);
	ck_assert_uint_eq(tr[0].qpc_freq, tr[1].qpc_freq);
	tally_free(&t[0]);
	tally_free(&t[1]);
}
END_TEST

static int count_event(void *arg, const struct nt_event *e)
{
	(void)e;
	(*(uint64_t *)arg)++;
	return 0;
}

/* Cut anywhere: the events before the cut, a warning or one line. */
/* The first `cut` bytes of f read (a copy of exactly those), the events
 * counted into *n, w emptied before: nt_read's status. */
static int read_cut(const struct file *f, size_t cut, struct nt_trace *tr, uint64_t *n, struct warnings *w,
		    struct sbuf *err)
{
	uint8_t *b = xmalloc(cut + 1);

	memcpy(b, f->b, cut);
	warn_free(w);
	memset(w, 0, sizeof *w);
	w->quiet = 1;
	*n = 0;
	sbuf_reset(err);
	int rc = nt_read("cut", b, cut, tr, count_event, n, w, err);
	free(b);
	return rc;
}

START_TEST(test_cut_and_damaged)
{
	struct file f = slurp(DOTNET_DIR "/workload-1.nettrace");
	uint64_t all = 0;
	struct nt_trace tr;
	struct warnings w = { .quiet = 1 };
	struct sbuf err;

	sbuf_init(&err);
	ck_assert_int_eq(nt_read("w", f.b, f.n, &tr, count_event, &all, &w, &err), 0);
	warn_free(&w);
	memset(&w, 0, sizeof w);
	w.quiet = 1;
	uint64_t prev = 0;
	for (size_t cut = 0; cut < f.n; cut += 997) {
		uint64_t n;
		int rc = read_cut(&f, cut, &tr, &n, &w, &err);
		if (rc < 0) {
			ck_assert_msg(cut < 200 && err.len > 0 && strchr(err.buf, '\n') == NULL, "%zu: %s", cut, err.buf);
		} else {
			ck_assert_uint_le(n, all);
			ck_assert_uint_ge(n + 2000, prev); /* more of the file, no fewer events (but the block cut) */
			ck_assert_uint_gt(w.n, 0);
			prev = n;
		}
	}
	/* cut at every byte of its first objects (the header, the Trace
	 * object, the first block's start): a refusal says the file is cut
	 * short, not that what is there is damaged or no object */
	for (size_t cut = 32; cut < 200; cut++) {
		uint64_t n;
		int rc = read_cut(&f, cut, &tr, &n, &w, &err);
		ck_assert_msg(rc == 0 || strstr(err.buf, "(cut short)") != NULL ||
			      strstr(err.buf, "past the end of the file") != NULL, "%zu: %s", cut, err.buf);
	}
	warn_free(&w);
	memset(&w, 0, sizeof w);
	w.quiet = 1;
	/* bytes damaged here and there: read as far as they let it, no crash */
	srand(3);
	for (int i = 0; i < 300; i++) {
		uint8_t *b = xmalloc(f.n);
		memcpy(b, f.b, f.n);
		for (int k = 0; k < 1 + i % 8; k++)
			b[(size_t)rand() % f.n] ^= (uint8_t)(1 + rand() % 255);
		uint64_t n = 0;
		sbuf_reset(&err);
		int rc = nt_read("bad", b, f.n, &tr, count_event, &n, &w, &err);
		ck_assert(rc == 0 || (err.len > 0 && strchr(err.buf, '\n') == NULL));
		free(b);
		warn_free(&w);
		memset(&w, 0, sizeof w);
		w.quiet = 1;
	}
	/* not a trace at all: one line */
	sbuf_reset(&err);
	ck_assert_int_eq(nt_read("x", (const uint8_t *)"NettraceXYZ", 11, &tr, count_event, &all, &w, &err), -1);
	ck_assert_msg(strstr(err.buf, "x: offset 0: not a nettrace stream") != NULL, "%s", err.buf);
	sbuf_free(&err);
	free(f.b);
}
END_TEST

/* ---- crafted traces: a writer of the stream as nettrace.c's opening
 * comment lays it out, sharing no code with the reader ---- */

/* The metadata ids the crafted traces define, one per runtime event. */
enum { M_GCSTART = 1, M_GCEND, M_TYPE, M_NODE, M_EDGE, M_ROOT, M_DEP, M_RANGE, M_STATIC, NMETA };
static const uint32_t meta_event[NMETA] = { 0, 1, 2, 15, 18, 19, 16, 17, 23, 38 };

struct ntw {
	struct sbuf b;
	size_t block; /* the open block's size field */
};

static void put(struct ntw *w, const void *p, size_t n) { sbuf_add(&w->b, p, n); }
static void put8(struct ntw *w, uint8_t v) { sbuf_addc(&w->b, (char)v); }

static void put_le(struct ntw *w, uint64_t v, unsigned bytes)
{
	for (unsigned i = 0; i < bytes; i++)
		put8(w, (uint8_t)(v >> 8 * i));
}

static void put16(struct ntw *w, uint16_t v) { put_le(w, v, 2); }
static void put32(struct ntw *w, uint32_t v) { put_le(w, v, 4); }
static void put64(struct ntw *w, uint64_t v) { put_le(w, v, 8); }

static void put_varuint(struct ntw *w, uint64_t v)
{
	do {
		put8(w, (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0)));
		v >>= 7;
	} while (v != 0);
}

/* ASCII as UTF-16, NUL-terminated. */
static void put_utf16(struct ntw *w, const char *s)
{
	for (; *s; s++)
		put16(w, (uint8_t)*s);
	put16(w, 0);
}

/* An object's header: tags 05 05 01, versions, its type's name, 06. */
static void ntw_object(struct ntw *w, const char *name)
{
	put(w, "\5\5\1", 3);
	put32(w, 4);
	put32(w, 4);
	put32(w, (uint32_t)strlen(name));
	put(w, name, strlen(name));
	put8(w, 6);
}

/* The stream's header and its Trace object (pointers of 8 bytes). */
static void ntw_begin(struct ntw *w)
{
	sbuf_init(&w->b);
	put(w, "Nettrace", 8);
	put32(w, 20);
	put(w, "!FastSerialization.1", 20);
	ntw_object(w, "Trace");
	put16(w, 2025), put16(w, 1), put16(w, 3), put16(w, 15); /* year month weekday day */
	put16(w, 12), put16(w, 0), put16(w, 0), put16(w, 0);    /* hour minute second ms */
	put64(w, 0);         /* sync QPC */
	put64(w, 10000000);  /* QPC frequency */
	put32(w, 8);         /* pointer size */
	put32(w, 4242);      /* pid */
	put32(w, 1);         /* processors */
	put32(w, 0);         /* sampling rate */
	put8(w, 6);
}

/* A block (its size patched by ntw_block_end), its header: 20 bytes,
 * compressed event headers. */
static void ntw_block(struct ntw *w, const char *name)
{
	ntw_object(w, name);
	w->block = w->b.len;
	put32(w, 0);
	while (w->b.len % 4 != 0)
		put8(w, 0);
	put16(w, 20);
	put16(w, 1);
	put64(w, 0);
	put64(w, 0);
}

static void ntw_block_end(struct ntw *w)
{
	size_t start = w->block + 4;

	while (start % 4 != 0)
		start++;
	uint64_t len = w->b.len - start;
	for (int i = 0; i < 4; i++)
		w->b.buf[w->block + (size_t)i] = (char)(len >> 8 * i);
	put8(w, 6);
}

/* An event with a compressed header: metadata id, a timestamp one tick
 * on, the payload's size. */
static void ntw_event(struct ntw *w, uint32_t meta, const struct sbuf *payload)
{
	put8(w, 0x81);
	put_varuint(w, meta);
	put_varuint(w, 1);
	put_varuint(w, payload->len);
	put(w, payload->buf, payload->len);
}

/* A metadata block that defines ids[i] as runtime event events[i]. */
static void ntw_meta(struct ntw *w, const uint32_t *ids, const uint32_t *events, size_t n)
{
	ntw_block(w, "MetadataBlock");
	for (size_t i = 0; i < n; i++) {
		struct ntw p = { .b = { 0 } };
		sbuf_init(&p.b);
		put32(&p, ids[i]);
		put_utf16(&p, "Microsoft-Windows-DotNETRuntime");
		put32(&p, events[i]);
		put_utf16(&p, "");
		put64(&p, 0x1980001); /* keywords */
		put32(&p, 2);         /* version */
		put32(&p, 5);         /* level */
		ntw_event(w, 0, &p.b);
		sbuf_free(&p.b);
	}
	ntw_block_end(w);
}

static void ntw_meta_all(struct ntw *w)
{
	uint32_t ids[NMETA - 1];

	for (uint32_t i = 1; i < NMETA; i++)
		ids[i - 1] = i;
	ntw_meta(w, ids, meta_event + 1, NMETA - 1);
}

/* A payload of u32 values, each the number of bytes said: (1, 4, ...). */
static void payload(struct sbuf *p, const uint64_t *v, const uint8_t *bytes, size_t n)
{
	struct ntw w = { .b = *p };

	for (size_t i = 0; i < n; i++)
		put_le(&w, v[i], bytes[i]);
	*p = w.b;
}

/* The end mark; the file written under the test's directory (caller
 * frees the path); the buffer freed. */
static char *ntw_write(struct ntw *w, const char *name)
{
	put8(w, 1);
	char *path = xasprintf("%s/%s", hw_tmpdir(), name);
	FILE *f = fopen(path, "wb");
	ck_assert_msg(f != NULL && fwrite(w->b.buf, 1, w->b.len, f) == w->b.len && fclose(f) == 0, "%s", path);
	sbuf_free(&w->b);
	return path;
}

/* ---- a small heap: what a crafted trace's GC reports ---- */

struct cnode { uint64_t addr, size, type, nedges; };
struct croot { uint64_t addr; uint8_t kind; uint32_t flags; };

struct cheap {
	struct cnode node[80];
	size_t nnode;
	uint32_t node_count;  /* what GCBulkNode's Count says (the nodes written regardless) */
	uint64_t edge[16];
	size_t nedge;
	uint32_t edge_count;
	struct croot root[4];
	size_t nroot;
	uint32_t root_count;
	uint64_t type_id;
	const char *type_name;
	uint32_t type_count, type_params; /* BulkType's Count, its type's parameter count */
	uint64_t static_obj;
	uint32_t static_count;
	uint64_t dep[2];      /* a dependent handle's key and value, 0: none */
	uint32_t dep_count;
	size_t edge_split;    /* > 0: the references in two GCBulkEdge events, the
			       * first this many (each its own true count) */
	struct { uint8_t gen; uint64_t start, used; } range[4]; /* GCGenerationRange, after the walk */
	size_t nrange;
	struct { uint64_t id; const char *name; } more[4]; /* BulkType's types after type_id's */
	size_t nmore;
};

/* Three objects of one type, a cycle and a self-reference: A -> B ->
 * C -> A, C -> C; A on a stack, B in a static variable; counts true. */
static void cheap_init(struct cheap *c)
{
	memset(c, 0, sizeof *c);
	c->type_id = 0x7f00;
	c->type_name = "Crafted.Node";
	c->node[0] = (struct cnode){ 0x1000, 24, 0x7f00, 1 };
	c->node[1] = (struct cnode){ 0x2000, 32, 0x7f00, 1 };
	c->node[2] = (struct cnode){ 0x3000, 40, 0x7f00, 2 };
	c->nnode = 3;
	uint64_t e[] = { 0x2000, 0x3000, 0x1000, 0x3000 };
	memcpy(c->edge, e, sizeof e);
	c->nedge = 4;
	c->root[0] = (struct croot){ 0x1000, 0, 0 };
	c->nroot = 1;
	c->static_obj = 0x2000;
	c->node_count = 3, c->edge_count = 4, c->root_count = 1, c->type_count = 1, c->static_count = 1;
}

static void ev(struct ntw *w, uint32_t meta, struct sbuf *p)
{
	ntw_event(w, meta, p);
	sbuf_reset(p);
}

/* The GC's events: GCStart (induced, blocking, depth 2), the bulk
 * events, GCEnd. */
static void cheap_events(struct ntw *w, const struct cheap *c)
{
	struct sbuf p;
	struct ntw q;

	sbuf_init(&p);
	ntw_block(w, "EventBlock");
	payload(&p, (uint64_t[]){ 7, 2, 1, 0 }, (uint8_t[]){ 4, 4, 4, 4 }, 4); /* count, depth, induced, blocking */
	ev(w, M_GCSTART, &p);
	payload(&p, (uint64_t[]){ c->type_count + c->nmore, 0 }, (uint8_t[]){ 4, 2 }, 2);
	q.b = p;
	put64(&q, c->type_id), put64(&q, 0), put32(&q, 0), put32(&q, 0), put8(&q, 0);
	put_utf16(&q, c->type_name);
	put32(&q, c->type_params);
	for (size_t i = 0; i < c->nmore; i++) {
		put64(&q, c->more[i].id), put64(&q, 0), put32(&q, 0), put32(&q, 0), put8(&q, 0);
		put_utf16(&q, c->more[i].name);
		put32(&q, 0);
	}
	ev(w, M_TYPE, &q.b);
	p = q.b;
	payload(&p, (uint64_t[]){ 0, c->node_count, 0 }, (uint8_t[]){ 4, 4, 2 }, 3);
	for (size_t i = 0; i < c->nnode; i++)
		payload(&p, (uint64_t[]){ c->node[i].addr, c->node[i].size, c->node[i].type, c->node[i].nedges },
			(uint8_t[]){ 8, 8, 8, 8 }, 4);
	ev(w, M_NODE, &p);
	for (int part = 0; part < (c->edge_split > 0 ? 2 : 1); part++) {
		size_t from = part == 0 ? 0 : c->edge_split;
		size_t to = c->edge_split > 0 && part == 0 ? c->edge_split : c->nedge;
		payload(&p, (uint64_t[]){ 0, c->edge_split > 0 ? to - from : c->edge_count, 0 },
			(uint8_t[]){ 4, 4, 2 }, 3);
		for (size_t i = from; i < to; i++)
			payload(&p, (uint64_t[]){ c->edge[i], 0 }, (uint8_t[]){ 8, 4 }, 2);
		ev(w, M_EDGE, &p);
	}
	payload(&p, (uint64_t[]){ 0, c->root_count, 0 }, (uint8_t[]){ 4, 4, 2 }, 3);
	for (size_t i = 0; i < c->nroot; i++)
		payload(&p, (uint64_t[]){ c->root[i].addr, c->root[i].kind, c->root[i].flags, 0x99 },
			(uint8_t[]){ 8, 1, 4, 8 }, 4);
	ev(w, M_ROOT, &p);
	if (c->dep[0] != 0) {
		payload(&p, (uint64_t[]){ 0, c->dep_count, 0, c->dep[0], c->dep[1], 0x98 },
			(uint8_t[]){ 4, 4, 2, 8, 8, 8 }, 6);
		ev(w, M_DEP, &p);
	}
	payload(&p, (uint64_t[]){ c->static_count, 1, 0 }, (uint8_t[]){ 4, 8, 2 }, 3);
	payload(&p, (uint64_t[]){ 0x97, c->static_obj, c->type_id, 0 }, (uint8_t[]){ 8, 8, 8, 4 }, 4);
	q.b = p;
	put_utf16(&q, "instance");
	ev(w, M_STATIC, &q.b);
	p = q.b;
	for (size_t i = 0; i < c->nrange; i++) {
		payload(&p, (uint64_t[]){ c->range[i].gen, c->range[i].start, c->range[i].used, 0x100000, 0 },
			(uint8_t[]){ 1, 8, 8, 8, 2 }, 5);
		ev(w, M_RANGE, &p);
	}
	payload(&p, (uint64_t[]){ 7, 2 }, (uint8_t[]){ 4, 4 }, 2);
	ev(w, M_GCEND, &p);
	ntw_block_end(w);
	sbuf_free(&p);
}

/* The crafted heap's trace, written as name. */
static char *cheap_write(const struct cheap *c, const char *name)
{
	struct ntw w;

	ntw_begin(&w);
	ntw_meta_all(&w);
	cheap_events(&w, c);
	return ntw_write(&w, name);
}

/* Open it: 0 and the heap, or -1 with the error in err. */
static int open_trace(const char *path, struct heap *h, struct sbuf *err)
{
	struct open_opts o = { .no_cache = 1, .quiet = 1 };
	struct progress p;

	progress_init(&p, 1);
	sbuf_reset(err);
	int rc = heap_open(h, path, &o, &p, err);
	if (rc == 0)
		heap_need(h, HP_ALL, &p);
	return rc;
}

static node_t node_at(const struct heap *h, uint64_t addr)
{
	for (node_t v = 1; v < h->n; v++)
		if (h->node_id[v] == addr)
			return v;
	return 0;
}

static int refers(const struct heap *h, node_t src, node_t dst)
{
	for (edge_t e = h->out_start[src]; e < h->out_start[src + 1]; e++)
		if (h->out[e] == dst)
			return 1;
	return 0;
}

/* The crafted heap as written: the writer is right before the hostile
 * variants mean anything. The cycle and the self-reference through the
 * dominators: A and B are roots, B the only way to C. */
START_TEST(test_crafted_heap)
{
	struct cheap c;
	struct heap h;
	struct sbuf err;

	sbuf_init(&err);
	cheap_init(&c);
	char *path = cheap_write(&c, "plain.nettrace");
	ck_assert_msg(open_trace(path, &h, &err) == 0, "%s", err.buf);
	ck_assert_msg(h.warn.n == 0, "%s", h.warn.msg[0]);
	ck_assert_uint_eq(h.n, 4);
	node_t a = node_at(&h, 0x1000), b = node_at(&h, 0x2000), cc = node_at(&h, 0x3000);
	ck_assert(a && b && cc);
	ck_assert(refers(&h, a, b) && refers(&h, b, cc) && refers(&h, cc, a) && refers(&h, cc, cc));
	ck_assert_uint_eq(h.nedges, 4);
	ck_assert_uint_eq(h.total_shallow, 24 + 32 + 40);
	ck_assert_str_eq(class_name(&h, h.node_class[a]), "Crafted.Node");
	/* A and B are roots: B alone holds C */
	ck_assert_uint_eq(h.idom[a], 0);
	ck_assert_uint_eq(h.idom[b], 0);
	ck_assert_uint_eq(h.idom[cc], b);
	ck_assert_uint_eq(h.retained[a], 24);
	ck_assert_uint_eq(h.retained[b], 32 + 40);
	ck_assert_uint_eq(h.nroot_rec, 2); /* the stack's and the static variable's */
	heap_free(&h);
	free(path);
	sbuf_free(&err);
}
END_TEST

/* Ids far beyond the heap: references, roots, static variables, handles
 * and types that name nothing in it; addresses 0 and 2^64 - 1; a
 * generation range that reaches the end of the address space. */
START_TEST(test_far_ids)
{
	struct cheap c;
	struct heap h;
	struct sbuf err;

	sbuf_init(&err);
	cheap_init(&c);
	c.edge[1] = UINT64_MAX;
	c.edge[3] = 0;
	c.node[2].addr = UINT64_MAX;
	c.node[2].type = UINT64_MAX;
	c.root[1] = (struct croot){ 0xdead0000, 1, 0 };
	c.nroot = c.root_count = 2;
	c.static_obj = 0x7777;
	c.dep[0] = 0xbeef, c.dep[1] = UINT64_MAX, c.dep_count = 1;
	char *path = cheap_write(&c, "ids-beyond-the-heap.nettrace");
	ck_assert_msg(open_trace(path, &h, &err) == 0, "%s", err.buf);
	ck_assert_uint_eq(h.n, 4);
	node_t a = node_at(&h, 0x1000), b = node_at(&h, 0x2000), z = node_at(&h, UINT64_MAX);
	ck_assert(a && b && z);
	ck_assert_str_eq(class_name(&h, h.node_class[z]), "Type(0xffffffffffffffff)");
	ck_assert(refers(&h, a, b) && refers(&h, z, a)); /* B's to 2^64 - 1 is C's; 0 is none */
	ck_assert(refers(&h, b, z));
	ck_assert_uint_eq(h.nedges, 3);
	ck_assert_uint_eq(h.dangling_refs, 2); /* to 0; the handle of an unknown key */
	ck_assert_uint_eq(h.nroot_rec, 1);
	heap_free(&h);
	free(path);
	sbuf_free(&err);
}
END_TEST

static int has_warning(const struct heap *h, const char *what)
{
	for (size_t i = 0; i < h->warn.n; i++)
		if (strstr(h->warn.msg[i], what) != NULL)
			return 1;
	return 0;
}

/* The references of each object after a damaged count: the next sent
 * ones, as many as it claims and as there are left. */
static void edges_taken(const struct heap *h, size_t want_a)
{
	node_t a = node_at(h, 0x1000), b = node_at(h, 0x2000), c = node_at(h, 0x3000);

	ck_assert(a && b && c);
	ck_assert_uint_eq(h->out_start[a + 1] - h->out_start[a], want_a);
	ck_assert_uint_eq(h->nedges, 4); /* no more than were sent */
	ck_assert_uint_le(h->out_start[h->n], 4);
	for (edge_t e = 0; e < h->nedges; e++)
		ck_assert(h->out[e] == a || h->out[e] == b || h->out[e] == c);
}

/* Each reference to its target's node, found by address: objects in
 * three segments of the address space (gaps past the id index's cut)
 * with references back and forth between them, an object's references
 * across two GCBulkEdge events, targets that are no object's (off the
 * objects' alignment, in a gap between segments, inside a segment's
 * span but no object's slot, past the last object). Each node's
 * references checked against the list written here; then the same with
 * an address given twice, and with objects too far apart for the id
 * index's bitmap (its buckets searched instead). */
START_TEST(test_targets_found)
{
	enum { SPREAD = 70 };
	static const uint64_t A0 = 0x10000, A1 = 0x10008, B0 = 0x10000000, B1 = 0x10000010, C0 = 0x7f0000000000,
			      C1 = 0x7f0000000018;
	static const struct { uint64_t addr, nedges, to[5]; } obj[] = {
		{ A0, 5, { C0, B0, A1, A0 + 4, C1 } }, /* A0 + 4: off the alignment */
		{ A1, 3, { C0 + 8, B1, A0 } },         /* C0 + 8: no object's slot */
		{ B0, 0, { 0 } },
		{ B1, 3, { B1, 0x20000000, C1 + 8 } }, /* in a gap; past the last */
		{ C0, 1, { A0 } },
		{ C1, 0, { 0 } },
	};
	struct sbuf err;

	sbuf_init(&err);
	for (int round = 0; round < 3; round++) {
		struct cheap c;
		struct heap h;
		cheap_init(&c);
		c.nnode = c.nedge = 0;
		for (size_t i = 0; i < sizeof obj / sizeof obj[0]; i++) {
			c.node[c.nnode++] = (struct cnode){ obj[i].addr, 16, 0x7f00, obj[i].nedges };
			for (size_t k = 0; k < obj[i].nedges; k++)
				c.edge[c.nedge++] = obj[i].to[k];
			if (round == 1 && i == 1) { /* A1 again: its references dropped with it */
				c.node[c.nnode++] = (struct cnode){ A1, 16, 0x7f00, 2 };
				c.edge[c.nedge++] = B0;
				c.edge[c.nedge++] = C0;
			}
		}
		for (size_t k = 0; round == 2 && k < SPREAD; k++) /* one segment of 32 KiB gaps */
			c.node[c.nnode++] = (struct cnode){ 0x40000000 + 0x8000 * k, 16, 0x7f00, 0 };
		c.node_count = (uint32_t)c.nnode;
		c.edge_count = (uint32_t)c.nedge;
		c.edge_split = 3; /* inside A0's */
		c.root[0].addr = A0;
		c.static_obj = B0;
		char *path = cheap_write(&c, round == 0 ? "targets.nettrace" : round == 1 ? "targets-twice.nettrace"
										       : "targets-sparse.nettrace");
		ck_assert_msg(open_trace(path, &h, &err) == 0, "%s", err.buf);
		ck_assert_uint_eq(h.n, 7 + (round == 2 ? SPREAD : 0));
		/* the way the builder's index was made: the bitmap, or the
		 * buckets for ids too far apart for it */
		struct idindex x;
		idindex_build(&x, h.node_id, h.n);
		ck_assert_msg((x.blk != NULL) == (round < 2), "round %d: the index's bitmap: %d", round, x.blk != NULL);
		idindex_free(&x);
		size_t found = 0, none = 0;
		for (size_t i = 0; i < sizeof obj / sizeof obj[0]; i++) {
			node_t v = node_at(&h, obj[i].addr);
			size_t want = 0;
			ck_assert(v != 0);
			for (size_t k = 0; k < obj[i].nedges; k++) {
				node_t t = node_at(&h, obj[i].to[k]);
				if (t == 0) {
					none++;
					continue;
				}
				ck_assert_msg(refers(&h, v, t), "round %d: %#llx -> %#llx missing", round,
					      (unsigned long long)obj[i].addr, (unsigned long long)obj[i].to[k]);
				want++;
			}
			ck_assert_uint_eq(h.out_start[v + 1] - h.out_start[v], want);
			found += want;
		}
		ck_assert_uint_eq(found, 8);
		ck_assert_uint_eq(none, 4);
		ck_assert_uint_eq(h.nedges, found);
		ck_assert_uint_eq(h.dangling_refs, none);
		heap_free(&h);
		free(path);
	}
	sbuf_free(&err);
}
END_TEST

/* Each object's generation by the ranges the GC told (sent out of
 * order, one overlapping another): objects in turn in one range, the
 * next, a gap (none: the frozen segment's, a root each), a range again,
 * before the first and past the last; each checked against the ranges
 * written here, searched one by one. */
START_TEST(test_generations)
{
	static const struct { uint8_t gen; uint64_t start, used; } rg[] = {
		{ 2, 0x30000, 0x100 }, { 0, 0x10000, 0x100 }, { 1, 0x10080, 0x200 }, { 3, 0x50000, 0x40 },
	};
	static const uint64_t addr[] = { 0x8000, 0x10000, 0x10078, 0x100f8, 0x10100, 0x10278, 0x10280, 0x20000,
					 0x30000, 0x300f8, 0x30100, 0x50038, 0x90000 };
	struct cheap c;
	struct heap h;
	struct sbuf err;

	sbuf_init(&err);
	cheap_init(&c);
	c.nnode = c.nedge = 0;
	for (size_t i = 0; i < sizeof addr / sizeof addr[0]; i++)
		c.node[c.nnode++] = (struct cnode){ addr[i], 8, 0x7f00, 0 };
	c.node_count = (uint32_t)c.nnode;
	c.edge_count = 0;
	c.nroot = c.root_count = 0;
	c.static_obj = addr[1];
	for (size_t i = 0; i < sizeof rg / sizeof rg[0]; i++) {
		c.range[i].gen = rg[i].gen, c.range[i].start = rg[i].start, c.range[i].used = rg[i].used;
		c.nrange++;
	}
	char *path = cheap_write(&c, "generations.nettrace");
	ck_assert_msg(open_trace(path, &h, &err) == 0, "%s", err.buf);
	ck_assert_ptr_nonnull(h.node_gen);
	size_t frozen = 0;
	for (size_t i = 0; i < sizeof addr / sizeof addr[0]; i++) {
		/* the first range by start that holds it (0x100f8: both
		 * 0x10000's and 0x10080's) */
		unsigned want = CLR_NONGC;
		uint64_t best = UINT64_MAX;
		for (size_t k = 0; k < sizeof rg / sizeof rg[0]; k++)
			if (addr[i] >= rg[k].start && addr[i] - rg[k].start < rg[k].used && rg[k].start < best)
				want = rg[k].gen, best = rg[k].start;
		node_t v = node_at(&h, addr[i]);
		ck_assert(v != 0);
		ck_assert_msg(h.node_gen[v] == want, "%#llx: generation %u, %u wanted", (unsigned long long)addr[i],
			      h.node_gen[v], want);
		frozen += want == CLR_NONGC;
	}
	ck_assert_uint_eq(frozen, 5);
	size_t roots = 0;
	for (size_t i = 0; i < h.nroot_rec; i++)
		roots += h.root_rec[i].native == CLR_ROOT_FROZEN;
	ck_assert_uint_eq(roots, frozen);
	heap_free(&h);
	free(path);
	sbuf_free(&err);
}
END_TEST

/* Each object's type by its id, the types in turn: ids that differ in
 * their high bits only (the reader's recent types, kept by the ids'
 * low bits, hold one of them at a time), one apart from them, one no
 * BulkType names; each object's class against the names written. */
START_TEST(test_types_in_turn)
{
	static const uint64_t T1 = 0x7ff812345670, T2 = T1 + (1ULL << 20), T3 = T1 + 8, T4 = T1 + (1ULL << 40), U = 0x7ff8aaaa0000;
	static const struct { uint64_t type; const char *name; } obj[] = {
		{ T1, "Crafted.Node" }, { T2, "Crafted.Two" }, { T1, "Crafted.Node" }, { T3, "Crafted.Three" },
		{ T2, "Crafted.Two" }, { U, "Type(0x7ff8aaaa0000)" }, { T1, "Crafted.Node" }, { T4, "Crafted.Four" },
		{ U, "Type(0x7ff8aaaa0000)" }, { T2, "Crafted.Two" }, { T4, "Crafted.Four" }, { T1, "Crafted.Node" },
	};
	struct cheap c;
	struct heap h;
	struct sbuf err;

	sbuf_init(&err);
	cheap_init(&c);
	c.type_id = T1;
	c.more[0].id = T2, c.more[0].name = "Crafted.Two";
	c.more[1].id = T3, c.more[1].name = "Crafted.Three";
	c.more[2].id = T4, c.more[2].name = "Crafted.Four";
	c.nmore = 3;
	c.nnode = c.nedge = 0;
	for (size_t i = 0; i < sizeof obj / sizeof obj[0]; i++)
		c.node[c.nnode++] = (struct cnode){ 0x10000 + 0x20 * i, 16, obj[i].type, 0 };
	c.node_count = (uint32_t)c.nnode;
	c.edge_count = 0;
	c.static_obj = 0x10000;
	c.root[0].addr = 0x10000;
	char *path = cheap_write(&c, "types-in-turn.nettrace");
	ck_assert_msg(open_trace(path, &h, &err) == 0, "%s", err.buf);
	ck_assert_uint_eq(h.n, 1 + sizeof obj / sizeof obj[0]);
	for (size_t i = 0; i < sizeof obj / sizeof obj[0]; i++) {
		node_t v = node_at(&h, 0x10000 + 0x20 * i);
		ck_assert(v != 0);
		ck_assert_str_eq(class_name(&h, h.node_class[v]), obj[i].name);
	}
	heap_free(&h);
	free(path);
	sbuf_free(&err);
}
END_TEST

/* GCBulkNode's edge counts that sum past 2^32 and 2^64 (and wrap to the
 * number sent): the objects take what was sent, in order, with a
 * warning; nothing is written past the references (under ASan the
 * builder wrote there). */
START_TEST(test_edge_counts)
{
	static const struct { const char *name; uint64_t n[3]; } cases[] = {
		{ "edge-count-overflow.nettrace", { UINT64_MAX, 2, 0 } },
		{ "edge-count-wraps-to-sent.nettrace", { 1ULL << 63, 1ULL << 63, 4 } },
		{ "edge-count-past-2-32.nettrace", { (1ULL << 32) + 1, UINT32_MAX, UINT32_MAX } },
		{ "edge-count-near-2-32.nettrace", { UINT32_MAX, 0, 0 } },
	};
	struct sbuf err;

	sbuf_init(&err);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct cheap c;
		struct heap h;
		cheap_init(&c);
		for (int k = 0; k < 3; k++)
			c.node[k].nedges = cases[i].n[k];
		char *path = cheap_write(&c, cases[i].name);
		ck_assert_msg(open_trace(path, &h, &err) == 0, "%s: %s", cases[i].name, err.buf);
		/* A claims more than there are: all four */
		edges_taken(&h, 4);
		ck_assert_msg(has_warning(&h, "more references than the file holds"), "%s: %s", cases[i].name,
			      h.warn.n ? h.warn.msg[0] : "no warning");
		heap_free(&h);
		free(path);
	}
	sbuf_free(&err);
}
END_TEST

/* An address the GC reports twice (a damaged trace; objects cannot
 * share one): one object, the first report's size and references,
 * with a warning, not two objects of one address. */
START_TEST(test_address_twice)
{
	struct cheap c;
	struct heap h;
	struct sbuf err;

	sbuf_init(&err);
	cheap_init(&c);
	c.node[3] = (struct cnode){ 0x2000, 48, 0x7f00, 1 }; /* B again, referring to itself */
	c.edge[4] = 0x2000;
	c.nnode = c.node_count = 4;
	c.nedge = c.edge_count = 5;
	char *path = cheap_write(&c, "address-twice.nettrace");
	ck_assert_msg(open_trace(path, &h, &err) == 0, "%s", err.buf);
	ck_assert_uint_eq(h.n, 4);
	ck_assert(has_warning(&h, "1 objects at an address the GC reported before; the first report of each is kept"));
	node_t a = node_at(&h, 0x1000), b = node_at(&h, 0x2000), cc = node_at(&h, 0x3000);
	ck_assert(a && b && cc);
	ck_assert_uint_eq(h.total_shallow, 24 + 32 + 40);
	ck_assert(refers(&h, a, b) && refers(&h, b, cc) && !refers(&h, b, b));
	ck_assert_uint_eq(h.nedges, 4);
	heap_free(&h);
	free(path);
	sbuf_free(&err);
}
END_TEST

/* Every input kept in fuzz/regress/nettrace and fuzz/regress/gcdump (the
 * crafted ones above that crashed, and those of the .NET fuzzers): each
 * opens, or is refused in one line. */
START_TEST(test_regress_inputs)
{
	static const char *const dirs[] = { "nettrace", "gcdump" };
	size_t seen = 0;

	for (size_t k = 0; k < 2; k++) {
		char *dir = xasprintf("%s/../fuzz/regress/%s", TEST_SRCDIR, dirs[k]);
		DIR *d = opendir(dir);
		struct dirent *e;
		while (d != NULL && (e = readdir(d)) != NULL) {
			if (e->d_name[0] == '.')
				continue;
			char *path = xasprintf("%s/%s", dir, e->d_name);
			struct heap h;
			struct sbuf err;
			sbuf_init(&err);
			if (open_trace(path, &h, &err) == 0)
				heap_free(&h);
			else
				ck_assert_msg(strstr(err.buf, e->d_name) && strchr(err.buf, '\n') == NULL, "%s", err.buf);
			sbuf_free(&err);
			free(path);
			seen++;
		}
		if (d != NULL)
			closedir(d);
		free(dir);
	}
	ck_assert_uint_gt(seen, 0);
}
END_TEST

/* Every bulk event's count past what its payload holds, near 2^32 and at
 * values whose product with the entry's size wraps 32 bits to exactly
 * the payload's: the event skipped, with a warning; a trace whose only
 * GCBulkNode is so has no heap, in one line. */
START_TEST(test_bulk_counts)
{
	enum { NODES, EDGES, ROOTS, DEPS, TYPES, PARAMS, STATICS };
	static const struct { int field; uint32_t n; } cases[] = {
		{ NODES, UINT32_MAX }, { NODES, (1u << 27) + 3 },  /* 32 bytes a node */
		{ EDGES, UINT32_MAX }, { EDGES, (1u << 30) + 4 },  /* 12 an edge */
		{ ROOTS, UINT32_MAX }, { ROOTS, 0x80000000u },
		{ DEPS, UINT32_MAX }, { DEPS, (1u << 29) + 1 },    /* 24 a handle */
		{ TYPES, UINT32_MAX }, { TYPES, 2 },
		{ PARAMS, UINT32_MAX }, { PARAMS, 1u << 29 },      /* 8 a parameter */
		{ STATICS, UINT32_MAX }, { STATICS, 2 },
	};
	struct sbuf err;

	sbuf_init(&err);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct cheap c;
		struct heap h;
		char name[64];
		cheap_init(&c);
		c.dep[0] = 0x1000, c.dep[1] = 0x3000, c.dep_count = 1;
		uint32_t *f[] = { &c.node_count, &c.edge_count, &c.root_count, &c.dep_count, &c.type_count,
				  &c.type_params, &c.static_count };
		*f[cases[i].field] = cases[i].n;
		snprintf(name, sizeof name, "bulk-count-%d-%u.nettrace", cases[i].field, cases[i].n);
		char *path = cheap_write(&c, name);
		int rc = open_trace(path, &h, &err);
		if (cases[i].field == NODES) { /* where the count is, not offset 0 */
			ck_assert_msg(rc < 0 && strstr(err.buf, "GCBulkNode event shorter than its count") &&
				      strstr(err.buf, "no heap dump") && !strstr(err.buf, "offset 0:") &&
				      strchr(err.buf, '\n') == NULL, "%s: %s", name, err.buf);
		} else {
			ck_assert_msg(rc == 0, "%s: %s", name, err.buf);
			ck_assert_msg(has_warning(&h, "1 bulk event shorter than its count (the first here)"), "%s: %s",
				      name, h.warn.n ? h.warn.msg[0] : "no warning");
			ck_assert_uint_eq(h.n, 4);
			heap_free(&h);
		}
		free(path);
	}
	sbuf_free(&err);
}
END_TEST

/* Object sizes near 2^64: no object reaches past the next one's address
 * (nor past the end of the address space), so the heap's and the
 * class's totals cannot wrap. */
START_TEST(test_sizes)
{
	struct cheap c;
	struct heap h;
	struct sbuf err;

	sbuf_init(&err);
	cheap_init(&c);
	c.node[0].size = UINT64_MAX - 1;
	c.node[1].size = UINT64_MAX - 1;
	c.node[2].size = UINT64_MAX;
	char *path = cheap_write(&c, "object-size-near-2-64.nettrace");
	ck_assert_msg(open_trace(path, &h, &err) == 0, "%s", err.buf);
	/* 0x1000 to B, 0x1000 to C, C to the end of the address space */
	uint64_t want = 0x1000 + 0x1000 + (UINT64_MAX - 0x3000);
	ck_assert_uint_eq(h.total_shallow, want);
	ck_assert_uint_eq(h.cls[h.node_class[1]].shallow_total, want);
	ck_assert_msg(has_warning(&h, "3 objects reach past the next object's address"), "%s",
		      h.warn.n ? h.warn.msg[0] : "no warning");
	heap_free(&h);
	free(path);
	sbuf_free(&err);
}
END_TEST

struct ids_seen {
	uint32_t event[4];
	size_t n;
};

static int id_event(void *arg, const struct nt_event *e)
{
	struct ids_seen *s = arg;

	if (s->n < 4)
		s->event[s->n++] = e->id;
	return 0;
}

/* The peak of this process's resident memory, in KiB. */
static long peak_kib(void)
{
	struct rusage ru;

	ck_assert_int_eq(getrusage(RUSAGE_SELF, &ru), 0);
	return ru.ru_maxrss;
}

/* Metadata ids near 2^24 and 2^32 in a trace of 64 KiB: far past the
 * metadata events it has room for, refused in a line each (a table
 * indexed by id took 200 MB for the first); an id it has room for is
 * found, and memory follows the file, not the ids' values. */
START_TEST(test_meta_ids)
{
	static const uint32_t ids[] = { (1u << 24) - 1, 0xfffffff0u, 1000 };
	static const uint32_t events[] = { 40, 41, 42 };
	struct ntw w;
	struct sbuf p;

	ntw_begin(&w);
	ntw_meta(&w, ids, events, 3);
	ntw_block(&w, "EventBlock");
	sbuf_init(&p);
	for (int i = 0; i < 3; i++) {
		payload(&p, (uint64_t[]){ (uint64_t)i }, (uint8_t[]){ 4 }, 1);
		ev(&w, ids[i], &p);
	}
	sbuf_free(&p);
	ntw_block_end(&w);
	ntw_block(&w, "StackBlock"); /* room: 64 KiB of it */
	for (int i = 0; i < 65536; i++)
		put8(&w, 0);
	ntw_block_end(&w);
	put8(&w, 1);
	struct ids_seen seen = { { 0 }, 0 };
	struct nt_trace tr;
	struct warnings warn = { .quiet = 1 };
	struct sbuf err;
	sbuf_init(&err);
	long before = peak_kib();
	ck_assert_msg(nt_read("ids", (const uint8_t *)w.b.buf, w.b.len, &tr, id_event, &seen, &warn, &err) == 0, "%s",
		      err.buf);
	ck_assert_msg(peak_kib() - before < 32 * 1024, "%ld KiB more for three metadata ids", peak_kib() - before);
	ck_assert_uint_eq(seen.n, 1);
	ck_assert_uint_eq(seen.event[0], 42);
	/* two ids refused, two events of them skipped: a line each */
	ck_assert_uint_eq(warn.n, 4);
	ck_assert_msg(strstr(warn.msg[0], "metadata id 16777215, past the ") &&
		      strstr(warn.msg[1], "metadata id 4294967280, past the ") && strstr(warn.msg[2], "id 16777215") &&
		      strstr(warn.msg[3], "id 4294967280"), "%s | %s", warn.msg[0], warn.msg[1]);
	warn_free(&warn);
	sbuf_free(&err);
	sbuf_free(&w.b);
}
END_TEST

/* A number in an event header longer than its bits allow (a timestamp
 * delta of eleven bytes: 77 bits) is damage, said as such: the block's
 * rest skipped with a line, the events before it kept (the fuzzers
 * found the reader shifting a byte by 70 bits, undefined in C). */
START_TEST(test_long_varuint)
{
	static const uint32_t ids[] = { 7 };
	static const uint32_t events[] = { 40 };
	struct ntw w;
	struct sbuf p;

	ntw_begin(&w);
	ntw_meta(&w, ids, events, 1);
	ntw_block(&w, "EventBlock");
	sbuf_init(&p);
	payload(&p, (uint64_t[]){ 1 }, (uint8_t[]){ 4 }, 1);
	ev(&w, ids[0], &p);
	put8(&w, 0x81); /* the next: metadata id 7, then its delta */
	put_varuint(&w, ids[0]);
	for (int i = 0; i < 10; i++)
		put8(&w, 0xff);
	put8(&w, 0x01);
	put_varuint(&w, 0);
	sbuf_free(&p);
	ntw_block_end(&w);
	put8(&w, 1);
	struct ids_seen seen = { { 0 }, 0 };
	struct nt_trace tr;
	struct warnings warn = { .quiet = 1 };
	struct sbuf err;
	sbuf_init(&err);
	ck_assert_msg(nt_read("long", (const uint8_t *)w.b.buf, w.b.len, &tr, id_event, &seen, &warn, &err) == 0, "%s",
		      err.buf);
	ck_assert_uint_eq(seen.n, 1);
	ck_assert_uint_eq(warn.n, 1);
	ck_assert_msg(strstr(warn.msg[0], "event header or payload past its block") != NULL, "%s", warn.msg[0]);
	warn_free(&warn);
	sbuf_free(&err);
	sbuf_free(&w.b);
}
END_TEST

/* A block of 4 GB in a small trace that has no heap before it: the
 * error says where and what (the size), not that the trace was
 * recorded without the heap-dump keywords. */
START_TEST(test_block_size)
{
	struct ntw w;
	struct heap h;
	struct sbuf err;

	ntw_begin(&w);
	ntw_meta_all(&w);
	size_t at = w.b.len;
	ntw_object(&w, "EventBlock");
	size_t size_at = w.b.len;
	put32(&w, 0xfffffff0u);
	for (int i = 0; i < 64; i++)
		put8(&w, 0);
	char *path = ntw_write(&w, "block-size-4g.nettrace");
	char want[128];
	snprintf(want, sizeof want, "offset %zu: EventBlock (at offset %zu) of 4294967280 bytes", size_at, at);
	sbuf_init(&err);
	ck_assert_int_eq(open_trace(path, &h, &err), -1);
	ck_assert_msg(strstr(err.buf, path) && strstr(err.buf, want) &&
		      strstr(err.buf, "no heap dump in this trace before it") && strchr(err.buf, '\n') == NULL, "%s",
		      err.buf);
	free(path);
	sbuf_free(&err);
}
END_TEST

/* ---- a .NET mark replayed (format/clr_mark.c), crafted ----
 * The mark's heap: A, B, C at 0x10000, 0x10100, 0x10200 in gen2 (GC 5).
 * GC 6 compacts gen2: A to 0x20000, C to 0x20100, B dead; a new object
 * N takes B's old address 0x10100 (in gen0), and GC 7, the snapshot's,
 * keeps all three (surviving ranges). So A and C are old, N new: an
 * address alone would say N is B. */

enum { MK_START = 1, MK_END, MK_NODE, MK_SURV, MK_MOVED, MK_RANGE };

struct mk {
	struct ntw w;
	uint32_t seq_gap; /* an event written with its thread's count this far on */
};

static void mk_begin(struct mk *m)
{
	static const uint32_t ids[] = { MK_START, MK_END, MK_NODE, MK_SURV, MK_MOVED, MK_RANGE },
			      events[] = { 1, 2, 18, 21, 22, 23 };
	ntw_begin(&m->w);
	ntw_meta(&m->w, ids, events, 6);
	ntw_block(&m->w, "EventBlock");
}

/* An event of u32/u64 fields (sizes in bytes) and then raw bytes. */
static void mk_event(struct mk *m, uint32_t meta, const uint64_t *v, const uint8_t *bytes, size_t n)
{
	struct sbuf p;
	sbuf_init(&p);
	payload(&p, v, bytes, n);
	if (m->seq_gap != 0) { /* flags: metadata id, thread and sequence, payload size */
		put8(&m->w, 0x83);
		put_varuint(&m->w, meta);
		put_varuint(&m->w, m->seq_gap); /* the count's step less one */
		put_varuint(&m->w, 0);          /* capture thread */
		put_varuint(&m->w, 0);          /* processor */
		put_varuint(&m->w, 1);
		put_varuint(&m->w, p.len);
		put(&m->w, p.buf, p.len);
		m->seq_gap = 0;
	} else {
		ntw_event(&m->w, meta, &p);
	}
	sbuf_free(&p);
}

static void mk_gc(struct mk *m, uint32_t count, uint32_t depth, uint32_t type)
{
	const uint64_t v[] = { count, depth, 1, type, 0 };
	const uint8_t b[] = { 4, 4, 4, 4, 2 };
	mk_event(m, MK_START, v, b, 5);
}

static void mk_gc_end(struct mk *m, uint32_t count)
{
	const uint64_t v[] = { count, 2, 0 };
	const uint8_t b[] = { 4, 4, 2 };
	mk_event(m, MK_END, v, b, 3);
}

static void mk_range(struct mk *m, uint8_t gen, uint64_t start, uint64_t used)
{
	const uint64_t v[] = { gen, start, used, 0x100000, 0 };
	const uint8_t b[] = { 1, 8, 8, 8, 2 };
	mk_event(m, MK_RANGE, v, b, 5);
}

static uint64_t mk_small_at; /* an object of 0x80 bytes there, if not 0 */

/* Objects at addr[i], 0x100 bytes each (but at mk_small_at). */
static void mk_nodes(struct mk *m, const uint64_t *addr, size_t n)
{
	uint64_t v[3 + 4 * 8];
	uint8_t b[3 + 4 * 8];
	size_t k = 0;
	v[k] = 0, b[k++] = 4;
	v[k] = n, b[k++] = 4;
	v[k] = 0, b[k++] = 2;
	for (size_t i = 0; i < n; i++) {
		v[k] = addr[i], b[k++] = 8;
		v[k] = addr[i] == mk_small_at ? 0x80 : 0x100, b[k++] = 8;
		v[k] = 0x77, b[k++] = 8;
		v[k] = 0, b[k++] = 8;
	}
	mk_event(m, MK_NODE, v, b, k);
}

/* One moved run (from, to, len), or surviving (to == 0), batch index. */
static void mk_run(struct mk *m, uint32_t batch, uint64_t from, uint64_t to, uint64_t len)
{
	const uint64_t v[] = { batch, 1, 0, from, to, len };
	const uint8_t b[] = { 4, 4, 2, 8, 8, 8 };
	if (to != 0)
		mk_event(m, MK_MOVED, v, b, 6);
	else {
		const uint64_t vs[] = { batch, 1, 0, from, len };
		const uint8_t bs[] = { 4, 4, 2, 8, 8 };
		mk_event(m, MK_SURV, vs, bs, 5);
	}
}

static char *mk_end(struct mk *m, const char *name)
{
	ntw_block_end(&m->w);
	return ntw_write(&m->w, name);
}

/* The heaps: the mark's (GC 5) and the snapshot's (GC 7). */
static char *mk_heap(const char *name, uint32_t gc, const uint64_t *addr, size_t n, uint64_t gen2, uint64_t gen0)
{
	struct mk m = { .seq_gap = 0 };
	mk_begin(&m);
	mk_gc(&m, gc, 2, 0);
	mk_nodes(&m, addr, n);
	mk_range(&m, 2, gen2, 0x1000);
	mk_range(&m, 0, gen0, 0x1000);
	mk_gc_end(&m, gc);
	return mk_end(&m, name);
}

/* What can go wrong in the recorder's stream. */
enum { MK_FINE, MK_NO_REPLAY_OF_6, MK_SEQ_GAP, MK_BATCH_GAP, MK_BACKGROUND, MK_NESTED, MK_OUTSIDE, MK_NO_END };

static char *mk_rec(int flaw)
{
	struct mk m = { .seq_gap = 0 };
	mk_begin(&m);
	mk_gc(&m, 5, 2, 0);
	mk_gc_end(&m, 5);
	if (flaw != MK_NO_REPLAY_OF_6) {
		mk_gc(&m, 6, 2, flaw == MK_BACKGROUND);
		if (flaw == MK_NESTED)
			mk_gc(&m, 6, 0, 2);
		mk_range(&m, 2, flaw == MK_OUTSIDE ? 0x10200 : 0x10000, 0x1000);
		mk_range(&m, 0, 0x20000, 0x1000);
		mk_run(&m, 0, 0x10000, 0x20000, 0x100);
		if (flaw == MK_SEQ_GAP)
			m.seq_gap = 3;
		mk_run(&m, flaw == MK_BATCH_GAP ? 2 : 1, 0x10200, 0x20100, 0x100);
		mk_gc_end(&m, 6);
	}
	mk_gc(&m, 7, 2, 0);
	mk_range(&m, 2, 0x20000, 0x1000);
	mk_range(&m, 0, 0x10000, 0x1000);
	mk_run(&m, 0, 0x20000, 0, 0x200);
	mk_run(&m, 1, 0x10100, 0, 0x100);
	if (flaw != MK_NO_END)
		mk_gc_end(&m, 7);
	return mk_end(&m, "mk-rec.nettrace");
}

/* The replay of the crafted mark with the recorder's stream flawed:
 * what it said, and the addresses of the old objects (now and at the
 * mark) in old[0..2*n). */
static char *mk_replay(int flaw, uint64_t *old, size_t *n)
{
	const uint64_t mark[] = { 0x10000, 0x10100, 0x10200 }, snap[] = { 0x10100, 0x20000, 0x20100 };
	char *mp = mk_heap("mk-mark.nettrace", 5, mark, 3, 0x10000, 0x20000);
	char *sp = mk_heap("mk-snap.nettrace", 7, snap, 3, 0x20000, 0x10000);
	char *rp = mk_rec(flaw);
	struct file fm = slurp(mp), fs = slurp(sp), fr = slurp(rp);
	struct clr_mark_in in = { fm.b, fm.n, fr.b, fr.n, fs.b, fs.n, 5, 7, NULL };
	struct sbuf out, said, err;

	sbuf_init(&out);
	sbuf_init(&said);
	sbuf_init(&err);
	ck_assert_msg(clr_mark_replay(&in, &out, &said, &err) == 0, "%s", err.buf);
	const char *o = strstr(out.buf, "\nold ");
	ck_assert_ptr_nonnull(o);
	*n = strtoull(o + 5, NULL, 10);
	ck_assert_uint_le(*n, 3);
	memcpy(old, strchr(o + 1, '\n') + 1, *n * 16);
	free(fm.b), free(fs.b), free(fr.b);
	free(mp), free(sp), free(rp);
	sbuf_free(&out);
	sbuf_free(&err);
	return sbuf_detach(&said);
}

START_TEST(test_mark_replay_crafted)
{
	uint64_t old[6];
	size_t n;

	char *said = mk_replay(MK_FINE, old, &n);
	ck_assert_msg(strcmp(said, "mark: exact; of the 3 objects at the mark, 2 live on (2 moves replayed through 2 "
			     "GCs, 0 of them background)") == 0, "%s", said);
	/* A and C, where they are and were; not N at B's old place */
	ck_assert_uint_eq(n, 2);
	ck_assert(old[0] == 0x20000 && old[1] == 0x10000 && old[2] == 0x20100 && old[3] == 0x10200);
	free(said);
	/* a GC that says background but moved objects, nothing inside it: it
	 * ran blocking (the runtime's fallback), replayed as such */
	said = mk_replay(MK_BACKGROUND, old, &n);
	ck_assert_msg(strncmp(said, "mark: exact; ", 13) == 0 && strstr(said, "0 of them background"), "%s", said);
	ck_assert_uint_eq(n, 2);
	ck_assert(old[0] == 0x20000 && old[1] == 0x10000 && old[2] == 0x20100 && old[3] == 0x10200);
	free(said);
	static const struct { int flaw; const char *why; } doubts[] = {
		{ MK_NO_REPLAY_OF_6, "GC 6 is missing from the record" },
		{ MK_SEQ_GAP, "the recorder's session lost events" },
		{ MK_BATCH_GAP, "a batch of GC 6's object runs is missing" },
		{ MK_NESTED, "GC 6 began inside GC 6" },
		{ MK_OUTSIDE, "an object of the mark (0x10000) was in no generation as GC 6 began" },
		{ MK_NO_END, "the recorder did not see the snapshot's GC (7) end" },
	};
	for (size_t i = 0; i < sizeof doubts / sizeof *doubts; i++) {
		said = mk_replay(doubts[i].flaw, old, &n);
		ck_assert_msg(strncmp(said, "mark: not exact; ", 17) == 0 && strstr(said, doubts[i].why), "%zu: %s", i,
			      said);
		free(said);
	}
}
END_TEST

/* A background GC (6) with an ephemeral GC (7) inside it that promotes D
 * (gen0 at the mark) onto B's place, B having died in the background
 * sweep, and C's place at the end of gen2 given back by the sweep (the
 * range ends before it); then the background GC tells its survivors (A,
 * and D at B's place), and the snapshot's GC (8) keeps both. */
static char *mk_rec_background(void)
{
	struct mk m = { .seq_gap = 0 };

	mk_begin(&m);
	mk_gc(&m, 5, 2, 0);
	mk_gc_end(&m, 5);
	mk_gc(&m, 6, 2, 1);
	mk_range(&m, 2, 0x10000, 0x1000);
	mk_range(&m, 0, 0x20000, 0x1000);
	mk_gc(&m, 7, 0, 2); /* the sweep gave back gen2's end: C's place */
	mk_range(&m, 2, 0x10000, 0x200);
	mk_range(&m, 0, 0x20000, 0x1000);
	mk_run(&m, 0, 0x20000, 0x10100, 0x100);
	mk_gc_end(&m, 7);
	mk_run(&m, 0, 0x10000, 0, 0x200);
	mk_range(&m, 2, 0x10000, 0x200);
	mk_range(&m, 0, 0x20000, 0x1000);
	mk_gc_end(&m, 6);
	mk_gc(&m, 8, 2, 0);
	mk_range(&m, 2, 0x10000, 0x200);
	mk_range(&m, 0, 0x20000, 0x1000);
	mk_run(&m, 0, 0x10000, 0, 0x200);
	mk_gc_end(&m, 8);
	return mk_end(&m, "mk-bgrec.nettrace");
}

/* The crafted background GC replayed: D is old, at B's place, B and C
 * gone; a GC inside a background one that promotes onto an old object's
 * place means that one is dead (the background sweep freed it), and so
 * does an old object's place outside its range. And an
 * object the replay leads to whose size is another than at the mark is
 * a doubt. */
START_TEST(test_mark_replay_background_crafted)
{
	const uint64_t mark[] = { 0x10000, 0x10100, 0x10200, 0x20000 }, snap[] = { 0x10000, 0x10100 };

	for (int resized = 0; resized <= 1; resized++) {
		char *mp = mk_heap("mk-mark.nettrace", 5, mark, 4, 0x10000, 0x20000);
		mk_small_at = resized ? 0x10100 : 0;
		char *sp = mk_heap("mk-snap.nettrace", 8, snap, 2, 0x10000, 0x20000);
		mk_small_at = 0;
		char *rp = mk_rec_background();
		struct file fm = slurp(mp), fs = slurp(sp), fr = slurp(rp);
		struct clr_mark_in in = { fm.b, fm.n, fr.b, fr.n, fs.b, fs.n, 5, 8, NULL };
		struct sbuf out, said, err;
		sbuf_init(&out);
		sbuf_init(&said);
		sbuf_init(&err);
		ck_assert_msg(clr_mark_replay(&in, &out, &said, &err) == 0, "%s", err.buf);
		if (resized) {
			ck_assert_msg(strstr(said.buf, "mark: not exact; ") && strstr(said.buf, "an object of the mark (0x20000) "
				      "replayed to an object of another type or size (0x10100)"), "%s", said.buf);
		} else {
			ck_assert_msg(strcmp(said.buf, "mark: exact; of the 4 objects at the mark, 2 live on (1 moves replayed "
					     "through 3 GCs, 1 of them background)") == 0, "%s", said.buf);
			const char *o = strstr(out.buf, "\nold ");
			ck_assert_ptr_nonnull(o);
			ck_assert_uint_eq(strtoull(o + 5, NULL, 10), 2);
			uint64_t old[4];
			memcpy(old, strchr(o + 1, '\n') + 1, sizeof old);
			ck_assert(old[0] == 0x10000 && old[1] == 0x10000 && old[2] == 0x10100 && old[3] == 0x20000);
		}
		free(fm.b), free(fs.b), free(fr.b);
		free(mp), free(sp), free(rp);
		sbuf_free(&out);
		sbuf_free(&said);
		sbuf_free(&err);
	}
}
END_TEST

/* A mark that tells one address twice (a tampered or broken trace):
 * a doubt, never two objects of the mark taken for one. */
START_TEST(test_mark_replay_twice_told)
{
	const uint64_t mark[] = { 0x10000, 0x10100, 0x10200, 0x20000, 0x20000 }, snap[] = { 0x10000, 0x10100 };
	char *mp = mk_heap("mk-mark2.nettrace", 5, mark, 5, 0x10000, 0x20000);
	char *sp = mk_heap("mk-snap2.nettrace", 8, snap, 2, 0x10000, 0x20000);
	char *rp = mk_rec_background();
	struct file fm = slurp(mp), fs = slurp(sp), fr = slurp(rp);
	struct clr_mark_in in = { fm.b, fm.n, fr.b, fr.n, fs.b, fs.n, 5, 8, NULL };
	struct sbuf out, said, err;

	sbuf_init(&out);
	sbuf_init(&said);
	sbuf_init(&err);
	int rc = clr_mark_replay(&in, &out, &said, &err);
	ck_assert_msg(rc == 0 && strncmp(said.buf, "mark: not exact; ", 17) == 0 &&
			      strstr(said.buf, "two objects of the mark") != NULL, "%d %s %s", rc, said.buf, err.buf);
	free(fm.b), free(fs.b), free(fr.b);
	free(mp), free(sp), free(rp);
	sbuf_free(&out);
	sbuf_free(&said);
	sbuf_free(&err);
}
END_TEST

Suite *nettrace_suite(void)
{
	Suite *s = suite_create("nettrace");
	TCase *tc = tcase_create("read");

	tcase_set_timeout(tc, HANG_TIMEOUT);
	tcase_add_test(tc, test_workload_traces);
	tcase_add_test(tc, test_cut_and_damaged);
	suite_add_tcase(s, tc);
	tc = tcase_create("crafted");
	tcase_set_timeout(tc, HANG_TIMEOUT);
	tcase_add_test(tc, test_crafted_heap);
	tcase_add_test(tc, test_far_ids);
	tcase_add_test(tc, test_address_twice);
	tcase_add_test(tc, test_targets_found);
	tcase_add_test(tc, test_generations);
	tcase_add_test(tc, test_types_in_turn);
	tcase_add_test(tc, test_edge_counts);
	tcase_add_test(tc, test_regress_inputs);
	tcase_add_test(tc, test_bulk_counts);
	tcase_add_test(tc, test_sizes);
	tcase_add_test(tc, test_meta_ids);
	tcase_add_test(tc, test_long_varuint);
	tcase_add_test(tc, test_block_size);
	tcase_add_test(tc, test_mark_replay_crafted);
	tcase_add_test(tc, test_mark_replay_background_crafted);
	tcase_add_test(tc, test_mark_replay_twice_told);
	suite_add_tcase(s, tc);
	return s;
}
