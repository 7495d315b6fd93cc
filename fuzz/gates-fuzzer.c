/* gates-fuzzer.c — libFuzzer harness: the input is a file of check's
 * gates (heapwalk(1) GATES), measured on a small heap.
 * The body is fuzz_gates() of drive.c, which the regression test runs too. */
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
	return fuzz_gates(data, size);
}
