/* heap.h — the format-neutral heap model: classes, objects as dense
 * nodes, references in CSR arrays, roots, dominators, retained sizes.
 *
 * Node 0 is the virtual root; its successors are the GC-root objects
 * (and the pseudo roots added for weakly reachable and unreachable
 * objects, see build.c). Nodes 1..n-1 are the dump's objects sorted by
 * their id (address), so an id is found by search, and class objects
 * are nodes too. Field names and values are never stored: they are
 * decoded from the mapped record at node_off[] when a view needs them.
 *
 * Everything here is owned by struct heap and freed by heap_free(). */
#ifndef HW_HEAP_H
#define HW_HEAP_H

#include <stddef.h>
#include <stdint.h>

#include "graph/rootkind.h"

#include "util.h"

struct baseline;
struct format_ops;
struct retained_memo;
struct progress;
struct ruleset;

typedef uint32_t node_t; /* object index; a typedef away from 64-bit */
typedef uint32_t edge_t; /* index into the reference arrays */

/* Basic types as HPROF numbers them. */
enum hw_type {
	T_OBJECT = 2, T_BOOLEAN = 4, T_CHAR = 5, T_FLOAT = 6, T_DOUBLE = 7,
	T_BYTE = 8, T_SHORT = 9, T_INT = 10, T_LONG = 11
};

/* A primitive type's name in Java's words ("int"), NULL for T_OBJECT
 * and for no type. */
static inline const char *hw_type_name(uint8_t type)
{
	switch (type) {
	case T_BOOLEAN: return "boolean";
	case T_CHAR: return "char";
	case T_FLOAT: return "float";
	case T_DOUBLE: return "double";
	case T_BYTE: return "byte";
	case T_SHORT: return "short";
	case T_INT: return "int";
	case T_LONG: return "long";
	default: return NULL;
	}
}

/* The bytes of a field of that type (enum hw_type), 0 for no type. */
static inline unsigned field_type_size(uint8_t type, unsigned idsize)
{
	switch (type) {
	case T_OBJECT: return idsize;
	case T_BOOLEAN: case T_BYTE: return 1;
	case T_CHAR: case T_SHORT: return 2;
	case T_FLOAT: case T_INT: return 4;
	case T_DOUBLE: case T_LONG: return 8;
	default: return 0;
	}
}

/* A GC root record: its kind (graph/rootkind.h), the reader's own kind
 * (native: an index into its format_ops root_natives, 0 for a pseudo
 * kind), then what the reader keeps: for a native kind with a thread
 * (root_natives' thread) the thread's serial and frame number or stack
 * depth (HW_NONE if none), else thread_serial is the reader's own (.NET,
 * Mono: a name's offset + 1, 0 for none) and frame HW_NONE. */
struct root {
	node_t node;
	uint8_t kind;           /* enum root_kind */
	uint8_t native;
	uint16_t copies;        /* the dump's records more that were folded into this
				 * one (a frame's two locals of one object: HPROF tells
				 * no slot; two of a kind the builder keeps once),
				 * saturated: info counts them */
	uint32_t thread_serial; /* 0 when the kind has none */
	uint32_t frame;
};

/* One heap of a file of several (struct heap's snaps). */
struct hsnap {
	uint64_t time_ms;         /* when it was taken, ms since the epoch */
	uint64_t objects, bytes;
	int complete;             /* the file holds all of it */
};

/* GC generations a heap may tell (node_gen), at most. */
#define HW_MAX_GENS 8

/* What a node is: derived from the record's sub-tag, kept per class. */
enum node_kind { NK_ROOT, NK_INSTANCE, NK_OBJARRAY, NK_PRIMARRAY, NK_CLASS };

/* One field of a class (this class only, not its supers). */
struct hfield {
	uint32_t name; /* string offset into heap->names */
	uint32_t off;  /* instance fields: byte offset in the instance data of
			* an instance of this very class (a subclass's
			* instances have it further on: class_field()); 0 for
			* static fields */
	uint8_t type;  /* enum hw_type */
};

