/* test_gz.c — the gzip container on real dumps made at test time: the
 * JDK's many-member file (jcmd -gz=1) and the same JVM's plain dump
 * through gzip (one member) inflate to what gzip -dc and the plain dump
 * hold; the index tiles both streams; random reads; the packed index;
 * truncated, corrupt and foreign input; writing to a file. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "format/gz.h"
#include "hprofw.h"
#include "suites.h"

#define GZDIR TEST_BUILDDIR "/dumps/gz" /* gz_dumps() */

struct file {
	uint8_t *b;
	uint64_t n;
};

static struct file slurp(const char *path)
{
	struct file f = { NULL, 0 };
	FILE *fp = fopen(path, "rb");
	struct stat st;

	ck_assert_msg(fp != NULL && fstat(fileno(fp), &st) == 0, "cannot read %s", path);
	f.n = (uint64_t)st.st_size;
	f.b = xmalloc(f.n ? f.n : 1);
	ck_assert_msg(fread(f.b, 1, f.n, fp) == f.n, "cannot read %s", path);
	fclose(fp);
	return f;
}

static void put_file(const char *path, const void *b, size_t n)
{
	FILE *fp = fopen(path, "wb");

	ck_assert_msg(fp != NULL && fwrite(b, 1, n, fp) == n && fclose(fp) == 0, "cannot write %s", path);
}

/* A sink that compares what it is handed with the bytes expected. */
struct expect {
	const uint8_t *want;
	uint64_t n, pos;
	int differs;
	size_t calls, largest;
};

static int expect_sink(void *arg, const uint8_t *data, size_t len)
{
	struct expect *e = arg;

	if (len > e->n - e->pos || memcmp(e->want + e->pos, data, len) != 0)
		e->differs = 1;
	e->pos += len;
	e->calls++;
	if (len > e->largest)
		e->largest = len;
	return 0;
}

/* gz_inflate of gz[0..n) named path, its output compared with want. */
static int inflate_expect(const char *path, const uint8_t *gz, uint64_t n, const struct file *want,
			  struct gz_index *idx, struct expect *e, struct warnings *w, struct sbuf *err)
{
	memset(e, 0, sizeof *e);
	e->want = want->b;
	e->n = want->n;
	memset(w, 0, sizeof *w);
	w->quiet = 1;
	sbuf_init(err);
	return gz_inflate(path, gz, n, idx, expect_sink, e, NULL, w, err);
}

/* Members one after the other from offset 0 to comp_end, raw ranges
 * tiling [0, raw_size). */
static void ck_tiles(const struct gz_index *idx, uint64_t comp_end)
{
	uint64_t c = 0, r = 0;

	ck_assert(idx->n > 0);
	for (size_t i = 0; i < idx->n; i++) {
		ck_assert_msg(idx->m[i].comp_off == c, "member %zu at %llu, not %llu", i,
			      (unsigned long long)idx->m[i].comp_off, (unsigned long long)c);
		ck_assert_msg(idx->m[i].raw_off == r, "member %zu raw at %llu, not %llu", i,
			      (unsigned long long)idx->m[i].raw_off, (unsigned long long)r);
		c += idx->m[i].comp_len;
		r += idx->m[i].raw_len;
	}
	ck_assert_uint_eq(c, comp_end);
	ck_assert_uint_eq(r, idx->raw_size);
}

static int warned(const struct warnings *w, const char *what, unsigned long long off)
{
	char at[48];

	snprintf(at, sizeof at, ": offset %llu (compressed): ", off); /* the gzip layer's, of the .gz */
	for (size_t i = 0; i < w->n; i++)
		if (strstr(w->msg[i], at) && (what == NULL || strstr(w->msg[i], what)))
			return 1;
	for (size_t i = 0; i < w->n; i++)
		fprintf(stderr, "  warning: %s\n", w->msg[i]);
	return 0;
}

/* gzip -dc of gz[off, off+len) as a file of its own equals want. */
static void ck_gunzip_slice(const uint8_t *gz, uint64_t off, uint64_t len, const uint8_t *want, uint64_t n)
{
	char *in = xasprintf("%s/slice.gz", hw_tmpdir()), *out = xasprintf("%s/slice", hw_tmpdir());
	char *cmd = xasprintf("gzip -dc '%s' > '%s'", in, out);

	put_file(in, gz + off, (size_t)len);
	ck_assert_msg(system(cmd) == 0, "%s failed", cmd);
	struct file f = slurp(out);
	ck_assert_msg(f.n == n && memcmp(f.b, want, (size_t)n) == 0, "member at %llu: gzip -dc differs",
		      (unsigned long long)off);
	free(f.b);
	free(in);
	free(out);
	free(cmd);
}

/* The JDK's file: many members, each handed over whole, inflating to
 * what gzip -dc makes of it; each member alone is a gzip file. */
START_TEST(jdk_members)
{
	struct gz_index idx;
	struct expect e;
	struct warnings w;
	struct sbuf err;

	gz_dumps();
	struct file gz = slurp(GZDIR "/jdk.hprof.gz"), want = slurp(GZDIR "/jdk.gunzip");
	struct file plain = slurp(GZDIR "/plain.hprof");
	ck_assert_int_eq(gz_probe(gz.b, (size_t)gz.n), 1);
	ck_assert_int_eq(inflate_expect("jdk.hprof.gz", gz.b, gz.n, &want, &idx, &e, &w, &err), 0);
	ck_assert_msg(!e.differs && e.pos == want.n, "output differs from gzip -dc (%llu of %llu bytes)",
		      (unsigned long long)e.pos, (unsigned long long)want.n);
	ck_assert_uint_eq(w.n, 0);
	ck_assert_msg(idx.n > 1 && !idx.single, "%zu members", idx.n);
	ck_assert_uint_eq(e.calls, idx.n); /* one call per member: held whole */
	ck_assert_uint_eq(idx.raw_size, want.n);
	ck_tiles(&idx, gz.n);
	/* the dumps taken one after the other differ in their objects, not
	 * in their header: "JAVA PROFILE 1.0.2\0" and the identifier size */
	ck_assert_msg(plain.n > 23 && memcmp(plain.b, want.b, 23) == 0, "not the same JVM's dump");
	size_t pick[] = { 0, idx.n / 2, idx.n - 1 };
	for (size_t k = 0; k < 3; k++) {
		const struct gz_member *m = &idx.m[pick[k]];
		ck_gunzip_slice(gz.b, m->comp_off, m->comp_len, want.b + m->raw_off, m->raw_len);
	}
	gz_index_free(&idx);
	warn_free(&w);
	sbuf_free(&err);
	free(gz.b);
	free(want.b);
	free(plain.b);
}
END_TEST

