/* test_robust.c — what probing heapwalk as an attacker and as an unlucky
 * user found: crafted dumps (many or nameless fields, names with control,
 * bidi and modified-UTF-8 characters), FIFOs, hostile or broken index
 * caches, signals during a cache write, a full disk, a shared /tmp. The
 * tests of defects failed before their fixes (a stack overflow, an
 * endless loop, a blocked open, a left temporary file, a raw escape
 * sequence...); the others keep tested what already held (symlinks, two
 * processes at once, a full disk, no HOME, an address-space limit). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <lz4.h>

#include "graph/cache.h"
#include "engine/open.h"
#include "hprofw.h"
#include "suites.h"

#define V102 "JAVA PROFILE 1.0.2"

static int open_dump(const char *path, struct heap *h, int no_cache, struct sbuf *err)
{
	struct open_opts o = { .no_cache = no_cache, .quiet = 1 };
	struct progress p;

	progress_init(&p, 1);
	sbuf_init(err);
	return heap_open(h, path, &o, &p, err);
}

static void need_all(struct heap *h)
{
	struct progress p;

	progress_init(&p, 1);
	heap_need(h, HP_ALL, &p);
}

static node_t node_of(const struct heap *h, uint64_t id)
{
	node_t v = heap_find_id(h, id);

	ck_assert_msg(v != HW_NONE, "no object 0x%llx", (unsigned long long)id);
	return v;
}

static int has_msg(const struct warnings *w, const char *what)
{
	for (size_t i = 0; i < w->n; i++)
		if (strstr(w->msg[i], what) != NULL)
			return 1;
	return 0;
}

/* `heapwalk classes --no-cache -q [-f json] PATH`, which must succeed. */
static char *classes_no_cache(const char *path, int json)
{
	int status;
	char *cmd = xasprintf("'%s' classes --no-cache -q %s'%s'", heapwalk(), json ? "-f json " : "", path);
	char *out = run(cmd, &status);

	ck_assert_msg(status == 0, "%s", cmd);
	free(cmd);
	return out;
}

/* No file whose name matches the grep pattern is left in dir. */
static void none_left(const char *dir, const char *pattern)
{
	int status;
	char *ls = xasprintf("ls '%s' | grep -c '%s' || true", dir, pattern);
	char *count = run(ls, &status);

	ck_assert_msg(strcmp(count, "0\n") == 0, "%s: %s", ls, count);
	free(count);
	free(ls);
}

/* A class of nfields fields of one type, all named `name` (string id
 * 0x901), and one instance of it (id 0x7001, a JNI global). */
static void one_class_dump(struct hw *w, const char *cls, int nfields, uint8_t type, const char *name)
{
	struct hw_field *f = xcalloc((size_t)nfields, sizeof *f);
	struct hw_field *v = xcalloc((size_t)nfields, sizeof *v);

	for (int i = 0; i < nfields; i++) {
		f[i] = (struct hw_field){ 0x901, type, 0 };
		v[i] = (struct hw_field){ 0, type, (uint64_t)i };
	}
	hw_begin(w, V102, 8);
	hw_jdk_names(w);
	hw_utf8(w, 0x901, name);
	hw_class_name(w, 40, 0x5001, cls);
	hw_heap_begin(w);
	hw_jdk_classes(w);
	hw_class_dump(w, 0x5001, J_OBJECT, 0, NULL, 0, NULL, 0, f, nfields);
	hw_root(w, 0x01, 0x7001, 0, 0);
	hw_instance(w, 0x7001, 0x5001, v, nfields);
	hw_heap_end(w);
	hw_dump_end(w);
	free(f);
	free(v);
}

/* The shallow size heapwalk gives the one instance of such a class. */
static uint64_t one_instance_size(const char *cls, int nfields, uint8_t type, const char *name, const char *file)
{
	struct hw w;
	struct heap h;
	struct sbuf err;

	one_class_dump(&w, cls, nfields, type, name);
	char *path = hw_write(&w, file, SIZE_MAX);
	ck_assert_msg(open_dump(path, &h, 1, &err) == 0, "%s", err.buf);
	need_all(&h);
	uint64_t size = h.node_shallow[node_of(&h, 0x7001)];
	heap_free(&h);
	sbuf_free(&err);
	free(path);
	hw_free(&w);
	return size;
}

/* java.util.concurrent.ForkJoinPool with 70 fields of its @Contended
 * group (the layout code kept them in a stack array of 64), and a class of 1100 fields
 * (one of 1024). HotSpot's layout, by hand: the group after the header
 * (12 bytes, compressed class pointers) and a 128-byte padding, longs
 * at 8-byte alignment, 128 bytes of padding after it: 12 + 128 -> 144,
 * + 70 x 8 = 704, + 128 = 832. The plain class: 12 + 1100 x 4 = 4412,
 * aligned to 8: 4416. */
START_TEST(test_many_fields)
{
	ck_assert_uint_eq(one_instance_size("java/util/concurrent/ForkJoinPool", 70, T_LONG, "ctl",
					    "contended.hprof"),
			  832);
	ck_assert_uint_eq(one_instance_size("app/Wide", 1100, T_INT, "x", "wide.hprof"), 4416);
}
END_TEST

/* Thread as OpenJDK 17 has it (an int `priority`, a long
 * threadLocalRandomSeed of the "tlr" group) and as 21 has it (a reference
 * `holder` instead, the seed no longer @Contended): the field tells the
 * version. 17: 12 + int -> 16, padding -> 144, long -> 152, padding -> 280.
 * 21: 12 + reference -> 16, long -> 24. */
