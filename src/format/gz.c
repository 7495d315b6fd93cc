/* gz.c — gzip members: their headers, inflating them in order into a
 * sink while indexing them, and into a file (gz.h). gz_index.c reads an
 * indexed file at random. */
#include "config.h"
#include "format/gz.h"

#include <errno.h>
#include <fcntl.h>
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

enum { FHCRC = 2, FEXTRA = 4, FNAME = 8, FCOMMENT = 16, FRESERVED = 0xe0 };
/* deflate never gets below about 1/1032 of its input: a bound on what a
 * member of n compressed bytes can hold, so that a small bogus file
 * never makes a large buffer */
#define MAX_RATIO 1032
/* zlib counts its input in 32 bits */
#define ZLIB_FEED ((uint64_t)1 << 30)

/* The JDK names its member size in the first members' comment. */
static const char jdk_hint[] = "HPROF BLOCKSIZE=";

struct hdr {
	uint64_t len;  /* header bytes */
	uint64_t hint; /* the writer's member size, 0 if it gave none */
};

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int gz_probe(const uint8_t *head, size_t n)
{
	return n >= 3 && head[0] == 0x1f && head[1] == 0x8b && head[2] == 8;
}

/* The end of a NUL-terminated header field from pos, past its NUL;
 * 0 if the bytes end first. */
static uint64_t field_end(const uint8_t *p, uint64_t n, uint64_t pos)
{
	const uint8_t *z = memchr(p + pos, 0, n - pos);

	return z == NULL ? 0 : (uint64_t)(z - p) + 1;
}

static uint64_t comment_hint(const uint8_t *s, uint64_t len)
{
	uint64_t v = 0, k = sizeof jdk_hint - 1;

	if (len <= k || memcmp(s, jdk_hint, k) != 0)
		return 0;
	for (; k < len && s[k] >= '0' && s[k] <= '9' && v < GZ_MEMBER_MAX; k++)
		v = v * 10 + (s[k] - '0');
	return v;
}

/* The member header at p (n bytes on): NULL and *h, or what is wrong. */
static const char *parse_header(const uint8_t *p, uint64_t n, struct hdr *h)
{
	uint64_t pos = 10, end;

	if (n < 10)
		return "truncated member header";
	if (p[0] != 0x1f || p[1] != 0x8b)
		return "not a gzip member (no 1f 8b magic)";
	if (p[2] != 8)
		return "not a deflate member (compression method is not 8)";
	if (p[3] & FRESERVED)
		return "reserved header flags set";
	h->hint = 0;
	if (p[3] & FEXTRA) {
		if (n - pos < 2 || n - pos - 2 < (uint64_t)(p[pos] | p[pos + 1] << 8))
			return "truncated member header (extra field)";
		pos += 2 + (uint64_t)(p[pos] | p[pos + 1] << 8);
	}
	if (p[3] & FNAME) {
		if ((end = field_end(p, n, pos)) == 0)
			return "truncated member header (file name)";
		pos = end;
	}
	if (p[3] & FCOMMENT) {
		if ((end = field_end(p, n, pos)) == 0)
			return "truncated member header (comment)";
		h->hint = comment_hint(p + pos, end - 1 - pos);
		pos = end;
	}
	if (p[3] & FHCRC) {
		if (n - pos < 2)
			return "truncated member header (header CRC)";
		if ((libdeflate_crc32(0, p, pos) & 0xffff) != (uint32_t)(p[pos] | p[pos + 1] << 8))
			return "header CRC mismatch";
		pos += 2;
	}
	h->len = pos;
	return NULL;
}

uint64_t gz_member_hint(const uint8_t *gz, uint64_t size)
{
	struct hdr h;

	return gz_probe(gz, size) && parse_header(gz, size, &h) == NULL ? h.hint : 0;
}

/* ---- inflating in order ---- */

enum { M_OK, M_BAD, M_STOP };

struct inf {
	const char *path;
	const uint8_t *gz;
	uint64_t size;
	struct gz_index *idx;
	size_t cap_m;
	gz_sink_fn sink;
	void *arg;
	struct progress *p;
	struct libdeflate_decompressor *d;
	uint8_t *buf; /* a member's output, or a streamed piece */
	size_t cap;
	uint64_t guess;      /* the size a member is expected to be */
	uint64_t partial;    /* bytes handed over from a member that then failed */
	int truncated;       /* that member is cut short by the end of the file */
	char why[160];       /* what is wrong with the member that failed */
};

