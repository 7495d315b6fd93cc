/* agent.c — libheapwalk-agent.so, a JVMTI agent for heapwalk.
 *
 * HPROF object ids are addresses, and a compacting collector moves
 * objects between two dumps, so two ordinary dumps cannot be compared
 * object by object. This agent gives every object a JVMTI tag, a 64-bit
 * number taken from one counter that only grows; the JVM keeps tags
 * through garbage collections. Then:
 *
 *   mark          tags every untagged object and records the counter as
 *                 the watermark: an object whose tag is at or below the
 *                 last watermark existed at the mark.
 *   dump=FILE     writes an HPROF 1.0.2 dump whose object ids are the
 *                 tags, after a full GC (as `jcmd GC.heap_dump` does).
 *                 Objects not yet tagged are tagged as they are written.
 *                 The mark, the JVM's object layout and its exact
 *                 instance sizes go in UTF8 string records that no
 *                 object refers to, which other HPROF readers store and
 *                 ignore:
 *                   "heapwalk-agent/1 session=HEX pid=N watermark=N ..."
 *                   "heapwalk-sizes/1 CLASSID:SIZE:MIRRORSIZE ..." (hex id)
 *                 Classes loaded but not yet linked are linked first
 *                 (not initialized), as reflection does, so that their
 *                 fields are known; what that makes is in the dump.
 *                 The file is written as FILE.tmp-PID and renamed when
 *                 complete, so a failed dump leaves nothing under FILE.
 *   sample=BYTES  samples allocations about every BYTES (0: off; 1:
 *                 every allocation); each sampled object keeps its stack
 *                 trace, written as HPROF STACK TRACE/FRAME records that
 *                 its INSTANCE_DUMP or array record names, and the time
 *                 it was allocated, in one more string record:
 *                   "heapwalk-times/1 start_ms=N origin=WORD TAG:MS ..."
 *                 start_ms: the JVM's start (origin=jvm: the process's
 *                 start as Linux tells it, to its clock tick; origin=agent:
 *                 when the agent was loaded, if /proc does not tell), in
 *                 ms since the epoch; per object its id (hex) and the
 *                 wall-clock ms from start_ms to its allocation.
 *   status=[DEV:INO:]FILE
 *                 writes one line for the caller: "ok ..." or
 *                 "error: ...". Give it once, before the command. FILE is
 *                 the caller's, made before it loads the agent; the agent
 *                 only writes into it, never makes it, and only if it is
 *                 a regular file of the agent's own user with one link,
 *                 not a symbolic link, and (DEV and INO given, in
 *                 decimal) the very file of that device and inode: else
 *                 it does nothing at all, before it takes any of the
 *                 JVM's capabilities (someone else's file put at the
 *                 name of one its caller removed). The caller that
 *                 gave up waiting removes it: if it is gone when the
 *                 agent starts, nothing is done; if it is gone when the
 *                 agent has finished (told under a lock on the file,
 *                 flock, which the caller takes to remove it), a dump is
 *                 removed, not renamed, and a mark undone (the previous
 *                 watermark restored: what it tagged counts as new).
 *                 A dump looks every 4 MiB, a mark every 65536 objects,
 *                 and stops there once the file is gone.
 *
 * Options are separated by commas, so file names cannot hold one.
 * Given at start (-agentpath:LIB=OPTIONS) or on attach (jcmd PID
 * JVMTI.agent_load LIB OPTIONS); a later attach finds the earlier state,
 * because the library is loaded once. Attach always returns success once
 * the agent holds state (an error return would unload the library under
 * its own callbacks); failures are reported through status= and stderr.
 *
 * Heap callbacks run in the VM thread at a safepoint: they only touch
 * this file's own state, under no lock of the JVM's. */
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <jvmti.h>

#define AGENT "heapwalk-agent"
#define MAX_FRAMES 64          /* per sampled allocation */
#define MAX_THREAD_FRAMES 1024 /* per thread stack in a dump */
#define SEGMENT_LIMIT (1u << 30)

/* HPROF record and sub-record tags. */
enum {
	H_UTF8 = 0x01, H_LOAD_CLASS = 0x02, H_FRAME = 0x04, H_TRACE = 0x05,
	H_SEGMENT = 0x1c, H_END = 0x2c,
	R_UNKNOWN = 0xff, R_JNI_GLOBAL = 0x01, R_JNI_LOCAL = 0x02, R_JAVA_FRAME = 0x03,
	R_STICKY_CLASS = 0x05, R_MONITOR_USED = 0x07, R_THREAD_OBJ = 0x08,
	S_CLASS_DUMP = 0x20, S_INSTANCE = 0x21, S_OBJ_ARRAY = 0x22, S_PRIM_ARRAY = 0x23,
	T_OBJECT = 2, T_BOOLEAN = 4, T_CHAR = 5, T_FLOAT = 6, T_DOUBLE = 7, T_BYTE = 8,
	T_SHORT = 9, T_INT = 10, T_LONG = 11
};

/* ------------------------------------------------------------------ */
/* State that lives as long as the JVM. */

static jvmtiEnv *g_ti;
static jrawMonitorID g_lock;        /* sample table and traces */
static _Atomic uint64_t g_next_tag = 1;
static uint64_t g_watermark, g_marks, g_mark_ms;
static uint64_t g_session;
static int g_can_sample, g_sampling;
static uint64_t g_samples; /* sampled allocations, all told */
static uint64_t g_start_ms; /* the JVM's start, ms since the epoch */
static int g_start_known;   /* g_start_ms is the process's start, not the agent's load */

static uint64_t now_ms(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (uint64_t)tv.tv_sec * 1000 + (uint64_t)tv.tv_usec / 1000;
}

static jlong new_tag(void)
{
	return (jlong)atomic_fetch_add(&g_next_tag, 1);
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL) {
		fprintf(stderr, AGENT ": out of memory\n");
		abort();
	}
	return p;
}

static void *xcalloc(size_t n, size_t s)
{
	void *p = calloc(n ? n : 1, s ? s : 1);

	if (p == NULL) {
		fprintf(stderr, AGENT ": out of memory\n");
		abort();
	}
	return p;
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (p == NULL) {
		fprintf(stderr, AGENT ": out of memory\n");
		abort();
	}
	return p;
}

/* A hash map from 64-bit keys (never 0) to 64-bit values. */
struct map {
	uint64_t *key, *val;
	size_t cap, n;
};

static size_t map_slot(const struct map *m, uint64_t k)
{
	uint64_t h = k * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 17) & (m->cap - 1);
}

static uint64_t *map_find(const struct map *m, uint64_t k)
{
	if (m->cap == 0)
		return NULL;
	for (size_t i = map_slot(m, k);; i = (i + 1) & (m->cap - 1)) {
		if (m->key[i] == k)
			return &m->val[i];
		if (m->key[i] == 0)
			return NULL;
	}
}

static void map_put(struct map *m, uint64_t k, uint64_t v);

static void map_grow(struct map *m)
{
	struct map o = *m;

	m->cap = o.cap ? o.cap * 2 : 1024;
	m->key = xcalloc(m->cap, sizeof *m->key);
	m->val = xcalloc(m->cap, sizeof *m->val);
	m->n = 0;
	for (size_t i = 0; i < o.cap; i++)
		if (o.key[i])
			map_put(m, o.key[i], o.val[i]);
	free(o.key);
	free(o.val);
}

static void map_put(struct map *m, uint64_t k, uint64_t v)
{
	if ((m->n + 1) * 2 > m->cap)
		map_grow(m);
	for (size_t i = map_slot(m, k);; i = (i + 1) & (m->cap - 1)) {
		if (m->key[i] == k) {
			m->val[i] = v;
			return;
		}
		if (m->key[i] == 0) {
			m->key[i] = k;
			m->val[i] = v;
			m->n++;
			return;
		}
	}
}

static void map_free(struct map *m)
{
	free(m->key);
	free(m->val);
	memset(m, 0, sizeof *m);
}

/* Sampled allocations: object tag -> trace index, and the distinct
 * traces (method ids and locations). Under g_lock. */
struct trace {
	int n;
	uint64_t hash;
	jmethodID method[MAX_FRAMES];
	jlocation loc[MAX_FRAMES];
};
static struct map g_sampled;     /* tag -> trace index + 1 */
static struct map g_sample_ms;   /* tag -> ms since the epoch of its allocation */
static struct map g_trace_index; /* trace hash -> first index + 1 (chained by scan) */
static struct trace *g_traces;
static size_t g_ntraces, g_captraces;

/* ------------------------------------------------------------------ */
/* Errors. */

struct err {
	char msg[512];
	int set;
};

static void fail(struct err *e, const char *fmt, ...)
{
	va_list ap;

	if (e->set)
		return;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof e->msg, fmt, ap);
	va_end(ap);
	e->set = 1;
}

static const char *ti_error(jvmtiError rc)
{
	char *name = NULL;
	static char buf[64];

	if (g_ti && (*g_ti)->GetErrorName(g_ti, rc, &name) == JVMTI_ERROR_NONE && name) {
		snprintf(buf, sizeof buf, "%s", name);
		(*g_ti)->Deallocate(g_ti, (unsigned char *)name);
		return buf;
	}
	snprintf(buf, sizeof buf, "JVMTI error %d", (int)rc);
	return buf;
}

static void ti_free(void *p)
{
	if (p)
		(*g_ti)->Deallocate(g_ti, p);
}

/* ------------------------------------------------------------------ */
/* The output file: big-endian writes, segments patched with their length. */

/* The running command's status file (-1: none), and what was stopped
 * part way because its caller gave up (removed it): 1 a dump, 2 a mark. */
static int g_status_fd = -1, g_abandoned;

/* The caller gave up on the running command: its status file has no
 * link left. Looked at every chunk of a dump and every so many objects
 * of a mark, so that a JVM given up on does not go on writing. */
static int caller_gone(void)
{
	struct stat st;

	return g_status_fd >= 0 && fstat(g_status_fd, &st) == 0 && st.st_nlink == 0;
}

struct out {
	FILE *f;
	char *buf;
	int err;             /* errno of the first failed write */
	long long seg_start; /* offset of the open segment's length, or -1 */
	uint64_t seg_len;
	uint64_t bytes;
	uint64_t chunk; /* bytes / 4 MiB when caller_gone was last asked */
};

