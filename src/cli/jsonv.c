/* jsonv.c — JSON read into values and written back (see jsonv.h). */
#include "cli/jsonv.h"

#include <stdlib.h>
#include <string.h>

struct rd {
	const unsigned char *b, *p, *end;
	struct sbuf *err;
	int failed;
};

static int fail(struct rd *r, const char *what)
{
	if (!r->failed)
		sbuf_printf(r->err, "at byte %zu: %s", (size_t)(r->p - r->b), what);
	r->failed = 1;
	return -1;
}

static void blanks(struct rd *r)
{
	while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
		r->p++;
}

static int hex4(struct rd *r, unsigned *out)
{
	unsigned v = 0;

	if (r->end - r->p < 4)
		return fail(r, "a \\u escape cut short");
	for (int i = 0; i < 4; i++) {
		unsigned c = r->p[i];
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return fail(r, "a \\u escape of no 4 hex digits");
	}
	r->p += 4;
	*out = v;
	return 0;
}

/* The length of the valid UTF-8 sequence at p (not a surrogate, not
 * over U+10FFFF, shortest form), 0 if none. */
static size_t utf8_len(const unsigned char *p, const unsigned char *end)
{
	size_t n = end - p;
	unsigned c = p[0];

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		return n >= 2 && (p[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		if (n < 3 || (p[1] & 0xc0) != 0x80 || (p[2] & 0xc0) != 0x80)
			return 0;
		if ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] >= 0xa0))
			return 0;
		return 3;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		if (n < 4 || (p[1] & 0xc0) != 0x80 || (p[2] & 0xc0) != 0x80 || (p[3] & 0xc0) != 0x80)
			return 0;
		if ((c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] >= 0x90))
			return 0;
		return 4;
	}
	return 0;
}

static int string(struct rd *r, struct sbuf *sb)
{
	r->p++; /* the opening quote */
	for (;;) {
		if (r->p >= r->end)
			return fail(r, "a string not ended");
		unsigned c = *r->p;
		if (c == '"') {
			r->p++;
			return 0;
		}
		if (c < 0x20)
			return fail(r, "a control character in a string");
		if (c != '\\') {
			size_t k = utf8_len(r->p, r->end);
			if (k == 0)
				return fail(r, "a string not in UTF-8");
			sbuf_add(sb, (const char *)r->p, k);
			r->p += k;
			continue;
		}
		if (r->end - r->p < 2)
			return fail(r, "an escape cut short");
		c = r->p[1];
		r->p += 2;
		switch (c) {
		case '"': sbuf_addc(sb, '"'); break;
		case '\\': sbuf_addc(sb, '\\'); break;
		case '/': sbuf_addc(sb, '/'); break;
		case 'b': sbuf_addc(sb, '\b'); break;
		case 'f': sbuf_addc(sb, '\f'); break;
		case 'n': sbuf_addc(sb, '\n'); break;
		case 'r': sbuf_addc(sb, '\r'); break;
		case 't': sbuf_addc(sb, '\t'); break;
		case 'u': {
			unsigned u, lo;
			if (hex4(r, &u) < 0)
				return -1;
			if (u >= 0xdc00 && u <= 0xdfff)
				return fail(r, "a low surrogate alone");
			if (u >= 0xd800 && u <= 0xdbff) {
				if (r->end - r->p < 2 || r->p[0] != '\\' || r->p[1] != 'u')
					return fail(r, "a high surrogate alone");
				r->p += 2;
				if (hex4(r, &lo) < 0)
					return -1;
				if (lo < 0xdc00 || lo > 0xdfff)
					return fail(r, "a high surrogate alone");
				u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
			}
			sbuf_add_utf8(sb, u);
			break;
		}
		default:
			r->p--;
			return fail(r, "an unknown escape");
		}
	}
}

