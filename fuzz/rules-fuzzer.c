/* rules-fuzzer.c — libFuzzer harness: the input is a rules file
 * (heapwalk-rules(5)), applied to a small heap.
 * The body is fuzz_rules() of drive.c, which the regression test runs too. */
#include <stddef.h>
#include <stdint.h>

#include "drive.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_init_rules();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_rules(data, size);
}
