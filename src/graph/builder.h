/* builder.h — the one way a reader hands the engine its heap: objects,
 * their types (classes by name), references and roots by id, in any
 * order, then hb_finish(), which makes struct heap's nodes, classes,
 * references and roots with every invariant heap.h promises.
 *
 * What the builder owns: nodes 1..n-1 by ascending id (it sorts when
 * the ids did not come ascending, and keeps the first object of an id
 * given twice, with a warning); node 0, the virtual root; one class per
 * name, numbered in the order of their first object by id, its id that
 * of the first object's type, with count and shallow_total, and
 * h->total_shallow; the reference CSR (out_start, out) with each node's
 * targets ascending (then by label, or as given: HB_GIVEN), references
 * from or to an id no object has dropped and counted in
 * h->dangling_refs (node 0 is no object's: nothing refers to it or from
 * it but the roots); the weak references (weak_*, sorted alike); root
 * records sorted and unique, a (node, kind) given twice with its least
 * detail. References are by id, so those given from an id given twice
 * are all its kept object's (a reader that wants otherwise asks hb_find
 * after hb_nodes_done). A reader whose records name each other by
 * number (V8's nodes) gives its objects in its order and, once the
 * nodes are done, its references by node (HB_PLACES, hb_given_take).
 * A reader that can read its references twice counts them first
 * (hb_object_refs with each object, or hb_refs_count once the nodes
 * are done), then gives them by node (V8's, Mono's: hb_refs_room) or by
 * id (.NET's: hb_refs): then nothing is sorted but what came out of
 * order, and no reference takes more than its place in h->out.
 *
 * The builder's own memory (sort order, references by id, types) is
 * freed by hb_free(), and counted (own, own_peak); what it fills in
 * struct heap belongs to the heap. The same objects (their types made
 * in any order), references and roots in any order give the same
 * heap, byte for byte, but for the names table: its order is the
 * reader's (and for what HB_GIVEN, HB_TWICE keep in the order given). */
#ifndef HW_BUILDER_H
#define HW_BUILDER_H

#include "graph/classes.h"
#include "graph/heap.h"
#include "graph/idindex.h"
#include "graph/reader.h"

struct store;

#define HB_LABELS 0x1 /* each reference carries a label (hb_ref_label) */
#define HB_GIVEN 0x2  /* references from one object to one target (strong,
		       * or weak) keep the order given, not their labels' */
#define HB_PLACES 0x4 /* the reader names objects by their place as given
		       * (hb_given_take), and after hb_nodes_done gives
		       * references and roots by node: no id index is made
		       * (hb_find finds none), h->node_id is the reader's */
#define HB_TWICE 0x8  /* objects of an id given twice are all kept, in the
		       * order given (the reader warns; with HB_PLACES) */
/* ids are the addresses of objects that do not overlap: a size that
 * reaches past the next object's address (the last's: past the end of
 * the address space) is damage, cut to it and counted (cut_sizes), so
 * that no total of sizes can wrap */
#define HB_DISJOINT 0x10
/* each object's node as given kept for hb_given_take, as with
 * HB_PLACES, while ids stay the objects' and the id index is made (a
 * reader that walks its objects again in the order given finds each
 * one's node without a lookup) */
#define HB_GIVEN_NODES 0x20
/* With HB_LABELS, references counted (hb_refs_count) and given by node
 * (hb_refs_room): each node's are given in one stretch (its calls one
 * after another, no node's twice). Each node's run is then sorted as
 * soon as the next one's begins, and its labels wait in the heap's
 * scratch file (heap_scratch) as they come, not in memory at their
 * places: hb_labels_park or hb_labels_take gives them in h->out's
 * order. */
#define HB_RUNS 0x40
/* The reader finds few objects by id (a .gcdump's references and
 * objects go by place, only its roots by address): no id index is made
 * (on 5 M objects, 3% of an open's instructions and 7 MB), and hb_find
 * searches the ids, in order once the nodes are done. May be set in
 * b->flags until hb_nodes_done (the reader may know once it has given
 * the objects). */
#define HB_FEW_FINDS 0x80

