/* test_nettrace.c — the nettrace reader on two traces a real runtime
 * wrote (tests/dotnet/workload-{1,2}.nettrace: tests/dotnet/Program.cs
 * on .NET 10, see tests/dotnet/README), checked against what the
 * workload made and against the trace's own redundancy: the nodes'
 * edge counts against the edges sent, the bulk events' indexes, the one
 * induced full GC the dump is made in; then the same files cut short
 * and damaged, which must never crash. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/nettrace.h"
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
		uint64_t n = 0;
		uint8_t *b = xmalloc(cut + 1);
		memcpy(b, f.b, cut);
		sbuf_reset(&err);
		int rc = nt_read("cut", b, cut, &tr, count_event, &n, &w, &err);
		free(b);
		if (rc < 0) {
			ck_assert_msg(cut < 200 && err.len > 0 && strchr(err.buf, '\n') == NULL, "%zu: %s", cut, err.buf);
		} else {
			ck_assert_uint_le(n, all);
			ck_assert_uint_ge(n + 2000, prev); /* more of the file, no fewer events (but the block cut) */
			ck_assert_uint_gt(w.n, 0);
			prev = n;
		}
		warn_free(&w);
		memset(&w, 0, sizeof w);
		w.quiet = 1;
	}
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

Suite *nettrace_suite(void)
{
	Suite *s = suite_create("nettrace");
	TCase *tc = tcase_create("read");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_workload_traces);
	tcase_add_test(tc, test_cut_and_damaged);
	suite_add_tcase(s, tc);
	return s;
}
