/* test_hprofgen.c — bench/hprofgen's synthetic dumps: what heapwalk finds
 * in one equals what the generator says it wrote (FILE.expect: per-class
 * instances and bytes, the planted holders' retained and deep sizes),
 * the layout detected is a jcmd dump's of OpenJDK 17 on this machine, the
 * two have the same kinds of records, and the same seed gives the same
 * bytes. The planted sizes are also checked by brute force here, with a
 * reader of this file's own: what becomes unreachable from the GC roots
 * without the holder, sized as the JVM sizes it (hprof.md), so that
 * neither the generator's nor heapwalk's arithmetic is taken on trust. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "jsonck.h"
#include "suites.h"
#include "util.h"

#define GEN TEST_BUILDDIR "/hprofgen"
#define TMP TEST_BUILDDIR "/tmp"
#define OBJECTS "300000"

/* ---- the generator and its expectations ---- */

struct eclass { char name[128]; unsigned long long count, bytes; };
struct eholder { unsigned long long id, bytes, objects, deep; };

struct expect {
	unsigned long long objects, heap_bytes, classes;
	unsigned roots_thread, roots_frame, roots_jni, roots_sticky;
	int coops, header, array_header, align;
	struct eclass cls[64];
	size_t ncls;
	struct eholder holder[8], shared;
	size_t nholders;
};

/* Write TMP/NAME.hprof (and .expect) with the generator: OBJECTS, or n. */
static void generate_n(const char *name, const char *seed, const char *n)
{
	char cmd[1024];

	mkdir(TMP, 0755);
	snprintf(cmd, sizeof cmd, GEN " -n %s --seed %s -o " TMP "/%s.hprof 2>/dev/null", n, seed, name);
	ck_assert_msg(system(cmd) == 0, "%s failed (make tests/hprofgen?)", cmd);
}

static void generate(const char *name, const char *seed)
{
	generate_n(name, seed, OBJECTS);
}

/* One line of FILE.expect into e: "KEY VALUES", '#' a comment. */
static void expect_line(const char *line, struct expect *e)
{
	char key[16];
	int at = 0, ok = 1;

	if (sscanf(line, "%15s %n", key, &at) != 1 || key[0] == '#')
		return;
	const char *v = line + at;
	if (strcmp(key, "class") == 0) {
		ck_assert_uint_lt(e->ncls, sizeof e->cls / sizeof e->cls[0]);
		struct eclass *c = &e->cls[e->ncls++];
		ok = sscanf(v, "%127s %llu %llu", c->name, &c->count, &c->bytes) == 3;
	} else if (strcmp(key, "holder") == 0) {
		ck_assert_uint_lt(e->nholders, sizeof e->holder / sizeof e->holder[0]);
		struct eholder *h = &e->holder[e->nholders++];
		ok = sscanf(v, "%llx %llu %llu %llu", &h->id, &h->bytes, &h->objects, &h->deep) == 4;
	} else if (strcmp(key, "shared") == 0)
		ok = sscanf(v, "%llx %llu %llu", &e->shared.id, &e->shared.bytes, &e->shared.objects) == 3;
	else if (strcmp(key, "objects") == 0)
		ok = sscanf(v, "%llu", &e->objects) == 1;
	else if (strcmp(key, "heap_bytes") == 0)
		ok = sscanf(v, "%llu", &e->heap_bytes) == 1;
	else if (strcmp(key, "classes") == 0)
		ok = sscanf(v, "%llu", &e->classes) == 1;
	else if (strcmp(key, "roots") == 0)
		ok = sscanf(v, "thread %u frame %u jni %u sticky %u", &e->roots_thread, &e->roots_frame,
			    &e->roots_jni, &e->roots_sticky) == 4;
	else if (strcmp(key, "layout") == 0)
		ok = sscanf(v, "compressed_oops %d object_header %d array_header %d alignment %d", &e->coops,
			    &e->header, &e->array_header, &e->align) == 4;
	ck_assert_msg(ok, "expect: bad line: %s", line);
}

static void read_expect(const char *name, struct expect *e)
{
	char path[512], line[512];

	snprintf(path, sizeof path, TMP "/%s.expect", name);
	FILE *f = fopen(path, "r");
	ck_assert_msg(f != NULL, "no %s", path);
	memset(e, 0, sizeof *e);
	while (fgets(line, sizeof line, f))
		expect_line(line, e);
	fclose(f);
	ck_assert_uint_gt(e->ncls, 10);
	ck_assert_uint_ge(e->nholders, 2);
	ck_assert_uint_ge(e->objects, 300000);
	ck_assert_int_eq(e->header, 12);
}

