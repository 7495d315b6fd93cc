/* store.c — a file of LZ4-chunked arrays, see store.h. */
#include "graph/store.h"

#include <errno.h>
#include <fcntl.h>
#include <lz4.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "util.h"

static uint64_t mix(uint64_t x, uint64_t w)
{
	x = (x ^ w) * 0xff51afd7ed558ccdull;
	return x ^ (x >> 32);
}

/* Four independent lanes over 32-byte blocks (so the multiplies
 * overlap), then the tail, then the lanes folded. The lanes start from
 * the whole length: a hash made piece by piece knows it first. */
void store_hash_begin(struct store_hasher *x, uint64_t seed, uint64_t n)
{
	x->a[0] = seed ^ 0x9e3779b97f4a7c15ull;
	x->a[1] = seed + n;
	x->a[2] = ~seed;
	x->a[3] = seed * 31 + 7;
	x->n = n;
	x->done = 0;
	x->nbuf = 0;
}

static void lanes(struct store_hasher *x, const uint8_t *b)
{
	for (int k = 0; k < 4; k++) {
		uint64_t w;
		memcpy(&w, b + 8 * k, 8);
		x->a[k] = mix(x->a[k], w);
	}
}

void store_hash_add(struct store_hasher *x, const void *p, size_t n)
{
	const uint8_t *b = p;
	uint64_t whole = x->n - x->n % 32; /* the rest, the tail, byte by byte at the end */

	while (n > 0) {
		if (x->done >= whole) {
			size_t k = 32 - x->nbuf < n ? 32 - x->nbuf : n; /* past the length: not hashed */
			memcpy(x->buf + x->nbuf, b, k);
			x->nbuf += k;
			x->done += k;
			return;
		}
		if (x->nbuf == 0 && n >= 32) { /* whole blocks, read in place */
			/* as many as there are before the tail (done < whole, both
			 * whole blocks: one at least), the lanes in registers: the
			 * compiler takes b for one that may point at x->a, and kept
			 * them in memory, stored and read back in every block
			 * (3.3 GB/s) */
			size_t nb = n / 32 < (whole - x->done) / 32 ? n / 32 : (size_t)((whole - x->done) / 32);
			uint64_t a0 = x->a[0], a1 = x->a[1], a2 = x->a[2], a3 = x->a[3];
			for (size_t i = 0; i < nb; i++) {
				uint64_t w[4];
				memcpy(w, b + 32 * i, 32);
				a0 = mix(a0, w[0]);
				a1 = mix(a1, w[1]);
				a2 = mix(a2, w[2]);
				a3 = mix(a3, w[3]);
			}
			x->a[0] = a0, x->a[1] = a1, x->a[2] = a2, x->a[3] = a3;
			b += 32 * nb;
			n -= 32 * nb;
			x->done += 32 * nb;
			continue;
		}
		size_t k = 32 - x->nbuf < n ? 32 - x->nbuf : n;
		memcpy(x->buf + x->nbuf, b, k);
		x->nbuf += k;
		b += k;
		n -= k;
		x->done += k;
		if (x->nbuf == 32) {
			lanes(x, x->buf);
			x->nbuf = 0;
		}
	}
}

uint64_t store_hash_end(struct store_hasher *x)
{
	uint64_t h = mix(mix(mix(x->a[0], x->a[1]), x->a[2]), x->a[3]);

	for (size_t i = 0; i < x->nbuf; i++)
		h = (h ^ x->buf[i]) * 0x100000001b3ull;
	return h ^ (h >> 29);
}

uint64_t store_hash(const void *p, size_t n, uint64_t seed)
{
	struct store_hasher x;

	store_hash_begin(&x, seed, n);
	store_hash_add(&x, p, n);
	return store_hash_end(&x);
}

static int pread_all(int fd, void *p, size_t n, uint64_t at);

static int zbound(void)
{
	return LZ4_compressBound((int)STORE_CHUNK);
}

void store_init(struct store *s, int fd, uint64_t start)
{
	memset(s, 0, sizeof *s);
	s->fd = fd;
	s->start = s->end = start;
}