#define HC_REFERENCE   0x01 /* java.lang.ref.Reference or a subclass */
#define HC_ESTIMATED   0x02 /* JVM size not derivable from the visible fields */
#define HC_SYNTHETIC   0x04 /* no CLASS_DUMP: made up for primitive arrays */
#define HC_ARRAY       0x08 /* an array class */
#define HC_LOADER      0x10 /* java.lang.ClassLoader or a subclass */

struct hclass {
	uint64_t id;          /* class object id; 0 for synthetic classes */
	node_t node;          /* its node, HW_NONE for synthetic classes */
	uint32_t name;        /* string offset into heap->names (dotted form) */
	uint32_t super;       /* class index, HW_NONE for none */
	uint32_t qual;        /* 1 + the string offset of the name that tells
			       * it apart from classes of its name in other
			       * dumps of the program (a .NET type's, its
			       * module's beside it), 0: the name does */
	uint64_t loader_id;   /* class loader object id, 0 = bootstrap */
	uint32_t flags;       /* HC_* */
	uint8_t elem_type;    /* for array classes: enum hw_type of elements */
	uint8_t gens;         /* the generations its objects are in, a bit each
			       * (heaps that tell them: node_gen) */
	uint32_t field_first; /* this class's fields: heap->fields[first..first+n), */
	uint16_t nfields;     /*   then its static fields (nstatics) */
	uint16_t nstatics;
	uint32_t inst_bytes;  /* HPROF instance data bytes incl. supers */
	uint32_t shallow;     /* JVM instance size (instances of this class) */
	uint32_t referent_off;/* byte offset of Reference.referent in instance data, or HW_NONE */
	uint32_t ref_first;   /* offsets of reference fields in instance data: */
	uint32_t nrefs;       /*   heap->refoffs[ref_first..ref_first+nrefs) */
	uint32_t mirror_size; /* size of this class's java.lang.Class object */
	uint32_t key;         /* 1 + the string offset of the name it is
			       * matched by where the dumps do not both
			       * qualify their classes (a .NET type's,
			       * spelt as both of .NET's dump formats can
			       * be), 0: its name */
	/* statistics over the whole heap, set by the analyses */
	uint64_t count, shallow_total, retained_lb;
};

struct hframe {
	uint64_t id;
	uint32_t method, signature, source, class_name; /* names offsets */
	int32_t line;     /* >0 line, 0 none, -1 unknown, -2 compiled, -3 native */
	uint32_t pad;     /* 0, where the compiler would leave padding: the
			   * cache holds the frames as they are, unknown bytes
			   * none */
};
struct htrace {
	uint32_t serial, thread_serial;
	uint32_t frame_first, nframes; /* into trace_frames */
};
struct hthread {
	uint32_t serial;
	node_t obj;         /* thread object node, HW_NONE if not in the dump */
	uint32_t trace_serial;
};

/* Detected JVM layout. */
struct jvm_layout {
	unsigned idsize;        /* 4 or 8, from the header */
	unsigned ref_size;      /* 4 with compressed oops */
	unsigned header;        /* instance header: 12 or 16 (8 on 32-bit) */
	unsigned array_header;  /* 16 or 24 (12 on 32-bit, rounded) */
	unsigned align;         /* object alignment, 8 by default */
	int compressed_oops, compressed_class_ptrs;
	int detected;           /* 1 if read off address gaps, 2 if the agent
				 * wrote it (exact sizes), 0 if assumed */
	uint64_t checked, exact;/* objects whose address gap was checked / matched */
};

/* What heapwalk's JVMTI agent (contrib/agent) writes into its dumps, in
 * string records other readers ignore: object ids are then tags that
 * stay with an object for the life of the JVM (session), and every
 * object whose id is at or below the watermark existed at the last mark. */
struct agent_info {
	int present;
	uint64_t session, pid, watermark, marks, mark_ms, dump_ms;
	unsigned ref, header, array_header, align;
	uint64_t sizes_off, sizes_len; /* "heapwalk-sizes/1 ..." in the dump, 0 if none */
	uint64_t times_off, times_len; /* "heapwalk-times/1 ..." in the dump, 0 if none */
};

