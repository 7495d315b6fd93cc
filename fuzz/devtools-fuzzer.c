/* devtools-fuzzer.c — libFuzzer harness: what Node's inspector sends
 * (the answer of GET /json/list, the WebSocket handshake's answer, the
 * frames, DevTools messages), its first byte picking which. The body is
 * fuzz_devtools() of drive_devtools.c, which the regression test runs
 * too. */
#include <stddef.h>
#include <stdint.h>

#include "drive.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_devtools(data, size);
}