int store_init_read(struct store *s, int fd, uint64_t start, uint64_t size, const struct store_sect *tab,
		    size_t n)
{
	store_init(s, fd, start);
	for (size_t i = 0; i < n; i++)
		if (tab[i].off < start || tab[i].comp > size || tab[i].off > size - tab[i].comp ||
		    tab[i].raw > (UINT64_MAX >> 2) || tab[i].raw / STORE_CHUNK > tab[i].comp / 4 ||
		    tab[i].raw / STORE_LZ4_MAX > tab[i].comp ||
		    tab[i].filter > STORE_DELTA ||
		    (tab[i].filter == STORE_DELTA && tab[i].elem != 4 && tab[i].elem != 8))
			return -1;
	s->sect = xmalloc((n + 1) * sizeof *s->sect);
	if (n > 0)
		memcpy(s->sect, tab, n * sizeof *tab);
	s->nsect = s->cap = n;
	s->end = size;
	return 0;
}

void store_free(struct store *s)
{
	free(s->sect);
	free(s->zbuf);
	free(s->fbuf);
	s->sect = NULL;
	s->zbuf = NULL;
	s->fbuf = NULL;
	s->nsect = s->cap = 0;
}

const struct store_sect *store_find(const struct store *s, uint32_t id)
{
	for (size_t i = 0; i < s->nsect; i++)
		if (s->sect[i].id == id)
			return &s->sect[i];
	return NULL;
}

/* ---- STORE_DELTA ---- */

/* Block by block (DELTA_BLOCK elements: what one block's differences
 * take stays in the first-level cache), each loop simple enough for
 * the compiler to do many at once (HW_VECTORIZE; HW_WIDE: with AVX2
 * where the processor has it, in fewer instructions): the block's
 * differences, then each byte of them out to its plane. The whole
 * array in one go read and wrote memory twice as much, at a tenth of
 * a cold open's time. */
#define DELTA_BLOCK 2048

HW_VECTORIZE HW_WIDE static void delta_to4(const uint32_t *restrict x, size_t m, uint8_t *restrict out)
{
	uint32_t z[DELTA_BLOCK];

	for (size_t i0 = 0; i0 < m; i0 += DELTA_BLOCK) {
		size_t k = m - i0 < DELTA_BLOCK ? m - i0 : DELTA_BLOCK;
		const uint32_t *restrict y = x + i0;
		uint32_t d = y[0] - (i0 > 0 ? y[-1] : 0);
		z[0] = (d << 1) ^ (uint32_t)-(d >> 31);
		for (size_t i = 1; i < k; i++) {
			d = y[i] - y[i - 1];
			z[i] = (d << 1) ^ (uint32_t)-(d >> 31);
		}
		for (unsigned b = 0; b < 4; b++) {
			uint8_t *restrict o = out + b * m + i0;
			for (size_t i = 0; i < k; i++)
				o[i] = (uint8_t)(z[i] >> (8 * b));
		}
	}
}

HW_VECTORIZE HW_WIDE static void delta_to8(const uint64_t *restrict x, size_t m, uint8_t *restrict out)
{
	uint64_t z[DELTA_BLOCK];

	for (size_t i0 = 0; i0 < m; i0 += DELTA_BLOCK) {
		size_t k = m - i0 < DELTA_BLOCK ? m - i0 : DELTA_BLOCK;
		const uint64_t *restrict y = x + i0;
		uint64_t d = y[0] - (i0 > 0 ? y[-1] : 0);
		z[0] = (d << 1) ^ (uint64_t)-(d >> 63);
		for (size_t i = 1; i < k; i++) {
			d = y[i] - y[i - 1];
			z[i] = (d << 1) ^ (uint64_t)-(d >> 63);
		}
		for (unsigned b = 0; b < 8; b++) {
			uint8_t *restrict o = out + b * m + i0;
			for (size_t i = 0; i < k; i++)
				o[i] = (uint8_t)(z[i] >> (8 * b));
		}
	}
}

static void delta_to(const void *p, size_t n, unsigned elem, uint8_t *restrict out)
{
	if (elem == 4)
		delta_to4(p, n / 4, out);
	else
		delta_to8(p, n / 8, out);
}

