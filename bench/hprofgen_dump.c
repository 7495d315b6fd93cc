/* hprofgen_dump.c — hprofgen's records other than objects: symbols
 * (UTF8), LOAD_CLASS, stack traces, class dumps, GC roots; see
 * hprofgen.c. */
#include <stdlib.h>

#include "hprofgen.h"

#define SYM_BASE 0x7f3a10000000ULL   /* UTF8 ids: HotSpot writes Symbol addresses */
#define JNI_BASE 0x7f3a20000000ULL   /* JNI global handles */
#define MAX_SYMS 512
#define MAX_FIELDS 256

#define TAG_UTF8 0x01
#define TAG_LOAD_CLASS 0x02
#define TAG_FRAME 0x04
#define TAG_TRACE 0x05
#define ROOT_JNI_GLOBAL 0x01
#define ROOT_JAVA_FRAME 0x03
#define ROOT_STICKY_CLASS 0x05
#define ROOT_THREAD_OBJ 0x08
#define CLASS_DUMP 0x20

struct field { char name[48]; uint8_t type; };

static struct field fields[MAX_FIELDS];
static unsigned field_first[NCLS], field_n[NCLS], nfields;
static const char *syms[MAX_SYMS];
static unsigned nsyms;
static int syms_written; /* no new symbol after the UTF8 records */

static uint64_t sym(const char *s)
{
	for (unsigned i = 0; i < nsyms; i++)
		if (strcmp(syms[i], s) == 0)
			return SYM_BASE + 16 * (uint64_t)i;
	if (nsyms == MAX_SYMS || syms_written)
		abort(); /* a bug: dump_setup names every symbol first */
	syms[nsyms] = s;
	return SYM_BASE + 16 * (uint64_t)nsyms++;
}

/* 'L', 'Z', ... 'J' as an HPROF basic type */
static uint8_t letter_type(char c)
{
	static const char letters[] = "LZCFDBSIJ";
	static const uint8_t types[] = {
		T_OBJ, T_BOOL, T_CHAR, T_FLOAT, T_DOUBLE, T_BYTE, T_SHORT, T_INT, T_LONG,
	};
	const char *p = strchr(letters, c);

	if (c == '\0' || p == NULL)
		abort(); /* a bug in the class table */
	return types[p - letters];
}

/* "name:T name:T" of each class into fields[]; g->hsize: the HPROF
 * bytes of an instance, the fields of its supers included */
static void parse_fields(struct gen *g)
{
	uint32_t own[NCLS] = { 0 };

	for (int k = 0; k < NCLS; k++) {
		field_first[k] = nfields;
		for (const char *p = classes[k].fields; *p;) {
			const char *colon = strchr(p, ':');
			struct field *f = &fields[nfields];
			if (colon == NULL || nfields == MAX_FIELDS || (size_t)(colon - p) >= sizeof f->name)
				abort();
			memcpy(f->name, p, (size_t)(colon - p));
			f->name[colon - p] = '\0';
			f->type = letter_type(colon[1]);
			own[k] += type_size(f->type);
			nfields++;
			p = colon + 2;
			p += *p == ' ';
		}
		field_n[k] = nfields - field_first[k];
	}
	for (int k = 0; k < NCLS; k++)
		for (int s = k; s >= 0; s = classes[s].super)
			g->hsize[k] += own[s];
}


/* Every symbol, before the first record names one. */
void dump_setup(struct gen *g)
{
	parse_fields(g);
	for (int k = 0; k < NCLS; k++)
		sym(classes[k].name);
	for (unsigned i = 0; i < nfields; i++)
		sym(fields[i].name);
	for (unsigned i = 0; i < nstatics; i++)
		sym(statics[i].name);
	for (unsigned i = 0; i < nframes; i++) {
		sym(frames[i].method);
		sym(frames[i].sig);
		sym(frames[i].file);
	}
}

static void utf8_records(struct gen *g)
{
	syms_written = 1;
	for (unsigned i = 0; i < nsyms; i++) {
		uint32_t n = (uint32_t)strlen(syms[i]);
		out_record(&g->o, TAG_UTF8, 8 + n);
		put8(&g->o, SYM_BASE + 16 * (uint64_t)i);
		putn(&g->o, syms[i], n);
	}
	for (int k = 0; k < NCLS; k++) {
		out_record(&g->o, TAG_LOAD_CLASS, 24);
		put4(&g->o, (uint32_t)k + 1); /* class serial */
		put8(&g->o, g->mirror[k]);
		put4(&g->o, 1); /* stack trace serial */
		put8(&g->o, sym(classes[k].name));
	}
}

/* The dummy trace 1, then each thread's frames and trace (serial t + 2,
 * thread serial t + 1), as HotSpot orders them. */