static void need_buf(struct inf *st, size_t n)
{
	if (st->cap < n) {
		free(st->buf);
		st->buf = xmalloc(n);
		st->cap = n;
	}
}

static void add_member(struct inf *st, uint64_t off, uint64_t comp, uint64_t raw)
{
	struct gz_index *idx = st->idx;

	if (idx->n == st->cap_m) {
		st->cap_m = st->cap_m ? st->cap_m * 2 : 64;
		idx->m = xreallocarray(idx->m, st->cap_m, sizeof *idx->m);
	}
	idx->m[idx->n++] = (struct gz_member){ off, comp, idx->raw_size, raw };
	idx->raw_size += raw;
	if (raw > st->guess)
		st->guess = raw;
}

static void zlib_why(struct inf *st, const z_stream *zs)
{
	const char *m = zs->msg ? zs->msg : "unknown error";

	if (strcmp(m, "incorrect data check") == 0)
		snprintf(st->why, sizeof st->why, "CRC-32 mismatch (corrupt member)");
	else if (strcmp(m, "incorrect length check") == 0)
		snprintf(st->why, sizeof st->why, "length mismatch (corrupt member)");
	else
		snprintf(st->why, sizeof st->why, "corrupt deflate data (%s)", m);
}

/* The member at off through zlib, in pieces: handed to the sink, or
 * only checked (discard, to learn what is wrong with a member libdeflate
 * refused without handing over any of it). */
static int stream_member(struct inf *st, uint64_t off, int discard)
{
	z_stream zs;
	uint64_t in = off, out = 0;
	int rc, res = M_BAD;

	memset(&zs, 0, sizeof zs);
	if (inflateInit2(&zs, 16 + 15) != Z_OK)
		hw_fatal("zlib: inflateInit2 failed");
	need_buf(st, GZ_PIECE);
	for (;;) {
		if (zs.avail_in == 0 && in < st->size) {
			uint64_t k = st->size - in < ZLIB_FEED ? st->size - in : ZLIB_FEED;
			zs.next_in = (Bytef *)(uintptr_t)(st->gz + in);
			zs.avail_in = (uInt)k;
			in += k;
		}
		zs.next_out = st->buf;
		zs.avail_out = (uInt)GZ_PIECE;
		rc = inflate(&zs, Z_NO_FLUSH);
		size_t got = GZ_PIECE - zs.avail_out;
		if (got > 0 && !discard && st->sink(st->arg, st->buf, got) != 0) {
			res = M_STOP;
			break;
		}
		out += got;
		if (rc == Z_STREAM_END) {
			res = M_OK;
			break;
		}
		if (rc == Z_BUF_ERROR || (rc == Z_OK && zs.avail_in == 0 && in == st->size && got == 0)) {
			snprintf(st->why, sizeof st->why, "truncated member (the file ends inside it)");
			st->truncated = 1;
			break;
		}
		if (rc != Z_OK) {
			zlib_why(st, &zs);
			break;
		}
		progress_update(st->p, in - zs.avail_in);
		if (progress_cancelled(st->p)) {
			res = M_STOP;
			break;
		}
	}
	uint64_t used = in - zs.avail_in - off;
	inflateEnd(&zs);
	if (res == M_OK && !discard)
		add_member(st, off, used, out);
	else if (res == M_BAD && !discard)
		st->partial = out;
	return res;
}

/* A first member with no size hint and more than GZ_MEMBER_MAX behind
 * it: if it is the only one (plain gzip) it cannot be held, so stream it
 * rather than find that out by inflating 64 MiB in vain. */
static int stream_first(const struct inf *st, uint64_t off, const struct hdr *h)
{
	return st->idx->n == 0 && h->hint == 0 && st->size - off > GZ_MEMBER_MAX;
}

/* The member at off: whole through libdeflate when it fits in memory,
 * else streamed; a member libdeflate refuses goes through zlib to learn
 * why (or to take it, should zlib accept it). */