/* gzip's one member of the plain dump inflates to the plain dump. */
START_TEST(single_member)
{
	struct gz_index idx;
	struct expect e;
	struct warnings w;
	struct sbuf err;

	gz_dumps();
	struct file gz = slurp(GZDIR "/plain.hprof.gz"), plain = slurp(GZDIR "/plain.hprof");
	ck_assert_int_eq(inflate_expect("plain.hprof.gz", gz.b, gz.n, &plain, &idx, &e, &w, &err), 0);
	ck_assert_msg(!e.differs && e.pos == plain.n, "output differs from the plain dump");
	ck_assert_uint_eq(w.n, 0);
	ck_assert_uint_eq(idx.n, 1);
	ck_assert_int_eq(idx.single, 1);
	ck_tiles(&idx, gz.n);
	ck_assert_uint_eq(idx.raw_size, plain.n);
	gz_index_free(&idx);
	warn_free(&w);
	sbuf_free(&err);
	free(gz.b);
	free(plain.b);
}
END_TEST

/* A file of `copies` plain dumps, gzip'ed with `level`: (raw, gz). */
static void big_file(const char *src, int copies, const char *level, struct file *raw, struct file *gz)
{
	char *r = xasprintf("%s/big", hw_tmpdir()), *g = xasprintf("%s/big.gz", hw_tmpdir());
	char *cmd = xasprintf("gzip -c %s '%s' > '%s'", level, r, g);
	struct file one = slurp(src);
	FILE *fp = fopen(r, "wb");

	ck_assert(fp != NULL);
	for (int i = 0; i < copies; i++)
		ck_assert(fwrite(one.b, 1, (size_t)one.n, fp) == one.n);
	ck_assert(fclose(fp) == 0);
	ck_assert_msg(system(cmd) == 0, "%s failed", cmd);
	*raw = slurp(r);
	*gz = slurp(g);
	unlink(r);
	unlink(g);
	free(one.b);
	free(r);
	free(g);
	free(cmd);
}

/* One member too large to hold (over 64 MiB): streamed in pieces, and
 * when cut short, what came before the cut is handed over. Two files:
 * one that compresses (found too large by inflating), one that does
 * not (over 64 MiB compressed: streamed from the start). */
START_TEST(single_member_streamed)
{
	struct gz_index idx;
	struct expect e;
	struct warnings w;
	struct sbuf err;
	struct file raw, gz;

	gz_dumps();
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 0) {
			struct file plain = slurp(GZDIR "/plain.hprof");
			int copies = (int)(GZ_MEMBER_MAX / plain.n) + 2;
			free(plain.b);
			big_file(GZDIR "/plain.hprof", copies, "-1", &raw, &gz);
		} else {
			char *r = xasprintf("%s/random", hw_tmpdir());
			char *cmd = xasprintf("head -c %llu /dev/urandom > '%s'",
					      (unsigned long long)(GZ_MEMBER_MAX + (4 << 20)), r);
			ck_assert(system(cmd) == 0);
			big_file(r, 1, "-1", &raw, &gz);
			unlink(r);
			free(r);
			free(cmd);
			ck_assert_msg(gz.n > GZ_MEMBER_MAX, "random data compressed to %llu", (unsigned long long)gz.n);
		}
		ck_assert(raw.n > GZ_MEMBER_MAX);
		ck_assert_int_eq(inflate_expect("big.gz", gz.b, gz.n, &raw, &idx, &e, &w, &err), 0);
		ck_assert_msg(!e.differs && e.pos == raw.n, "pass %d: output differs", pass);
		ck_assert_msg(e.calls > 1 && e.largest <= GZ_PIECE, "pass %d: %zu calls, largest %zu", pass,
			      e.calls, e.largest);
		ck_assert_uint_eq(w.n, 0);
		ck_assert(idx.single && idx.raw_size == raw.n && idx.m[0].comp_len == gz.n);
		/* the reader does not take a member that large */
		ck_assert_ptr_null(gz_reader_new(gz.b, gz.n, &idx, 2));
		gz_index_free(&idx);
		warn_free(&w);
		sbuf_free(&err);

		/* cut in the middle: the bytes before the cut, a warning */
		ck_assert_int_eq(inflate_expect("big.gz", gz.b, gz.n / 2, &raw, &idx, &e, &w, &err), 0);
		ck_assert_msg(!e.differs && e.pos > raw.n / 4 && e.pos < raw.n, "pass %d: %llu bytes", pass,
			      (unsigned long long)e.pos);
		ck_assert(idx.n == 1 && idx.raw_size == e.pos);
		ck_assert(warned(&w, "truncated member", 0));
		gz_index_free(&idx);
		warn_free(&w);
		sbuf_free(&err);
		free(raw.b);
		free(gz.b);
	}
}
END_TEST

/* Reads at random, within and across members, match gzip -dc's bytes;
 * out of range is NULL. */
