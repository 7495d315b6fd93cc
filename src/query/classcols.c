/* classcols.c — the class histogram's columns (see classcols.h). */
#include "query/classcols.h"

/* In the order each rendering shows them: the report's class, instances,
 * shallow, retained_lb (the CSV's first four: scripts rely on them); the
 * browser's count, shallow and retained each with its percentage, or
 * with new and gone beside them. */
static const struct class_col all[] = {
	{ CFIG_NAME, CU_TEXT, CC_REPORT, "class", "class", NULL, 0, 0, "name" },
	{ CFIG_COUNT, CU_COUNT, CC_REPORT | CC_PLAIN | CC_DELTA, "instances", "instances", "instances", 0, 0, "instances" },
	{ CFIG_COUNT, CU_PCT, CC_PLAIN, NULL, NULL, "%inst", 2, 0, NULL },
	{ CFIG_NEW, CU_SCOUNT, CC_DELTA, NULL, NULL, "new", 0, '+', NULL },
	{ CFIG_GONE, CU_SCOUNT, CC_DELTA, NULL, NULL, "gone", 0, '-', NULL },
	{ CFIG_SHALLOW, CU_BYTES, CC_REPORT | CC_PLAIN | CC_DELTA, "shallow", "shallow", "shallow", 0, 0, "shallow" },
	{ CFIG_SHALLOW, CU_PCT, CC_PLAIN, NULL, NULL, "%shal", 3, 0, NULL },
	{ CFIG_NEW_BYTES, CU_SBYTES, CC_DELTA, NULL, NULL, "new bytes", 2, '+', NULL },
	{ CFIG_GONE_BYTES, CU_SBYTES, CC_DELTA, NULL, NULL, "gone bytes", 1, '-', NULL },
	{ CFIG_RETAINED_LB, CU_BYTES, CC_REPORT, "retained_lb", "retained>=", NULL, 0, 0, "retained" },
	{ CFIG_RETAINED, CU_RET, CC_PLAIN, NULL, NULL, "retained", 0, 0, "retained" },
	{ CFIG_RETAINED_EXACT, CU_BYTES, CC_REPORT, "retained_exact", "retained", NULL, 0, 0, NULL },
	{ CFIG_RETAINED, CU_PCT, CC_PLAIN, NULL, NULL, "%ret", 1, 0, NULL },
	{ CFIG_SHALLOW, CU_PCT, CC_REPORT | CC_TEXT, "shallow_pct", "shallow%", NULL, 0, 0, NULL },
	{ CFIG_GENS, CU_GENS, CC_REPORT | CC_PLAIN, "generations", "generations", "gens", 4, 0, NULL },
};

size_t classcols_of(unsigned where, const struct class_col **cols)
{
	size_t n = 0;

	for (size_t i = 0; i < sizeof all / sizeof all[0] && n < CC_MAX; i++)
		if (all[i].where & where)
			cols[n++] = &all[i];
	return n;
}