struct hb_type { uint32_t name, qual; uint64_t id; uint32_t key; }; /* qual, key: hb_type_qual's, hb_type_key's, + 1 */
struct hb_ref { uint64_t from, to; };
struct hb_root { uint64_t id; uint32_t detail; uint8_t kind, native; };
struct hb_weak { node_t from, to; uint32_t label; };

struct heap_builder {
	struct heap *h;
	struct nametab *nt;    /* the names table: borrowed, or own_nt */
	struct nametab own_nt;
	unsigned flags;
	const char *dup_what;  /* the warning for ids given twice (NULL: the
				* builder's words), "objects ... kept" */
	/* types: (name, id) pairs, found again by a hash */
	struct hb_type *ty;
	uint32_t nty, cty;
	uint32_t *thash;
	size_t thash_cap;
	/* objects, straight into the heap's node arrays at 1..n, as given */
	node_t n;
	size_t cap;
	uint64_t last_id;
	int ascending;         /* every id so far above the one before */
	struct big { uint64_t at, size; } *big; /* sizes past 32 bits */
	size_t nbig, cbig;
	/* references and roots, by id */
	struct hb_ref *ref;
	uint32_t *label;       /* parallel to ref, then to key (HB_LABELS) */
	size_t nref, cref;
	/* once the nodes are done: references as (source << 32 | target) */
	uint64_t *key;
	size_t nkey, ckey;
	uint64_t dangling;
	uint64_t from_id;      /* the last reference's source, and its node */
	node_t from_node;
	int from_known;
	int nodes_done;
	int ids_ordered;       /* hb_find may look (the nodes by id; the index made) */
	node_t *given;         /* after hb_nodes_done: each object's node as given */
	size_t ngiven;
	/* ids that came almost ascending: the nodes not at their place as
	 * given, by place (at: 0 for node 1), each the place it came from
	 * (from: node as given), until hb_nodes_done has made given */
	struct hb_moved { node_t at, from; } *moved;
	size_t nmoved, cmoved;
	edge_t *given_refs;    /* hb_object_refs: the counts by place as given (cap) */
	int refs_dropped;      /* ... given up: the ids came out of order */
	int counted;           /* references counted first (hb_refs_count) */
	uint64_t ncounted;
	size_t placed;         /* ... and placed so far, of h->nedges */
	struct hb_weak *weak;
	size_t nweak, cweak;
	struct hb_root *root;
	size_t nroot, croot;
	/* after hb_finish */
	struct idindex ix;
	uint32_t *out_label;   /* parallel to h->out (HB_LABELS) */
	uint32_t *weak_label;  /* parallel to h->weak_* (HB_LABELS) */
	uint64_t dup_ids, lost_roots; /* dup_ids: objects of an id given before */
	uint64_t cut_sizes;    /* HB_DISJOINT: the sizes cut (from hb_nodes_done) */
	/* HB_RUNS: the run being given (node, its place in h->out before
	 * the holes are closed, its length) and its labels; each node's
	 * place once given, a bit each */
	struct hb_runs {
		int on, open;
		node_t node;
		edge_t at, len, next;  /* next: where a run after this one in order starts */
		uint32_t *label;
		size_t cap;
		uint64_t *sort;        /* room to sort a run in */
		uint32_t *lt;
		size_t sort_cap;
		uint64_t *done;
		/* the labels kept (not the holes'), in the order given, a
		 * chunk (STORE_CHUNK bytes) a section of the scratch file from
		 * HB_CHUNK_ID, those not written there (the last one's, or all
		 * past a failed write) in mem */
		uint32_t *chunk;
		size_t nchunk_label;   /* in chunk */
		uint32_t nwritten;     /* chunks written to the scratch file */
		uint32_t *mem;         /* the rest */
		size_t nmem, cmem;
		uint64_t nlab;
		/* the stretches of runs one after another in h->out (from a
		 * node on, from the nlab'th label on): the labels are in
		 * h->out's order when there is one, from place 0 */
		struct hb_seg { node_t v; uint64_t li; } *seg;
		size_t nseg, cseg;
	} runs;
	/* the builder's own bytes, now and at the most */
	size_t own, own_peak;
};

/* Begin h (zeroed but for its path and mapping): expect about
 * `objects` objects (0: unknown; the arrays grow). nt: the reader's
 * names table over h->names, borrowed (NULL: the builder keeps one;
 * hb_names gives it for the reader's other strings). */