/* When objects were allocated, for the dumps that record it (heapwalk's
 * agent: the objects its sampling picked): node[i] (ascending, each once)
 * was allocated ms[i] milliseconds after time 0, which was origin_ms
 * (ms since the epoch; 0: not known) and is named by `origin` ("JVM
 * start"). Made on first use by heap_alloc_times() (graph/reader.h). */
struct alloc_times {
	node_t *node;
	uint64_t *ms;
	uint64_t n;
	uint64_t origin_ms;
	const char *origin;  /* static text */
};

struct heap {
	/* the reader (graph/reader.h) and what it keeps for lazy decoding */
	const struct format_ops *fmt;
	void *fmt_data;
	/* the mapped dump; the dump is never written */
	char *path;
	const uint8_t *map;
	uint64_t size;
	int fd;
	/* a dump in a container (a gzip file read at random, engine/open.c):
	 * map shows its inflated bytes, made as they are read; file_map is
	 * the file as it is on disk (the cache knows the dump by it), and
	 * container_free(container) lets map go. NULL: the dump is the file. */
	const uint8_t *file_map;
	uint64_t file_size;
	/* the file as it was when mapped (a dump rewritten since is another) */
	uint64_t file_dev, file_ino, file_mtime_s, file_mtime_ns;
	void *container;
	void (*container_free)(void *container);
	char version[24];         /* "JAVA PROFILE 1.0.2" */
	uint64_t timestamp_ms;
	uint64_t root_id;         /* the dump's id of what node 0 stands for (V8's
				   * (root), @1), no object's; 0: none */
	uint64_t dump_gc_ns;      /* the runtime's GC that made the dump: how long it
				   * took, and how long the process was paused
				   * (0: the dump does not tell) */
	uint64_t dump_pause_ns;

	struct jvm_layout layout;
	struct agent_info agent;

	/* A file of several heaps of one process in time (Mono's heapshots):
	 * each one's time and totals, which of them this heap is (1-based)
	 * and which heap_open was asked for (want_snap, 0: the last); nsnaps
	 * 0: the file holds one heap. */
	struct hsnap *snaps;
	uint32_t nsnaps, snap, want_snap;
	/* the heapshot an open that names none reads (the reader's, after
	 * its parse; 0: not known): its index cache is the file's own, the
	 * one such an open reads, whichever open wrote it */
	uint32_t snap_default;

	/* nodes */
	node_t n;                 /* nodes incl. the virtual root */
	uint64_t *node_id;        /* ids, ascending; NULL where the compact map
				   * below has them (graph/idindex.h), or the
				   * records (HPROF: heap_node_id() reads them) */
	int has_node_id;          /* node_id[] is where they are (when not
				   * parked: heap_need(HP_IDS)) */
	uint16_t *id_low;         /* the compact map: node v's id is id_base +
				   * ((b << id_bits | id_low[v]) << id_shift), b
				   * its bucket: id_start[b] <= v < id_start[b + 1] */
	node_t *id_start;         /* id_nb + 1 */
	uint64_t id_base, id_nb;
	uint32_t id_shift, id_bits;
	uint64_t *node_off;       /* file offset of the record's sub-tag byte */
	uint32_t *node_class;     /* class index; HW_NONE for the root */
	uint32_t *node_shallow;   /* JVM shallow size; while building, until
				   * layout_apply(): an array's length, a class
				   * node's described class index, else 0 */
	uint8_t *node_kind;       /* enum node_kind */
	uint8_t *node_gen;        /* the GC generation each object was in, by
				   * the format's numbers (heap_gen_name()), below
				   * HW_MAX_GENS; NULL: the dump tells none */

	/* strong references, CSR, each node's targets (sources) ascending;
	 * node 0's out-edges are roots[] instead */
	edge_t *out_start;        /* n + 1 */
	node_t *out;
	edge_t *in_start;         /* n + 1; includes 0 as predecessor of roots */
	node_t *in;
	uint64_t nedges;          /* strong edges among objects (not root edges) */

