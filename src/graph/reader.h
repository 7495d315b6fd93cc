/* reader.h — what a dump format gives the engine, and the only way the
 * layers above the graph read an object's contents.
 *
 * The graph defines this table; each reader in src/format fills one
 * (struct format_ops) and src/engine/formats.c lists them. A heap keeps
 * the table of the format it was read from (h->fmt), so that views,
 * inspections and the matcher decode an object without knowing where
 * it came from: they call the heap_*() accessors below, which dispatch.
 * What a format cannot tell is a NULL entry, and the accessor answers
 * "not available" (-1, NULL, or a placeholder label).
 *
 * Runtime knowledge sits behind the same boundary: the runtime a format
 * reads for (`runtime`: "jvm", "v8") decides which inspections and
 * rules apply; the JVM-only code (layout, java.util decoding, the
 * agent's mark) runs only on heaps whose format says "jvm". */
#ifndef HW_READER_H
#define HW_READER_H

#define HEAP_PARSE_AGAIN 1 /* format_ops.parse: read the dump again, the plain way */

#include "graph/heap.h"
#include "progress.h"

/* A decoded field or element value. */
struct hvalue {
	uint8_t type;  /* enum hw_type */
	union { uint64_t id; int64_t i; uint64_t u; double d; float f; } v;
};

/* An array's elements as the dump stores them (HPROF: big-endian). */
struct harray {
	const uint8_t *data; /* NULL when the dump left the elements out */
	uint64_t len;        /* elements */
	unsigned esize;      /* bytes per element */
	uint8_t type;        /* enum hw_type; T_OBJECT for an object array */
};

/* One field of an object as a view lists it. For formats whose
 * references are named edges rather than typed fields (V8), a field is
 * an edge: its name, and the target's id as an object value. */
typedef void (*field_fn)(void *arg, const char *name, const struct hvalue *val);

/* ---- what a runtime knows beyond the graph ----
 * Collections: the references inside a collection object that hold its
 * elements, keys and values (a list's array slots, a map's entries), so
 * that rules can follow them, the elements step can take them and the
 * merged views can show "map value of java.util.HashMap" rather than the
 * collection's inside. */
enum coll_role { CR_ELEMENT = 1, CR_KEY = 2, CR_VALUE = 4 };
typedef void (*coll_fn)(void *arg, node_t holder, node_t target, enum coll_role role);
/* "element", "map key", "map value". */
const char *coll_role_name(enum coll_role r);

/* A collection's figures (struct runtime_ops' coll_info); kind is the
 * runtime's own number (the JVM's enum coll_kind), 0 for none. */
struct coll_info {
	unsigned kind;
	uint64_t size;        /* elements or entries, as the collection counts them */
	uint64_t capacity;    /* slots of its array (table, elementData); 0 if none */
	uint64_t used_slots;  /* hash tables: buckets holding at least one entry */
	uint64_t longest;     /* hash tables: the longest bucket chain */
	uint64_t colliding;   /* hash tables: entries in a bucket with others */
};
/* What a runtime tells of the instances of a class as collections
 * (coll_class): the kind (0: none); whether it is a collection of its
 * own (not an object array, not a wrapper of another one); whether it
 * is a hash table (coll_info tells used_slots, longest, colliding); the
 * field that holds the collection it is made over (a set's map), NULL
 * if none. */
struct coll_class {
	unsigned kind;
	int whole, hashed;
	const char *backing;
};

/* Handles a runtime keeps beside its roots, which keep nothing alive
 * themselves: a weak handle's target, a dependent handle's value (.NET) */
enum handle_kind { HK_WEAK, HK_DEPENDENT };
typedef void (*handle_fn)(void *arg, node_t target, enum handle_kind kind);

/* A runtime's knowledge (the JVM's: runtime/jvm.c), reached through the
 * format that reads its heaps (format_ops.rt). Each hook works in a
 * context the runtime makes for one use (open, close); a NULL hook: the
 * runtime knows nothing of that. */
