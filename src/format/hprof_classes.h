/* hprof_classes.h — class resolution during the HPROF build:
 * CLASS_DUMP records to struct hclass (names, supers, fields, reference
 * offsets, flags), and lookups by class id. Internal to the builder. */
#ifndef HW_HPROF_CLASSES_H
#define HW_HPROF_CLASSES_H

#include "format/hprof_build.h"
#include "graph/classes.h"

struct classtab {
	struct heap *h;
	uint32_t nreal;           /* h->cls[0..nreal) have CLASS_DUMPs, sorted by id */
	uint32_t cap;             /* of h->cls */
	uint32_t prim[12];        /* element type -> class index, made up if absent */
	uint32_t java_lang_class; /* class of class objects */
	uint64_t last_id;         /* one-entry lookup cache */
	uint32_t last_cls;
	struct nametab nt;        /* names interning */
	uint32_t fields_cap, refoffs_cap;
};

/* Resolve every class dump of the scan. Sorts s->str and s->lc. */
void classes_build(struct classtab *t, struct heap *h, struct scan *s);
void classes_free(struct classtab *t);

/* Class index for a class object id; unknown ids get a made-up class
 * (one per id, warned once), `is_array` choosing its kind. */
uint32_t classes_find(struct classtab *t, uint64_t id, int is_array, uint64_t at);

/* Intern a class name from the dump in external form, as jcmd prints it:
 * "java/util/HashMap" becomes "java.util.HashMap". */
uint32_t classes_intern_name(struct classtab *t, const uint8_t *p, uint32_t n);

/* A UTF8 record's text by string id, or NULL; *len receives its length. */
const uint8_t *scan_string(const struct heap *h, const struct scan *s, uint64_t id, uint32_t *len);

#endif
