/* drive_gz.c — the gzip container's fuzzer body (drive.h): the input is
 * inflated in order into a sink that keeps the first bytes, then read
 * back at random through the index, and the index packed and unpacked.
 * What must hold whatever the input is checked with abort(), so that a
 * breach is a finding: the members tile what the sink was handed, a
 * read that succeeds gives the bytes the sink saw, the packed index
 * comes back equal. */
#include "drive.h"

#include <stdlib.h>
#include <string.h>

#include "format/gz.h"

#define KEEP ((size_t)1 << 20)

struct kept {
	uint8_t *b; /* the first KEEP bytes handed over */
	uint64_t n;
};

static int keep_sink(void *arg, const uint8_t *data, size_t len)
{
	struct kept *k = arg;

	if (k->n < KEEP)
		memcpy(k->b + k->n, data, len < KEEP - k->n ? len : KEEP - (size_t)k->n);
	k->n += len;
	return 0;
}

static void check_index(const struct gz_index *idx, uint64_t size, uint64_t handed)
{
	uint64_t c = 0, r = 0;

	for (size_t i = 0; i < idx->n; i++) {
		if (idx->m[i].comp_off != c || idx->m[i].raw_off != r)
			abort();
		c += idx->m[i].comp_len;
		r += idx->m[i].raw_len;
	}
	if (c > size || r != idx->raw_size || r != handed || idx->single != (idx->n == 1))
		abort();
}

/* Reads at offsets spread over what was kept, some across members. */
static void read_back(const uint8_t *data, size_t len, const struct gz_index *idx, const struct kept *k)
{
	struct gz_reader *r = gz_reader_new(data, len, idx, 2);
	uint64_t top = k->n < KEEP ? k->n : KEEP;

	if (r == NULL)
		return;
	for (uint64_t off = 0, step = 1; off < top; off += step, step = step * 3 + 1) {
		uint64_t n = top - off < 3 * step ? top - off : 3 * step;
		const uint8_t *p = gz_read(r, off, n);
		if (p != NULL && memcmp(p, k->b + off, (size_t)n) != 0)
			abort();
	}
	if (gz_read(r, idx->raw_size, 1) != NULL || gz_read(r, idx->raw_size, 0) == NULL)
		abort();
	gz_reader_free(r);
}

/* The same through a view of two chunks: bytes kept, read from the
 * mapping (faults made into chunks by the view's handler). */
static void view_back(const uint8_t *data, size_t len, const struct gz_index *idx, const struct kept *k)
{
	struct gz_index copy;
	struct sbuf pk;
	uint64_t top = k->n < KEEP ? k->n : KEEP;

	sbuf_init(&pk);
	gz_index_pack(idx, &pk);
	if (gz_index_unpack((const uint8_t *)pk.buf, pk.len, &copy) != 0)
		abort();
	sbuf_free(&pk);
	struct gz_view *v = gz_view_new(data, len, &copy, 2);
	if (v == NULL) {
		gz_index_free(&copy);
		return;
	}
	const uint8_t *m = gz_view_map(v);
	if (gz_view_size(v) != idx->raw_size)
		abort();
	/* a member cut inside (its part kept, unchecked) does not inflate
	 * alone: its chunks read as zeros, counted; all others as kept */
	for (uint64_t off = 0, step = 1; off < top; off += step, step = step * 5 + 1)
		if (m[off] != k->b[off] && gz_view_bad(v) == 0)
			abort();
	if (top > 0 && m[top - 1] != k->b[top - 1] && gz_view_bad(v) == 0)
		abort();
	gz_view_free(v);
}

static void round_trip(const struct gz_index *idx)
{
	struct sbuf pk;
	struct gz_index back;

	sbuf_init(&pk);
	gz_index_pack(idx, &pk);
	if (gz_index_unpack((const uint8_t *)pk.buf, pk.len, &back) != 0 || back.n != idx->n ||
	    back.raw_size != idx->raw_size || memcmp(back.m, idx->m, idx->n * sizeof *idx->m) != 0)
		abort();
	gz_index_free(&back);
	sbuf_free(&pk);
}

int fuzz_gz(const uint8_t *data, size_t len)
{
	struct gz_index idx;
	struct warnings w = { .quiet = 1 };
	struct sbuf err;
	struct kept k = { xmalloc(KEEP), 0 };

	sbuf_init(&err);
	int rc = gz_inflate("fuzz.gz", data, len, &idx, keep_sink, &k, NULL, &w, &err);
	if (rc == 0) {
		check_index(&idx, len, k.n);
		read_back(data, len, &idx, &k);
		view_back(data, len, &idx, &k);
		round_trip(&idx);
	} else if (err.len == 0 || strchr(err.buf, '\n') != NULL) {
		abort(); /* a failure is one line */
	}
	gz_index_free(&idx);
	warn_free(&w);
	sbuf_free(&err);
	free(k.b);
	return 0;
}