START_TEST(reader_random)
{
	struct gz_index idx;
	struct expect e;
	struct warnings w;
	struct sbuf err;

	gz_dumps();
	struct file gz = slurp(GZDIR "/jdk.hprof.gz"), want = slurp(GZDIR "/jdk.gunzip");
	ck_assert_int_eq(inflate_expect("jdk.hprof.gz", gz.b, gz.n, &want, &idx, &e, &w, &err), 0);
	ck_assert_ptr_null(gz_reader_new(gz.b, gz.n - 1, &idx, 4)); /* a member past the end */
	for (unsigned cache = 1; cache <= 4; cache += 3) {
		struct gz_reader *r = gz_reader_new(gz.b, gz.n, &idx, cache);
		const uint8_t *p;
		ck_assert_ptr_nonnull(r);
		srand(7 + cache);
		for (int i = 0; i < 3000; i++) {
			uint64_t off, len;
			if (i < (int)idx.n - 1) { /* across each boundary */
				off = idx.m[i + 1].raw_off - 1 - (uint64_t)(rand() % 100);
				len = 2 + (uint64_t)(rand() % 300);
			} else {
				off = ((uint64_t)rand() << 16 ^ (uint64_t)rand()) % want.n;
				len = (uint64_t)rand() % (i % 10 == 0 ? 3 << 20 : 4096) + 1;
			}
			if (len > want.n - off)
				len = want.n - off;
			p = gz_read(r, off, len);
			ck_assert_msg(p != NULL && memcmp(p, want.b + off, (size_t)len) == 0,
				      "read %llu+%llu differs (cache %u)", (unsigned long long)off,
				      (unsigned long long)len, cache);
		}
		ck_assert((p = gz_read(r, 0, 1)) != NULL && p[0] == want.b[0]);
		ck_assert((p = gz_read(r, want.n - 1, 1)) != NULL && p[0] == want.b[want.n - 1]);
		ck_assert((p = gz_read(r, 0, want.n)) != NULL && memcmp(p, want.b, (size_t)want.n) == 0);
		ck_assert_ptr_nonnull(gz_read(r, want.n, 0));
		ck_assert_ptr_null(gz_read(r, want.n, 1));
		ck_assert_ptr_null(gz_read(r, want.n + 1, 0));
		ck_assert_ptr_null(gz_read(r, 1, want.n));
		ck_assert_ptr_null(gz_read(r, 1, UINT64_MAX));
		gz_reader_free(r);
	}
	gz_index_free(&idx);
	warn_free(&w);
	sbuf_free(&err);
	free(gz.b);
	free(want.b);
}
END_TEST

/* The view: every byte as gzip -dc has it, read in any order, through
 * at most two chunks made at a time (made again when read again); a
 * member damaged after the index was made reads as zeros, counted. */
START_TEST(view_random)
{
	struct gz_index idx;
	struct expect e;
	struct warnings w;
	struct sbuf err;

	gz_dumps();
	struct file gz = slurp(GZDIR "/jdk.hprof.gz"), want = slurp(GZDIR "/jdk.gunzip");
	ck_assert_int_eq(inflate_expect("jdk.hprof.gz", gz.b, gz.n, &want, &idx, &e, &w, &err), 0);
	ck_assert_uint_ge(want.n, 4 * GZ_CHUNK);
	struct gz_index copy = { 0 };
	struct sbuf pk;
	sbuf_init(&pk);
	gz_index_pack(&idx, &pk);
	ck_assert_int_eq(gz_index_unpack((const uint8_t *)pk.buf, pk.len, &copy), 0);
	struct gz_view *v = gz_view_new(gz.b, gz.n, &idx, 2);
	ck_assert_ptr_nonnull(v);
	ck_assert_uint_eq(idx.n, 0); /* taken */
	const uint8_t *m = gz_view_map(v);
	ck_assert_uint_eq(gz_view_size(v), want.n);
	srand(11);
	uint64_t sum = 0, wsum = 0;
	/* single bytes here and there, nearly each in a chunk not made: 2000
	 * of them make as many chunks (20000 took 188 s of make check, 366 s
	 * on a busy machine) */
	for (int i = 0; i < RANDOM_CASES(2000); i++) {
		uint64_t off = ((uint64_t)rand() << 16 ^ (uint64_t)rand()) % want.n;
		sum += m[off] * (off % 251 + 1);
		wsum += want.b[off] * (off % 251 + 1);
	}
	ck_assert_uint_eq(sum, wsum);
	ck_assert_int_eq(memcmp(m, want.b, (size_t)want.n), 0); /* all of it, in order */
	ck_assert_int_eq(memcmp(m + want.n / 2, want.b + want.n / 2, 100), 0); /* and back */
	ck_assert_uint_ge(gz_view_made(v), (want.n + GZ_CHUNK - 1) / GZ_CHUNK + 2);
	ck_assert_uint_eq(gz_view_bad(v), 0);
	gz_view_free(v);
	/* the third member's deflate data damaged: its chunks read as zeros */
	uint8_t *bad = xmalloc(gz.n);
	memcpy(bad, gz.b, gz.n);
	const struct gz_member *m3 = &copy.m[2];
	memset(bad + m3->comp_off + m3->comp_len / 2, 0x55, 64);
	v = gz_view_new(bad, gz.n, &copy, 4);
	ck_assert_ptr_nonnull(v);
	m = gz_view_map(v);
	uint64_t from = (m3->raw_off + m3->raw_len / 2) / GZ_CHUNK * GZ_CHUNK, nz = 0, wnz = 0;
	for (uint64_t k = from; k < from + GZ_CHUNK && k < want.n; k++)
		nz += m[k] != 0, wnz += want.b[k] != 0;
	ck_assert_uint_eq(nz, 0);
	ck_assert_uint_gt(wnz, 1000);
	ck_assert_uint_eq(gz_view_bad(v), 1);
	ck_assert_int_eq(memcmp(m, want.b, 4096), 0); /* the first member's chunk is right */
	gz_view_free(v);
	free(bad);
	sbuf_free(&pk);
	warn_free(&w);
	sbuf_free(&err);
	free(gz.b);
	free(want.b);
}
END_TEST