static void w(struct out *o, const void *p, size_t n)
{
	if (o->err)
		return;
	if (fwrite(p, 1, n, o->f) != n)
		o->err = errno ? errno : EIO;
	o->bytes += n;
	o->seg_len += n;
	if (o->bytes >> 22 != o->chunk) {
		o->chunk = o->bytes >> 22;
		if (caller_gone()) {
			g_abandoned = 1;
			o->err = ECANCELED;
		}
	}
}
static void w1(struct out *o, unsigned v) { uint8_t b = (uint8_t)v; w(o, &b, 1); }
static void w2(struct out *o, unsigned v) { uint8_t b[2] = { (uint8_t)(v >> 8), (uint8_t)v }; w(o, b, 2); }
static void w4(struct out *o, uint32_t v)
{
	uint8_t b[4] = { (uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v };
	w(o, b, 4);
}
static void w8(struct out *o, uint64_t v) { w4(o, (uint32_t)(v >> 32)); w4(o, (uint32_t)v); }

static void put8(uint8_t *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

static void record(struct out *o, unsigned tag, uint32_t len)
{
	w1(o, tag);
	w4(o, 0);
	w4(o, len);
}

static void seg_end(struct out *o)
{
	if (o->seg_start < 0 || o->err)
		return;
	long long here = ftello(o->f);
	if (fseeko(o->f, o->seg_start, SEEK_SET) != 0) {
		o->err = errno;
		return;
	}
	w4(o, (uint32_t)(o->seg_len - 4));
	o->bytes -= 4; /* written over, counted when first written */
	if (fseeko(o->f, here, SEEK_SET) != 0)
		o->err = errno;
	o->seg_start = -1;
}

/* Before each sub-record: open a segment, or a new one past the limit. */
static void seg_need(struct out *o, uint64_t next)
{
	if (o->seg_start >= 0 && o->seg_len + next < SEGMENT_LIMIT)
		return;
	seg_end(o);
	w1(o, H_SEGMENT);
	w4(o, 0);
	if (o->err)
		return;
	o->seg_start = ftello(o->f);
	o->seg_len = 0;
	w4(o, 0); /* patched by seg_end; seg_len counts it, hence the -4 */
}

/* ------------------------------------------------------------------ */
/* Strings, classes and their field maps. */

struct field {
	uint32_t name;   /* string id */
	uint8_t type;    /* HPROF basic type */
	uint8_t is_static;
};

struct slot {            /* a JVMTI field index of an instance class */
	int32_t off;     /* offset in HPROF instance data, -1: static */
	uint8_t type;
};

struct statv {           /* a static field's value, found in the walk */
	uint32_t name;
	uint8_t type;
	uint64_t v;
};

struct klass {
	jclass ref;           /* global reference */
	uint64_t tag;
	uint32_t name;        /* string id */
	uint32_t serial;
	int super;            /* class index, -1 */
	uint64_t loader, signers, domain;
	int is_array, is_interface, prepared;
	uint8_t elem;         /* arrays: element type */
	struct field *fields; /* declared, GetClassFields order */
	int nfields;
	int if_fields;        /* fields of all interfaces it implements */
	int base;             /* JVMTI index of its first own field */
	uint32_t inst_bytes;  /* HPROF instance data, supers included */
	struct slot *slots;   /* instance classes: index - if_fields -> slot */
	int nslots;
	struct statv *statics;
	int nstatics, capstatics;
	uint64_t jvm_size;    /* instance size seen in the walk */
	uint64_t mirror_size; /* its java.lang.Class object's size */
	int visited;          /* scratch for interface walks */
	int has_instances;    /* seen by the heap iteration */
};

struct strtab {
	struct map index;     /* hash of text -> id, collisions checked */
	char **text;
	uint32_t n, cap;
};

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211ull;
	return h ? h : 1;
}

static uint32_t intern(struct strtab *t, const char *s)
{
	uint64_t h = str_hash(s);

	for (;; h = h * 31 + 7) { /* probe past hash collisions of other texts */
		if (h == 0)
			h = 1;
		uint64_t *v = map_find(&t->index, h);
		if (v == NULL)
			break;
		if (strcmp(t->text[*v - 1], s) == 0)
			return (uint32_t)*v;
	}
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 1024;
		t->text = xrealloc(t->text, t->cap * sizeof *t->text);
	}
	t->text[t->n++] = strdup(s);
	map_put(&t->index, h, t->n);
	return t->n;
}

struct method {
	uint32_t name, sig, source, class_serial;
	jvmtiLineNumberEntry *lines;
	jint nlines;
};

struct thread_info {
	uint64_t tag;
	uint32_t serial, trace;
};

/* A set of tags. */
struct tagset {
	uint64_t *w;
	size_t n;
};

static void tagset_add(struct tagset *t, uint64_t tag)
{
	size_t w = (size_t)(tag >> 6);

	if (w >= t->n) {
		size_t n = t->n ? t->n : 1024;
		while (n <= w)
			n *= 2;
		t->w = xrealloc(t->w, n * sizeof *t->w);
		memset(t->w + t->n, 0, (n - t->n) * sizeof *t->w);
		t->n = n;
	}
	t->w[w] |= 1ull << (tag & 63);
}

static int tagset_has(const struct tagset *t, uint64_t tag)
{
	size_t w = (size_t)(tag >> 6);

	return w < t->n && (t->w[w] >> (tag & 63) & 1);
}

/* Everything one dump needs. */
struct dump {
	struct err e;
	struct out o;
	JNIEnv *jni;
	struct strtab str;
	struct klass *cls;
	int ncls;
	struct map cls_by_tag;   /* class tag -> index + 1 */
	uint64_t class_class_tag;/* java.lang.Class */
	uint32_t cp_name;        /* "<constant pool>" */
	struct thread_info *threads;
	int nthreads;
	struct map methods;      /* jmethodID -> index + 1 */
	struct method *meth;
	size_t nmeth, capmeth;
	struct map frames;       /* (method, location) hash -> frame id */
	uint64_t next_frame;
	uint32_t *trace_serial;  /* sampled trace index -> serial */
	uint32_t next_trace;
	/* the walk */
	struct map arrlen;       /* object array tag -> length */
	struct map mirrors;      /* instances of Class not described: tag -> 1 */
	uint64_t cur;            /* object whose references are arriving */
	int cur_kind;            /* 0 none, 1 instance, 2 object array, 3 class, 4 prim array,
				  * 5 skip (class unknown), 6 skip (written already) */
	int cur_cls;
	uint8_t *data;
	size_t capdata;
	uint64_t *elems;
	size_t nelems, capelems;
	int prim_written;
	uint64_t objects, unknown_class, written_bytes;
	/* the objects in the heap right after the collection, and those
	 * written; the second walk starts from the live ones not written */
	struct tagset live, written;
	int second;              /* in the second pass */
	uint64_t *unreached;     /* tags of objects the first walk missed */
	size_t nunreached, capunreached;
	uint64_t second_roots;
	struct map second_rooted;
	uint64_t dropped;        /* references whose field index maps to no field */
	uint64_t linked;         /* classes linked for the dump */
	/* layout */
	unsigned ref, header, array_header, align;
};

static int ti_ok(struct dump *d, jvmtiError rc, const char *what)
{
	if (rc == JVMTI_ERROR_NONE)
		return 1;
	fail(&d->e, "%s failed: %s", what, ti_error(rc));
	return 0;
}

static uint8_t sig_type(char c)
{
	switch (c) {
	case 'Z': return T_BOOLEAN;
	case 'C': return T_CHAR;
	case 'F': return T_FLOAT;
	case 'D': return T_DOUBLE;
	case 'B': return T_BYTE;
	case 'S': return T_SHORT;
	case 'I': return T_INT;
	case 'J': return T_LONG;
	default: return T_OBJECT;
	}
}

static unsigned type_size(uint8_t t)
{
	switch (t) {
	case T_BOOLEAN: case T_BYTE: return 1;
	case T_CHAR: case T_SHORT: return 2;
	case T_FLOAT: case T_INT: return 4;
	default: return 8; /* long, double, object ids */
	}
}

/* "Ljava/lang/String;" -> "java/lang/String"; arrays stay as they are.
 * A hidden class's suffix, ".0x..." in JVMTI's signature, is "+0x..." as
 * in the JVM's own name (and in jcmd's dumps). */
static void class_name_of(const char *sig, char *buf, size_t n)
{
	size_t len = strlen(sig);

	if (sig[0] == 'L' && len >= 2 && sig[len - 1] == ';')
		snprintf(buf, n, "%.*s", (int)(len - 2), sig + 1);
	else
		snprintf(buf, n, "%s", sig);
	char *slash = strrchr(buf, '/');
	char *hidden = strstr(slash ? slash : buf, ".0x");
	if (hidden != NULL)
		*hidden = '+';
}

static uint64_t tag_of(struct dump *d, jobject obj)
{
	jlong t = 0;

	if (obj == NULL)
		return 0;
	if (!ti_ok(d, (*g_ti)->GetTag(g_ti, obj, &t), "GetTag"))
		return 0;
	if (t == 0) {
		t = new_tag();
		if (!ti_ok(d, (*g_ti)->SetTag(g_ti, obj, t), "SetTag"))
			return 0;
	}
	return (uint64_t)t;
}

static int class_index(struct dump *d, uint64_t tag)
{
	uint64_t *v = map_find(&d->cls_by_tag, tag);

	return v ? (int)*v - 1 : -1;
}

/* Fields of the interfaces `ref` implements and of their superinterfaces,
 * each interface once per walk (gen). */
static int add_interfaces(struct dump *d, jclass ref, int gen)
{
	jint n = 0;
	jclass *ifs = NULL;
	int total = 0;

	if ((*g_ti)->GetImplementedInterfaces(g_ti, ref, &n, &ifs) != JVMTI_ERROR_NONE)
		return 0;
	for (jint i = 0; i < n; i++) {
		jlong t = 0;
		(*g_ti)->GetTag(g_ti, ifs[i], &t);
		int x = class_index(d, (uint64_t)t);
		if (x >= 0 && d->cls[x].visited != gen) {
			d->cls[x].visited = gen;
			total += d->cls[x].nfields + add_interfaces(d, d->cls[x].ref, gen);
		}
		(*d->jni)->DeleteLocalRef(d->jni, ifs[i]);
	}
	ti_free(ifs);
	return total;
}

/* The number of fields of all the interfaces class c implements: the
 * base of its JVMTI field indices. */
static int interface_fields(struct dump *d, int c, int gen)
{
	int total = 0;

	for (int k = c; k >= 0; k = d->cls[k].super) {
		total += add_interfaces(d, d->cls[k].ref, gen);
		if (d->cls[k].is_interface)
			break;
	}
	return total;
}