struct runtime_ops {
	const char *name; /* "jvm" */
	void *(*open)(const struct heap *h);
	void (*close)(void *ctx);
	/* The reference field `name` of v (its class's or a super's):
	 * 0 with its target (HW_NONE: null) and a number that tells v's
	 * fields apart (*slot), or -1 if v has no such reference field. */
	int (*field_ref)(void *ctx, node_t v, const char *name, node_t *target, uint32_t *slot);
	/* v's weak referent (a java.lang.ref.Reference's), HW_NONE if none. */
	node_t (*referent)(void *ctx, node_t v, uint32_t *slot);
	/* Each reference inside collection v holding one of its elements,
	 * keys or values (roles: an OR of coll_role) through fn; the calls
	 * made, -1 if v is no collection. */
	int64_t (*coll_walk)(void *ctx, node_t v, unsigned roles, coll_fn fn, void *arg);
	/* For the merged views by field, a context of its own
	 * (contents_open/_close): is v a collection; its contents as
	 * coll_walk; whether v's reference to y is its inside (left out);
	 * incoming: the collection inside which y holds x as a content (the
	 * r-th reference from y to x), its role in *role, HW_NONE if none;
	 * *xid is x's id, read once. */
	void *(*contents_open)(const struct heap *h);
	void (*contents_close)(void *ctx);
	int (*contents_is_coll)(void *ctx, node_t v);
	int64_t (*contents_walk)(void *ctx, node_t v, coll_fn fn, void *arg);
	int (*contents_inside)(void *ctx, node_t v, node_t y);
	node_t (*contents_holder)(void *ctx, node_t y, node_t x, unsigned r, uint64_t *xid, enum coll_role *role);
	/* Classes whose instances are values, replaced and never changed
	 * ("java.lang.String"): such an object is its content and its
	 * children's. NULL-terminated; NULL: none known. */
	const char *const *value_classes;
	/* Fields by their layout in the instance data (heap_inst_data):
	 * the byte offset of instance field `name` of class c (its own or
	 * inherited) and its type (enum hw_type), -1 if none; the value at
	 * such an offset of v, an object id or an integer widened to 64
	 * bits, 0 when v's record is too short or v is no instance. */
	int (*field_offset)(void *ctx, uint32_t c, const char *name, uint8_t *type);
	uint64_t (*field_raw)(const struct heap *h, node_t v, int off, uint8_t type);
	/* Collections (the waste inspections): what class c's instances
	 * are, and one instance's figures (0, or -1 if v is none). */
	void (*coll_class)(void *ctx, uint32_t c, struct coll_class *out);
	int (*coll_info)(void *ctx, node_t v, struct coll_info *ci);
	/* Each target of the handles of handle_kind the reader found, through
	 * fn (what it keeps of them beyond the graph is its own); NULL: the
	 * runtime has none. */
	void (*handles)(const struct heap *h, handle_fn fn, void *arg);
	/* How the weak reference from v to t holds t, in the runtime's
	 * words: "soft", "weak", "finalizer", "phantom" (v a reference
	 * object, t its referent); NULL when it does not say (a rule's
	 * weak reference, a runtime with one kind): a weak one. */
	const char *(*weak_kind)(const struct heap *h, node_t v, node_t t);
	/* Is class c an array type, told by its name where the reader
	 * gives no length (array_length)? NULL: none is. */
	int (*array_class)(const struct heap *h, uint32_t c);
	/* Which run of the runtime h is a heap of, as its objects tell
	 * (the JVM: a number each run draws once): 1 with a key that two
	 * heaps of one run share and two runs all but never do, and the
	 * words for it in words; 0: they do not tell. h's nodes are in
	 * memory (HP_NODES). NULL: the runtime's heaps never tell. */
	int (*run_key)(const struct heap *h, uint64_t *key, struct sbuf *words);
	/* The length of the start of a class's name that another dump of
	 * the program names the same class by, where the rest changes from
	 * run to run (a JVM hidden class's address: "Lam$$Lambda$1/0x" of
	 * "Lam$$Lambda$1/0x7f1814000a08"); 0: the whole name. Of two runs,
	 * diff pairs classes by it (query/baseline.c). NULL: every name is
	 * the whole name. */
	size_t (*class_key_len)(const char *name);
};

/* An array of a reader's own (format_ops' data_arrays): where its
 * pointer is kept, its element's bytes, its count; or, with ptr NULL,
 * one object of elem bytes in place at `at` (a struct of scalars). */
struct fmt_array { void **ptr; void *at; size_t elem; uint64_t count; };
#define FMT_ARRAYS 17

/* What a format's dumps hold beyond what its operations show (the
 * others are told by them: generations by gen_name, allocation sites by
 * alloc_trace, ids that last from dump to dump by id_identifies). */
#define FF_LAYOUT    0x1 /* the JVM's object layout (compressed oops, headers,
			      * alignment) read off the dump: `info` shows it */