static int inflate_member(struct inf *st, uint64_t off, const struct hdr *h)
{
	uint64_t avail = st->size - off;
	uint64_t limit = avail < GZ_MEMBER_MAX / MAX_RATIO ? avail * MAX_RATIO : GZ_MEMBER_MAX;
	uint64_t cap;
	size_t in, out;

	if (h->hint > st->guess)
		st->guess = h->hint;
	cap = st->guess;
	if (stream_first(st, off, h))
		return stream_member(st, off, 0);
	if (cap < 4096)
		cap = 4096;
	if (cap > limit)
		cap = limit;
	for (;;) {
		need_buf(st, (size_t)cap);
		enum libdeflate_result r = libdeflate_gzip_decompress_ex(
			st->d, st->gz + off, (size_t)avail, st->buf, (size_t)cap, &in, &out);
		if (r == LIBDEFLATE_SUCCESS) {
			if (st->sink(st->arg, st->buf, out) != 0)
				return M_STOP;
			add_member(st, off, in, out);
			return M_OK;
		}
		if (r != LIBDEFLATE_INSUFFICIENT_SPACE)
			break;
		if (cap >= limit)
			return stream_member(st, off, 0);
		cap = cap * 2 < limit ? cap * 2 : limit;
	}
	int res = stream_member(st, off, 1);
	/* should zlib accept what libdeflate refused, take zlib's word; and
	 * a member cut short by the file's end (plain gzip copied in part,
	 * the JDK's last member without its trailer's last byte) is read as
	 * far as it goes: nothing follows it, and what it gave is whole */
	if (res == M_OK || (res == M_BAD && st->truncated))
		return stream_member(st, off, 0);
	return res;
}

/* What follows the last member: zero padding or bytes that are not a
 * member are ignored with a warning; 1 if that is what is at off. */
static int trailing(const struct inf *st, uint64_t off, struct warnings *w)
{
	uint64_t left = st->size - off, i;

	if (left >= 2 && st->gz[off] == 0x1f && st->gz[off + 1] == 0x8b)
		return 0;
	for (i = off; i < st->size && st->gz[i] == 0; i++)
		;
	warn_add(w, "%s: offset %llu (compressed): %llu bytes after the last member %s; ignored", st->path,
		 (unsigned long long)off, (unsigned long long)left,
		 i == st->size ? "are zero padding" : "are not a gzip member");
	return 1;
}

/* A member that failed: a warning when members before it stand, else
 * the error. 0 or -1, what gz_inflate returns. */
static int bad_member(struct inf *st, uint64_t off, struct warnings *w, struct sbuf *err)
{
	if (st->partial > 0)
		add_member(st, off, st->size - off, st->partial);
	if (st->idx->n == 0) {
		char *ep = esc_str(st->path);
		sbuf_printf(err, "%s: offset %llu (compressed): %s", ep, (unsigned long long)off, st->why);
		free(ep);
		return -1;
	}
	if (st->partial > 0)
		warn_add(w, "%s: offset %llu (compressed): %s; reading the %llu bytes it gave before that",
			 st->path, (unsigned long long)off, st->why, (unsigned long long)st->partial);
	else
		warn_add(w, "%s: offset %llu (compressed): %s; reading the %zu member%s before it", st->path,
			 (unsigned long long)off, st->why, st->idx->n, st->idx->n == 1 ? "" : "s");
	return 0;
}

static int run(struct inf *st, struct warnings *w, struct sbuf *err)
{
	uint64_t off = 0;
	struct hdr h;

	if (!gz_probe(st->gz, st->size < 3 ? (size_t)st->size : 3)) {
		snprintf(st->why, sizeof st->why, "not a gzip file (no 1f 8b 08 magic)");
		return bad_member(st, 0, w, err);
	}
	while (off < st->size) {
		if (off > 0 && trailing(st, off, w))
			break;
		const char *why = parse_header(st->gz + off, st->size - off, &h);
		if (why != NULL) {
			snprintf(st->why, sizeof st->why, "%s", why);
			return bad_member(st, off, w, err);
		}
		int res = inflate_member(st, off, &h);
		if (res == M_BAD)
			return bad_member(st, off, w, err);
		if (res == M_STOP || progress_cancelled(st->p)) {
			if (progress_cancelled(st->p)) {
				char *ep = esc_str(st->path);
				sbuf_printf(err, "%s: cancelled", ep);
				free(ep);
			}
			return -1;
		}
		off = st->idx->m[st->idx->n - 1].comp_off + st->idx->m[st->idx->n - 1].comp_len;
		progress_update(st->p, off);
	}
	return 0;
}