/* A prepared class's declared fields, in GetClassFields order. */
static void read_fields(struct dump *d, struct klass *k)
{
	jint nf = 0;
	jfieldID *fids = NULL;

	if (k->is_array || !k->prepared)
		return;
	if ((*g_ti)->GetClassFields(g_ti, k->ref, &nf, &fids) != JVMTI_ERROR_NONE)
		return;
	free(k->fields);
	k->fields = xcalloc((size_t)nf, sizeof *k->fields);
	for (jint f = 0; f < nf; f++) {
		char *fname = NULL, *fsig = NULL;
		jint mods = 0;
		if (!ti_ok(d, (*g_ti)->GetFieldName(g_ti, k->ref, fids[f], &fname, &fsig, NULL), "GetFieldName"))
			break;
		(*g_ti)->GetFieldModifiers(g_ti, k->ref, fids[f], &mods);
		k->fields[f].name = intern(&d->str, fname);
		k->fields[f].type = sig_type(fsig[0]);
		k->fields[f].is_static = (mods & 0x0008) != 0;
		ti_free(fname);
		ti_free(fsig);
	}
	k->nfields = nf;
	ti_free(fids);
}

/* Classes loaded but not linked can have instances (objects from the CDS
 * archive exist before their class is linked), and JVMTI lists no
 * fields of such a class. Reflection links a class without initializing
 * it: ask each such class with live instances (found by the heap
 * iteration) for its declared fields once, then read them. What that
 * allocates is not reachable from the roots the walk reports. */
static void link_classes(struct dump *d)
{
	jclass cc = (*d->jni)->FindClass(d->jni, "java/lang/Class");
	jmethodID get = cc ? (*d->jni)->GetMethodID(d->jni, cc, "getDeclaredFields",
						  "()[Ljava/lang/reflect/Field;") : NULL;

	(*d->jni)->ExceptionClear(d->jni);
	for (int c = 0; c < d->ncls && get; c++) {
		struct klass *k = &d->cls[c];
		jint status = 0;
		if (k->prepared || k->is_array || !k->has_instances)
			continue;
		jobject r = (*d->jni)->CallObjectMethod(d->jni, k->ref, get);
		(*d->jni)->ExceptionClear(d->jni); /* a class that does not link stays without fields */
		if (r)
			(*d->jni)->DeleteLocalRef(d->jni, r);
		(*g_ti)->GetClassStatus(g_ti, k->ref, &status);
		k->prepared = (status & JVMTI_CLASS_STATUS_PREPARED) != 0;
		read_fields(d, k);
		d->linked++;
	}
	if (cc)
		(*d->jni)->DeleteLocalRef(d->jni, cc);
}

static int load_classes(struct dump *d)
{
	jint n = 0;
	jclass *all = NULL;
	char name[4096];

	if (!ti_ok(d, (*g_ti)->GetLoadedClasses(g_ti, &n, &all), "GetLoadedClasses"))
		return 0;
	d->cls = xcalloc((size_t)n, sizeof *d->cls);
	for (jint i = 0; i < n && !d->e.set; i++) {
		struct klass *k = &d->cls[d->ncls];
		char *sig = NULL;
		jint status = 0;

		k->ref = (*d->jni)->NewGlobalRef(d->jni, all[i]);
		(*d->jni)->DeleteLocalRef(d->jni, all[i]);
		k->tag = tag_of(d, k->ref);
		if (!ti_ok(d, (*g_ti)->GetClassSignature(g_ti, k->ref, &sig, NULL), "GetClassSignature"))
			break;
		class_name_of(sig, name, sizeof name);
		if (strcmp(sig, "Ljava/lang/Class;") == 0)
			d->class_class_tag = k->tag;
		k->is_array = sig[0] == '[';
		if (k->is_array)
			k->elem = sig[1] == '[' || sig[1] == 'L' ? T_OBJECT : sig_type(sig[1]);
		ti_free(sig);
		k->name = intern(&d->str, name);
		k->serial = (uint32_t)d->ncls + 1;
		k->super = -1;
		(*g_ti)->GetClassStatus(g_ti, k->ref, &status);
		k->prepared = (status & JVMTI_CLASS_STATUS_PREPARED) != 0;
		jboolean isif = JNI_FALSE;
		(*g_ti)->IsInterface(g_ti, k->ref, &isif);
		k->is_interface = isif == JNI_TRUE;
		map_put(&d->cls_by_tag, k->tag, (uint64_t)d->ncls + 1);
		d->ncls++;
	}
	ti_free(all);
	if (d->e.set)
		return 0;

	/* supers, loaders, fields */
	for (int c = 0; c < d->ncls && !d->e.set; c++) {
		struct klass *k = &d->cls[c];
		jclass sup = (*d->jni)->GetSuperclass(d->jni, k->ref);
		jobject loader = NULL;

		if (sup) {
			jlong t = 0;
			(*g_ti)->GetTag(g_ti, sup, &t);
			k->super = class_index(d, (uint64_t)t);
			(*d->jni)->DeleteLocalRef(d->jni, sup);
		}
		if ((*g_ti)->GetClassLoader(g_ti, k->ref, &loader) == JVMTI_ERROR_NONE && loader) {
			k->loader = tag_of(d, loader);
			(*d->jni)->DeleteLocalRef(d->jni, loader);
		}
		read_fields(d, k);
	}
	if (d->e.set)
		return 0;

	return 1;
}

/* Each class's JVMTI field index base and, for instance classes, where
 * each index goes in the HPROF instance data. */
static void layout_fields(struct dump *d)
{
	/* JVMTI field indices: fields of all implemented interfaces first,
	 * then the fields of java.lang.Object down to the class. */
	for (int c = 0; c < d->ncls; c++) {
		struct klass *k = &d->cls[c];
		if (k->is_array || !k->prepared)
			continue;
		k->if_fields = interface_fields(d, c, c + 1);
		int above = 0;
		for (int s = k->super; s >= 0; s = d->cls[s].super)
			above += d->cls[s].nfields;
		k->base = k->if_fields + (k->is_interface ? 0 : above);
		if (k->is_interface)
			continue;
		/* HPROF instance data: own instance fields, then the super's */
		k->nslots = above + k->nfields;
		k->slots = xcalloc((size_t)k->nslots, sizeof *k->slots);
		uint32_t off = 0;
		int end = k->nslots;
		for (int s = c; s >= 0; s = d->cls[s].super) {
			struct klass *sk = &d->cls[s];
			int first = end - sk->nfields;
			for (int f = 0; f < sk->nfields; f++) {
				struct slot *sl = &k->slots[first + f];
				sl->type = sk->fields[f].type;
				if (sk->fields[f].is_static) {
					sl->off = -1;
				} else {
					sl->off = (int32_t)off;
					off += type_size(sl->type);
				}
			}
			end = first;
		}
		k->inst_bytes = off;
	}
}

/* ------------------------------------------------------------------ */
/* Frames and traces: threads' stacks and sampled allocation sites. */

static int method_index(struct dump *d, jmethodID m)
{
	uint64_t *v = map_find(&d->methods, (uint64_t)(uintptr_t)m);
	char *name = NULL, *sig = NULL, *src = NULL, *csig = NULL;
	char cname[4096];
	jclass decl = NULL;
	struct method *me;

	if (v)
		return (int)*v - 1;
	if (d->nmeth == d->capmeth) {
		d->capmeth = d->capmeth ? d->capmeth * 2 : 256;
		d->meth = xrealloc(d->meth, d->capmeth * sizeof *d->meth);
	}
	me = &d->meth[d->nmeth];
	memset(me, 0, sizeof *me);
	if ((*g_ti)->GetMethodName(g_ti, m, &name, &sig, NULL) == JVMTI_ERROR_NONE) {
		me->name = intern(&d->str, name);
		me->sig = intern(&d->str, sig);
	} else {
		me->name = intern(&d->str, "<unknown>");
		me->sig = intern(&d->str, "()V");
	}
	ti_free(name);
	ti_free(sig);
	me->source = intern(&d->str, "");
	if ((*g_ti)->GetMethodDeclaringClass(g_ti, m, &decl) == JVMTI_ERROR_NONE && decl) {
		jlong t = 0;
		(*g_ti)->GetTag(g_ti, decl, &t);
		int c = class_index(d, (uint64_t)t);
		if (c >= 0)
			me->class_serial = d->cls[c].serial;
		if ((*g_ti)->GetSourceFileName(g_ti, decl, &src) == JVMTI_ERROR_NONE) {
			me->source = intern(&d->str, src);
			ti_free(src);
		}
		if (c < 0 && (*g_ti)->GetClassSignature(g_ti, decl, &csig, NULL) == JVMTI_ERROR_NONE) {
			class_name_of(csig, cname, sizeof cname);
			ti_free(csig);
		}
		(*d->jni)->DeleteLocalRef(d->jni, decl);
	}
	if ((*g_ti)->GetLineNumberTable(g_ti, m, &me->nlines, &me->lines) != JVMTI_ERROR_NONE) {
		me->lines = NULL;
		me->nlines = 0;
	}
	map_put(&d->methods, (uint64_t)(uintptr_t)m, d->nmeth + 1);
	return (int)d->nmeth++;
}

static int32_t line_of(const struct method *me, jlocation loc)
{
	int32_t line = -1;
	jlocation best = -1;

	for (jint i = 0; i < me->nlines; i++)
		if (me->lines[i].start_location <= loc && me->lines[i].start_location > best) {
			best = me->lines[i].start_location;
			line = me->lines[i].line_number;
		}
	return line;
}

/* A FRAME record for (method, location), once; returns its id. */
static uint64_t frame_id(struct dump *d, jmethodID m, jlocation loc)
{
	uint64_t key = ((uint64_t)(uintptr_t)m * 0x9e3779b97f4a7c15ull) ^ (uint64_t)loc;
	int mi;

	if (key == 0)
		key = 1;
	/* distinct (method, location) pairs may share key: the id then names
	 * the first pair's frame; both are in one method, near enough */
	uint64_t *v = map_find(&d->frames, key);
	if (v)
		return *v;
	mi = method_index(d, m);
	const struct method *me = &d->meth[mi];
	uint64_t id = ++d->next_frame;
	record(&d->o, H_FRAME, 8 * 4 + 8);
	w8(&d->o, id);
	w8(&d->o, me->name);
	w8(&d->o, me->sig);
	w8(&d->o, me->source);
	w4(&d->o, me->class_serial);
	w4(&d->o, (uint32_t)(loc < 0 ? -3 : line_of(me, loc)));
	map_put(&d->frames, key, id);
	return id;
}

