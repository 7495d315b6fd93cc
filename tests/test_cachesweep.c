/* test_cachesweep.c — for every format, every batch view gives the same
 * bytes from the index cache as from a parse.
 *
 * Each dump is copied into a directory of this test's own (its cache is
 * then this test's), and each view is run three times: with --no-cache
 * (a parse that writes no cache), then with the cache (the first run
 * parses and writes it), then again (read from it). Standard output,
 * standard error and the status must be the same all three times. The
 * third run must have read the cache, not made it again: the cache
 * file is the one the second run renamed into place (same inode, same
 * modification time), which a refused cache would replace. The cache
 * written twice must be the same bytes.
 *
 * The dumps: the recorded .NET traces and .gcdump and the Mono .mlpd
 * (two of its heapshots, each with a cache of its own) committed under
 * tests/, V8 snapshots of tests/node/workload.js (with and without
 * allocation tracking) made here when node is installed, and one HPROF
 * dump of the test workload. Under the sanitizers, one dump of each
 * reader (not the second trace, heapshot or snapshot). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "suites.h"
#include "util.h"

#define DIR TEST_BUILDDIR "/tmp/cachesweep"
#define V8DIR TEST_BUILDDIR "/dumps/v8cache"

/* The dumps, and what is asked of each besides the views: a heapshot. */
static const struct cdump {
	const char *label, *file, *opts;
} cdumps[] = {
	{ "nettrace", TEST_SRCDIR "/dotnet/workload-1.nettrace", "" },
	{ "nettrace-tool", TEST_SRCDIR "/dotnet/dotnet-trace.nettrace", "" },
	{ "gcdump", TEST_SRCDIR "/dotnet/workload.gcdump", "" },
	{ "mlpd", TEST_SRCDIR "/mono/workload.mlpd", "" },
	{ "mlpd-heapshot-2", TEST_SRCDIR "/mono/workload.mlpd", "--heapshot 2" },
	{ "v8", V8DIR "/a.heapsnapshot", "" },
	{ "v8-tracked", V8DIR "/tracked/a.heapsnapshot", "" },
	{ "hprof", NULL, "" },
};
#define NCDUMPS (sizeof cdumps / sizeof *cdumps)

/* The views: D where the dump goes, C a class of it, I an object's id. */
static const char *const views[] = {
	"info D", "info D --deep", "classes D -n 0", "-f json classes D -n 0", "-f csv classes D -n 0",
	"biggest D -d 3 -n 30", "-f json biggest D -d 2 -n 10", "objects D -n 40", "-f csv objects D -n 40",
	"merged-in D -e 'instances /^\\QC\\E$/'", "merged-out D -e 'instances /^\\QC\\E$/'",
	"merged-dom D -e 'instances /^\\QC\\E$/'", "objects D -n 30 -e 'instances /^\\QC\\E$/ | referrers'",
	"-f json objects D -n 30 -e 'instances /^\\QC\\E$/ | referents'", "paths D I", "lifelines D I",
	"graph D I", "allocations D", "classes D -e unreachable", "classes D -e live -n 10", "report D",
	"inspect D duplicate-strings", "inspect D leak-suspects", "inspect D largest-arrays 5",
	"inspect D long-chains 20", "inspect D weak-reachable", "inspect D pinned", "inspect D gc-handles",
	"inspect D finalizer-queue",
};
#define NVIEWS (sizeof views / sizeof *views)

/* Options that make the analyses again on a cached open. */
static const char *const other[] = { "--keep-unreachable" };

/* The V8 snapshots, made unless newer than the workload; 0 (said)
 * without node. */
static int v8_made(void)
{
	struct stat d, w;

	if (!have("node")) {
		printf("cachesweep: node is not installed: the V8 snapshots are skipped\n");
		return 0;
	}
	if (stat(V8DIR "/tracked/a.heapsnapshot", &d) == 0 && stat(TEST_SRCDIR "/node/workload.js", &w) == 0 &&
	    d.st_mtime >= w.st_mtime)
		return 1;
	ck_assert_int_eq(system("mkdir -p " V8DIR "/tracked && node --expose-gc " TEST_SRCDIR "/node/workload.js "
				V8DIR " >/dev/null && node --expose-gc --track-heap-objects " TEST_SRCDIR
				"/node/workload.js " V8DIR "/tracked >/dev/null"), 0);
	return 1;
}

/* The view with the dump, the class (each a single-quoted word of the
 * shell, the class inside a quoted -e) and the id in their places. */