/* Back: each element's bytes from their planes and out of zigzag,
 * then the running sum, a block at a time. */
HW_VECTORIZE HW_WIDE static void delta_from4(const uint8_t *restrict in, size_t m, uint32_t *restrict x)
{
	uint32_t prev = 0;

	for (size_t i0 = 0; i0 < m; i0 += DELTA_BLOCK) {
		size_t k = m - i0 < DELTA_BLOCK ? m - i0 : DELTA_BLOCK;
		const uint8_t *restrict q0 = in + i0, *restrict q1 = q0 + m, *restrict q2 = q1 + m,
			      *restrict q3 = q2 + m;
		uint32_t *restrict y = x + i0;
		size_t i = 0;
#ifdef __SSE2__
		/* sixteen elements at a time: their bytes interleaved from the
		 * planes, out of zigzag, and the running sum four lanes at a
		 * time (each lane plus those before it, then plus the sum so
		 * far), which the compiler's loop does one element at a time */
		int32_t prev_s; /* prev's bits as a signed lane: no conversion of a value past INT32_MAX */
		memcpy(&prev_s, &prev, sizeof prev_s);
		__m128i run = _mm_set1_epi32(prev_s), one = _mm_set1_epi32(1);
		for (; i + 16 <= k; i += 16) {
			__m128i p0 = _mm_loadu_si128((const __m128i *)(const void *)(q0 + i));
			__m128i p1 = _mm_loadu_si128((const __m128i *)(const void *)(q1 + i));
			__m128i p2 = _mm_loadu_si128((const __m128i *)(const void *)(q2 + i));
			__m128i p3 = _mm_loadu_si128((const __m128i *)(const void *)(q3 + i));
			__m128i lo01 = _mm_unpacklo_epi8(p0, p1), hi01 = _mm_unpackhi_epi8(p0, p1);
			__m128i lo23 = _mm_unpacklo_epi8(p2, p3), hi23 = _mm_unpackhi_epi8(p2, p3);
			__m128i z[4] = { _mm_unpacklo_epi16(lo01, lo23), _mm_unpackhi_epi16(lo01, lo23),
					 _mm_unpacklo_epi16(hi01, hi23), _mm_unpackhi_epi16(hi01, hi23) };
			for (int j = 0; j < 4; j++) {
				__m128i v = _mm_xor_si128(_mm_srli_epi32(z[j], 1),
							  _mm_sub_epi32(_mm_setzero_si128(), _mm_and_si128(z[j], one)));
				v = _mm_add_epi32(v, _mm_slli_si128(v, 4));
				v = _mm_add_epi32(v, _mm_slli_si128(v, 8));
				v = _mm_add_epi32(v, run);
				run = _mm_shuffle_epi32(v, 0xff);
				_mm_storeu_si128((__m128i *)(void *)(y + i + 4 * j), v);
			}
		}
		prev = (uint32_t)_mm_cvtsi128_si32(run);
#endif
		for (; i < k; i++) {
			uint32_t z = (uint32_t)q0[i] | (uint32_t)q1[i] << 8 | (uint32_t)q2[i] << 16 |
				     (uint32_t)q3[i] << 24;
			y[i] = prev += (z >> 1) ^ (uint32_t)-(z & 1);
		}
	}
}

HW_VECTORIZE HW_WIDE static void delta_from8(const uint8_t *restrict in, size_t m, uint64_t *restrict x)
{
	uint64_t prev = 0;

	for (size_t i0 = 0; i0 < m; i0 += DELTA_BLOCK) {
		size_t k = m - i0 < DELTA_BLOCK ? m - i0 : DELTA_BLOCK;
		uint64_t *restrict y = x + i0;
		for (size_t i = 0; i < k; i++)
			y[i] = in[i0 + i];
		for (unsigned b = 1; b < 8; b++) {
			const uint8_t *restrict q = in + b * m + i0;
			for (size_t i = 0; i < k; i++)
				y[i] |= (uint64_t)q[i] << (8 * b);
		}
		for (size_t i = 0; i < k; i++)
			y[i] = (y[i] >> 1) ^ (uint64_t)-(y[i] & 1);
		for (size_t i = 0; i < k; i++)
			y[i] = prev += y[i];
	}
}

