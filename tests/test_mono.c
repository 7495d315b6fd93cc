/* test_mono.c — Mono's log-profiler heapshots (.mlpd) through heapwalk,
 * checked against what is known independently:
 *   - every heapshot's per-class counts and bytes equal mprof-report's
 *     (Mono's own decoder, a second reader of the same file), and the
 *     totals its summary line says;
 *   - the last heapshot holds what tests/mono/Workload.cs keeps;
 *   - old and new between two heapshots of one file equal the
 *     workload's own allocations, and each object is paired with the
 *     one it was: the workload's lists say which (the Chaff at index j
 *     of round 2's list is the Chaff at index 10 j of round 1's), and
 *     sgen moved them in between, so their addresses alone would pair
 *     them wrongly;
 *   - cut, damaged and foreign files: the complete heapshots with a
 *     warning, or one line;
 *   - hostile files, written here (a small writer of the format: what
 *     each holds is known by construction): counts and sizes near 2^32
 *     and 2^64, addresses far beyond the file, cycles, moves from
 *     address 0 replayed for --baseline, two heapshots in one buffer,
 *     a million threads or root ranges.
 * tests/mono/workload.mlpd was recorded from the workload by Debian's
 * mono 6.8 and workload.mlpd.report by its mprof-report --verbose (see
 * tests/mono/README); where mono is installed the same checks run on a
 * file recorded at test time, plain and with the profiler's zip option. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../fuzz/drive.h"
#include "engine/open.h"
#include "graph/heap.h"
#include "graph/reader.h"
#include "hprofw.h"
#include "suites.h"
#include "term.h"

#define MONODIR TEST_BUILDDIR "/dumps/mono"
#define FIXTURE TEST_SRCDIR "/mono/workload.mlpd"

static char *hw(const char *args, int *status)
{
	char cmd[2048];

	snprintf(cmd, sizeof cmd, "'%s' %s", heapwalk(), args);
	return run(cmd, status);
}

/* ---- mprof-report's heapshot report ---- */

struct row { char name[256]; unsigned long long bytes, count; };
struct shot { unsigned long long size, count; struct row *rows; size_t n; double secs; };

/* A row by name (mprof-report lists a class per MonoClass: two of one
 * name add up, as heapwalk's classes by name do). */
static struct row *row_of(struct shot *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->rows[i].name, name) == 0)
			return &s->rows[i];
	s->rows = realloc(s->rows, (s->n + 1) * sizeof *s->rows);
	struct row *r = &s->rows[s->n++];
	memset(r, 0, sizeof *r);
	snprintf(r->name, sizeof r->name, "%s", name);
	return r;
}

static size_t read_report(const char *path, struct shot *shots, size_t max)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	size_t n = 0;

	ck_assert_msg(f != NULL, "%s", path);
	while (fgets(line, sizeof line, f) != NULL) {
		unsigned long long a, b, c;
		unsigned k;
		char name[512];
		double secs;
		if (sscanf(line, " Heap shot %u at %lf secs: size: %llu, object count: %llu", &k, &secs, &a, &b) == 4) {
			ck_assert(n < max && k == n);
			shots[n++] = (struct shot){ a, b, NULL, 0, secs };
		} else if (n > 0 && sscanf(line, " %llu %llu %llu %511s", &a, &b, &c, name) == 4) {
			struct row *r = row_of(&shots[n - 1], name);
			r->bytes += a;
			r->count += b;
		}
	}
	fclose(f);
	return n;
}

/* The next CSV field of *p (quoted or not) into out; *p past its comma. */
static void csv_field(const char **p, char *out, size_t n)
{
	const char *s = *p;
	size_t k = 0;

	if (*s == '"') {
		for (s++; *s && !(*s == '"' && s[1] != '"'); s++) {
			if (*s == '"')
				s++;
			if (k + 1 < n)
				out[k++] = *s;
		}
		if (*s == '"')
			s++;
	} else {
		for (; *s && *s != ',' && *s != '\n'; s++)
			if (k + 1 < n)
				out[k++] = *s;
	}
	out[k] = '\0';
	*p = *s == ',' ? s + 1 : s;
}

/* heapwalk's classes of heapshot k (1-based) as rows. */
static void hw_classes(const char *dump, unsigned k, const char *more, struct shot *s)
{
	char args[1024];
	int st;

	snprintf(args, sizeof args, "-q --heapshot %u -f csv %s classes '%s'", k, more, dump);
	char *out = hw(args, &st);
	ck_assert_msg(st == 0, "%s", out);
	memset(s, 0, sizeof *s);
	const char *p = strchr(out, '\n'); /* past the header */
	while (p != NULL && p[1] != '\0') {
		char name[512], num[64];
		p++;
		csv_field(&p, name, sizeof name);
		struct row *r = row_of(s, name);
		csv_field(&p, num, sizeof num);
		r->count = strtoull(num, NULL, 10);
		csv_field(&p, num, sizeof num);
		r->bytes = strtoull(num, NULL, 10);
		s->count += r->count;
		s->size += r->bytes;
		p = strchr(p, '\n');
	}
	free(out);
}

static unsigned long long count_in(struct shot *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->rows[i].name, name) == 0)
			return s->rows[i].count;
	return 0;
}

/* Every heapshot of dump, class by class, as the report says. */
static void mlpd_vs_report(const char *dump, const char *report)
{
	struct shot want[16], got;
	size_t n = read_report(report, want, 16);
	char args[512];
	int st;

	ck_assert_msg(n >= 4, "%s: %zu heapshots", report, n);
	snprintf(args, sizeof args, "-q info '%s'", dump);
	char *out = hw(args, &st);
	char say[96];
	snprintf(say, sizeof say, "heapshot:                 %zu of %zu", n, n);
	ck_assert_msg(st == 0 && strstr(out, say), "%s", out);
	free(out);
	/* each one's time: from the program's start (the header's ms since
	 * the epoch, bytes 8 to 16) as mprof-report tells it, to the ms;
	 * before, its end (a GC's walk later), from another start */
	char cmd[700]; /* (gzip -f passes a plain file through) */
	snprintf(cmd, sizeof cmd, "gzip -dcf '%s' | head -c 16 | od -An -tu8 -j8", dump);
	char *head = run(cmd, &st);
	unsigned long long start_ms;
	ck_assert_msg(st == 0 && sscanf(head, "%llu", &start_ms) == 1, "%s: %s", cmd, head);
	free(head);
	snprintf(args, sizeof args, "-q -f json info '%s'", dump);
	out = hw(args, &st);
	const char *t = out;
	for (size_t k = 0; k < n; k++) {
		unsigned long long ms;
		t = strstr(t, "\"time_ms\":");
		ck_assert_msg(t != NULL && sscanf(t, "\"time_ms\":%llu", &ms) == 1, "heapshot %zu: %s", k + 1, out);
		t++;
		long long want_ms = (long long)(want[k].secs * 1000 + 0.5);
		ck_assert_msg((long long)(ms - start_ms) == want_ms, "heapshot %zu at %lld ms, mprof-report %.3f s",
			      k + 1, (long long)(ms - start_ms), want[k].secs);
	}
	free(out);
	for (size_t k = 0; k < n; k++) {
		hw_classes(dump, (unsigned)k + 1, "", &got);
		ck_assert_msg(got.count == want[k].count && got.size == want[k].size,
			      "heapshot %zu: %llu objects, %llu bytes; mprof-report %llu, %llu", k + 1, got.count,
			      got.size, want[k].count, want[k].size);
		ck_assert_msg(got.n == want[k].n, "heapshot %zu: %zu classes, mprof-report %zu", k + 1, got.n,
			      want[k].n);
		for (size_t i = 0; i < want[k].n; i++) {
			const struct row *w = &want[k].rows[i];
			int found = 0;
			for (size_t j = 0; j < got.n; j++)
				if (strcmp(got.rows[j].name, w->name) == 0) {
					ck_assert_msg(got.rows[j].count == w->count && got.rows[j].bytes == w->bytes,
						      "heapshot %zu, %s: %llu, %llu bytes; mprof-report %llu, %llu",
						      k + 1, w->name, got.rows[j].count, got.rows[j].bytes, w->count,
						      w->bytes);
					found = 1;
				}
			ck_assert_msg(found, "heapshot %zu: no class %s", k + 1, w->name);
		}
		free(got.rows);
		free(want[k].rows);
	}
}

/* What the workload keeps, at the end (the last heapshot, taken at
 * shutdown) and new/old between heapshots 1 and 3, 2 and 3. */
static void workload_planted(const char *dump)
{
	static const struct { const char *name; unsigned long long n; } last[] = {
		{ "Workload.Session", 150 }, { "Workload.Leaf", 450 }, { "Workload.Chaff", 500 },
		{ "Workload.Cache", 100 }, { "Workload.Late", 50 },
	};
	struct shot s;
	char more[1024];

	hw_classes(dump, 4, "", &s);
	for (size_t i = 0; i < sizeof last / sizeof last[0]; i++)
		ck_assert_msg(count_in(&s, last[i].name) == last[i].n, "%s: %llu, want %llu", last[i].name,
			      count_in(&s, last[i].name), last[i].n);
	free(s.rows);
	/* 1 -> 3: the Cache and Late are new, the kept Sessions, Leafs and
	 * Chaff old (the Chaff moved in between) */
	snprintf(more, sizeof more, "--baseline '%s:1' -e new", dump);
	hw_classes(dump, 3, more, &s);
	ck_assert_msg(count_in(&s, "Workload.Cache") == 100 && count_in(&s, "Workload.Late") == 50 &&
		      count_in(&s, "Workload.Session") == 0 && count_in(&s, "Workload.Chaff") == 0 &&
		      count_in(&s, "Workload.Leaf") == 0, "new 1->3: Cache %llu Late %llu Session %llu Chaff %llu",
		      count_in(&s, "Workload.Cache"), count_in(&s, "Workload.Late"), count_in(&s, "Workload.Session"),
		      count_in(&s, "Workload.Chaff"));
	free(s.rows);
	snprintf(more, sizeof more, "--baseline '%s:1' -e old", dump);
	hw_classes(dump, 3, more, &s);
	ck_assert(count_in(&s, "Workload.Session") == 150 && count_in(&s, "Workload.Chaff") == 500 &&
		  count_in(&s, "Workload.Leaf") == 450 && count_in(&s, "Workload.Cache") == 0);
	free(s.rows);
	/* 2 -> 3: only the Late are new; 4500 Chaff are gone since 1 */
	snprintf(more, sizeof more, "--baseline '%s:2' -e new", dump);
	hw_classes(dump, 3, more, &s);
	ck_assert(count_in(&s, "Workload.Late") == 50 && count_in(&s, "Workload.Cache") == 0 &&
		  count_in(&s, "Workload.Chaff") == 0);
	free(s.rows);
	snprintf(more, sizeof more, "--baseline '%s:1' -e gone", dump);
	hw_classes(dump, 3, more, &s);
	ck_assert_msg(count_in(&s, "Workload.Chaff") == 4500 && count_in(&s, "Workload.Session") == 150,
		      "gone: Chaff %llu Session %llu", count_in(&s, "Workload.Chaff"),
		      count_in(&s, "Workload.Session"));
	free(s.rows);
	/* diff: the per-class deltas, with the new objects of the replay */
	char args[1024];
	int st;
	snprintf(args, sizeof args, "-q -f csv diff '%s:1' '%s:3'", dump, dump);
	char *out = hw(args, &st);
	ck_assert_msg(st == 0 && strstr(out, "\nWorkload.Cache,0,100,100,"), "%s", out);
	free(out);
	/* the static list's root: a registered range of static fields */
	snprintf(args, sizeof args, "-q '%s' -e 'instances System.Collections.Generic.List<Workload.Session> | paths'",
		 dump);
	out = hw(args, &st);
	ck_assert_msg(st == 0 && strstr(out, "static (Static Fields)"), "%s", out);
	free(out);
	/* it says what it rests on */
	snprintf(args, sizeof args, "-q --heapshot 3 --baseline '%s:1' '%s' -e 'new | classes'", dump, dump);
	out = hw(args, &st);
	ck_assert_msg(st == 0 && strstr(out, "the GC's moves replayed through heapshots 1, 2, 3 of "), "%s", out);
	/* a pinned object taken to be the one at its address is inferred, not exact */
	ck_assert_msg(strstr(out, strstr(out, "pinned in the nursery") ? "identity:   inferred for " :
				  "identity:   exact: the GC's"), "%s", out);
	free(out);
	/* with the later heapshot's own collection alone between them, an
	 * object pinned in the nursery is the one at its address: exact (the
	 * file's Main args array stays pinned at heapshots 1 to 3) */
	snprintf(args, sizeof args, "-q --heapshot 2 --baseline '%s:1' '%s' -e 'new | classes'", dump, dump);
	out = hw(args, &st);
	ck_assert_msg(st == 0 && strstr(out, "identity:   exact: the GC's moves replayed through heapshots 1, 2 of ") &&
			      strstr(out, ", 1 collection)") && !strstr(out, "pinned in the nursery"),
		      "%s", out);
	free(out);
}

/* The node of class name's only instance. */
static node_t only(const struct heap *h, const char *name)
{
	node_t found = HW_NONE;

	for (node_t v = 1; v < h->n; v++)
		if (strcmp(class_name(h, h->node_class[v]), name) == 0) {
			ck_assert_msg(found == HW_NONE, "two %s", name);
			found = v;
		}
	ck_assert_msg(found != HW_NONE, "no %s", name);
	return found;
}