static void add_crc(struct sbuf *sb)
{
	uLong crc = crc32(0, (const Bytef *)sb->buf, (uInt)sb->len);

	for (int k = 0; k < 4; k++)
		sbuf_addc(sb, (char)(crc >> (8 * k)));
}

/* A pack by hand: members (comp, raw) and the raw size claimed. */
static int unpack_made(int single, uint64_t raw, const uint64_t *mem, size_t n)
{
	struct sbuf sb;
	struct gz_index idx;

	sbuf_init(&sb);
	sbuf_add(&sb, "GZIX\1", 5);
	sbuf_addc(&sb, (char)single);
	sbuf_addc(&sb, (char)n); /* small numbers: one byte each */
	sbuf_addc(&sb, (char)raw);
	for (size_t i = 0; i < 2 * n; i++)
		sbuf_addc(&sb, (char)mem[i]);
	add_crc(&sb);
	int rc = gz_index_unpack((const uint8_t *)sb.buf, sb.len, &idx);
	if (rc == 0) {
		ck_assert_uint_eq(idx.n, n);
		ck_assert_uint_eq(idx.raw_size, raw);
	}
	gz_index_free(&idx);
	sbuf_free(&sb);
	return rc;
}

/* The packed index comes back as it was; a damaged or inconsistent one
 * does not. */
START_TEST(pack_round_trip)
{
	struct gz_index idx, back;
	struct expect e;
	struct warnings w;
	struct sbuf err, pk;

	gz_dumps();
	struct file gz = slurp(GZDIR "/jdk.hprof.gz"), want = slurp(GZDIR "/jdk.gunzip");
	ck_assert_int_eq(inflate_expect("jdk.hprof.gz", gz.b, gz.n, &want, &idx, &e, &w, &err), 0);
	sbuf_init(&pk);
	gz_index_pack(&idx, &pk);
	ck_assert(pk.len < idx.n * 12 + 32); /* compact */
	ck_assert_int_eq(gz_index_unpack((const uint8_t *)pk.buf, pk.len, &back), 0);
	ck_assert(back.n == idx.n && back.raw_size == idx.raw_size && back.single == idx.single);
	ck_assert(memcmp(back.m, idx.m, idx.n * sizeof *idx.m) == 0);
	gz_index_free(&back);
	for (size_t i = 0; i < pk.len; i++) { /* every byte flipped */
		pk.buf[i] ^= 0x21;
		ck_assert_msg(gz_index_unpack((const uint8_t *)pk.buf, pk.len, &back) == -1,
			      "byte %zu flipped: accepted", i);
		ck_assert(back.n == 0 && back.m == NULL);
		pk.buf[i] ^= 0x21;
	}
	for (size_t cut = 0; cut < pk.len; cut += 1 + cut / 3)
		ck_assert_int_eq(gz_index_unpack((const uint8_t *)pk.buf, cut, &back), -1);
	sbuf_addc(&pk, 0);
	ck_assert_int_eq(gz_index_unpack((const uint8_t *)pk.buf, pk.len, &back), -1);
	/* consistent checksums around inconsistent members */
	ck_assert_int_eq(unpack_made(0, 9, (const uint64_t[]){ 30, 4, 30, 5 }, 2), 0);
	ck_assert_int_eq(unpack_made(0, 10, (const uint64_t[]){ 30, 4, 30, 5 }, 2), -1); /* sum */
	ck_assert_int_eq(unpack_made(1, 9, (const uint64_t[]){ 30, 4, 30, 5 }, 2), -1);  /* single */
	ck_assert_int_eq(unpack_made(0, 9, (const uint64_t[]){ 0, 4, 30, 5 }, 2), -1);   /* empty */
	ck_assert_int_eq(unpack_made(1, 0, NULL, 0), -1);				 /* none */
	ck_assert_int_eq(unpack_made(1, 100, (const uint64_t[]){ 20, 100 }, 1), 0);
	ck_assert_int_eq(gz_index_unpack((const uint8_t *)"GZIX\1\0", 6, &back), -1);
	gz_index_free(&idx);
	warn_free(&w);
	sbuf_free(&err);
	sbuf_free(&pk);
	free(gz.b);
	free(want.b);
}
END_TEST

/* gz_inflate of the JDK file damaged: the members before the damage,
 * a warning naming the damaged member's offset. */
static void ck_damaged(const char *label, const uint8_t *gz, uint64_t n, const struct file *want,
		       const struct gz_index *full, size_t k, const char *what)
{
	struct gz_index idx;
	struct expect e;
	struct warnings w;
	struct sbuf err;

	ck_assert_msg(inflate_expect("jdk.hprof.gz", gz, n, want, &idx, &e, &w, &err) == 0, "%s: %s",
		      label, err.buf);
	ck_assert_msg(idx.n == k, "%s: %zu members, not %zu", label, idx.n, k);
	ck_assert_msg(!e.differs && e.pos == full->m[k].raw_off, "%s: %llu bytes", label,
		      (unsigned long long)e.pos);
	ck_tiles(&idx, full->m[k].comp_off);
	ck_assert_msg(warned(&w, what, full->m[k].comp_off), "%s: no warning \"%s\"", label, what);
	ck_assert_msg(strstr(w.msg[0], "jdk.hprof.gz: offset ") == w.msg[0], "%s", w.msg[0]);
	gz_index_free(&idx);
	warn_free(&w);
	sbuf_free(&err);
}