static uint64_t thread_size(const char *first, uint8_t type, const char *file)
{
	struct hw w;
	struct heap h;
	struct sbuf err;
	const struct hw_field f[2] = { { 0x901, type, 0 }, { 0x902, T_LONG, 0 } };
	const struct hw_field v[2] = { { 0, type, 0 }, { 0, T_LONG, 7 } };

	hw_begin(&w, V102, 8);
	hw_jdk_names(&w);
	hw_utf8(&w, 0x901, first);
	hw_utf8(&w, 0x902, "threadLocalRandomSeed");
	hw_class_name(&w, 40, 0x5001, "java/lang/Thread");
	hw_heap_begin(&w);
	hw_jdk_classes(&w);
	hw_class_dump(&w, 0x5001, J_OBJECT, 0, NULL, 0, NULL, 0, f, 2);
	hw_root(&w, 0x01, 0x7001, 0, 0);
	hw_instance(&w, 0x7001, 0x5001, v, 2);
	hw_heap_end(&w);
	hw_dump_end(&w);
	char *path = hw_write(&w, file, SIZE_MAX);
	ck_assert_msg(open_dump(path, &h, 1, &err) == 0, "%s", err.buf);
	need_all(&h);
	uint64_t size = h.node_shallow[node_of(&h, 0x7001)];
	heap_free(&h);
	sbuf_free(&err);
	free(path);
	hw_free(&w);
	return size;
}

START_TEST(test_contended_by_version)
{
	ck_assert_uint_eq(thread_size("priority", T_INT, "thread17.hprof"), 280);
	ck_assert_uint_eq(thread_size("holder", T_OBJECT, "thread21.hprof"), 24);
}
END_TEST

/* A Thread field with an empty name: the search for it in the list of
 * @Contended names found "" everywhere and never moved on. The field is
 * a plain one: 12 + 8 = 20 -> 24. */
START_TEST(test_empty_field_name)
{
	ck_assert_uint_eq(one_instance_size("java/lang/Thread", 1, T_LONG, "", "noname.hprof"), 24);
}
END_TEST

/* A dump with no objects: its cache (empty arrays) is written and read
 * back (clang's UBSan saw an offset applied to NULL while writing it). */
START_TEST(test_empty_dump_cache)
{
	struct hw w;
	struct heap h;
	struct sbuf err;

	hw_begin(&w, V102, 8);
	hw_heap_begin(&w);
	hw_heap_end(&w);
	hw_dump_end(&w);
	char *path = hw_write(&w, "empty.hprof", SIZE_MAX);
	for (int round = 0; round < 2; round++) {
		ck_assert_msg(open_dump(path, &h, 0, &err) == 0, "%s", err.buf);
		need_all(&h);
		ck_assert_int_eq(h.from_cache, round); /* written, then read */
		ck_assert_uint_eq(h.n, 1);
		ck_assert_uint_eq(h.nedges, 0);
		heap_free(&h);
		sbuf_free(&err);
	}
	free(path);
	hw_free(&w);
}
END_TEST

/* A FIFO as the dump, and planted at the cache's name: open() blocked
 * for a writer before the regular-file check. Now the dump is refused
 * at once, and the FIFO at the cache's name is left alone. */
START_TEST(test_fifo)
{
	struct heap h;
	struct sbuf err;
	char *fifo = xasprintf("%s/fifo.hprof", hw_tmpdir());

	ck_assert(mkfifo(fifo, 0600) == 0);
	ck_assert_int_eq(open_dump(fifo, &h, 0, &err), -1);
	ck_assert_msg(strstr(err.buf, "not a regular file") != NULL, "%s", err.buf);
	sbuf_free(&err);

	struct hw w;
	struct hw_sample s;
	hw_sample(&w, V102, 8, &s);
	char *path = hw_write(&w, "fifocache.hprof", SIZE_MAX);
	char *cache = xasprintf("%s.hwi", path);
	char *xdg = xasprintf("%s/xdg", hw_tmpdir());
	setenv("XDG_CACHE_HOME", xdg, 1);
	ck_assert(mkfifo(cache, 0600) == 0);
	struct open_opts o = { .quiet = 0 };
	struct progress p;
	progress_init(&p, 1);
	sbuf_init(&err);
	ck_assert_msg(heap_open(&h, path, &o, &p, &err) == 0, "%s", err.buf);
	ck_assert_msg(has_msg(&h.notes, "not used as the index cache: not a regular file"),
		      "no note on the FIFO");
	ck_assert_msg(strstr(h.cache_file, xdg) == h.cache_file, "cache at %s", h.cache_file);
	struct stat st;
	ck_assert(lstat(cache, &st) == 0 && S_ISFIFO(st.st_mode)); /* untouched */
	heap_free(&h);
	sbuf_free(&err);
	unsetenv("XDG_CACHE_HOME");
	free(xdg);
	free(cache);
	free(path);
	free(fifo);
	hw_free(&w);
}
END_TEST

/* A name with control characters: the error names the file escaped. */
START_TEST(test_escaped_file_name)
{
	struct heap h;
	struct sbuf err;
	char *bad = xasprintf("%s/evil\x1b]0;pwned\x07.hprof", hw_tmpdir());

	ck_assert_int_eq(open_dump(bad, &h, 1, &err), -1);
	ck_assert_msg(strchr(err.buf, '\x1b') == NULL && strchr(err.buf, '\x07') == NULL, "raw: %s",
		      err.buf);
	ck_assert_msg(strstr(err.buf, "evil\\x1b]0;pwned\\x07.hprof: No such file") != NULL, "%s", err.buf);
	sbuf_free(&err);
	/* the same through the program, whose message is one line */
	int status;
	char *cmd = xasprintf("'%s' info '%s' 2>&1", heapwalk(), bad);
	char *out = run(cmd, &status);
	ck_assert_msg(strchr(out, '\x1b') == NULL, "raw escape: %s", out);
	ck_assert_msg(strstr(out, "\\x1b]0;pwned\\x07") != NULL, "%s", out);
	ck_assert_int_eq(WEXITSTATUS(status), 2);
	free(out);
	free(cmd);
	free(bad);
}
END_TEST

