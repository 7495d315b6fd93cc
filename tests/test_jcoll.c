/* test_jcoll.c — placeholder, being written. */
#include "suites.h"

Suite *jcoll_suite(void)
{
	Suite *s = suite_create("jcoll");
	return s;
}
