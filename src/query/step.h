/* step.h — selection steps: plain data with a one-line text form.
 * A pipeline "instances java.util.HashMap | retained | classes" is
 * steps applied in turn to the current object set (at first: every
 * object), optionally ending in the name of the view to show.
 *
 *   all                        every object
 *   instances NAME | /REGEX/   members whose class is NAME (dotted, as
 *                              jcmd prints it; "byte[]" and "Foo[]" are
 *                              read as "[B" and "[LFoo;") or matches REGEX
 *   instanceof NAME | /REGEX/  the same, subclasses included
 *   retained                   what the set retains (exact)
 *   referrers [weak]           objects referring to a member
 *   referents [weak]           objects a member refers to
 *   dominated                  members' children in the dominator tree
 *   object ID[,ID...]          the objects with those ids (0x... or decimal, @ before it or not)
 *   new | old                  members that did not exist / existed at the
 *                              baseline (h->baseline, query/baseline.h)
 *   unidentified               members the baseline calls neither new nor old:
 *                              ambiguous to the matcher, or that the dump's
 *                              ids do not identify
 *   inspection NAME [ARG] group K[,K...]
 *                              group K (from 1) of the inspection NAME, or
 *                              the union of those groups
 *                              (query/inspect.h) run on the set; ARG is a
 *                              word or a /REGEX/
 *   gone                       first step only: the baseline's objects that
 *                              are gone; the front end applies the rest of
 *                              the pipeline to the baseline dump
 *   top                        members that no other member dominates (the
 *                              top level of the biggest view)
 *   class-objects              the java.lang.Class objects of the members'
 *                              classes
 *   elements [keys|values]     the elements of the members that are
 *                              collections or object arrays (runtime/jvm_coll.h),
 *                              a map's keys and values; or only its keys,
 *                              only its values
 *   loaded                     the instances of the classes that members
 *                              (class loaders) define
 *   unreachable                members the dump's GC roots do not reach
 *                              (analysis_live_set): its garbage
 *   live                       members the dump's GC roots reach: the
 *                              rest (Eclipse MAT's histogram)
 *   site F <- F ...            members allocated at frame F (as frame_label
 *                              writes it), called from the next F ... (a row
 *                              of the hot spots); calls F -> F ...: in
 *                              the outermost frame F, calling the next ...
 *                              (a row of the call tree)
 *   loader ID                  members whose class the class loader ID defines
 *                              (0: the bootstrap loader)
 *   root ID | root gc          from here on the analyses (dominators,
 *                              retained sizes, paths) start from object ID
 *                              alone, as if it were the only GC root; the
 *                              set: what ID reaches. "gc": the dump's GC
 *                              roots again, the set every object
 *   ignore ID LABEL            leave out the reference of object ID that
 *                              LABEL names (a field, "[3]", or the target's
 *                              id) and compute the analyses again; the set
 *                              stays. unignore ID LABEL puts it back
 *   reachable [weak]           everything the members reach, members included:
 *                              the deep set (graph/reach.h)
 *   path FROM TO [undirected] [weak]
 *                              the objects on a shortest path from the object
 *                              FROM to TO (ids as object's); the set does not
 *                              matter; no path is an error
 *   allocated FROM..TO         members allocated in that interval: seconds
 *                              (up to 3 decimals) after the heap's time 0,
 *                              inclusive, an end may be open (query/alloctime.h)
 *
 * Nothing here prints: errors are returned as text in an sbuf. */
#ifndef HW_STEP_H
#define HW_STEP_H

#include "graph/heap.h"
#include "query/pattern.h"
#include "progress.h"
#include "query/objset.h"