/* Names from the dump (class names are modified UTF-8): U+202E and other
 * format characters are escaped, C0 80 (U+0000) shows as \x00 with the
 * rest of the name after it, a surrogate pair is its character, a raw
 * NUL no longer cuts the name. Expected bytes written by hand. */
START_TEST(test_name_characters)
{
	static const struct { const char *in, *text, *json; } c[] = {
		{ "a\xe2\x80\xae" "cod.exe", "a\\u{202e}cod.exe", "a\\u202ecod.exe" },
		{ "z\xe2\x80\x8bw\xef\xbb\xbf", "z\\u{200b}w\\u{feff}", "z\\u200bw\\ufeff" },
		{ "nul\xc0\x80rest", "nul\\x00rest", "nul\\u0000rest" },
		{ "smile\xed\xa0\xbd\xed\xb8\x80!", "smile\xf0\x9f\x98\x80!", "smile\xf0\x9f\x98\x80!" },
		{ "lone\xed\xa0\xbd!", "lone\\xed\\xa0\\xbd!", "lone\\u00ed\\u00a0\\u00bd!" },
		{ "tag\xf3\xa0\x80\x81", "tag\\u{e0001}", "tag\\udb40\\udc01" },
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		struct sbuf t, j;
		sbuf_init(&t);
		sbuf_init(&j);
		esc_append(&t, (const uint8_t *)c[i].in, strlen(c[i].in), 0);
		json_append(&j, (const uint8_t *)c[i].in, strlen(c[i].in));
		ck_assert_str_eq(t.buf, c[i].text);
		ck_assert_str_eq(j.buf, c[i].json);
		sbuf_free(&t);
		sbuf_free(&j);
	}

	/* a class whose name holds a raw NUL and U+202E, through the reader
	 * and the classes report */
	static const char name[] = "app/Evil\0Tail\xe2\x80\xae" "gpj";
	struct hw w;
	hw_begin(&w, V102, 8);
	hw_jdk_names(&w);
	hw_rec_begin(&w, 0x01); /* UTF8 with the NUL in it */
	hw_id(&w, 0x5002);
	hw_bytes(&w, name, sizeof name - 1);
	hw_rec_end(&w);
	hw_load_class(&w, 41, 0x5001, 0x5002);
	hw_heap_begin(&w);
	hw_jdk_classes(&w);
	hw_class_dump(&w, 0x5001, J_OBJECT, 0, NULL, 0, NULL, 0, NULL, 0);
	hw_root(&w, 0x01, 0x7001, 0, 0);
	hw_instance(&w, 0x7001, 0x5001, NULL, 0);
	hw_heap_end(&w);
	hw_dump_end(&w);
	char *path = hw_write(&w, "names.hprof", SIZE_MAX);
	char *out = classes_no_cache(path, 0);
	ck_assert_msg(strstr(out, "app.Evil\\x00Tail\\u{202e}gpj") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "\xe2\x80\xae") == NULL, "raw U+202E: %s", out);
	free(out);
	out = classes_no_cache(path, 1);
	ck_assert_msg(strstr(out, "app.Evil\\u0000Tail\\u202egpj") != NULL, "%s", out);
	free(out);
	free(path);
	hw_free(&w);
}
END_TEST

/* The section of a cache file (section 0 is the scalars, section k + 1
 * slot k of cache.c): its offset and length, from the header and the
 * table of sections (graph/store.h: where each one is). */
static void section_at(const char *buf, size_t n, unsigned k, size_t *off, size_t *len)
{
	struct cache_header hd;
	struct store_sect sc;

	memcpy(&hd, buf, sizeof hd);
	ck_assert_uint_lt(k, hd.nsect);
	ck_assert_uint_le(sizeof hd + (size_t)hd.nsect * sizeof sc, n);
	memcpy(&sc, buf + sizeof hd + (size_t)k * sizeof sc, sizeof sc);
	ck_assert_uint_eq(sc.id, k);
	ck_assert_uint_le(sc.off + sc.comp, n);
	*off = (size_t)sc.off;
	*len = (size_t)sc.comp;
}

static void spill(const char *path, const char *b, size_t n)
{
	int fd = open(path, O_WRONLY | O_TRUNC);

	ck_assert(fd >= 0 && write(fd, b, n) == (ssize_t)n);
	close(fd);
}

/* A cache whose dominator section is damaged, found when the views need
 * it after the nodes and references loaded fine: the note says why
 * ("corrupt", not "(null)"), is not one of the dump's warnings, and is
 * not stored in the rebuilt cache, so the next open says nothing. */
START_TEST(test_corrupt_section_note)
{
	struct hw w;
	struct hw_sample s;
	struct heap h;
	struct sbuf err;
	size_t n, off = 0, len = 0;

	hw_sample(&w, V102, 8, &s);
	char *path = hw_write(&w, "corrupt-dom.hprof", SIZE_MAX);
	ck_assert_msg(open_dump(path, &h, 0, &err) == 0, "%s", err.buf); /* writes the cache */
	heap_free(&h);
	sbuf_free(&err);
	char *cache = cache_path(path);
	char *b = file_bytes(cache, &n);
	section_at(b, n, 17, &off, &len); /* idom */
	ck_assert_uint_gt(len, 4);
	b[off + len - 1] ^= 0x55;
	spill(cache, b, n);
	ck_assert_msg(open_dump(path, &h, 0, &err) == 0, "%s", err.buf);
	ck_assert_int_eq(h.from_cache, 1);
	need_all(&h);
	ck_assert_msg(has_msg(&h.notes, "the index cache is corrupt; reading the dump again"), "no note");
	ck_assert(!has_msg(&h.notes, "(null)"));
	ck_assert(!has_msg(&h.warn, "index cache"));
	size_t nwarn = h.warn.n;
	heap_free(&h);
	sbuf_free(&err);
	ck_assert_msg(open_dump(path, &h, 0, &err) == 0, "%s", err.buf);
	ck_assert_int_eq(h.from_cache, 1);
	need_all(&h);
	ck_assert_uint_eq(h.notes.n, 0);
	ck_assert_uint_eq(h.warn.n, nwarn);
	ck_assert(!has_msg(&h.warn, "index cache"));
	heap_free(&h);
	sbuf_free(&err);
	free(b);
	free(cache);
	free(path);
	hw_free(&w);
}
END_TEST

