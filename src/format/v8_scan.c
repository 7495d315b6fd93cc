/* v8_scan.c — the JSON scanner of the V8 snapshot reader: problems,
 * strings, skipping any value without recursion, numbers that are not
 * plain, and the decoding of a string for display (v8_string). */
#include "format/v8_scan.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

int v8s_problem(struct rd *r, uint64_t at, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	r->stop = 1;
	if (r->quiet)
		return -1;
	if (r->have_meta) {
		warn_add(r->w, "%s: offset %llu: %s", r->path, (unsigned long long)at, msg);
		if (r->s != NULL && r->s->cut_at == 0)
			r->s->cut_at = at > 0 ? at : 1;
	} else if (r->err->len == 0) {
		char *ep = esc_str(r->path); /* a file name may hold control characters */
		sbuf_printf(r->err, "%s: offset %llu: %s", ep, (unsigned long long)at, msg);
		free(ep);
	}
	return -1;
}

/* A quote ends the string when an even number of backslashes precedes
 * it. Each backslash is counted for the one quote after it, so the
 * scan stays linear; memchr does the long stretches. */
const uint8_t *v8s_str_end(const uint8_t *p, const uint8_t *end)
{
	const uint8_t *q = p + 1;

	while (q < end) {
		const uint8_t *c = memchr(q, '"', (size_t)(end - q));
		if (c == NULL)
			return NULL;
		const uint8_t *b = c;
		while (b > p + 1 && b[-1] == '\\')
			b--;
		if (((c - b) & 1) == 0)
			return c + 1;
		q = c + 1;
	}
	return NULL;
}

const uint8_t *v8s_last_byte(const uint8_t *from, const uint8_t *to, uint8_t c)
{
#ifdef __SSE2__
	__m128i want = _mm_set1_epi8((char)c);
	while (to - from >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(to - 16));
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, want));
		if (m != 0)
			return to - 16 + (31 - __builtin_clz(m));
		to -= 16;
	}
#endif
	while (to > from)
		if (*--to == c)
			return to;
	return NULL;
}

static int is_scalar_byte(uint8_t c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' ||
	       c == '+' || c == '.';
}

/* Brackets are counted and strings jumped over; whether the value is
 * valid JSON inside is not checked, only that its brackets close. A
 * counter instead of recursion: the nesting is the file's to choose. */
int v8s_skip_value(struct rd *r)
{
	unsigned depth = 0;

	for (;;) {
		ws(r);
		if (r->p >= r->end)
			return v8s_problem(r, pos(r), "truncated (the file ends inside a value)");
		uint8_t c = *r->p;
		if (c == '"') {
			const uint8_t *e = v8s_str_end(r->p, r->end);
			if (e == NULL)
				return v8s_problem(r, pos(r), "unterminated string");
			r->p = e;
		} else if (c == '[' || c == '{') {
			if (++depth > V8_DEPTH_MAX)
				return v8s_problem(r, pos(r), "nested deeper than %d", V8_DEPTH_MAX);
			r->p++;
			continue;
		} else if (c == ']' || c == '}' || c == ',' || c == ':') {
			if (depth == 0)
				return v8s_problem(r, pos(r), "unexpected '%c'", c);
			r->p++;
			if (c == ',' || c == ':' || --depth > 0)
				continue;
		} else {
			const uint8_t *q = r->p;
			while (r->p < r->end && is_scalar_byte(*r->p))
				r->p++;
			if (r->p == q)
				return v8s_problem(r, pos(r), "unexpected byte 0x%02x", c);
		}
		if (depth == 0)
			return 0;
	}
}

int v8s_expect(struct rd *r, uint8_t c, const char *where)
{
	ws(r);
	if (r->p >= r->end)
		return v8s_problem(r, pos(r), "truncated in %s", where);
	if (*r->p != c)
		return v8s_problem(r, pos(r), "expected '%c' in %s", c, where);
	r->p++;
	return 0;
}