#define FF_AGENT_IDS 0x2 /* ids last from dump to dump when heapwalk's agent
			      * wrote the dump (h->agent) */
#define FF_LOADERS   0x4 /* classes name their defining loader (0: the
			      * runtime's own, the bootstrap loader) */
#define FF_SUPERS    0x8 /* classes name their superclass (hclass.super):
			      * instanceof follows it */
#define FF_WEAK_HANDLES 0x10 /* the targets of weak GC handles (the runtime's
			      * handles, HK_WEAK): none told is none there */

/* A reader's own kind of GC root: its name in the reader's words
 * ("JNI global"), the table's kind it is (enum root_kind), and whether
 * its records keep a thread's serial and frame (struct root). */
struct root_native {
	const char *name;
	uint8_t kind;
	uint8_t thread;
};

struct format_ops {
	const char *name;    /* "hprof", "v8": in `info` and in the cache */
	/* What the format is: its heading among heapwalk(1)'s FORMATS
	 * ("HPROF", ".NET (gcdump)"; a test holds the page to the table),
	 * and the words for its files in --help and in the line said of a
	 * file no reader takes ("a V8 heap snapshot (Node, Chrome)"). */
	const char *title, *label;
	unsigned facts;      /* FF_* */
	const char *runtime; /* "jvm", "v8": which inspections and rules apply */
	const struct runtime_ops *rt; /* what that runtime knows; NULL: nothing */
	/* A class name as this format's and its kin's spellings of one
	 * class all become (hclass.key's), appended to out: what a name
	 * given by hand is matched by too. NULL: a class has one spelling. */
	void (*name_key)(const char *name, struct sbuf *out);
	/* Class c's name without what tells it apart from other classes of
	 * that name (a .NET type's module, where several modules have the
	 * name), appended to out: 1; 0 where its name is all there is. A
	 * name given by hand takes every class it is the base of. NULL:
	 * classes are named by their names alone. */
	int (*name_base)(const struct heap *h, uint32_t c, struct sbuf *out);
	/* The index cache keeps what this reader builds (the heap's arrays,
	 * its ids, generations and heapshots, and what data_arrays lists);
	 * 0: the dump is read afresh every time. */
	int cacheable;
	/* What the reader keeps in h->fmt_data, for the index cache: its
	 * arrays in a (at most FMT_ARRAYS, always as many and of the same
	 * element sizes; a struct of scalars in place), made
	 * first, empty, when h has no fmt_data (a cached open), with their
	 * counts; how many. The cache fills them and gives their counts
	 * back to data_loaded, which checks every value a reader would index
	 * with or read the dump at, and makes what it derives: NULL, or why
	 * the cache cannot be used. NULL data_arrays: nothing there. */
	int (*data_arrays)(struct heap *h, struct fmt_array *a);
	const char *(*data_loaded)(struct heap *h, const struct fmt_array *a, int n);
	/* data_arrays' arrays (a bit each) whose values data_loaded need not
	 * check (the reader reads them with bounds of its own): from a
	 * cache they wait there (pointer NULL, count given) until the
	 * reader's load_data reads them (cache_reader_get). */
	unsigned data_lazy;
	/* The parts of a heap (HP_* of heap.h) this reader's decoding reads
	 * (an object's fields, a reference's label): heap_need() loads them
	 * with whatever is asked for. */
	unsigned needs;
	/* Is head[0..n) (the file's first bytes) this format? */
	int (*probe)(const uint8_t *head, size_t n);
	/* What head[0..n) is, where probe said no but it is of the kind of
	 * file this format is one of ("JSON, but ..."), for the line that
	 * refuses it; NULL (or no hook): nothing to say. */
	const char *(*near)(const uint8_t *head, size_t n);
	/* Check the header of the mapped dump (h->map, h->size, h->path):
	 * 0, or -1 with one line in err. */
	int (*header)(struct heap *h, struct sbuf *err);
	/* Read the whole dump into the heap model: nodes, classes,
	 * references, roots. 0, or -1 with one line in err; truncated or
	 * corrupt input opens as far as it is valid, with warnings. Or
	 * HEAP_PARSE_AGAIN: a shortcut the reader took did not hold (found
	 * too late to undo); heap_build drops what was made and calls it
	 * again with h->plain_parse set, when it takes none. */
	int (*parse)(struct heap *h, struct progress *p, struct sbuf *err);
	/* After a cached open: do the nodes' locations (node_off) lie in
	 * the dump as their kinds need? NULL: nothing to check. */
	int (*nodes_valid)(const struct heap *h);
	/* An object's id when the heap keeps no node_id[] (HPROF reads it
	 * from the record). */
	uint64_t (*node_id)(const struct heap *h, node_t v);
	/* Lazy decoding for the views; see the heap_*() accessors. */
	int (*fields)(const struct heap *h, node_t v, field_fn fn, void *arg);
	int64_t (*array_length)(const struct heap *h, node_t v, uint8_t *elem_type);
	int (*array_elem)(const struct heap *h, node_t v, uint64_t i, struct hvalue *out);
	int (*array_data)(const struct heap *h, node_t v, struct harray *a);
	const uint8_t *(*inst_data)(const struct heap *h, node_t v, uint32_t *len);
	int (*string_value)(const struct heap *h, node_t v, struct sbuf *out, size_t max);
	/* Is v a string object of the runtime? (NULL: the JVM's own test,
	 * java.lang.String, is the inspections') */
	int (*is_string)(const struct heap *h, node_t v);
	void (*edge_label)(const struct heap *h, node_t src, node_t dst, struct sbuf *out);
	uint32_t (*alloc_trace)(const struct heap *h, node_t v);
	/* How dumps of this format come to have allocation stacks (ends a
	 * sentence "no object has an allocation trace: ..."); NULL: never. */
	const char *alloc_hint;
	/* The allocation times the dump records (struct alloc_times, its
	 * arrays newly allocated); 0, or -1 if it records none. NULL: the
	 * format never has them. time_hint: how dumps of this format come
	 * to have them (ends "no object has an allocation time: ..."); NULL:
	 * never. */
	int (*alloc_times)(const struct heap *h, struct alloc_times *out);
	const char *time_hint;
	/* The format's own kinds of GC root, each mapped to a row of the
	 * table of kinds (graph/rootkind.h), indexed by a root record's
	 * native; nroot_natives of them (at most 256). */
	const struct root_native *root_natives;
	unsigned nroot_natives;
	/* The name of generation g of h->node_gen ("gen0", "loh"), NULL
	 * past the last. */
	const char *(*gen_name)(unsigned g);
	/* Which of the format's dumps tell GC generations, for a dump that
	 * tells none ("a .NET trace does when recorded with ..."); NULL:
	 * none of them does. */
	const char *gen_told;
	/* What a reader's own root record says beyond its kind (a static
	 * variable's name), appended to out; NULL: nothing. */
	void (*root_detail)(const struct heap *h, const struct root *r, struct sbuf *out);
	/* Free what the reader keeps in h->fmt_data. */
	void (*free_data)(struct heap *h);
	/* Optional: the reader's own arrays (fmt_data) let go to the file
	 * behind the heap while the open's analyses run, which read none
	 * of them (heap_build calls park_data), and back when the reader
	 * first reads them again: heap_need calls load_data, and the
	 * reader's operations load them themselves if no view asked first,
	 * after the open or when the rules (which heap_build calls
	 * load_data for) read them. parse may leave some let go already;
	 * the index cache copies them (data_parked). */
	void (*park_data)(struct heap *h);
	/* 0, or -1 when what waited in the index cache (data_lazy) proves
	 * corrupt: heap_need then makes the heap anew from the dump. */
	int (*load_data)(struct heap *h);
	/* With load_data: the bytes it would allocate now (what waits on
	 * disk), which the memory a view needs counts as well. */
	uint64_t (*data_waiting)(struct heap *h);
	/* Optional: the index cache just written holds the reader's arrays
	 * (cache_holds_reader): those parked may wait there instead, as
	 * after a cached open (data_lazy), and the scratch file go. */
	void (*data_cached)(struct heap *h);
	/* Optional, with park_data: data_arrays' array i is parked, as
	 * section *id of heap_scratch(h) (1; 0: not), which the index cache
	 * copies as it is, before load_data. */
	int (*data_parked)(struct heap *h, int i, uint32_t *id);
	/* The engine is about to change h->out or the weak arrays (h->out
	 * loaded): a reader that keeps labels by their place there keeps
	 * the references as it built them (graph/builder.h: hb_refs_keep).
	 * NULL: nothing of the reader's depends on their places. */
	void (*refs_change)(struct heap *h);
	/* A file of this format can hold several heaps of one process in
	 * time (h->snaps): heap_open reads the one h->want_snap asks for. */
	int snapshots;
	/* Which objects of h were already in old, an earlier heap of the
	 * same file, as the file tells (Mono: the GC's moves replayed):
	 * same[v] is old's node for h's node v, HW_NONE for a new object
	 * (same has h->n entries). 0 with what the answer rests on in how,
	 * or -1 with why not in why (the caller infers instead). NULL: the
	 * format cannot tell. */
	int (*identity)(const struct heap *h, const struct heap *old, node_t *same, struct sbuf *how,
			struct sbuf *why);
	/* The objects of h that existed at a mark the dump's files record
	 * (.NET: the mark file heapwalk snapshot writes beside the trace of a
	 * marked process, format/clr_mark.h): 1 with old[] (a byte per node,
	 * 1: it existed then; the caller frees it), *exact (0: the record
	 * leaves a doubt) and what the answer rests on, or the doubt, in how;
	 * 0 when there is no mark; -1 with one line in err. With old NULL:
	 * only whether there is one (1 or 0). NULL: the format has no marks
	 * (the JVM's are the agent's, h->agent). */
	int (*mark)(const struct heap *h, uint8_t **old, int *exact, struct sbuf *how, struct sbuf *err);
	/* Ids that name an object across dumps of one process (V8's): does
	 * v's id name v and no object before it at its place? NULL: the
	 * format's ids do not last from dump to dump. The objects it says
	 * no for are neither new nor old nor gone: counted per class only. */
	int (*id_identifies)(const struct heap *h, node_t v);
	/* Why h's ids name nothing in any dump written after it (the
	 * runtime cleared them once it was written), or NULL: they may.
	 * NULL op: as NULL. */
	const char *(*ids_ended)(const struct heap *h);
	/* runtime_ops.run_key as the file tells it (the id of the process a
	 * .NET dump was taken of, a Mono run's id and start), for two dumps
	 * of this format only (another format's writer may see the process
	 * under another id: a container's). NULL: the file does not tell. */
	int (*run_key)(const struct heap *h, uint64_t *key, struct sbuf *words);
	/* o of old and v of h have one id: can they be one object (the same
	 * type and class)? Else the id passed on: o is gone and v new. */
	int (*id_same)(const struct heap *old, node_t o, const struct heap *h, node_t v);
	/* o and v have one id: might the runtime have made the one into the
	 * other in place (a V8 string flattened or internalized: many at
	 * once), which keeps an id? Such pairs, alike or not, are no sign
	 * whether the ids were numbered afresh. NULL: never. */
	int (*id_in_place)(const struct heap *old, node_t o, const struct heap *h, node_t v);
	const char *id_source;  /* "V8's heap object ids", for the answer's source */
	const char *id_unknown; /* which objects id_identifies says no for, and why */
	/* what makes the runtime number its objects afresh, so that a later
	 * dump's ids name other objects ("... ended"), or NULL */
	const char *id_reset;
	/* May v weigh more than the same object did in an earlier dump of
	 * the process? 0 where the runtime never grows an object in place
	 * (its size fixed when it was made: an array grown is a new one), so
	 * that a comparison never takes v for an earlier, smaller object.
	 * NULL: the format does not say (the GC's figures may vary: Mono's
	 * heapshots give one array two sizes). */
	int (*may_grow)(const struct heap *h, node_t v);
};