/* The elements of the array a List<Workload.Chaff> holds: el[i] the
 * node at index i (by the reference's label, "[i]"), HW_NONE if none. */
static size_t chaff_list(const struct heap *h, node_t *el, size_t max)
{
	node_t list = only(h, "System.Collections.Generic.List<Workload.Chaff>"), arr = HW_NONE;
	struct sbuf lb;
	size_t n = 0;

	sbuf_init(&lb);
	for (edge_t e = h->out_start[list]; e < h->out_start[list + 1]; e++)
		if (strcmp(class_name(h, h->node_class[h->out[e]]), "Workload.Chaff[]") == 0)
			arr = h->out[e];
	ck_assert(arr != HW_NONE);
	for (size_t i = 0; i < max; i++)
		el[i] = HW_NONE;
	for (edge_t e = h->out_start[arr]; e < h->out_start[arr + 1]; e++) {
		sbuf_reset(&lb);
		heap_edge_label(h, arr, h->out[e], &lb);
		unsigned long i;
		ck_assert_msg(sscanf(lb.buf, "[%lu]", &i) == 1 && i < max, "%s", lb.buf);
		el[i] = h->out[e];
		n = i + 1 > n ? i + 1 : n;
	}
	sbuf_free(&lb);
	return n;
}

/* Object by object: round 2's list keeps every 10th Chaff of round
 * 1's; heapshot 3's Chaff at index j is heapshot 1's at index 10 j.
 * The GC moved some of them: the pairing by address is wrong there. */
static void identity_by_lists(const char *dump)
{
	struct open_opts o = { .no_cache = 1, .quiet = 1 };
	struct heap a, b;
	struct sbuf err, how, why;
	static node_t ea[6000], eb[6000];

	sbuf_init(&err);
	sbuf_init(&how);
	sbuf_init(&why);
	o.snapshot = 1;
	ck_assert_msg(heap_open(&a, dump, &o, NULL, &err) == 0, "%s", err.buf);
	o.snapshot = 3;
	ck_assert_msg(heap_open(&b, dump, &o, NULL, &err) == 0, "%s", err.buf);
	heap_need(&a, HP_ALL, NULL);
	heap_need(&b, HP_ALL, NULL);
	ck_assert(a.fmt->identity != NULL);
	size_t na = chaff_list(&a, ea, 6000), nb = chaff_list(&b, eb, 6000);
	ck_assert_msg(na == 5000 && nb == 500, "%zu %zu", na, nb);
	node_t *same = malloc((b.n + 1) * sizeof *same);
	ck_assert_msg(b.fmt->identity(&b, &a, same, &how, &why) == 0, "%s", why.buf);
	unsigned moved = 0;
	for (size_t j = 0; j < 500; j++) {
		ck_assert(ea[10 * j] != HW_NONE && eb[j] != HW_NONE);
		ck_assert_msg(same[eb[j]] == ea[10 * j], "Chaff %zu of heapshot 3 (0x%llx) paired with node %u, "
			      "want %u (0x%llx)", j, (unsigned long long)heap_node_id(&b, eb[j]), same[eb[j]],
			      ea[10 * j], (unsigned long long)heap_node_id(&a, ea[10 * j]));
		moved += heap_node_id(&b, eb[j]) != heap_node_id(&a, ea[10 * j]);
	}
	ck_assert_msg(moved > 0, "no Chaff moved between heapshots 1 and 3: the test proves nothing");
	free(same);
	heap_free(&a);
	heap_free(&b);
	sbuf_free(&err);
	sbuf_free(&how);
	sbuf_free(&why);
}

/* Cut copies of the fixture, every 499 bytes through its first heapshot:
 * the heapshot's line in the list (the first pass's count) and the heap
 * opened of it agree, objects and bytes. The first pass left out an
 * object cut after its size, which the heap kept: one fewer. */
START_TEST(test_mono_cut_counts)
{
	size_t len;
	char *bytes = file_bytes(FIXTURE, &len);
	char path[512];
	size_t tried = 0;

	ck_assert(bytes != NULL && len > 150000);
	snprintf(path, sizeof path, "%s/cut.mlpd", MONODIR);
	ck_assert_int_eq(system("mkdir -p " MONODIR), 0);
	for (size_t cut = 60000; cut < 150000; cut += 499) {
		FILE *f = fopen(path, "wb");
		ck_assert(f != NULL && fwrite(bytes, 1, cut, f) == cut && fclose(f) == 0);
		struct open_opts o = { .no_cache = 1, .quiet = 1, .snapshot = 1 };
		struct heap h;
		struct sbuf err;
		sbuf_init(&err);
		if (heap_open(&h, path, &o, NULL, &err) != 0) { /* cut before its first object */
			sbuf_free(&err);
			continue;
		}
		heap_need(&h, HP_SHALLOW, NULL);
		uint64_t sum = 0;
		for (node_t v = 1; v < h.n; v++)
			sum += h.node_shallow[v];
		ck_assert_msg(h.nsnaps >= 1 && h.snaps[0].objects == h.n - 1 && h.snaps[0].bytes == sum,
			      "cut at %zu: the list says %llu objects, %llu bytes; the heap has %llu, %llu", cut,
			      (unsigned long long)(h.nsnaps ? h.snaps[0].objects : 0),
			      (unsigned long long)(h.nsnaps ? h.snaps[0].bytes : 0), (unsigned long long)(h.n - 1),
			      (unsigned long long)sum);
		tried++;
		heap_free(&h);
		sbuf_free(&err);
	}
	ck_assert_uint_gt(tried, 100);
	free(bytes);
}
END_TEST

/* ---- one index cache for the default heapshot ----
 * The heapshot an open that names none reads (the last complete one)
 * has one index cache, the file's own (FILE.hwi), whichever open comes
 * first: a named open of that heapshot reads it, or writes it, and makes
 * no FILE.N.hwi; another heapshot has its own. Every open's view is the
 * one without any cache. */

/* FILE's cache files: bit 0 FILE.hwi, bit N FILE.N.hwi (N <= 4). */
static unsigned caches_of(const char *file)
{
	unsigned got = 0;
	struct stat st;
	char c[700];

	for (unsigned n = 0; n <= 4; n++) {
		if (n == 0)
			snprintf(c, sizeof c, "%s.hwi", file);
		else
			snprintf(c, sizeof c, "%s.%u.hwi", file, n);
		got |= stat(c, &st) == 0 ? 1u << n : 0;
	}
	return got;
}

