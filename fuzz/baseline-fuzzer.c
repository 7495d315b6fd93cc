/* baseline-fuzzer.c — libFuzzer harness: the input is two dumps of one
 * format around a separator line (drive.h), opened as --baseline OLD and
 * the dump; then the identity between them, the class deltas of
 * heapwalk diff, the new, old and gone objects. The body is
 * fuzz_baseline() of drive_baseline.c, which the regression test runs
 * too. */
#include <stddef.h>
#include <stdint.h>

#include "drive.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_dir();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_baseline(data, size);
}
