/* test_domtree.c — placeholder until the suite is written. */
#include "suites.h"

Suite *domtree_suite(void)
{
	return suite_create("domtree");
}