static long long own_cache_mtime(const char *file)
{
	char c[700];
	struct stat st;

	snprintf(c, sizeof c, "%s.hwi", file);
	ck_assert_int_eq(stat(c, &st), 0);
	return (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
}

/* `heapwalk -q [--heapshot N] classes -n 0 FILE` (N 0: none named)
 * against the same with --no-cache. */
static void same_as_cold(const char *file, unsigned n)
{
	char args[900], hs[32] = "";
	int st;

	if (n > 0)
		snprintf(hs, sizeof hs, "--heapshot %u ", n);
	snprintf(args, sizeof args, "-q %sclasses -n 0 '%s'", hs, file);
	char *got = hw(args, &st);
	ck_assert_int_eq(st, 0);
	snprintf(args, sizeof args, "-q --no-cache %sclasses -n 0 '%s'", hs, file);
	char *want = hw(args, &st);
	ck_assert_int_eq(st, 0);
	ck_assert_msg(strcmp(got, want) == 0, "heapshot %u: not the cold open's:\n%s\n---\n%s", n, got, want);
	free(got);
	free(want);
}

START_TEST(test_mono_one_cache)
{
	char file[600], cut[600], args[900], sh[2200];
	size_t len;
	int st;
	char *bytes = file_bytes(FIXTURE, &len);

	ck_assert_ptr_nonnull(bytes);
	snprintf(file, sizeof file, "%s/one.mlpd", hw_tmpdir());
	snprintf(cut, sizeof cut, "%s/cut.mlpd", hw_tmpdir());
	FILE *f = fopen(file, "wb");
	ck_assert(f != NULL && fwrite(bytes, 1, len, f) == len && fclose(f) == 0);
	/* cut inside heapshot 4: the default is 3 */
	f = fopen(cut, "wb");
	ck_assert(f != NULL && fwrite(bytes, 1, len * 95 / 100, f) == len * 95 / 100 && fclose(f) == 0);
	free(bytes);
	snprintf(args, sizeof args, "--no-cache info '%s' 2>&1", cut);
	char *info = hw(args, &st);
	ck_assert_msg(strstr(info, "heapshot 4 is cut short") != NULL && strstr(info, "the last complete one (3) is read"),
		      "%s", info); /* the test's premise */
	free(info);
	for (int order = 0; order < 2; order++) {
		const char *fl = order == 0 ? file : cut;
		unsigned def = order == 0 ? 4 : 3, other = 2;
		/* none named first, then the default named */
		same_as_cold(fl, 0);
		ck_assert_uint_eq(caches_of(fl), 1);
		long long t = own_cache_mtime(fl);
		same_as_cold(fl, def);
		ck_assert_uint_eq(caches_of(fl), 1); /* no FILE.N.hwi */
		ck_assert_msg(own_cache_mtime(fl) == t, "the file's own cache written again");
		/* the default named first, then none named */
		snprintf(args, sizeof args, "rm -f '%s'.*hwi", fl);
		ck_assert_int_eq(system(args), 0);
		same_as_cold(fl, def);
		ck_assert_uint_eq(caches_of(fl), 1);
		t = own_cache_mtime(fl);
		same_as_cold(fl, 0);
		ck_assert_uint_eq(caches_of(fl), 1);
		ck_assert_msg(own_cache_mtime(fl) == t, "the file's own cache written again");
		/* another heapshot: a cache of its own, the file's own untouched */
		same_as_cold(fl, other);
		ck_assert_uint_eq(caches_of(fl), 1u | 1u << other);
		same_as_cold(fl, other);
		ck_assert_msg(own_cache_mtime(fl) == t, "the file's own cache written again");
		if (order == 0) {
			/* a heapshot's cache of its own for the default (as a named
			 * open wrote it before), a part of it damaged: the rebuild
			 * writes the file's own, and that one goes */
			snprintf(sh, sizeof sh, "cp '%s.hwi' '%s.4.hwi' && printf XXXX | dd of='%s.4.hwi' bs=1 seek=4000 "
				 "conv=notrunc 2>/dev/null", fl, fl, fl);
			ck_assert_int_eq(system(sh), 0);
			snprintf(args, sizeof args, "--heapshot 4 '%s' -e 'all | merged-in' 2>&1 >/dev/null", fl);
			char *said = hw(args, &st);
			ck_assert_msg(st == 0 && strstr(said, "corrupt") != NULL, "%s", said); /* the test's premise */
			free(said);
			ck_assert_uint_eq(caches_of(fl), 1u | 1u << other);
			said = hw(args, &st);
			ck_assert_msg(st == 0 && strstr(said, "corrupt") == NULL, "%s", said);
			free(said);
			same_as_cold(fl, def);
		}
		if (order == 1) { /* the cut one named: its own too */
			same_as_cold(fl, 4);
			ck_assert_uint_eq(caches_of(fl), 1u | 1u << other | 1u << 4);
			/* the default's warnings, whichever open wrote its cache:
			 * the plain open's after a named one (this order), the named
			 * one's after a plain one */
			for (int named = 0; named < 2; named++) {
				snprintf(args, sizeof args, "%sinfo '%s' 2>&1", named ? "--heapshot 3 " : "", fl);
				info = hw(args, &st);
				ck_assert_msg(st == 0 && strstr(info, "heapshot 4 is cut short by the end of the file; the "
									 "last complete one (3) is read") != NULL,
					      "%s", info);
				free(info);
				snprintf(args, sizeof args, "rm -f '%s'.hwi", fl);
				ck_assert_int_eq(system(args), 0);
				snprintf(args, sizeof args, "-q info '%s' >/dev/null", fl); /* the cache, by a plain open */
				free(hw(args, &st));
			}
		}
	}
}
END_TEST

START_TEST(test_mono_recorded)
{
	mlpd_vs_report(FIXTURE, FIXTURE ".report");
	workload_planted(FIXTURE);
	identity_by_lists(FIXTURE);
}
END_TEST

/* Leak suspects on Mono: round 3 keeps 150 Sessions (mprof-report's
 * count) in a list, and 50 Late objects hold the first 50 of them too:
 * those 50 are held from two places, by no one object, and are 10% of
 * the heap: "accumulated in instances of Workload.Session", held by 51
 * strong holders (the 50 Lates and the list's array). Their bytes lie
 * between their own and their Leafs' shallow sizes (the report's) with
 * their byte[64]'s 64 bytes, and that with 64 bytes of headers more. */
START_TEST(test_mono_accumulated)
{
	struct shot want[16];
	int st;
	size_t n = read_report(FIXTURE ".report", want, 16);

	ck_assert_uint_ge(n, 4);
	struct row *sess = row_of(&want[3], "Workload.Session"), *leaf = row_of(&want[3], "Workload.Leaf");
	ck_assert(sess != NULL && leaf != NULL && leaf->count == 3 * sess->count);
	char *out = hw("--no-cache -q inspect " FIXTURE " leak-suspects -f csv", &st);
	ck_assert_int_eq(st, 0);
	char *row = strstr(out, "\"accumulated in instances of Workload.Session: ");
	ck_assert_msg(row != NULL, "%s", out);
	char *bol = row, *eol = strchr(row, '\n');
	while (bol > out && bol[-1] != '\n')
		bol--;
	if (eol != NULL)
		*eol = '\0';
	unsigned long long objects, shallow, retained;
	ck_assert_msg(sscanf(bol, "%*[^,],medium,%llu,%llu,%llu,", &objects, &shallow, &retained) == 3, "%s", bol);
	ck_assert_uint_eq(objects, 50);
	ck_assert_uint_eq(shallow, 50 * (sess->bytes / sess->count));
	unsigned long long one = sess->bytes / sess->count + 3 * (leaf->bytes / leaf->count) + 64;
	ck_assert_msg(retained >= 50 * one && retained <= 50 * (one + 64), "%llu bytes, %llu each", retained, one);
	char want1[160];
	snprintf(want1, sizeof want1, "50 of its %llu instances retain ", (unsigned long long)sess->count);
	ck_assert_msg(strstr(row, want1) != NULL, "want %s in %s", want1, row);
	ck_assert_msg(strstr(row, "no one object keeps them alive; held by 51 strong holders (50 Workload.Late") != NULL,
		      "%s", row);
	free(out);
	for (size_t i = 0; i < n; i++)
		free(want[i].rows);
}
END_TEST

/* largest-arrays on every heapshot: the arrays are the objects of the
 * classes mprof-report names with a rank ("System.Byte[]"); with room
 * for all, as many as its rows count and their bytes. It examined none
 * when the Mono reader had no runtime to tell an array by its class. */
START_TEST(test_mono_largest_arrays)
{
	struct shot want[16];
	size_t n = read_report(FIXTURE ".report", want, 16);

	ck_assert_uint_ge(n, 4);
	for (size_t k = 0; k < n; k++) {
		unsigned long long count = 0, bytes = 0;
		for (size_t i = 0; i < want[k].n; i++) {
			size_t len = strlen(want[k].rows[i].name);
			if (len > 2 && strcmp(want[k].rows[i].name + len - 2, "[]") == 0) {
				count += want[k].rows[i].count;
				bytes += want[k].rows[i].bytes;
			}
		}
		ck_assert_uint_gt(count, 0);
		char args[512], *p;
		int st;
		snprintf(args, sizeof args, "-q --no-cache --heapshot %zu inspect " FIXTURE " largest-arrays 100000 -f json",
			 k + 1);
		char *out = hw(args, &st);
		ck_assert_msg(st == 0, "%s", out);
		unsigned long long examined = 0, shallow = 0;
		ck_assert_msg((p = strstr(out, "\"examined\":")) != NULL && sscanf(p, "\"examined\":%llu", &examined) == 1,
			      "%.300s", out);
		ck_assert_msg((p = strstr(out, "\"total_shallow\":")) != NULL &&
			      sscanf(p, "\"total_shallow\":%llu", &shallow) == 1, "%.300s", out);
		ck_assert_msg(examined == count && shallow == bytes,
			      "heapshot %zu: %llu arrays of %llu bytes examined, mprof-report: %llu of %llu", k + 1,
			      examined, shallow, count, bytes);
		free(out);
	}
	for (size_t i = 0; i < n; i++)
		free(want[i].rows);
}
END_TEST

/* Cut and damaged copies of the fixture, and options that do not fit. */
START_TEST(test_mono_bad_input)
{
	int st;
	char *out;

	ck_assert_int_eq(system("mkdir -p " MONODIR), 0);
	/* cut inside the last heapshot (its events end some 10 kB before the
	 * file does):
	 * the three before, with a warning */
	out = hw("-q info -f json " FIXTURE, &st);
	ck_assert_int_eq(st, 0);
	free(out);
	ck_assert_int_eq(system("f=" FIXTURE "; n=$(stat -c %s $f); head -c $((n - 20000)) $f > " MONODIR
				"/cut.mlpd && head -c 100 $f > " MONODIR "/head.mlpd && head -c 30 $f > " MONODIR
				"/short.mlpd"), 0);
	out = hw("info " MONODIR "/cut.mlpd 2>&1", &st);
	ck_assert_msg(st == 0 && strstr(out, "heapshot 4 is cut short by the end of the file; the last complete "
					    "one (3) is read") &&
		      strstr(out, "heapshot:                 3 of 4") && strstr(out, ", cut short"), "%s", out);
	free(out);
	/* a gate takes no earlier heapshot for the file's (a trial: the
	 * rules passed on heapshot 3, exit 0), from the cache too; asked
	 * for, heapshot 3 is whole and measured */
	ck_assert_int_eq(system("printf 'set instances /./ : count >= 1\\n' > " MONODIR "/cut.rules"), 0);
	for (int cached = 0; cached < 2; cached++) {
		out = hw("-q check " MONODIR "/cut.mlpd --rules " MONODIR "/cut.rules 2>&1", &st);
		ck_assert_msg(WEXITSTATUS(st) == 2 && strstr(out, "/cut.mlpd is truncated: its last heapshot (4) is cut "
								  "short, and no rule is measured on an earlier one "
								  "unless asked for (--heapshot 3, the last whole one)"),
			      "%d %s", st, out);
		free(out);
	}
	out = hw("-q --heapshot 3 check " MONODIR "/cut.mlpd --rules " MONODIR "/cut.rules 2>&1", &st);
	ck_assert_msg(WEXITSTATUS(st) == 0 && strstr(out, "  pass ") != NULL, "%d %s", st, out);
	free(out);
	/* as the baseline: asked for as FILE:N, which --heapshot is not for it
	 * (a review: the advice changed the other dump's heapshot) */
	out = hw("-q check " FIXTURE " -b " MONODIR "/cut.mlpd --rules " MONODIR "/cut.rules 2>&1", &st);
	ck_assert_msg(WEXITSTATUS(st) == 2 && strstr(out, "unless asked for (-b " MONODIR "/cut.mlpd:3, the last whole "
							  "one)"), "%d %s", st, out);
	free(out);
	out = hw("-q check " FIXTURE " -b " MONODIR "/cut.mlpd:3 --rules " MONODIR "/cut.rules 2>&1", &st);
	ck_assert_msg(WEXITSTATUS(st) == 0 && strstr(out, "  pass ") != NULL, "%d %s", st, out);
	free(out);
	/* the cut one when asked for: as far as it goes */
	out = hw("--heapshot 4 info " MONODIR "/cut.mlpd 2>&1", &st);
	ck_assert_msg(st == 0 && strstr(out, "heapshot 4 is cut short by the end of the file: its objects up to "
					    "there"), "%s", out);
	free(out);
	out = hw("-q info " MONODIR "/head.mlpd 2>&1", &st);
	ck_assert_msg(st != 0 && strstr(out, "head.mlpd: offset ") &&
		      strstr(out, ": the file ends inside a buffer's header; no heapshot before it") &&
		      strchr(out, '\n') == strrchr(out, '\n'), "%s", out);
	free(out);
	/* its only heapshot cut: that one as far as it goes, with a warning
	 * (a trial: refused, pointing at --heapshot 1); cut before its first
	 * object, refused with no such advice; a buffer's damaged magic named
	 * as what stopped the reading, not the recording (a trial: "record
	 * with mono --profile=log:heapshot") */
	ck_assert_int_eq(system("f=" FIXTURE "; head -c 150000 $f > " MONODIR "/one.mlpd && head -c 60000 $f > "
				MONODIR "/none.mlpd && cp $f " MONODIR "/magic.mlpd && printf '\\0' | dd of=" MONODIR
				"/magic.mlpd bs=1 seek=91 conv=notrunc 2>/dev/null"), 0);
	out = hw("--no-cache info " MONODIR "/one.mlpd 2>&1", &st);
	ck_assert_msg(st == 0 && strstr(out, "heapshot 1 is cut short by the end of the file: its objects up to there") &&
		      strstr(out, "\nobjects:                  6582\n") && strstr(out, "\ntruncated_at:             150000\n"),
		      "%s", out);
	free(out);
	out = hw("--no-cache info " MONODIR "/none.mlpd 2>&1", &st);
	ck_assert_msg(WEXITSTATUS(st) == 2 &&
		      strstr(out, "none.mlpd: offset 60000: the file ends inside heapshot 1, before any of its objects\n") &&
		      strchr(out, '\n') == strrchr(out, '\n'), "%s", out);
	free(out);
	out = hw("--no-cache info " MONODIR "/magic.mlpd 2>&1", &st);
	ck_assert_msg(WEXITSTATUS(st) == 2 &&
		      strstr(out, "magic.mlpd: offset 91: no buffer starts here (bad magic); no heapshot before it\n") &&
		      strchr(out, '\n') == strrchr(out, '\n'), "%s", out);
	free(out);
	/* a buffer's magic damaged inside the first heapshot: cut there, and
	 * said so, not at the file's end (a review: truncated_at was the
	 * file's size) */
	ck_assert_int_eq(system("cp " FIXTURE " " MONODIR "/magic2.mlpd && printf '\\0' | dd of=" MONODIR
				"/magic2.mlpd bs=1 seek=90076 conv=notrunc 2>/dev/null"), 0);
	out = hw("--no-cache info " MONODIR "/magic2.mlpd 2>&1", &st);
	ck_assert_msg(st == 0 && strstr(out, "heapshot 1 is cut short at offset 90076 (no buffer starts here (bad magic)): "
					    "its objects up to there") &&
		      strstr(out, "\ntruncated_at:             90076\n"), "%s", out);
	free(out);
	out = hw("-q info " MONODIR "/short.mlpd 2>&1", &st);
	ck_assert_msg(st != 0 && strstr(out, "short.mlpd: offset ") && strstr(out, "ends inside its header") &&
		      strchr(out, '\n') == strrchr(out, '\n'), "%s", out);
	free(out);
	/* a data format heapwalk does not read; an event byte it does not
	 * know (type 15) in the first buffer: the rest of that buffer goes,
	 * with a warning that names the offset */
	ck_assert_int_eq(system("f=" FIXTURE "; cp $f " MONODIR "/v99.mlpd && printf '\\143' | dd of=" MONODIR
				"/v99.mlpd bs=1 seek=6 conv=notrunc 2>/dev/null"), 0);
	out = hw("-q info " MONODIR "/v99.mlpd 2>&1", &st);
	ck_assert_msg(st != 0 && strstr(out, "v99.mlpd: offset 6: data format outside 13..17"), "%s", out);
	free(out);
	/* the first buffer follows the header (its length: the three strings') */
	ck_assert_int_eq(system("f=" FIXTURE "; cp $f " MONODIR "/ev.mlpd && python3 -c \"\n"
				"import struct,sys\n"
				"b=bytearray(open('$f','rb').read()); p=8+8+8+4+4+4+2\n"
				"for i in range(3): p+=4+struct.unpack_from('<I',b,p)[0]\n"
				"b[p+48]=0x0f; open('" MONODIR "/ev.mlpd','wb').write(b); print(p+48)\" > " MONODIR
				"/ev.off"), 0);
	char *off = run("cat " MONODIR "/ev.off", &st);
	off[strcspn(off, "\n")] = '\0';
	char want[128];
	snprintf(want, sizeof want, "offset %s: event byte 0x0f not understood (data format 17)", off);
	out = hw("-v info " MONODIR "/ev.mlpd 2>&1", &st);
	ck_assert_msg(st == 0 && strstr(out, want), "%s\nwant %s", out, want);
	free(out);
	free(off);
	/* heapshots beyond the file's, and of a file of one heap */
	out = hw("-q --heapshot 9 info " FIXTURE " 2>&1", &st);
	ck_assert_msg(st != 0 && strstr(out, "no heapshot 9: the file holds 4 (1 to 4)"), "%s", out);
	free(out);
	/* FILE:0, and FILE:N with --heapshot another: one line each, not
	 * "no such file" nor the option's heapshot taken silently */
	out = hw("-q info " FIXTURE ":0 2>&1", &st);
	ck_assert_msg(WEXITSTATUS(st) == 2 && strcmp(out, "heapwalk: " FIXTURE ":0: no heapshot 0: they are counted "
			      "from 1\n") == 0, "%s", out);
	free(out);
	/* past what a heapshot's number can be: said so, not "no such file" */
	out = hw("-q info " FIXTURE ":4294967297 2>&1", &st);
	ck_assert_msg(WEXITSTATUS(st) == 2 && strcmp(out, "heapwalk: " FIXTURE ":4294967297: no heapshot 4294967297: "
			      "they are counted from 1 to 4294967295 at most\n") == 0, "%s", out);
	free(out);
	out = hw("-q --heapshot 5000000000 info " FIXTURE " 2>&1", &st); /* the option's: past its bound, said so */
	ck_assert_msg(WEXITSTATUS(st) == 1 && strstr(out, "--heapshot needs a number from 1 to 1000000000, not "
						   "'5000000000'"), "%s", out);
	free(out);
	out = hw("-q --heapshot 3 info " FIXTURE ":2 2>&1", &st);
	ck_assert_msg(WEXITSTATUS(st) == 2 && strcmp(out, "heapwalk: " FIXTURE ":2: --heapshot 3 names another "
			      "heapshot\n") == 0, "%s", out);
	free(out);
	out = hw("-q --heapshot 2 info " FIXTURE ":2 2>&1", &st); /* the same one twice: fine */
	ck_assert_msg(st == 0 && strstr(out, "heapshot:                 2 of 4"), "%s", out);
	free(out);
	ensure_dump("basic", "");
	out = hw("-q --heapshot 2 info " TEST_BUILDDIR "/dumps/basic.hprof 2>&1", &st);
	ck_assert_msg(st != 0 && strstr(out, "this HPROF file holds one heap: heapshot 2 is for files of several"),
		      "%s", out);
	free(out);
	/* the later heapshot as the baseline */
	out = hw("-q --heapshot 2 --baseline " FIXTURE ":3 -e new " FIXTURE " 2>&1", &st);
	ck_assert_msg(st != 0 && strstr(out, "is later than"), "%s", out);
	free(out);
	/* a diff of two heapshots of one file names each, as they were given */
	out = hw("-q --heapshot 3 diff " FIXTURE ":1 " FIXTURE, &st);
	ck_assert_msg(st == 0 && strstr(out, "baseline:") && strstr(out, "/mono/workload.mlpd:1\n") &&
		      strstr(out, "/mono/workload.mlpd:3\n"), "%.600s", out);
	free(out);
}
END_TEST

/* x's box holds want (whole: all of it), its blanks aside; then closed. */
static void x_box_holds(struct term *t, const char *want, int whole)
{
	keys(t, "x");
	char *s = wait_for(t, "The command that makes this step");
	char *inside = box_text(s), *w = squeeze(want);
	ck_assert_msg(whole ? strcmp(inside, w) == 0 : strstr(inside, w) != NULL, "the box holds '%s', not '%s'",
		      inside, w);
	free(inside);
	free(w);
	free(s);
	keys(t, "Escape");
}

/* The browser on the fixture: the last heapshot; H opens another, whose
 * classes are its own; B :1 loads heapshot 1 as the baseline, exactly,
 * and the classes' new column says what the workload made since. */
START_TEST(test_mono_browser)
{
	struct term t;

	term_start(&t, 120, 30, "", FIXTURE);
	char *s = wait_for(&t, "Step 1: All objects");
	has(s, "[heapshot 4 of 4]");
	char *row = line_of(s, "Workload.Late ");
	has(row, " 50 ");
	free(row);
	free(s);
	keys(&t, "H");
	free(wait_for(&t, "heapshot (1 to 4, now 4):"));
	type(&t, "3");
	keys(&t, "Enter");
	s = wait_for(&t, "[heapshot 3 of 4]");
	free(s);
	s = wait_for(&t, "Step 1: All objects");
	row = line_of(s, "Workload.Chaff ");
	has(row, " 500 ");
	free(row);
	free(s);
	keys(&t, "B");
	free(wait_for(&t, ":N heapshot N of this file"));
	type(&t, ":1");
	keys(&t, "Enter");
	s = wait_for(&t, "baseline loaded");
	int st;
	char *out = hw("-q --heapshot 3 --baseline " FIXTURE ":1 info " FIXTURE, &st); /* the command line's */
	const char *nl = strstr(out, "\nnew_objects:");
	ck_assert_msg(st == 0 && nl != NULL, "%s", out);
	/* partly inferred (the command line's baseline line says so first),
	 * the status line says so first too (it did not: a trial) */
	ck_assert_msg(strstr(out, "\nbaseline:                 inferred for 1 object counted old, exact for the rest: ") !=
		      NULL, "%s", out);
	char want[128];
	snprintf(want, sizeof want, "baseline loaded: inferred for 1 object counted old, exact for the rest: new %ld ",
		 strtol(nl + 13, NULL, 10));
	has(s, want);
	free(out);
	free(s);
	type(&t, ">");
	s = wait_for(&t, "Step 2:");
	row = line_of(s, "Workload.Cache ");
	has(row, " 100 ");
	free(row);
	lacks(s, "Workload.Chaff ");
	/* x: the command names the heapshot H opened (it named the file, whose
	 * last heapshot then gave 633 new objects, not the step's) */
	row = line_of(s, "Step 2:");
	const char *bar = strchr(row, '|');
	ck_assert_msg(bar != NULL, "%s", row);
	unsigned long long shown = strtoull(bar + 1, NULL, 10);
	free(row);
	free(s);
	x_box_holds(&t, "heapwalk -e 'new' --baseline '" FIXTURE ":1' '" FIXTURE ":3'", 1);
	/* a step of the baseline's side (gone): the command names the open
	 * dump's heapshot all the same (it named the baseline's, :1 twice) */
	type(&t, "~");
	free(wait_for(&t, "Gone since the baseline"));
	x_box_holds(&t, "--baseline '" FIXTURE ":1' '" FIXTURE ":3'", 0);
	keys(&t, "Left");
	free(wait_for(&t, "[2 New objects among"));
	out = hw("-q -e new --baseline " FIXTURE ":1 " FIXTURE ":3 info", &st);
	nl = strstr(out, "\nset_objects:");
	ck_assert_msg(st == 0 && nl != NULL && strtoull(nl + 13, NULL, 10) == shown && shown > 0,
		      "the screen's %llu: %s", shown, out);
	free(out);
	/* the use menu offers what a heapshot can answer: no class objects,
	 * collections' elements or loaders' classes (each refused as a step) */
	keys(&t, "u");
	s = wait_for(&t, "retained  the objects the set retains");
	lacks(s, "classes   the class objects");
	lacks(s, "elements  the elements");
	lacks(s, "loaded    the instances");
	has(s, "age       the set's objects of one GC generation (nursery, old)"); /* Mono's, not .NET's */
	free(s);
	keys(&t, "Escape");
	/* not a heapshot at or before the baseline's */
	keys(&t, "H");
	free(wait_for(&t, "heapshot (1 to 4, now 3):"));
	type(&t, "1");
	keys(&t, "Enter");
	free(wait_for(&t, "the baseline is heapshot 1: open a later one"));
	keys(&t, "q");
	term_stop(&t);
	/* opened as FILE:N, another heapshot by H: the file's (it was
	 * refused: "--heapshot 3 names another heapshot") */
	term_start(&t, 120, 30, "", FIXTURE ":2");
	free(wait_for(&t, "[heapshot 2 of 4]"));
	keys(&t, "H");
	free(wait_for(&t, "heapshot (1 to 4, now 2):"));
	type(&t, "3");
	keys(&t, "Enter");
	s = wait_for(&t, "[heapshot 3 of 4]");
	free(s);
	keys(&t, "q");
	term_stop(&t);
}
END_TEST

/* leaks over four heapshots or more takes them earliest first, each
 * after the one before: two swapped were taken for a series (each was
 * compared with the first alone), exact, nothing grown every time. The
 * copy in a directory of the build's: the cache goes beside it. */
START_TEST(test_mono_series_order)
{
	int st;
	char *out = run("mkdir -p " MONODIR " && cp " FIXTURE " " MONODIR "/series.mlpd", &st);
	ck_assert_msg(st == 0, "%s", out);
	free(out);
	out = hw("-q leaks " MONODIR "/series.mlpd:1 " MONODIR "/series.mlpd:3 " MONODIR "/series.mlpd:2 " MONODIR
		 "/series.mlpd:4 2>&1", &st);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 2 &&
		      strstr(out, "/series.mlpd:2 does not follow ") != NULL &&
		      strstr(out, "/series.mlpd:3 (the series goes earliest first): the baseline, heapshot 3 of ") != NULL &&
		      strstr(out, "is later than heapshot 2") != NULL &&
		      strchr(out, '\n') == out + strlen(out) - 1, "%s", out);
	free(out);
	out = hw("-q leaks " MONODIR "/series.mlpd:1 " MONODIR "/series.mlpd:2 " MONODIR "/series.mlpd:3 " MONODIR
		 "/series.mlpd:4", &st);
	ck_assert_msg(st == 0 && strstr(out, "grew_every_time:") != NULL, "%s", out);
	free(out);
	/* leaks is exact only where each comparison is: heapshot 1 to 3
	 * infers one object (diff says so), and leaks 1 2 3 said exact */
	out = hw("-q diff " MONODIR "/series.mlpd:1 " MONODIR "/series.mlpd:3", &st);
	int inferred = strstr(out, "\nidentity:            inferred for 1 object counted old, exact for the rest: ") != NULL;
	free(out);
	/* partly inferred (the fixture is fixed: so it stays): CSV on
	 * standard error, a report's (and the browser's) summary first say
	 * so, as text does (it was said in neither: a trial) */
	ck_assert_msg(inferred, "heapshots 1 to 3 of the fixture no longer partly inferred: the checks below see nothing");
	{
		static const char part[] = "heapwalk: identity: inferred for 1 object counted old, exact for the rest: ";
		out = run("\"$HEAPWALK\" -f csv diff " MONODIR "/series.mlpd:1 " MONODIR "/series.mlpd:3 2>&1 >/dev/null",
			  &st);
		ck_assert_msg(st == 0 && strncmp(out, part, sizeof part - 1) == 0, "%s", out);
		free(out);
		out = run("\"$HEAPWALK\" -q report " MONODIR "/series.mlpd:3 --baseline " MONODIR "/series.mlpd:1 -o "
			  MONODIR "/series.html && cat " MONODIR "/series.html", &st);
		ck_assert_msg(st == 0 && strstr(out, "\"summary\":\"inferred for 1 object counted old, exact for the rest: "
						       "new ") != NULL, "%.300s", out);
		free(out);
	}
	out = hw("-q leaks " MONODIR "/series.mlpd:1 " MONODIR "/series.mlpd:2 " MONODIR "/series.mlpd:3", &st);
	ck_assert_msg(st == 0 && (inferred ? strstr(out, "identity:        not exact: base to target exact; base to "
							  "final inferred for 1 object counted old, exact for the rest; "
							  "target to final exact\n") != NULL
					   : strncmp(out, "identity:        exact\n", 23) == 0), "%d: %s", inferred, out);
	free(out);
	out = hw("-q leaks " MONODIR "/series.mlpd:1 " MONODIR "/series.mlpd:2 " MONODIR "/series.mlpd:3 " MONODIR
		 "/series.mlpd:4", &st);
	ck_assert_msg(st == 0 && (inferred == (strncmp(out, "identity:        not exact: ", 28) == 0)) &&
		      (!inferred || strstr(out, "/series.mlpd:1 to ") != NULL), "%d: %s", inferred, out);
	free(out);
	/* check names the heapshot it measured, as diff does (the bare
	 * file read as its last: a trial) */
	out = run("printf 'set all : count > 0\\n' > " MONODIR "/series.rules", &st);
	free(out);
	out = hw("-q -f json check --heapshot 3 --rules " MONODIR "/series.rules " MONODIR "/series.mlpd", &st);
	ck_assert_msg(st == 0 && strncmp(out, "{\"view\":\"check\",\"dump\":\"", 24) == 0 &&
		      strstr(out, "/series.mlpd:3\",\"rules\":") != NULL, "%s", out);
	free(out);
	/* new with no baseline: the file's earlier heapshots named, not a
	 * mark heapwalk never took ("heapwalk took it after none": a trial) */
	out = hw("-q -e new classes " MONODIR "/series.mlpd 2>&1", &st);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 2 &&
		      strstr(out, "series.mlpd: no baseline: the dump has no mark and no --baseline was given: give "
			     "--baseline OLD, or an earlier heapshot of this file (--baseline FILE:N, N below 4)\n") != NULL,
		      "%s", out);
	free(out);
}
END_TEST