/* heapwalk -q --no-cache ARGS -f json, parsed into *out. */
static void cli_json(const char *args, struct jv *out)
{
	char cmd[2048], err[256];
	int st;

	snprintf(cmd, sizeof cmd, "%s -q --no-cache %s -f json", heapwalk(), args);
	char *s = run(cmd, &st);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: status %d", cmd, st);
	ck_assert_msg(json_parse(s, strlen(s), out, err, sizeof err) == 0, "%s: %s", cmd, err);
	free(s);
}

static unsigned long long num(const struct jv *o, const char *key)
{
	const struct jv *v = jv_get(o, key);

	ck_assert_msg(v != NULL && v->t == J_NUM && v->is_uint, "no number %s", key);
	return (unsigned long long)v->u;
}

static int flag(const struct jv *o, const char *key)
{
	const struct jv *v = jv_get(o, key);

	ck_assert_msg(v != NULL && v->t == J_BOOL, "no boolean %s", key);
	return v->b;
}

/* ---- heapwalk against the expectations ---- */

/* heapwalk's classes (JSON) against what the generator wrote. */
static void same_classes(const struct jv *j, const struct expect *e);

START_TEST(test_classes)
{
	struct expect e;
	struct jv j;

	generate("hgen", "42");
	read_expect("hgen", &e);
	cli_json("classes " TMP "/hgen.hprof -n 0", &j);
	same_classes(&j, &e);
	jv_free(&j);
}
END_TEST

static void same_classes(const struct jv *jp, const struct expect *ep)
{
	const struct jv j = *jp;
	const struct expect e = *ep;

	ck_assert_uint_eq(num(&j, "objects"), e.objects);
	ck_assert_uint_eq(num(&j, "shallow"), e.heap_bytes);
	const struct jv *rows = jv_get(&j, "rows");
	ck_assert(rows != NULL && rows->t == J_ARR);
	ck_assert_uint_eq(rows->n, e.ncls); /* no class more, none less */
	for (size_t i = 0; i < e.ncls; i++) {
		const struct jv *r = NULL;
		for (size_t k = 0; k < rows->n && r == NULL; k++)
			if (strcmp(jv_get(&rows->v[k], "class")->s, e.cls[i].name) == 0)
				r = &rows->v[k];
		ck_assert_msg(r != NULL, "%s: not in heapwalk's histogram", e.cls[i].name);
		ck_assert_msg(num(r, "instances") == e.cls[i].count && num(r, "shallow") == e.cls[i].bytes,
			      "%s: %llu instances, %llu bytes; the generator wrote %llu, %llu", e.cls[i].name,
			      num(r, "instances"), num(r, "shallow"), e.cls[i].count, e.cls[i].bytes);
	}
}

static const char *const layout_keys[] = {
	"compressed_oops", "compressed_class_pointers", "object_header", "array_header", "alignment",
	"layout_detected", "layout_source",
};

static int is_pseudo_root(const char *kind)
{
	return strcmp(kind, "unreachable") == 0 || strcmp(kind, "weakly reachable") == 0;
}

static const struct jv *root_row(const struct jv *info, const char *kind)
{
	const struct jv *rows = jv_get(info, "rows");

	for (size_t i = 0; rows && i < rows->n; i++)
		if (strcmp(jv_get(&rows->v[i], "root_kind")->s, kind) == 0)
			return &rows->v[i];
	return NULL;
}

/* info: the counts, no warning, nothing unreachable, the roots by kind,
 * and the layout of a real jcmd dump of OpenJDK 17 on this machine. */
