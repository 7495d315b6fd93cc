/* step.h — selection steps: plain data with a one-line text form.
 * A pipeline "instances java.util.HashMap | retained | classes" is
 * steps applied in turn to the current object set (at first: every
 * object), optionally ending in the name of the view to show. */
#ifndef HW_STEP_H
#define HW_STEP_H

#include "graph/heap.h"
#include "progress.h"
#include "query/objset.h"

enum step_op {
	ST_ALL, ST_INSTANCES, ST_RETAINED, ST_REFERRERS, ST_REFERENTS,
	ST_DOMINATED, ST_OBJECT
};

struct step {
	enum step_op op;
	char *arg;     /* class name, regex (without slashes) or object id; owned */
	int regex;     /* ST_INSTANCES: arg is a PCRE2 pattern */
	int weak;      /* ST_REFERRERS/ST_REFERENTS: also weak referents */
};

struct pipeline {
	struct step *steps;
	size_t n;
	char *view;    /* NULL, or "classes", "biggest", "objects", "info" */
};

/* Parse; on error returns -1 and writes "column N: what" to err. */
int pipeline_parse(const char *expr, struct pipeline *pl, struct sbuf *err);
void pipeline_free(struct pipeline *pl);
void step_to_string(const struct step *s, struct sbuf *out);
void pipeline_to_string(const struct pipeline *pl, struct sbuf *out);

/* Apply one step to *set (replaced by the result). -1 and err on a bad
 * argument (unknown object, bad regex). */
int step_apply(struct heap *h, const struct step *s, struct objset *set,
	       struct progress *p, struct sbuf *err);

/* Class matcher shared with the views: exact name or PCRE2 regex.
 * Returns a newly allocated flag array of ncls, or NULL with err set. */
uint8_t *class_match(const struct heap *h, const char *pattern, int regex, struct sbuf *err);

#endif