/* Multiply by 10^e (e < 0: divide), saturating. */
static uint64_t scale10(uint64_t x, long e)
{
	for (; e > 0 && x != 0 && x != UINT64_MAX; e--)
		x = x > UINT64_MAX / 10 ? UINT64_MAX : x * 10;
	for (; e < 0 && x != 0; e++)
		x /= 10;
	return x;
}

/* Does m * 10 + the digit c fit in 64 bits? (So that UINT64_MAX itself
 * reads exactly, 20 digits and all.) */
static int fits_digit(uint64_t m, uint8_t c)
{
	return m < UINT64_MAX / 10 || (m == UINT64_MAX / 10 && (uint64_t)(c - '0') <= UINT64_MAX % 10);
}

/* Returns 1 with the value, as next_num does, -1 after a problem. The
 * digits are kept as a mantissa (19 of them at most) and a power of
 * ten, so that 3.5e1 reads 35 and 2.5 reads 2. */
int v8s_num_slow(struct rd *r, uint64_t *v)
{
	const uint8_t *p = r->p, *end = r->end;
	int neg = 0, digits = 0;
	uint64_t m = 0;
	long e10 = 0;

	if (p < end && *p == '-')
		neg = 1, p++;
	for (; p < end && *p >= '0' && *p <= '9'; p++, digits++)
		if (fits_digit(m, *p))
			m = m * 10 + (uint64_t)(*p - '0');
		else
			e10++; /* past the mantissa's digits: only the magnitude counts */
	if (digits == 0) { /* no number: a string, null, an array... */
		*v = 0;
		return v8s_skip_value(r) == 0 ? 1 : -1;
	}
	if (p < end && *p == '.')
		for (p++; p < end && *p >= '0' && *p <= '9'; p++)
			if (fits_digit(m, *p))
				m = m * 10 + (uint64_t)(*p - '0'), e10--;
	if (p < end && (*p == 'e' || *p == 'E')) {
		int eneg = 0;
		long e = 0;
		if (++p < end && (*p == '+' || *p == '-'))
			eneg = *p++ == '-';
		for (; p < end && *p >= '0' && *p <= '9'; p++)
			e = e > 100000 ? e : e * 10 + (*p - '0');
		e10 += eneg ? -e : e;
	}
	r->p = p;
	*v = neg ? 0 : scale10(m, e10);
	return 1;
}

void v8s_odd_done(struct rd *r, const char *where)
{
	if (r->odd > 0)
		warn_add(r->w, "%s: offset %llu: %s: %llu values that are not unsigned integers "
			 "(read as their integer part; negatives and non-numbers as 0)",
			 r->path, (unsigned long long)r->odd_at, where, (unsigned long long)r->odd);
	r->odd = 0;
}

uint64_t v8s_room(const struct rd *r, uint64_t n, unsigned width, unsigned min)
{
	uint64_t most = (uint64_t)(r->end - r->p) / ((uint64_t)(width ? width : 1) * min) + 1;

	if (n == UINT64_MAX)
		n = 4096;
	n = n < most ? n : most;
	return n ? n : 1;
}

/* ---- v8_string ---- */

struct dec {
	struct sbuf *out;
	size_t start, max;
	uint64_t total; /* decoded length */
	int full;       /* max reached: nothing more is appended */
};

/* n bytes of decoded text: appended while they fit, cut at a
 * character boundary when they do not. */
static void put(struct dec *d, const uint8_t *s, size_t n)
{
	d->total += n;
	if (d->full)
		return;
	size_t room = d->max - (d->out->len - d->start);
	if (n > room) {
		while (room > 0 && (s[room] & 0xc0) == 0x80) /* s[room] starts the next character? */
			room--;
		n = room;
		d->full = 1;
	}
	if (n > 0)
		sbuf_add(d->out, (const char *)s, n);
}

