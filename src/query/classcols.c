/* classcols.c — the class histogram's columns (see classcols.h). */
#include "query/classcols.h"

#include <string.h>

/* In the order each rendering shows them: the report's class, instances,
 * shallow, retained_lb (the CSV's first four: scripts rely on them); the
 * browser's count, shallow and retained each with its percentage, or
 * with new and gone beside them. */
static const struct class_col all[] = {
	{ CFIG_NAME, CU_TEXT, CC_REPORT, "class", "class", NULL, 0, 0 },
	{ CFIG_COUNT, CU_COUNT, CC_REPORT | CC_PLAIN | CC_DELTA, "instances", "instances", "instances", 0, 0 },
	{ CFIG_COUNT, CU_PCT, CC_PLAIN, NULL, NULL, "%inst", 2, 0 },
	{ CFIG_DELTA, CU_SCOUNT, CC_DELTA, NULL, NULL, "+/-", 0, 0 },
	{ CFIG_NEW, CU_SCOUNT, CC_DELTA, NULL, NULL, "new", 0, '+' },
	{ CFIG_GONE, CU_SCOUNT, CC_DELTA, NULL, NULL, "gone", 0, '-' },
	{ CFIG_SHALLOW, CU_BYTES, CC_REPORT | CC_PLAIN | CC_DELTA, "shallow", "shallow", "shallow", 0, 0 },
	{ CFIG_SHALLOW, CU_PCT, CC_PLAIN, NULL, NULL, "%shal", 3, 0 },
	{ CFIG_NEW_BYTES, CU_SBYTES, CC_DELTA, NULL, NULL, "new bytes", 2, '+' },
	{ CFIG_GONE_BYTES, CU_SBYTES, CC_DELTA, NULL, NULL, "gone bytes", 1, '-' },
	{ CFIG_RETAINED_LB, CU_BYTES, CC_REPORT, "retained_lb", "retained>=", NULL, 0, 0 },
	{ CFIG_RETAINED, CU_RET, CC_PLAIN, NULL, NULL, "retained", 0, 0 },
	{ CFIG_RETAINED_EXACT, CU_BYTES, CC_REPORT, "retained_exact", "retained", NULL, 0, 0 },
	{ CFIG_RETAINED, CU_PCT, CC_PLAIN, NULL, NULL, "%ret", 1, 0 },
	{ CFIG_SHALLOW, CU_PCT, CC_REPORT | CC_TEXT, "shallow_pct", "shallow%", NULL, 0, 0 },
	{ CFIG_GENS, CU_GENS, CC_REPORT | CC_PLAIN, "generations", "generations", "gens", 4, 0 },
};

size_t classcols_of(unsigned where, const struct class_col **cols)
{
	size_t n = 0;

	for (size_t i = 0; i < sizeof all / sizeof all[0] && n < CC_MAX; i++)
		if (all[i].where & where)
			cols[n++] = &all[i];
	return n;
}

const struct class_sortkey classcols_sorts[CSORT_N] = {
	[CSORT_NAME] = { "name", 'n', 0 },
	[CSORT_INSTANCES] = { "instances", 'i', 0 },
	[CSORT_SHALLOW] = { "shallow", 's', 0 },
	[CSORT_RETAINED] = { "retained", 'r', 0 },
	[CSORT_GROWTH] = { "growth", 'g', 1 },
};

int classcols_sort(const char *s, int baseline)
{
	for (int i = 0; i < CSORT_N; i++)
		if ((baseline || !classcols_sorts[i].baseline) && strcmp(s, classcols_sorts[i].name) == 0)
			return i;
	return -1;
}

const char *classcols_sort_list(int baseline)
{
	static char list[2][96];
	char *l = list[baseline != 0];

	if (l[0] == '\0')
		for (int i = 0; i < CSORT_N; i++)
			if (baseline || !classcols_sorts[i].baseline) {
				if (l[0] != '\0')
					strcat(l, ", ");
				strcat(l, classcols_sorts[i].name);
			}
	return l;
}