/* Before the engine changes h->out or the weak arrays: the reader's
 * refs_change, with h->out loaded. */
void heap_refs_changing(struct heap *h);

/* Do h's ids name its objects from dump to dump (V8's; the JVM's when
 * heapwalk's agent wrote the dump)? */
int heap_ids_stable(const struct heap *h);
/* Does h's format tell the JVM's object layout (FF_LAYOUT)? */
int heap_knows_layout(const struct heap *h);
/* Does h's format name each class's defining loader (FF_LOADERS)? */
int heap_knows_loaders(const struct heap *h);
/* Does h's format name each class's superclass (FF_SUPERS)? */
int heap_knows_supers(const struct heap *h);
/* Does h's format tell the targets of weak GC handles (FF_WEAK_HANDLES)? */
int heap_knows_weak_handles(const struct heap *h);

/* Is the heap from a reader of that runtime ("jvm")? */
int heap_runtime_is(const struct heap *h, const char *runtime);
/* The heap's runtime's knowledge, NULL if none. */
const struct runtime_ops *heap_runtime(const struct heap *h);

/* Fields of node v (instances: the class's then its supers'; classes:
 * statics), each through fn. The count, or -1 if v has none to tell. */
int heap_fields(const struct heap *h, node_t v, field_fn fn, void *arg);
/* Arrays: element count and type, one element; -1 if v is no array. */
int64_t heap_array_length(const struct heap *h, node_t v, uint8_t *elem_type);
int heap_array_elem(const struct heap *h, node_t v, uint64_t i, struct hvalue *out);
/* Array v's raw elements: 0 with *a, or -1. */
int heap_array_data(const struct heap *h, node_t v, struct harray *a);
/* Instance v's field bytes as the dump stores them, and their count;
 * NULL if v is no instance or the format has none (only JVM heaps). */