START_TEST(test_info_like_jcmd)
{
	struct expect e;
	struct jv g, r;

	generate("hgen", "42");
	read_expect("hgen", &e);
	cli_json("info " TMP "/hgen.hprof", &g);
	ck_assert_uint_eq(num(&g, "objects"), e.objects);
	ck_assert_uint_eq(num(&g, "heap_bytes"), e.heap_bytes);
	ck_assert_uint_eq(num(&g, "classes"), e.classes);
	ck_assert_uint_eq(num(&g, "warnings"), 0);
	ck_assert_uint_eq(num(&g, "dangling_references"), 0);
	ck_assert_uint_eq(num(&g, "unreachable_objects"), 0);
	ck_assert_uint_eq(num(&g, "weakly_reachable_objects"), 0);
	ck_assert(flag(&g, "layout_detected"));
	ck_assert_int_eq(flag(&g, "compressed_oops"), e.coops);
	ck_assert_int_eq((int)num(&g, "object_header"), e.header);
	ck_assert_int_eq((int)num(&g, "array_header"), e.array_header);
	ck_assert_int_eq((int)num(&g, "alignment"), e.align);
	/* every object's address gap is its size: none is off */
	ck_assert_uint_eq(num(&g, "layout_objects_exact"), num(&g, "layout_objects_checked"));
	const struct { const char *kind; unsigned want; } kinds[] = {
		{ "thread", e.roots_thread }, { "stack: Java frame", e.roots_frame },
		{ "global handle: JNI global", e.roots_jni }, { "statics: system class", e.roots_sticky },
	};
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
		const struct jv *row = root_row(&g, kinds[i].kind);
		ck_assert_msg(row != NULL, "no %s roots", kinds[i].kind);
		ck_assert_msg(num(row, "records") == kinds[i].want, "%s roots: %llu, the generator wrote %u",
			      kinds[i].kind, num(row, "records"), kinds[i].want);
	}

	ensure_dump("coops", "");
	cli_json("info " TEST_BUILDDIR "/dumps/coops.hprof", &r);
	for (size_t i = 0; i < sizeof layout_keys / sizeof layout_keys[0]; i++) {
		const struct jv *a = jv_get(&g, layout_keys[i]), *b = jv_get(&r, layout_keys[i]);
		ck_assert_msg(a && b && a->t == b->t && a->b == b->b && a->u == b->u &&
			      (a->t != J_STR || strcmp(a->s, b->s) == 0), "%s differs from the jcmd dump's",
			      layout_keys[i]);
	}
	/* the same kinds of GC roots (the engine's pseudo-roots aside) */
	const struct jv *rows = jv_get(&r, "rows");
	for (size_t i = 0; i < rows->n; i++) {
		const char *kind = jv_get(&rows->v[i], "root_kind")->s;
		ck_assert_msg(is_pseudo_root(kind) || root_row(&g, kind) != NULL, "no %s roots", kind);
	}
	rows = jv_get(&g, "rows");
	for (size_t i = 0; i < rows->n; i++) {
		const char *kind = jv_get(&rows->v[i], "root_kind")->s;
		ck_assert_msg(root_row(&r, kind) != NULL, "%s roots: not in the jcmd dump", kind);
	}
	jv_free(&g);
	jv_free(&r);
}
END_TEST

/* Each holder retains what was written for it alone, and reaches the
 * shared String besides; the String is no holder's: {holder, String}
 * has two tops in the dominator tree. */
START_TEST(test_planted)
{
	struct expect e;
	char args[512];
	struct jv j;

	generate("hgen", "42");
	read_expect("hgen", &e);
	for (size_t i = 0; i <= e.nholders; i++) {
		const struct eholder *h = i < e.nholders ? &e.holder[i] : &e.shared;
		snprintf(args, sizeof args, "-e 'object 0x%llx' info --deep " TMP "/hgen.hprof", h->id);
		cli_json(args, &j);
		unsigned long long bytes = num(&j, "set_retained_bytes");
		unsigned long long objs = num(&j, "set_retained_objects");
		ck_assert_msg(bytes == h->bytes && objs == h->objects, "0x%llx retains %llu bytes in %llu "
			      "objects; the generator planted %llu in %llu", h->id, bytes, objs, h->bytes, h->objects);
		if (i < e.nholders)
			ck_assert_uint_eq(num(&j, "set_deep_bytes"), h->deep);
		jv_free(&j);
	}
	int sharing = 0;
	for (size_t i = 0; i < e.nholders; i++) {
		if (e.holder[i].deep == e.holder[i].bytes)
			continue;
		sharing++;
		ck_assert_uint_eq(e.holder[i].deep - e.holder[i].bytes, e.shared.bytes);
		snprintf(args, sizeof args, "-e 'object 0x%llx,0x%llx | top | objects' " TMP "/hgen.hprof",
			 e.holder[i].id, e.shared.id);
		cli_json(args, &j);
		ck_assert_uint_eq(num(&j, "objects"), 2);
		jv_free(&j);
	}
	ck_assert_int_eq(sharing, 2);
}
END_TEST