int gz_inflate(const char *path, const uint8_t *gz, uint64_t size, struct gz_index *idx,
	       gz_sink_fn sink, void *arg, struct progress *p, struct warnings *w, struct sbuf *err)
{
	struct inf st = { .path = path, .gz = gz, .size = size, .idx = idx, .sink = sink,
			  .arg = arg, .p = p };

	memset(idx, 0, sizeof *idx);
	/* the last four bytes are the last member's length: for plain gzip,
	 * the whole (mod 4 GiB), which is the first guess */
	if (size >= 18)
		st.guess = le32(gz + size - 4);
	st.d = libdeflate_alloc_decompressor();
	if (st.d == NULL)
		hw_fatal("out of memory (libdeflate)");
	progress_begin(p, "decompressing", size, "MB");
	int rc = run(&st, w, err);
	progress_end(p);
	idx->single = idx->n == 1;
	libdeflate_free_decompressor(st.d);
	free(st.buf);
	return rc;
}

/* ---- the first bytes ---- */

long gz_head(const uint8_t *gz, uint64_t size, uint8_t *head, size_t n)
{
	z_stream zs;
	uint64_t in = 0;
	int rc = Z_OK;

	memset(&zs, 0, sizeof zs);
	if (inflateInit2(&zs, 16 + 15) != Z_OK)
		hw_fatal("zlib: inflateInit2 failed");
	zs.next_out = head;
	zs.avail_out = (uInt)n;
	while (zs.avail_out > 0 && rc == Z_OK) {
		if (zs.avail_in == 0) {
			if (in == size)
				break;
			uint64_t k = size - in < ZLIB_FEED ? size - in : ZLIB_FEED;
			zs.next_in = (Bytef *)(uintptr_t)(gz + in);
			zs.avail_in = (uInt)k;
			in += k;
		}
		rc = inflate(&zs, Z_NO_FLUSH);
	}
	long got = (long)(n - zs.avail_out);
	inflateEnd(&zs);
	return got == 0 && rc != Z_STREAM_END ? -1 : got;
}

/* ---- into a file ---- */

struct file_sink {
	int fd;
	int errnum;       /* of the write that failed */
	uint64_t written, limit;
	int over;         /* the next piece would have gone past limit */
};

static int write_all(void *arg, const uint8_t *data, size_t len)
{
	struct file_sink *fs = arg;

	if (len > fs->limit - fs->written) {
		fs->over = 1;
		return -1;
	}
	fs->errnum = write_full(fs->fd, data, len);
	fs->written += len;
	return fs->errnum != 0 ? -1 : 0;
}

static void file_error(struct sbuf *err, const char *file, const char *what, int errnum)
{
	char *ep = esc_str(file);

	sbuf_reset(err);
	sbuf_printf(err, "%s: %s: %s", ep, what, strerror(errnum));
	free(ep);
}

uint64_t gz_trailer_size(const uint8_t *gz, uint64_t size)
{
	return size >= 18 ? le32(gz + size - 4) : 0;
}

/* "PATH: the inflated copy needs N MB; M MB free in DIR", DIR the
 * output's directory; N the trailer's length when known, else more than
 * what fits. */
static void no_room(struct sbuf *err, const char *path, const struct gz_out *out, int known)
{
	const char *slash = strrchr(out->file, '/');
	char *dir = slash ? xstrndup(out->file, (size_t)(slash - out->file) + (slash == out->file)) : xstrdup(".");
	char *ep = esc_str(path), *ed = esc_str(dir);
	uint64_t mb = (uint64_t)1 << 20;

	sbuf_reset(err);
	if (known)
		sbuf_printf(err, "%s: the inflated copy needs %llu MB; %llu MB free in %s", ep,
			    (unsigned long long)((out->need + mb - 1) / mb), (unsigned long long)(out->limit / mb), ed);
	else
		sbuf_printf(err, "%s: the inflated copy needs more than %llu MB; %llu MB free in %s", ep,
			    (unsigned long long)(out->limit / mb), (unsigned long long)(out->limit / mb), ed);
	free(ep);
	free(ed);
	free(dir);
}