static int digits(struct rd *r)
{
	const unsigned char *s = r->p;

	while (r->p < r->end && *r->p >= '0' && *r->p <= '9')
		r->p++;
	return r->p > s ? 0 : fail(r, "a number without digits");
}

static int number(struct rd *r, struct jval *v)
{
	const unsigned char *s = r->p;

	if (r->p < r->end && *r->p == '-')
		r->p++;
	if (r->p < r->end && *r->p == '0')
		r->p++;
	else if (digits(r) < 0)
		return -1;
	if (r->p < r->end && *r->p == '.') {
		r->p++;
		if (digits(r) < 0)
			return -1;
	}
	if (r->p < r->end && (*r->p == 'e' || *r->p == 'E')) {
		r->p++;
		if (r->p < r->end && (*r->p == '+' || *r->p == '-'))
			r->p++;
		if (digits(r) < 0)
			return -1;
	}
	v->t = JV_NUM;
	v->s = xstrndup((const char *)s, (size_t)(r->p - s));
	v->len = (size_t)(r->p - s);
	return 0;
}

static int word(struct rd *r, const char *w, enum jval_type t, struct jval *v)
{
	size_t n = strlen(w);

	if ((size_t)(r->end - r->p) < n || memcmp(r->p, w, n) != 0)
		return fail(r, "not a JSON value");
	r->p += n;
	v->t = t;
	return 0;
}

static int value(struct rd *r, struct jval *v, int depth);

static int members(struct rd *r, struct jval *v, int depth, int obj)
{
	char close = obj ? '}' : ']';

	if (depth >= JV_MAX_DEPTH)
		return fail(r, "nested too deep");
	r->p++;
	v->t = obj ? JV_OBJ : JV_ARR;
	blanks(r);
	if (r->p < r->end && *r->p == close) {
		r->p++;
		return 0;
	}
	for (;;) {
		struct jval *item;
		blanks(r);
		if (obj) {
			struct sbuf key;
			if (r->p >= r->end || *r->p != '"')
				return fail(r, "a member without a name");
			sbuf_init(&key);
			if (string(r, &key) < 0) {
				sbuf_free(&key);
				return -1;
			}
			item = jval_put(v, key.buf);
			sbuf_free(&key);
			blanks(r);
			if (r->p >= r->end || *r->p != ':')
				return fail(r, "a name without ':'");
			r->p++;
		} else {
			item = jval_push(v);
		}
		if (value(r, item, depth + 1) < 0)
			return -1;
		blanks(r);
		if (r->p < r->end && *r->p == ',') {
			r->p++;
			continue;
		}
		if (r->p < r->end && *r->p == close) {
			r->p++;
			return 0;
		}
		return fail(r, obj ? "an object not ended" : "an array not ended");
	}
}

static int value(struct rd *r, struct jval *v, int depth)
{
	blanks(r);
	if (r->p >= r->end)
		return fail(r, "a value missing");
	switch (*r->p) {
	case '{': return members(r, v, depth, 1);
	case '[': return members(r, v, depth, 0);
	case '"': {
		struct sbuf sb;
		sbuf_init(&sb);
		if (string(r, &sb) < 0) {
			sbuf_free(&sb);
			return -1;
		}
		v->t = JV_STR;
		v->len = sb.len;
		v->s = sbuf_detach(&sb);
		return 0;
	}
	case 't': return word(r, "true", JV_TRUE, v);
	case 'f': return word(r, "false", JV_FALSE, v);
	case 'n': return word(r, "null", JV_NULL, v);
	default:
		if (*r->p == '-' || (*r->p >= '0' && *r->p <= '9'))
			return number(r, v);
		return fail(r, "not a JSON value");
	}
}

int jval_parse(const char *text, size_t n, struct jval *v, struct sbuf *err)
{
	struct rd r = { (const unsigned char *)text, (const unsigned char *)text, (const unsigned char *)text + n, err, 0 };

	memset(v, 0, sizeof *v);
	if (value(&r, v, 0) == 0) {
		blanks(&r);
		if (r.p == r.end)
			return 0;
		fail(&r, "more after the value");
	}
	jval_free(v);
	return -1;
}

