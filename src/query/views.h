/* views.h — the views of an object set, as data: the batch reports
 * (report.h) and the TUI render the same results. Nothing here prints.
 *
 * Each view_X() fills a struct X_view that the caller frees with
 * X_view_free(); rows refer to nodes and classes of h, which must
 * outlive them. A heap opened from the cache needs heap_need() first:
 * info and the whole heap's classes (no --exact) need nothing more;
 * biggest and objects HP_NODES | HP_DOM; paths HP_NODES | HP_IN (and
 * HP_WEAK with weak); classes of a subset or with --exact HP_ALL. */
#ifndef HW_VIEWS_H
#define HW_VIEWS_H

#include "graph/heap.h"
#include "progress.h"
#include "query/objset.h"

struct view_opts {
	const char *sort;    /* classes: name|instances|shallow|retained; NULL: shallow */
	int reverse;         /* classes: the other way round */
	const char *filter;  /* classes: PCRE2 regex on the class name */
	const char *exact;   /* classes: PCRE2 regex of classes to compute exactly */
	int all;             /* classes: also classes with no instance in the set */
	int depth;           /* biggest: levels shown, 1 = the top level only */
	size_t top;          /* classes, biggest, objects: rows at the top level; 0 = all */
	double cutoff;       /* biggest: children under this percent of their parent fold */
	int max_paths;       /* paths: at most this many (> 0) */
	int weak;            /* paths: follow weak referents too */
	size_t path_ends;    /* paths: each path's first and last this many
			      * steps, one row for those between (0: whole) */
	struct progress *progress;
};

/* ---- info: the dump and the set; the rest is read off the heap ---- */
struct root_count {
	unsigned kind;           /* enum root_kind */
	unsigned native;         /* the reader's kind (struct root) */
	uint64_t records;        /* root records of this kind */
	uint64_t objects;        /* distinct objects among them */
};
struct info_view {
	uint64_t set_count, set_shallow;
	uint64_t gc_root_objects;   /* objects with a real (not pseudo) root record */
	struct root_count *roots;   /* kinds present, in the table's order */
	size_t nroots;
	uint32_t *estimated;        /* HC_ESTIMATED classes with instances, by name */
	size_t nestimated;
	uint64_t warnings;          /* incl. those past the bound */
	/* the set's objects by GC generation (heap_gen_name()), when the
	 * dump tells them: ngens > 0 */
	struct { uint64_t objects, bytes; } gens[HW_MAX_GENS];
	unsigned ngens;
	/* view_info_sizes (info --deep): the set's exact retained size and its
	 * deep size (graph/reach.h), sizes 1 when computed */
	int sizes;
	uint64_t retained_count, retained_bytes, deep_count, deep_bytes;
};
void view_info(const struct heap *h, const struct objset *set, struct info_view *v);
/* The set's retained and deep sizes into v (after view_info); weak: the
 * deep set follows weak references too. Needs HP_ALL. -1 if cancelled. */
int view_info_sizes(const struct heap *h, const struct objset *set, int weak, struct info_view *v,
		    struct progress *p);
void info_view_free(struct info_view *v);

/* ---- classes: the histogram of the set ---- */
#define RETAINED_NONE UINT64_MAX
struct class_row {
	uint32_t cls;
	uint64_t count, shallow;
	uint64_t retained_lb;    /* dominator-based lower bound (analysis_class_lb) */
	uint64_t retained_exact; /* RETAINED_NONE unless the class matched --exact */
	uint8_t gens;            /* the generations its members are in (bit g:
				  * heap_gen_name(g)); 0 when the dump tells none */
};
struct class_view {
	struct class_row *rows;  /* sorted; at most --top */
	size_t n;
	size_t matched;          /* rows before --top */
	uint64_t set_count, set_shallow;
	int exact;               /* --exact was given */
	int gens;                /* the rows tell their generations */
};
/* Class row r's generations as text: "gen2", "gen0 gen1 loh". */
void class_gens_text(const struct heap *h, uint8_t gens, struct sbuf *out);
/* -1 with err set on a bad --sort, --filter or --exact. */
int view_classes(struct heap *h, const struct objset *set, const struct view_opts *o,
		 struct class_view *v, struct sbuf *err);
void class_view_free(struct class_view *v);
/* Is s a --sort key of the classes view? */
int view_sort_valid(const char *s);

/* ---- biggest: the dominator tree from the set's top members ---- */
struct big_row {
	node_t node;        /* HW_NONE: a row standing for `count` folded objects */
	unsigned depth;     /* 0: a member no other member dominates */
	uint64_t count;     /* 1, or the number of objects folded */
	uint64_t shallow, retained; /* of the object, or the sums of the folded */
	uint64_t largest;   /* the largest retained size folded (= retained for objects) */
	uint64_t parent;    /* the parent's retained size; the heap's at the top */
};
struct big_view {
	struct big_row *rows;  /* depth first, children biggest first */
	size_t n, cap;
	uint64_t set_count, set_shallow;
	uint64_t top_level;    /* members no other member dominates */
	uint64_t heap_bytes;   /* retained by the virtual root: every object */
};
void view_biggest(struct heap *h, const struct objset *set, const struct view_opts *o,
		  struct big_view *v);
