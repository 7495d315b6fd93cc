/* v8-fuzzer.c — libFuzzer harness: the input is a V8 heap snapshot
 * (.heapsnapshot JSON), parsed and read back through its columns, then
 * opened as a heap and shown in every view. The
 * body is fuzz_v8() of drive_dump.c, which the regression test runs too. */
#include <stddef.h>
#include <stdint.h>

#include "drive.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_v8(data, size);
}