	/* weak references (a rule's `weak`; by default Reference.referent),
	 * sorted by source then target; weak_rule[i]: the index of the rule
	 * in the applied ruleset, WEAK_BUILTIN for the built-in referent */
	node_t *weak_src, *weak_dst;
	uint16_t *weak_rule;
	uint64_t nweak;
	/* incidental references (graph/ownership.h): the target has an owner
	 * of higher weight; sorted by target then source */
	node_t *rx_src, *rx_dst;
	uint64_t nrx;
	/* owned objects (an owns rule's reference of the highest weight
	 * holds them, from an owner the program reaches), ascending, and
	 * the rule (index into the ruleset applied) */
	node_t *own_node;
	uint16_t *own_rule;
	uint64_t nown;
	/* after rules: tagged nodes (ascending, a node once per label) and
	 * their label index into tag_labels (NUL-separated, tag_nlabels) */
	node_t *tag_node;
	uint32_t *tag_label;
	uint64_t ntags;
	char *tag_labels;
	uint32_t tag_labels_len, tag_nlabels;
	/* objects with two or more owners of equal highest weight, ascending */
	node_t *ambiguous;
	uint64_t nambiguous;
	uint64_t rules_fp;        /* rules_fingerprint() of the rules applied */
	const struct ruleset *rules; /* those rules (borrowed from the front end) */
	/* the analyses' focus (graph/ownership.h): the only root they start
	 * from (0: the dump's GC roots), and references left out (every
	 * reference from src to dst), in the order they were left out */
	node_t aroot;
	/* 1: unreachable objects keep what they refer to, as if alive (the
	 * dominators and retained sizes of the live heap then count them);
	 * 0 (the default): their references into what the GC roots reach are
	 * moved aside (WEAK_GARBAGE) before the analyses */
	int keep_unreachable;
	struct href { node_t src, dst; } *ignored;
	size_t nignored;
	uint32_t agen;            /* counts the times the analyses were made again */

	/* roots: records as in the dump (several per node possible), and the
	 * sorted unique successor list of the virtual root */
	struct root *root_rec;
	size_t nroot_rec;
	node_t *roots;
	size_t nroots;

	/* classes */
	struct hclass *cls;
	uint32_t ncls;
	/* (node << 32 | class) of the classes that have a class object,
	 * ascending: heap_class_of_node's, made when first asked (for the
	 * ncls classes there were then) */
	uint64_t *cls_node;
	uint32_t ncls_node, cls_node_of;
	struct hfield *fields;
	uint32_t nfields;
	uint32_t *refoffs;
	uint32_t nrefoffs;
	char *names;              /* NUL-separated strings (class and field names) */
	uint32_t names_len;

	/* dominators: idom[0] == 0; retained[] in bytes */
	node_t *idom;
	uint64_t *retained;
	/* dominator tree children CSR, built on demand (analysis.c) */
	node_t *dom_start, *dom_child;
	/* exact retained sizes of whole classes computed so far
	 * (graph/retained.h), NULL if none; dropped with the dominators */
	struct retained_memo *exact;
	/* what the analysis's roots (the dump's GC roots, or the analysis
	 * root) reach, over strong references (reach_strong), then weak ones
	 * too (reach_live): the rest is what its pseudo roots alone hold.
	 * Kept by the analysis where it made pseudo roots, else NULL, as
	 * after a cached open (analysis_reach makes them at need) */
	uint64_t *reach_strong, *reach_live; /* bits_t (analysis.h) */

	/* totals */
	uint64_t total_shallow;   /* all objects */
	uint64_t gen_objects[HW_MAX_GENS], gen_bytes[HW_MAX_GENS]; /* per generation (node_gen) */
	uint64_t unreachable_count, unreachable_bytes;
	uint64_t weakonly_count, weakonly_bytes;
	uint64_t dangling_refs;   /* references to ids not in the dump */
	uint64_t dangling_expected; /* of them, those the dump leaves out by
				     * design (the reader knows which): no
				     * warning */
	uint64_t garbage_refs;    /* strong references among the weak ones as
				   * WEAK_GARBAGE (analysis_cut_garbage) and
				   * WEAK_WEAKLY (the weakly reachable's) */
	uint64_t outside_refs;    /* ... as WEAK_OUTSIDE (a focus's border) */
	uint64_t ignored_refs;    /* references left out, WEAK_IGNORED */
	uint64_t truncated_at;    /* the dump ends there, inside what it was
				   * writing (a record, a heapshot): what
				   * follows is missing; 0: it ends whole */