/* The members of the set that no other member dominates (*n of them,
 * in no particular order; the caller frees). */
node_t *view_top_members(struct heap *h, const struct objset *set, size_t *n);
void big_view_free(struct big_view *v);

/* ---- objects: members, biggest retained first ---- */
struct objects_view {
	node_t *nodes;
	size_t n;            /* at most --top */
	uint64_t set_count, set_shallow;
};
void view_objects(struct heap *h, const struct objset *set, const struct view_opts *o,
		  struct objects_view *v);
void objects_view_free(struct objects_view *v);

/* ---- paths: shortest paths from GC roots to one object ---- */
struct path_view {
	node_t target;
	size_t npaths;
	size_t *start;       /* npaths + 1: path i is nodes[start[i]..start[i+1]) */
	node_t *nodes;       /* each path from its root object down to target */
	int weak;            /* weak referents were followed */
	/* with weak: hop[k] for the step from nodes[k] to the next, -1 a
	 * strong reference, else the weak one's rule (heap.weak_rule's: a
	 * rule's index, WEAK_BUILTIN...); NULL without weak */
	int *hop;
	size_t ends;         /* view_opts' path_ends */
	/* with no path: PATH_UNREACHABLE, no GC root holds the object (it is
	 * garbage the dump still has); PATH_WEAK_ONLY, only weak references
	 * lead to it (without weak) */
	unsigned pseudo;
};
#define PATH_WEAK_ONLY   0x1
#define PATH_UNREACHABLE 0x2
void view_paths(const struct heap *h, node_t target, const struct view_opts *o, struct path_view *v);
void path_view_free(struct path_view *v);

/* ---- labels shared by the renderers (raw dump text: escape it) ---- */
/* "java.util.HashMap", or "class java.util.HashMap" for a class object. */
void node_label(const struct heap *h, node_t v, struct sbuf *out);
/* "java.util.ArrayList.add(ArrayList.java:455)" for frame index f, as a
 * Java stack trace line; unescaped. Appends. */
void frame_label(const struct heap *h, uint32_t f, struct sbuf *out);
/* The thread with that serial, or NULL. */
const struct hthread *thread_of_serial(const struct heap *h, uint32_t serial);
/* `thread "NAME"` (its name field), else `thread SERIAL`, or with
 * serial 0 `thread @0x...` for the thread object obj. Appends. */
void thread_label(const struct heap *h, node_t obj, uint32_t serial, struct sbuf *out);
/* The frame index (into h->frames) at depth `frame` of the thread's
 * stack trace, HW_NONE if the dump has none. */
uint32_t thread_frame_index(const struct heap *h, uint32_t serial, uint32_t frame);
/* The index of the stack trace with that serial, or HW_NONE. */
uint32_t trace_of_serial(const struct heap *h, uint32_t serial);
/* "0x7ff0012a8" */
void node_id_text(const struct heap *h, node_t v, char *buf, size_t n);
/* Why no path from a root reaches an object, by the pseudo roots met
 * (PATH_*) and the analyses' focus; NULL if neither tells. */
const char *unreached_why(const struct heap *h, unsigned pseudo);
/* A String's text (at most max bytes), 0; -1 if v is no String. */
int node_string(const struct heap *h, node_t v, struct sbuf *out, size_t max);
/* The root records of v: "JNI global", "Java frame (thread "main",
 * frame 2: Foo.bar(Foo.java:12))", joined by "; ". Empty if none. */
void root_label(const struct heap *h, node_t v, struct sbuf *out);
/* How src refers to dst: a field name, "[3]", "<referent>"... */
void edge_label(const struct heap *h, node_t src, node_t dst, struct sbuf *out);
/* Why a path's step (path_view.hop) is no strong reference, as the
 * Incoming view says it: "weak: jdk.rules:24" (the rule that made it
 * weak), "weak: referent" (a Reference's own, no rules), or a strong
 * reference the analyses set aside ("from an object only weakly
 * reachable"...): appended. */
void weak_hop_why(const struct heap *h, int rule, struct sbuf *out);
/* Where weak reference rule `rule` (heap.weak_rule's) was written,
 * ": jdk.rules:24", or ": referent" (a Reference's own, no rules), or
 * nothing: appended. */
void rule_where(const struct heap *h, int rule, struct sbuf *out);
/* Every name src refers to dst by, joined by sep (", ": "a, b"): where
 * it has several references to dst, each field that holds dst, else
 * each element ("[0], [2]"), at most 8 then " +N more"; else
 * edge_label's one (a V8 edge, "<class>", "static NAME"...), with
 * " +N more" for the others it has. Appended to out. */
void ref_labels(const struct heap *h, node_t src, node_t dst, const char *sep, struct sbuf *out);
/* A step of a retainer trace (lifelines, leaks): the holder's class,
 * "class Foo" for a class object; the field with array indexes folded,
 * "[123]" and a bare number (V8's elements) as "[]". Each replaces
 * out's text. */
void trace_holder(const struct heap *h, node_t x, struct sbuf *out);
void trace_field(const struct heap *h, node_t src, node_t dst, struct sbuf *out);

#endif
