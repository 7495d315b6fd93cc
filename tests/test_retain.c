/* test_retain.c — placeholder, being written. */
#include "suites.h"

Suite *retain_suite(void)
{
	Suite *s = suite_create("retain");
	return s;
}
