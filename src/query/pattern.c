/* pattern.c — the object ids and class patterns a step, a view or an
 * inspection is given, read the same way everywhere; see pattern.h. */
#include "query/pattern.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <errno.h>
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

#include "graph/classes.h"
#include "graph/reader.h"

static pcre2_code *rx_compile(const char *pattern, int *code, size_t *at)
{
	PCRE2_SIZE off = 0;
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, PCRE2_UTF,
				       code, &off, NULL);

	*at = (size_t)off;
	return re;
}

static void rx_message(int code, struct sbuf *out)
{
	PCRE2_UCHAR msg[256];

	if (pcre2_get_error_message(code, msg, sizeof msg) < 0)
		snprintf((char *)msg, sizeof msg, "error %d", code);
	sbuf_adds(out, (const char *)msg);
}

int regex_error(const char *pattern, size_t *at, struct sbuf *msg)
{
	int code;
	pcre2_code *re = rx_compile(pattern, &code, at);

	if (re != NULL) {
		pcre2_code_free(re);
		return 0;
	}
	rx_message(code, msg);
	return -1;
}

int regex_check(const char *pattern, struct sbuf *err)
{
	struct sbuf msg;
	size_t at;

	sbuf_init(&msg);
	int rc = regex_error(pattern, &at, &msg);
	if (rc < 0) {
		sbuf_adds(err, "regex /");
		esc_append_again(err, (const uint8_t *)pattern, strlen(pattern)); /* as written: the column counts so */
		sbuf_printf(err, "/: column %zu: ", at + 1);
		sbuf_adds(err, msg.buf);
	}
	sbuf_free(&msg);
	return rc;
}

/* Whether esc_str(s) could differ from s: a backslash, a control byte,
 * or a byte past ASCII (an escaped character, or an invalid one) */
static int shown_differs(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == '\\' || *p >= 0x7f)
			return 1;
	return 0;
}

uint8_t *class_match(const struct heap *h, const char *pattern, int regex, struct sbuf *err)
{
	uint8_t *m = xcalloc((size_t)h->ncls + 1, 1);

	if (!regex) {
		char *alt = class_internal_name(pattern);
		struct sbuf key, base, bkey; /* as the format's other spellings of it become */
		sbuf_init(&key);
		sbuf_init(&base);
		sbuf_init(&bkey);
		if (h->fmt != NULL && h->fmt->name_key != NULL)
			h->fmt->name_key(pattern, &key);
		for (uint32_t c = 0; c < h->ncls; c++) {
			const char *n = class_name(h, c);
			m[c] = strcmp(n, pattern) == 0 || strcmp(n, alt) == 0 ||
			       (key.len > 0 && strcmp(class_match_name(h, c, 0), key.buf) == 0);
			if (!m[c] && shown_differs(n)) { /* or as text and CSV show it */
				char *e = esc_str(n);
				m[c] = strcmp(e, pattern) == 0;
				free(e);
			}
			sbuf_reset(&base);
			if (!m[c] && h->fmt != NULL && h->fmt->name_base != NULL && h->fmt->name_base(h, c, &base)) {
				/* a class of the name split by module: the name takes
				 * them all (.NET's "<>c" of every module with lambdas) */
				sbuf_reset(&bkey);
				if (key.len > 0)
					h->fmt->name_key(base.buf, &bkey);
				m[c] = strcmp(base.buf, pattern) == 0 || strcmp(base.buf, alt) == 0 ||
				       (key.len > 0 && strcmp(bkey.buf, key.buf) == 0);
			}
		}
		sbuf_free(&key);
		sbuf_free(&base);
		sbuf_free(&bkey);
		free(alt);
		return m;
	}
	int code;
	size_t at;
	pcre2_code *re = rx_compile(pattern, &code, &at);
	if (re == NULL) {
		regex_check(pattern, err);
		free(m);
		return NULL;
	}
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
	for (uint32_t c = 0; c < h->ncls; c++) {
		const char *n = class_name(h, c);
		m[c] = pcre2_match(re, (PCRE2_SPTR)n, strlen(n), 0, 0, md, NULL) >= 0;
		if (!m[c] && shown_differs(n)) { /* or as shown: "x1b" finds what reads \x1b */
			char *e = esc_str(n);
			m[c] = pcre2_match(re, (PCRE2_SPTR)e, strlen(e), 0, 0, md, NULL) >= 0;
			free(e);
		}
	}
	pcre2_match_data_free(md);
	pcre2_code_free(re);
	return m;
}

node_t object_by_id(const struct heap *h, const char *text, size_t n, struct sbuf *err)
{
	char *buf = xstrndup(text, n); /* any length: zeros before the digits are digits */
	uint64_t id = 0;
	node_t v = HW_NONE;

	if (parse_object_id(buf, &id) == 0)
		v = heap_find_id(h, id);
	else
		id = 0;
	free(buf);
	if (v != HW_NONE && v != 0)
		return v;
	if (id != 0 && id == h->root_id) {
		esc_append(err, (const uint8_t *)text, n, 0);
		sbuf_adds(err, " is the dump's root, which heapwalk shows as <GC roots>: no object of its own");
	} else {
		sbuf_adds(err, "no object with id ");
		esc_append(err, (const uint8_t *)text, n, 0);
		sbuf_adds(err, " in the dump");
	}
	return HW_NONE;
}

int parse_object_id(const char *s, uint64_t *id)
{
	char *end;

	if (*s == '@') /* as DevTools writes a V8 object's id (@301), and labels here (@0x12d) */
		s++;
	if (*s < '0' || *s > '9') /* strtoull would take "-1" and " 1" */
		return -1;
	errno = 0;
	*id = strtoull(s, &end, 0); /* 0x... hex, else decimal (no octal: see below) */
	if (s[0] == '0' && s[1] != 'x' && s[1] != 'X' && s[1] != '\0')
		*id = strtoull(s, &end, 10); /* "0755" is decimal 755, not octal */
	return errno == 0 && *end == '\0' ? 0 : -1;
}