static void put_cp(struct dec *d, uint32_t cp)
{
	uint8_t b[4];
	size_t n;

	if (cp < 0x80) {
		b[0] = (uint8_t)cp, n = 1;
	} else if (cp < 0x800) {
		b[0] = (uint8_t)(0xc0 | cp >> 6), b[1] = (uint8_t)(0x80 | (cp & 0x3f)), n = 2;
	} else if (cp < 0x10000) {
		b[0] = (uint8_t)(0xe0 | cp >> 12), b[1] = (uint8_t)(0x80 | (cp >> 6 & 0x3f));
		b[2] = (uint8_t)(0x80 | (cp & 0x3f)), n = 3;
	} else {
		b[0] = (uint8_t)(0xf0 | cp >> 18), b[1] = (uint8_t)(0x80 | (cp >> 12 & 0x3f));
		b[2] = (uint8_t)(0x80 | (cp >> 6 & 0x3f)), b[3] = (uint8_t)(0x80 | (cp & 0x3f)), n = 4;
	}
	put(d, b, n);
}

static int hex4(const uint8_t *p, const uint8_t *end, uint32_t *v)
{
	*v = 0;
	if (end - p < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		uint8_t c = p[i];
		unsigned h = c >= '0' && c <= '9' ? (unsigned)(c - '0')
			   : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
			   : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10) : 16u;
		if (h == 16)
			return -1;
		*v = *v << 4 | h;
	}
	return 0;
}

/* \uXXXX at p (the backslash), a pair of them for a character past
 * U+FFFF; a surrogate without its other half is U+FFFD. Returns what
 * follows, NULL for a bad escape. */
static const uint8_t *unicode_escape(struct dec *d, const uint8_t *p, const uint8_t *end)
{
	uint32_t cp, lo;

	if (hex4(p + 2, end, &cp) < 0)
		return NULL;
	p += 6;
	if (cp >= 0xd800 && cp <= 0xdbff && end - p >= 6 && p[0] == '\\' && p[1] == 'u' &&
	    hex4(p + 2, end, &lo) == 0 && lo >= 0xdc00 && lo <= 0xdfff) {
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
		p += 6;
	} else if (cp >= 0xd800 && cp <= 0xdfff) {
		cp = 0xfffd;
	}
	put_cp(d, cp);
	return p;
}

/* The escape at p (the backslash); what follows it, NULL if bad. */
static const uint8_t *escape(struct dec *d, const uint8_t *p, const uint8_t *end)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";

	if (end - p < 2)
		return NULL;
	if (p[1] == 'u')
		return unicode_escape(d, p, end);
	const char *c = p[1] ? strchr(from, p[1]) : NULL;
	if (c == NULL)
		return NULL;
	put(d, (const uint8_t *)&to[c - from], 1);
	return p + 2;
}

long v8_string(const uint8_t *map, uint64_t size, uint64_t off, struct sbuf *out, size_t max)
{
	struct dec d = { out, out->len, max, 0, 0 };
	const uint8_t *end = map + size, *p;

	if (off >= size || map[off] != '"')
		return -1;
	for (p = map + off + 1; p != NULL && p < end;) {
		if (*p == '"') {
			if (d.full)
				sbuf_adds(out, "...");
			return d.total > (uint64_t)LONG_MAX ? LONG_MAX : (long)d.total;
		}
		if (*p == '\\') {
			p = escape(&d, p, end);
			continue;
		}
		const uint8_t *q = p;
		while (q < end && *q != '"' && *q != '\\')
			q++;
		put(&d, p, (size_t)(q - p));
		p = q;
	}
	if (out->len != d.start) { /* unterminated or a bad escape: undo */
		out->len = d.start;
		out->buf[d.start] = '\0';
	}
	return -1;
}

#define AHEAD ((uint64_t)16 << 20) /* bytes faulted in ahead of the reader */
#define BEHIND ((uint64_t)4 << 20)  /* and kept behind it */
#define PAGE ((uint64_t)4096)

