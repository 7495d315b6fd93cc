/* gz.h — the gzip container around a dump (RFC 1952): one member (gzip,
 * pigz) or many independent members (`jcmd GC.heap_dump -gz=N` writes one
 * per MiB of dump). Inflated once in order into a sink while an index of
 * the members is made; with that index, multi-member files can be read
 * at random through a small cache of inflated members.
 *
 * Members are inflated with libdeflate; a member too large to hold in
 * memory (over GZ_MEMBER_MAX, or the first one of a large file without a
 * size hint) is streamed through zlib in GZ_PIECE pieces. Truncated or
 * corrupt input is read as far as it is valid; every problem is a warning
 * "FILE: offset N: what", N the compressed offset of the bad member. */
#ifndef HW_GZ_H
#define HW_GZ_H

#include <stddef.h>
#include <stdint.h>

#include "progress.h"
#include "util.h"

/* Members up to this many uncompressed bytes are inflated whole, and only
 * those can be read at random (gz_reader). */
#define GZ_MEMBER_MAX ((uint64_t)64 << 20)
/* What the sink is handed at a time when a member is streamed. */
#define GZ_PIECE ((size_t)1 << 20)

/* 1 if head[0..n) starts like a gzip file (1f 8b 08), else 0. */
int gz_probe(const uint8_t *head, size_t n);
/* The member size the writer names in the first member's comment (the
 * JDK's "HPROF BLOCKSIZE=N": many members of N bytes each, which a
 * gz_view reads at random), 0 if none. */
uint64_t gz_member_hint(const uint8_t *gz, uint64_t size);

/* Where each member starts in the file and its compressed length (header
 * to trailer), where its data starts in the uncompressed stream and its
 * length. Members are in file order; their raw ranges tile
 * [0, raw_size) and their compressed ranges follow one another from
 * offset 0 (what follows the last, trailing garbage, is in none). */
struct gz_member {
	uint64_t comp_off, comp_len, raw_off;
	uint64_t raw_len;
};
struct gz_index {
	struct gz_member *m; /* owned; n entries */
	size_t n;
	uint64_t raw_size;
	int single; /* exactly one member (plain gzip) */
};

/* Receives uncompressed bytes in order; returns 0 to go on, anything
 * else stops gz_inflate (which then returns -1 and leaves err to the
 * sink's owner). */
typedef int (*gz_sink_fn)(void *arg, const uint8_t *data, size_t len);

/* Inflate the mapped file gz[0..size) once, in order, handing each
 * member's uncompressed bytes to sink (a streamed member in GZ_PIECE
 * pieces), and fill idx (the caller frees it with gz_index_free, also
 * after -1). A truncated or corrupt member ends the reading there with
 * a warning into w: returns 0 with the members before it. A streamed
 * member keeps what was handed over before its fault (deflate data is
 * valid up to where it breaks; its CRC, known only at its end, is then
 * unchecked): its index entry covers just that. Returns -1 with one
 * line in err (the path escaped) when not even the first member is
 * usable, or when cancelled through p. Progress in compressed bytes. */
int gz_inflate(const char *path, const uint8_t *gz, uint64_t size, struct gz_index *idx,
	       gz_sink_fn sink, void *arg, struct progress *p, struct warnings *w, struct sbuf *err);

/* Where gz_inflate_to_file writes, and what it found. */
struct gz_out {
	/* in: a template for mkstemp(3), "DIR/NAME.XXXXXX"; out: the name
	 * of the file made, unique (never one planted before) */
	char *file;
	/* renamed to this once complete; NULL: left at file for the caller
	 * (to map, then remove) */
	const char *rename_to;
	/* the bytes the file may hold (the free space where it is); past
	 * them nothing more is written */
	uint64_t limit;
	uint64_t need; /* out: found not to fit, what it needs (at least) */
};

/* gz_inflate into a new file, out->file (mode 0600), renamed to
 * out->rename_to when complete; a plain gzip file of one member over
 * GZ_MEMBER_MAX is inflated whole by libdeflate into the mapped output
 * instead (its space reserved first), falling back to gz_inflate when it
 * is not that case after all. A copy that would not fit in out->limit
 * (the trailer says so, or the bytes reach it) fails with "PATH: the
 * inflated copy needs N MB; M MB free in DIR". On any failure the file
 * is removed and err holds one line; warnings as gz_inflate. */