/* Replace section k of the cache file in b by `blob` of the same raw
 * length, and seal it again as heapwalk does: LZ4 in one chunk behind
 * its length, appended to the file, the table's entry pointing there
 * with the section's checksum, the table's and the header's checksums.
 * What a user who can write the cache file could do. */
static char *forge_section(const char *b, size_t n, unsigned k, const char *blob, size_t len, size_t *outn)
{
	struct cache_header hd;
	struct store_sect sc;
	size_t off = 0, old = 0;

	memcpy(&hd, b, sizeof hd);
	section_at(b, n, k, &off, &old);
	int bound = LZ4_compressBound((int)len);
	char *z = xmalloc(4 + (size_t)bound);
	int zn = LZ4_compress_default(blob, z + 4, (int)len, bound);
	uint32_t z32 = (uint32_t)zn;
	memcpy(z, &z32, 4);
	char *o = xmalloc(n + 4 + (size_t)zn);
	memcpy(o, b, n);
	memcpy(o + n, z, 4 + (size_t)zn);
	char *ent = o + sizeof hd + (size_t)k * sizeof sc;
	memcpy(&sc, ent, sizeof sc);
	ck_assert_uint_eq(sc.raw, len); /* the scalars say how long it is */
	sc.off = n;
	sc.comp = 4 + (uint64_t)zn;
	sc.filter = 0; /* the bytes as they are */
	sc.check = store_check_bytes((const uint8_t *)z, sc.comp, sc.raw);
	memcpy(ent, &sc, sizeof sc);
	hd.table_check = cache_checksum(o + sizeof hd, (size_t)hd.nsect * sizeof sc, 0);
	hd.check = cache_checksum(&hd, offsetof(struct cache_header, check), 0);
	memcpy(o, &hd, sizeof hd);
	*outn = n + 4 + (size_t)zn;
	free(z);
	return o;
}

/* A cache whose stored warnings carry escape sequences (forged, with
 * valid checksums): they are escaped before they reach the terminal or
 * a report; the same cache unforged reads as before. */
START_TEST(test_forged_warnings_escaped)
{
	struct hw w;
	struct hw_sample s;
	struct heap h;
	struct sbuf err;
	size_t n, fn, off = 0, len = 0;
	int status;

	hw_sample(&w, V102, 8, &s);
	hw_heap_begin(&w);
	hw_root(&w, 0x01, 0xdead7, 0, 0); /* a warning to store */
	hw_heap_end(&w);
	char *path = hw_write(&w, "forged.hprof", SIZE_MAX);
	ck_assert_msg(open_dump(path, &h, 0, &err) == 0, "%s", err.buf);
	ck_assert_uint_ge(h.warn.n, 1);
	heap_free(&h);
	sbuf_free(&err);
	char *cache = cache_path(path);
	char *b = file_bytes(cache, &n);
	struct cache_header hd;
	memcpy(&hd, b, sizeof hd);
	section_at(b, n, hd.nsect - 1, &off, &len);
	/* the blob's length from the table; write one of that length */
	struct store_sect sc;
	memcpy(&sc, b + sizeof hd + (size_t)(hd.nsect - 1) * sizeof sc, sizeof sc);
	uint64_t raw = sc.raw;
	static const char evil[] = "\x1b]0;pwned\x07\x1b[2J\xe2\x80\xae";
	ck_assert_uint_gt(raw, sizeof evil);
	char *blob = xmalloc((size_t)raw);
	memset(blob, 'a', (size_t)raw);
	memcpy(blob, evil, sizeof evil - 1);
	blob[raw - 1] = '\0';
	char *forged = forge_section(b, n, hd.nsect - 1, blob, (size_t)raw, &fn);
	spill(cache, forged, fn);
	ck_assert_int_eq(truncate(cache, (off_t)fn), 0);
	char *cmd = xasprintf("'%s' info -v '%s' 2>&1", heapwalk(), path);
	char *out = run(cmd, &status);
	ck_assert_int_eq(status, 0);
	ck_assert_msg(strchr(out, '\x1b') == NULL && strchr(out, '\x07') == NULL, "raw: %s", out);
	ck_assert_msg(strstr(out, "\\x1b]0;pwned\\x07\\x1b[2J\\u{202e}aaa") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "cache") == NULL || strstr(out, "index cache") == NULL, "%s", out);
	free(out);
	free(cmd);
	free(forged);
	free(blob);
	free(b);
	free(cache);
	free(path);
	hw_free(&w);
}
END_TEST

/* A forged cache (valid checksums) whose node offsets put a record at
 * the dump's last bytes: refused when the nodes load, the dump read
 * again, and every view answers as without a cache. */