const uint8_t *heap_inst_data(const struct heap *h, node_t v, uint32_t *len);
/* The text of a string object (unescaped, at most max bytes, "..."
 * marks a cut); 0, or -1 if v is no string; 1 when what was written is
 * not its text but what the dump calls it (a V8 concatenated string
 * whose parts the snapshot lacks): neither compared nor shown as text. */
int heap_string(const struct heap *h, node_t v, struct sbuf *out, size_t max);
/* How a dump of h's format gets allocation stacks, for a note. */
const char *heap_alloc_hint(const struct heap *h);
/* Do h's dumps hold strings' text (heap_string answers)? */
int heap_has_strings(const struct heap *h);
/* Is v a string (a format with is_string only; 0 otherwise)? */
int heap_is_string(const struct heap *h, node_t v);
/* Can v of h be an object of an earlier dump of the process that
 * weighed was bytes (format_ops' may_grow)? */
int heap_may_be_earlier(const struct heap *h, node_t v, uint64_t was);
/* format_ops' may_grow of a runtime that grows no object (the JVM's, the
 * CLR's: an instance's layout and an array's length fixed when made). */
int heap_never_grows(const struct heap *h, node_t v);
/* How src refers to dst (a field or edge name, "[i]", "<class>"...),
 * appended to out; "<root>" from the virtual root, "<?>" if unknown. */
