/* classes.h — the heap's names table (class and field names, interned
 * while a reader builds), fields of a class by name or offset, and the
 * JVM's names of array classes. */
#ifndef HW_CLASSES_H
#define HW_CLASSES_H

#include "graph/heap.h"

/* The interning state over h->names, while a reader builds. */
struct nametab {
	struct heap *h;
	uint32_t *hash;
	size_t hash_cap, hash_used, names_cap;
};

/* Names table: append a string (deduplicated), return its offset. */
uint32_t names_intern(struct nametab *t, const char *s, size_t len);
void names_free(struct nametab *t);

/* Classes by name, while a reader builds a heap whose types are their
 * names (.NET, Mono): of[name] is the class of that name (its offset in
 * h->names), HW_NONE while none. */
struct class_names { uint32_t *of; uint32_t n, cls_cap; };
/* The class named name, made with id on first use. */
uint32_t class_by_name(struct heap *h, struct class_names *cn, uint32_t name, uint64_t id);
void class_names_free(struct class_names *cn);

/* "int[]" -> "[I", "java.lang.Object[][]" -> "[[Ljava.lang.Object;": the
 * name the class table has for an array class written as Java does; a
 * copy of any other name. Caller frees. */
char *class_internal_name(const char *name);

#endif
