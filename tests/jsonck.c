/* jsonck.c — strict JSON and CSV readers for the tests, see jsonck.h.
 * Recursion is bounded by MAX_DEPTH: the reports nest three deep. */
#include "jsonck.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define MAX_DEPTH 64

struct jp {
	const char *s;
	size_t n, i;
	int depth;
	char *err;
	size_t err_size;
};

static int fail(struct jp *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct jp *p, const char *fmt, ...)
{
	va_list ap;
	int k = snprintf(p->err, p->err_size, "offset %zu: ", p->i);

	va_start(ap, fmt);
	if (k >= 0 && (size_t)k < p->err_size)
		vsnprintf(p->err + k, p->err_size - (size_t)k, fmt, ap);
	va_end(ap);
	return -1;
}

static void ws(struct jp *p)
{
	while (p->i < p->n && strchr(" \t\n\r", p->s[p->i]) != NULL && p->s[p->i] != '\0')
		p->i++;
}

static int hex4(struct jp *p, uint32_t *v)
{
	*v = 0;
	for (int k = 0; k < 4; k++, p->i++) {
		char c = p->i < p->n ? p->s[p->i] : 0;
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
			: c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (d < 0)
			return fail(p, "bad \\u escape");
		*v = *v << 4 | (uint32_t)d;
	}
	return 0;
}

static void put_utf8(struct sbuf *sb, uint32_t cp)
{
	char b[4];
	size_t k;

	if (cp < 0x80) {
		b[0] = (char)cp; k = 1;
	} else if (cp < 0x800) {
		b[0] = (char)(0xc0 | cp >> 6); b[1] = (char)(0x80 | (cp & 0x3f)); k = 2;
	} else if (cp < 0x10000) {
		b[0] = (char)(0xe0 | cp >> 12); b[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		b[2] = (char)(0x80 | (cp & 0x3f)); k = 3;
	} else {
		b[0] = (char)(0xf0 | cp >> 18); b[1] = (char)(0x80 | (cp >> 12 & 0x3f));
		b[2] = (char)(0x80 | (cp >> 6 & 0x3f)); b[3] = (char)(0x80 | (cp & 0x3f)); k = 4;
	}
	sbuf_add(sb, b, k);
}

/* Length of the valid UTF-8 sequence at s (of n bytes), 0 if invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len;
	uint32_t v, min;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0) {
		len = 2; v = s[0] & 0x1f; min = 0x80;
	} else if ((s[0] & 0xf0) == 0xe0) {
		len = 3; v = s[0] & 0x0f; min = 0x800;
	} else if ((s[0] & 0xf8) == 0xf0) {
		len = 4; v = s[0] & 0x07; min = 0x10000;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (s[i] & 0x3f);
	}
	return v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff) ? 0 : len;
}

/* An escape after the backslash; a surrogate must come in a pair. */
static int escape(struct jp *p, struct sbuf *sb)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	char c = p->i < p->n ? p->s[p->i] : 0;
	const char *at = c ? strchr(from, c) : NULL;
	uint32_t cp, lo;

	if (at != NULL) {
		sbuf_addc(sb, to[at - from]);
		p->i++;
		return 0;
	}
	if (c != 'u')
		return fail(p, "bad escape \\%c", c);
	p->i++;
	if (hex4(p, &cp) < 0)
		return -1;
	if (cp >= 0xdc00 && cp <= 0xdfff)
		return fail(p, "lone low surrogate");
	if (cp >= 0xd800 && cp <= 0xdbff) {
		if (p->i + 2 > p->n || p->s[p->i] != '\\' || p->s[p->i + 1] != 'u')
			return fail(p, "high surrogate without its pair");
		p->i += 2;
		if (hex4(p, &lo) < 0)
			return -1;
		if (lo < 0xdc00 || lo > 0xdfff)
			return fail(p, "high surrogate without its pair");
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
	}
	put_utf8(sb, cp);
	return 0;
}

static int string(struct jp *p, char **out, size_t *len)
{
	struct sbuf sb;

	p->i++; /* the opening quote */
	sbuf_init(&sb);
	for (;;) {
		if (p->i >= p->n) {
			sbuf_free(&sb);
			return fail(p, "unterminated string");
		}
		unsigned char c = (unsigned char)p->s[p->i];
		size_t k;
		if (c == '"')
			break;
		if (c < 0x20) {
			sbuf_free(&sb);
			return fail(p, "raw control character 0x%02x in a string", c);
		}
		if (c == '\\') {
			p->i++;
			if (escape(p, &sb) < 0) {
				sbuf_free(&sb);
				return -1;
			}
			continue;
		}
		if ((k = utf8_len((const unsigned char *)p->s + p->i, p->n - p->i)) == 0) {
			sbuf_free(&sb);
			return fail(p, "invalid UTF-8 in a string");
		}
		sbuf_add(&sb, p->s + p->i, k);
		p->i += k;
	}
	p->i++;
	*len = sb.len;
	*out = sbuf_detach(&sb);
	return 0;
}