static uint32_t write_trace(struct dump *d, uint32_t thread_serial, const jvmtiFrameInfo *fi,
			    const jmethodID *ms, const jlocation *locs, int n)
{
	uint64_t *ids = xmalloc((size_t)(n ? n : 1) * sizeof *ids);
	uint32_t serial = ++d->next_trace;

	for (int i = 0; i < n; i++)
		ids[i] = fi ? frame_id(d, fi[i].method, fi[i].location) : frame_id(d, ms[i], locs[i]);
	record(&d->o, H_TRACE, 12 + 8 * (uint32_t)n);
	w4(&d->o, serial);
	w4(&d->o, thread_serial);
	w4(&d->o, (uint32_t)n);
	for (int i = 0; i < n; i++)
		w8(&d->o, ids[i]);
	free(ids);
	return serial;
}

/* Needs the string records written first: frames name strings, so the
 * strings they add are written after (readers take strings in any order). */
static void write_threads(struct dump *d)
{
	jint n = 0;
	jthread *ts = NULL;
	jvmtiFrameInfo *fi = xmalloc(MAX_THREAD_FRAMES * sizeof *fi);

	if ((*g_ti)->GetAllThreads(g_ti, &n, &ts) != JVMTI_ERROR_NONE)
		n = 0;
	d->threads = xcalloc((size_t)n, sizeof *d->threads);
	for (jint i = 0; i < n; i++) {
		jint depth = 0;
		struct thread_info *t = &d->threads[d->nthreads++];
		t->tag = tag_of(d, ts[i]);
		t->serial = (uint32_t)i + 1;
		if ((*g_ti)->GetStackTrace(g_ti, ts[i], 0, MAX_THREAD_FRAMES, fi, &depth) != JVMTI_ERROR_NONE)
			depth = 0;
		t->trace = write_trace(d, t->serial, fi, NULL, NULL, depth);
		(*d->jni)->DeleteLocalRef(d->jni, ts[i]);
	}
	ti_free(ts);
	free(fi);
}

static void write_sampled_traces(struct dump *d)
{
	d->trace_serial = xcalloc(g_ntraces, sizeof *d->trace_serial);
	for (size_t i = 0; i < g_ntraces; i++)
		d->trace_serial[i] = write_trace(d, 0, NULL, g_traces[i].method, g_traces[i].loc, g_traces[i].n);
}

static void write_strings(struct dump *d, uint32_t from)
{
	for (uint32_t i = from; i < d->str.n; i++) {
		size_t len = strlen(d->str.text[i]);
		record(&d->o, H_UTF8, (uint32_t)(8 + len));
		w8(&d->o, i + 1);
		w(&d->o, d->str.text[i], len);
	}
}

/* ------------------------------------------------------------------ */
/* The heap walk. */

static uint32_t thread_serial(struct dump *d, jlong tag)
{
	for (int i = 0; i < d->nthreads; i++)
		if (d->threads[i].tag == (uint64_t)tag)
			return d->threads[i].serial;
	return 0;
}

static uint32_t sample_trace(struct dump *d, uint64_t tag)
{
	uint64_t *v = map_find(&g_sampled, tag);

	if (v == NULL || *v == 0)
		return 0;
	*v |= 1ull << 63; /* seen: kept after the dump */
	size_t ti = (size_t)(*v & ~(1ull << 63)) - 1;
	return ti < g_ntraces ? d->trace_serial[ti] : 0;
}

static void set_written(struct dump *d, uint64_t tag) { tagset_add(&d->written, tag); }
static int is_written(const struct dump *d, uint64_t tag) { return tagset_has(&d->written, tag); }

static void flush_current(struct dump *d)
{
	struct out *o = &d->o;

	switch (d->cur_kind) {
	case 1: { /* instance */
		struct klass *k = &d->cls[d->cur_cls];
		seg_need(o, 1 + 8 + 4 + 8 + 4 + k->inst_bytes);
		w1(o, S_INSTANCE);
		w8(o, d->cur);
		w4(o, sample_trace(d, d->cur));
		w8(o, k->tag);
		w4(o, k->inst_bytes);
		w(o, d->data, k->inst_bytes);
		d->objects++;
		break;
	}
	case 2: { /* object array */
		struct klass *k = &d->cls[d->cur_cls];
		seg_need(o, 1 + 8 + 4 + 4 + 8 + 8 * (uint64_t)d->nelems);
		w1(o, S_OBJ_ARRAY);
		w8(o, d->cur);
		w4(o, sample_trace(d, d->cur));
		w4(o, (uint32_t)d->nelems);
		w8(o, k->tag);
		for (size_t i = 0; i < d->nelems; i++)
			w8(o, d->elems[i]);
		d->objects++;
		break;
	}
	case 4: /* primitive array without a value callback: empty */
		if (!d->prim_written) {
			struct klass *k = &d->cls[d->cur_cls];
			seg_need(o, 1 + 8 + 4 + 4 + 1);
			w1(o, S_PRIM_ARRAY);
			w8(o, d->cur);
			w4(o, sample_trace(d, d->cur));
			w4(o, 0);
			w1(o, k->elem);
			d->objects++;
		}
		break;
	default:
		break;
	}
	if (d->cur_kind >= 1 && d->cur_kind <= 4)
		set_written(d, d->cur);
	d->cur_kind = 0;
	d->cur = 0;
}

static void begin_object(struct dump *d, uint64_t tag, jlong class_tag)
{
	flush_current(d);
	d->cur = tag;
	int c = class_index(d, tag);
	if (c >= 0) { /* a class mirror: its references fill the class record */
		d->cur_kind = 3;
		d->cur_cls = c;
		return;
	}
	if (is_written(d, tag)) { /* reported twice: HotSpot does not, but never write it twice */
		d->cur_kind = 6;
		return;
	}
	c = class_index(d, (uint64_t)class_tag);
	if (c < 0) {
		d->cur_kind = 5;
		d->unknown_class++;
		return;
	}
	struct klass *k = &d->cls[c];
	d->cur_cls = c;
	if (k->is_array && k->elem == T_OBJECT) {
		uint64_t *len = map_find(&d->arrlen, tag);
		d->cur_kind = 2;
		d->nelems = len && *len ? (size_t)(*len - 1) : 0; /* kept as length + 1 */
		if (d->nelems > d->capelems) {
			d->capelems = d->nelems;
			d->elems = xrealloc(d->elems, d->capelems * sizeof *d->elems);
		}
		memset(d->elems, 0, d->nelems * sizeof *d->elems);
	} else if (k->is_array) {
		d->cur_kind = 4;
		d->prim_written = 0;
	} else {
		d->cur_kind = 1;
		if (k->inst_bytes > d->capdata) {
			d->capdata = k->inst_bytes;
			d->data = xrealloc(d->data, d->capdata);
		}
		memset(d->data, 0, k->inst_bytes);
	}
}

static void add_static(struct klass *k, uint32_t name, uint8_t type, uint64_t v)
{
	if (k->nstatics == k->capstatics) {
		k->capstatics = k->capstatics ? k->capstatics * 2 : 8;
		k->statics = xrealloc(k->statics, (size_t)k->capstatics * sizeof *k->statics);
	}
	k->statics[k->nstatics++] = (struct statv){ name, type, v };
}

static const struct field *own_field(const struct klass *k, jint index)
{
	int p = index - k->base;

	return p >= 0 && p < k->nfields ? &k->fields[p] : NULL;
}