	/* threads and stack traces (HPROF THREAD_OBJ roots, TRACE, FRAME),
	 * for Java-frame roots and allocation sites; strings in names */
	struct hframe *frames;    /* sorted by id */
	uint32_t nframes;
	struct htrace *traces;    /* sorted by serial */
	uint32_t ntraces;
	uint32_t *trace_frames;   /* frame indices, traces[i].frame_first.. */
	uint32_t ntrace_frames;
	struct hthread *threads;  /* sorted by serial */
	uint32_t nthreads;
	/* allocation times, NULL until heap_alloc_times() made them */
	struct alloc_times *atimes;

	struct warnings warn;
	/* problems with the index cache itself, and with the run's rules:
	 * said, never stored in it nor listed with the dump's warnings */
	struct warnings notes;
	char *cache_file;         /* where the cache is read and written; NULL: none */
	uint64_t content;         /* the hash of the dump's bytes (cache.c), when
				   * content_known: a reader that read them all */
	int content_known;
	int from_cache;
	/* old/new objects (query/baseline.h): set and owned by the front end */
	const struct baseline *baseline;
	/* the baseline the reports of this heap's sets name, so that an
	 * inferred answer says so (the front end sets it: the baseline of the
	 * dump, or of the newer dump for a set of gone objects); NULL: none */
	const struct baseline *identity;
	int busy;                 /* being built or analysed: graph/open.c */
	/* the reader reads the dump without its shortcuts: it asked to,
	 * having found that one did not hold (HEAP_PARSE_AGAIN, reader.h) */
	int plain_parse;
	/* parse and analyse again, when the index cache proves corrupt while
	 * a part loads (graph/resident.c): the driver's heap_rebuild
	 * (graph/open.h), set by heap_build and a cached open; NULL: none */
	void (*rebuild)(struct heap *h, const char *why, struct progress *p);
	/* the file behind the big arrays (nodes, references, dominators):
	 * the index cache, or a scratch file; an array not in memory is
	 * there, loaded by heap_need() (resident.h); NULL: all are in memory */
	void *backing;
};

/* Parts of a heap that are loaded only when asked (heap_need): after
 * an open, cached or not, none is in memory. */
#define HP_OFF      0x001 /* node_off */
#define HP_CLASS    0x002 /* node_class */
#define HP_SHALLOW  0x004 /* node_shallow */
#define HP_KIND     0x008 /* node_kind */
#define HP_OUT_TO   0x010 /* out */
#define HP_IN_FROM  0x020 /* in */
#define HP_WEAK     0x040 /* weak_src, weak_dst, weak_rule, rx_src, rx_dst, own_node, own_rule */
#define HP_IDOM     0x080 /* idom */
#define HP_RETAINED 0x100 /* retained */
#define HP_OUT_AT   0x200 /* out_start */
#define HP_IN_AT    0x400 /* in_start */
#define HP_IDS      0x800 /* id_low, id_start */
#define HP_ALL      0xfff
#define HP_OUT   (HP_OUT_AT | HP_OUT_TO)
#define HP_IN    (HP_IN_AT | HP_IN_FROM)
#define HP_NODES (HP_OFF | HP_CLASS | HP_SHALLOW | HP_KIND)
#define HP_DOM   (HP_IDOM | HP_RETAINED)

#define WEAK_BUILTIN 0xffff /* weak_rule[]: the referent, without rules */
#define WEAK_IGNORED 0xfffe /* weak_rule[]: a reference left out (heap_ignore) */
#define WEAK_OUTSIDE 0xfffd /* weak_rule[]: with a focus, into what the roots reach, from outside */
#define WEAK_GARBAGE 0xfffc /* weak_rule[]: from an unreachable object into what the GC roots reach */
/* weak_rule[]: from an object only weakly reachable into what strong
 * references from the GC roots reach */
#define WEAK_WEAKLY 0xfffb
/* Is rule r one of a strong reference the analyses moved aside (a
 * focus's border, garbage's or the weakly reachable's references into
 * what the roots hold)? */
