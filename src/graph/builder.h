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
 * targets ascending (then by label), references from or to an id no
 * object has dropped and counted in h->dangling_refs (node 0 is no
 * object's: nothing refers to it or from it but the roots); the
 * one-element weak arrays; root records sorted and unique, a (node,
 * kind) given twice with its least detail. References are by id, so
 * those given from an id given twice are all its kept object's (a
 * reader that wants otherwise asks hb_find after hb_nodes_done).
 *
 * The builder's own memory (sort order, references by id, types) is
 * freed by hb_free(), and counted (own, own_peak); what it fills in
 * struct heap belongs to the heap. The same objects (their types made
 * in any order), references and roots in any order give the same
 * heap, byte for byte, but for the names table: its order is the
 * reader's. */
#ifndef HW_BUILDER_H
#define HW_BUILDER_H

#include "graph/classes.h"
#include "graph/heap.h"
#include "graph/idindex.h"

#define HB_LABELS 0x1 /* each reference carries a label (hb_ref_label) */
/* ids are the addresses of objects that do not overlap: a size that
 * reaches past the next object's address (the last's: past the end of
 * the address space) is damage, cut to it and counted (cut_sizes), so
 * that no total of sizes can wrap */
#define HB_DISJOINT 0x10

struct hb_type { uint32_t name; uint64_t id; };
struct hb_ref { uint64_t from, to; };
struct hb_root { uint64_t id; uint32_t detail; uint16_t kind; };

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
	struct hb_root *root;
	size_t nroot, croot;
	/* after hb_finish */
	struct idindex ix;
	uint32_t *out_label;   /* parallel to h->out (HB_LABELS) */
	uint64_t dup_ids, lost_roots;
	uint64_t cut_sizes;    /* HB_DISJOINT: the sizes cut (from hb_nodes_done) */
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

/* An object: its id (any, 0 too: node 0 is no object's), type handle,
 * size in bytes (past 32 bits: node_shallow holds UINT32_MAX, the
 * totals the size), enum node_kind. Never after hb_nodes_done. */
void hb_object(struct heap_builder *b, uint64_t id, uint32_t type, uint64_t size, uint8_t kind);
/* A reference from object `from` to object `to` (any order, either may
 * be missing: counted as dangling), with a label the reader reads back
 * parallel to h->out (hb_labels_take) when started with HB_LABELS. */
void hb_ref(struct heap_builder *b, uint64_t from, uint64_t to);
void hb_ref_label(struct heap_builder *b, uint64_t from, uint64_t to, uint32_t label);
/* n references from object `from`, to to[0..n): as n hb_ref, but
 * faster once the nodes are done (one look for the source, room made
 * once, the loop inside). */
void hb_refs(struct heap_builder *b, uint64_t from, const uint64_t *to, size_t n);
/* Optional: about `refs` more references to come; room made for them
 * at once (a reader that knows how many spares the arrays' growth: its
 * copies, and the room unused past the last). */
void hb_refs_expected(struct heap_builder *b, size_t refs);
/* A GC root: the object's id, the reader's kind (heap.h: enum
 * root_kind's numbering), detail (struct root's thread_serial: a
 * reader's number or names offset, 0 for none). A root of a missing id
 * is dropped (hb_finish counts it in lost_roots). */
void hb_root(struct heap_builder *b, uint64_t id, uint16_t kind, uint32_t detail);

/* Optional, after the last hb_object: the nodes made (sorted, one per
 * id, classes), so that hb_find answers, and references given after it
 * take 8 bytes each instead of 16 (they are resolved at once). */
void hb_nodes_done(struct heap_builder *b);
/* Make the heap. After it: hb_find, hb_labels_take, then hb_free. */
void hb_finish(struct heap_builder *b);
/* The node of an object's id, HW_NONE if none (node 0 is no object)
 * or if the nodes are not done yet. */
node_t hb_find(const struct heap_builder *b, uint64_t id);
/* The labels parallel to h->out; the caller frees them. */
uint32_t *hb_labels_take(struct heap_builder *b);
void hb_free(struct heap_builder *b);

#endif
