/* cache-fuzzer.c — libFuzzer harness: the input is an index cache file
 * of a small dump of one of the formats (its header's pad word picks
 * which), its checksums made right; loaded, every view run.
 * The body is fuzz_cache() of drive.c, which the regression test runs too;
 * its mutator reaches inside the compressed sections. */
#include <stddef.h>
#include <stdint.h>

#include "drive.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max, unsigned int seed);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_init_cache();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_cache(data, size);
}

/* Two mutations in three go to a section's values (cache_mutate_section:
 * inflated, mutated, compressed again), where a mutation of the
 * compressed bytes is refused as corrupt before any value is read; the
 * third to the file's bytes (its header, its table, the chunks). */
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max, unsigned int seed)
{
	size_t n = seed % 3 == 0 ? 0 : fuzz_cache_mutate(data, size, max, seed / 3, LLVMFuzzerMutate);

	return n != 0 ? n : LLVMFuzzerMutate(data, size, max);
}
