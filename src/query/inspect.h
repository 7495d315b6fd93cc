/* inspect.h — inspections: analyses of an object set that find a
 * problem and partition what they find into groups (JProfiler's
 * "Inspections"). A group is a new object set for the next step
 * ("inspection NAME [ARG] group K"). Nothing here prints.
 *
 * Every inspection looks only at members of the set it is given, and
 * its groups come out in a fixed order (priority, then its own key,
 * then name), so the same dump and set give the same table.
 *
 * Waste
 *   duplicate-strings   String objects with equal values, one group per
 *                       value seen at least twice; wasted: every copy
 *                       but one, String and its value array (Strings
 *                       sharing one array: that array once)
 *   duplicate-arrays    primitive arrays (length > 0) with equal type,
 *                       length and contents; one group per content
 *   zero-length-arrays  arrays of length 0, one group per array class;
 *                       wasted: all but one per class
 *   sparse-arrays       arrays of length >= 8 with at least 3/4 of their
 *                       elements null (object arrays) or zero
 *                       (primitive arrays), one group per class; wasted:
 *                       the bytes of those elements
 *   empty-collections   collections (runtime/jvm_coll.h) with size 0, per class;
 *                       wasted: their shallow size plus their empty
 *                       table or element array, if any
 *   collection-fill     collections with capacity > 0, one group per
 *                       class and fill ratio (size / capacity) range:
 *                       "0%", "1-25%", "26-50%", "51-75%", "76-100%";
 *                       wasted: the empty slots' bytes
 *   hash-collisions     hash maps and sets with size >= 8, one group per
 *                       class and colliding-entry ratio range ("0%",
 *                       "1-25%", ... as above); extra: entries colliding
 *   null-fields         per class with at least 100 members and per
 *                       reference field: a group when the field is null
 *                       in at least 90% of those members (the members
 *                       where it is null); wasted: ref size each
 *   boxed-primitives    java.lang.Integer, Long, Short, Byte, Character,
 *                       Boolean, Float, Double, one group per class;
 *                       wasted: shallow size minus the primitive's size
 * References
 *   weak-reachable      objects reachable only through a reference
 *                       object, one group per strongest kind that
 *                       reaches them: soft, weak, finalizer, phantom
 *   pending-finalization  referents of java.lang.ref.Finalizer objects
 *                       that nothing but their Finalizer keeps alive,
 *                       one group per class
 *                       (both: the JVM's reachability, so references a
 *                       rule calls weak count as strong here)
 * Retention (priority by bytes retained: HIGH >= 10% of the heap,
 * MEDIUM >= 1%, else LOW)
 *   thread-locals       values of the ThreadLocalMap entries of each
 *                       Thread's threadLocals and inheritableThreadLocals,
 *                       one group per thread ("thread \"NAME\""); bytes
 *                       retained by them
 *   thread-stacks       objects held by Java frame, JNI local and native
 *                       stack roots, one group per thread and frame
 *                       ("thread \"NAME\", frame 3: Foo.bar(Foo.java:12)"),
 *                       per thread where the dump has no such frame;
 *                       bytes retained by them
 *   outer-instances     objects referred to by an inner class's this$N
 *                       field that the inner instance dominates directly
 *                       (idom), one group per declaring class and field
 *                       ("Outer$Inner.this$0"); bytes retained
 *   leak-suspects       objects retaining >= 20% of the heap that no
 *                       member above them in the dominator tree does, and
 *                       classes (java.lang.Class aside) whose members
 *                       retain that much (dominator-based); a group per
 *                       suspect whose members are the objects directly
 *                       below its accumulation point: the first node,
 *                       down the biggest-child chain of the dominator
 *                       tree, whose biggest child retains less than 80%
 *                       of it or is of its own class (a chain's head). A
 *                       class walks from its biggest member when that one
 *                       holds >= 80% of the class's bytes; else (spread)
 *                       its point is the object whose dominator subtree
 *                       holds 80% of its top members' bytes, down from
 *                       the root, and its members those top members under
 *                       it. A class is left out when its point is an
 *                       object suspect's. A class whose top members
 *                       below no top member of another class of 10%
 *                       (char[] inside buffers are the buffers') retain
 *                       >= 10% together, and that gave no suspect above
 *                       (under 20%, or no object holds 80% of them), is
 *                       "accumulated in instances of X: N instances
 *                       retain P%", its group those members, its point
 *                       the object holding 80% of them or none ("no one
 *                       object keeps them alive"), then who holds them
 *                       (insp_holders: holders by kind, soft, weak,
 *                       strong); left out when an object suspect or a
 *                       point named holds 80% of them. Extra: the
 *                       suspect's retained bytes
 * Class loaders
 *   class-loaders       classes (their class objects) and their instances,
 *                       one group per defining loader ("bootstrap", or
 *                       the loader's class and id); extra: classes
 *   duplicate-classes   class objects of names defined by two or more
 *                       loaders, one group per name; extra: loaders
 * Search
 *   string-regex RE     Strings whose value (its first 64 KiB) matches
 *                       the PCRE2 regex, one group per value (named by
 *                       it, cut at 80 bytes); extra: how many
 *   largest-arrays [N]  the N (default 20) largest arrays by shallow
 *                       size (ties: the lower node), one each ("int[1000]
 *                       @0x..."); extra: retained bytes
 *   long-chains [N]     chains of members of one class, each linked to
 *                       the next through one strong reference field,
 *                       longer than N (default 1000): walked from each
 *                       member no other links to (then around cycles),
 *                       an object in one chain per field; one group per
 *                       chain ("Foo.next: 5000 objects from @0x..."),
 *                       extra: its length
 * .NET heaps (the runtime's roots and handles, runtime/clr.h)
 *   finalizer-queue     objects the finalizer queue holds (unreachable
 *                       otherwise, waiting for their finalizer to run),
 *                       one group per class; bytes retained
 *   pinned              objects the GC may not move: one group per way
 *                       ("pinned GC handle", "pinned local", "pinned
 *                       object heap"); bytes retained
 *   gc-handles          the targets of GC handles, one group per kind
 *                       (strong, pinned, weak, dependent: its values,
 *                       sized reference, ref-counted); bytes retained
 * Rules (graph/rules.h)
 *   unowned             objects reachable only through references that
 *                       a rule calls weak, one group per rule
 *   ambiguous-owners    objects with two or more owners of equal weight
 *   tagged              objects with a tag, one group per label
 *   floating            objects whose immediate dominator is the virtual
 *                       root although they are no GC root (nor pseudo
 *                       root): held from several places, nothing below
 *                       the root keeps them alone (the dominators of the
 *                       rules applied: an `owns` rule naming one holder
 *                       takes them out); one group per class, bytes
 *                       retained (priority as for Retention)
 */