static inline int weak_rule_moved(unsigned r)
{
	return r == WEAK_OUTSIDE || r == WEAK_GARBAGE || r == WEAK_WEAKLY;
}
/* Is weak reference i such a strong one moved aside: walks that follow
 * references as the program holds them take it as strong. */
static inline int weak_moved(const struct heap *h, uint64_t i)
{
	return h->weak_rule != NULL && weak_rule_moved(h->weak_rule[i]);
}
/* Is weak reference i one the analyses leave out altogether (followed
 * not even when weak references are)? */
static inline int weak_left_out(const struct heap *h, uint64_t i)
{
	return h->weak_rule != NULL && (h->weak_rule[i] == WEAK_IGNORED || weak_rule_moved(h->weak_rule[i]));
}
/* Is weak reference i one a walk over weak references follows as weak:
 * one not left out, or a weakly reachable object's strong one set aside
 * (WEAK_WEAKLY: its source is held no better than weakly)? */
static inline int weak_as_weak(const struct heap *h, uint64_t i)
{
	return !weak_left_out(h, i) || h->weak_rule[i] == WEAK_WEAKLY;
}

/* The references as the dump has them: strong ones (those the analyses
 * set aside among the weak ones too, garbage's, the weakly reachable's
 * and across a focus's border: strong all the same), weak ones; those
 * left out (the step ignore) in neither. */
static inline uint64_t heap_strong_refs(const struct heap *h)
{
	return h->nedges + h->garbage_refs + h->outside_refs;
}
static inline uint64_t heap_weak_refs(const struct heap *h)
{
	return h->nweak - h->garbage_refs - h->outside_refs - h->ignored_refs;
}

static inline const char *heap_str(const struct heap *h, uint32_t off) { return h->names + off; }
static inline const char *class_name(const struct heap *h, uint32_t c) { return h->names + h->cls[c].name; }

/* The name by which class c is matched with another dump's classes: its
 * qualified name (hclass.qual) where qual, else its key (hclass.key) or
 * name. */
static inline const char *class_match_name(const struct heap *h, uint32_t c, int qual)
{
	if (qual && h->cls[c].qual != 0)
		return h->names + h->cls[c].qual - 1;
	return h->cls[c].key != 0 ? h->names + h->cls[c].key - 1 : class_name(h, c);
}

/* Do classes of a and b match by their qualified names (both dumps give
 * them), not by their names? One dump without them matches by names. */
int classes_qualified(const struct heap *a, const struct heap *b);

/* The first of the weak references from v: they are the indexes from
 * there on while weak_src[i] == v (weak_src ascends). */
static inline uint64_t heap_weak_first(const struct heap *h, node_t v)
{
	return lower_bound_u32(h->weak_src, h->nweak, v);
}

/* The class that class object v stands for (the first such, if more
 * do): HW_NONE when v is none's. A binary search. */
uint32_t heap_class_of_node(const struct heap *h, node_t v);

/* id -> node, HW_NONE if absent (binary search), and node -> id. */
node_t heap_find_id(const struct heap *h, uint64_t id);
uint64_t heap_node_id(const struct heap *h, node_t v);

/* Instance fields, in c's instances: HPROF stores an instance's data
 * as its class's own fields, then its super's, and so on, so the
 * fields of d (c or a super of c) start where the bytes of d and its
 * supers begin: at inst_bytes(c) - inst_bytes(d). */
static inline uint32_t class_field_base(const struct heap *h, uint32_t c, uint32_t d)
{
	return h->cls[c].inst_bytes - h->cls[d].inst_bytes;
}
/* The first field named `name` of class c or its supers, in the order
 * of the instance data, and its byte offset there (*off); NULL if none.
 * class_field_at: the field at byte offset `off`, NULL if none. */
const struct hfield *class_field(const struct heap *h, uint32_t c, const char *name, uint32_t *off);
const struct hfield *class_field_at(const struct heap *h, uint32_t c, uint32_t off);

void heap_free(struct heap *h);
/* The dump as the command line names it: its path, and for one of a
 * file's heapshots PATH:N (diff's, check's and leaks' words for it). */
char *heap_dump_name(const struct heap *h);

#endif