void hb_start(struct heap_builder *b, struct heap *h, struct nametab *nt, size_t objects, unsigned flags);
struct nametab *hb_names(struct heap_builder *b);

/* A type: name (an offset in h->names, from hb_names) and the runtime's
 * id for it (a type handle, a vtable). Returns its handle for
 * hb_object; the same name and id, the same handle; types of one name
 * are one class. hb_type_unnamed: a type no name is known for, named
 * "prefix(0xid)". */
uint32_t hb_type(struct heap_builder *b, uint32_t name, uint64_t id);
uint32_t hb_type_str(struct heap_builder *b, const char *name, size_t len, uint64_t id);
uint32_t hb_type_unnamed(struct heap_builder *b, const char *prefix, uint64_t id);
/* Optional: the qualified name (an offset in h->names) of type's class,
 * by which it is matched with another dump's classes (hclass.qual): the
 * first given of the class's types. */
void hb_type_qual(struct heap_builder *b, uint32_t type, uint32_t qual);
/* Optional: the name (an offset in h->names) type's class is matched by
 * where two dumps do not both give qualified names (hclass.key): the
 * first given of the class's types. */
void hb_type_key(struct heap_builder *b, uint32_t type, uint32_t key);

/* An object: its id (any, 0 too: node 0 is no object's), type handle,
 * size in bytes (past 32 bits: node_shallow holds UINT32_MAX, the
 * totals the size), enum node_kind. Never after hb_nodes_done. */
void hb_object(struct heap_builder *b, uint64_t id, uint32_t type, uint64_t size, uint8_t kind);
/* Optional, right after hb_object: the object just given has n
 * references to come, counted as hb_refs_count would count them for
 * its node, while the ids come ascending (the nodes then need no sort:
 * no pass of the reader's after hb_nodes_done is needed for the
 * counts). Once an id comes out of order the counts are dropped (their
 * array beside the sort's would raise the peak), and hb_refs_counted
 * says 0: the reader counts with hb_refs_count after hb_nodes_done. */
void hb_object_refs(struct heap_builder *b, size_t n);
int hb_refs_counted(const struct heap_builder *b);
/* A reference from object `from` to object `to` (any order, either may
 * be missing: counted as dangling), with a label the reader reads back
 * parallel to h->out (hb_labels_take) when started with HB_LABELS. */
void hb_ref(struct heap_builder *b, uint64_t from, uint64_t to);
void hb_ref_label(struct heap_builder *b, uint64_t from, uint64_t to, uint32_t label);
/* n references from object `from`, to to[0..n): as n hb_ref; once
 * counted (hb_refs_count, from's node; not with HB_LABELS), one look for
 * the source and each straight into its place in h->out. */
void hb_refs(struct heap_builder *b, uint64_t from, const uint64_t *to, size_t n);
/* A GC root: the object's id, its kind (graph/rootkind.h), the
 * reader's own kind (native: its index in the reader's root_natives,
 * whose kind it must be), detail (struct root's thread_serial: a
 * reader's number or names offset, 0 for none). A root of a missing id
 * is dropped (hb_finish counts it in lost_roots). */
void hb_root(struct heap_builder *b, uint64_t id, uint8_t kind, uint8_t native, uint32_t detail);
/* A GC root by node, after hb_nodes_done. */
void hb_root_node(struct heap_builder *b, node_t v, uint8_t kind, uint8_t native, uint32_t detail);

/* Optional, after the last hb_object: the nodes made (sorted, one per
 * id, classes), so that hb_find answers, and references given after it
 * take 8 bytes each instead of 16 (they are resolved at once). The
 * nodes' classes, sizes and kinds are then parked (heap_park: written
 * to the file behind the heap, when there is one, and let go of) while
 * the references are made: heap_load brings them back. */
void hb_nodes_done(struct heap_builder *b);
/* After hb_nodes_done, started with HB_PLACES or HB_GIVEN_NODES: the
 * node of each object in the order given (hb_object's calls, from 0; room for one more),
 * for a reader whose references name their objects by place; that of
 * an id given twice is the kept object's. The caller frees it. */
