/* suites.h — every Check suite of the runner. */
#ifndef HW_SUITES_H
#define HW_SUITES_H

#include <check.h>

Suite *util_suite(void);
Suite *hprof_suite(void);
Suite *domtree_suite(void);
Suite *graph_suite(void);
Suite *cache_suite(void);
Suite *step_suite(void);
Suite *jvm_suite(void);

#endif
