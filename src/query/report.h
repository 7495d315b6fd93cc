/* report.h — one table writer for every view and format: aligned text,
 * JSON ({"view":..., summary fields, "rows":[{...}]}) or CSV (a header
 * line, then rows). Cells are kept until table_end() so that text
 * columns can be aligned. Strings from the dump are escaped here. */
#ifndef HW_REPORT_H
#define HW_REPORT_H

#include <stdint.h>

#include "util.h"

enum fmt { FMT_TEXT, FMT_JSON, FMT_CSV };
enum coltype { COL_STR, COL_NUM, COL_PCT };

struct col {
	const char *key;   /* JSON key and CSV header */
	const char *title; /* text header */
	enum coltype type;
};

struct table {
	enum fmt fmt;
	const struct col *cols;
	int ncols;
	char **cells;      /* nrows * ncols, escaped for the format */
	size_t nrows, cap;
	struct sbuf head;  /* JSON summary members / text preamble */
};

void table_init(struct table *t, enum fmt fmt, const struct col *cols, int ncols);
/* Summary values printed before the rows (text: "key: value" lines). */
void table_meta_str(struct table *t, const char *key, const char *val);
void table_meta_num(struct table *t, const char *key, uint64_t v);
/* A row: exactly ncols values; strings are raw dump bytes or text. */
void table_row(struct table *t, ...);
/* Writes everything to out and frees the table. */
void table_end(struct table *t, struct sbuf *out);

/* Values for table_row: */
struct cell { enum coltype type; const char *s; uint64_t n; double pct; };
#define CS(str) ((struct cell){ COL_STR, (str), 0, 0 })
#define CN(num) ((struct cell){ COL_NUM, NULL, (uint64_t)(num), 0 }) /* UINT64_MAX: none */
#define CP(p)   ((struct cell){ COL_PCT, NULL, 0, (p) })

#endif