#ifndef HW_INSPECT_H
#define HW_INSPECT_H

#include "graph/heap.h"
#include "progress.h"
#include "query/objset.h"

struct runtime_ops;

enum insp_priority { IP_LOW = 1, IP_MEDIUM = 2, IP_HIGH = 3 };

struct insp_group {
	char *name;              /* raw dump text possible: escape before output */
	enum insp_priority priority;
	node_t *nodes;           /* the members, ascending */
	uint64_t count;          /* = number of nodes */
	uint64_t shallow;        /* of the members */
	uint64_t extra;          /* the inspection's own figure (see extra_name) */
	node_t point;            /* leak-suspects: the accumulation point; else HW_NONE */
	uint32_t cls_off, cls_len; /* where a class name is in name, for a front
	                          * end that shortens it; cls_len 0: none */
	/* the objects whose retained bytes extra is, ascending, where they
	 * are not the members (NULL: the members): a leak suspect's group
	 * holds its accumulation point's objects, its bytes those of the
	 * suspect, or of its class's instances that no other one holds */
	node_t *anchors;
	uint64_t nanchors;
};

/* The groups together: their objects counted once, and the inspection's
 * figure of them all: a retained size computed again over the union of
 * the objects whose bytes each group tells (its anchors, else its
 * members: groups may overlap, an object and its class can both be
 * leak suspects), other figures (wasted bytes, counts) summed. */
struct insp_total {
	uint64_t count, shallow; /* of the union of the groups' objects */
	uint64_t extra;          /* see above; 0 without extra_name */
	int overlap;             /* some object is in two groups or more */
};

