/* suites.h — every Check suite of the runner, and what they share. */
#ifndef HW_SUITES_H
#define HW_SUITES_H

#include <check.h>
#include <stddef.h>
#include <sys/types.h>

/* Every assertion that holds, Check writes its place down (a system
 * call each, for the report of a crash): the brute-force loops, with
 * millions of them, took minutes, more on a busy machine. Here one that
 * holds costs nothing; one that fails is reported as Check does, with
 * its place (a crash is reported at the place of the test instead). */
#undef ck_assert_msg
#define ck_assert_msg(expr, ...) \
	((expr) ? (void)0 : _ck_assert_failed(__FILE__, __LINE__, "Assertion '" #expr "' failed", ##__VA_ARGS__))

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
/* The same for other random draws (reads at random offsets). */
#define RANDOM_CASES(n) RANDOM_HEAPS(n)

/* Timeouts catch hangs only, never a slow machine (Check multiplies
 * them by CK_TIMEOUT_MULTIPLIER; a test case without one has
 * CK_DEFAULT_TIMEOUT, which tests/run-suite.sh sets to 300 s): a test of
 * the engine and the program alone, and one that may make a fixture
 * with a JVM, .NET, Node or Mono first, or wait for another suite
 * making it. */
#define HANG_TIMEOUT 300
#define FIXTURE_TIMEOUT 900

/* Suite *NAME_suite(void) for each NAME of suite_list.h */
#define SUITE(n) Suite *n##_suite(void);
#include "suite_list.h"
#undef SUITE

/* fixtures.c: what suites share, made once per build directory under a
 * lock of its own (see fixture() there). */
/* TEST_BUILDDIR/dumps/NAME.hprof (and .histo) of the test workload,
 * made with the JDK unless newer than the workload. */
void ensure_dump(const char *name, const char *jvmopts);
/* The same for tests/java/WORKLOAD.java: TEST_BUILDDIR/dumps/NAME.hprof
 * (its path in path), made with those JVM options unless newer than the
 * workload's source. */
void workload_dump(const char *workload, const char *name, const char *jvmopts, char *path, size_t n);
/* The directory of one agent-run.sh session (attached agent, the
 * default G1 with its CDS archive): before.hprof, after.hprof and the
 * rest. */
void agent_session(char *dir, size_t n);
/* The same with the agent loaded at start, the serial GC and no
 * compressed oops. */
void agent_start_session(char *dir, size_t n);
/* The directory of the two ordinary dumps of tests/java/Matched
 * (a.hprof, then b.hprof). */
const char *matched_dumps_dir(void);
/* The directory of tests/java/Mutated's agent snapshot and two ordinary
 * dumps (a-agent.hprof and a.hprof of one moment, then b.hprof). */
const char *mutated_dumps_dir(void);
/* A snapshot of tests/java/Matched with allocation traces (the agent
 * sampling). */
const char *alloc_dump(void);
/* leaks-run.sh's session of tests/java/Leaky: base.hprof, target.hprof,
 * final.hprof (the agent's), final-plain.hprof (HotSpot's), final.histo. */
const char *leaks_jvm_dir(void);
/* tests/java/Refs dumped without a GC first (refs-run.sh). */
const char *refs_dump(void);
/* The dump of tests/java/Locals (four threads holding thread-locals). */
const char *locals_dump(void);
/* The directory of gz-dump.sh's dumps (plain.hprof, plain.hprof.gz,
 * jdk.hprof.gz, jdk.gunzip): read them, copy them to change them. */
const char *gz_dumps(void);
/* The .NET workload (tests/dotnet) built into TEST_BUILDDIR/dumps/dotnet/out;
 * 0 (said) without dotnet. */
int dotnet_workload(void);
int dotnet8_workload(void);

/* helpers.c: run a shell command: its standard output (caller frees),
 * its wait status in *status. */
char *run(const char *cmd, int *status);
/* A file's bytes (NUL-terminated, *n of them; caller frees); fails the
 * test if it cannot be read. */
char *file_bytes(const char *path, size_t *n);
/* Is prog on the PATH? */
int have(const char *prog);
/* 1 when the tests' build or source directory is under /tmp, which a
 * test that gives a process a private /tmp (a tmpfs or a bind mount over
 * it) hides from that process: its files, its programs, the file it says
 * it is ready in. Then the line "WHO: skipped: the tests' build directory
 * ... is under /tmp, which WHAT hides from the process" is said, and the
 * caller skips. */
int build_in_tmp(const char *who, const char *what);
/* A child of this test, not yet reaped, killed (SIGKILL) and reaped; a
 * JVM's attach socket (/tmp/.java_pidPID) removed first, as the JVM
 * would have on a clean exit: left, it would be taken for the socket of
 * a later process given the same PID. */
void end_child(pid_t pid);
/* The heapwalk under test ($HEAPWALK). */
const char *heapwalk(void);
/* How long a wait may last before it is a hang: s seconds times
 * CK_TIMEOUT_MULTIPLIER, as Check scales its timeouts. Waits poll until
 * a deadline (now_seconds(), monotonic), never a count of naps, which a
 * busy machine stretches. */
double hang_seconds(double s);
double now_seconds(void);
/* heapwalk inspect DUMP long-chains: with N one short of length, one
 * group "NAME: LENGTH objects from @..." (NAME: "Class.field") of that
 * many objects and that length; with N length, no group of NAME. */
void chain_found(const char *dump, const char *name, long length);
/* The number after "NAME": in a JSON line (a workload's counts). */
long json_count(const char *json, const char *name);

/* histo.c: per-class instances of hprof equal those of the class
 * histogram in histo (java.lang.Class aside), and bytes for 99% of the
 * classes, or for all of them with all_bytes. */
void check_histogram(const char *name, const char *hprof, const char *histo, int all_bytes);
/* clrmark_rec.c: the recorded .NET mark (tests/dotnet/mark-*.nettrace)
 * replayed: the snapshot copied to dump, with its mark file beside it;
 * --baseline tests/dotnet/mark-heap.nettrace against it is exact. */
void clrmark_recorded(const char *dump);

#endif
