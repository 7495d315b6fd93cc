/* insp_waste.c — inspections, see inspect.h. */
#include "query/inspect.h"

const struct inspection insp_waste[] = {
	{ .name = NULL },
};
