/* devtools.c — Node's inspector's answers decoded (devtools.h): HTTP,
 * the WebSocket handshake and frames (RFC 6455), DevTools messages. A
 * JSON value is walked, never built: the walk is bounded in depth and
 * each string is read in place. */
#include "cli/devtools.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JSON_DEPTH 64

/* ---- HTTP ---- */

/* Where the headers end (after the blank line), or 0. */
static size_t head_end(const uint8_t *b, size_t n)
{
	for (size_t i = 0; i + 3 < n; i++)
		if (memcmp(b + i, "\r\n\r\n", 4) == 0)
			return i + 4;
	return 0;
}

/* The value of header name (case-blind) in the headers b[0..n), its
 * length in *len; NULL if absent. */
static const uint8_t *header(const uint8_t *b, size_t n, const char *name, size_t *len)
{
	size_t k = strlen(name);

	for (size_t i = 0; i < n; i++) {
		if (i > 0 && b[i - 1] != '\n')
			continue;
		if (i + k + 1 > n || strncasecmp((const char *)b + i, name, k) != 0 || b[i + k] != ':')
			continue;
		size_t v = i + k + 1, e;
		while (v < n && (b[v] == ' ' || b[v] == '\t'))
			v++;
		for (e = v; e < n && b[e] != '\r' && b[e] != '\n'; e++)
			;
		*len = e - v;
		return b + v;
	}
	return NULL;
}

/* The status of the answer's first line ("HTTP/1.x NNN"), or -1. */
static int status(const uint8_t *b, size_t n)
{
	if (n < 12 || memcmp(b, "HTTP/1.", 7) != 0 || b[8] != ' ')
		return -1;
	int s = 0;
	for (int i = 9; i < 12; i++) {
		if (b[i] < '0' || b[i] > '9')
			return -1;
		s = s * 10 + (b[i] - '0');
	}
	return s;
}

/* A decimal in v[0..n) up to max: the number, or -1. */
static long long decimal(const uint8_t *v, size_t n, long long max)
{
	long long x = 0;

	if (n == 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (v[i] < '0' || v[i] > '9' || x > max / 10)
			return -1;
		x = x * 10 + (v[i] - '0');
	}
	return x <= max ? x : -1;
}

int dt_http_whole(const uint8_t *b, size_t n, int closed, struct sbuf *err)
{
	size_t h = head_end(b, n), len;

	if (h == 0) {
		if (closed || n >= DT_HTTP_MAX)
			sbuf_adds(err, closed ? "the answer ended inside its headers" : "headers over 1 MiB");
		return closed || n >= DT_HTTP_MAX ? -1 : 0;
	}
	const uint8_t *cl = header(b, h, "Content-Length", &len);
	if (cl == NULL) /* the body ends with the connection */
		return closed ? 1 : 0;
	long long body = decimal(cl, len, DT_HTTP_MAX);
	if (body < 0) {
		sbuf_adds(err, "a Content-Length that is not a number up to 1 MiB");
		return -1;
	}
	if (n - h >= (size_t)body)
		return 1;
	if (closed)
		sbuf_printf(err, "the answer ended after %zu of its %lld bytes", n - h, body);
	return closed ? -1 : 0;
}

/* ---- JSON, walked ---- */

struct json {
	const uint8_t *p, *end;
	int depth;
};

