/* gz_index.c — random access to an indexed gzip file through a small
 * cache of inflated members, and the index as bytes (gz.h). */
#include "config.h"
#include "format/gz.h"

#include <libdeflate.h>
#include <stdlib.h>
#include <string.h>

/* as in gz.c: what n compressed bytes can hold at most */
#define MAX_RATIO 1032
#define PACK_MAGIC "GZIX"
#define PACK_VERSION 1

struct slot {
	size_t member; /* SIZE_MAX: empty */
	uint8_t *buf;
	size_t cap;
	uint64_t used; /* the reader's clock at the last use */
};

struct gz_reader {
	const uint8_t *gz;
	const struct gz_index *idx;
	struct libdeflate_decompressor *d;
	struct slot *slot;
	unsigned nslot;
	uint64_t clock;
	uint8_t *scratch; /* ranges that straddle members */
	size_t scratch_cap;
};

struct gz_reader *gz_reader_new(const uint8_t *gz, uint64_t size, const struct gz_index *idx,
				unsigned cache_members)
{
	uint64_t raw = 0;

	for (size_t i = 0; i < idx->n; i++) {
		const struct gz_member *m = &idx->m[i];
		if (m->comp_off > size || m->comp_len > size - m->comp_off || m->raw_len > GZ_MEMBER_MAX ||
		    m->raw_off != raw)
			return NULL;
		raw += m->raw_len;
	}
	if (raw != idx->raw_size)
		return NULL;
	struct gz_reader *r = xcalloc(1, sizeof *r);
	r->gz = gz;
	r->idx = idx;
	r->d = libdeflate_alloc_decompressor();
	if (r->d == NULL)
		hw_fatal("out of memory (libdeflate)");
	r->nslot = cache_members ? cache_members : 1;
	r->slot = xcalloc(r->nslot, sizeof *r->slot);
	for (unsigned i = 0; i < r->nslot; i++)
		r->slot[i].member = SIZE_MAX;
	return r;
}

void gz_reader_free(struct gz_reader *r)
{
	if (r == NULL)
		return;
	for (unsigned i = 0; i < r->nslot; i++)
		free(r->slot[i].buf);
	free(r->slot);
	free(r->scratch);
	libdeflate_free_decompressor(r->d);
	free(r);
}

/* Member i inflated: from the cache, else into the least recently used
 * slot. NULL if it does not inflate to exactly what the index says. */
static const uint8_t *member(struct gz_reader *r, size_t i)
{
	const struct gz_member *m = &r->idx->m[i];
	struct slot *s = &r->slot[0];
	size_t in, out;

	for (unsigned k = 0; k < r->nslot; k++) {
		if (r->slot[k].member == i) {
			r->slot[k].used = ++r->clock;
			return r->slot[k].buf;
		}
		if (r->slot[k].used < s->used)
			s = &r->slot[k];
	}
	if (s->cap < m->raw_len || s->buf == NULL) {
		free(s->buf);
		s->cap = m->raw_len ? (size_t)m->raw_len : 1;
		s->buf = xmalloc(s->cap);
	}
	s->member = SIZE_MAX;
	if (libdeflate_gzip_decompress_ex(r->d, r->gz + m->comp_off, (size_t)m->comp_len, s->buf,
					  (size_t)m->raw_len, &in, &out) != LIBDEFLATE_SUCCESS ||
	    in != m->comp_len || out != m->raw_len)
		return NULL;
	s->member = i;
	s->used = ++r->clock;
	return s->buf;
}

/* The member that holds raw offset off < raw_size: the last one starting
 * at or before it (empty members before it start there too). */
