/* jvm_coll.h — what heapwalk knows of the JDK's own classes: reading an
 * instance's fields by name, and the inside of java.util collections
 * (size, capacity, the references that hold their elements, keys and
 * values). Everything is read from the mapped records; nothing is kept
 * but a small per-class cache in struct jcoll (owned by its creator:
 * jcoll_init(), jcoll_free()).
 *
 * Collections known (and their subclasses, unless a subclass is itself
 * known): java.util.ArrayList, Vector, Stack, ArrayDeque, LinkedList,
 * HashMap, LinkedHashMap, HashSet, LinkedHashSet, Hashtable,
 * Properties, WeakHashMap, IdentityHashMap, TreeMap, TreeSet,
 * concurrent.ConcurrentHashMap, CopyOnWriteArrayList,
 * CopyOnWriteArraySet, ConcurrentLinkedQueue, Collections$Unmodifiable*
 * / Synchronized* wrappers (through to the wrapped collection), and
 * object arrays. Needs the per-node arrays and the references
 * (HP_NODES | HP_OUT | HP_WEAK). */
#ifndef HW_JVM_COLL_H
#define HW_JVM_COLL_H

#include "graph/heap.h"
#include "graph/reader.h"

enum coll_kind {
	CK_NONE, CK_ARRAY, CK_ARRAYLIST, CK_VECTOR, CK_ARRAYDEQUE, CK_LINKEDLIST,
	CK_HASHMAP, CK_LINKEDHASHMAP, CK_HASHSET, CK_LINKEDHASHSET, CK_HASHTABLE,
	CK_WEAKHASHMAP, CK_IDENTITYHASHMAP, CK_TREEMAP, CK_TREESET, CK_CHM,
	CK_COWLIST, CK_COWSET, CK_CLQ, CK_WRAPPER, CK_COUNT
};
const char *coll_kind_name(enum coll_kind k);   /* "java.util.HashMap" */

/* struct coll_info (graph/reader.h): its kind is an enum coll_kind. */

struct jcoll;

struct jcoll *jcoll_new(const struct heap *h);
void jcoll_free(struct jcoll *j);
const struct heap *jcoll_heap(const struct jcoll *j);

/* The known collection kind of instances of class c (CK_NONE if none). */
enum coll_kind jcoll_kind(struct jcoll *j, uint32_t c);
/* Fill *ci for node v; 0, or -1 if v is no known collection. */
int jcoll_info(struct jcoll *j, node_t v, struct coll_info *ci);

/* Call fn(arg, holder, target, role) for each reference inside the
 * collection v that holds one of its elements, keys or values (roles,
 * an OR of coll_role; a list's elements are CR_ELEMENT, a set's too, a
 * map's entries CR_KEY and CR_VALUE): holder is the object whose field
 * or slot refers to the target (the array, the entry or node). Walks
 * through wrappers and a set's backing map. Bounded: chains are
 * followed at most `size + capacity + 16` steps, so a corrupt dump
 * cannot loop. Returns the number of calls, -1 if v is no collection. */
int64_t jcoll_walk(struct jcoll *j, node_t v, unsigned roles, coll_fn fn, void *arg);

/* Fields by name. The byte offset of instance field `name` of class c
 * (its own or inherited) in the instance data, and its type (enum
 * hw_type); -1 if none. Cached per class. */
int jfield_offset(struct jcoll *j, uint32_t c, const char *name, uint8_t *type);
/* The value of the field at `off` (from jfield_offset) of instance v:
 * an object id, or an integer widened to 64 bits; 0 when v's record is
 * too short or v is no instance. */
uint64_t jfield_raw(const struct heap *h, node_t v, int off, uint8_t type);
/* The node the reference field at `off` of v points to, HW_NONE for
 * null or an id that is not in the dump. Looks among v's references
 * first (fast), then searches every id. */
node_t jfield_ref(const struct heap *h, node_t v, int off);
/* Shortcut: the field named `name` of v as a node (HW_NONE if null or
 * absent) / as an integer (0 if absent). */
node_t jfield_node(struct jcoll *j, node_t v, const char *name);
int64_t jfield_int(struct jcoll *j, node_t v, const char *name);

/* Resolve an id to a node near v (v's outgoing references, then a
 * search over every id); HW_NONE if not in the dump. */
node_t jref_node(const struct heap *h, node_t v, uint64_t id);

/* ---- the merged views' hook (query/merged.c, by field) ----
 * A collection's elements, keys and values seen as its own references,
 * its inside hidden: JProfiler's "map value of java.util.HashMap"
 * instead of HashMap -> table -> HashMap$Node -> value. One struct per
 * merged level (jcontents_new/_free: owns a jcoll, a word per object in
 * zero pages the kernel hands out lazily, and the (holder, target) pairs
 * of each collection met). Needs HP_NODES | HP_OUT | HP_IN | HP_WEAK |
 * HP_DOM. */
struct jcontents;
struct jcontents *jcontents_new(const struct heap *h);
void jcontents_free(struct jcontents *c);
/* Incoming: the known collection (not a plain array) inside which y
 * holds x as an element, key or value, with that role in *role; r
 * counts y's references to x from 0 (an entry whose key and value are
 * x has two: key, then value). HW_NONE when y is no collection's inside
 * (traced up y's dominators) or does not hold x so. *xid: x's id, 0 if
 * not read yet (read and kept here). */
node_t jcontents_holder(struct jcontents *c, node_t y, node_t x, unsigned r, uint64_t *xid,
			enum coll_role *role);
/* Outgoing: is v a known collection (not a plain array)? Then
 * jcontents_walk() gives its contents as jcoll_walk() does, and
 * jcontents_inside() tells which of v's own references to leave out:
 * object arrays, java.util's nested classes (nodes, entries, views) and
 * collections (a set's backing map, a wrapper's collection). */
int jcontents_is_coll(struct jcontents *c, node_t v);
int64_t jcontents_walk(struct jcontents *c, node_t v, coll_fn fn, void *arg);
int jcontents_inside(struct jcontents *c, node_t v, node_t y);

#endif
