/* nettrace-fuzzer.c — libFuzzer harness: the input is an EventPipe
 * nettrace stream (a .NET heap-dump trace), opened without the index
 * cache, then every view and inspection; input of any other format is
 * refused at once. The body is fuzz_nettrace() of drive_dump.c, which
 * the regression test runs too. */
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
	return fuzz_nettrace(data, size);
}
