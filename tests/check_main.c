/* check_main.c — the one Check runner: every suite, one summary line.
 * CK_RUN_SUITE=name runs one suite (Check's own variable). */
#include <stdlib.h>

#include "suites.h"

int main(void)
{
	SRunner *sr = srunner_create(util_suite());
	srunner_add_suite(sr, hprof_suite());
	srunner_add_suite(sr, domtree_suite());
	srunner_add_suite(sr, graph_suite());
	srunner_add_suite(sr, garbage_suite());
	srunner_add_suite(sr, cache_suite());
	srunner_add_suite(sr, step_suite());
	srunner_add_suite(sr, merged_suite());
	srunner_add_suite(sr, jvm_suite());
	srunner_add_suite(sr, tui_suite());
	srunner_add_suite(sr, browser_suite());
	srunner_add_suite(sr, agent_suite());
	srunner_add_suite(sr, match_suite());
	srunner_add_suite(sr, calibrate_suite());
	srunner_add_suite(sr, alloc_suite());
	srunner_add_suite(sr, alloctime_suite());
	srunner_add_suite(sr, jcoll_suite());
	srunner_add_suite(sr, rules_suite());
	srunner_add_suite(sr, inspect_suite());
	srunner_add_suite(sr, retain_suite());
	srunner_add_suite(sr, exact_suite());
	srunner_add_suite(sr, focus_suite());
	srunner_add_suite(sr, locals_suite());
	srunner_add_suite(sr, robust_suite());
	srunner_add_suite(sr, fuzzregress_suite());
	srunner_add_suite(sr, gz_suite());
	srunner_add_suite(sr, nettrace_suite());
	srunner_add_suite(sr, v8_suite());
	srunner_add_suite(sr, formats_suite());
	srunner_add_suite(sr, mono_suite());
	srunner_add_suite(sr, owners_suite());
	srunner_add_suite(sr, between_suite());
	srunner_add_suite(sr, report_suite());
	srunner_add_suite(sr, output_suite());
	srunner_add_suite(sr, dot_suite());
	srunner_add_suite(sr, hprofgen_suite());
	srunner_add_suite(sr, proc_suite());
	srunner_add_suite(sr, clrmark_suite());
	srunner_add_suite(sr, files_suite());
	srunner_add_suite(sr, sweep_suite()); /* last: it uses every suite's dumps */
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