node_t *hb_given_take(struct heap_builder *b);
/* A reference between nodes (after hb_nodes_done, as hb_given_take has
 * them). */
void hb_ref_node(struct heap_builder *b, node_t from, node_t to, uint32_t label);
/* Optional, after hb_nodes_done and before any reference: `n` more
 * references from node `from` will follow (hb_ref_node only), the
 * whole number of them counted before the first. Then each goes to its
 * place as given, no key made (a reader that can read its references
 * twice: its memory's peak is the references' final arrays). */
void hb_refs_count(struct heap_builder *b, node_t from, size_t n);
/* Once counted: n references from `from` at once, as n hb_ref_node
 * would: their targets (and labels, HB_LABELS) to be written by the
 * reader at what it returns (and *label); a target written HW_NONE (no
 * object's) is dropped by hb_finish and counted in h->dangling_refs. */
node_t *hb_refs_room(struct heap_builder *b, node_t from, size_t n, uint32_t **label);
/* A weak reference (it does not retain; heap.h's weak_* with rule
 * WEAK_BUILTIN), after hb_nodes_done, by id (a missing one counted as
 * dangling) or by node; sorted by source, then target, then label (or
 * as given, HB_GIVEN). Its label: hb_weak_labels_take. */
void hb_weak(struct heap_builder *b, uint64_t from, uint64_t to, uint32_t label);
void hb_weak_node(struct heap_builder *b, node_t from, node_t to, uint32_t label);
/* HB_RUNS: the labels (parallel to h->out) written to st as section id
 * (st: heap_scratch(h), where they wait): 0, or -1 when they could not
 * be (then hb_labels_take gives them). */
int hb_labels_park(struct heap_builder *b, struct store *st, uint32_t id);
/* Make the heap. After it: hb_find, hb_labels_take, then hb_free. */
void hb_finish(struct heap_builder *b);
/* The node of an object's id, HW_NONE if none (node 0 is no object)
 * or if the nodes are not done yet. */
node_t hb_find(const struct heap_builder *b, uint64_t id);
/* The labels parallel to h->out; the caller frees them. */
uint32_t *hb_labels_take(struct heap_builder *b);
uint32_t *hb_weak_labels_take(struct heap_builder *b);

/* The references as the builder made them, for a reader whose labels
 * are parallel to them (by their place in h->out and the weak arrays).
 * The analyses change those arrays (a reference left out by the step
 * ignore moves to the weak ones, so do garbage's into the live heap):
 * a label found by its place there then would be another's. So the
 * reader's format_ops refs_change keeps a copy (hb_refs_keep) before the
 * first change, and finds its labels through hb_refs_view, which gives
 * that copy, or h's arrays while there is none. */
struct hb_refs {
	edge_t *start;        /* n + 1: node v's are start[v]..start[v + 1] */
	node_t *to;           /* each node's targets ascending */
	node_t *wsrc, *wdst;  /* the weak ones, by source then target */
	uint64_t n, nweak;
	int own;              /* copies, freed by hb_refs_free */
};
void hb_refs_keep(const struct heap *h, struct hb_refs *r);
void hb_refs_view(const struct heap *h, const struct hb_refs *kept, struct hb_refs *out);
/* The first strong (weak) reference from src to dst: its index, -1 if
 * none; the first weak one from src (nweak if none). */
int64_t hb_refs_find(const struct hb_refs *r, node_t src, node_t dst);
int64_t hb_refs_find_weak(const struct hb_refs *r, node_t src, node_t dst);
uint64_t hb_refs_weak_first(const struct hb_refs *r, node_t src);
/* Are r's arrays (a cache's copy) whole and in range for n nodes? */
int hb_refs_valid(const struct hb_refs *r, node_t n);
void hb_refs_free(struct hb_refs *r);
/* For the index cache (format_ops' data_arrays, data_loaded): r's four
 * arrays in a (empty while r is no copy), how many; r made again from
 * them as the cache gave them back, checked: 1, or 0 if not whole. */
#define HB_REFS_ARRAYS 4
int hb_refs_arrays(const struct heap *h, struct hb_refs *r, struct fmt_array *a);
int hb_refs_loaded(const struct heap *h, struct hb_refs *r, const struct fmt_array *a);
void hb_free(struct heap_builder *b);

#endif
