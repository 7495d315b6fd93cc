/* report.c — the table writer, see report.h. */
#include "query/report.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void table_init(struct table *t, enum fmt fmt, const struct col *cols, int ncols)
{
	memset(t, 0, sizeof *t);
	t->fmt = fmt;
	t->cols = cols;
	t->ncols = ncols;
	sbuf_init(&t->head);
}

static void meta_key(struct table *t, const char *key)
{
	if (t->fmt == FMT_JSON)
		sbuf_printf(&t->head, "\"%s\":", key);
	else if (t->fmt == FMT_TEXT)
		sbuf_printf(&t->head, "%s: ", key);
}

void table_meta_str(struct table *t, const char *key, const char *val)
{
	if (t->fmt == FMT_CSV)
		return; /* CSV is rows only */
	meta_key(t, key);
	if (t->fmt == FMT_JSON) {
		sbuf_addc(&t->head, '"');
		json_append(&t->head, (const uint8_t *)val, strlen(val));
		sbuf_adds(&t->head, "\",");
	} else {
		esc_append(&t->head, (const uint8_t *)val, strlen(val), 0);
		sbuf_addc(&t->head, '\n');
	}
}

void table_meta_num(struct table *t, const char *key, uint64_t v)
{
	if (t->fmt == FMT_CSV)
		return;
	meta_key(t, key);
	sbuf_printf(&t->head, t->fmt == FMT_JSON ? "%llu," : "%llu\n", (unsigned long long)v);
}

static char *format_cell(const struct table *t, const struct cell *c)
{
	struct sbuf sb;

	sbuf_init(&sb);
	switch (c->type) {
	case COL_STR: {
		const uint8_t *s = (const uint8_t *)(c->s ? c->s : "");
		size_t n = strlen((const char *)s);
		if (t->fmt == FMT_JSON) {
			sbuf_addc(&sb, '"');
			json_append(&sb, s, n);
			sbuf_addc(&sb, '"');
		} else if (t->fmt == FMT_CSV) {
			csv_append(&sb, s, n);
		} else {
			esc_append(&sb, s, n, 0);
		}
		break;
	}
	case COL_NUM: /* UINT64_MAX: no value */
		if (c->n != UINT64_MAX)
			sbuf_printf(&sb, "%llu", (unsigned long long)c->n);
		else if (t->fmt == FMT_JSON)
			sbuf_adds(&sb, "null");
		break;
	case COL_PCT:
		sbuf_printf(&sb, t->fmt == FMT_TEXT ? "%.1f%%" : "%.4f", c->pct);
		break;
	}
	return sbuf_detach(&sb);
}

void table_row(struct table *t, ...)
{
	va_list ap;

	if (t->nrows == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 64;
		t->cells = xreallocarray(t->cells, t->cap * (size_t)t->ncols, sizeof *t->cells);
	}
	va_start(ap, t);
	for (int i = 0; i < t->ncols; i++) {
		struct cell c = va_arg(ap, struct cell);
		t->cells[t->nrows * (size_t)t->ncols + (size_t)i] = format_cell(t, &c);
	}
	va_end(ap);
	t->nrows++;
}

/* Display width of escaped text: bytes that do not start a UTF-8
 * sequence do not count (good enough for alignment; no wide glyphs in
 * class names in practice). */
static size_t width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

static void end_text(struct table *t, struct sbuf *out)
{
	size_t *w = xcalloc((size_t)t->ncols, sizeof *w);

	sbuf_add(out, t->head.buf, t->head.len);
	if (t->head.len)
		sbuf_addc(out, '\n');
	for (int c = 0; c < t->ncols; c++)
		w[c] = width(t->cols[c].title);
	for (size_t r = 0; r < t->nrows; r++)
		for (int c = 0; c < t->ncols; c++) {
			size_t cw = width(t->cells[r * (size_t)t->ncols + (size_t)c]);
			if (cw > w[c])
				w[c] = cw;
		}
	for (size_t r = 0; r <= t->nrows; r++) {
		for (int c = 0; c < t->ncols; c++) {
			const char *s = r == 0 ? t->cols[c].title : t->cells[(r - 1) * (size_t)t->ncols + (size_t)c];
			size_t pad = w[c] - width(s);
			int last = c == t->ncols - 1;
			if (t->cols[c].type != COL_STR)
				for (size_t i = 0; i < pad; i++)
					sbuf_addc(out, ' ');
			sbuf_adds(out, s);
			if (t->cols[c].type == COL_STR && !last)
				for (size_t i = 0; i < pad; i++)
					sbuf_addc(out, ' ');
			if (!last)
				sbuf_adds(out, "  ");
		}
		sbuf_addc(out, '\n');
	}
	free(w);
}

static void end_json(struct table *t, struct sbuf *out)
{
	sbuf_addc(out, '{');
	sbuf_add(out, t->head.buf, t->head.len);
	sbuf_adds(out, "\"rows\":[");
	for (size_t r = 0; r < t->nrows; r++) {
		sbuf_adds(out, r ? ",\n{" : "\n{");
		for (int c = 0; c < t->ncols; c++)
			sbuf_printf(out, "%s\"%s\":%s", c ? "," : "", t->cols[c].key,
				    t->cells[r * (size_t)t->ncols + (size_t)c]);
		sbuf_addc(out, '}');
	}
	sbuf_adds(out, "]}\n");
}

static void end_csv(struct table *t, struct sbuf *out)
{
	for (int c = 0; c < t->ncols; c++)
		sbuf_printf(out, "%s%s", c ? "," : "", t->cols[c].key);
	sbuf_addc(out, '\n');
	for (size_t r = 0; r < t->nrows; r++)
		for (int c = 0; c < t->ncols; c++)
			sbuf_printf(out, "%s%s", t->cells[r * (size_t)t->ncols + (size_t)c],
				    c == t->ncols - 1 ? "\n" : ",");
}

void table_end(struct table *t, struct sbuf *out)
{
	if (t->fmt == FMT_TEXT)
		end_text(t, out);
	else if (t->fmt == FMT_JSON)
		end_json(t, out);
	else
		end_csv(t, out);
	for (size_t i = 0; i < t->nrows * (size_t)t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	sbuf_free(&t->head);
}
