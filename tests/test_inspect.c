/* test_inspect.c — placeholder, being written. */
#include "suites.h"

Suite *inspect_suite(void)
{
	Suite *s = suite_create("inspect");
	return s;
}
