/* test_cache.c — placeholder until the suite is written. */
#include "suites.h"

Suite *cache_suite(void)
{
	return suite_create("cache");
}
