/* util.c — allocation, buffers, escaping, warnings. */
#include "config.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <signal.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <time.h>
#include <wchar.h>

static void (*cleanup_fn)(void);
static void (*oom_fn)(size_t);
static char refusal[512];

void hw_set_cleanup(void (*fn)(void)) { cleanup_fn = fn; }
void hw_set_oom(void (*fn)(size_t n)) { oom_fn = fn; }

/* An allocation failed: the front end may unwind (it does not return),
 * else the program ends. */
static void oom(size_t n)
{
	if (oom_fn != NULL)
		oom_fn(n);
}

_Noreturn void hw_refuse(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(refusal, sizeof refusal, fmt, ap);
	va_end(ap);
	oom(0); /* the browser unwinds from here, and shows hw_refusal() */
	hw_fatal("%s", refusal);
}

const char *hw_refusal(void)
{
	return refusal[0] != '\0' ? refusal : NULL;
}

void hw_refusal_clear(void)
{
	refusal[0] = '\0';
}

uint64_t proc_kb(const char *file, const char *key)
{
	FILE *f = fopen(file, "r");
	char line[256];
	size_t n = strlen(key);
	unsigned long long kb = 0;

	while (f != NULL && fgets(line, sizeof line, f) != NULL)
		if (strncmp(line, key, n) == 0 && line[n] == ':') {
			kb = strtoull(line + n + 1, NULL, 10);
			break;
		}
	if (f != NULL)
		fclose(f);
	return (uint64_t)kb * 1024;
}

uint64_t hw_mem_available(void)
{
	return proc_kb("/proc/meminfo", "MemAvailable");
}