/* gz_inflate of the JDK file cut inside member k, its last then: the
 * members before it and what member k gives up to the cut (all of its
 * data where only its trailer is cut), a warning naming its offset. */
static void ck_cut(const char *label, const uint8_t *gz, uint64_t n, const struct file *want,
		   const struct gz_index *full, size_t k, int whole)
{
	struct gz_index idx;
	struct expect e;
	struct warnings w;
	struct sbuf err;
	uint64_t from = full->m[k].raw_off, to = from + full->m[k].raw_len;

	ck_assert_msg(inflate_expect("jdk.hprof.gz", gz, n, want, &idx, &e, &w, &err) == 0, "%s: %s",
		      label, err.buf);
	ck_assert_msg(idx.n == k + 1, "%s: %zu members, not %zu", label, idx.n, k + 1);
	ck_assert_msg(!e.differs && e.pos > from && e.pos <= to && (!whole || e.pos == to),
		      "%s: %llu bytes, member %zu being %llu..%llu", label, (unsigned long long)e.pos, k,
		      (unsigned long long)from, (unsigned long long)to);
	ck_tiles(&idx, n);
	char *gave = xasprintf("truncated member (the file ends inside it); reading the %llu bytes it gave",
			       (unsigned long long)(e.pos - from));
	ck_assert_msg(warned(&w, gave, full->m[k].comp_off), "%s: no warning \"%s\"", label, gave);
	free(gave);
	gz_index_free(&idx);
	warn_free(&w);
	sbuf_free(&err);
}

/* gz_inflate fails: one line naming the file. */
static void ck_fails(const char *path, const uint8_t *gz, uint64_t n, const char *what)
{
	struct gz_index idx;
	struct expect e;
	struct warnings w;
	struct sbuf err;
	struct file none = { NULL, 0 };

	ck_assert_int_eq(inflate_expect(path, gz, n, &none, &idx, &e, &w, &err), -1);
	ck_assert_msg(strstr(err.buf, what) != NULL && strchr(err.buf, '\n') == NULL, "%s", err.buf);
	/* the file's name escaped */
	ck_assert_msg(strncmp(err.buf, "bad\\x1bname.gz: offset 0 (compressed): ", 39) == 0, "%s", err.buf);
	ck_assert_uint_eq(e.pos, 0);
	gz_index_free(&idx);
	warn_free(&w);
	sbuf_free(&err);
}

START_TEST(damaged)
{
	struct gz_index full;
	struct expect e;
	struct warnings w;
	struct sbuf err;

	gz_dumps();
	struct file gz = slurp(GZDIR "/jdk.hprof.gz"), want = slurp(GZDIR "/jdk.gunzip");
	ck_assert_int_eq(inflate_expect("jdk.hprof.gz", gz.b, gz.n, &want, &full, &e, &w, &err), 0);
	ck_assert(full.n >= 3);
	size_t k = full.n / 2;
	const struct gz_member *m = &full.m[k];
	ck_damaged("cut in the header", gz.b, m->comp_off + 5, &want, &full, k, "truncated member header");
	/* a member cut by the file's end gives what it holds before the
	 * cut: nothing follows it (the JDK's last member missing its last
	 * byte lost 46% of the objects) */
	ck_cut("cut in the data", gz.b, m->comp_off + m->comp_len / 2, &want, &full, k, 0);
	ck_cut("cut in the trailer", gz.b, m->comp_off + m->comp_len - 3, &want, &full, k, 1);
	ck_cut("last byte cut", gz.b, gz.n - 1, &want, &full, full.n - 1, 1);
	gz.b[m->comp_off + m->comp_len - 6] ^= 1; /* in the CRC-32 */
	ck_damaged("CRC flipped", gz.b, gz.n, &want, &full, k, "CRC-32 mismatch");
	gz.b[m->comp_off + m->comp_len - 6] ^= 1;
	gz.b[m->comp_off + m->comp_len / 2] ^= 0x10; /* in the deflate data */
	ck_damaged("data flipped", gz.b, gz.n, &want, &full, k, NULL);
	gz.b[m->comp_off + m->comp_len / 2] ^= 0x10;
	gz.b[m->comp_off + 3] = 0xe0; /* reserved flags */
	ck_damaged("reserved flags", gz.b, gz.n, &want, &full, k, "reserved header flags");

	ck_fails("bad\x1bname.gz", gz.b, 0, "not a gzip file");
	ck_fails("bad\x1bname.gz", (const uint8_t *)"\x1f\x8c\x08\0\0\0\0\0\0\0\3\0", 12, "not a gzip file");
	ck_fails("bad\x1bname.gz", (const uint8_t *)"PK\3\4", 4, "not a gzip file");
	ck_fails("bad\x1bname.gz", gz.b, 7, "truncated member header");
	/* the header of the first member and nothing else */
	ck_fails("bad\x1bname.gz", gz.b, 10 + sizeof "HPROF BLOCKSIZE=1048576", "truncated member");
	ck_assert(gz.b[3] == 0x10); /* that header has a comment, which the cut above ends */
	gz_index_free(&full);
	warn_free(&w);
	sbuf_free(&err);
	free(gz.b);
	free(want.b);
}
END_TEST

/* After the last member: zero padding and other bytes are ignored with
 * a warning at their offset. */
