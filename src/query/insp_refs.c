/* insp_refs.c — inspections, see inspect.h. */
#include "query/inspect.h"

const struct inspection insp_refs[] = {
	{ .name = NULL },
};
