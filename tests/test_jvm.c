/* test_jvm.c — against dumps a real JVM writes at test time: per-class
 * counts and bytes equal `jcmd GC.class_histogram` (taken on the same
 * quiet JVM, see gen-dump.sh), with and without compressed oops; the
 * planted leak's path to its GC root; identical output with and without
 * the index cache. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "histo.h"
#include "hprofw.h"
#include "suites.h"
#include "util.h"

#define DUMPS TEST_BUILDDIR "/dumps"


static void compare_with_histogram(const char *name, const char *jvmopts)
{
	char hprof[512], histo[512];

	ensure_dump(name, jvmopts);
	snprintf(hprof, sizeof hprof, DUMPS "/%s.hprof", name);
	snprintf(histo, sizeof histo, DUMPS "/%s.histo", name);
	check_histogram(name, hprof, histo, 0);
}

START_TEST(test_histogram_compressed_oops)
{
	compare_with_histogram("coops", "");
}
END_TEST

START_TEST(test_histogram_uncompressed_oops)
{
	compare_with_histogram("nocoops", "-XX:-UseCompressedOops");
}
END_TEST

/* @Contended: the JDK's own padded classes (from the table of them,
 * with the padding a subclass inherits) and the workload's own (from
 * the address gaps: two instances or more), each class's bytes exactly
 * the histogram's, and present, so the workload really made them. */
static void compare_contended(const char *name, const char *jvmopts)
{
	static const char *const cls[] = {
		"java.util.concurrent.ForkJoinPool", "java.util.concurrent.ForkJoinPool$WorkQueue",
		"java.util.concurrent.SubmissionPublisher$BufferedSubscription",
		"java.util.concurrent.atomic.Striped64$Cell",
		"java.util.concurrent.ConcurrentHashMap$CounterCell",
		"java.util.concurrent.Exchanger$Node", "java.lang.Thread",
		"Contended$Worker", "Contended$Waiter", "Contended$NamedWaiter", /* below Thread */
		"Contended$Hot", "Contended$Slot", /* the workload's own */
	};
	char hprof[512], histo[512], cmd[1024], opts[512];
	struct hist want = { 0 }, got = { 0 };
	int st;

	snprintf(opts, sizeof opts, "-XX:-RestrictContended %s"
		 " --add-opens java.base/java.util.concurrent=ALL-UNNAMED"
		 " --add-opens java.base/java.util.concurrent.atomic=ALL-UNNAMED", jvmopts);
	setenv("JAVAC_OPTS", "--add-exports java.base/jdk.internal.vm.annotation=ALL-UNNAMED", 1);
	workload_dump("Contended", name, opts, hprof, sizeof hprof);
	unsetenv("JAVAC_OPTS");
	snprintf(histo, sizeof histo, DUMPS "/%s.histo", name);
	check_histogram(name, hprof, histo, 0);
	read_histo(histo, &want);
	snprintf(cmd, sizeof cmd, "%s -q --no-cache classes --all -f csv %s", heapwalk(), hprof);
	char *csv = run(cmd, &st);
	ck_assert_msg(st == 0, "%s exited %d", cmd, st);
	parse_csv(csv, &got);
	free(csv);
	size_t bad = 0;
	for (size_t i = 0; i < sizeof cls / sizeof cls[0]; i++) {
		unsigned long long n = hist_find(&want, cls[i], 0), b = hist_find(&want, cls[i], 1);
		ck_assert_msg(n > 0, "%s: no %s in the histogram", name, cls[i]);
		if (hist_find(&got, cls[i], 0) != n || hist_find(&got, cls[i], 1) != b) {
			fprintf(stderr, "%s: %s: %llu instances, %llu bytes; histogram: %llu, %llu\n",
				name, cls[i], hist_find(&got, cls[i], 0), hist_find(&got, cls[i], 1), n, b);
			bad++;
		}
	}
	ck_assert_msg(bad == 0, "%s: %zu @Contended classes differ from the histogram", name, bad);
	free_hist(&want);
	free_hist(&got);
}