void v8s_window(struct rd *r)
{
	uint64_t at = pos(r), size = (uint64_t)(r->end - r->base);

	if (((uintptr_t)r->base & (PAGE - 1)) != 0)
		return;
	/* with a window the arrays are read through it: the mapping's pages
	 * are faulted in only where read, the strings and what is odd */
	if (r->win == NULL && at + AHEAD / 2 > r->ahead && r->ahead < size) {
		uint64_t from = r->ahead > at ? r->ahead : at;
		uint64_t to = at + AHEAD < size ? at + AHEAD : size;
		if (to > from)
			map_populate(r->base, (size_t)from, (size_t)to);
		r->ahead = to;
	}
	if (r->drop && at > r->behind + 2 * BEHIND) {
		uint64_t to = (at - BEHIND) & ~(PAGE - 1);
		if (r->hx != NULL && to > r->hashed) { /* before the pages go */
			store_hash_add(r->hx, r->base + r->hashed, (size_t)(to - r->hashed));
			r->hashed = to;
		}
		madvise((void *)(uintptr_t)(r->base + r->behind), (size_t)(to - r->behind), MADV_DONTNEED);
		r->behind = to;
	}
}

int v8s_refill(struct rd *r, uint64_t at)
{
	uint64_t size = (uint64_t)(r->end - r->base), got = 0;
	uint64_t want = size - at < r->win_cap ? size - at : r->win_cap;

	while (got < want) {
		ssize_t k = pread(r->fd, r->win + got, (size_t)(want - got), (off_t)(at + got));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		got += (uint64_t)k;
	}
	if (got < want) { /* the mapping then, which is the same file */
		free(r->win);
		r->win = NULL;
		r->win_at = r->win_len = 0;
		return 0;
	}
	r->win_at = at;
	r->win_len = got;
	if (r->hx != NULL && at + got > r->hashed) { /* any bytes before it from the mapping */
		uint64_t from = at > r->hashed ? at : r->hashed;
		store_hash_add(r->hx, r->base + r->hashed, (size_t)(from - r->hashed));
		store_hash_add(r->hx, r->win + (from - at), (size_t)(at + got - from));
		r->hashed = at + got;
	}
	/* where a batch of next_recs may start without a refill (what it
	 * reads stays within win_len): to the file's end, or to win_margin
	 * bytes before the window's */
	r->win_keep_at = at;
	if (at + got == size)
		r->win_keep_len = got;
	else if (got >= r->win_margin)
		r->win_keep_len = got - r->win_margin;
	else
		r->win_keep_at = UINT64_MAX, r->win_keep_len = 0;
	return 1;
}

/* ---- records, 64 bytes at a time ---- */

#if defined(__SSE2__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* The bytes of 16 at p that are c, as bits. */
static inline uint64_t eq16(__m128i v, uint8_t c)
{
	return (uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8((char)c)));
}

static inline uint64_t digits16(__m128i v)
{
	__m128i t = _mm_sub_epi8(v, _mm_set1_epi8('0'));
	return (uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(t, _mm_set1_epi8(9)), t));
}

/* The value of the digits [a, a + len) (len 1 to 8; the 8 bytes at a
 * readable). */
static inline uint64_t digits_value(const uint8_t *a, unsigned len)
{
	uint64_t c;

	memcpy(&c, a, 8);
	return swar_value((c - 0x3030303030303030u) << (64 - 8 * len));
}