static void subst(struct sbuf *out, const char *view, const char *dump, const char *cls, const char *id)
{
	for (const char *v = view; *v != '\0'; v++)
		if (*v == 'D' && (v == view || v[-1] == ' '))
			sbuf_printf(out, "'%s'", dump);
		else if (*v == 'C' && v[-1] == 'Q')
			for (const char *c = cls; *c != '\0'; c++) /* inside '...': ' as '\'' */
				sbuf_adds(out, *c == '\'' ? "'\\''" : (char[2]){ *c, '\0' });
		else if (*v == 'I' && v[-1] == ' ' && v[1] == '\0')
			sbuf_adds(out, id);
		else
			sbuf_addc(out, *v);
}

/* The class and the id the views ask about (pick). */
static char pick_cls[512], pick_id[64];

/* One run: its standard output and error, and its status, in one text. */
static char *hw_all(const char *opts, const char *view, const char *dump)
{
	struct sbuf v;
	sbuf_init(&v);
	subst(&v, view, dump, pick_cls, pick_id);
	char *cmd = xasprintf("'%s' -q %s %s 2>&1; echo \"status $?\"", heapwalk(), opts, v.buf);
	sbuf_free(&v);
	int st;
	char *out = run(cmd, &st);

	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: status %d", cmd, st);
	ck_assert_msg(strstr(out, "Sanitizer") == NULL && strstr(out, "runtime error") == NULL, "%s: %s", cmd,
		      out);
	free(cmd);
	return out;
}

/* The first object of the objects view (by retained size) that is no
 * class object, and its class, as its CSV gives them: a class object's
 * "class X" names no class for instances (which of the two comes first
 * in a JVM's dump varies from run to run). */
static void pick(const char *dump, const char *opts, char *cls, size_t ncls, char *id, size_t nid)
{
	char *o = hw_all(opts, "--no-cache -f csv objects D -n 50", dump);
	char *row = strchr(o, '\n');

	ck_assert_msg(row != NULL, "%s: no objects: %s", dump, o);
	for (row++; *row != '\0'; row = strchr(row, '\n') + 1) {
		size_t k = strcspn(row, ",");
		ck_assert(k > 0 && k < nid);
		memcpy(id, row, k);
		id[k] = '\0';
		const char *c = row + k + 1;
		size_t j = 0;
		if (*c == '"') { /* a CSV field in quotes: "" is one " */
			for (c++; *c != '\0' && !(c[0] == '"' && c[1] != '"') && j + 1 < ncls; c++) {
				if (c[0] == '"')
					c++;
				cls[j++] = *c;
			}
		} else {
			while (*c != ',' && *c != '\0' && j + 1 < ncls)
				cls[j++] = *c++;
		}
		cls[j] = '\0';
		if (strncmp(cls, "class ", 6) != 0)
			break;
		ck_assert_msg(strchr(row, '\n') != NULL && strchr(row, '\n')[1] != '\0', "%s: only class objects: %s",
			      dump, o);
	}
	free(o);
}

