/* merged.h — merged reference views (JProfiler's "merged outgoing",
 * "merged incoming" and "merged dominating" references): the neighbours
 * of a set of objects, aggregated by class or by class and field, one
 * level at a time so that a front end can expand a tree lazily.
 *
 * A level is computed from a set of objects F (at the top: the current
 * object set; below: the objects of the parent group):
 *   outgoing:   the objects that members of F refer to (strong refs)
 *   incoming:   the objects that refer to members of F
 *   dominating: the immediate dominators of members of F
 * grouped by the neighbour's class (MG_BY_CLASS) or by the neighbour's
 * class and the field the reference goes through (MG_BY_FIELD: outgoing,
 * the field of the F member; incoming, the field of the referrer;
 * dominating, the idom's field that refers to the member directly, or
 * "<transitive>" when the idom holds it only through other objects).
 * By field every reference counts through its own field: an object
 * that holds a member in two fields is in both fields' groups. Labels:
 * the field name, "[]" for any element of an object array, "<class>"
 * for an instance's class object, and a class object's own ("static
 * NAME", "<super>", "<loader>"...).
 *
 * Collections (MG_BY_FIELD, outgoing and incoming): the JDK's
 * collections that the runtime knows (runtime/jvm_coll.h) (lists, sets, maps, queues,
 * their wrappers; not plain arrays) show as JProfiler shows them. A
 * member held inside one (by a HashMap$Node's value, an ArrayList's
 * element array) is held by the collection itself: group (cls of the
 * collection, field "map value", coll set), read "map value of
 * java.util.HashMap"; the collection is the group's object. Outgoing
 * from a collection: its elements, keys and values (weak keys of a
 * WeakHashMap included) as its references ("element", "map key", "map
 * value"), its inside (tables, nodes, entries, views, a set's backing
 * map) left out, its other fields as they are. A reference from inside
 * a collection that the collection does not own (a node something else
 * dominates too) is shown as stored. Dominating is never compacted.
 * MG_BY_FIELD_RAW: every field as stored, no compaction.
 *
 * Cost: one pass over the set's references, each member's record read
 * once (never an array scanned for an element), nothing sorted but the
 * groups; transient memory two bitsets over the heap, and by field a
 * word per object (zero pages the kernel hands out lazily) plus 8 bytes
 * per further group an object is in.
 *
 * Class-recursive chains (a linked list: Node.next -> Node -> ...) are
 * collapsed: when a level is computed from a group of class C, the
 * neighbours of class C are not a child group; instead F is first
 * closed over C -> C steps in the view's direction (all C objects
 * reachable that way join F), and the level is the neighbours of that
 * closure outside it. The parent group is told so (`recursive` and
 * `chain`: objects the closure added).
 *
 * Weak holders (incoming, with `weak`): the heap's weak references
 * (HP_WEAK: Reference.referent and what the rules made weak; not those
 * the analyses left out or set aside, as garbage's) into F are
 * neighbours too, in groups of their own (`weak` set) beside the strong
 * ones of the same class and field: a SoftReference that holds a member
 * weakly is in "java.lang.ref.SoftReference.referent" weak, and counted
 * there, not with the strong groups. An object only weakly reachable
 * then is no neighbour of the GC roots (the engine's pseudo root that
 * analyses give it is no GC root): its weak holders are. So are, with
 * `weak` too, the holders whose references an owns rule made incidental
 * (HP_WEAK's rx: another object owns the member), in groups of their
 * own (`weak` MG_NOT_OWNING). Chains are closed over strong references
 * only.
 *
 * The virtual root (node 0) is a neighbour only for incoming and
 * dominating: it becomes one group with cls == MG_ROOT ("GC roots"). It
 * is no object: the group's count and shallow are 0, and its `reached`
 * says what it stands for: the objects a GC root refers to (incoming),
 * the objects no object dominates, held by the roots directly or by
 * several of them (dominating). A front end shows `reached` for it.
 * The engine's pseudo roots are the virtual root's too, but no GC
 * roots: an object of the virtual root that the GC roots (or the
 * analysis root) do not reach over strong references is in a group of
 * its own, MG_WEAKLY where weak references reach it (with `weak`
 * incoming, its weak holders stand for it), MG_UNREACHABLE where
 * nothing does (a .gcdump's frozen literals, the garbage a dump holds).
 *
 * Dominating and objects of the set: a member's immediate dominator is
 * shown whether it is in the set or not. So over the whole heap (where
 * every dominator is a member) the level is every object's immediate
 * dominator by class, the dominator tree folded by class, with the
 * GC roots row for the objects directly under the virtual root; a set
 * whose members are all directly under the root has that row alone,
 * which the batch report explains in a note.
 *
 * Groups are sorted by count (descending), then shallow bytes
 * (descending), then class name, then field name: deterministic. */