size_t v8s_recs_fast(const uint8_t *p, const uint8_t *end, uint64_t *rec, unsigned w, size_t max, size_t *len)
{
	static const uint64_t pow8 = 100000000u;
	uint32_t past[V8_BATCH_NUMS]; /* where each number read ends, from p */
	const uint8_t *q = p;
	size_t cap, i = 0;

	*len = 0;
	if (w == 0 || w > V8_BATCH_NUMS)
		return 0;
	cap = max < V8_BATCH_NUMS / w ? max * w : (size_t)(V8_BATCH_NUMS / w) * w;
	/* q is at the separator before a number (after the last one read):
	 * the next 64 bytes' digits, commas and newlines as bits (80 bytes
	 * readable: a number's 8 bytes from its start within them) */
	while (i < cap && end - q >= 80 && (uint64_t)(q - p) < UINT32_MAX - 64) {
		uint64_t d = 0, c = 0, n = 0;
		for (unsigned b = 0; b < 4; b++) {
			__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(q + 16 * b));
			d |= digits16(v) << (16 * b);
			c |= eq16(v, ',') << (16 * b);
			n |= eq16(v, '\n') << (16 * b);
		}
		/* the separators as recs_at takes them, "," or "\n," between
		 * digits (the byte before q is the last one's digit): a
		 * newline after a digit and before a comma, a comma after a
		 * digit or a newline (and so before a digit: a comma or a
		 * newline after it is wrong by these, as is any other byte).
		 * The numbers read end before the first byte that is wrong,
		 * or of any other kind, or a digit at q. */
		uint64_t bad = (n & ~(c >> 1)) | (n & ~(d << 1 | 1)) | (c & ~((d | n) << 1 | 1)) | (d & 1) |
			       ~(d | c | n);
		uint64_t before = bad ? ((uint64_t)1 << __builtin_ctzll(bad)) - 1 : ~(uint64_t)0;
		/* a number: a run of digits before a separator there (one that
		 * reaches the block's end is the next block's) */
		uint64_t starts = d & ~(d << 1), ends = d & ~(d >> 1) & (c | n) >> 1 & before;
		unsigned e = 0;
		for (; ends != 0 && i < cap; i++) {
			unsigned a = (unsigned)__builtin_ctzll(starts), l;
			e = (unsigned)__builtin_ctzll(ends) + 1;
			starts &= starts - 1;
			ends &= ends - 1;
			l = e - a;
			if (__builtin_expect(l <= 8, 1))
				rec[i] = digits_value(q + a, l);
			else if (l <= 16)
				rec[i] = digits_value(q + a, l - 8) * pow8 + digits_value(q + e - 8, 8);
			else if (l <= 19)
				rec[i] = (digits_value(q + a, l - 16) * pow8 + digits_value(q + e - 16, 8)) * pow8 +
					 digits_value(q + e - 8, 8);
			else /* more than 19 digits: next_num's */
				goto out;
			past[i] = (uint32_t)(q - p) + e;
		}
		if (e == 0)
			break;
		q += e;
	}
out:
	i -= i % w; /* whole records */
	*len = i > 0 ? past[i - 1] : 0;
	return i / w;
}
#else
size_t v8s_recs_fast(const uint8_t *p, const uint8_t *end, uint64_t *rec, unsigned w, size_t max, size_t *len)
{
	(void)p, (void)end, (void)rec, (void)w, (void)max;
	*len = 0;
	return 0;
}
#endif

/* ---- the value of "edges", stepped over ---- */

/* A byte of an array of unsigned integers as V8 writes them. */
static inline int num_byte(uint8_t c)
{
	return (unsigned)(c - '0') < 10 || c == ',' || c == '\n' || c == ' ' || c == '\r' || c == '\t';
}

/* How many bytes at p (before end) are num_byte's, sixteen at a time
 * where the processor can (the scan is over most of a snapshot's
 * numbers); the commas among them added to *commas. */
