/* mcp-fuzzer.c — libFuzzer harness: the input is lines of messages to a
 * heapwalk mcp server with dumps open, and JSON for jsonv.
 * The body is fuzz_mcp() of drive_mcp.c, which the regression test runs too. */
#include <stddef.h>
#include <stdint.h>

#include "drive.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_init_mcp();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_mcp(data, size);
}