static void delta_from(const uint8_t *restrict in, size_t n, unsigned elem, void *p)
{
	if (elem == 4)
		delta_from4(in, n / 4, p);
	else
		delta_from8(in, n / 8, p);
}

/* One chunk of raw bytes (at most STORE_CHUNK) appended to sc. */
static void put_chunk(struct store *s, struct store_sect *sc, const void *p, size_t n)
{
	if (s->err)
		return;
	if (s->zbuf == NULL)
		s->zbuf = xmalloc(4 + (size_t)zbound());
	if (sc->filter == STORE_DELTA && n > 0) {
		if (s->fbuf == NULL) { /* the pages this chunk fills made at once, not a fault each */
			s->fbuf = xmalloc(STORE_CHUNK);
			mem_populate(s->fbuf, 0, n);
		}
		delta_to(p, n, sc->elem, (uint8_t *)s->fbuf);
		p = s->fbuf;
	}
	/* an empty array may have no storage at all: no offset on NULL */
	int z = LZ4_compress_fast(n > 0 ? p : "", s->zbuf + 4, (int)n, zbound(), 1);
	uint32_t z32 = (uint32_t)z;
	memcpy(s->zbuf, &z32, 4);
	if (!s->scratch)
		sc->check = store_hash(s->zbuf, 4 + (size_t)z, sc->check);
	s->err = pwrite_full(s->fd, s->zbuf, 4 + (size_t)z, sc->off + sc->comp);
	sc->comp += 4 + (uint64_t)z;
	sc->raw += n;
}

static void sect_begin(struct store *s, struct store_sect *sc, uint32_t id, uint32_t elem)
{
	if (s->writing)
		hw_fatal("a section of the store begun while another is being written (section %u)", id);
	*sc = (struct store_sect){ .id = id, .elem = elem, .off = s->end,
				   .filter = elem == 4 || elem == 8 ? STORE_DELTA : 0 };
}

/* The section written: in the table (replacing one of its id) unless a
 * write failed. */
static int sect_end(struct store *s, struct store_sect *sc)
{
	if (sc->comp == 0) /* nothing written: one empty chunk */
		put_chunk(s, sc, NULL, 0);
	/* the raw length goes in last: a section cut short or grown does
	 * not pass for another */
	if (!s->scratch)
		sc->check = mix(sc->check, sc->raw);
	if (s->err)
		return -1;
	s->end = sc->off + sc->comp;
	store_drop(s, sc->id);
	if (s->nsect == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 32;
		s->sect = xreallocarray(s->sect, s->cap, sizeof *s->sect);
	}
	s->sect[s->nsect++] = *sc;
	return 0;
}

int store_put(struct store *s, uint32_t id, const void *p, uint32_t elem, uint64_t count)
{
	struct store_sect sc;
	uint64_t raw = count * elem;

	sect_begin(s, &sc, id, elem);
	for (uint64_t at = 0; at < raw && !s->err; at += STORE_CHUNK)
		put_chunk(s, &sc, (const char *)p + at, raw - at < STORE_CHUNK ? (size_t)(raw - at) : STORE_CHUNK);
	return sect_end(s, &sc);
}

void store_rename(struct store *s, uint32_t id, uint32_t to)
{
	if (id == to)
		return;
	store_drop(s, to);
	for (size_t i = 0; i < s->nsect; i++)
		if (s->sect[i].id == id)
			s->sect[i].id = to;
}

void store_drop(struct store *s, uint32_t id)
{
	for (size_t i = 0; i < s->nsect; i++) {
		if (s->sect[i].id != id)
			continue;
		/* the bytes become a hole: a scratch file of many GB gives its
		 * disk back as it goes (where the file system cannot, they stay) */
		uint64_t a = s->sect[i].off, n = s->sect[i].comp;
		if (n > 0 && fallocate(s->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)a, (off_t)n) < 0) {
			/* nothing lost but disk */
		}
		s->sect[i] = s->sect[--s->nsect];
		return;
	}
}

int store_copy(struct store *dst, uint32_t id, const struct store *src, uint32_t src_id)
{
	return store_concat(dst, id, src, &src_id, 1);
}