START_TEST(test_forged_node_offsets)
{
	struct hw w;
	struct hw_sample s;
	struct heap h, ref;
	struct sbuf err;
	size_t n, fn, off = 0, len = 0;

	hw_sample(&w, V102, 8, &s);
	char *path = hw_write(&w, "forged-nodes.hprof", SIZE_MAX);
	ck_assert_msg(open_dump(path, &ref, 1, &err) == 0, "%s", err.buf);
	need_all(&ref);
	sbuf_free(&err);
	ck_assert_msg(open_dump(path, &h, 0, &err) == 0, "%s", err.buf);
	heap_free(&h);
	sbuf_free(&err);
	char *cache = cache_path(path);
	char *b = file_bytes(cache, &n);
	section_at(b, n, 1, &off, &len); /* node_off */
	size_t raw = (size_t)ref.n * sizeof *ref.node_off;
	char *offs = xmalloc(raw);
	memcpy(offs, ref.node_off, raw);
	/* the last object: its id fits before the end, nothing more */
	uint64_t bad = ref.size - 1 - ref.layout.idsize;
	memcpy(offs + (size_t)(ref.n - 1) * sizeof *ref.node_off, &bad, sizeof bad);
	char *forged = forge_section(b, n, 1, offs, raw, &fn);
	spill(cache, forged, fn);
	ck_assert_int_eq(truncate(cache, (off_t)fn), 0);
	ck_assert_msg(open_dump(path, &h, 0, &err) == 0, "%s", err.buf);
	ck_assert_int_eq(h.from_cache, 1);
	need_all(&h);
	ck_assert_msg(has_msg(&h.notes, "a record outside the dump"), "not refused");
	ck_assert_uint_eq(h.node_off[h.n - 1], ref.node_off[ref.n - 1]);
	heap_free(&h);
	sbuf_free(&err);
	heap_free(&ref);
	free(forged);
	free(offs);
	free(b);
	free(cache);
	free(path);
	hw_free(&w);
}
END_TEST

/* A cache beside the dump that another user could have put there or
 * could change — writable by others, or (as root) owned by another
 * user — is neither read nor replaced: the private directory holds this
 * dump's cache instead, with a note. */
START_TEST(test_untrusted_cache)
{
	struct hw w;
	struct hw_sample s;
	struct heap h;
	struct sbuf err;
	size_t n, n2;

	hw_sample(&w, V102, 8, &s);
	char *path = hw_write(&w, "planted.hprof", SIZE_MAX);
	char *xdg = xasprintf("%s/xdg", hw_tmpdir());
	setenv("XDG_CACHE_HOME", xdg, 1);
	ck_assert_msg(open_dump(path, &h, 0, &err) == 0, "%s", err.buf);
	heap_free(&h);
	sbuf_free(&err);
	char *cache = xasprintf("%s.hwi", path);
	char *before = file_bytes(cache, &n);
	for (int round = 0; round < 2; round++) {
		char *xr = xasprintf("%s%d", xdg, round); /* no private cache yet */
		setenv("XDG_CACHE_HOME", xr, 1);
		free(xdg);
		xdg = xr;
		if (round == 0) {
			ck_assert(chmod(cache, 0666) == 0);
		} else {
			ck_assert(chmod(cache, 0644) == 0);
			if (geteuid() != 0) {
				fprintf(stderr, "test_untrusted_cache: not root: no file of another user\n");
				break;
			}
			ck_assert(chown(cache, 65534, 65534) == 0);
		}
		ck_assert_msg(open_dump(path, &h, 0, &err) == 0, "%s", err.buf);
		ck_assert_int_eq(h.from_cache, 0); /* not read */
		ck_assert_msg(has_msg(&h.notes, round == 0 ? "not used as the index cache: writable by others"
						  : "not used as the index cache: owned by another user"),
			      "no note (round %d)", round);
		ck_assert_msg(strncmp(h.cache_file, xdg, strlen(xdg)) == 0, "%s", h.cache_file);
		struct stat st;
		ck_assert(stat(h.cache_file, &st) == 0); /* the private one, written */
		heap_free(&h);
		sbuf_free(&err);
		char *after = file_bytes(cache, &n2); /* not replaced */
		ck_assert(n2 == n && memcmp(before, after, n) == 0);
		free(after);
		ck_assert_msg(open_dump(path, &h, 0, &err) == 0, "%s", err.buf);
		ck_assert_int_eq(h.from_cache, 1); /* the private one, read */
		heap_free(&h);
		sbuf_free(&err);
	}
	unsetenv("XDG_CACHE_HOME");
	free(before);
	free(cache);
	free(xdg);
	free(path);
	hw_free(&w);
}
END_TEST

/* The cache of a dump with execute bits gets none, and no write bit for
 * others; as root, the dump's group. */
START_TEST(test_cache_mode_and_group)
{
	struct hw w;
	struct hw_sample s;
	struct heap h;
	struct sbuf err;
	struct stat st;

	hw_sample(&w, V102, 8, &s);
	char *path = hw_write(&w, "mode.hprof", SIZE_MAX);
	ck_assert(chmod(path, 0777) == 0);
	if (geteuid() == 0)
		ck_assert(chown(path, 0, 65534) == 0);
	ck_assert_msg(open_dump(path, &h, 0, &err) == 0, "%s", err.buf);
	ck_assert(stat(h.cache_file, &st) == 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0644);
	if (geteuid() == 0)
		ck_assert_uint_eq(st.st_gid, 65534);
	heap_free(&h);
	sbuf_free(&err);
	free(path);
	hw_free(&w);
}
END_TEST

/* Symbolic links at the cache's name and at its temporary name are not
 * followed: what they point to stays as it was. */