struct insp_result {
	struct insp_group *g;
	size_t n, cap;
	uint64_t examined;       /* members of the set the inspection looked at */
	int cancelled;           /* the run stopped early: groups incomplete */
	char *note;              /* what the dump does not tell the inspection,
	                          * which its groups then leave out (owned);
	                          * NULL: nothing */
	struct insp_total total; /* set by inspect_run */
};

struct inspection {
	const char *name;        /* "duplicate-strings" */
	const char *category;    /* "Waste", "References", ... */
	const char *title;       /* one line */
	const char *arg;         /* NULL: takes no argument; else its meaning */
	int arg_required;
	const char *extra_name;  /* heading of insp_group.extra, "wasted", or NULL */
	int extra_bytes;         /* extra is bytes (else a count) */
	/* Fill r from the members of set; 0, or -1 with err (bad argument). */
	int (*run)(struct heap *h, const struct objset *set, const char *arg,
		   struct insp_result *r, struct progress *p, struct sbuf *err);
	/* 1: runs on every heap; 0: reads Java objects, JVM heaps only
	 * (listed so, refused and hidden elsewhere) */
	int any_runtime;
	/* Not NULL: reads what this runtime's heaps hold ("clr"), those
	 * heaps only (any_runtime 0) */
	const char *runtime;
	/* 1: reads strings' text, which not every format's dumps hold
	 * (heap_has_strings): refused and hidden where they do not, rather
	 * than examining nothing */
	int reads_strings;
};

/* The runtime whose heaps alone `in` runs on, in words ("JVM",
 * ".NET"); NULL: every heap. */
const char *inspect_runtime_words(const struct inspection *in);
/* Does inspection `in` apply to heap h? */
int inspect_applies(const struct inspection *in, const struct heap *h);

/* Every inspection, in the table's order. */
const struct inspection *inspect_all(size_t *n);
const struct inspection *inspect_find(const char *name);

/* Run one: heap_need(h, HP_ALL) first. Groups are sorted (priority
 * high first, then extra, then shallow, descending, then name). */
int inspect_run(struct heap *h, const struct inspection *in, const char *arg,
		const struct objset *set, struct insp_result *r, struct progress *p,
		struct sbuf *err);
void insp_result_free(struct insp_result *r);

/* For the inspections: add a group (takes nodes, which must be sorted
 * ascending, malloc'd or NULL with count 0); shallow is computed. */
struct insp_group *insp_add(struct insp_result *r, const struct heap *h, char *name,
			    enum insp_priority prio, node_t *nodes, uint64_t count, uint64_t extra);
/* Bytes the members retain, dominator-based: the sum of retained[] of
 * the members that no other member dominates (members must be sorted). */
uint64_t insp_retained(const struct heap *h, const node_t *nodes, uint64_t count,
		       struct progress *p);

/* The reference field `name` of v through the heap's runtime (rt and a
 * context of its open()): HW_NONE when null or absent, when v is no
 * object (HW_NONE too) and when there is no runtime to ask (NULL). */
node_t insp_field(const struct heap *h, const struct runtime_ops *rt, void *ctx, node_t v, const char *name);

/* Who holds the objects nodes[0..count) (sorted), appended to out:
 * "held by 5526 soft holders (5526 java.lang.ref.SoftReference.referent),
 * 3 strong (2 Foo.list); 4 of them GC roots": the distinct holders per
 * kind (strong references, and the weak ones by the runtime's word for
 * them, "weak" when it has none), the most, each kind's class most of
 * them are of and the field most of its references go through (of the
 * first 256 read). Names are raw dump text (insp_holders.c). Returns
 * the holders counted, over the kinds (0: no object holds any). */
uint64_t insp_holders(const struct heap *h, const node_t *nodes, uint64_t count, struct sbuf *out);

/* The tables of the inspection files, each ended by an entry with a
 * NULL name: insp_waste.c, insp_refs.c, insp_retention.c, insp_search.c,
 * insp_clr.c. */
extern const struct inspection insp_waste[], insp_refs[], insp_retention[], insp_search[], insp_clr[];

#endif