int store_concat(struct store *dst, uint32_t id, const struct store *src, const uint32_t *src_ids, size_t n)
{
	struct store_sect out = { 0 };

	if (dst->writing)
		hw_fatal("a section of the store copied while another is being written (section %u)", id);
	if (dst->err || n == 0)
		return -1;
	for (size_t i = 0; i < n; i++) { /* chunks that read as one section's */
		const struct store_sect *sc = store_find(src, src_ids[i]);
		if (sc == NULL || (i > 0 && (sc->elem != out.elem || sc->filter != out.filter)) ||
		    (i + 1 < n && sc->raw % STORE_CHUNK != 0))
			return -1;
		out.elem = sc->elem;
		out.filter = sc->filter;
	}
	if (dst->zbuf == NULL)
		dst->zbuf = xmalloc(4 + (size_t)zbound());
	out.id = id;
	out.off = dst->end;
	/* chunk by chunk: the checksum a scratch file's sections lack is
	 * made on the way */
	for (size_t i = 0; i < n && !dst->err; i++) {
		const struct store_sect *sc = store_find(src, src_ids[i]);
		for (uint64_t at = 0; at < sc->comp && !dst->err;) {
			uint32_t zl;
			if (sc->comp - at < 4 || pread_all(src->fd, &zl, 4, sc->off + at) < 0 || zl > sc->comp - at - 4 ||
			    zl > (uint32_t)zbound() || pread_all(src->fd, dst->zbuf, 4 + (size_t)zl, sc->off + at) < 0) {
				dst->err = EIO;
				break;
			}
			out.check = store_hash(dst->zbuf, 4 + (size_t)zl, out.check);
			dst->err = pwrite_full(dst->fd, dst->zbuf, 4 + (size_t)zl, out.off + out.comp);
			at += 4 + (uint64_t)zl;
			out.comp += 4 + (uint64_t)zl;
		}
		out.raw += sc->raw;
	}
	if (dst->err)
		return -1;
	out.check = dst->scratch ? 0 : mix(out.check, out.raw);
	dst->end = out.off + out.comp;
	store_drop(dst, id);
	if (dst->nsect == dst->cap) {
		dst->cap = dst->cap ? dst->cap * 2 : 32;
		dst->sect = xreallocarray(dst->sect, dst->cap, sizeof *dst->sect);
	}
	dst->sect[dst->nsect++] = out;
	return 0;
}

/* ---- piece by piece ---- */

void store_begin(struct store *s, struct store_writer *w, uint32_t id, uint32_t elem)
{
	w->s = s;
	sect_begin(s, &w->sc, id, elem);
	w->buf = xmalloc(STORE_CHUNK);
	w->len = 0;
	w->made = 0;
	s->writing = 1;
}

/* A buffer of a MB is a mapping of its own, fresh each time (malloc's
 * threshold is fixed at 256 KB, engine/open.c): its pages are made as
 * it fills, a quarter MB at a time in one call each, not a fault a 4 KB
 * page (c9df1a2 measured 11 us a fault on this kind of virtual machine,
 * 0.5 us a page made so). A section of a few bytes makes a quarter. The
 * readers' buffers below are made at once the same way. */
#define WRITER_STEP ((size_t)256 << 10)

static void writer_make(struct store_writer *w, size_t upto)
{
	size_t to = (upto + WRITER_STEP - 1) / WRITER_STEP * WRITER_STEP;

	if (to > STORE_CHUNK)
		to = STORE_CHUNK;
	if (to > w->made) {
		mem_populate(w->buf, w->made, to);
		w->made = to;
	}
}

void store_write_more(struct store_writer *w, const void *p, size_t n)
{
	const char *c = p;

	while (n > 0) {
		size_t k = STORE_CHUNK - w->len < n ? STORE_CHUNK - w->len : n;
		if (w->len + k > w->made)
			writer_make(w, w->len + k);
		memcpy(w->buf + w->len, c, k);
		w->len += k;
		c += k;
		n -= k;
		if (w->len == STORE_CHUNK) {
			put_chunk(w->s, &w->sc, w->buf, w->len);
			w->len = 0;
		}
	}
}

