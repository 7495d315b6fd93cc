/* insp_retention.c — inspections, see inspect.h. */
#include "query/inspect.h"

const struct inspection insp_retention[] = {
	{ .name = NULL },
};