/* Where mono is installed: the workload compiled and recorded now,
 * plain and with the profiler's zip option (a gzip stream). */
START_TEST(test_mono_live)
{
	if (!have("mono") || !have("mcs") || !have("mprof-report")) {
		fprintf(stderr, "mono: mono, mcs or mprof-report is not installed (Debian: mono-runtime mono-mcs "
				"libmono-profiler mono-utils): the live test is skipped (tests/mono/workload.mlpd is "
				"read all the same)\n");
		return;
	}
	ck_assert_int_eq(system("mkdir -p " MONODIR " && cd " MONODIR " && rm -f live.mlpd livez.mlpd && "
				"mcs -nowarn:649 -out:wl.exe " TEST_SRCDIR "/mono/Workload.cs > mcs.log 2>&1 && "
				"mono --profile=log:heapshot,output=live.mlpd wl.exe > run.log 2>&1 && "
				"mono --profile=log:heapshot,zip,output=livez.mlpd wl.exe > runz.log 2>&1 && "
				"mprof-report --reports=heapshot --verbose live.mlpd > live.report && "
				"mprof-report --reports=heapshot --verbose livez.mlpd > livez.report"), 0);
	int st;
	char *magic = run("od -An -tx1 -N2 " MONODIR "/livez.mlpd", &st);
	ck_assert_msg(strstr(magic, "1f 8b"), "zip did not make a gzip file: %s", magic);
	free(magic);
	mlpd_vs_report(MONODIR "/live.mlpd", MONODIR "/live.report");
	mlpd_vs_report(MONODIR "/livez.mlpd", MONODIR "/livez.report");
	workload_planted(MONODIR "/live.mlpd");
	identity_by_lists(MONODIR "/live.mlpd");
	workload_planted(MONODIR "/livez.mlpd");
	/* recorded without move events: matched, and it says why */
	ck_assert_int_eq(system("cd " MONODIR " && rm -f nomove.mlpd && mono --profile=log:nodefaults,heapshot,"
				"output=nomove.mlpd wl.exe > runn.log 2>&1"), 0);
	char *out = hw("-q --heapshot 3 --baseline " MONODIR "/nomove.mlpd:1 -e new " MONODIR "/nomove.mlpd", &st);
	ck_assert_msg(st == 0 && strstr(out, "identity:   inferred: ") &&
		      strstr(out, "(not exact: ") && strstr(out, "has no GC move events"), "%s", out);
	free(out);
}
END_TEST