int store_end(struct store_writer *w)
{
	w->s->writing = 0;
	if (w->len > 0)
		put_chunk(w->s, &w->sc, w->buf, w->len);
	free(w->buf);
	w->buf = NULL;
	return sect_end(w->s, &w->sc);
}

/* ---- reading ---- */

static int pread_all(int fd, void *p, size_t n, uint64_t at)
{
	char *c = p;

	while (n > 0) {
		ssize_t r = pread(fd, c, n, (off_t)at);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		c += r;
		n -= (size_t)r;
		at += (uint64_t)r;
	}
	return 0;
}

/* The chunk at file offset `at` (its u32 length first) of section sc
 * into raw (want bytes); the compressed bytes in z (4 + bound), its
 * length (4 + z) in *len; tmp (STORE_CHUNK bytes) for a STORE_DELTA
 * section's. 0, or -1. */
static int get_chunk(int fd, const struct store_sect *sc, uint64_t at, char *z, char *raw, char *tmp,
		     size_t want, size_t *len)
{
	uint32_t zl;

	if (at - sc->off > sc->comp || sc->comp - (at - sc->off) < 4 || pread_all(fd, &zl, 4, at) < 0)
		return -1;
	if ((uint64_t)zl > sc->comp - (at - sc->off) - 4 || zl > (uint32_t)zbound())
		return -1;
	memcpy(z, &zl, 4);
	if (pread_all(fd, z + 4, zl, at + 4) < 0)
		return -1;
	int filtered = sc->filter == STORE_DELTA && want > 0;
	int got = LZ4_decompress_safe(z + 4, filtered ? tmp : raw, (int)zl, (int)want);
	if (got < 0 || (size_t)got != want)
		return -1;
	if (filtered)
		delta_from((const uint8_t *)tmp, want, sc->elem, raw);
	*len = 4 + (size_t)zl;
	return 0;
}

/* Section id, if it holds count elements of elem bytes (what a forged
 * table says, checked before anything is allocated for it); NULL. */
static const struct store_sect *find_fitting(const struct store *s, uint32_t id, uint32_t elem, uint64_t count)
{
	const struct store_sect *sc = store_find(s, id);

	if (sc == NULL || sc->elem != elem || count > (UINT64_MAX >> 2) / (elem ? elem : 1) ||
	    sc->raw != count * elem)
		return NULL;
	return sc;
}

/* A read's buffers (z: a chunk's compressed bytes, tmp: its filtered
 * ones), when the store has them from writing: those, used within one
 * call each as put_chunk uses them (1); else 0, and the read makes its
 * own. Each read of a section making two of several MB afresh had the
 * kernel zero their pages every time. */
static int read_bufs(const struct store *s, char **z, char **tmp)
{
	if (s->zbuf == NULL || s->fbuf == NULL)
		return 0;
	*z = s->zbuf;
	*tmp = s->fbuf;
	return 1;
}

int store_load(const struct store *s, uint32_t id, uint32_t elem, uint64_t count, void *dst)
{
	const struct store_sect *sc = find_fitting(s, id, elem, count);

	if (sc == NULL)
		return -1;
	/* buffers the size of what this section can need, not of the
	 * biggest chunk: a cache holds dozens of small sections, and a
	 * chunk's compressed bytes (with their length) lie within sc->comp */
	size_t zcap = sc->comp < 4 + (uint64_t)zbound() ? (size_t)sc->comp : 4 + (size_t)zbound();
	size_t tcap = sc->raw < STORE_CHUNK ? (size_t)sc->raw : STORE_CHUNK;
	char *z, *tmp;
	int shared = read_bufs(s, &z, &tmp);
	if (!shared) {
		z = xmalloc(zcap > 4 ? zcap : 4);
		tmp = sc->filter ? xmalloc(tcap + 1) : NULL;
		if (tmp != NULL)
			mem_populate(tmp, 0, tcap);
	}
	uint64_t at = sc->off, done = 0, check = 0;
	int rc = 0;
	char empty[1];
	do {
		size_t want = sc->raw - done < STORE_CHUNK ? (size_t)(sc->raw - done) : STORE_CHUNK, len;
		mem_populate(dst, (size_t)done, (size_t)done + want); /* its pages at once, not a fault each */
		if (get_chunk(s->fd, sc, at, z, want > 0 ? (char *)dst + done : empty, tmp, want, &len) < 0) {
			rc = -1;
			break;
		}
		if (!s->scratch)
			check = store_hash(z, len, check);
		at += len;
		done += want;
	} while (done < sc->raw);
	if (!shared) {
		free(z);
		free(tmp);
	}
	if (rc == 0 && (at != sc->off + sc->comp || (!s->scratch && mix(check, sc->raw) != sc->check)))
		rc = -1;
	return rc;
}