#ifndef HW_MERGED_H
#define HW_MERGED_H

#include "graph/heap.h"
#include "progress.h"
#include "query/objset.h"

enum merged_kind { MG_OUTGOING, MG_INCOMING, MG_DOMINATING };
/* MG_BY_FIELD shows the JDK's collections as their contents (see
 * above); MG_BY_FIELD_RAW every field as the dump stores it. */
enum merged_by { MG_BY_CLASS, MG_BY_FIELD, MG_BY_FIELD_RAW };

#define MG_ROOT HW_NONE /* cls of the group standing for GC roots */
/* ... and of those standing for the engine's pseudo roots, which are
 * no GC roots: the objects they alone hold (see above) */
#define MG_WEAKLY (HW_NONE - 2)      /* weakly reachable only */
#define MG_UNREACHABLE (HW_NONE - 3) /* unreachable */

/* Is cls one of the virtual root's groups (no class: no objects)? */
static inline int mg_root_group(uint32_t cls)
{
	return cls == MG_ROOT || cls == MG_WEAKLY || cls == MG_UNREACHABLE;
}

/* A group's class name, or the name of the virtual root's group:
 * "GC roots", "no GC root: weakly reachable", "no GC root: unreachable"
 * ("analysis root", "not the analysis root's: ..." under one); raw dump
 * text for a class: escape it. */
const char *merged_cls_name(const struct heap *h, uint32_t cls);

#define MG_NOT_OWNING 2 /* merged_group's weak: holders that do not own */

/* Incoming by field, a set of at least 1/merged_referrer_share of the
 * heap is read from the referrers' side, in file order (the same
 * groups, faster over most of a heap); 0: never. A tuning knob, 4 by
 * default; the tests compare both ways. */
extern unsigned merged_referrer_share;
extern unsigned long merged_referrer_passes; /* how many levels went that way */

struct merged_group {
	uint32_t cls;       /* the neighbours' class; MG_ROOT for GC roots
	                     * (MG_WEAKLY, MG_UNREACHABLE: see above) */
	char *field;        /* MG_BY_FIELD: field name ("[]" for array
	                     * elements, "static NAME", "<transitive>"...);
	                     * NULL when by class; owned, raw dump text */
	int coll;           /* field names a collection's role: "element",
	                     * "map key", "map value" of the collection cls
	                     * (incoming) or in it (outgoing): show "map value
	                     * of java.util.HashMap", "map value -> Foo" */
	int weak;           /* incoming: these neighbours hold members through
	                     * weak references only (soft, weak, phantom, a
	                     * rule's weak): 1, a group of its own, shown
	                     * marked; or through references an owns rule
	                     * made incidental (another owns the members):
	                     * MG_NOT_OWNING, a group of its own too */
	node_t *nodes;      /* the neighbour objects in this group, sorted by
	                     * node index, no duplicates; owned */
	size_t count;
	uint64_t shallow;   /* shallow bytes of nodes[] */
	node_t *reached;    /* objects of F and of the chain the closure
	                     * added that have a neighbour in this group,
	                     * sorted, unique; owned. At the top level: the
	                     * members of the set reached this way. Below it:
	                     * objects of the row above (and its chain), not of
	                     * the set: for the set's members reached through a
	                     * row use merged_reached() */
	size_t nreached;
};

struct merged_level {
	struct merged_group *groups;
	size_t n;
	/* the closure added this many objects of the parent's class to F;
	 * 0 when not recursive (always 0 at the top level) */
	size_t chain;
};

/* Compute the level from the objects `from` (sorted node indices, unique,
 * no node 0). `weak`: incoming, the weak holders too (see above, and
 * HP_WEAK). `parent_cls` is the class of the group being expanded, or
 * HW_NONE at the top level (then no closure is done). Needs the heap
 * parts: outgoing HP_NODES|HP_OUT, incoming HP_NODES|HP_IN, dominating
 * HP_NODES|HP_DOM|HP_OUT; by field also HP_IN|HP_OUT, and for the
 * collections HP_WEAK|HP_DOM. Polls progress_cancelled(p): returns -1 (out
 * freed, empty) when cancelled, else 0. */
int merged_level(struct heap *h, enum merged_kind kind, enum merged_by by, int weak,
		 const node_t *from, size_t nfrom, uint32_t parent_cls,
		 struct merged_level *out, struct progress *p);
void merged_level_free(struct merged_level *l);