/* ---- old and new across heapshots, object by object ----
 *
 * tests/mono/Chain.cs notes, after each of its five collections, every
 * object's address as its weak GC handle finds it (0: died); that is
 * the truth, independent of the profiler's file. Object i is index i
 * (items 0..23499), big array 30000 + i index 23500 + i. */

#define CH_ITEMS 23500
#define CH_BIG0 30000
#define CH_N (CH_ITEMS + 30)
#define CH_CHECKS 5

static uint64_t ch_addr[CH_CHECKS + 1][CH_N];

static void chain_truth(const char *path)
{
	FILE *f = fopen(path, "r");
	unsigned c, id;
	unsigned long long a;
	size_t n = 0;

	ck_assert_msg(f != NULL, "%s", path);
	memset(ch_addr, 0, sizeof ch_addr);
	while (fscanf(f, "%u %u %llu", &c, &id, &a) == 3) {
		size_t i = id < CH_ITEMS ? id : CH_ITEMS + (id - CH_BIG0);
		ck_assert_msg(c >= 1 && c <= CH_CHECKS && i < CH_N, "%u %u", c, id);
		ch_addr[c][i] = a;
		n++;
	}
	fclose(f);
	ck_assert_msg(n == (size_t)CH_CHECKS * CH_N, "%s: %zu lines", path, n);
}

/* The checkpoint whose objects heapshot k of dump holds (each of the
 * workload's checkpoints leaves a different number alive), 0 if none. */
static unsigned chain_checkpoint(const struct heap *h)
{
	for (unsigned c = 1; c <= CH_CHECKS; c++) {
		size_t alive = 0, found = 0;
		for (size_t i = 0; i < CH_N; i++) {
			if (ch_addr[c][i] == 0)
				continue;
			alive++;
			node_t v = heap_find_id(h, ch_addr[c][i]);
			found += v != HW_NONE && strcmp(class_name(h, h->node_class[v]), i < CH_ITEMS ? "Chain.Item" :
							"System.Byte[]") == 0;
		}
		size_t items = 0;
		for (node_t v = 1; v < h->n; v++)
			items += strcmp(class_name(h, h->node_class[v]), "Chain.Item") == 0;
		size_t want = 0;
		for (size_t i = 0; i < CH_ITEMS; i++)
			want += ch_addr[c][i] != 0;
		if (found == alive && items == want)
			return c;
	}
	return 0;
}

struct chain_count { unsigned old, fresh, gone, moved, reused; };

/* Heapshot k of dump against heapshot j, object by object: an object
 * the workload had at both checkpoints is paired with itself, one it
 * made since is new, one that died in between is gone. how: what the
 * answer said it rests on. */
static struct chain_count chain_pair(const char *dump, unsigned j, unsigned k, struct sbuf *how)
{
	struct open_opts o = { .no_cache = 1, .quiet = 1 };
	struct heap a, b;
	struct sbuf err, why;
	struct chain_count n = { 0 };

	sbuf_init(&err);
	sbuf_init(&why);
	o.snapshot = j;
	ck_assert_msg(heap_open(&a, dump, &o, NULL, &err) == 0, "%s", err.buf);
	o.snapshot = k;
	ck_assert_msg(heap_open(&b, dump, &o, NULL, &err) == 0, "%s", err.buf);
	heap_need(&a, HP_ALL, NULL);
	heap_need(&b, HP_ALL, NULL);
	unsigned ca = chain_checkpoint(&a), cb = chain_checkpoint(&b);
	ck_assert_msg(ca != 0 && cb != 0 && ca < cb, "%s: heapshots %u and %u are checkpoints %u and %u", dump, j, k,
		      ca, cb);
	node_t *same = malloc((b.n + 1) * sizeof *same);
	unsigned char *hit = calloc(a.n + 1, 1);
	ck_assert_msg(b.fmt->identity(&b, &a, same, how, &why) == 0, "%s", why.buf);
	for (node_t v = 1; v < b.n; v++)
		if (same[v] != HW_NONE && same[v] < a.n)
			hit[same[v]] = 1;
	for (size_t i = 0; i < CH_N; i++) {
		uint64_t was = ch_addr[ca][i], is = ch_addr[cb][i];
		node_t vo = was ? heap_find_id(&a, was) : HW_NONE, vn = is ? heap_find_id(&b, is) : HW_NONE;
		ck_assert(!was || vo != HW_NONE);
		ck_assert(!is || vn != HW_NONE);
		if (is && was) {
			ck_assert_msg(same[vn] == vo, "%s %u->%u: object %zu (0x%llx, was 0x%llx) paired with node %u, "
				      "want %u", dump, j, k, i, (unsigned long long)is, (unsigned long long)was,
				      same[vn], vo);
			n.old++;
			n.moved += is != was;
		} else if (is) {
			ck_assert_msg(same[vn] == HW_NONE, "%s %u->%u: object %zu (0x%llx) made since is paired with "
				      "node %u (0x%llx)", dump, j, k, i, (unsigned long long)is, same[vn],
				      (unsigned long long)heap_node_id(&a, same[vn]));
			n.fresh++;
			for (size_t x = 0; x < CH_N; x++)
				n.reused += ch_addr[ca][x] == is;
		} else if (was) {
			ck_assert_msg(!hit[vo], "%s %u->%u: object %zu (0x%llx) died in between, but is not gone", dump,
				      j, k, i, (unsigned long long)was);
			n.gone++;
		}
	}
	free(hit);
	free(same);
	heap_free(&a);
	heap_free(&b);
	sbuf_free(&err);
	sbuf_free(&why);
	return n;
}

/* Are mono and mcs installed? If not, 0 and a line that says so and
 * then what ("the ... tests are skipped"). */
static int have_mono(const char *what)
{
	if (have("mono") && have("mcs"))
		return 1;
	fprintf(stderr, "mono: mono or mcs is not installed (Debian: mono-runtime mono-mcs libmono-profiler): "
			"%s\n", what);
	return 0;
}

/* tests/mono/SRC compiled and run under the log profiler's heapshots,
 * into MONODIR/NAME.mlpd: the JSON line it writes of what it made. */
static char *record_program(const char *name, const char *src)
{
	int st;
	char *cmd = xasprintf("mkdir -p '" MONODIR "' && cd '" MONODIR "' && rm -f %s.mlpd %s.json && "
			      "mcs -out:%s.exe '" TEST_SRCDIR "/mono/%s' > mcs-%s.log 2>&1 && "
			      "mono --profile=log:heapshot,output=%s.mlpd %s.exe %s.json > run-%s.log 2>&1",
			      name, name, name, src, name, name, name, name, name);
	ck_assert_msg(system(cmd) == 0, "%s", cmd);
	free(cmd);
	cmd = xasprintf("cat '" MONODIR "/%s.json'", name);
	char *json = run(cmd, &st);
	ck_assert_int_eq(st, 0);
	free(cmd);
	return json;
}

/* long-chains on Mono: tests/mono/Links.cs's lists, each of the length
 * it counted walking it, its fields at the offsets its layout gives
 * them; the doubly linked list as two chains, one through each. */
START_TEST(test_mono_chains)
{
	if (!have_mono("the long-chains test is skipped"))
		return;
	char *json = record_program("links", "Links.cs");
	chain_found(MONODIR "/links.mlpd", "Links.Link.+16", json_count(json, "Link"));
	chain_found(MONODIR "/links.mlpd", "Links.DLink.+16", json_count(json, "DLink"));
	chain_found(MONODIR "/links.mlpd", "Links.DLink.+24", json_count(json, "DLink"));
	free(json);
}
END_TEST

/* Node arr's references to objects of class cls: want of them, each
 * labelled as fmt reads one unsigned number (then ']'), each number
 * step * k + first for a k below limit, all apart but where step is 1
 * and limit 1 (one object referred to from several places: each
 * reference named by the first). */
static void ck_labels(const struct heap *h, node_t arr, const char *cls, const char *fmt, long want, unsigned step,
		      unsigned first, unsigned limit)
{
	const char *an = class_name(h, h->node_class[arr]);
	unsigned got[128];
	struct sbuf lb;
	long n = 0;

	sbuf_init(&lb);
	for (edge_t e = h->out_start[arr]; e < h->out_start[arr + 1]; e++) {
		if (strcmp(class_name(h, h->node_class[h->out[e]]), cls) != 0)
			continue;
		sbuf_reset(&lb);
		heap_edge_label(h, arr, h->out[e], &lb);
		char tail;
		unsigned x;
		ck_assert_msg(n < 128 && sscanf(lb.buf, fmt, &x, &tail) == 2 && tail == ']', "%s -> %s: label %s, not %s",
			      an, cls, lb.buf, fmt);
		ck_assert_msg(x >= first && (x - first) % step == 0 && (x - first) / step < limit,
			      "%s -> %s: %u is not %u k + %u below %u", an, cls, x, step, first, limit);
		for (long j = 0; j < n && limit > 1; j++)
			ck_assert_msg(got[j] != x, "%s -> %s: %u twice", an, cls, x);
		got[n++] = x;
	}
	ck_assert_msg(n == want, "%s -> %s: %ld references, want %ld", an, cls, n, want);
	sbuf_free(&lb);
}

/* tests/mono/Arrays.cs's arrays: an element's index where the array is
 * known to hold references, and where its elements may be structs (the
 * file gives no element size) the reference's byte in the elements,
 * "[+N]": Pair[]'s are 24 bytes, A at +0 and B at +16 (the program's
 * explicit layout), every third one set. An index made as for pointers
 * there was three times too high (a Dictionary's Entry[] named elements
 * past its end). Then the views that group elements group these. */
START_TEST(test_mono_array_labels)
{
	struct open_opts o = { .no_cache = 1, .quiet = 1, .snapshot = 1 };
	struct heap h;
	struct sbuf err;
	int st;

	if (!have_mono("the arrays' labels test is skipped"))
		return;
	char *json = record_program("arrays", "Arrays.cs");
	sbuf_init(&err);
	ck_assert_msg(heap_open(&h, MONODIR "/arrays.mlpd", &o, NULL, &err) == 0, "%s", err.buf);
	heap_need(&h, HP_ALL, NULL);
	/* the structs: by their bytes, 72 apart (every third of 24) */
	node_t pairs = only(&h, "Arrays.Pair[]");
	long np = json_count(json, "Pair");
	ck_labels(&h, pairs, "Arrays.Left", "[+%u%c", np, 72, 0, 20);
	ck_labels(&h, pairs, "Arrays.Right", "[+%u%c", np, 72, 16, 20);
	/* references: indexes */
	ck_labels(&h, only(&h, "Arrays.Left[]"), "Arrays.Left", "[%u%c", json_count(json, "Left"), 2, 0, 30);
	/* four rows, one array: each reference named by the first */
	ck_labels(&h, only(&h, "Arrays.Left[][]"), "Arrays.Left[]", "[%u%c", 4, 1, 0, 1);
	node_t objects = HW_NONE; /* the System.Object[] that holds the Rights */
	for (node_t v = 1; v < h.n; v++)
		if (strcmp(class_name(&h, h.node_class[v]), "System.Object[]") == 0)
			for (edge_t e = h.out_start[v]; e < h.out_start[v + 1]; e++)
				if (strcmp(class_name(&h, h.node_class[h.out[e]]), "Arrays.Right") == 0)
					objects = v;
	ck_assert(objects != HW_NONE);
	ck_labels(&h, objects, "Arrays.Right", "[%u%c", json_count(json, "Right"), 5, 0, 16);
	/* an interface's array: no object of its element type, so not known */
	ck_labels(&h, only(&h, "Arrays.IThing[]"), "Arrays.Thing", "[+%u%c", json_count(json, "Thing"), 8, 0, 60);
	heap_free(&h);
	sbuf_free(&err);
	/* one group of elements, as an index's are */
	char *out = hw("-q --heapshot 1 -e 'instances Arrays.Right' " MONODIR "/arrays.mlpd merged-in --by field", &st);
	ck_assert_msg(st == 0 && strstr(out, "\nArrays.Pair[].[]  ") && strstr(out, "\nSystem.Object[].[]  "), "%s",
		      out);
	free(out);
	free(json);
}
END_TEST

/* Where mono is installed: Chain.cs recorded twice, with a heapshot at
 * every major collection (five: the chain replays through those
 * between) and at every second one (heapshot=2gc: collections 2 and 4
 * make none, and what the answer rests on there is inferred, counted
 * and said). */