void heap_edge_label(const struct heap *h, node_t src, node_t dst, struct sbuf *out);
/* Does the label s[0..n) name an array's element rather than a field:
 * "[i]" (an index), "[+N]" (the reference's byte in the elements, where
 * their size is not known: Mono's arrays that may hold structs) or a
 * bare number (V8's elements and hidden edges)? */
int label_is_element(const char *s, size_t n);
/* The stack trace serial of v's allocation, 0 if none. */
uint32_t heap_alloc_trace(const struct heap *h, node_t v);
/* The objects' allocation times (heap.h), made on first use and kept
 * with h; with n == 0 if the dump records none. Needs HP_NODES. */
const struct alloc_times *heap_alloc_times(struct heap *h);
/* Why a dump of h's format may have no allocation times, for a note. */
const char *heap_time_hint(const struct heap *h);
/* Frees t's arrays (not t). */
void alloc_times_free(struct alloc_times *t);
/* A root kind as shown (a record's kind and native): the table's name,
 * then the reader's own when it says more ("stack: Java frame"),
 * appended to out. */
void heap_root_kind(const struct heap *h, unsigned kind, unsigned native, struct sbuf *out);
/* The reader's own kind of r, NULL for a pseudo kind or one the reader
 * has not (a forged cache). */
const struct root_native *heap_root_native(const struct heap *h, const struct root *r);
/* Does r keep a thread's serial and frame (HPROF's thread roots)? */
int heap_root_has_thread(const struct heap *h, const struct root *r);
/* What root record r says beyond its kind, for a reader's own kinds
 * (" Foo.bar"); appends nothing if nothing. */
void heap_root_detail(const struct heap *h, const struct root *r, struct sbuf *out);

/* GC generations, for heaps whose dump tells them (h->node_gen): the
 * name of generation g ("gen2"), NULL past the last or without them. */
const char *heap_gen_name(const struct heap *h, unsigned g);
/* The generation g named s ("gen2", "2", "loh"; any case), -1 if none. */
int heap_gen_find(const struct heap *h, const char *s);
/* Why h tells no generations, in the words of its format, appended to
 * out: "this dump tells no GC generations (...)". */
void heap_gen_none(const struct heap *h, struct sbuf *out);

/* The reference in instance data of len bytes at byte off, an id of
 * idsize bytes (big-endian, as HPROF stores it); 0 where too short. */
static inline uint64_t inst_ref_at(const uint8_t *data, uint32_t len, uint32_t off, unsigned idsize)
{
	return (uint64_t)off + idsize <= len ? beid(data + off, idsize) : 0;
}

#endif