START_TEST(trailing_bytes)
{
	struct gz_index idx;
	struct expect e;
	struct warnings w;
	struct sbuf err;

	gz_dumps();
	struct file gz = slurp(GZDIR "/jdk.hprof.gz"), want = slurp(GZDIR "/jdk.gunzip");
	static const struct { const char *tail; size_t n; const char *what; } t[] = {
		{ "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 32, "zero padding" },
		{ "garbage after the members", 25, "not a gzip member" },
		{ "\x1f", 1, "not a gzip member" },
		{ "\0\0\0\0x", 5, "not a gzip member" },
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		uint8_t *b = xmalloc((size_t)gz.n + t[i].n);
		memcpy(b, gz.b, (size_t)gz.n);
		memcpy(b + gz.n, t[i].tail, t[i].n);
		ck_assert_int_eq(inflate_expect("jdk.hprof.gz", b, gz.n + t[i].n, &want, &idx, &e, &w, &err), 0);
		ck_assert_msg(!e.differs && e.pos == want.n, "tail %zu", i);
		ck_tiles(&idx, gz.n);
		ck_assert_uint_eq(w.n, 1);
		ck_assert_msg(warned(&w, t[i].what, gz.n), "tail %zu", i);
		gz_index_free(&idx);
		warn_free(&w);
		sbuf_free(&err);
		free(b);
	}
	free(gz.b);
	free(want.b);
}
END_TEST

/* `gzip -n` of text: a member with a bare 10-byte header (caller frees). */
static struct file gzip_text(const char *text)
{
	char *in = xasprintf("%s/text", hw_tmpdir()), *out = xasprintf("%s/text.gz", hw_tmpdir());
	char *cmd = xasprintf("gzip -n -c '%s' > '%s'", in, out);

	put_file(in, text, strlen(text));
	ck_assert(system(cmd) == 0);
	struct file f = slurp(out);
	ck_assert(f.n > 18 && f.b[3] == 0);
	free(in);
	free(out);
	free(cmd);
	return f;
}

/* Member a's header rewritten with every optional field: FEXTRA, FNAME,
 * FCOMMENT and FHCRC (right, or wrong with bad_hcrc). */
static void add_rich_member(struct sbuf *sb, const struct file *a, int bad_hcrc)
{
	size_t start = sb->len;

	sbuf_add(sb, "\x1f\x8b\x08\x1e\0\0\0\0\0\3", 10);
	sbuf_add(sb, "\x08\0AB\x04\0xyzw", 10); /* XLEN 8: subfield "AB", 4 bytes */
	sbuf_add(sb, "name.hprof", 11);
	sbuf_add(sb, "a comment", 10);
	uLong crc = crc32(0, (const Bytef *)sb->buf + start, (uInt)(sb->len - start)) ^ (bad_hcrc ? 1 : 0);
	sbuf_addc(sb, (char)(crc & 0xff));
	sbuf_addc(sb, (char)(crc >> 8 & 0xff));
	sbuf_add(sb, (const char *)a->b + 10, (size_t)a->n - 10);
}

/* Members of other writers: every header field, an empty member, many
 * concatenated; a wrong header CRC stops at that member. */
START_TEST(header_fields)
{
	struct gz_index idx;
	struct expect e;
	struct warnings w;
	struct sbuf err, sb;
	const char *ta = "first member's text\n", *tb = "and the second's\n";
	struct file a = gzip_text(ta), b = gzip_text(tb), z = gzip_text("");
	struct file want;

	sbuf_init(&sb);
	add_rich_member(&sb, &a, 0);
	size_t a_end = sb.len;
	sbuf_add(&sb, (const char *)z.b, (size_t)z.n);
	sbuf_add(&sb, (const char *)b.b, (size_t)b.n);
	char *text = xasprintf("%s%s", ta, tb);
	want.b = (uint8_t *)text;
	want.n = strlen(text);
	ck_assert_int_eq(inflate_expect("cat.gz", (const uint8_t *)sb.buf, sb.len, &want, &idx, &e, &w, &err), 0);
	ck_assert_msg(!e.differs && e.pos == want.n, "%llu bytes", (unsigned long long)e.pos);
	ck_assert_uint_eq(w.n, 0);
	ck_assert_uint_eq(idx.n, 3);
	ck_assert(idx.m[1].comp_off == a_end && idx.m[1].raw_len == 0);
	ck_tiles(&idx, sb.len);
	/* empty members start where the next does: reads still land right */
	struct gz_reader *r = gz_reader_new((const uint8_t *)sb.buf, sb.len, &idx, 1);
	ck_assert_ptr_nonnull(r);
	for (uint64_t off = 0; off < want.n; off++) {
		const uint8_t *p = gz_read(r, off, want.n - off);
		ck_assert(p != NULL && memcmp(p, want.b + off, (size_t)(want.n - off)) == 0);
	}
	gz_reader_free(r);
	gz_index_free(&idx);
	warn_free(&w);
	sbuf_free(&err);

	/* independently: gzip reads the same bytes */
	char *f = xasprintf("%s/cat.gz", hw_tmpdir()), *cmd = xasprintf("gzip -dc '%s'", f);
	put_file(f, sb.buf, sb.len);
	int status;
	char *out = run(cmd, &status);
	ck_assert(status == 0 && strcmp(out, text) == 0);
	free(out);

	sb.len = a_end;
	add_rich_member(&sb, &b, 1);
	want.n = strlen(ta);
	ck_assert_int_eq(inflate_expect("cat.gz", (const uint8_t *)sb.buf, sb.len, &want, &idx, &e, &w, &err), 0);
	ck_assert(!e.differs && e.pos == want.n && idx.n == 1);
	ck_assert(warned(&w, "header CRC mismatch", a_end));
	gz_index_free(&idx);
	warn_free(&w);
	sbuf_free(&err);
	sbuf_free(&sb);
	free(f);
	free(cmd);
	free(text);
	free(a.b);
	free(b.b);
	free(z.b);
}
END_TEST

static int exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

/* Files of this process limited to 1 MiB (as a full disk would stop
 * them), SIGXFSZ ignored; and back. */
struct fsize_limit {
	struct rlimit old;
	void (*was)(int);
};

static struct fsize_limit limit_fsize(void)
{
	struct fsize_limit fl;
	struct rlimit lim;

	ck_assert(getrlimit(RLIMIT_FSIZE, &fl.old) == 0);
	lim = fl.old;
	lim.rlim_cur = 1 << 20;
	fl.was = signal(SIGXFSZ, SIG_IGN);
	ck_assert(setrlimit(RLIMIT_FSIZE, &lim) == 0);
	return fl;
}

static void unlimit_fsize(const struct fsize_limit *fl)
{
	ck_assert(setrlimit(RLIMIT_FSIZE, &fl->old) == 0);
	signal(SIGXFSZ, fl->was);
}

/* gz_inflate_to_file of gz[0..n) into out_path, through a temporary
 * file "out_path.tmp.XXXXXX", at most limit bytes. */
static int into_file(const char *name, const uint8_t *gz, uint64_t n, const char *out_path, uint64_t limit,
		   struct gz_index *idx, struct warnings *w, struct sbuf *err)
{
	struct gz_out out = { .file = xasprintf("%s.tmp.XXXXXX", out_path), .rename_to = out_path, .limit = limit };
	int rc = gz_inflate_to_file(name, gz, n, &out, idx, NULL, w, err);

	free(out.file);
	return rc;
}

/* No temporary file of out_path ("out_path.tmp.XXXXXX") is left. */
static void no_tmp_left(const char *out_path)
{
	int st;
	char *cmd = xasprintf("ls -A \"$(dirname '%s')\" 2>/dev/null | grep -c \"^$(basename '%s')\\.tmp\\.\" || true",
			      out_path, out_path);
	char *n = run(cmd, &st);

	ck_assert_msg(strcmp(n, "0\n") == 0, "%s: %s", cmd, n);
	free(n);
	free(cmd);
}

/* gz_inflate_to_file of gz into out: fails with one line naming what
 * (and `where`), leaving neither the file nor its temporary. */
static void ck_to_file_fails(const struct file *gz, const char *out, uint64_t limit, const char *where,
			     const char *what)
{
	struct gz_index idx;
	struct warnings w = { .quiet = 1 };
	struct sbuf err;

	sbuf_init(&err);
	ck_assert_int_eq(into_file("jdk.hprof.gz", gz->b, gz->n, out, limit, &idx, &w, &err), -1);
	ck_assert_msg(strstr(err.buf, where) != NULL && strstr(err.buf, what) != NULL, "%s", err.buf);
	ck_assert_msg(strchr(err.buf, '\n') == NULL, "%s", err.buf);
	ck_assert(!exists(out));
	no_tmp_left(out);
	gz_index_free(&idx);
	warn_free(&w);
	sbuf_free(&err);
}

START_TEST(to_file)
{
	struct gz_index idx;
	struct warnings w = { .quiet = 1 };
	struct sbuf err;
	struct stat st;

	gz_dumps();
	struct file gz = slurp(GZDIR "/jdk.hprof.gz"), want = slurp(GZDIR "/jdk.gunzip");
	char *out = xasprintf("%s/out.hprof", hw_tmpdir()), *tmp = xasprintf("%s.tmp", out);
	char *victim = xasprintf("%s/victim", hw_tmpdir());
	/* a link left at the temporary name of old is left alone, not followed */
	put_file(victim, "keep", 4);
	ck_assert(symlink(victim, tmp) == 0);
	sbuf_init(&err);
	ck_assert_msg(into_file("jdk.hprof.gz", gz.b, gz.n, out, UINT64_MAX, &idx, &w, &err) == 0, "%s", err.buf);
	struct file got = slurp(out);
	ck_assert(got.n == want.n && memcmp(got.b, want.b, (size_t)want.n) == 0);
	ck_assert(idx.n > 1 && idx.raw_size == want.n);
	ck_assert(stat(out, &st) == 0 && (st.st_mode & 0777) == 0600);
	no_tmp_left(out);
	ck_assert(lstat(tmp, &st) == 0 && S_ISLNK(st.st_mode));
	unlink(tmp);
	struct file v = slurp(victim);
	ck_assert(v.n == 4 && memcmp(v.b, "keep", 4) == 0);
	free(v.b);
	free(got.b);
	gz_index_free(&idx);
	unlink(out);

	/* a directory that is not there, or not writable */
	char *missing = xasprintf("%s/no/such/dir/out.hprof", hw_tmpdir());
	ck_to_file_fails(&gz, missing, UINT64_MAX, missing, "cannot create");
	char *ro = xasprintf("%s/ro", hw_tmpdir()), *ro_out = xasprintf("%s/ro/out.hprof", hw_tmpdir());
	ck_assert(mkdir(ro, 0500) == 0);
	if (geteuid() != 0) /* root writes anyway */
		ck_to_file_fails(&gz, ro_out, UINT64_MAX, ro_out, "cannot create");

	/* a write that fails part way (a file size limit, as a full disk
	 * would): the temporary goes */
	struct fsize_limit fl = limit_fsize();
	ck_to_file_fails(&gz, out, UINT64_MAX, out, "cannot write");
	unlimit_fsize(&fl);
	/* more than may be written (the free space): stopped there, the
	 * members' trailers not knowing the whole */
	char *no_room = xasprintf("jdk.hprof.gz: the inflated copy needs more than 1 MB; 1 MB free in %s", hw_tmpdir());
	ck_to_file_fails(&gz, out, (uint64_t)1 << 20, no_room, "");
	free(no_room);

	warn_free(&w);
	sbuf_free(&err);
	free(missing);
	free(ro);
	free(ro_out);
	free(out);
	free(tmp);
	free(victim);
	free(gz.b);
	free(want.b);
}
END_TEST

static int collect(void *arg, const uint8_t *data, size_t len)
{
	sbuf_add(arg, (const char *)data, len);
	return 0;
}

/* out_path holds exactly want? */
static void ck_file_is(const char *out_path, const uint8_t *want, uint64_t n, const char *label)
{
	struct file got = slurp(out_path);

	ck_assert_msg(got.n == n && memcmp(got.b, want, (size_t)n) == 0, "%s: %llu bytes, not the %llu wanted",
		      label, (unsigned long long)got.n, (unsigned long long)n);
	free(got.b);
}

/* Into a file, a plain gzip file of one large member (inflated whole,
 * into the mapped output): the bytes gzip compressed; a file whose
 * last member is large but not its only one, and a damaged large
 * member, are read in order as before (the same bytes, the same
 * warning); a size limit fails cleanly, leaving nothing. */
START_TEST(to_file_whole)
{
	struct gz_index idx;
	struct warnings w = { .quiet = 1 };
	struct sbuf err;
	struct file raw, gz;
	char *out = xasprintf("%s/whole.hprof", hw_tmpdir());

	gz_dumps();
	struct file plain = slurp(GZDIR "/plain.hprof");
	big_file(GZDIR "/plain.hprof", (int)(GZ_MEMBER_MAX / plain.n) + 2, "-1", &raw, &gz);
	free(plain.b);
	ck_assert(raw.n > GZ_MEMBER_MAX);
	sbuf_init(&err);
	ck_assert_msg(into_file("big.gz", gz.b, gz.n, out, UINT64_MAX, &idx, &w, &err) == 0, "%s", err.buf);
	ck_file_is(out, raw.b, raw.n, "one member");
	ck_assert(idx.single && idx.n == 1 && idx.raw_size == raw.n && idx.m[0].comp_len == gz.n);
	ck_assert_uint_eq(w.n, 0);
	gz_index_free(&idx);
	unlink(out);

	/* a small member first: the trailer's length is the large one's */
	struct file x = gzip_text("x");
	uint8_t *two = xmalloc((size_t)(x.n + gz.n));
	memcpy(two, x.b, (size_t)x.n);
	memcpy(two + x.n, gz.b, (size_t)gz.n);
	ck_assert(into_file("two.gz", two, x.n + gz.n, out, UINT64_MAX, &idx, &w, &err) == 0);
	struct file got = slurp(out);
	ck_assert(got.n == raw.n + 1 && got.b[0] == 'x' && memcmp(got.b + 1, raw.b, (size_t)raw.n) == 0);
	ck_assert(idx.n == 2 && !idx.single && idx.raw_size == raw.n + 1);
	free(got.b);
	gz_index_free(&idx);
	unlink(out);
	free(two);
	free(x.b);

	/* a byte damaged in the middle: the bytes and the warning reading
	 * in order gives (gz_inflate's) */
	gz.b[gz.n / 2] ^= 0x55;
	struct warnings w2 = { .quiet = 1 };
	struct gz_index idx2;
	struct sbuf err2, bytes;
	sbuf_init(&err2);
	sbuf_init(&bytes);
	int rc = gz_inflate("big.gz", gz.b, gz.n, &idx2, collect, &bytes, NULL, &w2, &err2);
	ck_assert_int_eq(into_file("big.gz", gz.b, gz.n, out, UINT64_MAX, &idx, &w, &err), rc);
	ck_assert_msg(w2.n > 0 && w.n == w2.n && strcmp(w.msg[0], w2.msg[0]) == 0, "%s", w2.n ? w2.msg[0] : "");
	if (rc == 0) {
		ck_file_is(out, (const uint8_t *)bytes.buf, bytes.len, "damaged");
		ck_assert(idx.raw_size == idx2.raw_size && idx.n == idx2.n);
	}
	gz_index_free(&idx);
	gz_index_free(&idx2);
	warn_free(&w2);
	sbuf_free(&err2);
	sbuf_free(&bytes);
	warn_free(&w);
	unlink(out);
	gz.b[gz.n / 2] ^= 0x55;

	/* the space for the output cannot be had: one line, no file */
	struct fsize_limit fl = limit_fsize();
	sbuf_reset(&err);
	ck_assert_int_eq(into_file("big.gz", gz.b, gz.n, out, UINT64_MAX, &idx, &w, &err), -1);
	unlimit_fsize(&fl);
	ck_assert_msg(strstr(err.buf, "cannot write") != NULL && strchr(err.buf, '\n') == NULL, "%s", err.buf);
	ck_assert(!exists(out));
	no_tmp_left(out);
	gz_index_free(&idx);
	/* more than the free space, as its trailer says: not a byte written */
	char *no_room = xasprintf("big.gz: the inflated copy needs %llu MB; 64 MB free in %s",
				  (unsigned long long)((raw.n + (1 << 20) - 1) >> 20), hw_tmpdir());
	sbuf_reset(&err);
	ck_assert_int_eq(into_file("big.gz", gz.b, gz.n, out, (uint64_t)64 << 20, &idx, &w, &err), -1);
	ck_assert_msg(strcmp(err.buf, no_room) == 0, "%s", err.buf);
	ck_assert(!exists(out));
	no_tmp_left(out);
	free(no_room);
	gz_index_free(&idx);
	warn_free(&w);
	sbuf_free(&err);
	free(raw.b);
	free(gz.b);
	free(out);
}
END_TEST

Suite *gz_suite(void)
{
	Suite *s = suite_create("gz");
	TCase *tc = tcase_create("gz");

	tcase_set_timeout(tc, FIXTURE_TIMEOUT);
	tcase_add_test(tc, jdk_members);
	tcase_add_test(tc, single_member);
	tcase_add_test(tc, single_member_streamed);
	tcase_add_test(tc, reader_random);
	tcase_add_test(tc, view_random);
	tcase_add_test(tc, pack_round_trip);
	tcase_add_test(tc, damaged);
	tcase_add_test(tc, trailing_bytes);
	tcase_add_test(tc, header_fields);
	tcase_add_test(tc, to_file);
	tcase_add_test(tc, to_file_whole);
	suite_add_tcase(s, tc);
	return s;
}
