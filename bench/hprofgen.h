/* hprofgen.h — what the parts of hprofgen share: the classes of the
 * synthetic heap, and the generator's state. */
#ifndef HPROFGEN_H
#define HPROFGEN_H

#include <stdint.h>

#include "hprofgen_out.h"

/* The classes, in the order of their mirrors in the heap. */
enum {
	K_OBJECT, K_CLASS, K_STRING, K_NUMBER, K_LONG, K_INTEGER,
	K_ABSMAP, K_HASHMAP, K_NODE, K_ABSCOLL, K_ABSLIST, K_ARRAYLIST,
	K_LOADER, K_SECURE, K_BUILTIN, K_APPLOADER, K_PLATFORMLOADER, K_THREAD,
	K_BYTES, K_INTS, K_LONGS, K_BOOLS, K_CHARS, K_SHORTS, K_FLOATS, K_DOUBLES, K_OBJECTS, K_NODES,
	K_APP, K_CHAIN, K_HOLDER, K_REGISTRY, K_PLUGIN,
	NCLS
};

/* HPROF basic types */
enum { T_OBJ = 2, T_BOOL = 4, T_CHAR = 5, T_FLOAT = 6, T_DOUBLE = 7, T_BYTE = 8, T_SHORT = 9,
       T_INT = 10, T_LONG = 11 };

struct gclass {
	const char *name;   /* as HotSpot writes it: java/lang/String, [B */
	int super;          /* a K_ index, -1 for none */
	int app;            /* defined by the application class loader */
	/* "name:T ...", T one of L Z B C S I J F D, in the dump's order
	 * (HotSpot writes a class's fields last declared first) */
	const char *fields;
	uint32_t size;      /* JVM bytes of an instance; 0: never one */
	uint8_t elem;       /* arrays: the element type */
};

extern const struct gclass classes[NCLS];

/* A static field: 'J', 'I' or 'L'; its value a constant, or the id of
 * the boot object named (when boot >= 0). */
struct gstatic {
	int cls;
	const char *name;
	char type;
	int boot;
	uint64_t value;
};

extern const struct gstatic statics[];
extern const unsigned nstatics;

/* Objects the heap starts with, which class statics refer to. */
enum {
	B_EMPTY, B_PLATFORM, B_APPLOADER, B_APP_CLASSES, B_PLUGINS,
	B_COUNTERS, B_SIZES, B_FLAGS, B_SYMBOLS, B_PORTS, B_RATIOS, B_WEIGHTS,
	B_NAME, B_SHARED, NBOOT
};

#define DUMP_TIME_MS 1767225600000ULL /* the header's time: a fixed one, for the same bytes */
#define NTHREADS 6

struct gthread { const char *name; int daemon, priority; };

/* What a frame's local variable holds: a Java frame root. */
enum { LOCAL_NONE, LOCAL_NAME, LOCAL_REGISTRY, LOCAL_RECENT };

struct gframe {
	int thread;             /* index in threads[] */
	int cls;                /* the method's class */
	const char *method, *sig, *file;
	int line;               /* -3: a native method */
	int local;
};
#define NPLUGINS 3
#define NPLANTS 4
#define RING 256        /* recent strings that later objects share */
#define GROUP 1024      /* elements of one list of the registry's tree */
#define MAX_LEVELS 8    /* GROUP^8 units: more than 64-bit addresses hold */
#define MAX_ENTRIES 4096 /* of one map or list */

struct level { uint64_t id[GROUP]; unsigned n; };

struct gen {
	struct out o;
	uint64_t rng;
	uint64_t target;            /* objects asked for */
	uint64_t addr;              /* where the next object starts */
	uint64_t objects, heap_bytes;
	uint64_t count[NCLS], bytes[NCLS];
	uint64_t mirror[NCLS];      /* class object ids */
	uint32_t mirror_size[NCLS];
	uint32_t hsize[NCLS];       /* HPROF bytes of an instance's fields */
	uint64_t boot[NBOOT], thread[NTHREADS], plugin[NPLUGINS];
	uint64_t holder[NPLANTS], holder_bytes[NPLANTS], holder_objs[NPLANTS], holder_deep[NPLANTS];
	uint64_t shared_bytes, shared_objs;
	uint64_t registry;
	unsigned roots_thread, roots_frame, roots_jni, roots_sticky; /* records written */
	uint64_t ring[RING];
	uint64_t ring_n;
	uint64_t seq;               /* makes string contents unique */
	size_t rec_end;             /* where the open instance record must end */
	struct level lv[MAX_LEVELS];
	/* one map or list being laid out (MAX_ENTRIES each, allocated once) */
	uint64_t *ids, *tab;
	uint32_t *hash, *next, *tail;
	uint8_t *kind, *klen;
};

extern const struct gthread threads[NTHREADS];
extern const struct gframe frames[];
extern const unsigned nframes;

/* hprofgen_boot.c: plan the heap's start (mirrors, boot objects, whose
 * ids the class dumps need); then write it, the planted holders, the
 * lists gathering the bulk (push a unit's id at level 0), the registry. */
void plan(struct gen *g);
void write_boot(struct gen *g);
void write_planted(struct gen *g);
void push(struct gen *g, unsigned level, uint64_t id);
void write_registry(struct gen *g);

/* hprofgen_dump.c: name every symbol (after plan); the UTF8, LOAD_CLASS,
 * stack trace and class dump records; the GC roots, at the end. */
void dump_setup(struct gen *g);
void write_preamble(struct gen *g);
void write_roots(struct gen *g);

/* hprofgen_heap.c: the objects. */
uint64_t rnd(struct gen *g);
/* bytes of a value of HPROF type t in the dump (8: an identifier),
 * which for a primitive are its bytes in the JVM too */
unsigned type_size(uint8_t t);
uint64_t arr_size(unsigned esize, uint64_t n);
uint64_t str_size(uint32_t len);
uint64_t new_obj(struct gen *g, int k, uint64_t size);
uint64_t inst(struct gen *g, int k);
void inst_end(struct gen *g);
uint64_t obj_array(struct gen *g, int k, const uint64_t *ids, uint32_t n, uint32_t cap);
uint64_t prim_array(struct gen *g, int k, uint64_t n, const void *data);
uint64_t string(struct gen *g, const char *s, uint32_t len, int hashed);
uint64_t array_list(struct gen *g, uint32_t size, uint64_t data);
uint32_t list_cap(uint32_t n);
uint64_t chain(struct gen *g, uint32_t n);
/* A HashMap of n entries, keys fresh Strings, values fresh Strings
 * (strings_only) or a mix of boxed numbers and Strings. */
uint64_t hash_map(struct gen *g, uint32_t n, int strings_only);
/* One unit of the heap's bulk (strings, lists, maps, chains, primitive
 * arrays, drawn at random); returns the object that holds it. */
uint64_t unit(struct gen *g);

#endif