void *store_get(const struct store *s, uint32_t id, uint32_t elem, uint64_t count)
{
	const struct store_sect *sc = find_fitting(s, id, elem, count);

	if (sc == NULL || sc->raw >= SIZE_MAX)
		return NULL;
	/* not xmalloc's: a size no memory holds is the file's damage (a
	 * read that fails), not the end of the program */
	void *p = hw_malloc_whole((size_t)sc->raw + 1);
	if (p == NULL)
		return NULL;
	if (store_load(s, id, elem, count, p) < 0) {
		free(p);
		return NULL;
	}
	return p;
}

uint64_t store_check_bytes(const uint8_t *p, uint64_t comp, uint64_t raw)
{
	uint64_t x = 0, at = 0;

	while (at < comp) {
		uint32_t z;
		if (comp - at < 4)
			return ~(uint64_t)0;
		memcpy(&z, p + at, 4);
		if (z > comp - at - 4)
			return ~(uint64_t)0;
		x = store_hash(p + at, 4 + (size_t)z, x);
		at += 4 + (uint64_t)z;
	}
	return mix(x, raw);
}

int store_reader_open(struct store_reader *r, const struct store *s, uint32_t id, int backward)
{
	memset(r, 0, sizeof *r);
	r->s = s;
	r->sc = store_find(s, id);
	r->backward = backward;
	if (r->sc == NULL) {
		r->err = 1;
		return -1;
	}
	/* the chunks' places, from their lengths (a few reads per GB) */
	size_t nc = (size_t)(r->sc->raw / STORE_CHUNK) + 1;
	r->chunk = xmalloc(nc * sizeof *r->chunk);
	uint64_t at = r->sc->off, end = r->sc->off + r->sc->comp;
	for (size_t i = 0; i < nc; i++) {
		uint32_t zl;
		if (end - at < 4 || pread_all(s->fd, &zl, 4, at) < 0 || zl > end - at - 4) {
			r->err = 1;
			return -1;
		}
		r->chunk[r->nchunk++] = at;
		at += 4 + (uint64_t)zl;
		if (at == end)
			break;
	}
	if (at != end) {
		r->err = 1;
		return -1;
	}
	/* as store_load's: no bigger than the section needs */
	size_t zcap = r->sc->comp < 4 + (uint64_t)zbound() ? (size_t)r->sc->comp : 4 + (size_t)zbound();
	size_t cap = r->sc->raw < STORE_CHUNK ? (size_t)r->sc->raw : STORE_CHUNK;
	r->shared = read_bufs(s, &r->z, &r->tmp);
	if (!r->shared) {
		r->z = xmalloc(zcap > 4 ? zcap : 4);
		r->tmp = r->sc->filter ? xmalloc(cap + 1) : NULL;
	}
	r->buf = xmalloc(cap + 1);
	/* every chunk but the last fills it: its pages at once (as a
	 * writer's), and tmp's, which the reader made */
	mem_populate(r->buf, 0, cap);
	if (!r->shared && r->tmp != NULL)
		mem_populate(r->tmp, 0, cap);
	return 0;
}