START_TEST(test_mono_chain)
{
	if (!have_mono("the chained old/new tests are skipped"))
		return;
	ck_assert_int_eq(system("mkdir -p " MONODIR " && cd " MONODIR " && rm -f chain*.mlpd chain*.txt && "
				"mcs -unsafe -nowarn:649,414 -out:chain.exe " TEST_SRCDIR "/mono/Chain.cs > mcsc.log 2>&1 && "
				"mono --profile=log:heapshot,output=chain.mlpd chain.exe chain.txt > runc.log 2>&1 && "
				"mono --profile=log:heapshot=2gc,output=chain2.mlpd chain.exe chain2.txt > runc2.log 2>&1"),
			 0);
	struct sbuf how;
	sbuf_init(&how);
	/* every collection a heapshot: 1 -> 5 through 2, 3 and 4, exact;
	 * the big arrays made after 3 at the addresses of those that died
	 * at 3 are new, which only heapshot 3 tells */
	chain_truth(MONODIR "/chain.txt");
	struct chain_count n = chain_pair(MONODIR "/chain.mlpd", 1, 5, &how);
	ck_assert_msg(n.old == 2000 + 10 && n.fresh == 800 + 2000 + 3000 + 500 + 10 && n.gone == 6000 + 10,
		      "old %u new %u gone %u", n.old, n.fresh, n.gone);
	ck_assert_msg(n.reused > 0, "no new object at the address of a dead one: the test proves nothing");
	ck_assert_msg(strstr(how.buf, "exact: the GC's moves replayed through heapshots 1, 2, 3, 4, 5 of ") ||
		      strstr(how.buf, "inferred for 1 object counted old, exact for the rest: the GC's moves replayed "
				      "through heapshots 1, 2, 3, 4, 5 of "), "%s", how.buf);
	ck_assert_msg(!strstr(how.buf, "made no heapshot"), "%s", how.buf);
	/* 2 -> 4 through 3, where the 800 left of 8000..15999 moved */
	sbuf_reset(&how);
	n = chain_pair(MONODIR "/chain.mlpd", 2, 4, &how);
	ck_assert_msg(n.old == 4000 + 800 + 10 && n.moved > 0, "old %u moved %u", n.old, n.moved);
	ck_assert_msg(strstr(how.buf, "through heapshots 2, 3, 4 of ") && !strstr(how.buf, "made no heapshot"), "%s",
		      how.buf);
	/* every second collection a heapshot: 1, 2, 3 are checkpoints 1, 3
	 * and 5; 2 and 4 made none. The objects of 1 still at their address
	 * in 2 are old (inferred, counted); the big arrays that died at 3
	 * and whose addresses new ones took are gone and new */
	chain_truth(MONODIR "/chain2.txt");
	sbuf_reset(&how);
	n = chain_pair(MONODIR "/chain2.mlpd", 1, 3, &how);
	ck_assert_msg(n.old == 2000 + 10 && n.gone == 6000 + 10 && n.reused > 0, "old %u gone %u reused %u", n.old,
		      n.gone, n.reused);
	unsigned long long inferred = 0;
	const char *p = strstr(how.buf, "inferred for ");
	ck_assert_msg(p == how.buf && sscanf(p, "inferred for %llu object", &inferred) == 1 && inferred >= n.old &&
		      strstr(how.buf, "through heapshots 1, 2, 3 of ") &&
		      strstr(how.buf, "2 major collections made no heapshot (1 after heapshot 1, 1 after heapshot 2)") &&
		      !strstr(how.buf, "exact:"), "%s", how.buf);
	/* 2 -> 3 across checkpoint 4: 8000..15999's rest and the half of
	 * 16000..19999 kept were evacuated there, out of sparse blocks */
	sbuf_reset(&how);
	n = chain_pair(MONODIR "/chain2.mlpd", 2, 3, &how);
	ck_assert_msg(n.old == 2000 + 800 + 2000 + 10 && n.fresh == 3000 + 500 + 10 && n.gone == 2000 + 2000 &&
		      n.moved > 0, "old %u new %u gone %u moved %u", n.old, n.fresh, n.gone, n.moved);
	ck_assert_msg(strstr(how.buf, "1 major collection made no heapshot (1 after heapshot 2)"), "%s", how.buf);
	sbuf_free(&how);
}
END_TEST

/* ---- crafted files: a writer of the log format ----
 *
 * The header (data format 17, 8-byte pointers), then buffers of one
 * thread's events each. Pointer and object bases are 0: a pointer is
 * written as it is, an object as its address >> 3. Each event comes
 * 1 ns after the one before it, or later by what mw_wait() adds. */

struct mw {
	struct sbuf b;
	size_t buf;    /* the open buffer's header, or SIZE_MAX */
	uint64_t wait; /* added to the next event's time */
};

/* v in n bytes, little-endian (past 8 bytes: zeros) */
static void mw_le(struct mw *w, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		sbuf_addc(&w->b, (char)(i < 8 ? v >> 8 * i : 0));
}

static void mw_uleb(struct mw *w, uint64_t v)
{
	do {
		uint8_t b = v & 0x7f;
		v >>= 7;
		sbuf_addc(&w->b, (char)(v != 0 ? b | 0x80 : b));
	} while (v != 0);
}

static void mw_sleb(struct mw *w, int64_t v)
{
	uint64_t u = (uint64_t)v;

	for (;;) {
		uint8_t b = u & 0x7f;
		u = v < 0 ? u >> 7 | ~(UINT64_MAX >> 7) : u >> 7; /* the sign shifted in */
		int done = (u == 0 && !(b & 0x40)) || (u == UINT64_MAX && (b & 0x40));
		sbuf_addc(&w->b, (char)(done ? b : b | 0x80));
		if (done)
			return;
	}
}

static void mw_str(struct mw *w, const char *s)
{
	sbuf_add(&w->b, s, strlen(s) + 1);
}

/* The file's header: a process of that pid, started at ms. */
static void mw_begin(struct mw *w, uint32_t pid, uint64_t ms)
{
	static const char *const strs[] = { "crafted", "x86-64", "linux" }; /* args, arch, os */

	sbuf_init(&w->b);
	w->buf = SIZE_MAX;
	w->wait = 0;
	mw_le(w, 0x4D505A01, 4);
	mw_le(w, 3 | 0 << 8 | 17 << 16 | 8 << 24, 4); /* log 3.0, data 17, pointers of 8 bytes */
	mw_le(w, ms, 8);
	mw_le(w, 0, 8 + 4 + 4); /* ns, timer overhead, flags */
	mw_le(w, pid, 4);
	mw_le(w, 0, 2);
	for (int i = 0; i < 3; i++) {
		mw_le(w, strlen(strs[i]) + 1, 4);
		mw_str(w, strs[i]);
	}
}

/* The open buffer's length filled in. */
static void mw_close(struct mw *w)
{
	if (w->buf == SIZE_MAX)
		return;
	uint32_t len = (uint32_t)(w->b.len - w->buf - 48);
	for (int i = 0; i < 4; i++)
		w->b.buf[w->buf + 4 + i] = (char)(len >> 8 * i);
	w->buf = SIZE_MAX;
}

/* A buffer of thread tid's events from time t on. */
static void mw_buf(struct mw *w, uint64_t tid, uint64_t t)
{
	mw_close(w);
	w->buf = w->b.len;
	mw_le(w, 0x4D504C01, 4);
	mw_le(w, 0, 4);
	mw_le(w, t, 8);
	mw_le(w, 0, 8 + 8); /* ptr_base, obj_base */
	mw_le(w, tid, 8);
	mw_le(w, 0, 8); /* method_base */
}

static void mw_wait(struct mw *w, uint64_t ns)
{
	w->wait += ns;
}

/* An event's byte and time; its file offset. */
static size_t mw_ev(struct mw *w, unsigned ev)
{
	size_t at = w->b.len;

	sbuf_addc(&w->b, (char)ev);
	mw_uleb(w, 1 + w->wait);
	w->wait = 0;
	return at;
}

/* Class klass named name, and its vtable vt (what objects point at). */
static void mw_class(struct mw *w, uint64_t vt, uint64_t klass, const char *name)
{
	mw_ev(w, 0x02);
	mw_le(w, 1, 1); /* CLASS */
	mw_sleb(w, (int64_t)klass);
	mw_sleb(w, 0x77000); /* image */
	mw_str(w, name);
	mw_ev(w, 0x02);
	mw_le(w, 7, 1); /* VTABLE */
	mw_sleb(w, (int64_t)vt);
	mw_sleb(w, 0); /* domain */
	mw_sleb(w, (int64_t)klass);
}

/* Two classes every crafted file has. */
#define VT_A 0x1000
#define VT_B 0x1100
static void mw_classes(struct mw *w)
{
	mw_class(w, VT_A, 0x2000, "Crafted.A");
	mw_class(w, VT_B, 0x2100, "Crafted.B");
}

/* HEAP_OBJECT: addr, of vtable vt, size bytes, in the old generation,
 * claiming nrefs references of which the n of to[] follow (8 bytes
 * apart); its file offset. */
static size_t mw_obj(struct mw *w, uint64_t addr, uint64_t vt, uint64_t size, uint64_t nrefs, const uint64_t *to,
		     size_t n)
{
	size_t at = mw_ev(w, 0x26);

	mw_sleb(w, (int64_t)(addr >> 3));
	mw_sleb(w, (int64_t)vt);
	mw_uleb(w, size);
	mw_le(w, 1, 1);
	mw_uleb(w, nrefs);
	for (size_t i = 0; i < n; i++) {
		mw_uleb(w, 8);
		mw_sleb(w, (int64_t)(to[i] >> 3));
	}
	return at;
}

/* HEAP_ROOT_REGISTER: the root slots [start, start + size) of MonoGCRootSource source. */
static void mw_root_range(struct mw *w, uint64_t start, uint64_t size, unsigned source, const char *what)
{
	mw_ev(w, 0x46);
	mw_sleb(w, (int64_t)start);
	mw_uleb(w, size);
	mw_le(w, source, 1);
	mw_sleb(w, 0); /* key */
	mw_str(w, what);
}

/* HEAP_ROOT: each of obj[] held by a slot from 0x7f0000 on. */
static void mw_roots(struct mw *w, const uint64_t *obj, size_t n)
{
	mw_ev(w, 0x36);
	mw_uleb(w, n);
	for (size_t i = 0; i < n; i++) {
		mw_sleb(w, (int64_t)(0x7f0000 + 8 * i));
		mw_sleb(w, (int64_t)(obj[i] >> 3));
	}
}

/* A collection of generation gen starts. */
static void mw_gc(struct mw *w, unsigned gen)
{
	mw_ev(w, 0x11);
	mw_le(w, 0, 1);
	mw_le(w, gen, 1);
}

/* MOVE: claiming count objects, of which the n of pair[] (old, new) follow. */
static size_t mw_moves(struct mw *w, uint64_t count, const uint64_t *pair, size_t n)
{
	size_t at = mw_ev(w, 0x31);

	mw_uleb(w, count);
	for (size_t i = 0; i < n; i++)
		mw_sleb(w, (int64_t)(pair[i] >> 3));
	return at;
}

/* A heapshot of A objects at a[] and B objects at b[] (16 bytes each,
 * no references), all of them roots. */
static void mw_shot(struct mw *w, const uint64_t *a, size_t na, const uint64_t *b, size_t nb)
{
	mw_ev(w, 0x06);
	for (size_t i = 0; i < na + nb; i++)
		mw_obj(w, i < na ? a[i] : b[i - na], i < na ? VT_A : VT_B, 16, 0, NULL, 0);
	mw_roots(w, a, na);
	mw_roots(w, b, nb);
	mw_ev(w, 0x16);
}

/* The file written as MONODIR/name; its path (caller frees). */
static char *mw_write(struct mw *w, const char *name)
{
	char *path = xasprintf("%s/%s", MONODIR, name);

	mw_close(w);
	ck_assert_int_eq(system("mkdir -p " MONODIR), 0);
	FILE *f = fopen(path, "wb");
	ck_assert_msg(f != NULL && fwrite(w->b.buf, 1, w->b.len, f) == w->b.len && fclose(f) == 0, "%s", path);
	sbuf_free(&w->b);
	return path;
}

/* Objects of A and B in heapshot k of path (with the options more). */
static void count_ab(const char *path, unsigned k, const char *more, unsigned long long *a, unsigned long long *b)
{
	struct shot s;

	hw_classes(path, k, more, &s);
	*a = count_in(&s, "Crafted.A");
	*b = count_in(&s, "Crafted.B");
	free(s.rows);
}

/* Every view and inspection on a crafted file, as the mlpd fuzzer runs
 * them (fuzz/drive_dump.c); a crash or a sanitizer report fails the test. */
static void all_views(const char *path)
{
	size_t n;
	char *data = file_bytes(path, &n);

	setenv("TMPDIR", hw_tmpdir(), 1); /* the fuzz body's files in the build directory */
	ck_assert_int_eq(fuzz_mlpd((const uint8_t *)data, n), 0);
	free(data);
}

/* Two heapshots in one buffer: each read as its own. */
START_TEST(test_mono_two_in_a_buffer)
{
	static const uint64_t a[3] = { 0x10000, 0x10010, 0x10020 }, b[5] = { 0x20000, 0x20010, 0x20020, 0x20030, 0x20040 };
	unsigned long long na, nb;
	struct mw w;

	mw_begin(&w, 7, 1700000000000ull);
	mw_buf(&w, 1, 1000);
	mw_classes(&w);
	mw_shot(&w, a, 3, NULL, 0);
	mw_shot(&w, NULL, 0, b, 5);
	char *path = mw_write(&w, "two-in-a-buffer.mlpd");
	count_ab(path, 1, "", &na, &nb);
	ck_assert_msg(na == 3 && nb == 0, "heapshot 1: %llu A, %llu B; want 3 A", na, nb);
	count_ab(path, 2, "", &na, &nb);
	ck_assert_msg(na == 0 && nb == 5, "heapshot 2: %llu A, %llu B; want 5 B", na, nb);
	all_views(path);
	free(path);
}
END_TEST

/* An object cut short after its size, before its generation (format
 * 16): kept, in neither generation, and said so. A heapshot of three A
 * objects in the old generation (gen byte 1), the file cut at the third
 * one's gen byte; whole, all three are old (a trial: the cut one was
 * counted in the nursery). */
