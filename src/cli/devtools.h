/* devtools.h — what Node's inspector says, decoded without I/O: the
 * HTTP answer of GET /json/list, the WebSocket handshake's answer and
 * frames (RFC 6455, as a client reads them), and the DevTools protocol's
 * messages (JSON) as far as a heap snapshot needs them. Everything here
 * reads bytes another process sent: every length is bounded, nothing is
 * trusted, a string shown is escaped. The I/O is node.c's. */
#ifndef HW_DEVTOOLS_H
#define HW_DEVTOOLS_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

#define DT_HTTP_MAX (1u << 20)     /* an HTTP answer: more is not an inspector's */
#define DT_MESSAGE_MAX (64u << 20) /* one WebSocket message, its fragments joined */

/* The HTTP answer in b[0..n) (headers and body): 1 when it is whole
 * (its Content-Length there, or closed says the peer has closed), 0
 * when more must come, -1 with err when it cannot be one. */
int dt_http_whole(const uint8_t *b, size_t n, int closed, struct sbuf *err);

/* From a whole answer of GET /json/list on port: the path of the first
 * target's webSocketDebuggerUrl (ws://HOST:port/PATH, HOST a loopback
 * name) in path ("/..."), 0; or -1 with err. */
int dt_json_list(const uint8_t *b, size_t n, int port, struct sbuf *path, struct sbuf *err);

/* Sec-WebSocket-Accept for key (base64 of the SHA-1 of the key and
 * RFC 6455's GUID) into out (29 bytes with the NUL). */
void dt_ws_accept(const char *key, char out[29]);

/* The handshake's answer in b[0..n): its length (to the blank line) when
 * it is a 101 whose Sec-WebSocket-Accept is accept, 0 when more must
 * come, -1 with err. */
long dt_ws_handshake(const uint8_t *b, size_t n, const char *accept, struct sbuf *err);

enum { WS_CONT = 0, WS_TEXT = 1, WS_BINARY = 2, WS_CLOSE = 8, WS_PING = 9, WS_PONG = 10 };

/* One frame from the server. */
struct ws_frame {
	int fin, opcode;
	const uint8_t *payload; /* borrows the input */
	uint64_t len;
};

/* The frame at b[0..n): its whole length with *f, 0 when more must
 * come, -1 with err (masked by the server, reserved bits or opcodes, a
 * control frame fragmented or over 125 bytes, a length over max). */
long dt_ws_frame(const uint8_t *b, size_t n, uint64_t max, struct ws_frame *f, struct sbuf *err);

/* A client frame into out: fin set, opcode, masked with mask. */
void dt_ws_put(struct sbuf *out, int opcode, const uint8_t *p, size_t n, const uint8_t mask[4]);

/* Frames joined into messages: the fragments of one message kept in
 * msg, bounded by DT_MESSAGE_MAX. */
struct ws_joiner {
	struct sbuf msg;
	int opcode; /* of the message being joined, 0 when none */
};

/* Take a data frame f: 1 when a message is whole in j->msg (its opcode
 * in j->opcode; the caller resets both), 0 when more must come, -1 with
 * err (a continuation with no message, a new message inside one, too
 * long). */
int dt_ws_join(struct ws_joiner *j, const struct ws_frame *f, struct sbuf *err);

/* A DevTools message, as far as a snapshot needs it. */
enum dt_kind { DT_OTHER, DT_CHUNK, DT_PROGRESS, DT_RESULT, DT_ERROR };
struct dt_message {
	enum dt_kind kind;
	long id;                  /* DT_RESULT, DT_ERROR */
	uint64_t done, total;     /* DT_PROGRESS */
	int finished;             /* DT_PROGRESS */
};

/* Decode message m[0..n): 0 with *d, a chunk's string (JSON-unescaped)
 * appended to chunk, an error's message (escaped) to err's text; or -1
 * with err when it is not JSON the protocol sends. */
int dt_message(const uint8_t *m, size_t n, struct dt_message *d, struct sbuf *chunk, struct sbuf *err);

#endif