START_TEST(test_contended_compressed_oops)
{
	compare_contended("contended", "");
}
END_TEST

START_TEST(test_contended_uncompressed_oops)
{
	compare_contended("contended-nocoops", "-XX:-UseCompressedOops");
}
END_TEST

/* The planted leak: a Session's payload reaches its root through the
 * static LeakRegistry.LISTENERS, an ArrayList, its array, a listener. */
START_TEST(test_leak_path)
{
	char cmd[1024];
	int st;

	ensure_dump("coops", "");
	snprintf(cmd, sizeof cmd, "%s -q -f csv " DUMPS "/coops.hprof "
		 "-e 'instances Workload$Session | objects' -n 1", heapwalk());
	char *out = run(cmd, &st);
	ck_assert_int_eq(st, 0);
	char *line = strchr(out, '\n');
	ck_assert_msg(line && strncmp(line + 1, "0x", 2) == 0, "no Session: %s", out);
	char id[32] = { 0 };
	sscanf(line + 1, "%31[^,]", id);
	free(out);
	snprintf(cmd, sizeof cmd, "%s -q -f csv paths " DUMPS "/coops.hprof %s --max 1", heapwalk(), id);
	out = run(cmd, &st);
	ck_assert_int_eq(st, 0);
	/* from the root down: ... the class, its static field, the list,
	 * its array, a listener, the session */
	ck_assert_msg(strstr(out, ",\"class Workload$LeakRegistry\",\"static LISTENERS\",") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "java.util.ArrayList,elementData,") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "Workload$SessionListener,session,") != NULL, "%s", out);
	char *last = out + strlen(out) - 1;
	while (last > out && last[-1] != '\n')
		last--;
	ck_assert_msg(strstr(last, "Workload$Session,,") != NULL, "path does not end at the session: %s", out);
	free(out);
}
END_TEST

/* stdout is the same whether the cache was used or not, for every view
 * (each loads a different part of a cached heap). */
START_TEST(test_cache_same_output)
{
	char cmd[1024], cache[600], id[32] = { 0 };
	int st;
	const char *views[] = { "info D", "classes D", "biggest -d 3 D", "objects -n 50 D",
				"paths D ID --max 3", "paths -w D ID", "classes --exact Session D",
				"D -e 'instances Workload$Session | referrers | classes'" };
	char D[512];

	ensure_dump("coops", "");
	/* a copy of its own: other suites use the dump's cache meanwhile */
	snprintf(D, sizeof D, "%s/coops.hprof", hw_tmpdir());
	snprintf(cmd, sizeof cmd, "cp " DUMPS "/coops.hprof %s", D);
	ck_assert_int_eq(system(cmd), 0);
	snprintf(cmd, sizeof cmd, "%s -q -f csv objects -n 1 %s -e 'instances Workload$Session'", heapwalk(), D);
	char *o = run(cmd, &st);
	sscanf(strchr(o, '\n') + 1, "%31[^,]", id);
	free(o);
	snprintf(cache, sizeof cache, "%s.hwi", D);
	for (size_t v = 0; v < sizeof views / sizeof views[0]; v++) {
		struct sbuf args;
		sbuf_init(&args);
		for (const char *p = views[v]; *p; p++) /* D: the dump, ID: a session */
			if (*p == 'D' && (p[1] == ' ' || p[1] == '\0'))
				sbuf_adds(&args, D);
			else if (strncmp(p, "ID", 2) == 0 && (p++, 1))
				sbuf_adds(&args, id);
			else
				sbuf_addc(&args, *p);
		unlink(cache);
		snprintf(cmd, sizeof cmd, "%s -q --no-cache %s", heapwalk(), args.buf);
		char *a = run(cmd, &st);
		ck_assert_msg(st == 0, "%s", cmd);
		snprintf(cmd, sizeof cmd, "%s -q %s", heapwalk(), args.buf);
		char *b = run(cmd, &st); /* writes the cache */
		ck_assert_int_eq(st, 0);
		struct stat cs;
		ck_assert_msg(stat(cache, &cs) == 0, "no cache written");
		char *c = run(cmd, &st); /* reads it */
		ck_assert_int_eq(st, 0);
		ck_assert_msg(strcmp(a, b) == 0, "%s: first open differs", cmd);
		ck_assert_msg(strcmp(a, c) == 0, "%s: cached open differs", cmd);
		ck_assert_msg(strlen(a) > 100, "%s: %s", cmd, a);
		free(a);
		free(b);
		free(c);
		sbuf_free(&args);
	}
}
END_TEST

