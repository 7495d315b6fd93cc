/* test_cache.c — the index cache: a reopen from the cache gives the same
 * heap as a parse; a stale, truncated, corrupt or foreign cache is
 * ignored and rewritten; the cache gets the dump's permission bits and
 * no temporary file is left behind. */
#include <dirent.h>
#include <fcntl.h>
#include <lz4.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/hprof.h"
#include "graph/cache.h"
#include "engine/open.h"
#include "graph/open.h"
#include "graph/ownership.h"
#include "graph/resident.h"
#include "graph/store.h"
#include "hprofw.h"
#include "suites.h"
#include "util.h"

static char *dump;

static void make_dump(void)
{
	struct hw w;
	struct hw_sample s;

	hw_sample(&w, "JAVA PROFILE 1.0.2", 8, &s);
	dump = hw_write(&w, "cache.hprof", SIZE_MAX);
	hw_free(&w);
	char *c = cache_path(dump);
	unlink(c);
	free(c);
}

static void drop_dump(void)
{
	char *c = cache_path(dump);
	unlink(c);
	free(c);
	unlink(dump);
	free(dump);
}

static void open_heap(struct heap *h, int no_cache)
{
	struct open_opts o = { .no_cache = no_cache, .quiet = 1 };
	struct progress p;
	struct sbuf err;

	progress_init(&p, 1);
	sbuf_init(&err);
	ck_assert_msg(heap_open(h, dump, &o, &p, &err) == 0, "%s", err.buf);
	heap_need(h, HP_ALL, &p);
	sbuf_free(&err);
}

