/* step-fuzzer.c — libFuzzer harness: the input is a step expression
 * (-e), applied to a small heap, then its view.
 * The body is fuzz_step() of drive.c, which the regression test runs too. */
#include <stddef.h>
#include <stdint.h>

#include "drive.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_init_step();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_step(data, size);
}