static void traces(struct gen *g)
{
	struct out *o = &g->o;
	uint64_t fid = 1;

	out_record(o, TAG_TRACE, 12);
	put4(o, 1);
	put4(o, 0);
	put4(o, 0);
	for (int t = 0; t < NTHREADS; t++) {
		uint64_t first = fid;
		uint32_t n = 0;
		for (unsigned i = 0; i < nframes; i++) {
			const struct gframe *f = &frames[i];
			if (f->thread != t)
				continue;
			out_record(o, TAG_FRAME, 40);
			put8(o, fid++);
			put8(o, sym(f->method));
			put8(o, sym(f->sig));
			put8(o, sym(f->file));
			put4(o, (uint32_t)f->cls + 1);
			put4(o, (uint32_t)f->line);
			n++;
		}
		out_record(o, TAG_TRACE, 12 + 8 * n);
		put4(o, (uint32_t)t + 2);
		put4(o, (uint32_t)t + 1);
		put4(o, n);
		for (uint32_t i = 0; i < n; i++)
			put8(o, first + i);
	}
}

static uint64_t static_value(const struct gen *g, const struct gstatic *s)
{
	return s->boot >= 0 ? g->boot[s->boot] : s->value;
}

static void class_dump(struct gen *g, int k)
{
	struct out *o = &g->o;
	unsigned ns = 0, size = 1 + 8 + 4 + 6 * 8 + 4 + 2 + 2 + 2 + 9 * field_n[k];

	for (unsigned i = 0; i < nstatics; i++)
		if (statics[i].cls == k) {
			ns++;
			size += 9 + type_size(letter_type(statics[i].type));
		}
	out_sub(o, size);
	put1(o, CLASS_DUMP);
	put8(o, g->mirror[k]);
	put4(o, 1);
	put8(o, classes[k].super >= 0 ? g->mirror[classes[k].super] : 0);
	put8(o, classes[k].app ? g->boot[B_APPLOADER] : 0);
	for (int i = 0; i < 4; i++) /* signers, protection domain, reserved */
		put8(o, 0);
	put4(o, g->hsize[k]);
	put2(o, 0); /* constant pool */
	put2(o, (uint16_t)ns);
	for (unsigned i = 0; i < nstatics; i++) {
		const struct gstatic *s = &statics[i];
		if (s->cls != k)
			continue;
		put8(o, sym(s->name));
		put1(o, letter_type(s->type));
		if (s->type == 'I')
			put4(o, (uint32_t)s->value);
		else
			put8(o, static_value(g, s));
	}
	put2(o, (uint16_t)field_n[k]);
	for (unsigned i = 0; i < field_n[k]; i++) {
		put8(o, sym(fields[field_first[k] + i].name));
		put1(o, fields[field_first[k] + i].type);
	}
}

/* ROOT_THREAD_OBJ and ROOT_JAVA_FRAME: an id and two u4 */
static void root_u4s(struct out *o, unsigned tag, uint64_t id, uint32_t a, uint32_t b)
{
	out_sub(o, 17);
	put1(o, tag);
	put8(o, id);
	put4(o, a);
	put4(o, b);
}

static void root_jni(struct out *o, uint64_t id, uint64_t handle)
{
	out_sub(o, 17);
	put1(o, ROOT_JNI_GLOBAL);
	put8(o, id);
	put8(o, handle);
}

static void root_sticky(struct out *o, uint64_t id)
{
	out_sub(o, 9);
	put1(o, ROOT_STICKY_CLASS);
	put8(o, id);
}

static uint64_t local(const struct gen *g, int what, unsigned nth)
{
	switch (what) {
	case LOCAL_NAME: return g->boot[B_NAME];
	case LOCAL_REGISTRY: return g->registry;
	case LOCAL_RECENT: return g->ring_n > nth ? g->ring[(g->ring_n - 1 - nth) % RING] : 0;
	default: return 0;
	}
}

void write_roots(struct gen *g)
{
	struct out *o = &g->o;
	unsigned recent = 0;

	for (int t = 0; t < NTHREADS; t++) {
		root_u4s(o, ROOT_THREAD_OBJ, g->thread[t], (uint32_t)t + 1, (uint32_t)t + 2);
		g->roots_thread++;
		uint32_t depth = 0;
		for (unsigned i = 0; i < nframes; i++) {
			if (frames[i].thread != t)
				continue;
			uint64_t v = local(g, frames[i].local, recent);
			recent += frames[i].local == LOCAL_RECENT;
			if (v) {
				root_u4s(o, ROOT_JAVA_FRAME, v, (uint32_t)t + 1, depth);
				g->roots_frame++;
			}
			depth++;
		}
	}
	for (int i = 0; i < NPLANTS; i++)
		root_jni(o, g->holder[i], JNI_BASE + 8 * (uint64_t)i);
	root_jni(o, g->boot[B_APPLOADER], JNI_BASE + 8 * NPLANTS);
	root_jni(o, g->thread[0], JNI_BASE + 8 * (NPLANTS + 1));
	g->roots_jni = NPLANTS + 2;
	for (int k = 0; k < NCLS; k++) /* the boot loader's classes, arrays aside, as HotSpot */
		if (!classes[k].app && classes[k].name[0] != '[') {
			root_sticky(o, g->mirror[k]);
			g->roots_sticky++;
		}
}


void write_preamble(struct gen *g)
{
	utf8_records(g);
	traces(g);
	for (int k = 0; k < NCLS; k++)
		class_dump(g, k);
}