static void blank(struct json *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static int eat(struct json *j, char c)
{
	blank(j);
	if (j->p < j->end && *j->p == (uint8_t)c) {
		j->p++;
		return 1;
	}
	return 0;
}

static int hex4(const uint8_t *p, const uint8_t *end, uint32_t *v)
{
	*v = 0;
	if (end - p < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		int c = p[i], d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
					: c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (d < 0)
			return -1;
		*v = *v << 4 | (uint32_t)d;
	}
	return 0;
}

/* A string at j->p (its opening quote), unescaped into out (NULL: only
 * skipped). 0, or -1. A lone surrogate becomes U+FFFD, as V8 writes
 * none that a reader could take. */
static int string(struct json *j, struct sbuf *out)
{
	if (!eat(j, '"'))
		return -1;
	const uint8_t *run = j->p;
	while (j->p < j->end && *j->p != '"') {
		if (*j->p < 0x20)
			return -1;
		if (*j->p != '\\') {
			j->p++;
			continue;
		}
		if (out != NULL)
			sbuf_add(out, (const char *)run, (size_t)(j->p - run));
		if (++j->p >= j->end)
			return -1;
		uint8_t c = *j->p++;
		const char *simple = strchr("\"\\/bfnrt", c);
		if (c != 0 && simple != NULL) {
			if (out != NULL)
				sbuf_addc(out, "\"\\/\b\f\n\r\t"[simple - "\"\\/bfnrt"]);
		} else if (c == 'u') {
			uint32_t u, lo;
			if (hex4(j->p, j->end, &u) < 0)
				return -1;
			j->p += 4;
			if (u >= 0xd800 && u < 0xdc00 && j->end - j->p >= 6 && j->p[0] == '\\' && j->p[1] == 'u' &&
			    hex4(j->p + 2, j->end, &lo) == 0 && lo >= 0xdc00 && lo < 0xe000) {
				u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
				j->p += 6;
			} else if (u >= 0xd800 && u < 0xe000)
				u = 0xfffd;
			if (out != NULL)
				sbuf_add_utf8(out, u);
		} else
			return -1;
		run = j->p;
	}
	if (j->p >= j->end)
		return -1;
	if (out != NULL)
		sbuf_add(out, (const char *)run, (size_t)(j->p - run));
	j->p++;
	return 0;
}

static int value(struct json *j);

/* An object or array's members, its opening bracket eaten. */
static int members(struct json *j, char close, int keyed)
{
	if (++j->depth > JSON_DEPTH)
		return -1;
	if (eat(j, close)) {
		j->depth--;
		return 0;
	}
	do {
		if (keyed && (string(j, NULL) < 0 || !eat(j, ':')))
			return -1;
		if (value(j) < 0)
			return -1;
	} while (eat(j, ','));
	j->depth--;
	return eat(j, close) ? 0 : -1;
}

/* Any value, skipped. */
static int value(struct json *j)
{
	blank(j);
	if (j->p >= j->end)
		return -1;
	switch (*j->p) {
	case '"': return string(j, NULL);
	case '{': j->p++; return members(j, '}', 1);
	case '[': j->p++; return members(j, ']', 0);
	}
	const uint8_t *s = j->p;
	while (j->p < j->end && strchr("+-.0123456789eEtruefalsn", *j->p) != NULL && *j->p != 0)
		j->p++;
	return j->p > s ? 0 : -1;
}

/* A number at j->p, up to 2^53: 0 with it, or -1. */
static int number(struct json *j, uint64_t *v)
{
	blank(j);
	const uint8_t *s = j->p;
	if (value(j) < 0)
		return -1;
	long long x = decimal(s, (size_t)(j->p - s), 1ll << 53);
	if (x < 0)
		return -1;
	*v = (uint64_t)x;
	return 0;
}

/* An object's members one by one: at the first call the object's
 * opening brace; 1 with the key (unescaped) in key and j->p at its
 * value, 0 at its end, -1. The caller reads or skips the value. */
static int next_key(struct json *j, int first, struct sbuf *key)
{
	if (first && !eat(j, '{'))
		return -1;
	if (eat(j, '}'))
		return 0;
	if (!first && !eat(j, ','))
		return -1;
	sbuf_reset(key);
	return string(j, key) == 0 && eat(j, ':') ? 1 : -1;
}

/* ---- /json/list ---- */

/* Is host (of a ws:// URL) a loopback name? */
static int loopback(const char *h, size_t n)
{
	static const char *const names[] = { "localhost", "[::1]" };

	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (n == strlen(names[i]) && memcmp(h, names[i], n) == 0)
			return 1;
	if (n < 4 || n > 15 || memcmp(h, "127.", 4) != 0) /* 127.0.0.0/8: the Host we asked with */
		return 0;
	for (size_t i = 4; i < n; i++)
		if ((h[i] < '0' || h[i] > '9') && h[i] != '.')
			return 0;
	return 1;
}

/* ws://HOST:PORT/PATH into path when HOST is loopback and PORT port
 * (only the path is used: node.c dials the listener it found). */
static int ws_url(const struct sbuf *url, int port, struct sbuf *path, struct sbuf *err)
{
	const char *u = url->buf;

	if (strncmp(u, "ws://", 5) == 0) {
		const char *host = u + 5, *slash = strchr(host, '/');
		const char *colon = slash != NULL ? slash : host + strlen(host);
		while (colon > host && colon[-1] != ':' && colon[-1] != ']')
			colon--;
		if (slash != NULL && colon > host && colon[-1] == ':' && loopback(host, (size_t)(colon - 1 - host)) &&
		    decimal((const uint8_t *)colon, (size_t)(slash - colon), 65535) == port) {
			sbuf_adds(path, slash);
			for (const char *c = slash; *c; c++)
				if (*c <= ' ' || *c == 0x7f) /* it goes into a request line */
					goto bad;
			return 0;
		}
	}
bad:
	sbuf_reset(path);
	sbuf_adds(err, "its webSocketDebuggerUrl '");
	esc_append(err, (const uint8_t *)url->buf, url->len, 0);
	sbuf_printf(err, "' is not ws://127.0.0.1:%d/... or localhost's", port);
	return -1;
}

/* The first target's webSocketDebuggerUrl from the array at j->p:
 * 0 with it in url, or -1. */
static int first_url(struct json *j, struct sbuf *url)
{
	struct sbuf key;
	int r, found = 0;

	if (!eat(j, '[') || (blank(j), j->p >= j->end || *j->p != '{'))
		return -1;
	sbuf_init(&key);
	for (int first = 1; (r = next_key(j, first, &key)) == 1; first = 0) {
		if (!found && strcmp(key.buf, "webSocketDebuggerUrl") == 0) {
			if (string(j, url) < 0)
				break;
			found = 1;
		} else if (value(j) < 0)
			break;
	}
	sbuf_free(&key);
	return r == 0 && found ? 0 : -1;
}

int dt_json_list(const uint8_t *b, size_t n, int port, struct sbuf *path, struct sbuf *err)
{
	size_t h = head_end(b, n);
	struct sbuf url;
	int rc = -1;

	if (status(b, n) != 200 || h == 0) {
		sbuf_printf(err, "GET /json/list: not a 200 answer");
		return -1;
	}
	sbuf_init(&url);
	struct json j = { b + h, b + n, 0 };
	if (first_url(&j, &url) < 0)
		sbuf_adds(err, "GET /json/list: no target with a webSocketDebuggerUrl (not Node's inspector)");
	else
		rc = ws_url(&url, port, path, err);
	sbuf_free(&url);
	return rc;
}

/* ---- the WebSocket handshake ---- */

static uint32_t rol(uint32_t x, int n) { return x << n | x >> (32 - n); }

/* SHA-1 (FIPS 180-4) of one 64-byte block into h. */
static void sha1_block(uint32_t h[5], const uint8_t *b)
{
	uint32_t w[80], a = h[0], bb = h[1], c = h[2], d = h[3], e = h[4];

	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)b[4 * i] << 24 | (uint32_t)b[4 * i + 1] << 16 | (uint32_t)b[4 * i + 2] << 8 | b[4 * i + 3];
	for (int i = 16; i < 80; i++)
		w[i] = rol(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
	for (int i = 0; i < 80; i++) {
		uint32_t f, k;
		if (i < 20)
			f = (bb & c) | (~bb & d), k = 0x5a827999;
		else if (i < 40)
			f = bb ^ c ^ d, k = 0x6ed9eba1;
		else if (i < 60)
			f = (bb & c) | (bb & d) | (c & d), k = 0x8f1bbcdc;
		else
			f = bb ^ c ^ d, k = 0xca62c1d6;
		uint32_t t = rol(a, 5) + f + e + k + w[i];
		e = d, d = c, c = rol(bb, 30), bb = a, a = t;
	}
	h[0] += a, h[1] += bb, h[2] += c, h[3] += d, h[4] += e;
}

/* SHA-1 of a short message (under 2^32 bits) into out. */
static void sha1(const uint8_t *m, size_t n, uint8_t out[20])
{
	uint32_t h[5] = { 0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0 };
	uint8_t last[128] = { 0 };
	size_t full = n / 64 * 64, rest = n - full;

	for (size_t i = 0; i < full; i += 64)
		sha1_block(h, m + i);
	memcpy(last, m + full, rest);
	last[rest] = 0x80;
	size_t blocks = rest + 9 > 64 ? 2 : 1;
	uint64_t bits = (uint64_t)n * 8;
	for (int i = 0; i < 8; i++)
		last[blocks * 64 - 1 - i] = (uint8_t)(bits >> (8 * i));
	for (size_t i = 0; i < blocks; i++)
		sha1_block(h, last + 64 * i);
	for (int i = 0; i < 20; i++)
		out[i] = (uint8_t)(h[i / 4] >> (24 - 8 * (i % 4)));
}

void dt_ws_accept(const char *key, char out[29])
{
	static const char guid[] = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	uint8_t m[128], d[21] = { 0 };
	size_t k = strlen(key) < 64 ? strlen(key) : 64;

	memcpy(m, key, k);
	memcpy(m + k, guid, sizeof guid - 1);
	sha1(m, k + sizeof guid - 1, d);
	for (int i = 0, o = 0; i < 21; i += 3, o += 4) { /* 20 bytes: 27 characters and '=' */
		uint32_t v = (uint32_t)d[i] << 16 | (uint32_t)d[i + 1] << 8 | (i + 2 < 21 ? d[i + 2] : 0);
		for (int c = 0; c < 4; c++)
			out[o + c] = b64[v >> (18 - 6 * c) & 63];
	}
	out[27] = '=';
	out[28] = '\0';
}

long dt_ws_handshake(const uint8_t *b, size_t n, const char *accept, struct sbuf *err)
{
	size_t h = head_end(b, n), len;

	if (h == 0) {
		if (n >= DT_HTTP_MAX)
			sbuf_adds(err, "the WebSocket handshake's answer: headers over 1 MiB");
		return n >= DT_HTTP_MAX ? -1 : 0;
	}
	if (status(b, h) != 101) {
		sbuf_adds(err, "the WebSocket handshake was refused: ");
		size_t line = 0;
		while (line < h && b[line] != '\r' && line < 200)
			line++;
		esc_append(err, b, line, 0);
		return -1;
	}
	const uint8_t *v = header(b, h, "Sec-WebSocket-Accept", &len);
	if (v == NULL || len != strlen(accept) || memcmp(v, accept, len) != 0) {
		sbuf_adds(err, "the WebSocket handshake's Sec-WebSocket-Accept is not the one for our key");
		return -1;
	}
	return (long)h;
}

/* ---- frames ---- */

long dt_ws_frame(const uint8_t *b, size_t n, uint64_t max, struct ws_frame *f, struct sbuf *err)
{
	if (n < 2)
		return 0;
	f->fin = b[0] >> 7;
	f->opcode = b[0] & 15;
	uint64_t len = b[1] & 127;
	size_t at = 2;
	if (b[0] & 0x70) {
		sbuf_adds(err, "a WebSocket frame with reserved bits set (no extension was agreed)");
		return -1;
	}
	if (b[1] & 0x80) {
		sbuf_adds(err, "a masked WebSocket frame from the server");
		return -1;
	}
	if (f->opcode > WS_BINARY && f->opcode < WS_CLOSE) {
		sbuf_printf(err, "a WebSocket frame of reserved opcode %d", f->opcode);
		return -1;
	}
	if (f->opcode > WS_PONG) {
		sbuf_printf(err, "a WebSocket frame of reserved opcode %d", f->opcode);
		return -1;
	}
	if (f->opcode >= WS_CLOSE && (!f->fin || len > 125)) {
		sbuf_adds(err, "a WebSocket control frame fragmented or over 125 bytes");
		return -1;
	}
	if (len >= 126) {
		size_t k = len == 126 ? 2 : 8;
		if (n < 2 + k)
			return 0;
		len = 0;
		for (size_t i = 0; i < k; i++)
			len = len << 8 | b[2 + i];
		at += k;
	}
	if (len > max) {
		sbuf_printf(err, "a WebSocket frame of %llu bytes, over the %llu a message may have",
			    (unsigned long long)len, (unsigned long long)max);
		return -1;
	}
	if (n - at < len)
		return 0;
	f->payload = b + at;
	f->len = len;
	return (long)(at + len);
}

void dt_ws_put(struct sbuf *out, int opcode, const uint8_t *p, size_t n, const uint8_t mask[4])
{
	sbuf_addc(out, (char)(0x80 | opcode));
	if (n < 126)
		sbuf_addc(out, (char)(0x80 | n));
	else if (n < 65536) {
		sbuf_addc(out, (char)(0x80 | 126));
		sbuf_addc(out, (char)(n >> 8));
		sbuf_addc(out, (char)n);
	} else {
		sbuf_addc(out, (char)(0x80 | 127));
		for (int i = 7; i >= 0; i--)
			sbuf_addc(out, (char)((uint64_t)n >> (8 * i)));
	}
	sbuf_add(out, (const char *)mask, 4);
	for (size_t i = 0; i < n; i++)
		sbuf_addc(out, (char)(p[i] ^ mask[i & 3]));
}

int dt_ws_join(struct ws_joiner *j, const struct ws_frame *f, struct sbuf *err)
{
	if (f->opcode == WS_CONT && j->opcode == 0) {
		sbuf_adds(err, "a WebSocket continuation frame with no message begun");
		return -1;
	}
	if (f->opcode != WS_CONT && j->opcode != 0) {
		sbuf_adds(err, "a new WebSocket message inside a fragmented one");
		return -1;
	}
	if (j->msg.len + f->len > DT_MESSAGE_MAX) {
		sbuf_printf(err, "a WebSocket message over %u MiB", DT_MESSAGE_MAX >> 20);
		return -1;
	}
	if (f->opcode != WS_CONT)
		j->opcode = f->opcode;
	sbuf_add(&j->msg, (const char *)f->payload, (size_t)f->len);
	return f->fin;
}

/* ---- DevTools messages ---- */

/* params of a method at j->p: the chunk's string into chunk, or the
 * progress's figures into d. */
static int params(struct json *j, struct dt_message *d, struct sbuf *chunk)
{
	struct sbuf key;
	int r;

	sbuf_init(&key);
	for (int first = 1; (r = next_key(j, first, &key)) == 1; first = 0) {
		if (d->kind == DT_CHUNK && strcmp(key.buf, "chunk") == 0)
			r = string(j, chunk);
		else if (d->kind == DT_PROGRESS && strcmp(key.buf, "done") == 0)
			r = number(j, &d->done);
		else if (d->kind == DT_PROGRESS && strcmp(key.buf, "total") == 0)
			r = number(j, &d->total);
		else if (d->kind == DT_PROGRESS && strcmp(key.buf, "finished") == 0) {
			blank(j);
			d->finished = j->p < j->end && *j->p == 't';
			r = value(j);
		} else
			r = value(j);
		if (r < 0)
			break;
	}
	sbuf_free(&key);
	return r;
}

/* An error's "message" at j->p, escaped, into err. */
static int error_text(struct json *j, struct sbuf *err)
{
	struct sbuf key, text;
	int r;

	sbuf_init(&key);
	sbuf_init(&text);
	for (int first = 1; (r = next_key(j, first, &key)) == 1; first = 0)
		if ((strcmp(key.buf, "message") == 0 ? string(j, &text) : value(j)) < 0) {
			r = -1;
			break;
		}
	esc_append(err, (const uint8_t *)text.buf, text.len > 300 ? 300 : text.len, 0);
	sbuf_free(&key);
	sbuf_free(&text);
	return r;
}

/* The method's kind; the params come before or after it in the object,
 * so a message naming a method is read twice. */
static enum dt_kind method_kind(const struct sbuf *m)
{
	if (strcmp(m->buf, "HeapProfiler.addHeapSnapshotChunk") == 0)
		return DT_CHUNK;
	if (strcmp(m->buf, "HeapProfiler.reportHeapSnapshotProgress") == 0)
		return DT_PROGRESS;
	return DT_OTHER;
}

int dt_message(const uint8_t *m, size_t n, struct dt_message *d, struct sbuf *chunk, struct sbuf *err)
{
	struct json j = { m, m + n, 0 };
	struct sbuf key, method;
	const uint8_t *par = NULL, *errv = NULL;
	uint64_t id = 0;
	int r, has_id = 0;

	memset(d, 0, sizeof *d);
	sbuf_init(&key);
	sbuf_init(&method);
	for (int first = 1; (r = next_key(&j, first, &key)) == 1; first = 0) {
		blank(&j);
		if (strcmp(key.buf, "method") == 0)
			r = string(&j, &method);
		else if (strcmp(key.buf, "id") == 0)
			r = number(&j, &id), has_id = 1;
		else {
			if (strcmp(key.buf, "params") == 0)
				par = j.p;
			else if (strcmp(key.buf, "error") == 0)
				errv = j.p;
			r = value(&j); /* result and anything else: skipped */
		}
		if (r < 0)
			break;
	}
	blank(&j);
	if (r == 0 && j.p != j.end)
		r = -1;
	if (r == 0 && method.len > 0) {
		d->kind = method_kind(&method);
		if (d->kind != DT_OTHER && par != NULL) {
			struct json pj = { par, m + n, 0 };
			r = params(&pj, d, chunk);
		}
	} else if (r == 0 && has_id) {
		d->id = (long)id;
		d->kind = errv != NULL ? DT_ERROR : DT_RESULT;
		if (errv != NULL) {
			struct json ej = { errv, m + n, 0 };
			r = error_text(&ej, err);
		}
	}
	if (r < 0) {
		sbuf_reset(err);
		sbuf_adds(err, "a DevTools message that is not the protocol's JSON");
	}
	sbuf_free(&key);
	sbuf_free(&method);
	return r < 0 ? -1 : 0;
}