const void *store_read(struct store_reader *r, size_t *n)
{
	if (r->err || r->next >= r->nchunk)
		return NULL;
	size_t i = r->backward ? r->nchunk - 1 - r->next : r->next;
	uint64_t before = (uint64_t)i * STORE_CHUNK;
	size_t want = r->sc->raw - before < STORE_CHUNK ? (size_t)(r->sc->raw - before) : STORE_CHUNK, len;
	if (before > r->sc->raw || get_chunk(r->s->fd, r->sc, r->chunk[i], r->z, r->buf, r->tmp, want, &len) < 0) {
		r->err = 1;
		return NULL;
	}
	if (!r->backward && !r->s->scratch)
		r->check = store_hash(r->z, len, r->check);
	r->next++;
	*n = want;
	return r->buf;
}

void store_reader_seek(struct store_reader *r, size_t k)
{
	if (k > r->next) {
		r->next = k < r->nchunk ? k : r->nchunk;
		r->skipped = 1;
	}
}

int store_reader_end(struct store_reader *r)
{
	int bad = r->err || (!r->backward && !r->skipped && !r->s->scratch && r->next == r->nchunk &&
			     mix(r->check, r->sc->raw) != r->sc->check);

	free(r->chunk);
	if (!r->shared) {
		free(r->z);
		free(r->tmp);
	}
	free(r->buf);
	memset(r, 0, sizeof *r);
	return bad ? -1 : 0;
}

/* ---- front to back in spans ---- */

void seq_mem(struct seq *s, const void *p, size_t elem)
{
	memset(s, 0, sizeof *s);
	s->in_memory = 1;
	s->mem = p != NULL ? p : ""; /* an empty array may have no storage */
	s->elem = elem;
}

int seq_open(struct seq *s, const struct store *st, uint32_t id, size_t elem)
{
	memset(s, 0, sizeof *s);
	s->elem = elem;
	if (store_reader_open(&s->r, st, id, 0) < 0 || s->r.sc->elem != elem) {
		s->err = 1;
		return -1;
	}
	return 0;
}

const void *seq_span_more(struct seq *s, uint64_t n)
{
	size_t want = (size_t)n * s->elem;

	if (s->err)
		return NULL;
	if (want == 0)
		return s->in_memory ? s->mem : (const char *)s; /* nothing to read there */
	if (want > s->tcap) { /* past the chunk held (seq_span took the rest) */
		/* twice as big at least: spans growing a little each time
		 * (the references of ever bigger objects) made a fresh block
		 * each, its pages faulted in each time */
		s->tcap = want + 64 > 2 * s->tcap ? want + 64 : 2 * s->tcap;
		free(s->tmp);
		s->tmp = xmalloc(s->tcap);
		mem_populate(s->tmp, 0, want);
	}
	size_t got = 0;
	while (got < want) {
		if (s->cpos == s->clen) {
			s->chunk = store_read(&s->r, &s->clen);
			s->cpos = 0;
			if (s->chunk == NULL) {
				s->err = 1;
				return NULL;
			}
		}
		size_t k = s->clen - s->cpos < want - got ? s->clen - s->cpos : want - got;
		memcpy(s->tmp + got, s->chunk + s->cpos, k);
		s->cpos += k;
		got += k;
	}
	return s->tmp;
}

int seq_end(struct seq *s)
{
	int bad = s->err;

	if (!s->in_memory && s->r.s != NULL && store_reader_end(&s->r) < 0)
		bad = 1;
	free(s->tmp);
	memset(s, 0, sizeof *s);
	return bad ? -1 : 0;
}

int seq_skip(struct seq *s, uint64_t n)
{
	uint64_t want = n * s->elem;

	if (s->err)
		return -1;
	if (s->in_memory) {
		s->cpos += (size_t)want;
		return 0;
	}
	if (s->cpos + want <= s->clen) {
		s->cpos += (size_t)want;
		return 0;
	}
	/* past the chunk held: the chunks wholly passed over are not read */
	want -= s->clen - s->cpos;
	store_reader_seek(&s->r, s->r.next + (size_t)(want / STORE_CHUNK));
	s->cpos = (size_t)(want % STORE_CHUNK);
	if (s->cpos == 0 && s->r.next == s->r.nchunk) { /* at the very end */
		s->chunk = NULL;
		s->clen = 0;
		return 0;
	}
	s->chunk = store_read(&s->r, &s->clen);
	if (s->chunk == NULL || s->cpos > s->clen) {
		s->err = 1;
		return -1;
	}
	return 0;
}
