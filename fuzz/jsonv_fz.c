/* jsonv_fz.c — src/cli/jsonv.c as it is, its names those of
 * jsonv_names.h (for the runner and the fuzzers). */
#include "jsonv_names.h"
#include "../src/cli/jsonv.c"