START_TEST(cached_same)
{
	const struct cdump *d = &cdumps[_i];
	char src[600], copy[700], cache[720];
	struct stat a, b;
	size_t checked = 0, ran = 0, nostrings = 0;

#ifdef HW_TEST_ASAN
	/* under the sanitizers (each run ~10x slower) one dump of each
	 * format's reader: the twins are swept in the -Werror build */
	if (strcmp(d->label, "nettrace-tool") == 0 || strcmp(d->label, "mlpd-heapshot-2") == 0 ||
	    strcmp(d->label, "v8-tracked") == 0) {
		printf("cachesweep: %s skipped under the sanitizers (its twin is swept)\n", d->label);
		return;
	}
#endif
	if (d->file == NULL)
		workload_dump("Workload", "coops", "", src, sizeof src);
	else if (strncmp(d->file, V8DIR, strlen(V8DIR)) == 0 && !v8_made())
		return;
	else
		snprintf(src, sizeof src, "%s", d->file);
	const char *base = strrchr(src, '/') + 1;
	snprintf(copy, sizeof copy, DIR "/%s/%s", d->label, base);
	char *cmd = xasprintf("rm -rf '" DIR "/%s' && mkdir -p '" DIR "/%s' && cp '%s' '%s'", d->label, d->label, src,
			      copy);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	/* a heapshot's cache is DUMP.N.hwi, the plain open's DUMP.hwi */
	const char *hs = strstr(d->opts, "--heapshot ");
	if (hs != NULL)
		snprintf(cache, sizeof cache, "%s.%s.hwi", copy, hs + strlen("--heapshot "));
	else
		snprintf(cache, sizeof cache, "%s.hwi", copy);
	pick(copy, d->opts, pick_cls, sizeof pick_cls, pick_id, sizeof pick_id);
	for (size_t i = 0; i < NVIEWS; i++) {
#ifdef HW_TEST_ASAN
		if (i % 3 != (size_t)_i % 3) /* under the sanitizers, a third of them each */
			continue;
#endif
		const char *view = views[i];
		char opts[128];
		snprintf(opts, sizeof opts, "--no-cache %s", d->opts);
		unlink(cache);
		char *cold = hw_all(opts, view, copy);
		ck_assert_msg(stat(cache, &a) != 0, "%s: --no-cache wrote %s", view, cache);
		char *first = hw_all(d->opts, view, copy);
		/* a view refused before the open (pinned on a JVM heap) makes none */
		int opened = stat(cache, &a) == 0;
		ck_assert_msg(opened || strstr(first, "\nstatus 0\n") == NULL, "%s %s: no cache written at %s",
			      d->label, view, cache);
		opened &= strstr(first, "\nstatus 0\n") != NULL;
		char *again = hw_all(d->opts, view, copy);
		ck_assert_msg(!opened || (stat(cache, &b) == 0 && a.st_ino == b.st_ino &&
					  a.st_mtim.tv_sec == b.st_mtim.tv_sec && a.st_mtim.tv_nsec == b.st_mtim.tv_nsec),
			      "%s %s: the cache was made again, not read", d->label, view);
		ck_assert_msg(opened || strcmp(d->label, "hprof") == 0 || strstr(view, "inspect") != NULL,
			      "%s %s: refused", d->label, view);
		ck_assert_msg(strcmp(cold, first) == 0, "%s %s: parse\n%s\nwriting the cache\n%s", d->label, view,
			      cold, first);
		ck_assert_msg(strcmp(cold, again) == 0, "%s %s: parse\n%s\nfrom the cache\n%s", d->label, view,
			      cold, again);
		/* an inspection of strings' text where the format holds none */
		nostrings += !opened && strstr(first, "reads strings' text: there is none in ") != NULL;
		free(cold);
		free(first);
		free(again);
		checked++;
		ran += opened;
	}
	/* a cache written by a plain open, read with other options: the
	 * analyses made again (what the reader said weak stays weak) */
	for (size_t i = 0; i < sizeof other / sizeof *other; i++) {
		char opts[128];
		snprintf(opts, sizeof opts, "--no-cache %s %s", d->opts, other[i]);
		char *cold = hw_all(opts, "info D", copy);
		unlink(cache);
		free(hw_all(d->opts, "classes D -n 1", copy));
		snprintf(opts, sizeof opts, "%s %s", d->opts, other[i]);
		char *cached = hw_all(opts, "info D", copy);
		ck_assert_msg(strcmp(cold, cached) == 0, "%s info %s: parse\n%s\nfrom a plain open's cache\n%s", d->label,
			      other[i], cold, cached);
		free(cold);
		free(cached);
	}
	/* the cache is the same bytes each time it is written (no unknown
	 * bytes in it, padding among them) */
	size_t n1, n2;
	unlink(cache);
	free(hw_all(d->opts, "classes D -n 1", copy));
	char *bytes1 = file_bytes(cache, &n1);
	unlink(cache);
	free(hw_all(d->opts, "classes D -n 1", copy));
	char *bytes2 = file_bytes(cache, &n2);
	size_t at = 0;
	while (at < n1 && at < n2 && bytes1[at] == bytes2[at])
		at++;
	ck_assert_msg(n1 == n2 && at == n1, "%s: the cache written twice differs at byte %zu (%zu and %zu bytes)",
		      d->label, at, n1, n2);
	free(bytes1);
	free(bytes2);
	/* the views of every heap ran: all but the inspections of one runtime,
	 * and of strings' text where the format holds none */
	ck_assert_msg(ran + 3 + nostrings >= checked, "%s: %zu of %zu views ran", d->label, ran, checked);
	printf("cachesweep: %s: %zu views the same from the cache as parsed (%zu ran)\n", d->label, checked, ran);
}
END_TEST

Suite *cachesweep_suite(void)
{
	Suite *s = suite_create("cachesweep");
	TCase *tc = tcase_create("formats");

	tcase_set_timeout(tc, FIXTURE_TIMEOUT);
	tcase_add_loop_test(tc, cached_same, 0, (int)NCDUMPS);
	suite_add_tcase(s, tc);
	return s;
}
