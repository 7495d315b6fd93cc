/* classcols.h — the class histogram's columns, one row each, for every
 * front end that shows it: the report's text, JSON and CSV
 * (report_classes) and the browser's classes view, plain and against a
 * baseline. Each column says what it shows, its headers and its format;
 * a rendering takes the columns marked for it, in the table's order. The
 * orders the histogram can be sorted in are a table here too. */
#ifndef HW_CLASSCOLS_H
#define HW_CLASSCOLS_H

#include <stddef.h>

/* What a column shows: a class row's figures. The browser keeps them in
 * row.val[] at these indices (and its unknown bits are by them). */
enum class_fig {
	CFIG_COUNT, CFIG_SHALLOW, CFIG_RETAINED, CFIG_NEW, CFIG_GONE, CFIG_NEW_BYTES, CFIG_GONE_BYTES, CFIG_GENS,
	CFIG_DELTA,                   /* instances now less before (signed) */
	CFIG_NFIGS,                   /* the figures a row carries */
	CFIG_NAME = CFIG_NFIGS,         /* the class name */
	CFIG_RETAINED_LB,             /* the lower bound alone */
	CFIG_RETAINED_EXACT,          /* the exact size alone (--exact) */
};

/* How it is written. */
enum class_unit {
	CU_TEXT,   /* the dump's text */
	CU_COUNT,  /* a number of objects */
	CU_BYTES,  /* bytes */
	CU_PCT,    /* of the set's (browser: of the step's; retained: of the heap's) */
	CU_RET,    /* retained bytes, exact ("=") or a lower bound (">=") */
	CU_SCOUNT, /* a count with its sign (sign) */
	CU_SBYTES, /* bytes with their sign */
	CU_GENS,   /* the GC generations the class's objects are in */
};

/* where */
#define CC_REPORT 0x1 /* report_classes: text, JSON, CSV */
#define CC_TEXT   0x2 /* ... in text only */
#define CC_PLAIN  0x4 /* the browser's classes view */
#define CC_DELTA  0x8 /* ... against a baseline */

struct class_col {
	enum class_fig fig;
	enum class_unit unit;
	unsigned where;     /* CC_* */
	const char *key;    /* JSON member, CSV header (CC_REPORT) */
	const char *head;   /* the report's text header */
	const char *bhead;  /* the browser's header */
	unsigned drop;      /* browser: 0 always shown; else dropped, highest first, when narrow */
	char sign;          /* CU_SCOUNT, CU_SBYTES: '+' new, '-' gone; 0: the
			     * figure is signed itself (a delta) */
};

/* The histogram's orders (the report's --sort, the browser's s): each
 * its name and the browser's key; growth (new bytes less gone) only
 * against a baseline, in the browser. Numbers biggest first, names
 * ascending, ties by name. */
enum class_sort { CSORT_NAME, CSORT_INSTANCES, CSORT_SHALLOW, CSORT_RETAINED, CSORT_GROWTH, CSORT_N };
struct class_sortkey {
	const char *name;
	char key;
	int baseline; /* against a baseline only */
};
extern const struct class_sortkey classcols_sorts[CSORT_N];
/* The order named s (growth too when baseline), or -1. */
int classcols_sort(const char *s, int baseline);
/* "name, instances, shallow, retained" (and growth when baseline). */
const char *classcols_sort_list(int baseline);

/* The columns of the renderings marked `where`, in order, into cols
 * (room for CC_MAX); how many. */
#define CC_MAX 16
size_t classcols_of(unsigned where, const struct class_col **cols);

#endif