static int digits(struct jp *p)
{
	size_t start = p->i;

	while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9')
		p->i++;
	return p->i > start ? 0 : fail(p, "digit expected");
}

static int number(struct jp *p, struct jv *v)
{
	size_t start = p->i;
	int plain = 1;

	if (p->s[p->i] == '-') {
		p->i++;
		plain = 0;
	}
	if (p->i < p->n && p->s[p->i] == '0')
		p->i++;
	else if (digits(p) < 0)
		return -1;
	if (p->i < p->n && p->s[p->i] == '.') {
		p->i++;
		plain = 0;
		if (digits(p) < 0)
			return -1;
	}
	if (p->i < p->n && (p->s[p->i] == 'e' || p->s[p->i] == 'E')) {
		p->i++;
		plain = 0;
		if (p->i < p->n && (p->s[p->i] == '+' || p->s[p->i] == '-'))
			p->i++;
		if (digits(p) < 0)
			return -1;
	}
	v->t = J_NUM;
	v->num = strtod(p->s + start, NULL);
	if (plain) { /* an unsigned integer: kept exact if it fits in 64 bits */
		errno = 0;
		v->u = strtoull(p->s + start, NULL, 10);
		v->is_uint = errno == 0;
	}
	return 0;
}

static int value(struct jp *p, struct jv *v);

/* Object or array: items until close, keys for an object. */
static int items(struct jp *p, struct jv *v, int obj)
{
	char close = obj ? '}' : ']';
	size_t cap = 0;

	v->t = obj ? J_OBJ : J_ARR;
	p->i++;
	ws(p);
	if (p->i < p->n && p->s[p->i] == close) {
		p->i++;
		return 0;
	}
	for (;;) {
		if (v->n == cap) {
			cap = cap ? 2 * cap : 8;
			v->v = xreallocarray(v->v, cap, sizeof *v->v);
			if (obj)
				v->keys = xreallocarray(v->keys, cap, sizeof *v->keys);
		}
		memset(&v->v[v->n], 0, sizeof *v->v);
		if (obj) {
			size_t len;
			ws(p);
			if (p->i >= p->n || p->s[p->i] != '"')
				return fail(p, "member name expected");
			if (string(p, &v->keys[v->n], &len) < 0)
				return -1;
			for (size_t k = 0; k < v->n; k++)
				if (strcmp(v->keys[k], v->keys[v->n]) == 0) {
					free(v->keys[v->n]);
					return fail(p, "member \"%s\" twice", v->keys[k]);
				}
			ws(p);
			if (p->i >= p->n || p->s[p->i] != ':') {
				free(v->keys[v->n]);
				return fail(p, "':' expected");
			}
			p->i++;
		}
		v->n++; /* counted before parsing: freed whatever happens */
		if (value(p, &v->v[v->n - 1]) < 0)
			return -1;
		ws(p);
		if (p->i < p->n && p->s[p->i] == ',') {
			p->i++;
			continue;
		}
		if (p->i < p->n && p->s[p->i] == close) {
			p->i++;
			return 0;
		}
		return fail(p, "',' or '%c' expected", close);
	}
}

static int literal(struct jp *p, const char *word, struct jv *v, enum jtype t, int b)
{
	size_t k = strlen(word);

	if (p->n - p->i < k || memcmp(p->s + p->i, word, k) != 0)
		return fail(p, "unexpected character '%c'", p->s[p->i]);
	p->i += k;
	v->t = t;
	v->b = b;
	return 0;
}

static int value(struct jp *p, struct jv *v)
{
	int rc;

	ws(p);
	if (p->i >= p->n)
		return fail(p, "value expected, end of text");
	if (++p->depth > MAX_DEPTH)
		return fail(p, "nested deeper than %d", MAX_DEPTH);
	switch (p->s[p->i]) {
	case '{': rc = items(p, v, 1); break;
	case '[': rc = items(p, v, 0); break;
	case '"': v->t = J_STR; rc = string(p, &v->s, &v->len); break;
	case 't': rc = literal(p, "true", v, J_BOOL, 1); break;
	case 'f': rc = literal(p, "false", v, J_BOOL, 0); break;
	case 'n': rc = literal(p, "null", v, J_NULL, 0); break;
	default:
		if (p->s[p->i] == '-' || (p->s[p->i] >= '0' && p->s[p->i] <= '9'))
			rc = number(p, v);
		else
			rc = fail(p, "unexpected character '%c'", p->s[p->i]);
	}
	p->depth--;
	return rc;
}

