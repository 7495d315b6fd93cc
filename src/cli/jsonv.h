/* jsonv.h — JSON (RFC 8259) read into values and written back, for the
 * messages of heapwalk mcp. The text is another program's: every string
 * must be valid UTF-8 (surrogate escapes paired), nesting is bounded,
 * numbers keep their text (written back exactly as read), and an error
 * says where, by byte offset. No I/O here. */
#ifndef HW_JSONV_H
#define HW_JSONV_H

#include <stddef.h>

#include "util.h"

#define JV_MAX_DEPTH 64

enum jval_type { JV_NULL, JV_FALSE, JV_TRUE, JV_NUM, JV_STR, JV_ARR, JV_OBJ };

struct jval {
	enum jval_type t;
	char *s;          /* JV_STR: the string, NUL-ended; JV_NUM: the number's text */
	size_t len;       /* of s */
	struct jval *items; /* JV_ARR: the elements; JV_OBJ: the members' values */
	char **keys;      /* JV_OBJ: the members' names (keys[i] names items[i]) */
	size_t n;
};

/* The one value that is all of text[0..n) (blanks around it): 0 with
 * *v, or -1 with "at byte N: what" in err. */
int jval_parse(const char *text, size_t n, struct jval *v, struct sbuf *err);
void jval_free(struct jval *v);

/* Object o's member key (the last of that name), NULL if none or if o
 * is no object. */
const struct jval *jval_get(const struct jval *o, const char *key);
/* A string without a NUL in it, else NULL. */
const char *jval_str(const struct jval *v);
/* An integer in [min, max] exactly (no fraction, no exponent): 0 with
 * *out, -1 if v is none. */
int jval_int(const struct jval *v, long long min, long long max, long long *out);

/* v as JSON text, appended (compact; numbers as they were read). */
void jval_write(struct sbuf *out, const struct jval *v);
/* s as a JSON string, quotes included, appended: any bytes (invalid
 * UTF-8 escaped as heapwalk escapes a dump's strings). */
void jval_write_str(struct sbuf *out, const char *s, size_t n);

/* Making values (their strings copied). */
void jval_set_str(struct jval *v, const char *s, size_t n);
void jval_set_num(struct jval *v, const char *text);
/* Appends a member to object o (made an object if it is JV_NULL); the
 * returned value is JV_NULL, to be set. */
struct jval *jval_put(struct jval *o, const char *key);
/* Appends an element to array a (made an array if JV_NULL). */
struct jval *jval_push(struct jval *a);

#endif
