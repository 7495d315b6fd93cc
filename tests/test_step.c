/* test_step.c — placeholder until the suite is written. */
#include "suites.h"

Suite *step_suite(void)
{
	return suite_create("step");
}
