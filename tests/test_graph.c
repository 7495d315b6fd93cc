/* test_graph.c — placeholder until the suite is written. */
#include "suites.h"

Suite *graph_suite(void)
{
	return suite_create("graph");
}