/* ---- GC roots to objects (JProfiler's reverse mode of merged
 * dominating references) ----
 * The dominator tree from the top down towards the set: the top level
 * groups the objects directly under the virtual root that dominate (or
 * are) members of the set; expanding a group lists the children of its
 * objects that do, and so on down to the members. Only objects on the
 * way to members appear. A group's `nodes` are those objects; its
 * `reached` the members in their subtrees (members among the nodes
 * included): here reached is the set's members at every level, and
 * it already is what merged_reached() gives for the path. Chains of one
 * class (a linked list's nodes dominating each other) fold into the row
 * as in merged_level: the level below a row of class C is computed from
 * its objects and their descendants of class C on the way to members
 * (`chain` counts those added), and lists what lies below that chain.
 * By field, a group's field is how the object's immediate dominator
 * refers to it ("<transitive>" when only through others); none at the
 * top, where the dominator is the virtual root.
 *
 * members: the set (sorted, unique); from: NULL at the top, else the
 * row's nodes (sorted, unique); parent_cls: the row's class (ignored at
 * the top). Needs HP_NODES|HP_DOM (and HP_OUT|HP_IN by field); builds
 * the dominator tree's children. Linear in the objects on the way; no
 * cancellation (returns 0). */
int merged_level_down(struct heap *h, enum merged_by by, const node_t *members, size_t nmembers,
		      const node_t *from, size_t nfrom, uint32_t parent_cls, struct merged_level *out,
		      struct progress *p);

/* ---- the set's objects reached through a row ----
 * A row below the top stands for a path of groups: the top level's
 * group, the group chosen in its expansion, and so on. Level i of the
 * path is what merged_level() was called with and the group chosen in
 * its answer: */
struct merged_step {
	const node_t *from;   /* the level's objects, sorted, unique: the set's
	                       * members at the top, else the nodes of the row
	                       * above (borrowed) */
	size_t nfrom;
	uint32_t parent_cls;  /* HW_NONE at the top, else the class of the row
	                       * above (the chain closure's class) */
	uint32_t cls;         /* the chosen group's cls (MG_ROOT: GC roots...) */
	const char *field;    /* its field by field, NULL by class (borrowed) */
	int coll;             /* its coll flag */
	int weak;             /* its weak flag: the step is a weak reference */
};
/* The members of the original set (path[0].from) from which the path
 * leads to the last row: a member reaches a group of level 0 through a
 * reference (as in merged_level), that group's object reaches one of
 * level 1 (after any steps along the chain folded into the row), and so
 * on. weak: the levels were computed with it. *out: a new sorted array
 * (caller frees), *nout its length. With
 * depth 1 it is the top-level group's `reached`. Same heap parts as
 * merged_level, and the dominator tree's children for dominating.
 * Returns -1 (nothing allocated) when cancelled, else 0. */
int merged_reached(struct heap *h, enum merged_kind kind, enum merged_by by, int weak,
		   const struct merged_step *path, size_t depth, node_t **out, size_t *nout,
		   struct progress *p);

/* ---- the tree as the batch reports show it ----
 * The top level over `members`, then each shown group expanded in turn
 * (depth first) down to `depth` levels, at most `top` groups a level
 * (0: all). Rows keep their figures, not their object lists. */
struct merged_row {
	unsigned depth;     /* 0: the top level */
	uint32_t cls;       /* as in merged_group */
	char *field;        /* owned; NULL by class */
	int coll;           /* as in merged_group */
	int weak;           /* as in merged_group */
	uint64_t count, shallow, nreached;
	int64_t chain;      /* the expansion's `chain`; -1 when not expanded */
};
struct merged_tree {
	struct merged_row *rows;
	size_t n, cap;
	enum merged_kind kind;
	enum merged_by by;
	int reverse;                /* dominating: GC roots to objects */
	const node_t *members;      /* borrowed while merged_tree() runs */
	size_t nmembers;
	uint64_t set_count, set_shallow;
	int weak;                   /* incoming: weak holders shown */
	/* incoming, shown or not: the set's objects a weak reference (as
	 * above) refers to, and the objects that refer to them that way */
	uint64_t weak_members, weak_holders;
	/* the top level's groups before `top` cut them, those of them
	 * neither the virtual root's nor weak, and the GC roots', the weakly
	 * reachable's and the unreachable's (each 0 or 1): what the notes go
	 * by */
	size_t top_groups, top_strong, top_root, top_weakly, top_unreachable;
	size_t top_shown;           /* the top level's rows kept (-n keeps the roots') */
	/* reverse: of the top level's objects (before `top`), those the
	 * roots reach through weak references alone, and those they do not
	 * reach: the analysis's pseudo roots hold them (class rows, not
	 * rows of their own) */
	uint64_t top_weakly_objs, top_unreachable_objs;
};
/* reverse: with MG_DOMINATING, the levels of merged_level_down(); weak:
 * incoming, the weak holders too (HP_WEAK). */
int merged_tree(struct heap *h, enum merged_kind kind, enum merged_by by, int reverse, int weak,
		const node_t *members,
		size_t n, unsigned depth, size_t top, struct merged_tree *t, struct progress *p);
void merged_tree_free(struct merged_tree *t);

#endif
