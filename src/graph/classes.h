/* classes.h — class resolution during the build: CLASS_DUMP records to
 * struct hclass (names, supers, fields, reference offsets, flags), the
 * names table, and lookups by class id. Internal to the builder. */
#ifndef HW_CLASSES_H
#define HW_CLASSES_H

#include "graph/build.h"

struct classtab {
	struct heap *h;
	uint32_t nreal;           /* h->cls[0..nreal) have CLASS_DUMPs, sorted by id */
	uint32_t cap;             /* of h->cls */
	uint32_t prim[12];        /* element type -> class index, made up if absent */
	uint32_t java_lang_class; /* class of class objects */
	uint64_t last_id;         /* one-entry lookup cache */
	uint32_t last_cls;
	/* names interning */
	uint32_t *hash;
	size_t hash_cap, hash_used, names_cap;
	uint32_t fields_cap, refoffs_cap;
};

/* Resolve every class dump of the scan. Sorts s->str and s->lc. */
void classes_build(struct classtab *t, struct heap *h, struct scan *s);
void classes_free(struct classtab *t);

/* Class index for a class object id; unknown ids get a made-up class
 * (one per id, warned once), `is_array` choosing its kind. */
uint32_t classes_find(struct classtab *t, uint64_t id, int is_array, uint64_t at);

/* Names table: append a string (deduplicated), return its offset. */
uint32_t names_intern(struct classtab *t, const char *s, size_t len);
/* Intern a class name from the dump in external form, as jcmd prints it:
 * "java/util/HashMap" becomes "java.util.HashMap". */
uint32_t classes_intern_name(struct classtab *t, const uint8_t *p, uint32_t n);

/* A UTF8 record's text by string id, or NULL; *len receives its length. */
const uint8_t *scan_string(const struct heap *h, const struct scan *s, uint64_t id, uint32_t *len);

/* "int[]" -> "[I", "java.lang.Object[][]" -> "[[Ljava.lang.Object;": the
 * name the class table has for an array class written as Java does; a
 * copy of any other name. Caller frees. */
char *class_internal_name(const char *name);

#endif
