/* check_main.c — the Check runner. make check runs it once per suite
 * (tests/run-suite.sh): `check_heapwalk NAME` runs suite NAME alone,
 * `check_heapwalk --list` names them all, and with no argument every
 * suite runs in a row (CK_RUN_SUITE=NAME, Check's own variable, still
 * picks one of them). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suites.h"

static const struct {
	const char *name;
	Suite *(*make)(void);
} suites[] = {
#define SUITE(n) { #n, n##_suite },
#include "suite_list.h"
#undef SUITE
};
#define NSUITES (sizeof suites / sizeof suites[0])

static int run_suites(SRunner *sr)
{
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

int main(int argc, char **argv)
{
	/* a test case without a timeout of its own: 300 s, not Check's 4
	 * (timeouts catch hangs only; tcase_create reads it) */
	setenv("CK_DEFAULT_TIMEOUT", "300", 0);
	if (argc == 2 && strcmp(argv[1], "--list") == 0) {
		for (size_t i = 0; i < NSUITES; i++)
			printf("%s\n", suites[i].name);
		return EXIT_SUCCESS;
	}
	if (argc == 2) {
		for (size_t i = 0; i < NSUITES; i++)
			if (strcmp(argv[1], suites[i].name) == 0)
				return run_suites(srunner_create(suites[i].make()));
		fprintf(stderr, "check_heapwalk: no suite %s (--list names them)\n", argv[1]);
		return 99; /* a hard error to the automake harness */
	}
	if (argc > 2) {
		fprintf(stderr, "usage: check_heapwalk [SUITE | --list]\n");
		return 99;
	}
	SRunner *sr = srunner_create(suites[0].make());
	for (size_t i = 1; i < NSUITES; i++)
		srunner_add_suite(sr, suites[i].make());
	return run_suites(sr);
}
