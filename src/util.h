/* util.h — allocation that never fails, errors, growable buffers,
 * escaping of untrusted dump strings. */
#ifndef HW_UTIL_H
#define HW_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define HW_NONE UINT32_MAX

/* For the few loops that run over every object or reference and that
 * GCC leaves one element at a time at -O2: O3 for that function. */
#if defined(__GNUC__) && !defined(__clang__)
#define HW_VECTORIZE __attribute__((optimize("O3")))
#else
#define HW_VECTORIZE
#endif

/* For the few such loops that go twice as wide with AVX2: that function
 * made twice, the wide one taken where the processor has it (GCC's
 * clones, chosen once when the program loads). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define HW_WIDE __attribute__((target_clones("avx2", "default")))
#else
#define HW_WIDE
#endif

/* Allocation wrappers: never return NULL; on exhaustion they run the
 * registered cleanup (the TUI restores the terminal) and exit(3). */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
/* xmalloc's and xcalloc's, for an array written whole at once (as
 * mem_populate asks): from 2 MB, the parts of it outside whole huge
 * pages made at once, not a 4 KB fault a page. A block of which little
 * may be written (a stack sized to the objects) takes the plain ones:
 * what is made counts as used. */
void *xmalloc_whole(size_t n);
void *xcalloc_whole(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
void *xreallocarray(void *p, size_t n, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Arrays in a mapping of their own, for a column that is read once in
 * order: the part read can be let go while the rest is still read
 * (big_release: the whole pages within bytes [from, to) of p), which
 * memory from malloc does not allow. n bytes; the size is passed back
 * to big_resize and big_free. They never return NULL, as xmalloc. */
void *big_alloc(size_t n);
void *big_resize(void *p, size_t old, size_t n);
void big_release(void *p, size_t from, size_t to);
void big_free(void *p, size_t n);
/* malloc's, and NULL when there is no room (no exit): from 2 MB, on
 * huge pages from its start, as xmalloc's; free() frees it. */
void *hw_malloc_big(size_t n);
/* The same for a block written whole: a kept one (hw_recycle) if one
 * holds it, else hw_malloc_big's (its pages made by the caller). */
void *hw_malloc_whole(size_t n);
/* free() for a block that the engine's work is about to ask for again
 * at its size: an array parked on disk and read back, the dominators'
 * arrays from one pass to the next. From 2 MB (at most 8 of them) it is
 * kept, and xmalloc_whole, xcalloc_whole or hw_malloc_whole take it
 * for a block that it holds with at most 64 KB to spare: its pages are
 * made already, not faulted in and zeroed by the kernel again (on a
 * 5 M-object .NET trace's open, 350 of the 750 MB of big blocks).
 * The peak stays free()'s: the kept blocks hold memory that free()
 * would have given back only until a block of 2 MB or more is made
 * anew (they are let go first), or small ones add up to 1 MB (at 4 MB,
 * a V8 open's peak grew by 0.2 MB; at 1 MB it did not). Kept only
 * while the engine works (those who call it let them go when it is
 * done: hw_recycle_flush); not under a sanitizer, which would miss a
 * use after free() in a block handed out again. */
void hw_recycle(void *p);
void hw_recycle_flush(void);
/* Bytes kept now, and blocks taken again so far (for the tests). */
size_t hw_recycle_kept(void);
size_t hw_recycle_taken(void);
/* Bytes [from, to) of p, about to be written whole: their pages made at
 * once (one call, not a fault a page; a fault is the costly part of
 * fresh memory on a virtual machine). Only for memory that will be
 * written soon and all of it: what is made counts as used. */
void mem_populate(void *p, size_t from, size_t to);
/* Bytes [from, to) of a file's mapping p, about to be read: its pages
 * mapped in one call. Advice only: errno is kept, an older kernel's
 * refusal changes nothing. */
void map_populate(const void *p, size_t from, size_t to);
void hw_set_cleanup(void (*fn)(void));
/* Called with the size when an allocation fails, before the program
 * ends: a front end that can drop what it was doing unwinds from it (the
 * browser, to keep the session); if it returns, the program ends. */
void hw_set_oom(void (*fn)(size_t n));
_Noreturn void hw_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Work the machine has not the memory for, refused before it starts:
 * the message is kept (hw_refusal, until hw_refusal_clear), the front
 * end's allocation-failure hook unwinds if it can (hw_set_oom), else
 * the program ends with it as hw_fatal does. */
_Noreturn void hw_refuse(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *hw_refusal(void);
void hw_refusal_clear(void);
/* The memory the system says can be had without swapping
 * (MemAvailable), in bytes; 0 if it does not say. */
uint64_t hw_mem_available(void);
/* A "Key:  N kB" figure of a /proc file ("/proc/self/status",
 * "RssAnon"), in bytes; 0 if it has none. */
uint64_t proc_kb(const char *file, const char *key);

/* Growable byte buffer. buf is always NUL-terminated; owned by the sbuf
 * while cap > 0. With cap 0 (after sbuf_detach or sbuf_free) buf is a
 * shared, read-only "": the sbuf stays usable (reset, add, printf,
 * detach, free) and allocates afresh when something is added. */
struct sbuf {
	char *buf;
	size_t len, cap;
};
void sbuf_init(struct sbuf *sb);
/* Frees the storage; the sbuf is left empty and reusable. */
void sbuf_free(struct sbuf *sb);
void sbuf_reset(struct sbuf *sb);
void sbuf_add(struct sbuf *sb, const char *s, size_t n);
void sbuf_adds(struct sbuf *sb, const char *s);
void sbuf_addc(struct sbuf *sb, char c);
void sbuf_printf(struct sbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A code point (up to U+10FFFF) as UTF-8. */
void sbuf_add_utf8(struct sbuf *sb, uint32_t cp);
/* UTF-16 code units read one at a time: the code points each gives
 * (0, 1 or 2) into out, a surrogate pair one, a lone surrogate U+FFFD;
 * *hi holds a high surrogate waiting (0 at the start), which
 * utf16_flush gives (as U+FFFD) at the end. */
int utf16_join(unsigned *hi, unsigned unit, uint32_t out[2]);
int utf16_flush(unsigned *hi, uint32_t out[1]);
/* Hands over the text (the caller frees it; an empty sbuf gives an
 * allocated ""); the sbuf is left empty and reusable. */
char *sbuf_detach(struct sbuf *sb);

/* Escape untrusted bytes (from a dump) for a terminal or text report:
 * printable ASCII and valid UTF-8 pass, except C1 controls, U+2028/9 and
 * the invisible format characters (bidi overrides, zero-width ones);
 * \\ \" \n \t \r become C-style escapes, other bytes \xHH, other control
 * and format code points \xHH or \u{HHHH}. Java's modified UTF-8 is read
 * as Java writes it: C0 80 is U+0000 (shown \x00), a surrogate pair is
 * its character. Output is valid UTF-8 with no control or format
 * characters. `quote_dq` also escapes '"'. Appends to sb. */
void esc_append(struct sbuf *sb, const uint8_t *s, size_t n, int quote_dq);
/* The valid UTF-8 sequence at s (n bytes there): its length and code
 * point, and whether esc_append escapes it (a control or format
 * character); 0 when the bytes there are not valid UTF-8. */
size_t utf8_char(const uint8_t *s, size_t n, uint32_t *cp, int *escaped);
/* Text escaped once already (by esc_append), from a file another
 * program could have written: what still must not reach a terminal is
 * escaped, the rest (backslashes too) passes as it is. */
void esc_append_again(struct sbuf *sb, const uint8_t *s, size_t n);
/* s escaped as esc_append does, in a new string (a file name for a
 * message: it may hold control characters). */
char *esc_str(const char *s);

/* Mapped files whose faults are named. Reading a mapped page past the
 * end of a file that shrank raises SIGBUS; the line naming the file
 * ("heapwalk: FILE: the dump file changed or shrank while being read
 * (SIGBUS)", escaped) is made when it is watched, since a handler can
 * only write (each is watched before anything reads it). */
/* All n bytes of p to fd, again after EINTR and short writes: 0, or
 * the errno of the write that failed (ENOSPC when one wrote nothing). */
int write_full(int fd, const void *p, size_t n);
/* The same at file offset `at` (pwrite). */
int pwrite_full(int fd, const void *p, size_t n, uint64_t at);
/* Do path and file name one existing file? file may be "FILE:N" (a
 * heapshot of FILE, as heap_open reads it). */
int file_names(const char *path, const char *file);
/* The n bytes of p as file path: written beside it under a temporary
 * name, synced, then renamed over it, so a reader never sees half a
 * file and a failed write leaves what was there. A file replaced keeps
 * its mode (through a symbolic link, the file it names is replaced); a
 * new one gets mode (0: 0666 less the umask); what is no regular file
 * (a terminal, a pipe) is written in place; a name of a descriptor
 * ("-", /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N) is
 * written to it as it is open (appended to in O_APPEND
 * mode), whatever file is behind it. Refuses a path that is one of the
 * files keep[] names (NULL-terminated, NULL for none: the inputs, never
 * written). 0, or -1 with err set to why (the path not in it). */
int write_file(const char *path, const void *p, size_t n, const char *const *keep, mode_t mode,
	       struct sbuf *err);

/* Why files in dir are not ours alone, NULL if they are: dir must be a
 * directory (not a symbolic link), ours, that no one else may write in
 * (group- or world-writable: another user could plant a file there or
 * take a name). narrow: one of ours open to others in any way (077) is
 * closed to 0700 instead, as the private cache directory is kept.
 * Checked on an open descriptor; the reasons are static strings. */
const char *dir_untrusted(const char *dir, int narrow);

/* The seconds the environment variable var says (a number above 0),
 * def when unset or empty. 0, or -1 with one line in err. */
int seconds_env(const char *var, double def, double *out, struct sbuf *err);

/* A temporary file being written: a TERM or ^C meanwhile removes it
 * (and every other guarded one, the latest first), then the signal does
 * what it did before the first was guarded. Guards nest, up to 8 at
 * once; tmp_unguard names the one it ends. 0, or -1 when the name is
 * too long to keep or 8 are guarded. The _at forms name a file by a
 * directory descriptor (held open meanwhile) and unlinkat(2)'s flags
 * (AT_REMOVEDIR: a directory, removed if empty): what no path could
 * name safely, inside another process's root. */
int tmp_guard(const char *path);
void tmp_unguard(const char *path);
int tmp_guard_at(int dir, const char *name, int flags);
void tmp_unguard_at(int dir, const char *name);
/* Files "PREFIX<PID>", "PREFIX<PID>.tmp" or "PREFIX<PID>.XXXXXX" (a
 * mkstemp(3) name) that processes left behind when they were killed:
 * ours, regular, that process gone; removed. */
void tmp_remove_stale(const char *prefix);

/* A mapping whose pages are made when first read (a gzip dump's,
 * format/gz.h): its maker names the function that makes the page of a
 * faulting address (1: made, the access can be done again; 0: no page
 * of its), and every SIGSEGV handler asks map_fault_fix() first. */
void map_fault_fixer(int (*fix)(const void *addr));
int map_fault_fix(const void *addr);
void map_watch(const void *map, uint64_t size, const char *path);
void map_unwatch(const void *map);
/* From a SIGBUS handler (async-signal-safe): the line of the mapping
 * that holds addr, else one naming none (a fault elsewhere, a SIGBUS
 * sent by kill), on stderr; then _exit(status). */
_Noreturn void map_fault_exit(const void *addr, int status);
/* JSON string body (no surrounding quotes), valid UTF-8 guaranteed. */
void json_append(struct sbuf *sb, const uint8_t *s, size_t n);
/* CSV field, quoted when needed, control characters escaped as esc_append.
 * Text that a spreadsheet would run as a formula (starting with = + - @,
 * a tab or a CR: a name or a string from a dump) is quoted after a '. */
void csv_append(struct sbuf *sb, const uint8_t *s, size_t n);
/* The same for the program's own words ("->"): never taken for a formula. */
void csv_append_own(struct sbuf *sb, const uint8_t *s, size_t n);
/* The program's words escaped once already (a message naming a class as
 * esc_append wrote it): quoted, not escaped again (esc_append_again). */
void csv_append_escaped(struct sbuf *sb, const uint8_t *s, size_t n);

/* Human size: "1.2 MB", "523 B" (powers of 1024, labelled kB/MB/GB). */
void fmt_bytes(char *out, size_t outsz, uint64_t bytes);

/* qsort that accepts an empty (possibly NULL) array. */
void hw_qsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));
/* a[0..n) ascending, in place: an insertion sort for the short runs
 * most are (a node's references), introsort beyond 32. */
void sort_u32(uint32_t *a, size_t n);
void sort_u64(uint64_t *a, size_t n);
/* qsort's comparison of two structs by a uint64_t first member. */
int cmp_first_u64(const void *x, const void *y);
/* FNV-1a of s[0..n): for hash tables of names and values. */
uint64_t hw_fnv(const void *s, size_t n);
/* The same with a context handed to every comparison (glibc's qsort_r
 * order of arguments), so that comparators need no file-scope state. */
typedef int (*hw_cmp_fn)(const void *a, const void *b, void *ctx);
void hw_sort(void *base, size_t n, size_t size, hw_cmp_fn cmp, void *ctx);
/* What hw_sort falls back to without qsort_r: a stable merge sort. */
void hw_merge_sort(void *base, size_t n, size_t size, hw_cmp_fn cmp, void *ctx);

/* Lower bound over keys in ascending order: the first index in [lo, hi)
 * whose key is >= `key`, hi if there is none (so a key that is present
 * is found at its first copy). The key of index i is the u32 (u64) at
 * keys + i * stride: a plain array (stride: its element size), an array
 * of structs whose first member is the key (stride: the struct's size),
 * or every other element of an array of pairs. Indexes, not a moved
 * pointer, so that a search in a slice costs no more than in a whole. */
static inline size_t lower_bound_u32_range(const void *keys, size_t stride, size_t lo, size_t hi,
					   uint32_t key)
{
	const char *p = keys;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (*(const uint32_t *)(const void *)(p + mid * stride) < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}
static inline size_t lower_bound_u64_range(const void *keys, size_t stride, size_t lo, size_t hi,
					   uint64_t key)
{
	const char *p = keys;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (*(const uint64_t *)(const void *)(p + mid * stride) < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}
/* The whole of n keys: [0, n). */
static inline size_t lower_bound_u32s(const void *keys, size_t n, size_t stride, uint32_t key)
{
	return lower_bound_u32_range(keys, stride, 0, n, key);
}
static inline size_t lower_bound_u64s(const void *keys, size_t n, size_t stride, uint64_t key)
{
	return lower_bound_u64_range(keys, stride, 0, n, key);
}
static inline size_t lower_bound_u32(const uint32_t *a, size_t n, uint32_t key)
{
	return lower_bound_u32_range(a, sizeof *a, 0, n, key);
}
static inline size_t lower_bound_u64(const uint64_t *a, size_t n, uint64_t key)
{
	return lower_bound_u64_range(a, sizeof *a, 0, n, key);
}
/* The same over two parallel arrays sorted by (a[i], b[i]). */
size_t lower_bound_pair_u32(const uint32_t *a, const uint32_t *b, size_t n, uint32_t ka, uint32_t kb);

/* The edits (a letter added, dropped, changed, or two swapped) from a
 * to b, counted up to max + 1 (their lengths apart by more: max + 1). */
size_t str_edits(const char *a, const char *b, size_t max);

/* Monotonic seconds. */
double hw_now(void);

/* Big-endian reads from mapped memory (no alignment assumed). */
static inline uint16_t be16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static inline uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static inline uint64_t be64(const uint8_t *p) { return (uint64_t)be32(p) << 32 | be32(p + 4); }
static inline uint64_t beid(const uint8_t *p, unsigned idsize) { return idsize == 8 ? be64(p) : be32(p); }

/* Warnings from readers and analyses: one line each, "FILE: offset N: what",
 * escaped like esc_append (names in them come from the dump).
 * Collected (bounded) so that reports can list them and tests can
 * assert on them; also printed to stderr unless quiet. */
struct warnings {
	char **msg;
	size_t n, cap;
	size_t suppressed; /* past the bound */
	int quiet;
};
void warn_add(struct warnings *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same for a message escaped already (as warn_add stored it). */
void warn_add_escaped(struct warnings *w, const char *msg);
void warn_free(struct warnings *w);

/* Display width of UTF-8 text in terminal cells (wcwidth, by the
 * locale), and the longest prefix that fits `width` cells: its length
 * in bytes, *used the cells. Undecodable bytes count one cell. */
int text_width(const char *s);
size_t text_fit(const char *s, int width, int *used);
/* Where the longest end of s that fits `width` cells starts (a line
 * whose end is shown, where the cursor is): its byte offset, *skipped
 * the cells before it. */
size_t text_tail(const char *s, int width, int *skipped);
/* Characters the functions above have measured so far: what a draw
 * costs, for the tests. */
uint64_t text_measured(void);

/* Growable vector: v (pointer), n, cap. */
#define VEC_GROW(v, n, cap) do { \
	if ((n) == (cap)) { \
		(cap) = (cap) ? (cap) * 2 : 256; \
		(v) = xreallocarray((v), (cap), sizeof *(v)); \
	} \
} while (0)

#endif