static size_t num_run(const uint8_t *p, const uint8_t *end, uint64_t *commas)
{
	const uint8_t *q = p;
	uint64_t c = 0;
#ifdef __SSE2__
	const __m128i zero = _mm_set1_epi8('0'), nine = _mm_set1_epi8(9), comma = _mm_set1_epi8(',');
	const __m128i nl = _mm_set1_epi8('\n'), sp = _mm_set1_epi8(' '), cr = _mm_set1_epi8('\r');
	const __m128i tab = _mm_set1_epi8('\t');

	/* the commas counted in each byte lane (a comparison's all-ones is
	 * -1), summed before a lane could pass 255 */
	__m128i lanes = _mm_setzero_si128();
	unsigned rounds = 0;

	while (end - q >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)q);
		__m128i d = _mm_sub_epi8(v, zero);
		__m128i cm = _mm_cmpeq_epi8(v, comma);
		__m128i ok = _mm_or_si128(_mm_cmpeq_epi8(_mm_min_epu8(d, nine), d), cm);
		ok = _mm_or_si128(ok, _mm_or_si128(_mm_cmpeq_epi8(v, nl), _mm_cmpeq_epi8(v, sp)));
		ok = _mm_or_si128(ok, _mm_or_si128(_mm_cmpeq_epi8(v, cr), _mm_cmpeq_epi8(v, tab)));
		if ((unsigned)_mm_movemask_epi8(ok) != 0xffff)
			break; /* the rest a byte at a time */
		lanes = _mm_sub_epi8(lanes, cm);
		if (++rounds == 255) {
			__m128i s = _mm_sad_epu8(lanes, _mm_setzero_si128());
			c += (uint64_t)_mm_cvtsi128_si32(s) + (uint64_t)_mm_extract_epi16(s, 4);
			lanes = _mm_setzero_si128();
			rounds = 0;
		}
		q += 16;
	}
	__m128i s = _mm_sad_epu8(lanes, _mm_setzero_si128());
	c += (uint64_t)_mm_cvtsi128_si32(s) + (uint64_t)_mm_extract_epi16(s, 4);
#endif
	while (q < end && num_byte(*q))
		c += *q++ == ',';
	*commas += c;
	return (size_t)(q - p);
}

#define SKIP_CHUNK ((uint64_t)1 << 20) /* of the mapping between v8s_window's */

/* The array of numbers at r->p stepped over by a quick scan: 1, r->p
 * past it, *end there, *nums the most numbers it holds; 0 when it is of
 * another shape (r->p back where it was: the caller steps over it the
 * general way), -1 when the file ends in it (r->stop set). */
static int skip_numbers(struct rd *r, uint64_t *end, uint64_t *nums)
{
	uint64_t size = (uint64_t)(r->end - r->base), start = pos(r), at, commas = 0;

	if (r->p >= r->end || *r->p != '[')
		return 0;
	for (at = start + 1; at < size;) {
		const uint8_t *p, *e;
		if (r->win != NULL && v8s_refill(r, at)) {
			p = r->win;
			e = p + r->win_len;
		} else {
			r->p = r->base + at;
			v8s_window(r);
			p = r->p;
			e = size - at > SKIP_CHUNK ? p + SKIP_CHUNK : r->end;
		}
		size_t k = num_run(p, e, &commas);
		at += k;
		progress_update(r->pr, at);
		if (p + k == e)
			continue;
		if (p[k] != ']')
			break;
		/* the end: the usual way; as many numbers as commas and one,
		 * at the most */
		r->p = r->base + at + 1;
		*end = at + 1;
		*nums = commas + 1;
		return 1;
	}
	if (at >= size) { /* cut short */
		r->p = r->end;
		r->stop = 1;
		return -1;
	}
	r->p = r->base + start;
	return 0;
}

int v8s_skip_edges(struct rd *r)
{
	int rc;

	ws(r);
	r->s->edges_at = pos(r);
	r->edges_end = (uint64_t)(r->end - r->base);
	if ((rc = skip_numbers(r, &r->edges_end, &r->edges_nums)) != 0)
		return rc < 0 ? -1 : 0; /* cut short: the edges' reading says so */
	/* anything else (a value of another shape, odd numbers, the file's
	 * end): the general way, quietly */
	r->quiet = 1;
	rc = v8s_skip_value(r);
	r->quiet = 0;
	if (rc == 0)
		r->edges_end = pos(r);
	return rc;
}

int v8s_skip_array(struct rd *r, const char *what)
{
	uint64_t end, nums;
	int rc;

	ws(r);
	if ((rc = skip_numbers(r, &end, &nums)) > 0)
		return 0;
	if (rc < 0) /* nothing reads it again: said here */
		return v8s_problem(r, (uint64_t)(r->end - r->base), "truncated in %s", what);
	return v8s_skip_value(r);
}
