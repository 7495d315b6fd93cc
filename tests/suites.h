/* suites.h — every Check suite of the runner. */
#ifndef HW_SUITES_H
#define HW_SUITES_H

#include <check.h>
#include <stddef.h>

/* How many random heaps a brute-force test draws: n, but under
 * AddressSanitizer (each heap several times slower there) a fifth of
 * them, at least 20. Counts that show the heaps had something to tell
 * apart scale with it. */
#if defined(__SANITIZE_ADDRESS__)
#define HW_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HW_TEST_ASAN 1
#endif
#endif
#ifdef HW_TEST_ASAN
#define RANDOM_HEAPS(n) ((n) / 5 > 20 ? (n) / 5 : (n) < 20 ? (n) : 20)
#else
#define RANDOM_HEAPS(n) (n)
#endif

Suite *util_suite(void);
Suite *hprof_suite(void);
Suite *domtree_suite(void);
Suite *graph_suite(void);
Suite *cache_suite(void);
Suite *step_suite(void);
Suite *merged_suite(void);
Suite *jvm_suite(void);
Suite *tui_suite(void);
Suite *browser_suite(void);
Suite *agent_suite(void);
Suite *match_suite(void);
Suite *calibrate_suite(void);
Suite *alloc_suite(void);
Suite *alloctime_suite(void);
Suite *jcoll_suite(void);
Suite *rules_suite(void);
Suite *inspect_suite(void);
Suite *retain_suite(void);
Suite *exact_suite(void);
Suite *focus_suite(void);
Suite *locals_suite(void);
Suite *sweep_suite(void);
Suite *robust_suite(void);
Suite *fuzzregress_suite(void);
Suite *gz_suite(void);
Suite *nettrace_suite(void);
Suite *v8_suite(void);
Suite *formats_suite(void);
Suite *mono_suite(void);
Suite *owners_suite(void);
Suite *between_suite(void);
Suite *report_suite(void);
Suite *output_suite(void);
Suite *dot_suite(void);
Suite *hprofgen_suite(void);
Suite *proc_suite(void);
Suite *clrmark_suite(void);
Suite *files_suite(void);
Suite *garbage_suite(void);

/* test_jvm.c: make TEST_BUILDDIR/dumps/NAME.hprof (and .histo) of the
 * test workload with the JDK, unless it is newer than the workload. */
void ensure_dump(const char *name, const char *jvmopts);
/* The same for tests/java/WORKLOAD.java: TEST_BUILDDIR/dumps/NAME.hprof
 * (its path in path), made with those JVM options unless newer than the
 * workload's source. */
void workload_dump(const char *workload, const char *name, const char *jvmopts, char *path, size_t n);
/* Run a shell command: its standard output (caller frees), its wait
 * status in *status. */
char *run(const char *cmd, int *status);
/* A file's bytes (NUL-terminated, *n of them; caller frees); fails the
 * test if it cannot be read. */
char *file_bytes(const char *path, size_t *n);
/* test_formats.c: is prog on the PATH? */
int have(const char *prog);
/* The .NET workload (tests/dotnet) built (once) into
 * TEST_BUILDDIR/dumps/dotnet/out; 0 (said) without dotnet. */
int dotnet_workload(void);
/* The heapwalk under test ($HEAPWALK). */
const char *heapwalk(void);
/* Per-class instances of hprof equal those of the class histogram in
 * histo (java.lang.Class aside), and bytes for 99% of the classes, or
 * for all of them with all_bytes. */
void check_histogram(const char *name, const char *hprof, const char *histo, int all_bytes);
/* test_agent.c: the directory of one agent-run.sh session (attached
 * agent, the default G1 with its CDS archive): before.hprof, after.hprof
 * and the rest. */
void agent_session(char *dir, size_t n);
/* The same with the agent loaded at start, the serial GC and no
 * compressed oops. */
void agent_start_session(char *dir, size_t n);
/* test_clrmark.c: the recorded .NET mark (tests/dotnet/mark-*.nettrace)
 * replayed: the snapshot copied to dump, with its mark file beside it;
 * --baseline tests/dotnet/mark-heap.nettrace against it is exact. */
void clrmark_recorded(const char *dump);
/* test_match.c: the directory of the two ordinary dumps of
 * tests/java/Matched (a.hprof, then b.hprof), made once per build. */
const char *matched_dumps_dir(void);
/* test_alloc.c: a snapshot of tests/java/Matched with allocation traces
 * (the agent sampling), made once per build. */
const char *alloc_dump(void);
/* test_rules.c: tests/java/Refs dumped without a GC first (refs-run.sh),
 * made once per build. */
const char *refs_dump(void);
/* test_locals.c: the dump of tests/java/Locals (four threads holding
 * thread-locals), made once per build. */
const char *locals_dump(void);

#endif