int gz_inflate_to_file(const char *path, const uint8_t *gz, uint64_t size, struct gz_out *out,
		       struct gz_index *idx, struct progress *p, struct warnings *w, struct sbuf *err);
/* The length the last member's trailer gives (mod 4 GiB): the whole
 * inflated length of a plain gzip file under 4 GiB; 0 if too short. */
uint64_t gz_trailer_size(const uint8_t *gz, uint64_t size);
/* The first up to n inflated bytes of gz into head, to tell what they
 * are before anything is written: how many (fewer when the stream ends
 * or breaks), or -1 when the first member gives not one. */
long gz_head(const uint8_t *gz, uint64_t size, uint8_t *head, size_t n);

/* Random access to the uncompressed bytes, keeping up to cache_members
 * inflated members (least recently used goes first; at least one).
 * Borrows gz and idx, which must outlive the reader. NULL when the
 * index does not fit the file (a member past `size`) or has a member
 * over GZ_MEMBER_MAX: inflate such a file with gz_inflate_to_file. */
struct gz_reader;
struct gz_reader *gz_reader_new(const uint8_t *gz, uint64_t size, const struct gz_index *idx,
				unsigned cache_members);
/* The uncompressed bytes [off, off+len): inside a cached member, or
 * copied into the reader's scratch buffer when they straddle members.
 * Valid until the next call on r. NULL when the range is past raw_size
 * or a member does not inflate to what the index says. */
const uint8_t *gz_read(struct gz_reader *r, uint64_t off, uint64_t len);
/* The same bytes copied into dst: 0, or -1 as gz_read's NULL. */
int gz_read_into(struct gz_reader *r, uint64_t off, uint64_t len, uint8_t *dst);
/* Every cache slot made big enough for the largest member, so that no
 * later read allocates (gz_view reads from a signal handler). */
void gz_reader_reserve(struct gz_reader *r);
void gz_reader_free(struct gz_reader *r);

/* A multi-member file's uncompressed bytes as one read-only mapping of
 * raw_size bytes whose chunks (GZ_CHUNK bytes, aligned) are inflated
 * when first touched: a read of a page not made yet faults, and the
 * SIGSEGV handler gz_view installs inflates the chunk's members into
 * place; at most max_chunks chunks are kept (the oldest made goes, to
 * be made again when read again). A front end with a SIGSEGV handler
 * of its own calls map_fault_fix() (util.h) first. A chunk whose
 * members do not inflate as the index says reads as zeros and is
 * counted (gz_view_bad). Takes idx and borrows gz (the mapped file),
 * which must outlive the view; NULL when the index does not fit the
 * file (gz_reader_new) or the address space is short. */
#define GZ_CHUNK ((uint64_t)1 << 20)
struct gz_view;
struct gz_view *gz_view_new(const uint8_t *gz, uint64_t size, struct gz_index *idx, unsigned max_chunks);
const uint8_t *gz_view_map(const struct gz_view *v);
uint64_t gz_view_size(const struct gz_view *v);
const struct gz_index *gz_view_index(const struct gz_view *v);
uint64_t gz_view_made(const struct gz_view *v); /* chunks made so far */
uint64_t gz_view_bad(const struct gz_view *v);
/* Work that reads most of the dump at random would have each chunk
 * made again and again: fd, a file of exactly the view's uncompressed
 * bytes (gz_inflate_to_file's), is mapped over the whole view in one
 * go, its addresses unchanged, and nothing is inflated through the view
 * again (the caller may close and remove the file then). 0, or -1 (the
 * view as before, its chunks to be made again when read). */
int gz_view_fill(struct gz_view *v, int fd);
int gz_view_filled(const struct gz_view *v);
/* Keep up to max_chunks made chunks from now on (never fewer). */
void gz_view_keep(struct gz_view *v, unsigned max_chunks);
void gz_view_free(struct gz_view *v);

/* The index as bytes (for the index cache), appended to out; and back:
 * 0, or -1 (idx left empty) when the bytes are not a whole, consistent
 * index. Check the members against the file with gz_reader_new. */
void gz_index_pack(const struct gz_index *idx, struct sbuf *out);
int gz_index_unpack(const uint8_t *p, size_t n, struct gz_index *idx);
/* Frees the members; idx is left empty. */
void gz_index_free(struct gz_index *idx);

#endif
