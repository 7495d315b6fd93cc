/* store.h — a file of arrays, each LZ4-compressed in chunks of at most
 * STORE_CHUNK bytes: the index cache (cache.c) is one, and so is the
 * scratch file where the engine parks the arrays it is not using while
 * it builds and analyses a heap too big to hold whole (graph/build.h).
 *
 * A section is an array under an id: its chunks, each a u32 compressed
 * length then the LZ4 block, where the file says (struct store_sect).
 * Sections go anywhere past `start`, in any order; the table of them is
 * kept in memory and written by the owner of the file (cache.c writes it
 * in front). A section is written whole (store_put) or piece by piece
 * (struct store_writer), and read back whole (store_get) or chunk by
 * chunk, forwards or backwards (struct store_reader). Every chunk is
 * covered by the section's checksum, which a read checks.
 *
 * Writing never fails loudly: the first error (ENOSPC, EIO) is kept in
 * s->err and every later write is skipped, so a caller parks an array
 * (puts it, then frees it) only while store_ok(). Reading a section
 * that was written fails with -1 (and no memory kept) when the bytes on
 * disk do not match. */
#ifndef HW_STORE_H
#define HW_STORE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A reader of a section holds a chunk's worth three times over (its
 * compressed bytes, its filtered ones, the chunk), a writer twice, and
 * the store keeps two for its reads and writes: at 4 MiB, a reader that
 * reads several sections back at once held 20 MB more than at 1 MiB.
 * LZ4's window is 64 KiB: it compresses 1 MiB as well. At 256 KiB a
 * chunk and its filtered bytes stay in a core's second-level cache as
 * they pass from one to the other (a 1.4 M-node V8 snapshot's open: 2%
 * less CPU, 2.7 MB less at its peak). */
#define STORE_CHUNK ((size_t)1 << 18)
/* LZ4 writes at least a byte for every 255 it is given (a match's
 * length goes on in bytes of 255 each): a section's raw bytes are at
 * most this many times its compressed ones, which a table read back is
 * held to (a forged one's size would be allocated before its bytes
 * prove it false) */
#define STORE_LZ4_MAX 256

struct store_sect {
	uint32_t id, elem;   /* elem: the array's element size */
	uint64_t raw, comp;  /* bytes before and after compression */
	uint64_t check;      /* store_hash() chained over the chunks */
	uint64_t off;        /* file offset of the first chunk */
	uint32_t filter;     /* STORE_DELTA: how each chunk was made ready */
	uint32_t pad;
};
/* Integers of 4 or 8 bytes go in as the differences of each from the
 * one before (zigzag: small either way), their bytes shuffled (every
 * first byte, then every second...): what LZ4 makes little of as they
 * are (ascending starts and offsets, targets near their sources) it
 * makes little of this way. */
#define STORE_DELTA 1

struct store {
	int fd;               /* borrowed: the owner closes it */
	uint64_t start, end;  /* sections lie in [start, end) */
	struct store_sect *sect;
	size_t nsect, cap;
	int err;              /* errno of the first failed write, 0 */
	char *zbuf;           /* a chunk's compressed bytes, made on use */
	char *fbuf;           /* a chunk made ready (STORE_DELTA), made on use */
	/* a scratch file, read back only by this run: compressed for speed
	 * more than size, and no checksums (set after store_init) */
	int scratch;
	/* a writer open (store_begin to store_end): it writes from where the
	 * file ended when it began, and a section written meanwhile (another
	 * writer's, a store_put's) would take the same bytes; refused */
	int writing;
};

/* A 64-bit checksum of p[0..n) (not cryptographic). */
uint64_t store_hash(const void *p, size_t n, uint64_t seed);
/* The same made piece by piece (n: the whole length, known first; the
 * pieces add up to it, in order). */
struct store_hasher {
	uint64_t a[4], n, done;
	uint8_t buf[32];
	size_t nbuf;
};
void store_hash_begin(struct store_hasher *x, uint64_t seed, uint64_t n);
void store_hash_add(struct store_hasher *x, const void *p, size_t n);
uint64_t store_hash_end(struct store_hasher *x);

/* A store of the file fd whose sections start at byte `start`; empty
 * (writing), or with the n sections of the table tab (reading: checked
 * to lie within the file's size, and each raw size to be one its
 * compressed bytes could hold, a chunk at most behind each 4-byte
 * length and STORE_LZ4_MAX times them at most, else -1). */
void store_init(struct store *s, int fd, uint64_t start);
int store_init_read(struct store *s, int fd, uint64_t start, uint64_t size, const struct store_sect *tab,
		    size_t n);
void store_free(struct store *s);
static inline int store_ok(const struct store *s) { return s->err == 0; }

/* The section of that id, NULL if none. */
const struct store_sect *store_find(const struct store *s, uint32_t id);

/* Write p[0..count) (elements of elem bytes) as section id, replacing
 * one of that id (whose bytes are let go); 0, or -1 (s->err). */
int store_put(struct store *s, uint32_t id, const void *p, uint32_t elem, uint64_t count);
/* Section src_id of src, as it is (compressed), into dst as section id;
 * 0, or -1 (dst->err, or EIO reading src). */
