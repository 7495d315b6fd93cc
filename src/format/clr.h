/* clr.h — .NET heaps into the heap model: a nettrace heap-dump trace
 * (format/clr.c) and dotnet-gcdump's .gcdump (format/gcdump.c). Both
 * readers gather the same parts (objects by address, their references'
 * target addresses, roots, type names) and clr_build() makes the heap
 * of them; views see one .NET runtime whichever file it came from. */
#ifndef HW_CLR_H
#define HW_CLR_H

#include "graph/classes.h"
#include "graph/reader.h"

extern const struct format_ops clr_format;
/* A type's name as both of .NET's dump formats can spell it (the
 * formats' name_key, hclass.key's), appended to out */
void clr_spelt_alike(const char *s, struct sbuf *out);
/* Both formats' name_base: a class split by module ("NAME [module]",
 * clr_by_module) has NAME for its base, found by its qualified name's
 * module, never by the shape of the name alone */
int clr_name_base(const struct heap *h, uint32_t c, struct sbuf *out);

extern const struct format_ops gcdump_format;

/* (Each struct's first member is its sort key.)
 * An object: address, size, type id, and how many references it
 * claims (the next ones sent are its). */
struct clr_node { uint64_t addr, size, type, nedges; };
/* A root: the object's address, its native kind (runtime/clr.h:
 * CLR_ROOT_*), a name's offset + 1 in the names table (static
 * variables) or 0. */
struct clr_root { uint64_t addr; uint16_t kind; uint32_t name; };
struct clr_pair { uint64_t key, value; };
/* A type: its id, its name's offset, and its module: a trace's module
 * id as the trace gives it, then (and a .gcdump's from the start) the
 * offset + 1 of the module's file name among the names, 0 not known;
 * qual (clr_by_module's): the offset + 1 of "name [module]", its class's
 * qualified name (hclass.qual), 0 where the module is not known; key
 * (clr_by_module's): the offset + 1 of the name as both formats can
 * spell it (hclass.key), 0 where that is the name. */
struct clr_type { uint64_t id, module; uint32_t name, qual, key; };
/* a generation's range: objects at [start, start + used) are in gen */
struct clr_range { uint64_t start, used; uint8_t gen; };

/* n records from at on in the mapped file (a bulk event's) */
struct clr_run { const uint8_t *at; uint32_t n; };
struct clr_parts;
/* One object of a walk (clr_parts' walk): *o, and n of its references'
 * targets (as many as it claims and the file sent; to: NULL when not
 * asked for). */
typedef void (*clr_walk_fn)(void *arg, const struct clr_node *o, const uint64_t *to, size_t n);
/* The same by node (clr_parts' walk_nodes): where the next object's n
 * references' targets go, as nodes (HW_NONE: no object's), written
 * there by the walk; NULL: not wanted (the walk goes on to the next).
 * v: that object's node (given[k] of the k-th object). */
typedef node_t *(*clr_walk_nodes_fn)(void *arg, node_t v, size_t n);
struct heap_builder;

/* What a reader gathered. The objects and their references are not
 * kept but read again from the mapped file, as often as clr_build asks:
 * walk gives them in the file's order (with their targets when
 * `targets`). */