void jval_free(struct jval *v)
{
	for (size_t i = 0; i < v->n; i++) {
		jval_free(&v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->s);
	memset(v, 0, sizeof *v);
}

const struct jval *jval_get(const struct jval *o, const char *key)
{
	if (o == NULL || o->t != JV_OBJ)
		return NULL;
	for (size_t i = o->n; i-- > 0;)
		if (strcmp(o->keys[i], key) == 0)
			return &o->items[i];
	return NULL;
}

const char *jval_str(const struct jval *v)
{
	if (v == NULL || v->t != JV_STR || strlen(v->s) != v->len)
		return NULL;
	return v->s;
}

int jval_int(const struct jval *v, long long min, long long max, long long *out)
{
	long long x = 0;
	int neg = 0;
	const char *s;

	if (v == NULL || v->t != JV_NUM)
		return -1;
	s = v->s;
	if (*s == '-') {
		neg = 1;
		s++;
	}
	if (*s == '\0' || strlen(s) > 18)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		x = x * 10 + (*s - '0');
	}
	x = neg ? -x : x;
	if (x < min || x > max)
		return -1;
	*out = x;
	return 0;
}

void jval_write_str(struct sbuf *out, const char *s, size_t n)
{
	sbuf_addc(out, '"');
	json_append(out, (const uint8_t *)s, n);
	sbuf_addc(out, '"');
}

void jval_write(struct sbuf *out, const struct jval *v)
{
	switch (v->t) {
	case JV_NULL: sbuf_adds(out, "null"); break;
	case JV_FALSE: sbuf_adds(out, "false"); break;
	case JV_TRUE: sbuf_adds(out, "true"); break;
	case JV_NUM: sbuf_add(out, v->s, v->len); break;
	case JV_STR: jval_write_str(out, v->s, v->len); break;
	case JV_ARR:
	case JV_OBJ:
		sbuf_addc(out, v->t == JV_ARR ? '[' : '{');
		for (size_t i = 0; i < v->n; i++) {
			if (i)
				sbuf_addc(out, ',');
			if (v->t == JV_OBJ) {
				jval_write_str(out, v->keys[i], strlen(v->keys[i]));
				sbuf_addc(out, ':');
			}
			jval_write(out, &v->items[i]);
		}
		sbuf_addc(out, v->t == JV_ARR ? ']' : '}');
		break;
	}
}

void jval_set_str(struct jval *v, const char *s, size_t n)
{
	jval_free(v);
	v->t = JV_STR;
	v->s = xstrndup(s, n);
	v->len = n;
}

void jval_set_num(struct jval *v, const char *text)
{
	jval_free(v);
	v->t = JV_NUM;
	v->s = xstrdup(text);
	v->len = strlen(text);
}

/* Room for one more member: 4, then doubled at each power of two. */
static struct jval *grow(struct jval *v, int keyed)
{
	if (v->n == 0 || (v->n >= 4 && (v->n & (v->n - 1)) == 0)) {
		size_t cap = v->n == 0 ? 4 : v->n * 2;
		v->items = xreallocarray(v->items, cap, sizeof *v->items);
		if (keyed)
			v->keys = xreallocarray(v->keys, cap, sizeof *v->keys);
	}
	memset(&v->items[v->n], 0, sizeof v->items[v->n]);
	return &v->items[v->n++];
}

struct jval *jval_put(struct jval *o, const char *key)
{
	if (o->t == JV_NULL)
		o->t = JV_OBJ;
	struct jval *it = grow(o, 1);
	o->keys[o->n - 1] = xstrdup(key);
	return it;
}

struct jval *jval_push(struct jval *a)
{
	if (a->t == JV_NULL)
		a->t = JV_ARR;
	return grow(a, 0);
}