static void put_value(uint8_t *p, uint8_t type, uint64_t v)
{
	unsigned n = type_size(type);

	for (int i = (int)n - 1; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

static void root(struct dump *d, unsigned kind, uint64_t tag, uint32_t serial, uint32_t extra)
{
	struct out *o = &d->o;

	switch (kind) {
	case R_JNI_GLOBAL:
		seg_need(o, 17);
		w1(o, kind); w8(o, tag); w8(o, 0);
		break;
	case R_JNI_LOCAL: case R_JAVA_FRAME: case R_THREAD_OBJ:
		seg_need(o, 17);
		w1(o, kind); w8(o, tag); w4(o, serial); w4(o, extra);
		break;
	default:
		seg_need(o, 9);
		w1(o, kind); w8(o, tag);
		break;
	}
}

static jint JNICALL on_reference(jvmtiHeapReferenceKind kind, const jvmtiHeapReferenceInfo *info,
				 jlong class_tag, jlong referrer_class_tag, jlong size,
				 jlong *tag_ptr, jlong *referrer_tag_ptr, jint length, void *user)
{
	struct dump *d = user;

	if (d->e.set || d->o.err)
		return JVMTI_VISIT_ABORT;
	if (*tag_ptr == 0)
		*tag_ptr = new_tag();
	uint64_t tag = (uint64_t)*tag_ptr;
	int c = class_index(d, (uint64_t)class_tag);
	if (c >= 0 && !d->cls[c].is_array && (uint64_t)class_tag != d->class_class_tag &&
	    d->cls[c].jvm_size == 0)
		d->cls[c].jvm_size = (uint64_t)size;
	if (length >= 0 && c >= 0 && d->cls[c].is_array && d->cls[c].elem == T_OBJECT)
		map_put(&d->arrlen, tag, (uint64_t)length + 1);
	if (class_tag != 0 && (uint64_t)class_tag == d->class_class_tag) {
		int m = class_index(d, tag);
		if (m < 0)
			map_put(&d->mirrors, tag, 1);
		else
			d->cls[m].mirror_size = (uint64_t)size;
	}

	if (d->second && referrer_tag_ptr == NULL) {
		/* the second walk: its roots are the first's (written already,
		 * not again) and our global references to what it missed */
		if (is_written(d, tag) || map_find(&d->second_rooted, tag))
			return 0;
		map_put(&d->second_rooted, tag, 1);
		root(d, R_UNKNOWN, tag, 0, 0);
		d->second_roots++;
		return JVMTI_VISIT_OBJECTS;
	}
	switch (kind) {
	case JVMTI_HEAP_REFERENCE_JNI_GLOBAL: root(d, R_JNI_GLOBAL, tag, 0, 0); return JVMTI_VISIT_OBJECTS;
	case JVMTI_HEAP_REFERENCE_SYSTEM_CLASS: root(d, R_STICKY_CLASS, tag, 0, 0); return JVMTI_VISIT_OBJECTS;
	case JVMTI_HEAP_REFERENCE_MONITOR: root(d, R_MONITOR_USED, tag, 0, 0); return JVMTI_VISIT_OBJECTS;
	case JVMTI_HEAP_REFERENCE_OTHER: root(d, R_UNKNOWN, tag, 0, 0); return JVMTI_VISIT_OBJECTS;
	case JVMTI_HEAP_REFERENCE_STACK_LOCAL:
		root(d, R_JAVA_FRAME, tag, thread_serial(d, info->stack_local.thread_tag),
		     (uint32_t)info->stack_local.depth);
		return JVMTI_VISIT_OBJECTS;
	case JVMTI_HEAP_REFERENCE_JNI_LOCAL:
		root(d, R_JNI_LOCAL, tag, thread_serial(d, info->jni_local.thread_tag),
		     (uint32_t)info->jni_local.depth);
		return JVMTI_VISIT_OBJECTS;
	case JVMTI_HEAP_REFERENCE_THREAD: {
		uint32_t serial = 0, trace = 0;
		for (int i = 0; i < d->nthreads; i++)
			if (d->threads[i].tag == tag) {
				serial = d->threads[i].serial;
				trace = d->threads[i].trace;
			}
		root(d, R_THREAD_OBJ, tag, serial, trace);
		return JVMTI_VISIT_OBJECTS;
	}
	default:
		break;
	}
	if (referrer_tag_ptr == NULL)
		return JVMTI_VISIT_OBJECTS;
	if (*referrer_tag_ptr == 0)
		*referrer_tag_ptr = new_tag();
	uint64_t from = (uint64_t)*referrer_tag_ptr;
	if (from != d->cur)
		begin_object(d, from, referrer_class_tag);

	switch (kind) {
	case JVMTI_HEAP_REFERENCE_FIELD:
		if (d->cur_kind == 1) {
			struct klass *k = &d->cls[d->cur_cls];
			int p = info->field.index - k->if_fields;
			if (p >= 0 && p < k->nslots && k->slots[p].off >= 0)
				put8(d->data + k->slots[p].off, tag);
			else
				d->dropped++;
		} else {
			d->dropped++;
		}
		break;
	case JVMTI_HEAP_REFERENCE_ARRAY_ELEMENT:
		if (d->cur_kind == 2) {
			size_t i = (size_t)info->array.index;
			if (i >= d->nelems) { /* length unknown: grow */
				if (i + 1 > d->capelems) {
					d->capelems = (i + 1) * 2;
					d->elems = xrealloc(d->elems, d->capelems * sizeof *d->elems);
				}
				memset(d->elems + d->nelems, 0, (i + 1 - d->nelems) * sizeof *d->elems);
				d->nelems = i + 1;
			}
			d->elems[i] = tag;
		}
		break;
	case JVMTI_HEAP_REFERENCE_STATIC_FIELD:
		if (d->cur_kind == 3) {
			struct klass *k = &d->cls[d->cur_cls];
			const struct field *f = own_field(k, info->field.index);
			if (f)
				add_static(k, f->name, T_OBJECT, tag);
			else
				d->dropped++;
		} else {
			d->dropped++;
		}
		break;
	case JVMTI_HEAP_REFERENCE_CONSTANT_POOL:
		if (d->cur_kind == 3)
			add_static(&d->cls[d->cur_cls], d->cp_name, T_OBJECT, tag);
		break;
	case JVMTI_HEAP_REFERENCE_SIGNERS:
		if (d->cur_kind == 3)
			d->cls[d->cur_cls].signers = tag;
		break;
	case JVMTI_HEAP_REFERENCE_PROTECTION_DOMAIN:
		if (d->cur_kind == 3)
			d->cls[d->cur_cls].domain = tag;
		break;
	default: /* CLASS, CLASS_LOADER, SUPERCLASS, INTERFACE: in the class table */
		break;
	}
	/* the second pass goes no further than what the first left out */
	return d->second && is_written(d, tag) ? 0 : JVMTI_VISIT_OBJECTS;
}

static uint64_t jvalue_bits(jvalue v, jvmtiPrimitiveType t)
{
	switch (t) {
	case JVMTI_PRIMITIVE_TYPE_BOOLEAN: return v.z;
	case JVMTI_PRIMITIVE_TYPE_BYTE: return (uint8_t)v.b;
	case JVMTI_PRIMITIVE_TYPE_CHAR: return v.c;
	case JVMTI_PRIMITIVE_TYPE_SHORT: return (uint16_t)v.s;
	case JVMTI_PRIMITIVE_TYPE_INT: return (uint32_t)v.i;
	case JVMTI_PRIMITIVE_TYPE_FLOAT: { uint32_t u; memcpy(&u, &v.f, 4); return u; }
	case JVMTI_PRIMITIVE_TYPE_LONG: return (uint64_t)v.j;
	case JVMTI_PRIMITIVE_TYPE_DOUBLE: { uint64_t u; memcpy(&u, &v.d, 8); return u; }
	}
	return 0;
}

static jint JNICALL on_primitive_field(jvmtiHeapReferenceKind kind, const jvmtiHeapReferenceInfo *info,
				       jlong class_tag, jlong *tag_ptr, jvalue value,
				       jvmtiPrimitiveType type, void *user)
{
	struct dump *d = user;

	if (d->e.set || d->o.err)
		return JVMTI_VISIT_ABORT;
	if ((uint64_t)*tag_ptr != d->cur)
		return 0; /* fields arrive after the object's class reference */
	if (kind == JVMTI_HEAP_REFERENCE_FIELD && d->cur_kind == 1) {
		struct klass *k = &d->cls[d->cur_cls];
		int p = info->field.index - k->if_fields;
		if (p >= 0 && p < k->nslots && k->slots[p].off >= 0)
			put_value(d->data + k->slots[p].off, k->slots[p].type, jvalue_bits(value, type));
	} else if (kind == JVMTI_HEAP_REFERENCE_STATIC_FIELD && d->cur_kind == 3) {
		struct klass *k = &d->cls[d->cur_cls];
		const struct field *f = own_field(k, info->field.index);
		if (f)
			add_static(k, f->name, f->type, jvalue_bits(value, type));
	}
	return 0;
}

static jint JNICALL on_array(jlong class_tag, jlong size, jlong *tag_ptr, jint count,
			     jvmtiPrimitiveType type, const void *elems, void *user)
{
	struct dump *d = user;
	struct out *o = &d->o;
	uint8_t t = sig_type((char)type);
	unsigned es = type_size(t);

	if (d->e.set || o->err)
		return JVMTI_VISIT_ABORT;
	if ((uint64_t)*tag_ptr != d->cur || d->cur_kind != 4)
		return 0;
	seg_need(o, 1 + 8 + 4 + 4 + 1 + (uint64_t)count * es);
	w1(o, S_PRIM_ARRAY);
	w8(o, d->cur);
	w4(o, sample_trace(d, d->cur));
	w4(o, (uint32_t)count);
	w1(o, t);
	/* elements are in the JVM's byte order: HPROF wants big-endian */
	const uint8_t *p = elems;
	if (es == 1) {
		w(o, p, (size_t)count);
	} else {
		uint8_t buf[8192];
		size_t fill = 0;
		for (jint i = 0; i < count; i++, p += es) {
			for (unsigned b = 0; b < es; b++)
				buf[fill + b] = p[es - 1 - b];
			fill += es;
			if (fill + 8 > sizeof buf) {
				w(o, buf, fill);
				fill = 0;
			}
		}
		w(o, buf, fill);
	}
	d->prim_written = 1;
	d->objects++;
	return 0;
}

/* Every object in the heap, right after the collection (so the dead
 * are gone): the live set. Some are live through roots JVMTI does not
 * report (threads hidden from it, the VM's own handles), and the walk
 * from the reported roots misses them. */
static jint JNICALL on_any(jlong class_tag, jlong size, jlong *tag_ptr, jint length, void *user)
{
	struct dump *d = user;

	if (*tag_ptr == 0)
		*tag_ptr = new_tag();
	uint64_t tag = (uint64_t)*tag_ptr;
	tagset_add(&d->live, tag);
	int c = class_index(d, (uint64_t)class_tag);
	if (c >= 0)
		d->cls[c].has_instances = 1;
	if (length >= 0 && c >= 0 && d->cls[c].is_array && d->cls[c].elem == T_OBJECT)
		map_put(&d->arrlen, tag, (uint64_t)length + 1);
	if (c >= 0 && !d->cls[c].is_array && (uint64_t)class_tag != d->class_class_tag &&
	    d->cls[c].jvm_size == 0)
		d->cls[c].jvm_size = (uint64_t)size;
	return 0;
}

/* Walk from the objects the first walk missed, each held by an
 * "unknown" root (something in the VM holds it), no further than what
 * is written. One walk, not one per object: every walk ends with a pass
 * over the whole heap in the JVM. The objects become JNI global
 * references for it, the roots through which the walk reaches them. */
static void second_pass(struct dump *d, const jvmtiHeapCallbacks *cb)
{
	jint n = 0;
	jobject *objs = NULL;
	jlong *tags = NULL;

	for (size_t w = 0; w < d->live.n; w++) {
		uint64_t bits = d->live.w[w] & ~(w < d->written.n ? d->written.w[w] : 0);
		for (; bits; bits &= bits - 1) {
			uint64_t tag = (uint64_t)w << 6 | (uint64_t)__builtin_ctzll(bits);
			if (map_find(&d->mirrors, tag))
				continue;
			if (d->nunreached == d->capunreached) {
				d->capunreached = d->capunreached ? d->capunreached * 2 : 1024;
				d->unreached = xrealloc(d->unreached, d->capunreached * sizeof *d->unreached);
			}
			d->unreached[d->nunreached++] = tag;
		}
	}
	if (d->nunreached == 0)
		return;
	if (!ti_ok(d, (*g_ti)->GetObjectsWithTags(g_ti, (jint)d->nunreached, (const jlong *)d->unreached,
						  &n, &objs, &tags), "GetObjectsWithTags"))
		return;
	for (jint i = 0; i < n; i++) {
		jobject g = (*d->jni)->NewGlobalRef(d->jni, objs[i]);
		(*d->jni)->DeleteLocalRef(d->jni, objs[i]);
		objs[i] = g;
	}
	d->second = 1;
	ti_ok(d, (*g_ti)->FollowReferences(g_ti, 0, NULL, NULL, cb, d), "FollowReferences");
	flush_current(d);
	d->second = 0;
	for (jint i = 0; i < n; i++) {
		/* reported nothing: a primitive type's Class, written at the end */
		if (!is_written(d, (uint64_t)tags[i]))
			map_put(&d->mirrors, (uint64_t)tags[i], 1);
		if (objs[i])
			(*d->jni)->DeleteGlobalRef(d->jni, objs[i]);
	}
	ti_free(objs);
	ti_free(tags);
}

static void write_class_dumps(struct dump *d)
{
	struct out *o = &d->o;

	for (int c = 0; c < d->ncls; c++) {
		struct klass *k = &d->cls[c];
		int ninst = 0;
		uint64_t len = 1 + 8 + 4 + 8 * 7 + 4 + 2 + 2 + 2;

		for (int f = 0; f < k->nfields; f++)
			ninst += !k->fields[f].is_static;
		for (int s = 0; s < k->nstatics; s++)
			len += 8 + 1 + type_size(k->statics[s].type);
		len += (uint64_t)ninst * 9;
		seg_need(o, len);
		d->objects++; /* the class object: info counts it */
		w1(o, S_CLASS_DUMP);
		w8(o, k->tag);
		w4(o, 0);
		w8(o, k->super >= 0 ? d->cls[k->super].tag : 0);
		w8(o, k->loader);
		w8(o, k->signers);
		w8(o, k->domain);
		w8(o, 0);
		w8(o, 0);
		w4(o, k->inst_bytes);
		w2(o, 0); /* constant pool: resolved entries are statics named <constant pool> */
		w2(o, (unsigned)k->nstatics);
		for (int s = 0; s < k->nstatics; s++) {
			w8(o, k->statics[s].name);
			w1(o, k->statics[s].type);
			uint8_t b[8];
			put_value(b, k->statics[s].type, k->statics[s].v);
			w(o, b, type_size(k->statics[s].type));
		}
		w2(o, (unsigned)ninst);
		for (int f = 0; f < k->nfields; f++)
			if (!k->fields[f].is_static) {
				w8(o, k->fields[f].name);
				w1(o, k->fields[f].type);
			}
	}
	/* instances of java.lang.Class that describe no loaded class
	 * (the primitive types' mirrors): plain instances */
	int cc = class_index(d, d->class_class_tag);
	if (cc >= 0)
		for (size_t i = 0; i < d->mirrors.cap; i++) {
			if (d->mirrors.key[i] == 0)
				continue;
			struct klass *k = &d->cls[cc];
			seg_need(o, 1 + 8 + 4 + 8 + 4 + k->inst_bytes);
			if (k->inst_bytes > d->capdata) {
				d->capdata = k->inst_bytes;
				d->data = xrealloc(d->data, d->capdata);
			}
			memset(d->data, 0, k->inst_bytes);
			w1(o, S_INSTANCE);
			w8(o, d->mirrors.key[i]);
			w4(o, 0);
			w8(o, k->tag);
			w4(o, k->inst_bytes);
			w(o, d->data, k->inst_bytes);
			d->objects++;
		}
}

/* The JVM's object layout, from the sizes it reports for a few objects. */
static void measure_layout(struct dump *d)
{
	JNIEnv *e = d->jni;
	jclass obj = (*e)->FindClass(e, "java/lang/Object");
	jlong s0 = 0, s2 = 0, b1 = 0, b9 = 0;

	d->ref = 4, d->header = 12, d->array_header = 16, d->align = 8;
	if (obj == NULL) {
		(*e)->ExceptionClear(e);
		return;
	}
	jobjectArray a0 = (*e)->NewObjectArray(e, 0, obj, NULL);
	jobjectArray a2 = (*e)->NewObjectArray(e, 2, obj, NULL);
	jbyteArray y1 = (*e)->NewByteArray(e, 1);
	jbyteArray y9 = (*e)->NewByteArray(e, 9);
	if (a0 && a2 && y1 && y9) {
		(*g_ti)->GetObjectSize(g_ti, a0, &s0);
		(*g_ti)->GetObjectSize(g_ti, a2, &s2);
		(*g_ti)->GetObjectSize(g_ti, y1, &b1);
		(*g_ti)->GetObjectSize(g_ti, y9, &b9);
		/* byte[1] and byte[9] straddle one alignment unit */
		d->align = (unsigned)(b9 - b1) >= 8 ? (unsigned)(b9 - b1) : 8;
		d->array_header = (unsigned)(b1 - d->align);
		d->header = d->array_header == 16 ? 12 : 16;
		d->ref = (unsigned)(s2 - s0) >= 16 ? 8 : 4;
	}
	(*e)->ExceptionClear(e);
	jobject made[] = { obj, a0, a2, y1, y9 };
	for (size_t i = 0; i < sizeof made / sizeof made[0]; i++)
		if (made[i])
			(*e)->DeleteLocalRef(e, made[i]);
}

static void write_marker(struct dump *d, uint64_t dump_ms)
{
	char text[512];
	int n = snprintf(text, sizeof text,
			 "heapwalk-agent/1 session=%016llx pid=%ld watermark=%llu marks=%llu mark_ms=%llu "
			 "dump_ms=%llu ref=%u header=%u array_header=%u align=%u",
			 (unsigned long long)g_session, (long)getpid(), (unsigned long long)g_watermark,
			 (unsigned long long)g_marks, (unsigned long long)g_mark_ms,
			 (unsigned long long)dump_ms, d->ref, d->header, d->array_header, d->align);
	record(&d->o, H_UTF8, (uint32_t)(8 + n));
	w8(&d->o, 0xfffffffffffffff0ull); /* an id no other string uses */
	w(&d->o, text, (size_t)n);
}

static void write_sizes(struct dump *d)
{
	size_t cap = 64 + (size_t)d->ncls * 60, n;
	char *text = xmalloc(cap);

	n = (size_t)snprintf(text, cap, "heapwalk-sizes/1");
	for (int c = 0; c < d->ncls; c++)
		if ((d->cls[c].jvm_size || d->cls[c].mirror_size) && n + 60 < cap)
			n += (size_t)snprintf(text + n, cap - n, " %llx:%llu:%llu",
					      (unsigned long long)d->cls[c].tag,
					      (unsigned long long)d->cls[c].jvm_size,
					      (unsigned long long)d->cls[c].mirror_size);
	record(&d->o, H_UTF8, (uint32_t)(8 + n));
	w8(&d->o, 0xfffffffffffffff1ull);
	w(&d->o, text, n);
	free(text);
}

/* One "TAG:MS" of the times record into buf; its length. */
static int time_entry(char *buf, size_t n, uint64_t tag, uint64_t ms)
{
	return snprintf(buf, n, " %llx:%llu", (unsigned long long)tag,
			(unsigned long long)(ms > g_start_ms ? ms - g_start_ms : 0));
}

/* The allocation times of the sampled objects (those the dump met: the
 * samples are pruned by now). Counted first, then written, so that no
 * copy of the text is kept; a record holds at most 4 GB. Under g_lock. */
static void write_times(struct dump *d)
{
	char head[128], one[48];
	int hn = snprintf(head, sizeof head, "heapwalk-times/1 start_ms=%llu origin=%s",
			  (unsigned long long)g_start_ms, g_start_known ? "jvm" : "agent");
	uint64_t len = (uint64_t)hn, limit = UINT32_MAX - 8 - sizeof one;
	size_t i;

	for (i = 0; i < g_sample_ms.cap && len < limit; i++)
		if (g_sample_ms.key[i])
			len += (uint64_t)time_entry(one, sizeof one, g_sample_ms.key[i], g_sample_ms.val[i]);
	size_t end = i;
	record(&d->o, H_UTF8, (uint32_t)(8 + len));
	w8(&d->o, 0xfffffffffffffff2ull);
	w(&d->o, head, (size_t)hn);
	for (i = 0; i < end; i++)
		if (g_sample_ms.key[i])
			w(&d->o, one, (size_t)time_entry(one, sizeof one, g_sample_ms.key[i], g_sample_ms.val[i]));
}

/* The class table let go, to be loaded again (load_classes) */
static void forget_classes(struct dump *d)
{
	for (int c = 0; c < d->ncls; c++) {
		if (d->cls[c].ref)
			(*d->jni)->DeleteGlobalRef(d->jni, d->cls[c].ref);
		free(d->cls[c].fields);
		free(d->cls[c].slots);
		free(d->cls[c].statics);
	}
	free(d->cls);
	d->cls = NULL;
	d->ncls = 0;
	map_free(&d->cls_by_tag);
	map_free(&d->arrlen);
	d->class_class_tag = 0;
}

static void dump_free(struct dump *d)
{
	forget_classes(d);
	for (uint32_t i = 0; i < d->str.n; i++)
		free(d->str.text[i]);
	free(d->str.text);
	map_free(&d->str.index);
	for (size_t i = 0; i < d->nmeth; i++)
		ti_free(d->meth[i].lines);
	free(d->meth);
	map_free(&d->methods);
	map_free(&d->frames);
	map_free(&d->mirrors);
	free(d->threads);
	free(d->trace_serial);
	free(d->data);
	free(d->elems);
	free(d->written.w);
	free(d->live.w);
	free(d->unreached);
	map_free(&d->second_rooted);
}

/* Drop sampled objects the dump did not meet: they are dead. */
static void prune_samples(void)
{
	struct map keep = { 0 };

	for (size_t i = 0; i < g_sampled.cap; i++)
		if (g_sampled.key[i] && (g_sampled.val[i] >> 63))
			map_put(&keep, g_sampled.key[i], g_sampled.val[i] & ~(1ull << 63));
	map_free(&g_sampled);
	g_sampled = keep;
	struct map keep_ms = { 0 };
	for (size_t i = 0; i < g_sample_ms.cap; i++) {
		if (g_sample_ms.key[i] == 0)
			continue;
		uint64_t *v = map_find(&g_sampled, g_sample_ms.key[i]);
		if (v != NULL && *v != 0)
			map_put(&keep_ms, g_sample_ms.key[i], g_sample_ms.val[i]);
	}
	map_free(&g_sample_ms);
	g_sample_ms = keep_ms;
}

/* keep: not NULL, the whole dump is left at its temporary name, which
 * goes there (n bytes), for the caller to rename or remove. */
static int do_dump(JNIEnv *jni, const char *path, struct err *e, char *summary, size_t nsum, char *keep, size_t n)
{
	struct dump d;
	char tmp[4096];
	uint64_t t0 = now_ms();

	memset(&d, 0, sizeof d);
	d.jni = jni;
	d.o.seg_start = -1;
	if (snprintf(tmp, sizeof tmp, "%s.tmp-%ld", path, (long)getpid()) >= (int)sizeof tmp) {
		fail(e, "%s: file name too long", path);
		return -1;
	}
	measure_layout(&d); /* its few objects are garbage by the collection */
	(*g_ti)->ForceGarbageCollection(g_ti);
	/* made here, never a file already there: a link another user
	 * planted at the name is not followed, nor a file of theirs written */
	int tfd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	d.o.f = tfd < 0 ? NULL : fdopen(tfd, "wb");
	if (d.o.f == NULL) {
		fail(e, "%s: %s", tmp, errno == EEXIST ? "there already (not written over, not followed)" : strerror(errno));
		if (tfd >= 0)
			close(tfd);
		return -1;
	}
	d.o.buf = xmalloc(1 << 22);
	setvbuf(d.o.f, d.o.buf, _IOFBF, 1 << 22);
	w(&d.o, "JAVA PROFILE 1.0.2", 19);
	w4(&d.o, 8);
	w8(&d.o, t0);
	write_marker(&d, t0);
	d.cp_name = intern(&d.str, "<constant pool>");
	/* the live set, and which classes have instances */
	jvmtiHeapCallbacks any;
	jvmtiError rc = JVMTI_ERROR_NONE;
	memset(&any, 0, sizeof any);
	any.heap_iteration_callback = on_any;
	int loaded = load_classes(&d);
	if (loaded) {
		rc = (*g_ti)->IterateThroughHeap(g_ti, 0, NULL, &any, &d);
		uint64_t linked = d.linked;
		link_classes(&d);
		/* what linking made (reflection's Field objects, its array
		 * class, the cache in the class that holds them) is this
		 * dump's, not new in the next, where a diff called it new and
		 * leaks leaked: after a collection (the copies reflection
		 * handed back are garbage) the classes and the live set are
		 * taken again. Once a JVM: a class linked stays linked */
		if (rc == JVMTI_ERROR_NONE && d.linked > linked) {
			(*g_ti)->ForceGarbageCollection(g_ti);
			forget_classes(&d);
			if (d.live.n > 0)
				memset(d.live.w, 0, d.live.n * sizeof *d.live.w);
			loaded = load_classes(&d);
			if (loaded) {
				rc = (*g_ti)->IterateThroughHeap(g_ti, 0, NULL, &any, &d);
				link_classes(&d); /* none, unless one was loaded since */
			}
		}
	}
	if (loaded) {
		for (int c = 0; c < d.ncls; c++) {
			record(&d.o, H_LOAD_CLASS, 4 + 8 + 4 + 8);
			w4(&d.o, d.cls[c].serial);
			w8(&d.o, d.cls[c].tag);
			w4(&d.o, 0);
			w8(&d.o, d.cls[c].name);
		}
		layout_fields(&d);
		write_strings(&d, 0);
		uint32_t nstr = d.str.n;
		write_threads(&d);
		(*g_ti)->RawMonitorEnter(g_ti, g_lock);
		write_sampled_traces(&d);
		write_strings(&d, nstr);

		jvmtiHeapCallbacks cb;
		memset(&cb, 0, sizeof cb);
		cb.heap_reference_callback = on_reference;
		cb.primitive_field_callback = on_primitive_field;
		cb.array_primitive_value_callback = on_array;
		for (int c = 0; c < d.ncls; c++) /* described by CLASS_DUMP */
			set_written(&d, d.cls[c].tag);
		if (rc == JVMTI_ERROR_NONE)
			rc = (*g_ti)->FollowReferences(g_ti, 0, NULL, NULL, &cb, &d);
		flush_current(&d);
		if (rc == JVMTI_ERROR_NONE && !d.o.err)
			second_pass(&d, &cb);
		if (rc == JVMTI_ERROR_NONE && !d.o.err)
			prune_samples();
		(*g_ti)->RawMonitorExit(g_ti, g_lock);
		ti_ok(&d, rc, "FollowReferences");
		write_class_dumps(&d);
		seg_end(&d.o);
		record(&d.o, H_END, 0);
		write_sizes(&d);
		(*g_ti)->RawMonitorEnter(g_ti, g_lock);
		if (g_sample_ms.n > 0)
			write_times(&d);
		(*g_ti)->RawMonitorExit(g_ti, g_lock);
	}
	if (d.e.set)
		fail(e, "%s", d.e.msg);
	if (fflush(d.o.f) != 0 && !d.o.err)
		d.o.err = errno;
	if (!d.o.err && fsync(fileno(d.o.f)) != 0)
		d.o.err = errno;
	if (fclose(d.o.f) != 0 && !d.o.err)
		d.o.err = errno;
	free(d.o.buf);
	if (d.o.err)
		fail(e, "%s: %s", path, strerror(d.o.err));
	if (!e->set && keep != NULL)
		snprintf(keep, n, "%s", tmp);
	else if (!e->set && rename(tmp, path) != 0)
		fail(e, "%s: %s", path, strerror(errno));
	if (e->set) {
		unlink(tmp);
	} else {
		snprintf(summary, nsum, "dump %s objects=%llu bytes=%llu ms=%llu watermark=%llu "
			 "samples=%llu sampled_alive=%zu traces=%zu dropped=%llu linked=%llu%s",
			 path, (unsigned long long)d.objects, (unsigned long long)d.o.bytes,
			 (unsigned long long)(now_ms() - t0), (unsigned long long)g_watermark,
			 (unsigned long long)g_samples, g_sampled.n, g_ntraces, (unsigned long long)d.dropped,
			 (unsigned long long)d.linked,
			 d.unknown_class ? " (objects of classes loaded during the dump were left out)" : "");
	}
	dump_free(&d);
	return e->set ? -1 : 0;
}

/* ------------------------------------------------------------------ */
/* Mark and sampling. */

static jint JNICALL tag_untagged(jlong class_tag, jlong size, jlong *tag_ptr, jint length, void *user)
{
	uint64_t *n = user;

	*tag_ptr = new_tag();
	if ((++*n & 0xffff) == 0 && caller_gone()) {
		g_abandoned = 2;
		return JVMTI_VISIT_ABORT;
	}
	return 0;
}

static int do_mark(struct err *e, char *summary, size_t nsum)
{
	jvmtiHeapCallbacks cb;
	uint64_t t0 = now_ms(), tagged = 0;
	jvmtiError rc;

	(*g_ti)->ForceGarbageCollection(g_ti);
	memset(&cb, 0, sizeof cb);
	cb.heap_iteration_callback = tag_untagged;
	rc = (*g_ti)->IterateThroughHeap(g_ti, JVMTI_HEAP_FILTER_TAGGED, NULL, &cb, &tagged);
	if (g_abandoned) { /* what it tagged counts as new, the watermark unmoved */
		fail(e, "mark: its caller gave up waiting");
		return -1;
	}
	if (rc != JVMTI_ERROR_NONE) {
		fail(e, "IterateThroughHeap failed: %s", ti_error(rc));
		return -1;
	}
	g_watermark = atomic_load(&g_next_tag) - 1;
	g_marks++;
	g_mark_ms = now_ms();
	snprintf(summary, nsum, "mark %llu watermark=%llu newly_tagged=%llu ms=%llu",
		 (unsigned long long)g_marks, (unsigned long long)g_watermark,
		 (unsigned long long)tagged, (unsigned long long)(g_mark_ms - t0));
	return 0;
}

static uint64_t trace_hash(const struct trace *t)
{
	uint64_t h = 1469598103934665603ull;

	for (int i = 0; i < t->n; i++)
		h = (h ^ (uint64_t)(uintptr_t)t->method[i] ^ ((uint64_t)t->loc[i] << 32)) * 1099511628211ull;
	return h ? h : 1;
}

static void JNICALL on_sample(jvmtiEnv *ti, JNIEnv *jni, jthread thread, jobject object,
			      jclass klass, jlong size)
{
	jvmtiFrameInfo fi[MAX_FRAMES];
	jint n = 0;
	struct trace t;
	jlong tag = 0;
	uint64_t now = now_ms();

	if ((*ti)->GetStackTrace(ti, thread, 0, MAX_FRAMES, fi, &n) != JVMTI_ERROR_NONE)
		n = 0;
	if ((*ti)->GetTag(ti, object, &tag) != JVMTI_ERROR_NONE)
		return;
	if (tag == 0) {
		tag = new_tag();
		if ((*ti)->SetTag(ti, object, tag) != JVMTI_ERROR_NONE)
			return;
	}
	memset(&t, 0, sizeof t);
	t.n = n;
	for (jint i = 0; i < n; i++) {
		t.method[i] = fi[i].method;
		t.loc[i] = fi[i].location;
	}
	t.hash = trace_hash(&t);

	(*ti)->RawMonitorEnter(ti, g_lock);
	size_t idx = g_ntraces;
	uint64_t *first = map_find(&g_trace_index, t.hash);
	if (first)
		for (size_t i = (size_t)*first - 1; i < g_ntraces; i++)
			if (g_traces[i].hash == t.hash && g_traces[i].n == t.n &&
			    memcmp(g_traces[i].method, t.method, (size_t)n * sizeof *t.method) == 0 &&
			    memcmp(g_traces[i].loc, t.loc, (size_t)n * sizeof *t.loc) == 0) {
				idx = i;
				break;
			}
	if (idx == g_ntraces) {
		if (g_ntraces == g_captraces) {
			g_captraces = g_captraces ? g_captraces * 2 : 256;
			g_traces = xrealloc(g_traces, g_captraces * sizeof *g_traces);
		}
		g_traces[g_ntraces++] = t;
		if (!first)
			map_put(&g_trace_index, t.hash, g_ntraces);
	}
	map_put(&g_sampled, (uint64_t)tag, idx + 1);
	map_put(&g_sample_ms, (uint64_t)tag, now);
	g_samples++;
	(*ti)->RawMonitorExit(ti, g_lock);
}

static int set_sampling(long interval, struct err *e)
{
	jvmtiError rc;

	if (!g_can_sample) {
		fail(e, "this JVM cannot sample allocations (JVMTI can_generate_sampled_object_alloc_events)");
		return -1;
	}
	if (interval > 0) {
		rc = (*g_ti)->SetHeapSamplingInterval(g_ti, (jint)interval);
		if (rc == JVMTI_ERROR_NONE)
			rc = (*g_ti)->SetEventNotificationMode(g_ti, JVMTI_ENABLE, JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, NULL);
		g_sampling = rc == JVMTI_ERROR_NONE;
	} else {
		rc = (*g_ti)->SetEventNotificationMode(g_ti, JVMTI_DISABLE, JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, NULL);
		g_sampling = 0;
	}
	if (rc != JVMTI_ERROR_NONE) {
		fail(e, "cannot set allocation sampling: %s", ti_error(rc));
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Start-up and commands. */

/* The JVM's start in ms since the epoch: the process's start, which
 * Linux gives in clock ticks since boot (/proc/self/stat, field 22), put
 * on the wall clock by how long ago the boot was. 0 if unknown. */
static uint64_t process_start_ms(void)
{
	char buf[2048], *p;
	unsigned long long ticks = 0;
	struct timespec boot;
	long hz = sysconf(_SC_CLK_TCK);
	FILE *f = fopen("/proc/self/stat", "r");
	size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;

	if (f)
		fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')'); /* the command's name may hold blanks */
	if (p == NULL || hz <= 0 || clock_gettime(CLOCK_BOOTTIME, &boot) != 0)
		return 0;
	p++;
	for (int field = 3; field <= 22 && p; field++) { /* from the state, field 3 */
		p = strchr(p, ' ');
		if (p && field == 22)
			ticks = strtoull(p + 1, NULL, 10);
		else if (p)
			p++;
	}
	uint64_t up = (uint64_t)boot.tv_sec * 1000 + (uint64_t)boot.tv_nsec / 1000000;
	uint64_t since = ticks * 1000 / (unsigned long long)hz;
	if (p == NULL || since > up)
		return 0;
	return now_ms() - (up - since);
}

static int init(JavaVM *vm, int live, struct err *e)
{
	jvmtiCapabilities pot, want;
	jvmtiEventCallbacks ev;
	jvmtiError rc;

	if (g_ti)
		return 0;
	if ((*vm)->GetEnv(vm, (void **)&g_ti, JVMTI_VERSION_11) != JNI_OK || g_ti == NULL) {
		g_ti = NULL;
		fail(e, "this JVM has no JVMTI 11 or later");
		return -1;
	}
	memset(&pot, 0, sizeof pot);
	memset(&want, 0, sizeof want);
	(*g_ti)->GetPotentialCapabilities(g_ti, &pot);
	if (!pot.can_tag_objects) {
		fail(e, "this JVM cannot tag objects (JVMTI can_tag_objects)");
		return -1;
	}
	want.can_tag_objects = 1;
	want.can_get_source_file_name = pot.can_get_source_file_name;
	want.can_get_line_numbers = pot.can_get_line_numbers;
	want.can_generate_sampled_object_alloc_events = pot.can_generate_sampled_object_alloc_events;
	rc = (*g_ti)->AddCapabilities(g_ti, &want);
	if (rc != JVMTI_ERROR_NONE) {
		fail(e, "AddCapabilities failed: %s", ti_error(rc));
		return -1;
	}
	g_can_sample = want.can_generate_sampled_object_alloc_events;
	g_start_ms = process_start_ms();
	g_start_known = g_start_ms != 0;
	if (!g_start_known)
		g_start_ms = now_ms();
	(*g_ti)->CreateRawMonitor(g_ti, "heapwalk-agent", &g_lock);
	memset(&ev, 0, sizeof ev);
	ev.SampledObjectAlloc = on_sample;
	(*g_ti)->SetEventCallbacks(g_ti, &ev, (jint)sizeof ev);

	FILE *r = fopen("/dev/urandom", "rb");
	if (r == NULL || fread(&g_session, sizeof g_session, 1, r) != 1)
		g_session = now_ms() ^ ((uint64_t)getpid() << 40);
	if (r)
		fclose(r);
	(void)live;
	return 0;
}

/* The end of a run for a caller that waits (sfd, its status file, or
 * -1: none): under the file's lock, a caller still there (the file
 * still linked) has the dump renamed into place (tmp, path) and the
 * line written; one that gave up has the dump removed and the mark
 * undone (a mark made: the previous watermark in old[3]). */
static void finish(int sfd, const char *tmp, const char *path, const uint64_t old[3], int marked, char *line,
		   size_t n)
{
	struct stat st;

	if (sfd < 0) {
		if (strncmp(line, "error", 5) == 0)
			fprintf(stderr, AGENT ": %s\n", line);
		return;
	}
	while (flock(sfd, LOCK_EX) < 0 && errno == EINTR)
		;
	if (fstat(sfd, &st) == 0 && st.st_nlink == 0) { /* the caller gave up and removed it */
		if (tmp[0])
			unlink(tmp);
		if (marked) {
			g_watermark = old[0];
			g_marks = old[1];
			g_mark_ms = old[2];
		}
		fprintf(stderr, AGENT ": the caller gave up waiting (its status file is gone): %s\n",
			g_abandoned == 1 ? "the dump removed (stopped part way)"
			: g_abandoned == 2 ? "the mark undone (stopped part way)"
			: tmp[0] ? "the dump removed" : marked ? "the mark undone" : "nothing kept");
	} else {
		if (tmp[0] && strncmp(line, "ok", 2) == 0 && rename(tmp, path) != 0) {
			/* the path came in one attach argument (HotSpot's are
			 * 1024 bytes at most): bounded all the same, so that the
			 * line always holds the reason */
			snprintf(line, n, "error: %.1100s: %s", path, strerror(errno));
			unlink(tmp);
		}
		if (ftruncate(sfd, 0) < 0 || pwrite(sfd, line, strlen(line), 0) < 0 || pwrite(sfd, "\n", 1,
		    (off_t)strlen(line)) < 0)
			fprintf(stderr, AGENT ": the status file: %s\n", strerror(errno));
		if (strncmp(line, "error", 5) == 0)
			fprintf(stderr, AGENT ": %s\n", line);
	}
	flock(sfd, LOCK_UN);
	close(sfd);
}

/* The status file of the option status:SPEC ([DEV:INO:]FILE), opened to
 * write: its descriptor; or -1, nothing to be done (the file gone, or not
 * the caller's: said on stderr), or -2 with e set. Never made, never
 * followed if a link; O_NONBLOCK: a FIFO put there does not hold us. */
static int status_open(const char *spec, struct err *e)
{
	unsigned long long dev = 0, ino = 0;
	const char *file = spec;
	int ids = spec[0] >= '0' && spec[0] <= '9';
	struct stat st;

	if (ids) {
		char *end;
		dev = strtoull(spec, &end, 10);
		if (*end == ':')
			ino = strtoull(end + 1, &end, 10);
		if (*end != ':' || end[1] != '/') {
			fail(e, "status:%s: not DEV:INO:/FILE", spec);
			return -2;
		}
		file = end + 1;
	}
	int fd = open(file, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) { /* its caller gave up before we began */
		fprintf(stderr, AGENT ": %s is gone (its caller gave up waiting): nothing done\n", file);
		return -1;
	}
	if (fd < 0 && (errno == ELOOP || errno == ENXIO || errno == EACCES || errno == EPERM)) {
		fprintf(stderr, AGENT ": %s is not its caller's status file, %s (its caller gave up waiting): "
			"nothing done\n", file, strerror(errno));
		return -1;
	}
	if (fd < 0) {
		fail(e, "%s: %s", file, strerror(errno));
		return -2;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() || st.st_nlink != 1 ||
	    (ids && (st.st_dev != (dev_t)dev || st.st_ino != (ino_t)ino))) {
		fprintf(stderr, AGENT ": %s is not its caller's status file but another at its name (its caller gave "
			"up waiting): nothing done\n", file);
		close(fd);
		return -1;
	}
	return fd;
}

/* Runs the comma-separated commands in order; returns 0 or -1. The
 * status file is opened and checked first, before init takes anything
 * of the JVM's. */
static int run(JavaVM *vm, char *options, int live)
{
	struct err e = { .set = 0 };
	char summary[1024] = "ok", line[1400];
	JNIEnv *jni = NULL;
	char *save = NULL, tmp[4096] = "", path[4096] = "";
	uint64_t old[3] = { g_watermark, g_marks, g_mark_ms };
	int sfd = -1, marked = 0, statuses = 0;

	for (const char *q = options; q != NULL && *q; q = strchr(q, ',') ? strchr(q, ',') + 1 : NULL)
		if (strncmp(q, "status:", 7) == 0 && statuses++ == 0) {
			size_t len = strcspn(q + 7, ",");
			char *spec = strndup(q + 7, len);
			sfd = spec != NULL ? status_open(spec, &e) : -2;
			free(spec);
			if (sfd == -1)
				return 0;
		}
	if (statuses > 1)
		fail(&e, "status: given more than once");
	g_status_fd = sfd;
	g_abandoned = 0;
	if (!e.set && init(vm, live, &e) == 0 && options) {
		for (char *opt = strtok_r(options, ",", &save); opt && !e.set; opt = strtok_r(NULL, ",", &save)) {
			char part[1024];
			part[0] = 0;
			if (strncmp(opt, "status:", 7) == 0) {
				/* opened above */
			} else if (strcmp(opt, "mark") == 0) {
				if (!live)
					fail(&e, "mark: the JVM has not started yet (attach to mark)");
				else
					marked = do_mark(&e, part, sizeof part) == 0;
			} else if (strncmp(opt, "dump:", 5) == 0) {
				if (!live)
					fail(&e, "dump: the JVM has not started yet (attach to dump)");
				else if ((*vm)->GetEnv(vm, (void **)&jni, JNI_VERSION_1_8) != JNI_OK)
					fail(&e, "dump: no JNI environment in this thread");
				else if (tmp[0] != '\0')
					fail(&e, "dump: one dump a load");
				else if (do_dump(jni, opt + 5, &e, part, sizeof part, sfd >= 0 ? tmp : NULL,
						 sizeof tmp) == 0)
					snprintf(path, sizeof path, "%s", opt + 5);
			} else if (strncmp(opt, "sample:", 7) == 0) {
				char *end;
				long v = strtol(opt + 7, &end, 10);
				if (*end == 'k' || *end == 'K')
					v *= 1024, end++;
				else if (*end == 'm' || *end == 'M')
					v *= 1024 * 1024, end++;
				if (*end || v < 0 || v > 0x7fffffff)
					fail(&e, "sample:%s: not a byte count", opt + 7);
				else if (set_sampling(v, &e) == 0)
					snprintf(part, sizeof part, "sample:%ld", v);
			} else if (*opt) {
				fail(&e, "unknown option '%s' (mark, dump:FILE, sample:BYTES, status:FILE)", opt);
			}
			if (part[0] && strlen(summary) + strlen(part) + 2 < sizeof summary) {
				strcat(summary, " ");
				strcat(summary, part);
			}
		}
	}
	if (e.set)
		snprintf(line, sizeof line, "error: %s", e.msg);
	else
		snprintf(line, sizeof line, "%s", summary);
	if (e.set && tmp[0]) { /* a later option failed: the dump is not kept */
		unlink(tmp);
		tmp[0] = '\0';
	}
	finish(sfd, tmp, path, old, marked, line, sizeof line);
	g_status_fd = -1;
	g_abandoned = 0;
	return e.set ? -1 : 0;
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved)
{
	char *copy = options ? strdup(options) : NULL;
	int rc = run(vm, copy, 0);

	free(copy);
	return rc == 0 ? JNI_OK : JNI_ERR;
}

JNIEXPORT jint JNICALL Agent_OnAttach(JavaVM *vm, char *options, void *reserved)
{
	char *copy = options ? strdup(options) : NULL;
	int had = g_ti != NULL;
	int rc = run(vm, copy, 1);

	free(copy);
	/* once the agent holds state, stay loaded whatever happened */
	return rc == 0 || had || g_ti ? JNI_OK : JNI_ERR;
}