struct clr_parts {
	struct heap *h;
	struct nametab nt;
	void (*walk)(const struct clr_parts *p, int targets, clr_walk_fn fn, void *arg);
	/* optional, for a reader whose references name their targets by
	 * place (a .gcdump's): the objects as walk gives them, with their
	 * targets as nodes, (*given)[k] the k-th object's node (hb_given_take
	 * of the builder b, whose hb_find finds a target by address); the
	 * walk may make *given an index of its own of the same nodes (moved:
	 * the caller frees the one *given is after it) */
	void (*walk_nodes)(const struct clr_parts *p, const struct heap_builder *b, node_t **given,
			   clr_walk_nodes_fn fn, void *arg);
	void *src;      /* the reader's, for walk */
	size_t nnodes;  /* the objects walk gives (a .gcdump's: its nodes, a bound
			 * of them, till its first walk counts them) */
	uint64_t nedges; /* the references the file sent (those past the last
			  * object's claim are no one's) */
	unsigned ps;    /* nettrace: its pointer size, and its bulk events' records */
	struct clr_run *node_runs, *edge_runs;
	size_t nnode_runs, cnode_runs, nedge_runs, cedge_runs;
	struct clr_root *roots;
	size_t nroots, croots;
	struct clr_type *types;
	size_t ntypes, ctypes;
	uint64_t *weak; /* weak handles' targets */
	size_t nweak, cweak;
	struct clr_pair *dep; /* dependent handles: key, value */
	size_t ndep, cdep;
	struct clr_range *ranges; /* generations' ranges, if told */
	size_t nranges, cranges;
	/* sizes of 64 bits (a nettrace's): each cut to the next object's
	 * address. A .gcdump's are of 32 (no sum of them wraps), and a cut
	 * one's made-up addresses are 1 apart. */
	int bound_sizes;
	/* the objects' references go by place (walk_nodes), only the roots
	 * by address: the builder makes no id index (HB_FEW_FINDS); set by
	 * the objects' walk at the latest */
	int few_finds;
};

/* The heap model of the parts, made by the builder (graph/builder.h):
 * nodes by address, classes by type name, references, roots; then what
 * only .NET has: weak and dependent handles (fmt_data), generations.
 * The objects are walked twice: given (with the counts of their
 * references, kept a byte each for when the builder could not keep
 * them), then their references placed (so that the builder keeps
 * nothing but the heap's arrays). */
void clr_build(struct clr_parts *p);
/* dotnet-gcdump keeps a type by its name and module, and the runtime
 * names a nested type without the type around it: "<>c", the lambdas'
 * class of every type that has lambdas, comes from many modules, as do
 * closures' "<>c__DisplayClass5_0". A name that types of more than one
 * known module have becomes a class per module, each type renamed
 * "NAME [module.dll]" (p->types' names; those of no known module keep
 * the name, one class); a name of one module keeps its name alone. */
void clr_by_module(struct clr_parts *p);
/* The file name of a module's path (past its last '/' or '\\') into
 * the names: its offset + 1, 0 for none (clr_type's module). */
uint32_t clr_module_name(struct nametab *nt, const char *path);
void clr_parts_free(struct clr_parts *p);

/* A trace's heap dump's GC (its first induced, blocking full GC): its
 * count and the times (QPC ticks) of its GCStart and GCEnd, found and
 * ended when there. Each thread's events come in order in a stream, but
 * not all threads' together: where a server GC's start or end are not
 * where its events are, its events are those of its time. */
struct clr_window { uint32_t gc; uint64_t start_ts, end_ts; int found, ended; };
void clr_window(const uint8_t *map, uint64_t size, struct clr_window *w);

/* How far the heap dump of a trace being recorded has come, from the
 * bytes written so far (map[0..size), read quietly as far as they go):
 * its GC (the first induced, blocking full GC) started, ended, its
 * count, and the objects its GCBulkNode events have told; once ended,
 * the GC's time from its GCStart to its GCEnd event in ms (-1: not
 * known). */
struct clr_watch { int started, ended; uint32_t count; uint64_t nodes; double pause_ms; };
void clr_watch(const uint8_t *map, uint64_t size, struct clr_watch *w);

/* The views' side, the same for both files. */
int clr_fields(const struct heap *h, node_t v, field_fn fn, void *arg);
void clr_edge_label(const struct heap *h, node_t src, node_t dst, struct sbuf *out);
/* The native kinds of runtime/clr.h (CLR_ROOT_*) in the table of kinds. */
extern const struct root_native clr_root_natives[];
void clr_root_detail(const struct heap *h, const struct root *r, struct sbuf *out);
const char *clr_gen_name(unsigned g);
void clr_free_data(struct heap *h);
/* The index cache's hooks (format_ops' data_arrays, data_loaded). */
int clr_data_arrays(struct heap *h, struct fmt_array *a);
/* format_ops.run_key: the process id the dump names */
int clr_run_key(const struct heap *h, uint64_t *key, struct sbuf *words);
const char *clr_data_loaded(struct heap *h, const struct fmt_array *a, int n);

#endif
