/* test_hprof.c — placeholder until the suite is written. */
#include "suites.h"

Suite *hprof_suite(void)
{
	return suite_create("hprof");
}