enum step_op {
	ST_ALL, ST_INSTANCES, ST_INSTANCEOF, ST_RETAINED, ST_REFERRERS, ST_REFERENTS,
	ST_DOMINATED, ST_OBJECT, ST_NEW, ST_OLD, ST_GONE, ST_INSPECTION, ST_TOP, ST_CLASSOBJ,
	ST_ELEMENTS, ST_LOADED, ST_GENERATION, ST_ROOT, ST_IGNORE, ST_UNIGNORE, ST_REACHABLE, ST_PATH,
	ST_ALLOCATED, ST_LOADER, ST_SITE, ST_CALLS, ST_UNREACHABLE, ST_LIVE, ST_UNIDENTIFIED
};

struct step {
	enum step_op op;
	char *arg;     /* class name, regex (without slashes), object id, generation, or for
	                * ST_ELEMENTS "keys" or "values" (NULL: all), or for ST_ALLOCATED
	                * the interval in its canonical text; owned */
	int regex;     /* ST_INSTANCES/ST_INSTANCEOF: arg is a PCRE2 pattern */
	int weak;      /* ST_REFERRERS/ST_REFERENTS/ST_REACHABLE/ST_PATH: weak
	                * references count too */
	char *insp;    /* ST_INSPECTION: its name (arg: its argument or NULL); owned */
	uint32_t group;/* ST_INSPECTION: the group, from 1 */
	uint32_t *more;/* ST_INSPECTION: further groups (the union), or NULL; owned */
	size_t nmore;
	char *field;   /* ST_IGNORE, ST_UNIGNORE: how arg refers to the target (a field's
	                * name, "[3]", as the views label it, or the target's id); owned */
	char *to;      /* ST_PATH: the last object's id (arg: the first's); owned */
	int undirected;/* ST_PATH: references lead either way */
	int loose;     /* ST_NEW/ST_OLD: the objects the baseline cannot identify
	                * taken too (check's upper bound, never parsed) */
};

struct pipeline {
	struct step *steps;
	size_t n;
	char *view;    /* NULL, or "classes", "biggest", "objects", "info", "paths",
	                * "allocations", "merged-out", "merged-in", "merged-dom", "times",
	                * "lifelines", "graph"; owned */
};

/* Parse errors: a syntax error, or a regex PCRE2 does not compile. */
#define STEP_ESYNTAX (-1)
#define STEP_EREGEX  (-2)

/* The words a step or a view starts with, i from 0 (the steps', then
 * the views'); NULL past the last. For completion. */
const char *step_word(size_t i);

/* Steps whose answer is the baseline's (new, old, unidentified): they
 * mean the open dump's objects, and change when the baseline does. */
static inline int step_on_baseline(enum step_op op)
{
	return op == ST_NEW || op == ST_OLD || op == ST_UNIDENTIFIED;
}

/* Parse expr into pl (freed with pipeline_free, also after an error).
 * Returns 0, or STEP_E* with "column N: what" in err, N counting bytes
 * of expr from 1. Regexes are compiled here, so a bad one is found
 * before a dump is opened. */
int pipeline_parse(const char *expr, struct pipeline *pl, struct sbuf *err);
void pipeline_free(struct pipeline *pl);
/* The canonical text; parsing it gives the same steps. Appends. */
void step_to_string(const struct step *s, struct sbuf *out);
void pipeline_to_string(const struct pipeline *pl, struct sbuf *out);

/* Apply one step to *set (replaced by the result; a set without bits
 * gets them). Needs every part of the heap (heap_need(h, HP_ALL)).
 * Returns 0, or -1 with err set: no such object, no such class, a bad
 * regex in a hand-made step. */
int step_apply(struct heap *h, const struct step *s, struct objset *set,
	       struct progress *p, struct sbuf *err);
/* Whether a step of op can be answered in h at all: elements, loaded,
 * loader and class-objects ask for what some formats do not tell (the
 * JVM's collections, class loaders, class objects), and step_apply
 * refuses them there; the browser does not offer them. */
int step_applies(const struct heap *h, enum step_op op);

/* The object src refers to by label as ignore takes it (a field's name,
 * "[i]", the label the views show, the target's id); HW_NONE with err
 * set if none. */
node_t step_ref_target(const struct heap *h, node_t src, const char *label, struct sbuf *err);

#endif