START_TEST(test_mono_untold_gen)
{
	static const uint64_t a[3] = { 0x10000, 0x10010, 0x10020 };
	struct mw w;

	mw_begin(&w, 7, 1700000000000ull);
	mw_buf(&w, 1, 1000);
	mw_classes(&w);
	mw_ev(&w, 0x06);
	mw_obj(&w, a[0], VT_A, 16, 0, NULL, 0);
	mw_obj(&w, a[1], VT_A, 16, 0, NULL, 0);
	mw_ev(&w, 0x26); /* the third by hand: where its gen byte is */
	mw_sleb(&w, (int64_t)(a[2] >> 3));
	mw_sleb(&w, VT_A);
	mw_uleb(&w, 16);
	size_t cut = w.b.len;
	mw_le(&w, 1, 1);
	mw_uleb(&w, 0);
	mw_roots(&w, a, 3);
	mw_ev(&w, 0x16);
	char *path = mw_write(&w, "untold-gen.mlpd");
	size_t len;
	char *bytes = file_bytes(path, &len);
	char *cutp = xasprintf("%s/untold-gen-cut.mlpd", MONODIR);
	FILE *f = fopen(cutp, "wb");
	ck_assert(bytes != NULL && cut < len && f != NULL && fwrite(bytes, 1, cut, f) == cut && fclose(f) == 0);
	free(bytes);
	for (int cutshort = 0; cutshort < 2; cutshort++) {
		const char *file = cutshort ? cutp : path;
		static const char *const gens[2] = { "nursery", "old" };
		unsigned long long want[2] = { 0, cutshort ? 2 : 3 };
		for (int g = 0; g < 2; g++) {
			char args[1400];
			int st;
			snprintf(args, sizeof args, "-q --no-cache -f json '%s' -e 'generation %s' info", file, gens[g]);
			char *out = hw(args, &st);
			const char *o = strstr(out, "\"set_objects\":");
			ck_assert_msg(st == 0 && o != NULL && strtoull(o + 14, NULL, 10) == want[g],
				      "%s: generation %s: want %llu objects: %s", file, gens[g], want[g], out);
			free(out);
		}
		char args[1400];
		int st;
		snprintf(args, sizeof args, "-v --no-cache info '%s' 2>&1 >/dev/null", file);
		char *err = hw(args, &st);
		const char *said = strstr(err, ": 1 object cut short before its generation: in neither generation");
		ck_assert_msg(st == 0 && (said != NULL) == cutshort, "%s: %s", file, err);
		free(err);
		snprintf(args, sizeof args, "-q --no-cache -f json info '%s'", file);
		char *out = hw(args, &st);
		const char *o = strstr(out, "\"objects\":");
		ck_assert_msg(st == 0 && o != NULL && strtoull(o + 10, NULL, 10) == 3, "%s: %s", file, out);
		free(out);
	}
	all_views(cutp);
	free(cutp);
	free(path);
}
END_TEST

/* New and old objects of heapshot k against heapshot 1 of the same
 * file: *a and *b of A and B. */
static void count_new_old(const char *path, unsigned k, unsigned long long *new_a, unsigned long long *new_b,
			  unsigned long long *old_a, unsigned long long *old_b)
{
	char more[1024];

	snprintf(more, sizeof more, "--baseline '%s:1' -e new", path);
	count_ab(path, k, more, new_a, new_b);
	snprintf(more, sizeof more, "--baseline '%s:1' -e old", path);
	count_ab(path, k, more, old_a, old_b);
}

/* The replay of the GC's moves (--baseline FILE:N) on files that move
 * an object from address 0, or end their heapshots out of time order:
 * the two A of heapshot 1 (one moved, one not) are old, the B new. */
static const uint64_t a1[2] = { 0x10000, 0x10008 }, a2[2] = { 0x30000, 0x10008 }, b1[1] = { 0x50000 };
static const uint64_t mv[4] = { 0x10000, 0x30000, 0, 0x40000 }; /* the second from address 0 */

/* A file's start: thread 1's buffer, the classes, heapshot 1 (a1). */
static void moves_begin(struct mw *w)
{
	mw_begin(w, 7, 1700000000000ull);
	mw_buf(w, 1, 1000);
	mw_classes(w);
	mw_shot(w, a1, 2, NULL, 0);
}

/* w as name: its heapshot k against 1 has the B new, the A old. */
static char *moves_check(struct mw *w, const char *name, unsigned k)
{
	unsigned long long na, nb, oa, ob;
	char *path = mw_write(w, name);

	count_new_old(path, k, &na, &nb, &oa, &ob);
	ck_assert_msg(na == 0 && nb == 1 && oa == 2 && ob == 0, "%s: new %llu A %llu B, old %llu A %llu B", path,
		      na, nb, oa, ob);
	return path;
}

START_TEST(test_mono_moves_hostile)
{
	struct mw w;

	/* heapshots 1 and 2, the moves between */
	moves_begin(&w);
	mw_gc(&w, 0);
	mw_moves(&w, 4, mv, 4);
	mw_shot(&w, a2, 2, b1, 1);
	free(moves_check(&w, "move-from-0.mlpd", 2));
	/* the same with a heapshot between */
	moves_begin(&w);
	mw_gc(&w, 0);
	mw_moves(&w, 4, mv, 4);
	mw_shot(&w, a2, 2, NULL, 0);
	mw_shot(&w, a2, 2, b1, 1);
	free(moves_check(&w, "move-from-0-between.mlpd", 3));
	/* heapshots 2 and 3 between, on two threads: 3 ends first though
	 * the file has 2's end first */
	moves_begin(&w);
	mw_buf(&w, 1, 2000);
	mw_gc(&w, 0);
	mw_moves(&w, 2, mv, 2);
	mw_ev(&w, 0x06);
	for (size_t i = 0; i < 2; i++)
		mw_obj(&w, a2[i], VT_A, 16, 0, NULL, 0);
	mw_roots(&w, a2, 2);
	mw_wait(&w, 800);
	mw_ev(&w, 0x16);
	mw_buf(&w, 2, 2100);
	mw_shot(&w, a2, 2, NULL, 0);
	mw_buf(&w, 1, 5000);
	mw_shot(&w, a2, 2, b1, 1);
	char *path = moves_check(&w, "ends-out-of-order.mlpd", 4);
	/* a copy's later heapshot as the baseline (the path does not tell):
	 * nothing to replay */
	char cmd[2048];
	int st;
	snprintf(cmd, sizeof cmd, "cp '%s' " MONODIR "/copy.mlpd && '%s' -q --heapshot 1 --baseline " MONODIR
		 "/copy.mlpd:4 '%s' -e 'new | classes' 2>&1", path, heapwalk(), path);
	char *out = run(cmd, &st);
	ck_assert_msg(st == 0 && strstr(out, "(not exact: the baseline's heapshot 4 comes after heapshot 1)") &&
		      !strstr(out, "replayed"), "%s", out);
	free(out);
	free(path);
}
END_TEST

/* Counts near 2^32 and 2^64 in every count field of the events a heap
 * walk reads, each in a buffer of its own: a HEAP_OBJECT's references,
 * a MOVE's objects, a HEAP_ROOT's roots. Each claims more than its
 * buffer holds: that buffer's rest is skipped with a warning naming the
 * first one's offset; the heapshot, whose end is in a later buffer, has
 * what came before them. Sizes near 2^32 and 2^64: kept below 4 GiB,
 * summed in 64 bits, with a warning. */
START_TEST(test_mono_hostile_counts)
{
	static const uint64_t claims[] = { 0xffffffffull, 0x100000000ull, 0x100000001ull, 1ull << 63, UINT64_MAX };
	static const uint64_t sizes[] = { 0xffffffffull, 0x100000000ull, 1ull << 63, UINT64_MAX };
	enum { NC = sizeof claims / sizeof claims[0], NS = sizeof sizes / sizeof sizes[0] };
	uint64_t addr = 0x10000, pair[2] = { 0x10000, 0x90000 };
	size_t first = 0, big = 0;
	struct mw w;

	mw_begin(&w, 7, 1700000000000ull);
	mw_buf(&w, 1, 1000);
	mw_classes(&w);
	mw_ev(&w, 0x06);
	for (size_t i = 0; i < NC; i++) {
		mw_buf(&w, 1, 2000 + 100 * i);
		size_t at = mw_obj(&w, addr, VT_A, 16, claims[i], &pair[1], 1);
		first = i == 0 ? at : first;
		addr += 16;
		mw_buf(&w, 1, 3000 + 100 * i);
		mw_moves(&w, claims[i], pair, 2);
		mw_buf(&w, 1, 4000 + 100 * i);
		mw_ev(&w, 0x36);
		mw_uleb(&w, claims[i]);
		mw_sleb(&w, 0x7f0000);
		mw_sleb(&w, (int64_t)(pair[0] >> 3));
	}
	mw_buf(&w, 1, 5000);
	for (size_t i = 0; i < NS; i++) {
		size_t at = mw_obj(&w, 0x20000 + 16 * i, VT_B, sizes[i], 0, NULL, 0);
		big = i == 1 ? at : big; /* sizes[0] is the largest kept */
	}
	mw_ev(&w, 0x16);
	char *path = mw_write(&w, "counts.mlpd");
	char cmd[2048], want[256];
	int st;
	snprintf(cmd, sizeof cmd, "'%s' -f json info '%s' 2>&1", heapwalk(), path);
	char *out = run(cmd, &st);
	snprintf(want, sizeof want, "counts.mlpd: offset %zu: event 0x26 runs past the end of its buffer", first);
	ck_assert_msg(st == 0 && strstr(out, want) && strstr(out, "and so in 15 buffers in all"), "%s\nwant %s", out,
		      want);
	/* the sizes: 4 GiB - 1 each, in the heapshot's total as in the heap's */
	unsigned long long bytes = NC * 16ull + NS * 0xffffffffull;
	snprintf(want, sizeof want, "\"objects\":%d,\"bytes\":%llu,\"complete\":true", NC + NS, bytes);
	ck_assert_msg(strstr(out, want), "%s\nwant %s", out, want);
	snprintf(want, sizeof want, "\"heap_bytes\":%llu", bytes);
	ck_assert_msg(strstr(out, want), "%s\nwant %s", out, want);
	snprintf(want, sizeof want, "offset %zu: an object of 4294967296 bytes, more than the 4294967295 a size holds "
		 "here: 3 such objects", big);
	ck_assert_msg(strstr(out, want), "%s\nwant %s", out, want);
	free(out);
	all_views(path);
	free(path);
}
END_TEST

/* Lengths near 2^32: a buffer's (the file's last, cut: its events up to
 * the file's end are read, with a warning naming it) and a header
 * string's (refused in one line naming the offset). */
START_TEST(test_mono_hostile_lengths)
{
	static const uint32_t lens[] = { 0x80000000u, 0xffffffffu };
	static const uint64_t a[2] = { 0x10000, 0x10010 };
	char cmd[2048], want[256];
	int st;

	for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
		struct mw w;
		mw_begin(&w, 7, 1700000000000ull);
		size_t at = w.b.len;
		mw_buf(&w, 1, 1000);
		mw_classes(&w);
		mw_shot(&w, a, 2, NULL, 0);
		mw_close(&w);
		size_t holds = w.b.len - at - 48;
		for (int k = 0; k < 4; k++)
			w.b.buf[at + 4 + k] = (char)(lens[i] >> 8 * k);
		char *path = mw_write(&w, "buffer-len.mlpd");
		snprintf(cmd, sizeof cmd, "'%s' info '%s' 2>&1", heapwalk(), path);
		char *out = run(cmd, &st);
		snprintf(want, sizeof want, "buffer-len.mlpd: offset %zu: a buffer of %u bytes, of which the file holds %zu; "
			 "its events up to the cut are read", at, lens[i], holds);
		ck_assert_msg(st == 0 && strstr(out, want) && strstr(out, "2 objects, 32 bytes"), "%s\nwant %s", out,
			      want);
		free(out);
		free(path);
	}
	/* the header's first string (args) claims 4 GiB - 1 bytes */
	struct mw w;
	mw_begin(&w, 7, 1700000000000ull);
	size_t args = 4 + 4 + 8 + 8 + 4 + 4 + 4 + 2;
	memset(w.b.buf + args, 0xff, 4);
	char *path = mw_write(&w, "header-len.mlpd");
	snprintf(cmd, sizeof cmd, "'%s' -q info '%s' 2>&1", heapwalk(), path);
	char *out = run(cmd, &st);
	snprintf(want, sizeof want, "header-len.mlpd: offset %zu: the file ends inside its header\n", args);
	ck_assert_msg(st != 0 && strstr(out, want) && strchr(out, '\n') == strrchr(out, '\n'), "%s\nwant %s", out, want);
	free(out);
	free(path);
}
END_TEST

/* Addresses and pointers far beyond the file (near 2^64, 2^63, and 0),
 * a vtable never described, references in cycles (a pair, an object to
 * itself), to an object not in the heapshot, and continued in a record
 * of size 0 away from their object; a root range of 2^64 - 1 bytes; a
 * class name with terminal controls in it (shown escaped). */