/* ---- a reader of this file's own, for what heapwalk is not asked ---- */

struct obj { uint64_t id; size_t off; };
struct dcls { uint64_t id, super; size_t fields; uint16_t nfields; uint32_t size; };

struct dump {
	unsigned char *p;
	size_t n;
	unsigned top[256], sub[256];     /* records seen, by tag */
	struct obj *o;                   /* objects and classes, by id */
	size_t no, capo;
	uint64_t *roots;
	size_t nroots, caproots;
	struct dcls *cls;
	size_t ncls, capcls;
	size_t *utf8;                    /* UTF8 and LOAD_CLASS records' bodies */
	size_t nutf8, caputf8;
	size_t *load;
	size_t nload, capload;
	/* the graph: CSR over the indices of o[] */
	size_t *start, *to;
};

#define GROW(a, n, cap) ((n) == (cap) ? (a) = xreallocarray((a), (cap) = (cap) * 2 + 64, sizeof *(a)) : (a))

static uint64_t be(const unsigned char *p, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

static unsigned tsize(unsigned t)
{
	static const unsigned s[12] = { 0, 0, 8, 0, 1, 2, 4, 8, 1, 2, 4, 8 };

	ck_assert_msg(t < 12 && s[t], "basic type %u", t);
	return s[t];
}

static uint64_t align8(uint64_t v)
{
	return (v + 7) & ~(uint64_t)7;
}

/* JVM instance sizes of the classes a holder can reach: jcmd
 * GC.class_histogram on OpenJDK 17 with compressed oops (the
 * generator's own classes declared as bench/hprofgen_classes.c says) */
static uint32_t jvm_size(const unsigned char *name, size_t len)
{
	static const struct { const char *name; uint32_t size; } s[] = {
		{ "java/lang/String", 24 }, { "java/util/HashMap", 48 }, { "java/util/HashMap$Node", 32 },
		{ "com/example/synth/ChainNode", 24 }, { "com/example/synth/Holder", 32 },
	};

	for (size_t i = 0; i < sizeof s / sizeof s[0]; i++)
		if (strlen(s[i].name) == len && memcmp(s[i].name, name, len) == 0)
			return s[i].size;
	return 0;
}

/* the JVM size of class id's instances, if jvm_size knows its name */
static uint32_t class_size(const struct dump *d, uint64_t id)
{
	for (size_t i = 0; i < d->nload; i++) {
		if (be(d->p + d->load[i] + 4, 8) != id)
			continue;
		uint64_t name = be(d->p + d->load[i] + 16, 8);
		for (size_t k = 0; k < d->nutf8; k++)
			if (be(d->p + d->utf8[k], 8) == name)
				/* the name follows the id; the length is the record's */
				return jvm_size(d->p + d->utf8[k] + 8, be(d->p + d->utf8[k] - 4, 4) - 8);
	}
	return 0;
}

/* The statics of the CLASS_DUMP at p start here (no constant pool:
 * HotSpot writes none). */
static size_t statics_at(const struct dump *d, size_t p)
{
	size_t q = p + 1 + 8 + 4 + 6 * 8 + 4;

	ck_assert_uint_eq(be(d->p + q, 2), 0);
	return q + 2;
}

static size_t class_dump(struct dump *d, size_t p)
{
	size_t q = statics_at(d, p);
	unsigned ns = (unsigned)be(d->p + q, 2);

	q += 2;
	for (unsigned i = 0; i < ns; i++)
		q += 9 + tsize(d->p[q + 8]);
	GROW(d->cls, d->ncls, d->capcls);
	d->cls[d->ncls++] = (struct dcls){ be(d->p + p + 1, 8), be(d->p + p + 13, 8), q + 2,
					   (uint16_t)be(d->p + q, 2), class_size(d, be(d->p + p + 1, 8)) };
	return q + 2 + 9 * (size_t)be(d->p + q, 2) - p;
}

static void add_obj(struct dump *d, size_t p)
{
	GROW(d->o, d->no, d->capo);
	d->o[d->no++] = (struct obj){ be(d->p + p + 1, 8), p };
}

/* The sub-record at p: its length; its object or GC root noted. */
static size_t sub_record(struct dump *d, size_t p)
{
	const unsigned char *b = d->p + p;
	size_t n;

	d->sub[b[0]]++;
	switch (b[0]) {
	case 0x01: case 0x02: case 0x03: case 0x08: n = 17; break;
	case 0x04: case 0x06: n = 13; break;
	case 0x05: case 0x07: case 0xff: n = 9; break;
	case 0x20: add_obj(d, p); return class_dump(d, p);
	case 0x21: add_obj(d, p); return 25 + (size_t)be(b + 21, 4);
	case 0x22: add_obj(d, p); return 25 + 8 * (size_t)be(b + 13, 4);
	case 0x23: add_obj(d, p); return 18 + tsize(b[17]) * (size_t)be(b + 13, 4);
	default: ck_abort_msg("offset %zu: heap sub-record 0x%02x", p, b[0]); return 0;
	}
	GROW(d->roots, d->nroots, d->caproots);
	d->roots[d->nroots++] = be(b + 1, 8);
	return n;
}

static int by_id(const void *a, const void *b)
{
	const struct obj *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static void read_dump(const char *path, struct dump *d)
{
	FILE *f = fopen(path, "rb");

	memset(d, 0, sizeof *d);
	ck_assert_msg(f != NULL, "cannot read %s", path);
	fseek(f, 0, SEEK_END);
	d->n = (size_t)ftell(f);
	rewind(f);
	d->p = xmalloc(d->n + 1);
	ck_assert_uint_eq(fread(d->p, 1, d->n, f), d->n);
	fclose(f);
	d->p[d->n] = 0;
	size_t p = strlen((const char *)d->p) + 1 + 4 + 8;
	while (p + 9 <= d->n) {
		uint8_t tag = d->p[p];
		size_t body = p + 9, end = body + (size_t)be(d->p + p + 5, 4);
		ck_assert_msg(end <= d->n, "%s: offset %zu: record past the end", path, p);
		d->top[tag]++;
		if (tag == 0x01) {
			GROW(d->utf8, d->nutf8, d->caputf8);
			d->utf8[d->nutf8++] = body;
		} else if (tag == 0x02) {
			GROW(d->load, d->nload, d->capload);
			d->load[d->nload++] = body;
		}
		for (size_t q = body; (tag == 0x0c || tag == 0x1c) && q < end;)
			q += sub_record(d, q);
		p = end;
	}
	ck_assert_uint_eq(p, d->n);
	qsort(d->o, d->no, sizeof *d->o, by_id);
}

static void free_dump(struct dump *d)
{
	free(d->p);
	free(d->o);
	free(d->roots);
	free(d->cls);
	free(d->utf8);
	free(d->load);
	free(d->start);
	free(d->to);
}

static size_t find(const struct dump *d, uint64_t id)
{
	size_t lo = 0, hi = d->no;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (d->o[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < d->no && d->o[lo].id == id ? lo : SIZE_MAX;
}

static const struct dcls *class_rec(const struct dump *d, uint64_t id)
{
	for (size_t i = 0; i < d->ncls; i++)
		if (d->cls[i].id == id)
			return &d->cls[i];
	ck_abort_msg("no class dump 0x%llx", (unsigned long long)id);
	return NULL;
}

static void add_ref(const struct dump *d, uint64_t id, size_t *to, size_t *n)
{
	if (id == 0)
		return;
	size_t i = find(d, id);
	ck_assert_msg(i != SIZE_MAX, "a reference to 0x%llx, not in the dump", (unsigned long long)id);
	if (to)
		to[*n] = i;
	++*n;
}

/* The references of object i (to[] filled when not NULL); their count.
 * Fields, elements and statics, not an object's class: as heapwalk's
 * deep size, and the holders' classes are held by the loader anyway. */
static size_t refs(const struct dump *d, size_t i, size_t *to)
{
	const unsigned char *b = d->p + d->o[i].off;
	size_t n = 0;

	if (b[0] == 0x22) {
		for (uint32_t k = 0; k < be(b + 13, 4); k++)
			add_ref(d, be(b + 25 + 8 * k, 8), to, &n);
	} else if (b[0] == 0x21) {
		const unsigned char *f = b + 25;
		for (uint64_t c = be(b + 13, 8); c != 0; c = class_rec(d, c)->super) {
			const struct dcls *k = class_rec(d, c);
			for (unsigned j = 0; j < k->nfields; j++) {
				unsigned t = d->p[k->fields + 9 * j + 8];
				if (t == 2)
					add_ref(d, be(f, 8), to, &n);
				f += tsize(t);
			}
		}
	} else if (b[0] == 0x20) {
		size_t q = statics_at(d, d->o[i].off);
		unsigned ns = (unsigned)be(d->p + q, 2);
		for (unsigned k = 0; k < ns; k++) { /* name, type, value */
			const unsigned char *s = d->p + q + 2 + 8;
			if (s[0] == 2)
				add_ref(d, be(s + 1, 8), to, &n);
			q += 9 + tsize(s[0]);
		}
	}
	return n;
}

static void build_graph(struct dump *d)
{
	d->start = xcalloc(d->no + 1, sizeof *d->start);
	for (size_t i = 0; i < d->no; i++)
		d->start[i + 1] = d->start[i] + refs(d, i, NULL);
	d->to = xmalloc((d->start[d->no] + 1) * sizeof *d->to);
	for (size_t i = 0; i < d->no; i++)
		refs(d, i, d->to + d->start[i]);
}

/* Mark what the GC roots reach (or object from alone), never entering
 * object skip. */
static void reach(const struct dump *d, size_t from, size_t skip, uint8_t *seen)
{
	size_t *queue = xmalloc((d->no + 1) * sizeof *queue), head = 0, tail = 0;

	memset(seen, 0, d->no);
	if (from != SIZE_MAX)
		seen[queue[tail++] = from] = 1;
	for (size_t r = 0; from == SIZE_MAX && r < d->nroots; r++) {
		size_t i = find(d, d->roots[r]);
		ck_assert(i != SIZE_MAX);
		if (i != skip && !seen[i])
			seen[queue[tail++] = i] = 1;
	}
	while (head < tail)
		for (size_t v = queue[head++], e = d->start[v]; e < d->start[v + 1]; e++)
			if (d->to[e] != skip && !seen[d->to[e]])
				seen[queue[tail++] = d->to[e]] = 1;
	free(queue);
}

/* The JVM size of object i, as hprof.md says: arrays by their length,
 * instances of the classes jvm_size knows. */
static uint64_t size_of(const struct dump *d, size_t i)
{
	const unsigned char *b = d->p + d->o[i].off;

	switch (b[0]) {
	case 0x22: return align8(16 + 4 * be(b + 13, 4));
	case 0x23: return align8(16 + tsize(b[17]) * be(b + 13, 4));
	case 0x21: {
		uint32_t s = class_rec(d, be(b + 13, 8))->size;
		ck_assert_msg(s != 0, "0x%llx: an instance of a class this test has no size for",
			      (unsigned long long)d->o[i].id);
		return s;
	}
	default: ck_abort_msg("0x%llx: a class object", (unsigned long long)d->o[i].id); return 0;
	}
}

/* Retained: what the roots reach, but not without object i. */
static void brute_retained(const struct dump *d, size_t i, uint64_t *bytes, uint64_t *objs, uint64_t *deep)
{
	uint8_t *all = xmalloc(d->no + 1), *without = xmalloc(d->no + 1);

	reach(d, SIZE_MAX, SIZE_MAX, all);
	reach(d, SIZE_MAX, i, without);
	*bytes = *objs = 0;
	for (size_t k = 0; k < d->no; k++)
		if (all[k] && !without[k]) {
			*bytes += size_of(d, k);
			++*objs;
		}
	reach(d, i, SIZE_MAX, all);
	*deep = 0;
	for (size_t k = 0; k < d->no; k++)
		*deep += all[k] ? size_of(d, k) : 0;
	free(all);
	free(without);
}

START_TEST(test_planted_brute_force)
{
	struct expect e;
	struct dump d;

	generate("hgen", "42");
	read_expect("hgen", &e);
	read_dump(TMP "/hgen.hprof", &d);
	ck_assert_uint_eq(d.no, e.objects);
	build_graph(&d);
	for (size_t h = 0; h <= e.nholders; h++) {
		const struct eholder *x = h < e.nholders ? &e.holder[h] : &e.shared;
		size_t i = find(&d, x->id);
		uint64_t bytes, objs, deep;
		ck_assert(i != SIZE_MAX);
		brute_retained(&d, i, &bytes, &objs, &deep);
		ck_assert_msg(bytes == x->bytes && objs == x->objects, "0x%llx retains %llu bytes in %llu "
			      "objects, the generator says %llu in %llu", x->id, (unsigned long long)bytes,
			      (unsigned long long)objs, x->bytes, x->objects);
		if (h < e.nholders)
			ck_assert_uint_eq(deep, x->deep);
	}
	free_dump(&d);
}
END_TEST

/* The same kinds of records as the JDK writes, top-level and in the heap. */
START_TEST(test_record_kinds_like_jcmd)
{
	struct dump g, r;

	generate("hgen", "42");
	ensure_dump("coops", "");
	read_dump(TMP "/hgen.hprof", &g);
	read_dump(TEST_BUILDDIR "/dumps/coops.hprof", &r);
	for (int t = 0; t < 256; t++) {
		ck_assert_msg(!g.top[t] == !r.top[t], "record 0x%02x: %u here, %u in the jcmd dump", t,
			      g.top[t], r.top[t]);
		ck_assert_msg(!g.sub[t] == !r.sub[t], "heap record 0x%02x: %u here, %u in the jcmd dump", t,
			      g.sub[t], r.sub[t]);
	}
	/* what a reader must cope with: classes, instances, both arrays,
	 * segments, the four kinds of roots */
	static const int subs[] = { 0x20, 0x21, 0x22, 0x23, 0x01, 0x03, 0x05, 0x08 };
	for (size_t i = 0; i < sizeof subs / sizeof subs[0]; i++)
		ck_assert_msg(g.sub[subs[i]] > 0, "no heap record 0x%02x", subs[i]);
	ck_assert(g.top[0x1c] > 1 && g.top[0x2c] == 1);
	free_dump(&g);
	free_dump(&r);
}
END_TEST

static int same_file(const char *a, const char *b)
{
	char cmd[1024];

	snprintf(cmd, sizeof cmd, "cmp -s '%s' '%s'", a, b);
	return system(cmd) == 0;
}

/* heapwalk, with ENV, refuses COMMAND on DUMP with exit status WANT and
 * one line on stderr naming the dump and saying A ... B; no output. */
static void refused(const char *env, const char *command, const char *dump, int want, const char *a,
		    const char *b)
{
	char cmd[2048];
	int st;
	size_t n;

	snprintf(cmd, sizeof cmd, "%s %s -q %s %s 2>%s/refused.err", env, heapwalk(), command, dump, TMP);
	char *out = run(cmd, &st);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == want, "%s: status %d, want exit %d", cmd, st, want);
	ck_assert_str_eq(out, "");
	char *err = file_bytes(TMP "/refused.err", &n);
	char *head = xasprintf("heapwalk: %s: ", dump);
	ck_assert_msg(strncmp(err, head, strlen(head)) == 0, "%s: said %s", cmd, err);
	ck_assert_msg(strchr(err, '\n') == err + n - 1, "%s: not one line: %s", cmd, err);
	const char *pa = strstr(err, a);
	ck_assert_msg(pa != NULL && strstr(pa, b) != NULL, "%s: said %s", cmd, err);
	free(head);
	free(err);
	free(out);
}

/* make bench-huge at a hundredth of its size there (a dump of twice
 * this machine's memory: some 7.7 M objects of the generator's here),
 * under a memory budget a hundredth of the machine's too (32 bytes an
 * object: HEAPWALK_MEMORY_MB), so that the cold open takes each way that
 * holds less (heap_tight) as the big one does: the classes are the
 * generator's; from the cache it wrote, the planted objects retain what
 * was planted; and every figure, cold and cached, is byte for byte what
 * an open without the budget gives. */
#ifdef HW_TEST_ASAN
#define HUNDREDTH "1500000" /* the sanitizers' allocator: a fifth */
#else
#define HUNDREDTH "7700000"
#endif
START_TEST(test_hundredth)
{
	struct expect e;
	struct jv j;
	char cmd[2048], err[256];
	int st;

	generate_n("hundredth", "7", HUNDREDTH);
	read_expect("hundredth", &e);
	const char *dump = TMP "/hundredth.hprof";
	unsigned long long budget = e.objects * 32 >> 20;
	char *cache = xasprintf("%s.hwi", dump);
	unlink(cache);
	/* too little memory for the objects: refused after the scan, before
	 * the work, in one line saying how much; nothing written */
	refused("HEAPWALK_MEMORY_MB=1", "classes", dump, 2, "objects need about", "is available: not opened");
	struct stat sb;
	ck_assert_msg(stat(cache, &sb) != 0, "a cache was written for a dump refused");
	snprintf(cmd, sizeof cmd, "HEAPWALK_MEMORY_MB=%llu %s -q classes -n 0 -f json %s", budget, heapwalk(), dump);
	char *tight = run(cmd, &st);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: status %d", cmd, st);
	ck_assert_msg(json_parse(tight, strlen(tight), &j, err, sizeof err) == 0, "%s: %s", cmd, err);
	same_classes(&j, &e);
	jv_free(&j);
	ck_assert_msg(stat(cache, &sb) == 0, "no cache written under the budget");
	snprintf(cmd, sizeof cmd, "%s -q --no-cache classes -n 0 -f json %s", heapwalk(), dump);
	char *plain = run(cmd, &st);
	ck_assert_str_eq(tight, plain);
	/* from the cache, the classes' totals need no memory to speak of;
	 * the dominator tree does, and is refused in one line (exit 3) */
	snprintf(cmd, sizeof cmd, "HEAPWALK_MEMORY_MB=1 %s -q classes -n 0 -f json %s", heapwalk(), dump);
	char *cached = run(cmd, &st);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: status %d", cmd, st);
	ck_assert_str_eq(cached, plain);
	free(cached);
	refused("HEAPWALK_MEMORY_MB=1", "biggest", dump, 3, "loading the object graph needs", "is available");
	free(plain);
	free(tight);
	/* the planted objects at once: their retained sizes from the cache,
	 * and the same objects parsed afresh */
	struct sbuf ids;
	sbuf_init(&ids);
	for (size_t i = 0; i <= e.nholders; i++)
		sbuf_printf(&ids, "%s0x%llx", i ? "," : "", i < e.nholders ? e.holder[i].id : e.shared.id);
	char *out[2];
	for (int k = 0; k < 2; k++) {
		snprintf(cmd, sizeof cmd, "%s -q %s -e 'object %s' objects -f json %s", heapwalk(),
			 k ? "--no-cache" : "", ids.buf, dump);
		out[k] = run(cmd, &st);
		ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: status %d", cmd, st);
	}
	ck_assert_str_eq(out[0], out[1]);
	ck_assert_msg(json_parse(out[0], strlen(out[0]), &j, err, sizeof err) == 0, "%s", err);
	const struct jv *rows = jv_get(&j, "rows");
	ck_assert(rows != NULL && rows->n == e.nholders + 1);
	for (size_t i = 0; i <= e.nholders; i++) {
		const struct eholder *h = i < e.nholders ? &e.holder[i] : &e.shared;
		const struct jv *r = NULL;
		char want[32];
		snprintf(want, sizeof want, "0x%llx", h->id);
		for (size_t k = 0; k < rows->n && r == NULL; k++)
			if (strcmp(jv_get(&rows->v[k], "id")->s, want) == 0)
				r = &rows->v[k];
		ck_assert_msg(r != NULL, "%s: not shown", want);
		ck_assert_msg(num(r, "retained") == h->bytes, "%s retains %llu bytes; the generator planted %llu",
			      want, num(r, "retained"), h->bytes);
	}
	jv_free(&j);
	free(out[0]);
	free(out[1]);
	sbuf_free(&ids);
	unlink(cache);
	unlink(dump);
	unlink(TMP "/hundredth.expect");
	free(cache);
}
END_TEST

START_TEST(test_deterministic)
{
	generate("hgen", "42");
	generate("hgen-again", "42");
	generate("hgen-other", "43");
	ck_assert(same_file(TMP "/hgen.hprof", TMP "/hgen-again.hprof"));
	ck_assert(same_file(TMP "/hgen.expect", TMP "/hgen-again.expect"));
	ck_assert(!same_file(TMP "/hgen.hprof", TMP "/hgen-other.hprof"));
	unlink(TMP "/hgen-again.hprof");
	unlink(TMP "/hgen-again.expect");
	unlink(TMP "/hgen-other.hprof");
	unlink(TMP "/hgen-other.expect");
}
END_TEST

Suite *hprofgen_suite(void)
{
	Suite *s = suite_create("hprofgen");
	TCase *tc = tcase_create("generated");

	tcase_set_timeout(tc, FIXTURE_TIMEOUT);
	tcase_add_test(tc, test_classes);
	tcase_add_test(tc, test_info_like_jcmd);
	tcase_add_test(tc, test_planted);
	tcase_add_test(tc, test_planted_brute_force);
	tcase_add_test(tc, test_record_kinds_like_jcmd);
	tcase_add_test(tc, test_deterministic);
	tcase_add_test(tc, test_hundredth);
	suite_add_tcase(s, tc);
	return s;
}
