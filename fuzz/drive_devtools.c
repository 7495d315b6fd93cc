/* drive_devtools.c — the body of the devtools fuzzer (drive.h): what
 * Node's inspector sends heapwalk, decoded by src/cli/devtools.c. The
 * input's first byte picks what the rest is (its value mod 4):
 *   0  the answer to GET /json/list (HTTP and JSON)
 *   1  the WebSocket handshake's answer, then the key heapwalk sent on
 *      the line after its blank line
 *   2  a stream of WebSocket frames from the server, joined into
 *      messages, each text message decoded as DevTools JSON
 *   3  one DevTools message
 * What must hold whatever the input is checked (fuzz_finding): a frame
 * lies within its input, a message within its bound, an unescaped chunk
 * is no longer than its JSON, a chunk escaped again decodes to itself,
 * a client frame unmasked reads back as its payload, and an error comes
 * with its line. */
#include "drive.h"

#include <stdlib.h>
#include <string.h>

#include "cli/devtools.h"

static void said(int rc, const struct sbuf *err, const char *what)
{
	if (rc < 0 && err->len == 0)
		fuzz_finding("devtools: %s failed without a line", what);
}

static void json_list(const uint8_t *b, size_t n)
{
	struct sbuf err, path;

	sbuf_init(&err);
	sbuf_init(&path);
	int whole = dt_http_whole(b, n, 1, &err);
	said(whole, &err, "dt_http_whole");
	if (whole == 1) {
		sbuf_reset(&err);
		int rc = dt_json_list(b, n, 9229, &path, &err);
		said(rc, &err, "dt_json_list");
		if (rc == 0 && (path.buf[0] != '/' || strpbrk(path.buf, " \r\n\t") != NULL))
			fuzz_finding("devtools: a WebSocket path that cannot go into a request line: %s", path.buf);
	}
	sbuf_free(&err);
	sbuf_free(&path);
}

static void handshake(const uint8_t *b, size_t n)
{
	struct sbuf err;
	char key[65] = "", accept[29];
	size_t head = n;

	for (size_t i = 0; i + 4 <= n; i++)
		if (memcmp(b + i, "\r\n\r\n", 4) == 0)
			head = i + 4;
	size_t k = n - head < 64 ? n - head : 64;
	memcpy(key, b + head, k);
	key[k] = '\0';
	key[strcspn(key, "\n")] = '\0';
	dt_ws_accept(key, accept);
	if (strlen(accept) != 28 || accept[27] != '=')
		fuzz_finding("devtools: an accept of %zu characters", strlen(accept));
	sbuf_init(&err);
	long h = dt_ws_handshake(b, head, accept, &err);
	said((int)h, &err, "dt_ws_handshake");
	if (h > (long)head)
		fuzz_finding("devtools: a handshake of %ld bytes in %zu", h, head);
	sbuf_free(&err);
}

/* One DevTools message; a chunk escaped again (quote, backslash and
 * controls, the rest raw) must decode to itself. */
static void message(const uint8_t *m, size_t n)
{
	struct dt_message d;
	struct sbuf chunk, err, again, back;

	sbuf_init(&chunk);
	sbuf_init(&err);
	int rc = dt_message(m, n, &d, &chunk, &err);
	said(rc, &err, "dt_message");
	if (chunk.len > n)
		fuzz_finding("devtools: a chunk of %zu bytes out of %zu", chunk.len, n);
	if (rc == 0 && d.kind == DT_CHUNK) {
		sbuf_init(&again);
		sbuf_init(&back);
		sbuf_adds(&again, "{\"method\":\"HeapProfiler.addHeapSnapshotChunk\",\"params\":{\"chunk\":\"");
		for (size_t i = 0; i < chunk.len; i++) {
			uint8_t c = (uint8_t)chunk.buf[i];
			if (c == '"' || c == '\\' || c < 0x20)
				sbuf_printf(&again, "\\u%04x", c);
			else
				sbuf_addc(&again, (char)c);
		}
		sbuf_adds(&again, "\"}}");
		sbuf_reset(&err);
		if (dt_message((const uint8_t *)again.buf, again.len, &d, &back, &err) < 0 || d.kind != DT_CHUNK ||
		    back.len != chunk.len || memcmp(back.buf, chunk.buf, chunk.len) != 0)
			fuzz_finding("devtools: a chunk of %zu bytes escaped again decodes to %zu others", chunk.len,
				     back.len);
		sbuf_free(&again);
		sbuf_free(&back);
	}
	sbuf_free(&chunk);
	sbuf_free(&err);
}

/* The message as a client frame, unmasked by hand: read back whole. */
static void client_frame(const uint8_t *p, size_t n)
{
	static const uint8_t mask[4] = { 0x5a, 0x01, 0xc3, 0x7e };
	struct sbuf f, err;
	struct ws_frame fr;

	sbuf_init(&f);
	sbuf_init(&err);
	dt_ws_put(&f, WS_TEXT, p, n, mask);
	uint8_t *b = (uint8_t *)f.buf;
	size_t at = 2 + ((b[1] & 127) == 126 ? 2 : (b[1] & 127) == 127 ? 8 : 0);
	b[1] &= 0x7f;
	memmove(b + at, b + at + 4, f.len - at - 4);
	for (size_t i = 0; i < n; i++)
		b[at + i] ^= mask[i & 3];
	long k = dt_ws_frame(b, f.len - 4, DT_MESSAGE_MAX, &fr, &err);
	if (k != (long)(f.len - 4) || fr.opcode != WS_TEXT || !fr.fin || fr.len != n ||
	    (n > 0 && memcmp(fr.payload, p, n) != 0))
		fuzz_finding("devtools: a client frame of %zu bytes does not read back (%ld)", n, k);
	sbuf_free(&f);
	sbuf_free(&err);
}

static void frames(const uint8_t *b, size_t n)
{
	struct ws_joiner j = { .opcode = 0 };
	struct sbuf err;
	struct ws_frame f;
	size_t at = 0;
	long k;

	sbuf_init(&j.msg);
	sbuf_init(&err);
	while ((k = dt_ws_frame(b + at, n - at, DT_MESSAGE_MAX, &f, &err)) > 0) {
		if ((size_t)k > n - at || f.payload < b + at || f.payload + f.len > b + at + k)
			fuzz_finding("devtools: a frame of %ld bytes past its input", k);
		at += (size_t)k;
		if (f.opcode >= WS_CLOSE)
			continue;
		int r = dt_ws_join(&j, &f, &err);
		said(r, &err, "dt_ws_join");
		if (r < 0)
			break;
		if (j.msg.len > DT_MESSAGE_MAX)
			fuzz_finding("devtools: a message of %zu bytes", j.msg.len);
		if (r == 1) {
			if (j.opcode == WS_TEXT)
				message((const uint8_t *)j.msg.buf, j.msg.len);
			sbuf_reset(&j.msg);
			j.opcode = 0;
		}
	}
	said((int)k, &err, "dt_ws_frame");
	sbuf_free(&j.msg);
	sbuf_free(&err);
}

int fuzz_devtools(const uint8_t *data, size_t len)
{
	if (len == 0)
		return -1;
	const uint8_t *b = data + 1;
	size_t n = len - 1;
	switch (data[0] & 3) {
	case 0: json_list(b, n); break;
	case 1: handshake(b, n); break;
	case 2: frames(b, n); break;
	case 3:
		message(b, n);
		client_frame(b, n < 70000 ? n : 70000);
		break;
	}
	return 0;
}