static size_t find(const struct gz_index *idx, uint64_t off)
{
	size_t lo = 0, hi = idx->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (idx->m[mid].raw_off <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo - 1;
}

const uint8_t *gz_read(struct gz_reader *r, uint64_t off, uint64_t len)
{
	static const uint8_t none[1];
	const struct gz_index *idx = r->idx;

	if (off > idx->raw_size || len > idx->raw_size - off || len > SIZE_MAX)
		return NULL;
	if (len == 0)
		return none;
	size_t i = find(idx, off);
	const struct gz_member *m = &idx->m[i];
	if (off - m->raw_off + len <= m->raw_len) {
		const uint8_t *b = member(r, i);
		return b ? b + (off - m->raw_off) : NULL;
	}
	if (r->scratch_cap < len) {
		free(r->scratch);
		r->scratch_cap = (size_t)len;
		r->scratch = xmalloc(r->scratch_cap);
	}
	return gz_read_into(r, off, len, r->scratch) == 0 ? r->scratch : NULL;
}

int gz_read_into(struct gz_reader *r, uint64_t off, uint64_t len, uint8_t *dst)
{
	const struct gz_index *idx = r->idx;

	if (off > idx->raw_size || len > idx->raw_size - off)
		return -1;
	/* member by member: each is copied out before the next may evict it */
	for (size_t i = len ? find(idx, off) : 0; len > 0; i++) {
		const struct gz_member *m = &idx->m[i];
		if (m->raw_len == 0)
			continue;
		const uint8_t *b = member(r, i);
		if (b == NULL)
			return -1;
		uint64_t from = off - m->raw_off, k = m->raw_len - from;
		if (k > len)
			k = len;
		memcpy(dst, b + from, (size_t)k);
		dst += k;
		off += k;
		len -= k;
	}
	return 0;
}

void gz_reader_reserve(struct gz_reader *r)
{
	uint64_t max = 1;

	for (size_t i = 0; i < r->idx->n; i++)
		max = r->idx->m[i].raw_len > max ? r->idx->m[i].raw_len : max;
	for (unsigned k = 0; k < r->nslot; k++)
		if (r->slot[k].cap < max) {
			free(r->slot[k].buf);
			r->slot[k].cap = (size_t)max;
			r->slot[k].buf = xmalloc(r->slot[k].cap);
		}
}

/* ---- the index as bytes: magic, version, flags, then LEB128 numbers:
 * members, raw size, each member's compressed and raw length (offsets
 * follow from them); a CRC-32 of all that last ---- */

static void put_uv(struct sbuf *out, uint64_t v)
{
	do {
		sbuf_addc(out, (char)((v & 0x7f) | (v >= 0x80 ? 0x80 : 0)));
		v >>= 7;
	} while (v != 0);
}

static int get_uv(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	*v = 0;
	for (unsigned shift = 0; *p < end && shift < 64; shift += 7) {
		uint8_t b = *(*p)++;
		if (shift == 63 && (b & 0x7e))
			return -1;
		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return 0;
	}
	return -1;
}

void gz_index_pack(const struct gz_index *idx, struct sbuf *out)
{
	size_t start = out->len;

	sbuf_add(out, PACK_MAGIC, 4);
	sbuf_addc(out, PACK_VERSION);
	sbuf_addc(out, (char)(idx->single ? 1 : 0));
	put_uv(out, idx->n);
	put_uv(out, idx->raw_size);
	for (size_t i = 0; i < idx->n; i++) {
		put_uv(out, idx->m[i].comp_len);
		put_uv(out, idx->m[i].raw_len);
	}
	uint32_t crc = libdeflate_crc32(0, out->buf + start, out->len - start);
	for (int k = 0; k < 4; k++)
		sbuf_addc(out, (char)(crc >> (8 * k)));
}

/* The members from p on, checked: they follow one another, each holds
 * no more than deflate can put in its bytes, and they add up to raw. */
static int unpack_members(const uint8_t *p, const uint8_t *end, struct gz_index *idx, uint64_t raw)
{
	uint64_t comp_off = 0, raw_off = 0, c, r;

	for (size_t i = 0; i < idx->n; i++) {
		if (get_uv(&p, end, &c) < 0 || get_uv(&p, end, &r) < 0 || c == 0 ||
		    c > UINT64_MAX - comp_off || r > raw - raw_off || r / MAX_RATIO > c)
			return -1;
		idx->m[i] = (struct gz_member){ comp_off, c, raw_off, r };
		comp_off += c;
		raw_off += r;
	}
	return p == end && raw_off == raw ? 0 : -1;
}

int gz_index_unpack(const uint8_t *p, size_t n, struct gz_index *idx)
{
	const uint8_t *end;
	uint64_t count, raw;

	memset(idx, 0, sizeof *idx);
	if (n < 4 + 2 + 2 + 4 || memcmp(p, PACK_MAGIC, 4) != 0 || p[4] != PACK_VERSION || p[5] > 1)
		return -1;
	end = p + n - 4;
	uint32_t crc = (uint32_t)end[0] | (uint32_t)end[1] << 8 | (uint32_t)end[2] << 16 |
		       (uint32_t)end[3] << 24;
	if (libdeflate_crc32(0, p, n - 4) != crc)
		return -1;
	int single = p[5];
	p += 6;
	/* each member takes two bytes at least */
	if (get_uv(&p, end, &count) < 0 || get_uv(&p, end, &raw) < 0 || count == 0 ||
	    count > (uint64_t)(end - p) / 2 || single != (count == 1))
		return -1;
	idx->n = (size_t)count;
	idx->m = xreallocarray(NULL, idx->n, sizeof *idx->m);
	idx->raw_size = raw;
	idx->single = single;
	if (unpack_members(p, end, idx, raw) < 0) {
		gz_index_free(idx);
		return -1;
	}
	return 0;
}

void gz_index_free(struct gz_index *idx)
{
	free(idx->m);
	memset(idx, 0, sizeof *idx);
}
