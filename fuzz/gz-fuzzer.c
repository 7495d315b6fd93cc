/* gz-fuzzer.c — libFuzzer harness: the input is a gzip file, inflated
 * with a sink that keeps its first bytes, read back at random through
 * its index, the index packed and unpacked. The body is fuzz_gz() of
 * drive_gz.c, which the regression test runs too. */
#include <stddef.h>
#include <stdint.h>

#include "drive.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_gz(data, size);
}