/* Exit status and the one-line error of the command line. */
static int run_status(const char *args, char **out)
{
	char cmd[2048];
	int st;

	snprintf(cmd, sizeof cmd, "%s %s 2>&1", heapwalk(), args);
	*out = run(cmd, &st);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

START_TEST(test_cli_errors)
{
	char *out;

	ensure_dump("coops", "");
	ck_assert_int_eq(run_status("-q classes /no/such.hprof", &out), 2);
	ck_assert_msg(strstr(out, "heapwalk: /no/such.hprof: No such file") == out, "%s", out);
	free(out);
	ck_assert_int_eq(run_status("-q -e 'instances X | bogus' " DUMPS "/coops.hprof", &out), 1);
	ck_assert_msg(strstr(out, "-e: column 15: unknown step 'bogus'") != NULL, "%s", out);
	free(out);
	ck_assert_int_eq(run_status("-q paths " DUMPS "/coops.hprof 0x10", &out), 2);
	ck_assert_msg(strstr(out, "no object with id 0x10") != NULL, "%s", out);
	free(out);
	ck_assert_int_eq(run_status("-q -f yaml classes " DUMPS "/coops.hprof", &out), 1);
	free(out);
	ck_assert_int_eq(run_status("-q classes --filter '(' " DUMPS "/coops.hprof", &out), 2);
	ck_assert_msg(strstr(out, "regex /(/: column 2:") != NULL, "%s", out);
	free(out);
	ck_assert_int_eq(run_status("--help", &out), 0);
	ck_assert_msg(strstr(out, "paths OBJECT") != NULL, "%s", out);
	free(out);
}
END_TEST

/* A real dump cut in half opens as far as it is valid, with a warning. */
START_TEST(test_truncated_real_dump)
{
	char cmd[1024], *out;
	struct stat st;

	ensure_dump("coops", "");
	ck_assert_int_eq(stat(DUMPS "/coops.hprof", &st), 0);
	snprintf(cmd, sizeof cmd, "head -c %lld " DUMPS "/coops.hprof > " DUMPS "/half.hprof",
		 (long long)st.st_size / 2);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_int_eq(run_status("--no-cache info " DUMPS "/half.hprof", &out), 0);
	ck_assert_msg(strstr(out, "runs past the end of the file") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "objects: ") != NULL, "%s", out);
	free(out);
	unlink(DUMPS "/half.hprof");
}
END_TEST

Suite *jvm_suite(void)
{
	Suite *s = suite_create("jvm");
	TCase *tc = tcase_create("histogram");

	tcase_set_timeout(tc, FIXTURE_TIMEOUT);
	tcase_add_test(tc, test_histogram_compressed_oops);
	tcase_add_test(tc, test_histogram_uncompressed_oops);
	tcase_add_test(tc, test_contended_compressed_oops);
	tcase_add_test(tc, test_contended_uncompressed_oops);
	tcase_add_test(tc, test_leak_path);
	tcase_add_test(tc, test_cache_same_output);
	tcase_add_test(tc, test_cli_errors);
	tcase_add_test(tc, test_truncated_real_dump);
	suite_add_tcase(s, tc);
	return s;
}