START_TEST(test_mono_far_and_cycles)
{
	static const uint64_t top = 0xfffffffffffffff8ull, mid = 0x7ffffffffffffff8ull, far = 0x123456789abcdef0ull;
	static const uint64_t vt_none = 0xfffffffffffffff0ull; /* no VTABLE event tells its class */
	const uint64_t to_top[1] = { 8 }, to_8[3] = { top, 8, far }, from_0[1] = { 8 }, to_mid[1] = { mid };
	struct mw w;

	mw_begin(&w, 7, 1700000000000ull);
	mw_buf(&w, 1, 1000);
	mw_classes(&w);
	mw_class(&w, 0x1200, 0x2200, "Crafted.\x1b[2J\x07\x9b" "31m");
	mw_root_range(&w, 0x7f0000, UINT64_MAX, 3, "Crafted range");
	mw_ev(&w, 0x06);
	mw_obj(&w, top, VT_A, 16, 1, to_top, 1);
	mw_obj(&w, 8, VT_A, 16, 3, to_8, 3);
	mw_obj(&w, 0, VT_A, 16, 1, from_0, 1);
	mw_obj(&w, mid, VT_B, 16, 1, to_mid, 1);
	mw_obj(&w, 0x4000, vt_none, 24, 0, NULL, 0);
	mw_obj(&w, 0x4100, 0x1200, 8, 0, NULL, 0);
	mw_obj(&w, 8, VT_A, 0, 1, to_mid, 1); /* more of 8's references, away from it */
	mw_roots(&w, (const uint64_t[]){ 8, 0x5555555555555550ull }, 2);
	mw_ev(&w, 0x16);
	char *path = mw_write(&w, "far.mlpd");
	char cmd[2048];
	int st;
	snprintf(cmd, sizeof cmd, "'%s' -q -f json info '%s' 2>&1", heapwalk(), path);
	char *out = run(cmd, &st);
	/* reachable: 8, top and mid, 16 bytes each; 0, the undescribed one
	 * and the controls' are not */
	ck_assert_msg(st == 0 && strstr(out, "\"objects\":6,") && strstr(out, "\"references\":6,") &&
		      strstr(out, "\"dangling_references\":1,") && strstr(out, "\"gc_root_objects\":1,") &&
		      strstr(out, "\"unreachable_objects\":3,\"unreachable_bytes\":48,") &&
		      strstr(out, "{\"root_kind\":\"statics: static\",\"records\":1,\"objects\":1}"), "%s", out);
	free(out);
	snprintf(cmd, sizeof cmd, "'%s' -q -f csv biggest '%s' 2>&1", heapwalk(), path);
	out = run(cmd, &st);
	ck_assert_msg(st == 0 && strstr(out, "\n0,0x8,Crafted.A,16,48,"), "%s", out);
	free(out);
	struct shot s;
	hw_classes(path, 1, "", &s);
	ck_assert(count_in(&s, "Crafted.A") == 3 && count_in(&s, "Crafted.B") == 1 &&
		  count_in(&s, "VTable(0xfffffffffffffff0)") == 1 && count_in(&s, "Crafted.\\x1b[2J\\x07\\x9b31m") == 1);
	free(s.rows);
	snprintf(cmd, sizeof cmd, "'%s' -q classes '%s' 2>&1", heapwalk(), path);
	out = run(cmd, &st);
	ck_assert_msg(st == 0 && strstr(out, "Crafted.\\x1b[2J\\x07\\x9b31m ") && !strchr(out, '\x1b') &&
		      !strchr(out, '\a') && !strstr(out, "\x9b"), "%s", out);
	free(out);
	all_views(path);
	free(path);
}
END_TEST

/* An object's references far into it: each reference of the crafted
 * object is 8 bytes past the one before (mw_obj), so its k-th (from 0)
 * is at +8(k + 1), and those from the 8191st on lie 64 KiB or more in,
 * kept apart from the two-byte offsets of the rest. A path through
 * each names the offset the file gave, cold and from the index cache. */
START_TEST(test_mono_far_offsets)
{
	enum { N = 8200 };
	static const unsigned ks[] = { 0, 1, 2, 8190, 8191, 8192, N - 1 };
	uint64_t *to = xmalloc(N * sizeof *to);
	struct mw w;
	int st;

	for (size_t k = 0; k < N; k++)
		to[k] = 0x100000 + 16 * k;
	mw_begin(&w, 7, 1700000000000ull);
	mw_buf(&w, 1, 1000);
	mw_classes(&w);
	mw_ev(&w, 0x06);
	mw_obj(&w, 0x10000, VT_A, 16, N, to, N);
	/* another at offsets 65534, 65535 and 65536 (deltas not 8 apart):
	 * either side of the two-byte bound */
	mw_ev(&w, 0x26);
	mw_sleb(&w, 0x20000 >> 3);
	mw_sleb(&w, VT_A);
	mw_uleb(&w, 16);
	mw_le(&w, 1, 1);
	mw_uleb(&w, 3);
	for (size_t k = 0; k < 3; k++) {
		mw_uleb(&w, k == 0 ? 65534 : 1);
		mw_sleb(&w, (int64_t)(to[k] >> 3));
	}
	for (size_t k = 0; k < N; k++)
		mw_obj(&w, to[k], VT_B, 16, 0, NULL, 0);
	mw_roots(&w, (const uint64_t[]){ 0x10000, 0x20000 }, 2);
	mw_ev(&w, 0x16);
	char *path = mw_write(&w, "offsets.mlpd");
	char *cache = xasprintf("%s.hwi", path);
	unlink(cache);
	for (int pass = 0; pass < 3; pass++) { /* no cache, writing it, from it */
		for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
			char args[512], want[64];
			snprintf(args, sizeof args, "-q %s -f json paths '%s' 0x%llx", pass == 0 ? "--no-cache" : "", path,
				 (unsigned long long)to[ks[i]]);
			char *out = hw(args, &st);
			snprintf(want, sizeof want, "\"via\":\"+%u\"", 8 * (ks[i] + 1));
			ck_assert_msg(st == 0 && strstr(out, want) != NULL, "pass %d, want %s: %s", pass, want, out);
			/* the second referrer's offset */
			if (ks[i] < 3) {
				snprintf(want, sizeof want, "\"via\":\"+%u\"", 65534 + ks[i]);
				ck_assert_msg(strstr(out, want) != NULL, "pass %d, want %s: %s", pass, want, out);
			}
			free(out);
		}
		ck_assert_int_eq(access(cache, F_OK) == 0, pass > 0);
	}
	unlink(cache);
	free(cache);
	free(path);
	free(to);
}
END_TEST

/* heapwalk args on path, given 120 s: a hang ends it (status 124). */
static char *hw_hang(const char *args, const char *path, int *st)
{
	char cmd[2048];

	snprintf(cmd, sizeof cmd, "timeout 120 '%s' %s '%s' 2>&1", heapwalk(), args, path);
	return run(cmd, st);
}

/* A million threads of one empty buffer each, and a million root ranges
 * registered then a million unregistered: each a lookup in a table, not
 * a search of all (quadratic: hours), within a timeout that only a hang
 * reaches. The root ranges still nest: the latest of a start goes first. */
START_TEST(test_mono_many_threads_ranges)
{
	enum { MANY = 1000000 };
	static const uint64_t a[2] = { 0x10000, 0x10010 };
	struct mw w;
	int st;

	mw_begin(&w, 7, 1700000000000ull);
	for (uint64_t t = 1; t <= MANY; t++)
		mw_buf(&w, t, 1000);
	mw_buf(&w, MANY + 1, 2000);
	mw_classes(&w);
	mw_shot(&w, a, 2, NULL, 0);
	char *path = mw_write(&w, "threads.mlpd");
	char *out = hw_hang("-q -f json info", path, &st);
	ck_assert_msg(st == 0 && strstr(out, "\"objects\":2,"), "%s", out);
	free(out);
	unlink(path);
	free(path);
	mw_begin(&w, 7, 1700000000000ull);
	mw_buf(&w, 1, 1000);
	mw_classes(&w);
	mw_root_range(&w, 0x7f0000, 0x100, 3, "first");
	mw_root_range(&w, 0x7f0000, 0x100, 6, "second");
	mw_ev(&w, 0x56); /* unregistered: second */
	mw_sleb(&w, 0x7f0000);
	for (uint64_t i = 0; i < MANY; i++)
		mw_root_range(&w, 0x1000000 + 16 * i, 8, 4, "");
	for (uint64_t i = 0; i < MANY; i++) {
		mw_ev(&w, 0x56); /* a start never registered */
		mw_sleb(&w, 0x10);
	}
	mw_shot(&w, a, 1, NULL, 0);
	path = mw_write(&w, "ranges.mlpd");
	out = hw_hang("-q -e 'all | paths'", path, &st);
	ck_assert_msg(st == 0 && strstr(out, "static (first)"), "%s", out);
	free(out);
	unlink(path);
	free(path);
}
END_TEST

/* A reference left out (the step ignore) moves out of the heap's
 * references; the labels of the others are still their own, and the
 * left-out one is named by its own: each object's references as the
 * file gave them are kept apart for their labels. Broken (labels taken
 * by place in the references), the path's first step read +128 instead
 * of +16 and the left-out reference "<?>". In the committed file the
 * array 0x7f4321fc0130 comes before the list that holds it, so every
 * reference of the path lies after the one left out. */
START_TEST(test_mono_ignore_labels)
{
	int st;
	char *plain = hw("-q --no-cache paths " FIXTURE " 0x7f43230f8360", &st);
	ck_assert_int_eq(st, 0);
	ck_assert_msg(strstr(plain, " +16 ") != NULL && strstr(plain, " [147]") != NULL, "%s", plain);
	char *ign = hw("-q --no-cache --ignore '0x7f4321fc0130 [0]' paths " FIXTURE " 0x7f43230f8360", &st);
	ck_assert_int_eq(st, 0);
	ck_assert_msg(strcmp(plain, ign) == 0, "without:\n%s\nwith [0] of the array left out:\n%s", plain, ign);
	char *info = hw("-q --no-cache --ignore '0x7f4321fc0130 [0]' info " FIXTURE, &st);
	ck_assert_msg(st == 0 && strstr(info, "\nreferences_left_out:      0x7f4321fc0130 .[0] -> 0x") != NULL, "%s",
		      info);
	free(plain);
	free(ign);
	free(info);
}
END_TEST

/* The scratch file filling up at any point of a cold open (a file size
 * limit, SIGXFSZ ignored as a shell may): what would have waited there
 * (the heapshot's references as read, then each object's count of them,
 * then its node) stays in memory, or the heapshot is read again into
 * memory, and the answer is the one a roomy disk gives. Every limit up
 * to 32 KiB, a block (512 bytes) at a time, for the biggest objects
 * (their retained sizes need every reference); then doubling. The
 * sections of tests/mono/workload.mlpd's references, counts and nodes
 * end near 12 KiB: each fails in turn. */
START_TEST(test_mono_scratch_full)
{
	static const char *const views[] = { "biggest -n 50", "classes -n 1000", "info" };
	char args[512], cmd[4096];
	int st;

	for (size_t v = 0; v < sizeof views / sizeof views[0]; v++) {
		snprintf(args, sizeof args, "-q --no-cache %s '%s'", views[v], FIXTURE);
		char *want = hw(args, &st);
		ck_assert_msg(st == 0, "%s", want);
		for (unsigned blocks = 1; blocks <= 4096; blocks = v == 0 && blocks < 64 ? blocks + 1 : blocks * 2) {
			snprintf(cmd, sizeof cmd, "trap '' XFSZ; ulimit -f %u; '%s' %s 2>/dev/null", blocks, heapwalk(),
				 args);
			char *got = run(cmd, &st);
			ck_assert_msg(st == 0, "ulimit -f %u: %s", blocks, got);
			ck_assert_msg(strcmp(got, want) == 0, "ulimit -f %u, %s: %s\nwant %s", blocks, views[v], got, want);
			free(got);
		}
		free(want);
	}
}
END_TEST

Suite *mono_suite(void)
{
	Suite *s = suite_create("mono");
	TCase *tc = tcase_create("mlpd");

	tcase_set_timeout(tc, FIXTURE_TIMEOUT);
	tcase_add_test(tc, test_mono_recorded);
	tcase_add_test(tc, test_mono_one_cache);
	tcase_add_test(tc, test_mono_accumulated);
	tcase_add_test(tc, test_mono_largest_arrays);
	tcase_add_test(tc, test_mono_cut_counts);
	tcase_add_test(tc, test_mono_ignore_labels);
	tcase_add_test(tc, test_mono_far_offsets);
	tcase_add_test(tc, test_mono_bad_input);
	tcase_add_test(tc, test_mono_series_order);
	tcase_add_test(tc, test_mono_browser);
	tcase_add_test(tc, test_mono_live);
	tcase_add_test(tc, test_mono_chain);
	tcase_add_test(tc, test_mono_chains);
	tcase_add_test(tc, test_mono_array_labels);
	tcase_add_test(tc, test_mono_scratch_full);
	suite_add_tcase(s, tc);
	/* files written here: small, a few seconds in all (timeout: hangs) */
	tc = tcase_create("crafted");
	tcase_set_timeout(tc, FIXTURE_TIMEOUT);
	tcase_add_test(tc, test_mono_two_in_a_buffer);
	tcase_add_test(tc, test_mono_untold_gen);
	tcase_add_test(tc, test_mono_moves_hostile);
	tcase_add_test(tc, test_mono_hostile_counts);
	tcase_add_test(tc, test_mono_hostile_lengths);
	tcase_add_test(tc, test_mono_far_and_cycles);
	suite_add_tcase(s, tc);
	/* 50 MB written and read: seconds; what was quadratic, hours */
	tc = tcase_create("many");
	tcase_set_timeout(tc, FIXTURE_TIMEOUT);
	tcase_add_test(tc, test_mono_many_threads_ranges);
	suite_add_tcase(s, tc);
	return s;
}
