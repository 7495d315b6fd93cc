/* jsonck.h — for the tests: a strict JSON reader (RFC 8259: no raw
 * control characters in strings, valid UTF-8, paired surrogates, no
 * duplicate keys, one value per text) that keeps the values, so that a
 * test can both check that a report is well-formed and read it; and a
 * CSV reader (RFC 4180 quoting, every row as wide as the header). */
#ifndef HW_JSONCK_H
#define HW_JSONCK_H

#include <stddef.h>
#include <stdint.h>

enum jtype { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

struct jv {
	enum jtype t;
	int b;             /* J_BOOL */
	double num;        /* J_NUM */
	int is_uint;       /* J_NUM written as a plain unsigned integer */
	uint64_t u;        /* its value then */
	char *s;           /* J_STR, decoded (may hold NUL: see len) */
	size_t len;        /* of s */
	size_t n;          /* J_ARR, J_OBJ: items */
	char **keys;       /* J_OBJ */
	struct jv *v;      /* J_ARR, J_OBJ */
};

/* Parse text[0..n) into *out: 0, or -1 with a message naming the byte
 * offset in err (err_size bytes). jv_free either way. */
int json_parse(const char *text, size_t n, struct jv *out, char *err, size_t err_size);
void jv_free(struct jv *v);
/* Member key of object o, or NULL (also when o is no object). */
const struct jv *jv_get(const struct jv *o, const char *key);

/* CSV: rows of fields, row 0 the header. */
struct csv {
	size_t nrows, ncols;
	char **cell;       /* nrows * ncols, row-major, decoded */
};
int csv_parse(const char *text, size_t n, struct csv *out, char *err, size_t err_size);
void csv_free(struct csv *c);
/* Column named name in the header, or -1. */
int csv_col(const struct csv *c, const char *name);

#endif
