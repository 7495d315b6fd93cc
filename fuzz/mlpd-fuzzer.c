/* mlpd-fuzzer.c — libFuzzer harness: the input is a Mono log-profiler
 * file (.mlpd): its last heapshot, and its first when it has several,
 * opened without the index cache, then every view and inspection; input
 * of any other format is refused at once. The body is fuzz_mlpd() of
 * drive_dump.c, which the regression test runs too. */
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
	return fuzz_mlpd(data, size);
}
