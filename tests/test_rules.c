/* test_rules.c — placeholder, being written. */
#include "suites.h"

Suite *rules_suite(void)
{
	Suite *s = suite_create("rules");
	return s;
}