int store_copy(struct store *dst, uint32_t id, const struct store *src, uint32_t src_id);
/* Sections src_ids[0..n) of src, as they are, one after the other into
 * dst as the one section id: each but the last must hold whole chunks
 * (a multiple of STORE_CHUNK bytes), all of one element size and way of
 * being made ready; 0, or -1 (none such: dst untouched; dst->err, or
 * EIO reading src). */
int store_concat(struct store *dst, uint32_t id, const struct store *src, const uint32_t *src_ids, size_t n);
/* Section id is section `to` from now on (one of that id let go). */
void store_rename(struct store *s, uint32_t id, uint32_t to);
/* Let section id's disk space go (a hole) and forget it. */
void store_drop(struct store *s, uint32_t id);

/* One writer at a time on a store, and no store_put, store_copy or
 * store_concat on it while one is open: the program stops (hw_fatal),
 * where the two would have written over each other (a scratch file's
 * sections have no checksum to find it). */
struct store_writer {
	struct store *s;
	struct store_sect sc;
	char *buf;
	size_t len;
	size_t made;          /* buf's bytes made (mem_populate), len <= made */
};
void store_begin(struct store *s, struct store_writer *w, uint32_t id, uint32_t elem);
void store_write_more(struct store_writer *w, const void *p, size_t n);
/* n bytes more: where they fit in the part of the chunk made so far,
 * copied here (the writers give a few bytes at a time: a call to copy
 * each cost 2.5% of an HPROF cold open), else through store_write_more */
static inline void store_write(struct store_writer *w, const void *p, size_t n)
{
	if (w->made - w->len > n) {
		memcpy(w->buf + w->len, p, n);
		w->len += n;
	} else {
		store_write_more(w, p, n);
	}
}
/* The section is in the store from now on (unless s->err): 0 or -1. */
int store_end(struct store_writer *w);

/* Section id into dst, which holds exactly its raw bytes (elem and
 * count must be what was stored); 0, or -1 (dst then holds part).
 * Reads (these and a store_reader's) go through the buffers the store
 * keeps for writing, s const or not: one at a time, never two at once
 * on one store (one thread; each use ends within its call). */
int store_load(const struct store *s, uint32_t id, uint32_t elem, uint64_t count, void *dst);
/* The same into a new array (raw + 1 bytes, xmalloc); NULL on -1. */
void *store_get(const struct store *s, uint32_t id, uint32_t elem, uint64_t count);

/* The checksum a section of those compressed bytes (comp of them, raw
 * when inflated) has; ~0 if its chunks are malformed (the fuzzers'
 * forged caches). */
uint64_t store_check_bytes(const uint8_t *p, uint64_t comp, uint64_t raw);

struct store_reader {
	const struct store *s;
	const struct store_sect *sc;
	int backward;
	uint64_t *chunk;      /* file offsets of the chunks */
	size_t nchunk, next;  /* next: chunks delivered so far */
	uint64_t check;       /* over the chunks read, forwards only */
	char *z, *buf, *tmp;
	int shared;           /* z and tmp are the store's own */
	int err;
	int skipped;          /* chunks passed over: no checksum to check */
};
/* Chunk by chunk: store_read gives the next chunk's raw bytes (in buf,
 * valid until the next call; a multiple of the element size when it
 * divides STORE_CHUNK), NULL at the end or on an error; backwards: the
 * last chunk first. store_reader_end: 0 if everything read was sound
 * (forwards: the checksum too, when all was read). */
int store_reader_open(struct store_reader *r, const struct store *s, uint32_t id, int backward);
const void *store_read(struct store_reader *r, size_t *n);
/* Forwards: the next store_read gives chunk k (k >= the next one). */
void store_reader_seek(struct store_reader *r, size_t k);
int store_reader_end(struct store_reader *r);

/* An array read front to back in spans, from memory (seq_mem) or from
 * a section of a store (seq_open: 0, or -1 if there is none such): each
 * seq_span gives the next n elements (valid until the next call; held in
 * a buffer of the seq's own where a span crosses two chunks), NULL on a
 * read error or past the end. seq_end: 0 if all read was sound. */
struct seq {
	int in_memory;
	const char *mem;
	struct store_reader r;
	size_t elem;
	const char *chunk;
	size_t clen, cpos;    /* the chunk held: its bytes, those used */
	char *tmp;
	size_t tcap;
	int err;
};
void seq_mem(struct seq *s, const void *p, size_t elem);
int seq_open(struct seq *s, const struct store *st, uint32_t id, size_t elem);
const void *seq_span_more(struct seq *s, uint64_t n);
/* Most spans lie within the chunk held, or in memory: those inline,
 * the rest (a chunk to read, an error, nothing asked) seq_span_more's. */
static inline const void *seq_span(struct seq *s, uint64_t n)
{
	size_t want = (size_t)n * s->elem;

	if (want > 0 && !s->err) {
		if (s->in_memory) {
			const char *p = s->mem + s->cpos;
			s->cpos += want;
			return p;
		}
		if (s->cpos + want <= s->clen) {
			const char *p = s->chunk + s->cpos;
			s->cpos += want;
			return p;
		}
	}
	return seq_span_more(s, n);
}
/* Past the next n elements without copying them: 0, or -1. */
int seq_skip(struct seq *s, uint64_t n);
int seq_end(struct seq *s);

#endif