/* A plain gzip file of one large member (what gzip writes) inflated by
 * libdeflate in one call straight into the output file, mapped: faster
 * than zlib's pieces (measured in the bench: the 1 GB dump through
 * gzip -1). The output's length is the trailer's (mod 4 GiB), reserved
 * on disk first (a full disk is an error, not a fault on the mapping).
 * 1 when done (idx has the member); 0 when the file is not that case
 * (small, several members, over 4 GiB, damaged: the caller reads it
 * in order, which also says what is wrong), the output left empty; -1
 * when the output cannot be made (*errnum). */
static int whole_member(const uint8_t *gz, uint64_t size, int fd, struct gz_index *idx,
			struct progress *p, int *errnum)
{
	struct hdr h;
	size_t in = 0, out = 0;

	if (size < 18 || parse_header(gz, size, &h) != NULL)
		return 0;
	uint64_t raw = le32(gz + size - 4);
	if (raw <= GZ_MEMBER_MAX || raw >= SIZE_MAX / 2)
		return 0;
	int e = posix_fallocate(fd, 0, (off_t)raw);
	if (e != 0) {
		*errnum = e;
		return -1;
	}
	uint8_t *map = mmap(NULL, (size_t)raw, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		*errnum = errno;
		return -1;
	}
	struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
	if (d == NULL)
		hw_fatal("out of memory (libdeflate)");
	progress_begin(p, "decompressing", size, "MB");
	enum libdeflate_result r = libdeflate_gzip_decompress_ex(d, gz, (size_t)size, map, (size_t)raw, &in, &out);
	progress_update(p, size);
	progress_end(p);
	libdeflate_free_decompressor(d);
	munmap(map, (size_t)raw);
	if (r != LIBDEFLATE_SUCCESS || out != raw || in != size) {
		if (ftruncate(fd, 0) < 0) {
			*errnum = errno;
			return -1;
		}
		return 0;
	}
	idx->m = xmalloc(sizeof *idx->m);
	idx->m[0] = (struct gz_member){ 0, size, 0, raw };
	idx->n = 1;
	idx->raw_size = raw;
	idx->single = 1;
	return 1;
}

int gz_inflate_to_file(const char *path, const uint8_t *gz, uint64_t size, struct gz_out *out,
		       struct gz_index *idx, struct progress *p, struct warnings *w, struct sbuf *err)
{
	struct file_sink fs = { .fd = -1, .limit = out->limit };
	uint64_t trailer = gz_trailer_size(gz, size);
	int rc = -1;

	memset(idx, 0, sizeof *idx);
	out->need = 0;
	/* what the trailer says the (last) member holds does not fit: no
	 * byte is written (a length deflate could not reach is no length) */
	if (trailer > out->limit && trailer / MAX_RATIO <= size) {
		out->need = trailer;
		no_room(err, path, out, 1);
		return -1;
	}
	/* a name no one can have taken or planted a link at: O_EXCL */
	if ((fs.fd = mkostemp(out->file, O_CLOEXEC)) < 0) { /* read and write: mapped */
		file_error(err, out->file, "cannot create", errno);
		return -1;
	}
	int guarded = tmp_guard(out->file) == 0; /* a ^C in the middle leaves no copy behind */
	int whole = trailer <= out->limit ? whole_member(gz, size, fs.fd, idx, p, &fs.errnum) : 0;
	if (whole < 0) {
		file_error(err, out->file, "cannot write", fs.errnum);
		close(fs.fd);
	} else if (whole == 0 && gz_inflate(path, gz, size, idx, write_all, &fs, p, w, err) < 0) {
		if (fs.over) {
			out->need = fs.limit + 1;
			no_room(err, path, out, 0);
		} else if (fs.errnum != 0) {
			file_error(err, out->file, "cannot write", fs.errnum);
		}
		close(fs.fd);
	} else if (close(fs.fd) < 0)
		file_error(err, out->file, "cannot write", errno);
	else if (out->rename_to != NULL && rename(out->file, out->rename_to) < 0)
		file_error(err, out->rename_to, "cannot rename the temporary file to it", errno);
	else
		rc = 0;
	if (rc < 0)
		unlink(out->file);
	if (guarded)
		tmp_unguard(out->file);
	return rc;
}