_Noreturn void hw_fatal(const char *fmt, ...)
{
	va_list ap;

	if (cleanup_fn != NULL)
		cleanup_fn(); /* restore the terminal before the message */
	fputs("heapwalk: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(3);
}

/* The engine's arrays are big and filled once: transparent huge pages
 * cut the page faults of filling them 512-fold, and faults dominate
 * the build on virtual machines. From 2 MB (V8's node columns, 5.6 MB
 * on a 1.4 M-node snapshot: its open 1.14 -> 0.95 s CPU; from 2 MB for
 * big_alloc only, the gain was gone). The cost: malloc's blocks of 2 to
 * 8 MB come from its heap once its mapping threshold has grown, the
 * advice stays on that range after free, and a small dump's peak grows
 * by a few MB (a 7 MB snapshot: 19.5 -> 27 MB). */
#define HUGE_FROM ((size_t)2 << 20)
#define HUGE_PAGE ((size_t)2 << 20)

static void *huge(void *p, size_t n)
{
	if (n >= HUGE_FROM) {
		uintptr_t a = ((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
		uintptr_t e = ((uintptr_t)p + n) & ~(uintptr_t)(HUGE_PAGE - 1);
		if (e > a)
			madvise((void *)a, e - a, MADV_HUGEPAGE);
	}
	return p;
}

/* For a block of aligned_big's (it starts on a huge page; huge()
 * advised) of which the first `written` bytes are to be written now
 * (xmalloc_whole's, a copy's): those of them in its last part, past its
 * last whole huge page, made at once. A 4 KB fault costs 11 us on this
 * kind of virtual machine, a page made by MADV_POPULATE_WRITE 0.5 us; a
 * 20 MB array's last part alone was 280 faults (a 5 M-object .gcdump's
 * open faulted 7,000 such pages, a 1.4 M-node V8 snapshot's 9,000).
 * Room past `written` is left alone: it is made only if it is used. */
static void *huge_written(void *p, size_t n, size_t written)
{
	size_t whole = n & ~(HUGE_PAGE - 1), w = written < n ? written : n;

	if (p != NULL && n >= HUGE_FROM && w > whole)
		mem_populate(p, whole, w);
	return p;
}

/* A block of n bytes (>= HUGE_FROM) that starts on a huge page, so
 * that huge() advises all of it but its last part: malloc's own start
 * anywhere left up to 2 MB of it to 4 KB pages, each a fault (on this
 * kind of virtual machine microseconds each; a 140 MB memset ran at
 * 0.37 GB/s on fresh 4 KB pages, 12 GB/s on fresh huge pages). free()
 * takes it as any other. */
static void *aligned_big(size_t n)
{
	void *p = NULL;

	if (posix_memalign(&p, HUGE_PAGE, n) != 0)
		return NULL;
#ifdef __GLIBC__
	/* glibc keeps the room past n that the alignment cost (up to 2 MB
	 * of its own mapping), which malloc_usable_size then counts and
	 * grow_big would copy: given back, in place (a sanitizer's malloc
	 * has none, and is not asked) */
	if (malloc_usable_size(p) - n >= 4096) {
		void *q = realloc(p, n);
		if (q != NULL)
			p = q;
	}
#endif
	return p;
}

/* ---- blocks kept to be made again (hw_recycle) ---- */

/* Not under a sanitizer: a block kept and handed out again would hide a
 * use after its free() from it, which is what it is there to find. */
#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_HWADDRESS__)
#if defined(__has_feature)
#if !__has_feature(address_sanitizer) && !__has_feature(hwaddress_sanitizer) && !__has_feature(memory_sanitizer)
#define RECYCLE 1
#endif
#else
#define RECYCLE 1
#endif
#endif

enum { KEPT_MAX = 8 };
#define KEPT_SLACK ((size_t)64 << 10)  /* a kept block taken may be this much bigger than asked */
#define KEPT_SMALL ((size_t)1 << 20)   /* small blocks made while some are kept: then let go */

static struct kept { void *p; size_t n; } kept[KEPT_MAX];
static size_t nkept, small_since, kept_taken;

void hw_recycle_flush(void)
{
	for (size_t i = 0; i < nkept; i++)
		free(kept[i].p);
	nkept = 0;
	small_since = 0;
}

size_t hw_recycle_kept(void)
{
	size_t sum = 0;

	for (size_t i = 0; i < nkept; i++)
		sum += kept[i].n;
	return sum;
}

size_t hw_recycle_taken(void)
{
	return kept_taken;
}

void hw_recycle(void *p)
{
#ifdef RECYCLE
	size_t n = p != NULL ? malloc_usable_size(p) : 0;

	if (n >= HUGE_FROM && nkept < KEPT_MAX) {
		kept[nkept++] = (struct kept){ p, n };
		return;
	}
#endif
	free(p);
}

/* A block of n bytes about to be made anew: the kept ones let go first
 * when it is big (as many bytes as free() would have given back by now
 * are in use, no more: the peak is free()'s), or once the small ones
 * made while blocks are kept add up to KEPT_SMALL. */
static void making(size_t n)
{
	if (nkept > 0 && (n >= HUGE_FROM || (small_since += n) > KEPT_SMALL))
		hw_recycle_flush();
}

/* A kept block for n bytes written whole: the smallest that holds them
 * with at most KEPT_SLACK more (its pages all made: little more than a
 * fresh block of n written whole takes), NULL if none. */
static void *take_kept(size_t n)
{
	size_t best = nkept;

	for (size_t i = 0; i < nkept; i++)
		if (kept[i].n >= n && kept[i].n - n <= KEPT_SLACK && (best == nkept || kept[i].n < kept[best].n))
			best = i;
	if (best == nkept)
		return NULL;
	void *p = kept[best].p;
	kept[best] = kept[--nkept];
	kept_taken++;
	return p;
}

void *hw_malloc_big(size_t n)
{
	making(n);
	void *p = n >= HUGE_FROM ? aligned_big(n) : malloc(n ? n : 1);

	return p != NULL ? huge(p, n) : NULL;
}

void *hw_malloc_whole(size_t n)
{
	void *p = n >= HUGE_FROM ? take_kept(n) : NULL;

	return p != NULL ? p : hw_malloc_big(n);
}

void *xmalloc(size_t n)
{
	void *p = hw_malloc_big(n);

	if (p == NULL) {
		oom(n);
		hw_fatal("out of memory allocating %zu bytes", n);
	}
	return p;
}

void *xmalloc_whole(size_t n)
{
	void *p = n >= HUGE_FROM ? take_kept(n) : NULL;

	return p != NULL ? p : huge_written(xmalloc(n), n, n);
}

void *xcalloc_whole(size_t n, size_t size)
{
	if (size != 0 && n > SIZE_MAX / size)
		hw_fatal("allocation overflow: %zu x %zu", n, size);
	return memset(xmalloc_whole(n * size), 0, n * size);
}

static size_t page_bytes(void)
{
	static size_t page;

	if (page == 0) {
		long n = sysconf(_SC_PAGESIZE);
		page = n > 0 ? (size_t)n : 4096;
	}
	return page;
}

static size_t pages_of(size_t n)
{
	size_t pg = page_bytes();

	return n == 0 ? pg : (n + pg - 1) & ~(pg - 1);
}

/* From HUGE_FROM, the mapping starts on a huge page: where it started
 * anywhere, huge() could advise only its aligned middle, and its first
 * part (up to 2 MB) was faulted in a 4 KB page at a time. The room to
 * choose the start is asked for with it and given back at once: address
 * space, never memory. The end stays where n ends (a last huge page
 * there would be memory nobody asked for). */
void *big_alloc(size_t n)
{
	making(n);
	size_t len = pages_of(n), extra = n >= HUGE_FROM ? HUGE_PAGE - page_bytes() : 0;
	char *p = mmap(NULL, len + extra, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		oom(n);
		hw_fatal("out of memory mapping %zu bytes", n);
	}
	if (extra > 0) {
		char *a = (char *)(((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
		if (a > p)
			munmap(p, (size_t)(a - p));
		if (a + len < p + len + extra)
			munmap(a + len, (size_t)(p + len + extra - (a + len)));
		p = a;
	}
	return huge(p, n);
}

void *big_resize(void *p, size_t old, size_t n)
{
	if (p == NULL)
		return big_alloc(n);
	if (pages_of(n) <= pages_of(old)) { /* smaller: the pages past n go */
		if (pages_of(n) < pages_of(old))
			munmap((char *)p + pages_of(n), pages_of(old) - pages_of(n));
		return p;
	}
	void *q = big_alloc(n);
	memcpy(q, p, old < n ? old : n);
	big_free(p, old);
	return q;
}

void big_release(void *p, size_t from, size_t to)
{
	uintptr_t pg = page_bytes();
	uintptr_t a = ((uintptr_t)p + from + pg - 1) & ~(pg - 1);
	uintptr_t e = ((uintptr_t)p + to) & ~(pg - 1);

	if (p != NULL && e > a)
		madvise((void *)a, e - a, MADV_DONTNEED);
}

/* Linux 5.14's; a C library older than the kernel may not name them */
#if defined(__linux__) && !defined(MADV_POPULATE_READ)
#define MADV_POPULATE_READ 22
#endif
#if defined(__linux__) && !defined(MADV_POPULATE_WRITE)
#define MADV_POPULATE_WRITE 23
#endif

void mem_populate(void *p, size_t from, size_t to)
{
#ifdef MADV_POPULATE_WRITE
	uintptr_t pg = page_bytes();
	uintptr_t a = ((uintptr_t)p + from) & ~(pg - 1);
	uintptr_t e = ((uintptr_t)p + to + pg - 1) & ~(pg - 1);
	int saved = errno; /* advice only: no caller's errno changed */

	/* the first and last pages are partly p's, so they are mapped; an
	 * older kernel refuses the advice (EINVAL) and faults them as usual */
	if (p != NULL && to > from)
		madvise((void *)a, e - a, MADV_POPULATE_WRITE);
	errno = saved;
#else
	(void)p, (void)from, (void)to;
#endif
}

void map_populate(const void *p, size_t from, size_t to)
{
#ifdef MADV_POPULATE_READ
	uintptr_t pg = page_bytes();
	uintptr_t a = ((uintptr_t)p + from) & ~(pg - 1);
	int saved = errno;

	/* the mapping starts on a page, so the page holding `from` is in
	 * it; madvise rounds the length up to the mapping's last page */
	if (p != NULL && to > from)
		madvise((void *)a, (uintptr_t)p + to - a, MADV_POPULATE_READ);
	errno = saved;
#else
	(void)p, (void)from, (void)to;
#endif
}

void big_free(void *p, size_t n)
{
	if (p != NULL)
		munmap(p, pages_of(n));
}

void *xcalloc(size_t n, size_t size)
{
	making(size != 0 && n > SIZE_MAX / size ? SIZE_MAX : n * size);
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (p == NULL) {
		oom(n * size);
		hw_fatal("out of memory allocating %zu x %zu bytes", n, size);
	}
	return huge(p, n * size);
}

/* A block of HUGE_FROM or more that grows, or one made so by realloc:
 * one that starts on a huge page, the old bytes copied. glibc's realloc
 * would move a big block with mremap, which fails (EFAULT) once huge()
 * has split its mapping in three, and then copies it to a fresh mapping
 * that starts anywhere, a 4 KB fault a page (a 5 M-object .gcdump's
 * by_node: 20 MB, 5,000 faults). A smaller block is left to realloc:
 * its mremap moves it, where a copy would have both at once. NULL where
 * it is no such growth, or there is no room (realloc then does it, or
 * says so). */
static void *grow_big(void *p, size_t n)
{
#ifdef __GLIBC__
	size_t old = p != NULL ? malloc_usable_size(p) : 0;

	if (n <= old || (p != NULL && old < HUGE_FROM)) /* realloc's mremap moves a small one */
		return NULL;
	void *q = aligned_big(n);
	if (q == NULL)
		return NULL;
	huge(q, n);
	if (p != NULL)
		memcpy(huge_written(q, n, old), p, old);
	free(p);
	return q;
#else
	(void)p, (void)n;
	return NULL;
#endif
}

void *xrealloc(void *p, size_t n)
{
	making(n);
	void *q = n >= HUGE_FROM ? grow_big(p, n) : NULL;

	if (q != NULL)
		return q;
	q = realloc(p, n ? n : 1);

	if (q == NULL) {
		oom(n);
		hw_fatal("out of memory reallocating %zu bytes", n);
	}
	return huge(q, n);
}

void *xreallocarray(void *p, size_t n, size_t size)
{
	if (size != 0 && n > SIZE_MAX / size)
		hw_fatal("allocation overflow: %zu x %zu", n, size);
	return xrealloc(p, n * size);
}

char *xstrndup(const char *s, size_t n)
{
	size_t k = strnlen(s, n);
	char *d = xmalloc(k + 1);

	memcpy(d, s, k);
	d[k] = '\0';
	return d;
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(xmalloc(n), s, n);
}

static char *vfmt(const char *fmt, va_list ap)
{
	char *s;

	if (vasprintf(&s, fmt, ap) < 0)
		hw_fatal("out of memory formatting a message");
	return s;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	char *s = vfmt(fmt, ap);
	va_end(ap);
	return s;
}

/* What an sbuf without storage of its own points at (cap 0): after
 * sbuf_detach or sbuf_free it stays readable as "" and safe to reuse.
 * Nothing writes to it: growth from cap 0 allocates afresh. */
static char sbuf_empty[1];

void sbuf_init(struct sbuf *sb)
{
	sb->buf = xmalloc(16);
	sb->buf[0] = '\0';
	sb->len = 0;
	sb->cap = 16;
}

void sbuf_free(struct sbuf *sb)
{
	if (sb->cap > 0)
		free(sb->buf);
	sb->buf = sbuf_empty;
	sb->len = sb->cap = 0;
}

void sbuf_reset(struct sbuf *sb)
{
	sb->len = 0;
	if (sb->cap > 0)
		sb->buf[0] = '\0';
	else
		sb->buf = sbuf_empty;
}

static void sbuf_grow(struct sbuf *sb, size_t extra)
{
	size_t cap = sb->cap > 0 ? sb->cap : 16;

	if (sb->len + extra + 1 <= sb->cap)
		return;
	if (sb->len + extra + 1 < sb->len)
		hw_fatal("string buffer overflow");
	while (sb->len + extra + 1 > cap)
		cap *= 2;
	/* cap 0: buf is sbuf_empty (or NULL), never realloc'd */
	sb->buf = xrealloc(sb->cap > 0 ? sb->buf : NULL, cap);
	if (sb->cap == 0)
		sb->buf[0] = '\0';
	sb->cap = cap;
}

void sbuf_add(struct sbuf *sb, const char *s, size_t n)
{
	sbuf_grow(sb, n);
	memcpy(sb->buf + sb->len, s, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void sbuf_adds(struct sbuf *sb, const char *s) { sbuf_add(sb, s, strlen(s)); }
void sbuf_addc(struct sbuf *sb, char c) { sbuf_add(sb, &c, 1); }

void sbuf_printf(struct sbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	char *s = vfmt(fmt, ap);
	va_end(ap);
	sbuf_adds(sb, s);
	free(s);
}

char *sbuf_detach(struct sbuf *sb)
{
	/* always a string the caller owns, even of an sbuf without storage */
	char *b = sb->cap > 0 ? sb->buf : xstrdup("");

	sb->buf = sbuf_empty;
	sb->len = sb->cap = 0;
	return b;
}

/* Length of the valid UTF-8 sequence at s (1..4) and its code point, or
 * 0 if the bytes there are not valid UTF-8 (overlong, surrogate, cut). */
static size_t utf8_decode(const uint8_t *s, size_t n, uint32_t *cp)
{
	uint8_t c = s[0];
	size_t len;
	uint32_t v, min;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if ((c & 0xe0) == 0xc0) {
		len = 2; v = c & 0x1f; min = 0x80;
	} else if ((c & 0xf0) == 0xe0) {
		len = 3; v = c & 0x0f; min = 0x800;
	} else if ((c & 0xf8) == 0xf0) {
		len = 4; v = c & 0x07; min = 0x10000;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (s[i] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return len;
}

/* Java's modified UTF-8, as HPROF names are written: U+0000 as C0 80,
 * and a character beyond the BMP as its two UTF-16 surrogates, each
 * encoded on its own (ED A0..AF xx, ED B0..BF xx). The length (2 or 6)
 * and the code point, or 0 if the bytes are not such a sequence. */
static size_t mutf8_decode(const uint8_t *s, size_t n, uint32_t *cp)
{
	if (n >= 2 && s[0] == 0xc0 && s[1] == 0x80) {
		*cp = 0;
		return 2;
	}
	if (n < 6 || s[0] != 0xed || (s[1] & 0xf0) != 0xa0 || (s[2] & 0xc0) != 0x80 ||
	    s[3] != 0xed || (s[4] & 0xf0) != 0xb0 || (s[5] & 0xc0) != 0x80)
		return 0;
	uint32_t hi = 0xd000u | (uint32_t)(s[1] & 0x3f) << 6 | (s[2] & 0x3f);
	uint32_t lo = 0xd000u | (uint32_t)(s[4] & 0x3f) << 6 | (s[5] & 0x3f);
	*cp = 0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00);
	return 6;
}

void sbuf_add_utf8(struct sbuf *sb, uint32_t cp)
{
	char b[4];
	size_t n;

	if (cp < 0x80) {
		b[0] = (char)cp; n = 1;
	} else if (cp < 0x800) {
		b[0] = (char)(0xc0 | cp >> 6); b[1] = (char)(0x80 | (cp & 0x3f)); n = 2;
	} else if (cp < 0x10000) {
		b[0] = (char)(0xe0 | cp >> 12); b[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		b[2] = (char)(0x80 | (cp & 0x3f)); n = 3;
	} else {
		b[0] = (char)(0xf0 | cp >> 18); b[1] = (char)(0x80 | (cp >> 12 & 0x3f));
		b[2] = (char)(0x80 | (cp >> 6 & 0x3f)); b[3] = (char)(0x80 | (cp & 0x3f)); n = 4;
	}
	sbuf_add(sb, b, n);
}

int utf16_join(unsigned *hi, unsigned unit, uint32_t out[2])
{
	int n = 0;

	if (unit >= 0xdc00 && unit < 0xe000) { /* a low one: with its high one, or alone */
		out[n++] = *hi != 0 ? 0x10000 + ((*hi - 0xd800) << 10) + (unit - 0xdc00) : 0xfffd;
		*hi = 0;
		return n;
	}
	if (*hi != 0) /* a high one alone */
		out[n++] = 0xfffd;
	*hi = unit >= 0xd800 && unit < 0xdc00 ? unit : 0;
	if (*hi == 0)
		out[n++] = unit;
	return n;
}

int utf16_flush(unsigned *hi, uint32_t out[1])
{
	int n = *hi != 0;

	out[0] = 0xfffd;
	*hi = 0;
	return n;
}

/* Control code points, and the line/paragraph separators that some
 * terminals and editors treat as newlines. */
static int cp_is_control(uint32_t cp)
{
	return cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0) ||
	       cp == 0x2028 || cp == 0x2029;
}

size_t utf8_char(const uint8_t *s, size_t n, uint32_t *cp, int *escaped);

/* Invisible format characters (Unicode's category Cf): bidi embeddings,
 * overrides and isolates, marks, zero-width joiners and spaces, the BOM,
 * tags. Shown raw, U+202E makes "exe.txt" read as "txt.exe": a name could
 * pass for another. */
static int cp_is_format(uint32_t cp)
{
	static const uint32_t r[][2] = {
		{ 0xad, 0xad }, { 0x600, 0x605 }, { 0x61c, 0x61c }, { 0x6dd, 0x6dd },
		{ 0x70f, 0x70f }, { 0x890, 0x891 }, { 0x8e2, 0x8e2 }, { 0x180e, 0x180e },
		{ 0x200b, 0x200f }, { 0x202a, 0x202e }, { 0x2060, 0x2064 }, { 0x2066, 0x206f },
		{ 0xfeff, 0xfeff }, { 0xfff9, 0xfffb }, { 0x110bd, 0x110bd }, { 0x110cd, 0x110cd },
		{ 0x13430, 0x1343f }, { 0x1bca0, 0x1bca3 }, { 0x1d173, 0x1d17a },
		{ 0xe0001, 0xe0001 }, { 0xe0020, 0xe007f },
	};

	if (cp < 0xad)
		return 0;
	for (size_t i = 0; i < sizeof r / sizeof r[0]; i++)
		if (cp >= r[i][0] && cp <= r[i][1])
			return 1;
	return 0;
}

size_t utf8_char(const uint8_t *s, size_t n, uint32_t *cp, int *escaped)
{
	size_t len = n > 0 ? utf8_decode(s, n, cp) : 0;

	*escaped = len > 0 && (cp_is_control(*cp) || cp_is_format(*cp));
	return len;
}

/* A code point that must not reach the output raw, escaped: \xNN or
 * \u{NNNN} in text, \uNNNN (a surrogate pair beyond the BMP) in JSON. */
static void esc_cp(struct sbuf *sb, uint32_t cp, int json)
{
	if (json && cp >= 0x10000)
		sbuf_printf(sb, "\\u%04x\\u%04x", 0xd800 + ((cp - 0x10000) >> 10),
			    0xdc00 + ((cp - 0x10000) & 0x3ff));
	else if (json)
		sbuf_printf(sb, "\\u%04x", cp);
	else if (cp < 0x100)
		sbuf_printf(sb, "\\x%02x", cp);
	else
		sbuf_printf(sb, "\\u{%04x}", cp);
}

static void esc_common(struct sbuf *sb, const uint8_t *s, size_t n, int mode, int quote_dq)
{
	int json = mode == 1; /* 2: text escaped once already */

	for (size_t i = 0; i < n;) {
		uint32_t cp;
		size_t len = utf8_decode(s + i, n - i, &cp);
		int mod = 0;

		if (len == 0 && (len = mutf8_decode(s + i, n - i, &cp)) > 0)
			mod = 1; /* valid as Java writes it, not as UTF-8 */
		if (len == 0) {
			/* invalid byte: visible, reversible, never raw */
			if (json)
				sbuf_printf(sb, "\\u00%02x", s[i]);
			else
				sbuf_printf(sb, "\\x%02x", s[i]);
			i++;
			continue;
		}
		if (mode == 2 && !mod && !cp_is_control(cp) && !cp_is_format(cp)) {
			sbuf_add(sb, (const char *)s + i, len); /* escaped once already */
		} else if (cp == '\\' || (cp == '"' && quote_dq)) {
			sbuf_addc(sb, '\\');
			sbuf_addc(sb, (char)cp);
		} else if (cp == '\n') {
			sbuf_adds(sb, "\\n");
		} else if (cp == '\t') {
			sbuf_adds(sb, "\\t");
		} else if (cp == '\r') {
			sbuf_adds(sb, "\\r");
		} else if (cp_is_control(cp) || cp_is_format(cp)) {
			esc_cp(sb, cp, json);
		} else if (mod) {
			sbuf_add_utf8(sb, cp);
		} else {
			sbuf_add(sb, (const char *)s + i, len);
		}
		i += len;
	}
}

void esc_append(struct sbuf *sb, const uint8_t *s, size_t n, int quote_dq)
{
	esc_common(sb, s, n, 0, quote_dq);
}

void esc_append_again(struct sbuf *sb, const uint8_t *s, size_t n)
{
	esc_common(sb, s, n, 2, 0);
}

char *esc_str(const char *s)
{
	struct sbuf sb;

	sbuf_init(&sb);
	esc_append(&sb, (const uint8_t *)s, strlen(s), 0);
	return sbuf_detach(&sb);
}

/* ---- faults on mapped files ---- */
#define MAP_WATCHED 8 /* the dump, its baseline, ...: not a count from input */
static struct {
	const uint8_t *volatile map;
	volatile uint64_t size;
	char *volatile line;
	volatile size_t len;
} watched[MAP_WATCHED];
static volatile int watched_last = -1;

/* ---- temporary files ---- */

/* The temporary files being written, for the signal handlers: a TERM
 * or ^C in the middle removes every one, then the signal does what it
 * did before the first was guarded. They nest (a gzip dump inflated to
 * check the snapshot being written, a cache written while a heap is
 * open): each is a slot, a name relative to a directory descriptor
 * (AT_FDCWD for a path) and unlinkat's flags, filled before it is
 * marked live; the handlers are installed when the first goes live and
 * the saved ones put back when the last goes. */
#define TMP_SLOTS 8
static struct {
	volatile sig_atomic_t live;
	int dir, flags;
	char name[PATH_MAX];
} tmp_slot[TMP_SLOTS];
static const int tmp_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGXFSZ, SIGALRM,
				   SIGUSR1, SIGUSR2 };
#define NTMPSIG (sizeof tmp_signals / sizeof tmp_signals[0])
static struct sigaction tmp_saved[NTMPSIG];

/* Removes the latest first: a file before the directory it is in. */
static void tmp_on_signal(int sig)
{
	for (int i = TMP_SLOTS - 1; i >= 0; i--)
		if (tmp_slot[i].live) {
			unlinkat(tmp_slot[i].dir, tmp_slot[i].name, tmp_slot[i].flags);
			tmp_slot[i].live = 0;
		}
	for (size_t i = 0; i < NTMPSIG; i++)
		sigaction(tmp_signals[i], &tmp_saved[i], NULL); /* the front end's, or the default */
	raise(sig);
}

int write_full(int fd, const void *p, size_t n)
{
	const char *b = p;

	while (n > 0) {
		ssize_t w = write(fd, b, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? errno : ENOSPC;
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

int pwrite_full(int fd, const void *p, size_t n, uint64_t at)
{
	const char *b = p;

	while (n > 0) {
		ssize_t w = pwrite(fd, b, n, (off_t)at);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? errno : ENOSPC;
		b += w;
		n -= (size_t)w;
		at += (uint64_t)w;
	}
	return 0;
}

int file_names(const char *path, const char *file)
{
	struct stat a, b;
	char *cut = NULL;
	const char *colon = strrchr(file, ':');
	int same;

	if (stat(path, &a) != 0)
		return 0;
	if (stat(file, &b) != 0) { /* "FILE:N": a heapshot of FILE */
		if (colon == NULL)
			return 0;
		cut = xstrndup(file, (size_t)(colon - file));
		if (stat(cut, &b) != 0) {
			free(cut);
			return 0;
		}
	}
	same = a.st_dev == b.st_dev && a.st_ino == b.st_ino;
	free(cut);
	return same;
}

/* The descriptor a name for one stands for ("-", /dev/stdin,
 * /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N), else -1: the
 * name, not the file behind it, which may be any. */
static int fd_name(const char *path)
{
	static const char *const dirs[] = { "/dev/fd/", "/proc/self/fd/" };
	char *end;

	if (strcmp(path, "-") == 0 || strcmp(path, "/dev/stdout") == 0)
		return 1;
	if (strcmp(path, "/dev/stdin") == 0)
		return 0;
	if (strcmp(path, "/dev/stderr") == 0)
		return 2;
	for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
		size_t k = strlen(dirs[i]);
		if (strncmp(path, dirs[i], k) != 0 || path[k] < '0' || path[k] > '9')
			continue;
		long fd = strtol(path + k, &end, 10);
		return *end == '\0' && fd <= INT_MAX ? (int)fd : -1;
	}
	return -1;
}

/* Written to the descriptor as the shell opened it: at its offset, at
 * the end in O_APPEND mode; never reopened (O_TRUNC would cut what >>
 * keeps) nor resolved to a file and renamed over. */
static int write_to_fd(int fd, const void *p, size_t n, struct sbuf *err)
{
	int e = fcntl(fd, F_GETFL) < 0 ? errno : write_full(fd, p, n);

	if (e != 0)
		sbuf_adds(err, strerror(e));
	return e != 0 ? -1 : 0;
}

/* Written in place: a terminal, a pipe, a FIFO. */
static int write_in_place(const char *path, const void *p, size_t n, struct sbuf *err)
{
	/* not blocking in the open: a FIFO no one reads is an error, not a wait */
	int fd = open(path, O_WRONLY | O_TRUNC | O_NONBLOCK), e;

	if (fd < 0) {
		sbuf_adds(err, errno == ENXIO ? "a FIFO that no process reads: nothing written" : strerror(errno));
		return -1;
	}
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0) {
		sbuf_adds(err, strerror(errno));
		close(fd);
		return -1;
	}
	e = write_full(fd, p, n);
	if (close(fd) < 0 && e == 0)
		e = errno;
	if (e != 0)
		sbuf_adds(err, strerror(e));
	return e != 0 ? -1 : 0;
}

int write_file(const char *path, const void *p, size_t n, const char *const *keep, mode_t mode,
	       struct sbuf *err)
{
	struct stat st;
	char *real = NULL, *tmp;
	int fd, e;

	for (; keep != NULL && *keep != NULL; keep++)
		if (file_names(path, *keep)) {
			sbuf_adds(err, "is an input, which heapwalk never writes");
			return -1;
		}
	if (fd_name(path) >= 0)
		return write_to_fd(fd_name(path), p, n, err);
	if (stat(path, &st) == 0) {
		if (!S_ISREG(st.st_mode))
			return write_in_place(path, p, n, err);
		mode = st.st_mode & 07777;    /* replaced, it keeps its mode */
		real = realpath(path, NULL);  /* through a symbolic link, the file it names */
		if (real != NULL)
			path = real;
	} else if (mode == 0) {
		mode_t mask = umask(0);
		umask(mask);
		mode = 0666 & ~mask;
	}
	tmp = xasprintf("%s.%ld.tmp", path, (long)getpid());
	tmp_guard(tmp); /* before it exists: a signal then removes nothing */
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0) {
		sbuf_adds(err, strerror(errno));
		tmp_unguard(tmp);
		free(tmp);
		free(real);
		return -1;
	}
	e = write_full(fd, p, n);
	if (e == 0 && (fchmod(fd, mode) < 0 || fsync(fd) < 0))
		e = errno;
	if (close(fd) < 0 && e == 0)
		e = errno;
	if (e == 0 && rename(tmp, path) < 0)
		e = errno;
	if (e != 0) {
		unlink(tmp);
		sbuf_adds(err, strerror(e));
	}
	tmp_unguard(tmp);
	free(tmp);
	free(real);
	return e != 0 ? -1 : 0;
}

const char *dir_untrusted(const char *dir, int narrow)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	const char *why = NULL;
	struct stat st;

	if (fd < 0)
		return errno == ELOOP ? "a symbolic link" : errno == ENOTDIR ? "not a directory" : "cannot be opened";
	if (fstat(fd, &st) < 0 || !S_ISDIR(st.st_mode))
		why = "not a directory";
	else if (st.st_uid != geteuid())
		why = "owned by another user";
	else if (narrow && (st.st_mode & 077) != 0 && fchmod(fd, 0700) < 0)
		why = "open to others, and cannot be closed";
	else if (!narrow && (st.st_mode & 022) != 0)
		why = "writable by others";
	close(fd);
	return why;
}

/* Any slot live? With the signals blocked, so the handler's view is
 * whole. */
static int tmp_any_live(void)
{
	for (int i = 0; i < TMP_SLOTS; i++)
		if (tmp_slot[i].live)
			return 1;
	return 0;
}

static void tmp_block(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	for (size_t i = 0; i < NTMPSIG; i++)
		sigaddset(&set, tmp_signals[i]);
	sigprocmask(SIG_BLOCK, &set, old);
}

int tmp_guard_at(int dir, const char *name, int flags)
{
	struct sigaction sa;
	sigset_t old;
	int slot = -1;

	if (strlen(name) >= PATH_MAX)
		return -1;
	tmp_block(&old);
	/* above the highest live slot, so that the handler's order (the
	 * highest first) is the order of guarding: a file guarded after the
	 * directory it is in goes before it, even when a slot below was
	 * freed in between; when the top is taken, the live ones move down
	 * in their order first */
	int top = -1, n = 0;
	for (int i = 0; i < TMP_SLOTS; i++)
		if (tmp_slot[i].live)
			top = i, n++;
	if (top == TMP_SLOTS - 1 && n < TMP_SLOTS) {
		n = 0;
		for (int i = 0; i < TMP_SLOTS; i++)
			if (tmp_slot[i].live) {
				if (i != n) {
					tmp_slot[n].dir = tmp_slot[i].dir;
					tmp_slot[n].flags = tmp_slot[i].flags;
					memcpy(tmp_slot[n].name, tmp_slot[i].name, strlen(tmp_slot[i].name) + 1);
					tmp_slot[n].live = 1;
					tmp_slot[i].live = 0;
				}
				n++;
			}
		top = n - 1;
	}
	if (top < TMP_SLOTS - 1)
		slot = top + 1;
	if (slot >= 0 && !tmp_any_live()) {
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = tmp_on_signal;
		sigemptyset(&sa.sa_mask);
		for (size_t i = 0; i < NTMPSIG; i++) {
			sigaction(tmp_signals[i], NULL, &tmp_saved[i]);
			if (tmp_saved[i].sa_handler != SIG_IGN) /* an ignored one stays ignored */
				sigaction(tmp_signals[i], &sa, NULL);
		}
	}
	if (slot >= 0) {
		memcpy(tmp_slot[slot].name, name, strlen(name) + 1);
		tmp_slot[slot].dir = dir;
		tmp_slot[slot].flags = flags;
		tmp_slot[slot].live = 1;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return slot >= 0 ? 0 : -1;
}

int tmp_guard(const char *path)
{
	return tmp_guard_at(AT_FDCWD, path, 0);
}

void tmp_unguard_at(int dir, const char *name)
{
	sigset_t old;
	int was = 0;

	tmp_block(&old);
	for (int i = TMP_SLOTS - 1; i >= 0 && !was; i--)
		if (tmp_slot[i].live && tmp_slot[i].dir == dir && strcmp(tmp_slot[i].name, name) == 0) {
			tmp_slot[i].live = 0;
			was = 1;
		}
	if (was && !tmp_any_live())
		for (size_t i = 0; i < NTMPSIG; i++)
			sigaction(tmp_signals[i], &tmp_saved[i], NULL);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

void tmp_unguard(const char *path)
{
	tmp_unguard_at(AT_FDCWD, path);
}

/* ".XXXXXX" as mkstemp(3) fills it in? */
static int mkstemp_tail(const char *s)
{
	if (*s++ != '.' || strlen(s) != 6)
		return 0;
	for (; *s; s++)
		if (!(*s >= 'a' && *s <= 'z') && !(*s >= 'A' && *s <= 'Z') && !(*s >= '0' && *s <= '9'))
			return 0;
	return 1;
}

void tmp_remove_stale(const char *prefix)
{
	const char *slash = strrchr(prefix, '/');
	char *dir = slash ? xstrndup(prefix, (size_t)(slash - prefix) + (slash == prefix)) : xstrdup(".");
	const char *pre = slash ? slash + 1 : prefix;
	size_t np = strlen(pre);
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d != NULL && (e = readdir(d)) != NULL) {
		char *end;
		if (strncmp(e->d_name, pre, np) != 0)
			continue;
		long pid = strtol(e->d_name + np, &end, 10);
		int tail = *end == '\0' || strcmp(end, ".tmp") == 0 || mkstemp_tail(end);
		if (!tail || pid <= 0 || end == e->d_name + np ||
		    (kill((pid_t)pid, 0) == 0 || errno != ESRCH))
			continue;
		struct stat st;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
		    st.st_uid == geteuid())
			unlinkat(dirfd(d), e->d_name, 0);
	}
	if (d != NULL)
		closedir(d);
	free(dir);
}

static int (*volatile fault_fixer)(const void *addr);

void map_fault_fixer(int (*fix)(const void *addr)) { fault_fixer = fix; }

int map_fault_fix(const void *addr)
{
	int (*fix)(const void *) = fault_fixer;

	return fix != NULL && addr != NULL && fix(addr);
}

void map_watch(const void *map, uint64_t size, const char *path)
{
	int slot = -1;

	for (int i = 0; i < MAP_WATCHED && slot < 0; i++)
		if (watched[i].map == NULL)
			slot = i;
	if (slot < 0) /* all taken: the oldest gives way */
		slot = (watched_last + 1) % MAP_WATCHED;
	char *ep = esc_str(path);
	char *line = xasprintf("heapwalk: %s: the dump file changed or shrank while being read (SIGBUS)\n", ep);
	free(ep);
	char *old = watched[slot].line;
	watched[slot].map = NULL; /* not found half made by a handler */
	watched[slot].line = line;
	watched[slot].len = strlen(line);
	watched[slot].size = size;
	watched[slot].map = map;
	watched_last = slot;
	free(old);
}

void map_unwatch(const void *map)
{
	for (int i = 0; i < MAP_WATCHED; i++)
		if (map != NULL && watched[i].map == map) {
			char *line = watched[i].line;
			watched[i].map = NULL;
			watched[i].line = NULL;
			if (watched_last == i)
				watched_last = -1;
			free(line);
		}
}

static const char *map_fault_line(const void *addr, size_t *len)
{
	static const char none[] = "heapwalk: a mapped file changed or shrank while being read (SIGBUS)\n";
	const uint8_t *a = addr;
	int at = -1;

	for (int i = 0; i < MAP_WATCHED; i++) {
		const uint8_t *m = watched[i].map;
		if (m != NULL && a >= m && (uint64_t)(a - m) < watched[i].size)
			at = i;
	}
	if (at >= 0 && watched[at].map != NULL && watched[at].line != NULL) {
		*len = watched[at].len;
		return watched[at].line;
	}
	*len = sizeof none - 1;
	return none;
}

void map_fault_exit(const void *addr, int status)
{
	size_t len;
	const char *line = map_fault_line(addr, &len);

	if (write(STDERR_FILENO, line, len) < 0) { /* nothing left to tell */
	}
	_exit(status);
}

void json_append(struct sbuf *sb, const uint8_t *s, size_t n)
{
	esc_common(sb, s, n, 1, 1);
}

/* What a spreadsheet would run as a formula (OWASP's advice on CSV
 * injection names these first characters). */
static int csv_formula(const uint8_t *s, size_t n)
{
	return n > 0 && (s[0] == '=' || s[0] == '+' || s[0] == '-' || s[0] == '@' || s[0] == '\t' || s[0] == '\r');
}

/* A field; a formula quoted after a ' (the advice: no spreadsheet runs
 * it then, and the text reads as it was) unless formula_ok. */
/* mode: esc_common's (0 raw text, 2 escaped once already) */
static void csv_field(struct sbuf *sb, const uint8_t *s, size_t n, int formula_ok, int mode)
{
	int lead = !formula_ok && csv_formula(s, n), quote = lead;

	for (size_t i = 0; i < n; i++)
		if (s[i] == ',' || s[i] == '"' || s[i] == ' ' || s[i] < 0x20)
			quote = 1;
	if (!quote) {
		esc_common(sb, s, n, mode, 0);
		return;
	}
	sbuf_adds(sb, lead ? "\"'" : "\"");
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j < n && s[j] != '"')
			j++;
		esc_common(sb, s + i, j - i, mode, 0);
		if (j < n) {
			sbuf_adds(sb, "\"\""); /* CSV doubles the quote */
			j++;
		}
		i = j;
	}
	sbuf_addc(sb, '"');
}

void csv_append(struct sbuf *sb, const uint8_t *s, size_t n)
{
	csv_field(sb, s, n, 0, 0);
}

void csv_append_own(struct sbuf *sb, const uint8_t *s, size_t n)
{
	csv_field(sb, s, n, 1, 0);
}

void csv_append_escaped(struct sbuf *sb, const uint8_t *s, size_t n)
{
	csv_field(sb, s, n, 1, 2);
}

void fmt_bytes(char *out, size_t outsz, uint64_t bytes)
{
	static const char *unit[] = { "B", "kB", "MB", "GB", "TB", "PB" };
	double v = (double)bytes;
	int u = 0;

	if (bytes < 1024) {
		snprintf(out, outsz, "%llu B", (unsigned long long)bytes);
		return;
	}
	/* the format is chosen after rounding, so that 9.999 kB is
	 * "10.0 kB", 1023.7 kB is "1.00 MB": never more than 7 cells */
	while (v >= 1023.5 && u < 5) {
		v /= 1024;
		u++;
	}
	snprintf(out, outsz, v < 9.995 ? "%.2f %s" : v < 99.95 ? "%.1f %s" : "%.0f %s", v, unit[u]);
}

uint64_t hw_fnv(const void *s, size_t n)
{
	const uint8_t *p = s;
	uint64_t x = 1469598103934665603ull;

	for (size_t i = 0; i < n; i++)
		x = (x ^ p[i]) * 1099511628211ull;
	return x;
}

/* glibc's qsort and qsort_r sort through a copy of the array that they
 * malloc: made anew (making), as xmalloc's blocks are */
void hw_qsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	making(size != 0 && n > SIZE_MAX / size ? SIZE_MAX : n * size);
	if (n > 1) /* qsort(NULL, 0) is undefined behaviour */
		qsort(base, n, size, cmp);
}

/* Short runs by insertion; longer ones split around a median of three
 * (the smaller side first, the larger one looped on), with heapsort
 * where the splits go badly (a dump made to make them: n log n still).
 * In place, no comparison through a pointer: qsort's merge sort and
 * its calls to cmp took 2.4% of an HPROF cold open (5.9 M objects),
 * most of it on the targets of one object each. Written once for
 * each unsigned type T, named by S (u32, u64). */
#define INTRO_SORT(S, T) \
static void insert_##S(T *a, size_t n) \
{ \
	for (size_t i = 1; i < n; i++) { \
		T t = a[i]; \
		size_t j = i; \
		for (; j > 0 && a[j - 1] > t; j--) \
			a[j] = a[j - 1]; \
		a[j] = t; \
	} \
} \
\
static void sift_##S(T *a, size_t i, size_t n) \
{ \
	T t = a[i]; \
\
	for (size_t c; (c = 2 * i + 1) < n; i = c) { \
		if (c + 1 < n && a[c + 1] > a[c]) \
			c++; \
		if (a[c] <= t) \
			break; \
		a[i] = a[c]; \
	} \
	a[i] = t; \
} \
\
static void heap_##S(T *a, size_t n) \
{ \
	for (size_t i = n / 2; i-- > 0;) \
		sift_##S(a, i, n); \
	for (size_t e = n; e-- > 1;) { \
		T t = a[0]; \
		a[0] = a[e]; \
		a[e] = t; \
		sift_##S(a, 0, e); \
	} \
} \
\
/* depth: the splits left before heapsort, shared with the calls made \
 * on the smaller sides (introsort's budget: 2 log n in all) */ \
static void intro_##S(T *a, size_t n, unsigned depth) \
{ \
	while (n > 32) { \
		if (depth-- == 0) { \
			heap_##S(a, n); \
			return; \
		} \
		T x = a[0], y = a[n / 2], z = a[n - 1]; \
		T piv = x < y ? (y < z ? y : x < z ? z : x) : (x < z ? x : y < z ? z : y); \
		size_t i = 0, j = n - 1; \
		for (;;) { /* Hoare's: every element left of i <= piv, right of j >= piv */ \
			while (a[i] < piv) \
				i++; \
			while (a[j] > piv) \
				j--; \
			if (i >= j) \
				break; \
			T t = a[i]; \
			a[i++] = a[j]; \
			a[j--] = t; \
		} \
		/* [0, j] and [j + 1, n): both non-empty */ \
		size_t left = j + 1; \
		if (left < n - left) { \
			intro_##S(a, left, depth); \
			a += left; \
			n -= left; \
		} else { \
			intro_##S(a + left, n - left, depth); \
			n = left; \
		} \
	} \
	insert_##S(a, n); \
} \
\
void sort_##S(T *a, size_t n) \
{ \
	unsigned depth = 0; \
\
	for (size_t m = n; m > 1; m >>= 1) \
		depth += 2; \
	intro_##S(a, n, depth); \
}

INTRO_SORT(u32, uint32_t)
/* the builder's runs of (target << 32 | place) pairs: qsort's merge
 * sort, its calls to cmp and its copy (malloc'd, which let the kept
 * blocks go, hw_recycle) took 2% of a V8 cold open */
INTRO_SORT(u64, uint64_t)

int cmp_first_u64(const void *x, const void *y)
{
	uint64_t a, b;

	memcpy(&a, x, sizeof a);
	memcpy(&b, y, sizeof b);
	return a < b ? -1 : a > b;
}


/* Bottom-up merge sort: stable, n log n, one buffer of n elements. */
void hw_merge_sort(void *base, size_t n, size_t size, hw_cmp_fn cmp, void *ctx)
{
	char *a = base, *b, *src, *dst;

	if (n < 2)
		return;
	b = xreallocarray(NULL, n, size);
	src = a;
	dst = b;
	for (size_t w = 1; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t i = lo, j = mid, k = lo;
			while (i < mid && j < hi)
				memcpy(dst + k++ * size, cmp(src + j * size, src + i * size, ctx) < 0
					 ? src + j++ * size : src + i++ * size, size);
			memcpy(dst + k * size, src + i * size, (mid - i) * size);
			k += mid - i;
			memcpy(dst + k * size, src + j * size, (hi - j) * size);
		}
		char *tmp = src;
		src = dst;
		dst = tmp;
	}
	if (src != a)
		memcpy(a, src, n * size);
	free(b);
}

void hw_sort(void *base, size_t n, size_t size, hw_cmp_fn cmp, void *ctx)
{
#ifdef HAVE_GNU_QSORT_R
	making(size != 0 && n > SIZE_MAX / size ? SIZE_MAX : n * size); /* hw_qsort's */
	if (n > 1)
		qsort_r(base, n, size, cmp, ctx);
#else
	hw_merge_sort(base, n, size, cmp, ctx);
#endif
}

size_t str_edits(const char *a, const char *b, size_t max)
{
	size_t la = strlen(a), lb = strlen(b), local[3][34], *d[3], best;

	if ((la > lb ? la - lb : lb - la) > max)
		return max + 1;
	/* rows i - 2, i - 1, i of the table, kept round */
	if (lb < 34) {
		d[0] = local[0], d[1] = local[1], d[2] = local[2];
	} else {
		d[0] = xmalloc(3 * (lb + 1) * sizeof **d);
		d[1] = d[0] + lb + 1, d[2] = d[1] + lb + 1;
	}
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t *r = d[i % 3], *p = d[(i + 2) % 3], *q = d[(i + 1) % 3], low = i;
		r[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t c = p[j - 1] + (a[i - 1] != b[j - 1]);
			if (p[j] + 1 < c)
				c = p[j] + 1;
			if (r[j - 1] + 1 < c)
				c = r[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && q[j - 2] + 1 < c)
				c = q[j - 2] + 1;
			r[j] = c;
			if (c < low)
				low = c;
		}
		/* a row's least is at most one more than the row before's, and
		 * a row's cells come from the two before: past max in one, past
		 * max in every one after */
		if (low > max) {
			la = i;
			break;
		}
	}
	best = d[la % 3][lb] < max + 1 ? d[la % 3][lb] : max + 1;
	if (lb >= 34)
		free(d[0]);
	return best;
}

size_t lower_bound_pair_u32(const uint32_t *a, const uint32_t *b, size_t n, uint32_t ka, uint32_t kb)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (a[mid] < ka || (a[mid] == ka && b[mid] < kb))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

double hw_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#define WARN_MAX 1000 /* keep the first ones: later ones are usually echoes */

void warn_add_escaped(struct warnings *w, const char *msg)
{
	if (w->n >= WARN_MAX) {
		w->suppressed++;
		return;
	}
	if (w->n == w->cap) {
		w->cap = w->cap ? w->cap * 2 : 16;
		w->msg = xreallocarray(w->msg, w->cap, sizeof *w->msg);
	}
	w->msg[w->n++] = xstrdup(msg);
	if (!w->quiet)
		fprintf(stderr, "heapwalk: warning: %s\n", msg);
}

void warn_add(struct warnings *w, const char *fmt, ...)
{
	va_list ap;
	struct sbuf sb;

	if (w->n >= WARN_MAX) {
		w->suppressed++;
		return;
	}
	va_start(ap, fmt);
	char *raw = vfmt(fmt, ap);
	va_end(ap);
	/* class and field names in a message come from the dump */
	sbuf_init(&sb);
	esc_append(&sb, (const uint8_t *)raw, strlen(raw), 0);
	free(raw);
	warn_add_escaped(w, sb.buf);
	sbuf_free(&sb);
}

void warn_free(struct warnings *w)
{
	for (size_t i = 0; i < w->n; i++)
		free(w->msg[i]);
	free(w->msg);
	w->msg = NULL;
	w->n = w->cap = w->suppressed = 0;
}

static uint64_t text_decoded; /* characters measured, for text_measured() */

/* The character at s (n bytes left): its bytes, its cells in *cw. By
 * the current locale (LC_CTYPE): a byte it cannot decode is one cell,
 * as the browser draws it ('?'). */
static size_t text_char(const char *s, size_t n, mbstate_t *st, int *cw)
{
	wchar_t wc;
	size_t k = mbrtowc(&wc, s, n, st);

	text_decoded++;
	if (k == (size_t)-1 || k == (size_t)-2 || k == 0) {
		memset(st, 0, sizeof *st);
		*cw = 1; /* drawn as one replacement cell */
		return 1;
	}
	*cw = wcwidth(wc);
	if (*cw < 0)
		*cw = 1;
	return k;
}

size_t text_fit(const char *s, int width, int *used)
{
	mbstate_t st;
	size_t i = 0, len = strlen(s);
	int w = 0;

	memset(&st, 0, sizeof st);
	while (i < len) {
		int cw;
		size_t k = text_char(s + i, len - i, &st, &cw);
		if (w + cw > width)
			break;
		w += cw;
		i += k;
	}
	if (used != NULL)
		*used = w;
	return i;
}

/* Two passes: the whole width, then the characters that go. Measuring
 * what is left after each one made a paste of 10 kB into the prompt
 * (drawn at every byte) take minutes. */
size_t text_tail(const char *s, int width, int *skipped)
{
	mbstate_t st;
	size_t i = 0, len = strlen(s);
	int over = text_width(s) - width, skip = 0;

	memset(&st, 0, sizeof st);
	while (skip < over && i < len) {
		int cw;
		i += text_char(s + i, len - i, &st, &cw);
		skip += cw;
	}
	*skipped = skip;
	return i;
}

uint64_t text_measured(void)
{
	return text_decoded;
}

int text_width(const char *s)
{
	int w;

	text_fit(s, 1 << 30, &w);
	return w;
}

/* A bound in seconds: environment variable var, else def. 0, or -1
 * with err. */
int seconds_env(const char *var, double def, double *out, struct sbuf *err)
{
	const char *v = getenv(var);
	char *end;

	*out = def;
	if (v == NULL || *v == '\0')
		return 0;
	*out = strtod(v, &end);
	if (*end == '\0' && *out > 0 && *out <= 1e9)
		return 0;
	sbuf_printf(err, "%s=", var);
	esc_append(err, (const uint8_t *)v, strlen(v), 0);
	sbuf_adds(err, ": not a number of seconds above 0");
	return -1;
}