int json_parse(const char *text, size_t n, struct jv *out, char *err, size_t err_size)
{
	struct jp p = { text, n, 0, 0, err, err_size };

	memset(out, 0, sizeof *out);
	if (value(&p, out) < 0)
		return -1;
	ws(&p);
	if (p.i != n)
		return fail(&p, "text after the value");
	return 0;
}

void jv_free(struct jv *v)
{
	for (size_t i = 0; i < v->n; i++) {
		jv_free(&v->v[i]);
		if (v->t == J_OBJ)
			free(v->keys[i]);
	}
	free(v->v);
	free(v->keys);
	free(v->s);
	memset(v, 0, sizeof *v);
}

const struct jv *jv_get(const struct jv *o, const char *key)
{
	if (o == NULL || o->t != J_OBJ)
		return NULL;
	for (size_t i = 0; i < o->n; i++)
		if (strcmp(o->keys[i], key) == 0)
			return &o->v[i];
	return NULL;
}

/* ---- CSV ---- */

/* One field at text + *i, decoded into sb; *i past it. */
static int csv_field(const char *text, size_t n, size_t *i, struct sbuf *sb, char *err, size_t es)
{
	sbuf_reset(sb);
	if (*i < n && text[*i] == '"') {
		for (++*i;; ++*i) {
			if (*i >= n) {
				snprintf(err, es, "offset %zu: unterminated quoted field", *i);
				return -1;
			}
			if (text[*i] == '"') {
				if (*i + 1 < n && text[*i + 1] == '"') {
					sbuf_addc(sb, '"');
					++*i;
					continue;
				}
				++*i;
				break;
			}
			sbuf_addc(sb, text[*i]);
		}
	} else {
		for (; *i < n && text[*i] != ',' && text[*i] != '\n'; ++*i) {
			if (text[*i] == '"' || text[*i] == '\r') {
				snprintf(err, es, "offset %zu: quote or CR in an unquoted field", *i);
				return -1;
			}
			sbuf_addc(sb, text[*i]);
		}
	}
	if (*i < n && text[*i] != ',' && text[*i] != '\n') {
		snprintf(err, es, "offset %zu: text after a quoted field", *i);
		return -1;
	}
	return 0;
}

int csv_parse(const char *text, size_t n, struct csv *out, char *err, size_t es)
{
	struct sbuf sb;
	size_t i = 0, col = 0, cap = 0, ncell = 0;
	int rc = 0;

	memset(out, 0, sizeof *out);
	if (n == 0 || text[n - 1] != '\n') {
		snprintf(err, es, "no final newline");
		return -1;
	}
	sbuf_init(&sb);
	while (i < n && rc == 0) {
		if (csv_field(text, n, &i, &sb, err, es) < 0) {
			rc = -1;
			break;
		}
		if (ncell == cap) {
			cap = cap ? 2 * cap : 64;
			out->cell = xreallocarray(out->cell, cap, sizeof *out->cell);
		}
		out->cell[ncell++] = xstrdup(sb.buf);
		col++;
		if (text[i++] == ',')
			continue;
		/* end of a row: as wide as the header */
		if (out->nrows == 0)
			out->ncols = col;
		if (col != out->ncols) {
			snprintf(err, es, "row %zu has %zu fields, the header %zu", out->nrows, col, out->ncols);
			rc = -1;
		}
		out->nrows++;
		col = 0;
	}
	sbuf_free(&sb);
	if (rc < 0) {
		for (size_t k = 0; k < ncell; k++)
			free(out->cell[k]);
		free(out->cell);
		memset(out, 0, sizeof *out);
	}
	return rc;
}

void csv_free(struct csv *c)
{
	for (size_t k = 0; k < c->nrows * c->ncols; k++)
		free(c->cell[k]);
	free(c->cell);
	memset(c, 0, sizeof *c);
}

int csv_col(const struct csv *c, const char *name)
{
	for (size_t k = 0; c->nrows > 0 && k < c->ncols; k++)
		if (strcmp(c->cell[k], name) == 0)
			return (int)k;
	return -1;
}
