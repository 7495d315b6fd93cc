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

enum jv_type { JV_NULL, JV_FALSE, JV_TRUE, JV_NUM, JV_STR, JV_ARR, JV_OBJ };

struct jv {
	enum jv_type t;
	char *s;          /* JV_STR: the string, NUL-ended; JV_NUM: the number's text */
	size_t len;       /* of s */
	struct jv *items; /* JV_ARR: the elements; JV_OBJ: the members' values */
	char **keys;      /* JV_OBJ: the members' names (keys[i] names items[i]) */
	size_t n;
};

/* The one value that is all of text[0..n) (blanks around it): 0 with
 * *v, or -1 with "at byte N: what" in err. */
int jv_parse(const char *text, size_t n, struct jv *v, struct sbuf *err);
void jv_free(struct jv *v);

/* Object o's member key (the last of that name), NULL if none or if o
 * is no object. */
const struct jv *jv_get(const struct jv *o, const char *key);
/* A string without a NUL in it, else NULL. */
const char *jv_str(const struct jv *v);
/* An integer in [min, max] exactly (no fraction, no exponent): 0 with
 * *out, -1 if v is none. */
int jv_int(const struct jv *v, long long min, long long max, long long *out);

/* v as JSON text, appended (compact; numbers as they were read). */
void jv_write(struct sbuf *out, const struct jv *v);
/* s as a JSON string, quotes included, appended: any bytes (invalid
 * UTF-8 escaped as heapwalk escapes a dump's strings). */
void jv_write_str(struct sbuf *out, const char *s, size_t n);

/* Making values (their strings copied). */
void jv_set_str(struct jv *v, const char *s, size_t n);
void jv_set_num(struct jv *v, const char *text);
/* Appends a member to object o (made an object if it is JV_NULL); the
 * returned value is JV_NULL, to be set. */
struct jv *jv_put(struct jv *o, const char *key);
/* Appends an element to array a (made an array if JV_NULL). */
struct jv *jv_push(struct jv *a);

#endif
