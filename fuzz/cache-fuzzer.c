/* cache-fuzzer.c — libFuzzer harness: the input is an index cache file
 * of a small dump of one of the formats (its header's pad word picks
 * which), its checksums made right; loaded, every view run.
 * The body is fuzz_cache() of drive.c, which the regression test runs too. */
#include <stddef.h>
#include <stdint.h>

#include "drive.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_init_cache();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_cache(data, size);
}