#define SAME(field, count) \
	ck_assert_msg(memcmp(a->field, b->field, (count) * sizeof *a->field) == 0, #field " differs")

static void same_heap(const struct heap *a, const struct heap *b)
{
	ck_assert_uint_eq(a->n, b->n);
	ck_assert_uint_eq(a->nedges, b->nedges);
	ck_assert_uint_eq(a->ncls, b->ncls);
	ck_assert_uint_eq(a->total_shallow, b->total_shallow);
	ck_assert_uint_eq(a->unreachable_count, b->unreachable_count);
	SAME(node_off, a->n);
	SAME(node_class, a->n);
	SAME(node_shallow, a->n);
	SAME(out_start, a->n + 1);
	SAME(out, a->nedges);
	SAME(in, a->nedges + a->nroots);
	SAME(idom, a->n);
	SAME(retained, a->n);
	SAME(roots, a->nroots);
	SAME(names, a->names_len);
	for (uint32_t c = 0; c < a->ncls; c++) {
		ck_assert_str_eq(class_name(a, c), class_name(b, c));
		ck_assert_uint_eq(a->cls[c].retained_lb, b->cls[c].retained_lb);
	}
	/* the same warnings, but for the one that says a cache was rebuilt */
	size_t nb = 0;
	for (size_t i = 0; i < b->warn.n; i++)
		nb += strstr(b->warn.msg[i], "the index cache is") == NULL;
	ck_assert_uint_eq(a->warn.n, nb);
}

static int reopen_from_cache(void)
{
	struct heap h;

	open_heap(&h, 0);
	int from = h.from_cache;
	heap_free(&h);
	return from;
}

START_TEST(test_round_trip)
{
	struct heap a, b, c;

	open_heap(&a, 1);
	open_heap(&b, 0); /* parses, writes the cache */
	ck_assert_int_eq(b.from_cache, 0);
	open_heap(&c, 0); /* reads it */
	ck_assert_int_eq(c.from_cache, 1);
	same_heap(&a, &b);
	same_heap(&a, &c);
	heap_free(&a);
	heap_free(&b);
	heap_free(&c);
}
END_TEST

/* The cache fuzzer's mutator: each section given to mutate as its
 * values. Mutated by nothing, the file (resealed) still opens from the
 * cache, the same heap as a parse; each section in turn is reached,
 * every value in it handed over (the mutator sees its whole first
 * chunk). With its first value changed, what loads differs or the
 * cache is refused, never the heap as it was with that part read. */
static size_t seen_n;
static size_t keep(uint8_t *p, size_t n, size_t max)
{
	(void)p;
	ck_assert_uint_eq(n, max);
	seen_n = n;
	return n;
}

static size_t bump(uint8_t *p, size_t n, size_t max)
{
	(void)max;
	p[0]++;
	return n;
}

/* A cache to forge: the dump parsed (a), the bytes of its cache as
 * written, and room for a section given to a mutator. */
struct forgery {
	struct heap a;
	char *path;
	uint8_t *orig, *buf;
	size_t len, max;
};

static void forgery_begin(struct forgery *f)
{
	struct heap b;

	open_heap(&f->a, 1);
	open_heap(&b, 0); /* writes the cache */
	heap_free(&b);
	f->path = cache_path(dump);
	f->orig = (uint8_t *)file_bytes(f->path, &f->len);
	ck_assert(f->orig != NULL && f->len > 0);
	f->max = 4 * f->len + 4 * STORE_CHUNK;
	f->buf = xmalloc(f->max);
}

/* Section `which` of the cache as written given to mutate, the file
 * resealed and put in the cache's place, and the dump opened (b). */
static void forged_open(struct forgery *f, unsigned which, size_t (*mutate)(uint8_t *p, size_t n, size_t max),
			struct heap *b)
{
	memcpy(f->buf, f->orig, f->len);
	size_t n = cache_mutate_section(f->buf, f->len, f->max, which, mutate);
	ck_assert_msg(n > f->len, "section %u: nothing done", which);
	ck_assert_int_eq(cache_reseal(f->buf, n, &f->a), 0);
	FILE *fp = fopen(f->path, "wb");
	ck_assert(fp != NULL && fwrite(f->buf, 1, n, fp) == n && fclose(fp) == 0);
	open_heap(b, 0);
}

static void forgery_end(struct forgery *f)
{
	free(f->buf);
	free(f->orig);
	free(f->path);
	heap_free(&f->a);
}

START_TEST(test_mutate_section)
{
	struct forgery f;
	struct heap b;
	size_t sections = 0;

	forgery_begin(&f);
	for (unsigned which = 0; which < 64; which++) {
		seen_n = 0;
		forged_open(&f, which, keep, &b);
		ck_assert_uint_gt(seen_n, 0);
		ck_assert_msg(b.from_cache == 1, "section %u: the cache, unchanged in value, was refused", which);
		same_heap(&f.a, &b);
		heap_free(&b);
		sections++;
	}
	/* a value changed: the names' first byte (a section that is read
	 * at open), never the same names */
	size_t changed = 0;
	for (unsigned which = 0; which < 64 && changed == 0; which++) {
		forged_open(&f, which, bump, &b);
		if (b.from_cache &&
		    (b.names_len != f.a.names_len || memcmp(b.names, f.a.names, f.a.names_len) != 0))
			changed++;
		heap_free(&b);
	}
	ck_assert_msg(changed == 1, "no section's change reached the names");
	ck_assert_uint_gt(sections, 0);
	forgery_end(&f);
}
END_TEST

/* Node 0, the virtual root, is no object: the builder never gives it a
 * reference, nor makes one to it (its successors are h->roots). A
 * forged cache whose first chunk of a section is all zeros (each
 * section in turn: values of 0 after the filter is undone) is refused,
 * or loads a heap that keeps that promise; before, zeroed references
 * loaded as references to node 0 (an object of no class to every view
 * that names a target's class). */
static size_t zero(uint8_t *p, size_t n, size_t max)
{
	(void)max;
	memset(p, 0, n);
	return n;
}

START_TEST(test_no_reference_to_root)
{
	struct forgery f;
	struct heap b;
	size_t loaded = 0;

	forgery_begin(&f);
	for (unsigned which = 0; which < 64; which++) {
		forged_open(&f, which, zero, &b); /* every part loaded */
		loaded += b.from_cache;
		ck_assert_msg(b.n < 2 || b.out_start[1] == 0, "section %u: node 0 has references", which);
		for (edge_t e = 0; e < b.nedges; e++)
			ck_assert_msg(b.out[e] != 0, "section %u: a reference to node 0", which);
		heap_free(&b);
	}
	ck_assert_uint_gt(loaded, 0);
	forgery_end(&f);
}
END_TEST

START_TEST(test_permissions_and_no_temp_left)
{
	struct stat st;

	chmod(dump, 0640);
	ck_assert_int_eq(reopen_from_cache(), 0);
	char *c = cache_path(dump);
	ck_assert_int_eq(stat(c, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0640);
	free(c);
	DIR *d = opendir(hw_tmpdir());
	struct dirent *e;
	while ((e = readdir(d)) != NULL)
		ck_assert_msg(strstr(e->d_name, ".tmp.") == NULL, "left behind: %s", e->d_name);
	closedir(d);
}
END_TEST

/* Analysing again (an analysis root, a reference left out: what the
 * browser and the root and ignore steps do) after an open, cold or from
 * the cache, parks its new arrays elsewhere: the cache on disk stays the
 * bytes it was, and the next open reads it. */
START_TEST(test_cache_not_written_after)
{
	size_t n0, n1;

	for (int cached = 0; cached < 2; cached++) {
		struct heap h;
		char *c = cache_path(dump);
		if (!cached)
			unlink(c);
		open_heap(&h, 0);
		ck_assert_int_eq(h.from_cache, cached);
		char *before = file_bytes(c, &n0);
		node_t root = h.roots[0];
		ck_assert_int_eq(heap_set_root(&h, root, NULL), 0);
		ck_assert_int_eq(heap_ignore(&h, h.in[h.in_start[root]], root, 1, NULL), 0);
		heap_park(&h, HP_ALL); /* and what was made anew waits elsewhere */
		heap_need(&h, HP_ALL, NULL);
		ck_assert_uint_eq(h.aroot, root);
		char *after = file_bytes(c, &n1);
		ck_assert_msg(n0 == n1 && memcmp(before, after, n0) == 0, "the cache changed under the heap");
		heap_free(&h);
		ck_assert_int_eq(reopen_from_cache(), 1);
		free(before);
		free(after);
		free(c);
	}
}
END_TEST

START_TEST(test_stale)
{
	struct timespec later[2] = { { 0, UTIME_OMIT }, { 2000000000, 0 } };

	ck_assert_int_eq(reopen_from_cache(), 0);
	ck_assert_int_eq(reopen_from_cache(), 1);
	utimensat(AT_FDCWD, dump, later, 0); /* the dump "changed" */
	ck_assert_int_eq(reopen_from_cache(), 0);
	ck_assert_int_eq(reopen_from_cache(), 1); /* and the cache was rewritten */
}
END_TEST

static void rewrite(const char *path, const char *bytes, size_t n)
{
	FILE *f = fopen(path, "wb");

	ck_assert(f != NULL);
	fwrite(bytes, 1, n, f);
	fclose(f);
}

START_TEST(test_truncated_corrupt_foreign)
{
	struct heap ref;
	size_t n;

	open_heap(&ref, 1);
	ck_assert_int_eq(reopen_from_cache(), 0);
	char *c = cache_path(dump);
	char *good = file_bytes(c, &n);
	ck_assert_uint_gt(n, 200);
	/* truncated at many lengths, and one byte flipped at many places:
	 * never trusted, always rebuilt to the same heap */
	for (size_t len = 0; len < n; len += n / 23 + 1) {
		rewrite(c, good, len);
		ck_assert_int_eq(reopen_from_cache(), 0);
	}
	for (size_t at = 0; at < n; at += n / 41 + 1) {
		good[at] ^= 0x5a;
		rewrite(c, good, n);
		good[at] ^= 0x5a;
		struct heap h;
		open_heap(&h, 0);
		ck_assert_msg(h.from_cache == 0, "a flipped byte at %zu went unnoticed", at);
		same_heap(&ref, &h);
		heap_free(&h);
	}
	rewrite(c, "not a cache at all, just text\n", 30);
	ck_assert_int_eq(reopen_from_cache(), 0);
	rewrite(c, good, n);
	ck_assert_int_eq(reopen_from_cache(), 1);
	free(good);
	free(c);
	heap_free(&ref);
}
END_TEST

/* A cache written by an earlier version (format CACHE_FORMAT - 1, with
 * a header otherwise valid) is not read, and the open rewrites it; the
 * same header with its own format and the checksum recomputed the same
 * way is read, so it is the format that was refused. */
static void forge_format(const char *path, const char *good, size_t n, uint32_t format)
{
	struct cache_header hd;
	char *copy = xmalloc(n);

	ck_assert_uint_ge(n, sizeof hd);
	memcpy(copy, good, n);
	memcpy(&hd, copy, sizeof hd);
	hd.format = format;
	hd.check = cache_checksum(&hd, offsetof(struct cache_header, check), 0);
	memcpy(copy, &hd, sizeof hd);
	rewrite(path, copy, n);
	free(copy);
}

static const char *load_why(void)
{
	struct heap h;
	struct sbuf err;
	const char *why = NULL;

	memset(&h, 0, sizeof h);
	h.fd = -1;
	sbuf_init(&err);
	ck_assert_msg(hprof_map(&h, dump, &err) == 0, "%s", err.buf);
	h.cache_file = cache_path(dump);
	if (cache_load(&h, 0, &why) == 0)
		why = NULL;
	heap_free(&h);
	sbuf_free(&err);
	return why;
}

START_TEST(test_old_format)
{
	size_t n;

	ck_assert_int_eq(reopen_from_cache(), 0);
	char *c = cache_path(dump);
	char *good = file_bytes(c, &n);
	forge_format(c, good, n, CACHE_FORMAT);
	ck_assert_ptr_null(load_why());
	forge_format(c, good, n, CACHE_FORMAT - 1);
	const char *why = load_why();
	ck_assert_ptr_nonnull(why);
	ck_assert_str_eq(why, "not a heapwalk cache of this version");
	ck_assert_int_eq(reopen_from_cache(), 0); /* rebuilt */
	ck_assert_int_eq(reopen_from_cache(), 1);
	free(good);
	free(c);
}
END_TEST

START_TEST(test_no_cache_option)
{
	struct heap h;
	struct stat st;
	char *c = cache_path(dump);

	open_heap(&h, 1);
	heap_free(&h);
	ck_assert_int_ne(stat(c, &st), 0); /* --no-cache writes nothing */
	free(c);
}
END_TEST

START_TEST(test_path_beside_dump)
{
	char *c = cache_path(dump);
	char *want = xasprintf("%s.hwi", dump);

	/* the test directory is writable, so the cache sits beside the dump
	 * (as root every directory is: the $XDG_CACHE_HOME fallback is not
	 * reachable from this test) */
	ck_assert_str_eq(c, want);
	free(c);
	free(want);
}
END_TEST

/* The graph loaded from the cache (the browser's first view that needs
 * it, seconds on millions of objects) is a phase of its own: "loading",
 * in bytes, the bytes told as they come; Esc (the progress cancelled)
 * stops it between parts, and the key is refused, not half done. */
struct seen { int calls, cancel; const char *phase, *unit; uint64_t total, done; };

static void tick(struct progress *p, uint64_t done)
{
	struct seen *s = p->tick_arg;

	s->calls++;
	s->phase = p->phase;
	s->unit = p->unit;
	s->total = p->total;
	s->done = done;
	if (s->cancel)
		p->cancelled = 1;
}

START_TEST(test_load_progress_and_cancel)
{
	struct heap h;
	struct open_opts o = { .quiet = 1 };
	struct progress p;
	struct sbuf err;
	struct seen s = { .cancel = 1 };

	sbuf_init(&err);
	open_heap(&h, 0); /* writes the cache */
	heap_free(&h);
	progress_init(&p, 1);
	ck_assert_msg(heap_open(&h, dump, &o, &p, &err) == 0, "%s", err.buf);
	ck_assert(h.from_cache);
	ck_assert(!cache_has(&h, HP_ALL));
	p.tick = tick;
	p.tick_arg = &s;
	ck_assert_int_eq(heap_try_need(&h, HP_ALL, &p, &err), -1);
	ck_assert_str_eq(err.buf, "cancelled");
	ck_assert(!cache_has(&h, HP_ALL)); /* not all: the rest when asked again */
	ck_assert_str_eq(s.phase, "loading");
	ck_assert_str_eq(s.unit, "MB");
	p.cancelled = 0;
	s = (struct seen){ 0 };
	sbuf_reset(&err);
	ck_assert_int_eq(heap_try_need(&h, HP_ALL, &p, &err), 0);
	ck_assert(cache_has(&h, HP_ALL));
	ck_assert_int_ge(s.calls, 1);
	ck_assert_msg(s.total > 0 && s.done > 0 && s.done <= s.total, "%llu of %llu bytes",
		      (unsigned long long)s.done, (unsigned long long)s.total);
	/* and the heap is the one a cold open makes */
	struct heap c;
	open_heap(&c, 1);
	same_heap(&c, &h);
	heap_free(&c);
	heap_free(&h);
	sbuf_free(&err);
}
END_TEST

/* The first chunk of section id as the file holds it, against the
 * filter's bytes made here, one element at a time, as the format says
 * (struct store_sect): the differences (the first from 0), zigzag, and
 * byte b of element i at b * m + i. So that a faster filter writes the
 * bytes of every cache written before it, not only bytes it reads back. */
static void ck_filter_bytes(const struct store *st, uint32_t id, const uint8_t *p, uint32_t elem, uint64_t count)
{
	const struct store_sect *sc = store_find(st, id);
	uint64_t raw = count * elem < STORE_CHUNK ? count * elem : STORE_CHUNK, m = raw / elem;
	uint32_t zlen;

	ck_assert(sc != NULL && sc->filter == STORE_DELTA);
	ck_assert_int_eq(pread(st->fd, &zlen, 4, (off_t)sc->off), 4);
	char *z = xmalloc(zlen + 1), *got = xmalloc(raw + 1), *want = xmalloc(raw + 1);
	ck_assert_int_eq(pread(st->fd, z, zlen, (off_t)sc->off + 4), (ssize_t)zlen);
	ck_assert_int_eq(LZ4_decompress_safe(z, got, (int)zlen, (int)raw + 1), (int)raw);
	uint64_t prev = 0;
	for (uint64_t i = 0; i < m; i++) {
		uint64_t x = 0, d, zz;
		memcpy(&x, p + i * elem, elem);
		d = x - prev;
		prev = x;
		if (elem == 4)
			zz = (uint32_t)((uint32_t)d << 1 ^ (uint32_t)-((uint32_t)d >> 31));
		else
			zz = d << 1 ^ (uint64_t)-(d >> 63);
		for (unsigned b = 0; b < elem; b++)
			want[b * m + i] = (char)(zz >> (8 * b));
	}
	for (uint64_t i = 0; i < raw; i++)
		ck_assert_msg(got[i] == want[i], "elem %u, %llu elements: filtered byte %llu (plane %llu) is %u, not %u",
			      elem, (unsigned long long)count, (unsigned long long)i, (unsigned long long)(i / m),
			      (uint8_t)got[i], (uint8_t)want[i]);
	free(z);
	free(got);
	free(want);
}

/* The store's filter for 4- and 8-byte integers (differences, zigzag,
 * bytes by plane, done block by block) on arrays of lengths around its
 * blocks and chunks and around the sixteen its reader takes at a time,
 * with differences of every size and sign (wrapping too): each read
 * back must be the array written, byte for byte, and the bytes written
 * those of the format. */
START_TEST(test_store_filter_round_trip)
{
	static const uint64_t lens[] = { 0, 1, 2, 3, 7, 15, 16, 17, 31, 33, 2047, 2048, 2049, 4095, 4096, 4097, 5 * 2048 + 7,
					 STORE_CHUNK / 4 + 3001, STORE_CHUNK / 8 + 2049 };
	uint64_t seed = 0x9e3779b97f4a7c15ull;

	for (int scratch = 0; scratch <= 1; scratch++) {
		FILE *f = tmpfile();
		struct store st;
		ck_assert(f != NULL);
		store_init(&st, fileno(f), 64);
		st.scratch = scratch;
		void *a[2][sizeof lens / sizeof *lens];
		for (int w = 0; w < 2; w++)
			for (size_t k = 0; k < sizeof lens / sizeof *lens; k++) {
				uint32_t elem = w ? 8 : 4;
				uint8_t *p = xmalloc(lens[k] * elem + 1);
				uint64_t v = 0;
				for (uint64_t i = 0; i < lens[k]; i++) {
					seed = seed * 6364136223846793005ull + 1442695040888963407ull;
					/* mostly small steps up, some down, some anywhere */
					switch ((seed >> 60) & 3) {
					case 0: v += (seed >> 40) & 0xff; break;
					case 1: v -= (seed >> 44) & 0xfff; break;
					case 2: v = seed; break;
					default: v += 1; break;
					}
					if (elem == 4) {
						uint32_t x = (uint32_t)v;
						memcpy(p + i * 4, &x, 4);
					} else {
						memcpy(p + i * 8, &v, 8);
					}
				}
				a[w][k] = p;
				ck_assert_int_eq(store_put(&st, (uint32_t)(w * 100 + k + 1), p, elem, lens[k]), 0);
				if (lens[k] > 0)
					ck_filter_bytes(&st, (uint32_t)(w * 100 + k + 1), p, elem, lens[k]);
			}
		for (int w = 0; w < 2; w++)
			for (size_t k = 0; k < sizeof lens / sizeof *lens; k++) {
				uint32_t elem = w ? 8 : 4;
				void *back = store_get(&st, (uint32_t)(w * 100 + k + 1), elem, lens[k]);
				ck_assert_msg(back != NULL, "elem %u, %llu elements: not read back", elem,
					      (unsigned long long)lens[k]);
				ck_assert_msg(memcmp(back, a[w][k], lens[k] * elem) == 0,
					      "elem %u, %llu elements (scratch %d): read back otherwise", elem,
					      (unsigned long long)lens[k], scratch);
				free(back);
				free(a[w][k]);
			}
		store_free(&st);
		fclose(f);
	}
}
END_TEST

/* A section written piece by piece (store_write: a few bytes at a time
 * and runs of hundreds of KB, across the quarters of the chunk the
 * writer makes as it fills, and across whole chunks) reads back as the
 * bytes given, whole and chunk by chunk; sections of a store_put before
 * and after it keep to their own bytes. */
START_TEST(test_store_writer_pieces)
{
	static const uint64_t sizes[] = { 0, 1, 4, 64 << 10, (64 << 10) + 4, STORE_CHUNK - 4, STORE_CHUNK,
					  STORE_CHUNK + 4, 3 * STORE_CHUNK + 1000 };
	uint32_t r = 7;
	FILE *f = tmpfile();
	struct store st;

	ck_assert(f != NULL);
	store_init(&st, fileno(f), 64);
	uint8_t fill[4096];
	memset(fill, 0x5a, sizeof fill);
	ck_assert_int_eq(store_put(&st, 1000, fill, 1, sizeof fill), 0);
	for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
		size_t n = (size_t)sizes[k];
		uint8_t *a = xmalloc(n + 1);
		for (size_t i = 0; i < n; i++)
			a[i] = (uint8_t)(i * 7 + k + (i >> 12));
		struct store_writer w;
		store_begin(&st, &w, (uint32_t)(k + 1), 1);
		for (size_t at = 0; at < n;) { /* cut at random: short pieces and long ones */
			r = r * 1103515245u + 12345u;
			size_t m = (r >> 4) % ((r >> 30) & 1 ? 9 : 300000);
			m = m < n - at ? m : n - at;
			store_write(&w, a + at, m);
			at += m;
		}
		ck_assert_int_eq(store_end(&w), 0);
		ck_assert_int_eq(store_put(&st, (uint32_t)(k + 2000), fill, 1, sizeof fill), 0);
		uint8_t *back = store_get(&st, (uint32_t)(k + 1), 1, n);
		ck_assert_msg(back != NULL && memcmp(back, a, n) == 0, "%zu bytes: read back otherwise", n);
		free(back);
		struct store_reader rd;
		const void *c;
		size_t got = 0, cn;
		ck_assert_int_eq(store_reader_open(&rd, &st, (uint32_t)(k + 1), 0), 0);
		while ((c = store_read(&rd, &cn)) != NULL) {
			ck_assert_msg(got + cn <= n && memcmp(c, a + got, cn) == 0, "%zu bytes: the chunk at %zu otherwise",
				      n, got);
			got += cn;
		}
		ck_assert_int_eq(store_reader_end(&rd), 0);
		ck_assert_uint_eq(got, n);
		free(a);
	}
	for (size_t k = 0; k <= sizeof sizes / sizeof *sizes; k++) {
		uint8_t *back = store_get(&st, k == 0 ? 1000 : (uint32_t)(k - 1 + 2000), 1, sizeof fill);
		ck_assert_msg(back != NULL && memcmp(back, fill, sizeof fill) == 0, "the put section %zu otherwise", k);
		free(back);
	}
	store_free(&st);
	fclose(f);
}
END_TEST

/* A section put while a writer is open would take the writer's bytes
 * (each writes from where the file ended): refused, the program ended
 * (exit 3), not the bytes of one written over the other's. */
START_TEST(test_store_put_while_writing)
{
	FILE *f = tmpfile();
	struct store st;
	struct store_writer w;
	uint8_t b[64] = { 1 };

	ck_assert(f != NULL);
	store_init(&st, fileno(f), 64);
	store_begin(&st, &w, 1, 1);
	store_write(&w, b, sizeof b);
	if (_i == 0)
		store_put(&st, 2, b, 1, sizeof b);
	else
		store_begin(&st, &w, 3, 1);
	ck_abort_msg("not refused");
}
END_TEST

/* Work on a heap cut short while it wrote a section to the scratch
 * file (the browser goes on after a refusal or a SIGBUS, siglongjmp out
 * of the work): heap_unwound lets that writer go, and the next section
 * there is written and read back, not refused as written over it. */
START_TEST(test_unwound_writer)
{
	struct heap h;
	uint8_t b[256];

	for (size_t i = 0; i < sizeof b; i++)
		b[i] = (uint8_t)(i * 7 + 1);
	open_heap(&h, 0);
	struct store *st = heap_scratch(&h);
	ck_assert_ptr_nonnull(st);
	struct store_writer w;
	store_begin(st, &w, STORE_SCRATCH + 900, 1);
	store_write(&w, b, sizeof b);
	h.busy++; /* as the cut-short work had it, and never ended */
	heap_unwound(&h);
	ck_assert_int_eq(h.busy, 0);
	free(w.buf);
	ck_assert_int_eq(store_put(st, STORE_SCRATCH + 901, b, 1, sizeof b), 0);
	uint8_t *back = store_get(st, STORE_SCRATCH + 901, 1, sizeof b);
	ck_assert(back != NULL && memcmp(back, b, sizeof b) == 0);
	ck_assert_ptr_null(store_find(st, STORE_SCRATCH + 900));
	free(back);
	store_drop(st, STORE_SCRATCH + 901);
	heap_free(&h);
}
END_TEST

/* A store's table read back from a file (a cache a user could have
 * written): a section whose raw size could not come out of its
 * compressed bytes (each chunk holds STORE_CHUNK bytes at most behind a
 * 4-byte length, and LZ4 makes no byte of more than 255) is refused
 * when the table is read, before a reader makes an array of the size it
 * claims; the true table, and one at the bound, are taken. */
START_TEST(test_store_table_bounds)
{
	FILE *f = tmpfile();
	struct store st, rd;
	size_t len = 2 * STORE_CHUNK + 5, n;
	char *p = xmalloc(len);

	ck_assert(f != NULL);
	for (size_t i = 0; i < len; i++)
		p[i] = (char)(i * 2654435761u >> 13);
	store_init(&st, fileno(f), 64);
	ck_assert_int_eq(store_put(&st, 7, p, 1, len), 0);
	struct store_sect sc = st.sect[0];
	ck_assert_uint_eq(sc.raw, len);
	/* the true table: read back whole through a reader */
	ck_assert_int_eq(store_init_read(&rd, fileno(f), 64, st.end, &sc, 1), 0);
	struct store_reader r;
	ck_assert_int_eq(store_reader_open(&r, &rd, 7, 0), 0);
	size_t got = 0;
	const void *b;
	while ((b = store_read(&r, &n)) != NULL) {
		ck_assert(memcmp(b, p + got, n) == 0);
		got += n;
	}
	ck_assert_uint_eq(got, len);
	ck_assert_int_eq(store_reader_end(&r), 0);
	store_free(&rd);
	/* at the bound: LZ4's most, 256 bytes a byte of comp (what it makes
	 * of a chunk of zeros, 254 to one, is within it) */
	struct store_sect forged = sc;
	forged.raw = forged.comp * STORE_LZ4_MAX + STORE_LZ4_MAX - 1;
	ck_assert_int_eq(store_init_read(&rd, fileno(f), 64, st.end, &forged, 1), 0);
	store_free(&rd);
	/* past it (the size a forged cache had allocated, 256 GB from a file
	 * of 1.4 MB, before a read proved it false), one chunk more than
	 * comp's lengths can hold, and a size of 2^60 bytes */
	forged.raw = (forged.comp + 1) * STORE_LZ4_MAX;
	ck_assert_int_eq(store_init_read(&rd, fileno(f), 64, st.end, &forged, 1), -1);
	forged.raw = (forged.comp / 4 + 1) * STORE_CHUNK;
	ck_assert_int_eq(store_init_read(&rd, fileno(f), 64, st.end, &forged, 1), -1);
	forged.raw = (uint64_t)1 << 60;
	ck_assert_int_eq(store_init_read(&rd, fileno(f), 64, st.end, &forged, 1), -1);
	/* the most a chunk of zeros gives, read back */
	char *zeros = xcalloc(STORE_CHUNK, 1);
	ck_assert_int_eq(store_put(&st, 8, zeros, 1, STORE_CHUNK), 0);
	struct store_sect zs = *store_find(&st, 8);
	ck_assert_msg(zs.raw / STORE_LZ4_MAX <= zs.comp, "%llu raw bytes from %llu", (unsigned long long)zs.raw,
		      (unsigned long long)zs.comp);
	ck_assert_int_eq(store_init_read(&rd, fileno(f), 64, st.end, &zs, 1), 0);
	char *back = store_get(&rd, 8, 1, STORE_CHUNK);
	ck_assert(back != NULL && memcmp(back, zeros, STORE_CHUNK) == 0);
	free(back);
	free(zeros);
	store_free(&rd);
	store_free(&st);
	free(p);
	fclose(f);
}
END_TEST

/* The store's hash keeps its values (every cache's checksums and its
 * dump's content hash are of it: a new one would call every cache
 * written before corrupt): known answers, computed by the first
 * version of it (lanes kept in memory, a block at a time), over a
 * pattern at lengths about the 32-byte blocks and the tail; and the
 * same made piece by piece, cut anywhere (a reader's windows). */
START_TEST(test_store_hash_values)
{
	static const struct {
		size_t n;
		uint64_t seed, want;
	} ka[] = { { 0, 0, 0x9dc8333d884a56d8ull },	   { 1, 0, 0xd9ed50aa971a90fbull },
		   { 31, 0, 0x8117a2ce28953f33ull },	   { 32, 0, 0x89205fbdf15905c4ull },
		   { 33, 0, 0xd3e3d9928720d10eull },	   { 100, 0, 0x8e20224e7aa490cbull },
		   { 1000, 0, 0x015cac44c0154d05ull },	   { 65541, 0, 0x8681f455a045d027ull },
		   { 0, 12345, 0xaab714599f7d78caull },	   { 1, 12345, 0x893014cd91e04e4eull },
		   { 31, 12345, 0xa20c960517bb3baaull },   { 32, 12345, 0x9255abdbee76fd26ull },
		   { 33, 12345, 0xa1fb6333abeab00full },   { 100, 12345, 0x7145a0a2042223adull },
		   { 1000, 12345, 0x0066ca3ff7ba873eull }, { 65541, 12345, 0x8856aee7178c47fbull } };
	uint8_t *b = xmalloc(70000);
	uint32_t r = 1;

	for (size_t i = 0; i < 70000; i++)
		b[i] = (uint8_t)(i * 131 + 7);
	for (size_t k = 0; k < sizeof ka / sizeof *ka; k++) {
		ck_assert_msg(store_hash(b, ka[k].n, ka[k].seed) == ka[k].want, "%zu bytes, seed %llu: %016llx", ka[k].n,
			      (unsigned long long)ka[k].seed,
			      (unsigned long long)store_hash(b, ka[k].n, ka[k].seed));
		for (int t = 0; t < 200; t++) { /* cut at random: short pieces and long ones */
			struct store_hasher x;
			store_hash_begin(&x, ka[k].seed, ka[k].n);
			for (size_t at = 0; at < ka[k].n;) {
				r = r * 1103515245u + 12345u;
				size_t m = (r >> 8) % (t % 2 ? 70 : ka[k].n + 1);
				m = m < ka[k].n - at ? m : ka[k].n - at;
				store_hash_add(&x, b + at, m);
				at += m;
			}
			ck_assert_msg(store_hash_end(&x) == ka[k].want, "%zu bytes, seed %llu, in pieces (%d)", ka[k].n,
				      (unsigned long long)ka[k].seed, t);
		}
	}
	free(b);
}
END_TEST

Suite *cache_suite(void)
{
	Suite *s = suite_create("cache");
	TCase *tc = tcase_create("cache");

	/* Check's default is 4 s: the corrupt-cache test reopens the heap
	 * some seventy times, which took about that under the sanitizers */
	tcase_set_timeout(tc, HANG_TIMEOUT);
	tcase_add_checked_fixture(tc, make_dump, drop_dump);
	tcase_add_test(tc, test_round_trip);
	tcase_add_test(tc, test_mutate_section);
	tcase_add_test(tc, test_no_reference_to_root);
	tcase_add_test(tc, test_permissions_and_no_temp_left);
	tcase_add_test(tc, test_stale);
	tcase_add_test(tc, test_truncated_corrupt_foreign);
	tcase_add_test(tc, test_old_format);
	tcase_add_test(tc, test_no_cache_option);
	tcase_add_test(tc, test_cache_not_written_after);
	tcase_add_test(tc, test_path_beside_dump);
	tcase_add_test(tc, test_load_progress_and_cancel);
	tcase_add_test(tc, test_unwound_writer);
	suite_add_tcase(s, tc);
	tc = tcase_create("store");
	tcase_set_timeout(tc, HANG_TIMEOUT);
	tcase_add_test(tc, test_store_filter_round_trip);
	tcase_add_test(tc, test_store_writer_pieces);
	tcase_add_loop_exit_test(tc, test_store_put_while_writing, 3, 0, 2);
	tcase_add_test(tc, test_store_table_bounds);
	tcase_add_test(tc, test_store_hash_values);
	suite_add_tcase(s, tc);
	return s;
}