START_TEST(test_symlinks_not_followed)
{
	struct hw w;
	struct hw_sample s;
	struct heap h;
	struct sbuf err;
	size_t n;

	hw_sample(&w, V102, 8, &s);
	char *path = hw_write(&w, "linked.hprof", SIZE_MAX);
	char *target = xasprintf("%s/precious.txt", hw_tmpdir());
	int fd = open(target, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert(fd >= 0 && write(fd, "precious\n", 9) == 9);
	close(fd);
	char *xdg = xasprintf("%s/xdg", hw_tmpdir());
	setenv("XDG_CACHE_HOME", xdg, 1);
	char *cache = xasprintf("%s.hwi", path);
	ck_assert(symlink(target, cache) == 0);
	ck_assert_msg(open_dump(path, &h, 0, &err) == 0, "%s", err.buf);
	ck_assert(has_msg(&h.notes, "not used as the index cache: not a regular file"));
	heap_free(&h);
	sbuf_free(&err);
	unlink(cache);
	/* the temporary name of this process's next write */
	char *tmp = xasprintf("%s.tmp.%ld", cache, (long)getpid());
	ck_assert(symlink(target, tmp) == 0);
	ck_assert_msg(open_dump(path, &h, 0, &err) == 0, "%s", err.buf);
	ck_assert(has_msg(&h.notes, "cannot write the index cache"));
	heap_free(&h);
	sbuf_free(&err);
	char *t = file_bytes(target, &n);
	ck_assert(n == 9 && memcmp(t, "precious\n", 9) == 0);
	free(t);
	unlink(tmp);
	unsetenv("XDG_CACHE_HOME");
	free(tmp);
	free(cache);
	free(xdg);
	free(target);
	free(path);
	hw_free(&w);
}
END_TEST

/* A temporary file of a process that is gone is removed by the next
 * write; one of a live process (ours, the parent) is left. */
START_TEST(test_stale_temporary_removed)
{
	struct hw w;
	struct hw_sample s;
	struct heap h;
	struct sbuf err;
	struct stat st;

	hw_sample(&w, V102, 8, &s);
	char *path = hw_write(&w, "stale.hprof", SIZE_MAX);
	pid_t gone = fork();
	if (gone == 0)
		_exit(0);
	waitpid(gone, NULL, 0);
	char *dead = xasprintf("%s.hwi.tmp.%ld", path, (long)gone);
	char *live = xasprintf("%s.hwi.tmp.%ld", path, (long)getppid());
	for (int i = 0; i < 2; i++) {
		int fd = open(i ? live : dead, O_WRONLY | O_CREAT, 0600);
		ck_assert(fd >= 0 && write(fd, "partial", 7) == 7);
		close(fd);
	}
	ck_assert_msg(open_dump(path, &h, 0, &err) == 0, "%s", err.buf);
	heap_free(&h);
	sbuf_free(&err);
	ck_assert_msg(lstat(dead, &st) != 0, "%s is still there", dead);
	ck_assert_msg(lstat(live, &st) == 0, "%s was removed", live);
	unlink(live);
	free(dead);
	free(live);
	free(path);
	hw_free(&w);
}
END_TEST

/* SIGTERM while the cache is being written: the temporary file goes
 * with the process, which ends by that signal. The process is stopped
 * as soon as its temporary file shows, then terminated; if the write
 * ended before it could be caught, another try. */
START_TEST(test_term_during_cache_write)
{
	char src[512];
	int caught = 0;

	ensure_dump("coops", "");
	snprintf(src, sizeof src, "%s/coops.hprof", TEST_BUILDDIR "/dumps");
	char *copy = xasprintf("%s/term.hprof", hw_tmpdir());
	char *cmd = xasprintf("cp '%s' '%s'", src, copy);
	ck_assert(system(cmd) == 0);
	for (int attempt = 0; attempt < 30 && !caught; attempt++) {
		char *cache = xasprintf("%s.hwi", copy);
		unlink(cache);
		pid_t pid = fork();
		if (pid == 0) {
			int null = open("/dev/null", O_WRONLY);
			dup2(null, 1);
			dup2(null, 2);
			execl(heapwalk(), "heapwalk", "info", copy, (char *)NULL);
			_exit(127);
		}
		char *tmp = xasprintf("%s.tmp.%ld", cache, (long)pid);
		struct stat st;
		int status;
		while (waitpid(pid, &status, WNOHANG) == 0) {
			if (lstat(tmp, &st) == 0) {
				kill(pid, SIGSTOP);
				if (lstat(tmp, &st) == 0) {
					caught = 1;
					kill(pid, SIGTERM);
				}
				kill(pid, SIGCONT);
				waitpid(pid, &status, 0);
				break;
			}
			usleep(200);
		}
		if (caught) {
			ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM, "status %d", status);
			ck_assert_msg(lstat(tmp, &st) != 0, "%s left behind", tmp);
		}
		free(tmp);
		free(cache);
	}
	ck_assert_msg(caught, "never caught a cache write in 30 tries");
	free(cmd);
	free(copy);
}
END_TEST

/* A full disk (a file size limit, SIGXFSZ ignored as a shell may):
 * the answer is printed all the same, with a note, and neither a cache
 * nor a temporary file is left. */
START_TEST(test_disk_full_still_answers)
{
	struct hw w;
	struct hw_sample s;
	int status;

	hw_sample(&w, V102, 8, &s);
	char *path = hw_write(&w, "full.hprof", SIZE_MAX);
	char *want = classes_no_cache(path, 0);
	char *cmd = xasprintf("trap '' XFSZ; ulimit -f 1; '%s' classes '%s' 2>'%s.err'", heapwalk(), path, path);
	char *got = run(cmd, &status);
	ck_assert_int_eq(status, 0);
	ck_assert_str_eq(got, want);
	char *errf = xasprintf("%s.err", path);
	size_t n;
	char *e = file_bytes(errf, &n);
	e = xrealloc(e, n + 1);
	e[n] = '\0';
	ck_assert_msg(strstr(e, "cannot write the index cache") != NULL, "%s", e);
	free(e);
	none_left(hw_tmpdir(), "full.hprof.hwi");
	free(errf);
	free(got);
	free(want);
	free(cmd);
	free(path);
	hw_free(&w);
}
END_TEST

/* Two processes opening one fresh dump at once both answer as without a
 * cache, and leave one valid cache that a third open reads. */
