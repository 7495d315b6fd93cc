/* mcp_fz.c — src/cli/mcp.c as it is, with jsonv's names those of
 * jsonv_names.h (for the runner and the fuzzers). */
#include "jsonv_names.h"
#include "../src/cli/mcp.c"
