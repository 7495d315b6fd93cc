/* drive.h — the bodies of the fuzzers: one function per input the
 * program reads, shared by the libFuzzer harnesses (fuzz/NAME-fuzzer.c)
 * and the regression test (tests/test_fuzzregress.c), so that an input
 * a fuzzer found takes the same path in both.
 *
 * Each returns 0 whatever the input (bad input is an error the engine
 * reports, not a failure); a crash, a sanitizer report, a hang or a
 * broken promise (fuzz_finding) is the finding. The bodies of one dump
 * format (and the baseline's) return -1, at once, for an input that is
 * not of their format (the engine's probe of its first bytes; for V8,
 * not a JSON object): libFuzzer keeps such an input out of the corpus,
 * and a fuzzer's time goes to its own reader. Everything they allocate
 * is freed before they return (the fuzzers run LeakSanitizer). Their
 * files live in one private directory per process,
 * heapwalk-fuzz-PID-XXXXXX under $TMPDIR or /tmp, removed at exit, or by
 * the next process if this one died. */
#ifndef HW_FUZZ_DRIVE_H
#define HW_FUZZ_DRIVE_H

#include <stddef.h>
#include <stdint.h>

struct heap;

/* The directory (made on first use). */
const char *fuzz_dir(void);
/* For the bodies: len bytes to path, replacing it (exits if it cannot);
 * a dump opened as heapwalk opens one, quietly, with the index cache or
 * without it: 0, or -1 (h needs no free). */
void fuzz_put_file(const char *path, const void *data, size_t len);
int fuzz_open(struct heap *h, const char *path, int no_cache);
/* A broken promise: said on stderr, then abort() as a sanitizer would,
 * so that the fuzzer keeps the input. */
_Noreturn __attribute__((format(printf, 1, 2))) void fuzz_finding(const char *fmt, ...);

/* A dump of one format (drive_dump.c): opened without the cache, then
 * every view and inspection; an open that fails says so in one line
 * that names the file. HPROF; EventPipe's nettrace; dotnet-gcdump's
 * .gcdump; Mono's .mlpd (its last heapshot, and its first when it has
 * several). */
int fuzz_hprof(const uint8_t *data, size_t len);
int fuzz_nettrace(const uint8_t *data, size_t len);
int fuzz_gcdump(const uint8_t *data, size_t len);
int fuzz_mlpd(const uint8_t *data, size_t len);

/* Two dumps of one format (drive_baseline.c), the input
 *   H OLD "\n==> NEW <==\n" NEW
 * where byte H names the heapshots of a file of several (Mono's .mlpd:
 * the baseline's in its low 4 bits, the dump's in its high 4; 0 the
 * last) and an empty NEW is OLD's file again. OLD is opened as
 * --baseline OLD[:N] opens it, NEW as the dump; then what heapwalk diff
 * and -e new | old | gone compute: the identity (the agent's ids or
 * mark, V8's ids, Mono's moves replayed, the .NET matcher), the class
 * deltas, the new, old and gone objects' views and reports. What must
 * hold whatever the dumps is checked (fuzz_finding): the deltas add up
 * to both heaps, a heap against itself has nothing new or gone. -1 for
 * input without the separator or with dumps of two formats. */
#define FUZZ_BASELINE_SEP "\n==> NEW <==\n"
int fuzz_baseline(const uint8_t *data, size_t len);
/* What the last input's baseline rested on (enum bl_mode of
 * query/baseline.h), -1 if there was none: for the test that the
 * identity paths are reached. */
int fuzz_baseline_mode(void);

/* A .NET mark (drive_clrmark.c), the input
 *   G D MARK "\n==> REC <==\n" REC "\n==> SNAP <==\n" SNAP
 *   ["\n==> HWMARK <==\n" PATCH]
 * where byte G is the mark's GC and G + D the snapshot's (G 0: the
 * mark's GC is the 4 bytes after D, little-endian), MARK the
 * mark's heap dump, REC the recorder's stream (empty: none), SNAP the
 * snapshot (all nettrace): the replay (clr_mark_replay), then the mark
 * file it wrote, PATCH laid over it (4 bytes of offset, then bytes XORed
 * in), read beside the snapshot: its new and old, and the mark's heap as
 * its baseline. -1 without the separators or with another format. */
#define FUZZ_CLRMARK_REC "\n==> REC <==\n"
#define FUZZ_CLRMARK_SNAP "\n==> SNAP <==\n"
#define FUZZ_CLRMARK_PATCH "\n==> HWMARK <==\n"
int fuzz_clrmark(const uint8_t *data, size_t len);

/* A cache file of one of FUZZ_CACHE_DUMPS dumps, one of each format:
 * the synthetic dump fz_rich() (0), the recorded .NET trace (1) and
 * .gcdump (2) and Mono heapshots (3) of tests/, a small V8 snapshot (4),
 * picked by the header's pad word modulo their number (a real cache has
 * 0 there: the loader is given 0); its checksums and the dump's identity
 * made right (cache_reseal) so that the loader decodes what the input
 * says; then the heap is loaded and every view run. */
#define FUZZ_CACHE_DUMPS 5
int fuzz_cache(const uint8_t *data, size_t len);
/* The cache fuzzer's mutation of a section's values (the engine's
 * cache_mutate_section): the input's new length, 0 if none was made. */
size_t fuzz_cache_mutate(uint8_t *data, size_t len, size_t max, unsigned which,
			 size_t (*mutate)(uint8_t *p, size_t n, size_t max));
/* The real cache of dump k, its pad word k, for the seed corpus
 * (caller frees). */
uint8_t *fuzz_cache_seed(int k, size_t *len);

/* A step expression (-e), applied to the sample heap, then the classes
 * view. */
int fuzz_step(const uint8_t *data, size_t len);

/* A rules file, applied to the rich dump, its rules printed, the rules
 * inspections run. */
int fuzz_rules(const uint8_t *data, size_t len);
/* A file of check's gates (query/check.h): parsed, every rule measured on
 * a small heap (growth against itself, leaks of nothing; then without a
 * baseline and leaks), the results in every format and as JUnit; a file
 * refused must be named with its line. */
int fuzz_gates(const uint8_t *data, size_t len);

/* A gzip file (drive_gz.c): inflated, read back through its index, the
 * index packed and unpacked; abort() when what must hold does not. */
int fuzz_gz(const uint8_t *data, size_t len);
/* What Node's inspector sends (drive_devtools.c): its first byte picks
 * the answer of GET /json/list, the WebSocket handshake's answer, frames,
 * or a DevTools message; -1 for an empty input. */
int fuzz_devtools(const uint8_t *data, size_t len);
/* A V8 heap snapshot (.heapsnapshot, drive_dump.c): parsed, every name, edge and
 * string read back through the columns; then opened as a heap and run
 * through every view, as fuzz_dump does. */
int fuzz_v8(const uint8_t *data, size_t len);

/* Lines of messages to a heapwalk mcp server (drive_mcp.c) with the
 * rich dump open as d1 (and the smallest JDK dump of FUZZ_DUMPS, up to
 * 4 MB, as d2), each answer checked with the tests' strict JSON reader;
 * the whole input through jsonv's reader and writer and back. Calls of
 * the tool snapshot are skipped (it runs /proc/self/exe). */
int fuzz_mcp(const uint8_t *data, size_t len);
void fuzz_init_mcp(void);

/* Set up what a body needs (each does it itself on first use; the
 * harnesses call them from LLVMFuzzerInitialize so that the first run
 * is not slower than the rest). */
void fuzz_init_cache(void);
void fuzz_init_step(void);
void fuzz_init_rules(void);

#endif