START_TEST(test_two_at_once)
{
	struct hw w;
	struct hw_sample s;
	int status;

	hw_sample(&w, V102, 8, &s);
	char *path = hw_write(&w, "twice.hprof", SIZE_MAX);
	char *want = classes_no_cache(path, 0);
	char *cmd = xasprintf("d='%s'; '%s' classes -q \"$d\" > \"$d.1\" & '%s' classes -q \"$d\" > \"$d.2\"; wait; "
			"cat \"$d.1\" \"$d.2\"", path, heapwalk(), heapwalk());
	char *both = run(cmd, &status);
	char *two = xasprintf("%s%s", want, want);
	ck_assert_str_eq(both, two);
	free(cmd);
	struct heap h;
	struct sbuf err;
	ck_assert_msg(open_dump(path, &h, 0, &err) == 0, "%s", err.buf);
	ck_assert_int_eq(h.from_cache, 1);
	heap_free(&h);
	sbuf_free(&err);
	none_left(hw_tmpdir(), "twice.hprof.hwi.tmp");
	free(two);
	free(both);
	free(want);
	free(path);
	hw_free(&w);
}
END_TEST

/* With neither HOME nor XDG_CACHE_HOME, for a user who cannot write the
 * dump's directory: a directory of that user's own, 0700, under TMPDIR;
 * one planted there by someone else (a symlink) is not used. */
