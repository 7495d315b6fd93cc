/* clrmark-fuzzer.c — libFuzzer harness: a .NET mark, its three streams
 * (the mark's heap, the recorder's, the snapshot) replayed and the mark
 * file read back beside the snapshot (fuzz/drive.h). The body is
 * fuzz_clrmark() of drive_clrmark.c, which the regression test runs
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
	return fuzz_clrmark(data, size);
}
