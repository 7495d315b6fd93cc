/* insp_search.c — inspections, see inspect.h. */
#include "query/inspect.h"

const struct inspection insp_search[] = {
	{ .name = NULL },
};