START_TEST(test_private_dir_without_home)
{
	struct hw w;
	struct hw_sample s;
	int status;
	struct stat st;

	if (geteuid() != 0) {
		fprintf(stderr, "test_private_dir_without_home: not root: cannot run as another user\n");
		return;
	}
	/* under /tmp: the build tree's directories may be closed to others */
	char dir[] = "/tmp/hwrobust-XXXXXX";
	ck_assert(mkdtemp(dir) != NULL && chmod(dir, 0755) == 0);
	char *ro = xasprintf("%s/ro", dir), *tmp = xasprintf("%s/shared", dir);
	ck_assert(mkdir(ro, 0755) == 0 && mkdir(tmp, 01777) == 0 && chmod(tmp, 01777) == 0);
	char *prog = xasprintf("%s/heapwalk", dir), *cp = xasprintf("cp '%s' '%s'", heapwalk(), prog);
	ck_assert(system(cp) == 0);
	hw_sample(&w, V102, 8, &s);
	char *path = hw_write_in(&w, ro, "nohome.hprof", SIZE_MAX);
	chmod(path, 0644);
	const char *run_as = "setpriv --reuid=65534 --regid=65534 --clear-groups env -u HOME -u XDG_CACHE_HOME";
	char *cmd = xasprintf("%s TMPDIR='%s' '%s' classes '%s' 2>&1", run_as, tmp, prog, path);
	char *first = run(cmd, &status);
	ck_assert_msg(status == 0, "%s", first);
	char *priv = xasprintf("%s/heapwalk-65534", tmp);
	ck_assert(lstat(priv, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == 65534);
	ck_assert_uint_eq(st.st_mode & 0777, 0700);
	char *again = run(cmd, &status);
	ck_assert_str_eq(again, first); /* from the cache now: the same answer */
	char *ls = xasprintf("ls '%s' | grep -c 'nohome.hprof.hwi$'", priv);
	char *count = run(ls, &status);
	ck_assert_str_eq(count, "1\n");
	/* someone else's symlink in the private directory's place: no cache */
	char *cmd2 = xasprintf("rm -rf '%s' && ln -s /tmp '%s'", priv, priv);
	ck_assert(system(cmd2) == 0);
	char *third = run(cmd, &status);
	ck_assert_int_eq(status, 0);
	ck_assert_msg(strstr(third, "no private cache directory that can be trusted") != NULL, "%s", third);
	unlink(priv);
	char *rm = xasprintf("rm -rf '%s'", dir);
	ck_assert(system(rm) == 0);
	free(rm);
	free(prog);
	free(cp);
	free(third);
	free(cmd2);
	free(count);
	free(ls);
	free(again);
	free(priv);
	free(first);
	free(cmd);
	free(path);
	free(tmp);
	free(ro);
	hw_free(&w);
}
END_TEST

/* A dump rewritten in place, its size and times restored, changed only
 * outside the sampled blocks: the ordinary check keeps the cache (the
 * stated limit), --verify-cache reads the dump again. */
START_TEST(test_verify_cache)
{
	char src[512];
	struct heap h;
	struct sbuf err;
	struct stat st;

	ensure_dump("coops", "");
	snprintf(src, sizeof src, "%s/coops.hprof", TEST_BUILDDIR "/dumps");
	char *copy = xasprintf("%s/verify.hprof", hw_tmpdir());
	char *cmd = xasprintf("cp '%s' '%s'", src, copy);
	ck_assert(system(cmd) == 0);
	ck_assert_msg(open_dump(copy, &h, 0, &err) == 0, "%s", err.buf);
	heap_free(&h);
	sbuf_free(&err);
	ck_assert(stat(copy, &st) == 0);
	uint64_t sz = (uint64_t)st.st_size, at = 0;
	ck_assert_uint_gt(sz, 400000);
	/* a byte clear of the sampled blocks: past the first 64 KiB, between
	 * the first two of the 16 blocks at sz/17*i */
	at = sz / 17 + 4096 + (sz / 17 - 4096) / 2;
	ck_assert_uint_lt(at + 1, 2 * (sz / 17));
	ck_assert_uint_gt(at, 65536);
	int fd = open(copy, O_RDWR);
	unsigned char b;
	ck_assert(pread(fd, &b, 1, (off_t)at) == 1);
	b ^= 0x01;
	ck_assert(pwrite(fd, &b, 1, (off_t)at) == 1);
	struct timespec times[2] = { st.st_atim, st.st_mtim };
	ck_assert(futimens(fd, times) == 0);
	close(fd);
	ck_assert_msg(open_dump(copy, &h, 0, &err) == 0, "%s", err.buf);
	ck_assert_int_eq(h.from_cache, 1); /* not seen: the documented limit */
	heap_free(&h);
	sbuf_free(&err);
	struct open_opts o = { .quiet = 1, .verify_cache = 1 };
	struct progress p;
	progress_init(&p, 1);
	sbuf_init(&err);
	ck_assert_msg(heap_open(&h, copy, &o, &p, &err) == 0, "%s", err.buf);
	ck_assert_int_eq(h.from_cache, 0); /* seen */
	heap_free(&h);
	sbuf_free(&err);
	/* and the cache it rewrote passes the full check */
	sbuf_init(&err);
	ck_assert_msg(heap_open(&h, copy, &o, &p, &err) == 0, "%s", err.buf);
	ck_assert_int_eq(h.from_cache, 1);
	heap_free(&h);
	sbuf_free(&err);
	unlink(copy);
	free(cmd);
	free(copy);
}
END_TEST

/* heap_class_of_node, the class a class object stands for (the labels
 * "class NAME", a class's statics' names), against a search of every
 * class for every object of a JDK's dump; and made anew when classes
 * are added after it was first asked (as a reader adds them). */
START_TEST(test_class_of_node)
{
	char path[512];
	struct heap h;
	struct sbuf err;

	ensure_dump("coops", "");
	snprintf(path, sizeof path, "%s/coops.hprof", TEST_BUILDDIR "/dumps");
	ck_assert_msg(open_dump(path, &h, 1, &err) == 0, "%s", err.buf);
	sbuf_free(&err);
	uint32_t *first = xmalloc(((size_t)h.n + 1) * sizeof *first), named = 0;
	for (node_t v = 0; v < h.n; v++)
		first[v] = HW_NONE;
	for (uint32_t c = 0; c < h.ncls; c++)
		if (h.cls[c].node < h.n && first[h.cls[c].node] == HW_NONE) {
			first[h.cls[c].node] = c;
			named++;
		}
	ck_assert_uint_gt(named, 500); /* a JDK's classes */
	for (node_t v = 0; v < h.n; v++)
		ck_assert_msg(heap_class_of_node(&h, v) == first[v], "node %u: class %u, want %u", v,
			      heap_class_of_node(&h, v), first[v]);
	ck_assert_uint_eq(heap_class_of_node(&h, HW_NONE), HW_NONE);
	/* the last class with an object, as if it came after the first question */
	uint32_t last = h.ncls;
	while (last-- > 0 && h.cls[last].node >= h.n)
		;
	ck_assert_uint_lt(last, h.ncls);
	uint32_t was = h.ncls;
	h.ncls = last;
	node_t v = h.cls[last].node;
	ck_assert_uint_ne(heap_class_of_node(&h, v), last);
	h.ncls = was;
	ck_assert_uint_eq(heap_class_of_node(&h, v), first[v]);
	free(first);
	heap_free(&h);
}
END_TEST

/* Out of address space (ulimit -v), at many limits: each run ends with
 * an answer, or with one line on stderr and status 3 (out of memory) or
 * 2 (the dump cannot be mapped); never a crash. Some limit must give 3.
 * A sanitizer build reserves terabytes for its shadow memory and cannot
 * start under any such limit: skipped there, with a line. */
START_TEST(test_address_space_limit)
{
	char dump[512];
	int status, threes = 0;

	ensure_dump("coops", "");
	snprintf(dump, sizeof dump, "%s/coops.hprof", TEST_BUILDDIR "/dumps");
	char *probe = xasprintf("ulimit -v 200000; '%s' --version >/dev/null 2>&1", heapwalk());
	if (system(probe) != 0) {
		fprintf(stderr, "test_address_space_limit: heapwalk does not start under ulimit -v "
			"(a sanitizer build): skipped\n");
		free(probe);
		return;
	}
	free(probe);
	for (int kb = 8000; kb <= 64000; kb += 4000) {
		char *cmd = xasprintf("ulimit -v %d; '%s' biggest --no-cache -q '%s' 2>&1 >/dev/null; echo \"rc=$?\"",
				      kb, heapwalk(), dump);
		char *out = run(cmd, &status);
		char *rc = strstr(out, "rc=");
		ck_assert(rc != NULL);
		int code = atoi(rc + 3);
		ck_assert_msg(code == 0 || code == 2 || code == 3, "%d kB: status %d: %s", kb, code, out);
		if (code != 0) {
			/* one line, "heapwalk: ...", before the rc line */
			ck_assert_msg(strncmp(out, "heapwalk: ", 10) == 0 && strchr(out, '\n') + 1 == rc,
				      "%d kB: %s", kb, out);
		}
		threes += code == 3;
		free(out);
		free(cmd);
	}
	ck_assert_msg(threes > 0, "no limit gave status 3");
}
END_TEST

Suite *robust_suite(void)
{
	Suite *s = suite_create("robust");
	TCase *tc = tcase_create("robust");

	tcase_set_timeout(tc, FIXTURE_TIMEOUT);
	tcase_add_test(tc, test_many_fields);
	tcase_add_test(tc, test_contended_by_version);
	tcase_add_test(tc, test_empty_field_name);
	tcase_add_test(tc, test_empty_dump_cache);
	tcase_add_test(tc, test_fifo);
	tcase_add_test(tc, test_escaped_file_name);
	tcase_add_test(tc, test_name_characters);
	tcase_add_test(tc, test_corrupt_section_note);
	tcase_add_test(tc, test_forged_warnings_escaped);
	tcase_add_test(tc, test_forged_node_offsets);
	tcase_add_test(tc, test_untrusted_cache);
	tcase_add_test(tc, test_cache_mode_and_group);
	tcase_add_test(tc, test_symlinks_not_followed);
	tcase_add_test(tc, test_stale_temporary_removed);
	tcase_add_test(tc, test_term_during_cache_write);
	tcase_add_test(tc, test_disk_full_still_answers);
	tcase_add_test(tc, test_two_at_once);
	tcase_add_test(tc, test_private_dir_without_home);
	tcase_add_test(tc, test_verify_cache);
	tcase_add_test(tc, test_class_of_node);
	tcase_add_test(tc, test_address_space_limit);
	suite_add_tcase(s, tc);
	return s;
}
