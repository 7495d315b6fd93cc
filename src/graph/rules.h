/* rules.h — reference-classifier rules: which references own an object,
 * which are weak, which objects carry a tag. Parsed from plain-text
 * files (man/heapwalk-rules.5); applied to a heap by ownership.h.
 *
 *   # a comment runs to the end of the line
 *   group NAME [off] ["description"]   later rules belong to NAME
 *   weak TYPE FIELD...                 the references are not strong
 *   owns TYPE FIELD... [weight N]      the references own their targets
 *   tag  TYPE [FIELD...] "LABEL"       label the instances (or targets)
 *   tag-if-zero TYPE FIELD "LABEL"     label the instances whose field is
 *   tag-if-nonzero TYPE FIELD "LABEL"    zero (null, 0, false, 0.0), or not
 *
 * TYPE is a dotted class name ("java.util.HashMap", "java.lang.Object[]"),
 * NAME+ for the class and its subclasses, or /REGEX/ (PCRE2, searched in
 * the dotted name; /REGEX/+ adds subclasses). FIELD is an instance
 * field's name (inherited ones too), "*" for every reference field, "[]"
 * for the elements of an object array, optionally followed by ".values",
 * ".keys" or ".elements" to reach through the collection (or array) the
 * field holds: the rule then classifies the references that hold the
 * collection's values, keys or elements. "this.values" etc. reach
 * through the instance itself.
 *
 * A ruleset is owned by its creator: rules_new(), rules_free(). */
#ifndef HW_RULES_H
#define HW_RULES_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

enum rule_verb { RV_WEAK, RV_OWNS, RV_TAG, RV_TAG_ZERO, RV_TAG_NONZERO };

/* Does the rule label objects (tag, tag-if-zero, tag-if-nonzero)? */
#define RULE_TAGS(r) ((r)->verb == RV_TAG || (r)->verb == RV_TAG_ZERO || (r)->verb == RV_TAG_NONZERO)

#define RULES_MAX 10000 /* rules in a ruleset, all files together */
enum rule_reach { RR_FIELD, RR_VALUES, RR_KEYS, RR_ELEMENTS };

#define RULE_ANY_FIELD "*"   /* every reference field */
#define RULE_ELEMS "[]"      /* elements of an object array */
#define RULE_THIS "this"     /* the instance itself (with a reach) */

struct rule_field {
	char *name;              /* field name, RULE_ANY_FIELD, RULE_ELEMS or RULE_THIS */
	enum rule_reach reach;
};

struct rule {
	enum rule_verb verb;
	uint32_t group;          /* index into ruleset.groups */
	char *type;              /* name or pattern (without the slashes) */
	int type_regex;          /* type is a PCRE2 pattern */
	int subclasses;          /* the "+" suffix */
	struct rule_field *fields;
	size_t nfields;          /* 0 only for a tag of the instances; 1 for
				  * tag-if-*, a plain field name (any type) */
	unsigned weight;         /* RV_OWNS: 1..1000 */
	char *label;             /* RULE_TAGS() */
	char *file;              /* where it was written: "jdk.rules:12" style */
	unsigned line;
};

struct rule_group {
	char *name;
	char *description;       /* "" if none */
	char *file;              /* the file that first named it */
	int enabled;
};

struct ruleset {
	struct rule *rules;
	size_t n, cap;
	struct rule_group *groups;
	size_t ngroups, capgroups;
	char *files; /* the files of rules read (rules_load_file), ", " between; NULL: the shipped ones alone */
};

struct ruleset *rules_new(void);
void rules_free(struct ruleset *rs);

/* Parse a rules text; `file` names it in errors and in rule.file. A
 * group named again (in this or another file) gets the new rules too.
 * Returns 0, or -1 with "FILE:LINE:COLUMN: what" in err (nothing of
 * the text is kept then). Regexes are compiled here to be checked. */
int rules_parse(struct ruleset *rs, const char *file, const char *text, size_t len,
		struct sbuf *err);
/* Read a file and parse it; -1 with "FILE: why" or a parse error. */
int rules_load_file(struct ruleset *rs, const char *path, struct sbuf *err);
/* The rules that ship inside the program: rules/jdk.rules. */
int rules_load_default(struct ruleset *rs, struct sbuf *err);
extern const char rules_jdk_text[];

/* Enable or disable a group by name; -1 if there is no such group. */
int rules_enable(struct ruleset *rs, const char *group, int on);
/* A hash of the rules in order and of which are on (0: NULL, the
 * built-in default): equal rulesets, equal hash. */
uint64_t rules_fingerprint(const struct ruleset *rs);
/* "weak", "owns", "tag", "tag-if-zero", "tag-if-nonzero". */
const char *rule_verb_name(enum rule_verb v);
/* The canonical text of one rule, appended. */
void rule_to_string(const struct ruleset *rs, const struct rule *r, struct sbuf *out);

#endif
