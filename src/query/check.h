/* check.h — gates for CI: a file of rules, each a threshold on a figure
 * of the dump, evaluated; heapwalk check exits 1 when one fails.
 *
 * A rule is one line, "SUBJECT : MEASURE OP VALUE" (the last ':' ends
 * the subject; '#' starts a comment; blank lines are nothing):
 *
 *   set STEPS               the objects the steps select (as -e takes them)
 *   growth STEPS            the same, now less at the baseline (the steps
 *                           run on both dumps; signed)
 *   leaks                   the leaked objects (leaks BASE TARGET DUMP)
 *   leaks top               its biggest cluster
 *   inspection NAME [ARG]   the inspection over every object: all its
 *                           groups ("top": its first group)
 *
 * MEASURE: count, shallow, retained (exact, of the whole set; leaks: the
 * tops' retained), or an inspection's own figure (its extra_name:
 * "wasted"...). OP: < <= > >= == !=. VALUE: a number; bytes may carry a
 * unit, B, kB (KB, K), MB (M), GB (G), TB (T), in powers of 1024. */
#ifndef HW_CHECK_H
#define HW_CHECK_H

#include "graph/heap.h"
#include "progress.h"
#include "query/leaks.h"
#include "query/objset.h"

enum chk_kind { CK_SET, CK_GROWTH, CK_LEAKS, CK_LEAKS_TOP, CK_INSP, CK_INSP_TOP };
enum chk_op { CK_LT, CK_LE, CK_GT, CK_GE, CK_EQ, CK_NE };

struct chk_rule {
	const char *file;    /* its rules file: check_parse's file, borrowed */
	unsigned line;
	char *text;          /* the rule as written, spaces trimmed */
	enum chk_kind kind;
	char *steps;         /* CK_SET, CK_GROWTH */
	char *insp, *insp_arg; /* CK_INSP*: the inspection and its argument (or NULL) */
	char *measure;
	enum chk_op op;
	int64_t value;
	/* after check_eval */
	int64_t got;
	int ok;              /* 1 holds, 0 fails */
	char *error;         /* could not be measured: why (then ok is 0) */
	char *note;          /* measured, with this said of it: a class the
			      * steps name that the dump has none of */
};

struct chk_rules {
	struct chk_rule *r;
	size_t n, cap;
	char *unfit;         /* set: why no rule is measured (a dump cut
			      * short), each rule's error */
};

/* Rules from text (file: its name, for messages and each rule's file,
 * which borrows it: it must outlive rs): 0, or -1 with err "FILE:LINE:
 * what" for the first line that does not parse. */
int check_parse(const char *file, const char *text, size_t len, struct chk_rules *rs, struct sbuf *err);
/* Measure every rule on h (HP_ALL loaded; old: the baseline dump, opened,
 * for growth rules; lv: the leaks view of h, for leaks rules). A rule
 * that cannot be measured gets its error (also a growth rule without old,
 * a leaks rule without lv); with rs->unfit, every rule has that error,
 * unmeasured. Returns the rules that failed or could not be measured. */
size_t check_eval(struct chk_rules *rs, struct heap *h, struct heap *old, const struct leaks_view *lv,
		  struct progress *p);
/* The results as JUnit XML (one testcase per rule, classname and file
 * its rules file, line its line; errors as <error>). */
void check_junit(const struct chk_rules *rs, const char *dump, struct sbuf *out);
/* JUnit XML for a check that ended with an error before its rules were
 * measured (what is said on standard error): one test in error, so that
 * a CI report shows it, not the last run's file. */
void check_junit_error(const char *dump, const char *rules, struct sbuf *out);
/* The comparison as written ("<", "<=" ...); inline: the reports call
 * nothing of this file (it calls the steps, which call the views'). */
static inline const char *check_op_text(enum chk_op op)
{
	static const char *const text[] = { "<", "<=", ">", ">=", "==", "!=" };

	return text[op];
}
void check_free(struct chk_rules *rs);

#endif
