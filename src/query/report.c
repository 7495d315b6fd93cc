/* report.c — text, JSON and CSV renderings of the views, see report.h.
 * One table writer serves every view: summary members, then rows of
 * cells kept until the end so that text columns can be aligned. */
#include "query/report.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "graph/reader.h"
#include "query/classcols.h"
#include "query/dot.h"

/* ---- the table writer ---- */

enum coltype { COL_STR, COL_NUM, COL_BYTES, COL_PCT, COL_DNUM, COL_DBYTES, /* D: signed deltas */
	       COL_INUM }; /* a signed figure, shown as it is (no '+') */
#define CF_TEXT 1 /* shown in text only */
#define CF_DATA 2 /* in JSON and CSV only */

struct col {
	const char *key;   /* JSON member and CSV header */
	const char *title; /* text header */
	enum coltype type;
	unsigned flags;
};

/* A value for table_row(); null: no value (JSON null, empty otherwise).
 * Text is the dump's (a name, a label, a string: CSV neutralises what a
 * spreadsheet would run as a formula) unless own: the program's word. */
struct cell {
	enum coltype type;
	const char *s;
	size_t len;
	uint64_t n;
	double pct;
	int null;
	int own;
	int escaped; /* own words escaped once already (an error naming a class): not again */
};
#define CS(str)   cell_str(str)
#define CSB(sb)   ((struct cell){ COL_STR, (sb)->buf, (sb)->len, 0, 0, 0, 0, 0 })
#define CN(num)   ((struct cell){ COL_NUM, NULL, 0, (uint64_t)(num), 0, 0, 0, 0 })
#define CB(num)   ((struct cell){ COL_BYTES, NULL, 0, (uint64_t)(num), 0, 0, 0, 0 })
#define CP(p)     ((struct cell){ COL_PCT, NULL, 0, 0, (p), 0, 0, 0 })
#define CD(a, b)  ((struct cell){ COL_DNUM, NULL, 0, (uint64_t)(a) - (uint64_t)(b), 0, 0, 0, 0 })
#define CDB(a, b) ((struct cell){ COL_DBYTES, NULL, 0, (uint64_t)(a) - (uint64_t)(b), 0, 0, 0, 0 })
#define CNULL     ((struct cell){ COL_STR, NULL, 0, 0, 0, 1, 0, 0 })
#define CW(word)  ((struct cell){ COL_STR, (word), strlen(word), 0, 0, 0, 1, 0 })
#define CI(num)   ((struct cell){ COL_INUM, NULL, 0, (uint64_t)(int64_t)(num), 0, 0, 0, 0 })
#define CE(msg)   ((struct cell){ COL_STR, (msg), strlen(msg), 0, 0, 0, 1, 1 })

static struct cell cell_str(const char *s)
{
	return (struct cell){ COL_STR, s, s ? strlen(s) : 0, 0, 0, s == NULL, 0, 0 };
}

struct tcell {
	char *s;      /* formatted for the table's format, escaped */
	char *human;  /* text bytes: "4.39 MB", else NULL */
};

struct table {
	enum fmt fmt;
	const struct col *cols;
	int ncols;
	struct tcell *cells;  /* nrows * ncols */
	size_t nrows, cap;
	struct sbuf json;     /* JSON summary members, each followed by ',' */
	char **meta;          /* text summary: key, value, key, value... */
	size_t nmeta;
	uint32_t hide;        /* columns (bit c) left out in every format */
};

static void table_init(struct table *t, enum fmt fmt, const char *view, const struct col *cols, int ncols)
{
	memset(t, 0, sizeof *t);
	t->fmt = fmt;
	t->cols = cols;
	t->ncols = ncols;
	sbuf_init(&t->json);
	if (fmt == FMT_JSON)
		sbuf_printf(&t->json, "\"view\":\"%s\",", view);
}

static int shown(const struct table *t, int c)
{
	return (t->cols[c].flags & (t->fmt == FMT_TEXT ? CF_DATA : CF_TEXT)) == 0 && !(t->hide >> c & 1);
}

static void meta_text(struct table *t, const char *key, char *val)
{
	t->meta = xreallocarray(t->meta, 2 * t->nmeta + 2, sizeof *t->meta);
	t->meta[2 * t->nmeta] = xstrdup(key);
	t->meta[2 * t->nmeta + 1] = val;
	t->nmeta++;
}

/* Summary values: CSV has none, JSON members, text "key: value" lines. */
static void meta_str(struct table *t, const char *key, const char *val, size_t len)
{
	struct sbuf sb;

	if (t->fmt == FMT_JSON) {
		sbuf_printf(&t->json, "\"%s\":\"", key);
		json_append(&t->json, (const uint8_t *)val, len);
		sbuf_adds(&t->json, "\",");
	} else if (t->fmt == FMT_TEXT) {
		sbuf_init(&sb);
		esc_append(&sb, (const uint8_t *)val, len, 0);
		meta_text(t, key, sbuf_detach(&sb));
	}
}

static void meta_strs(struct table *t, const char *key, const char *val)
{
	meta_str(t, key, val, strlen(val));
}

static void meta_num(struct table *t, const char *key, uint64_t v)
{
	if (t->fmt == FMT_JSON)
		sbuf_printf(&t->json, "\"%s\":%llu,", key, (unsigned long long)v);
	else if (t->fmt == FMT_TEXT)
		meta_text(t, key, xasprintf("%llu", (unsigned long long)v));
}

/* A number with a fraction, as printf gave it ("98.4"): JSON's number */
static void meta_dec(struct table *t, const char *key, const char *num)
{
	if (t->fmt == FMT_JSON)
		sbuf_printf(&t->json, "\"%s\":%s,", key, num);
	else if (t->fmt == FMT_TEXT)
		meta_text(t, key, xstrdup(num));
}

/* A view of a dump cut short says where first (info says it too, in
 * its place): CSV has no room, a line on stderr says it there. */
static void meta_cut(struct table *t, const struct heap *h)
{
	if (h != NULL && h->truncated_at > 0)
		meta_num(t, "truncated_at", h->truncated_at);
}

static void meta_bytes(struct table *t, const char *key, uint64_t v)
{
	char h[32];

	if (t->fmt != FMT_TEXT) {
		meta_num(t, key, v);
		return;
	}
	fmt_bytes(h, sizeof h, v);
	meta_text(t, key, xasprintf("%llu (%s)", (unsigned long long)v, h));
}

static void meta_bool(struct table *t, const char *key, int v)
{
	if (t->fmt == FMT_JSON)
		sbuf_printf(&t->json, "\"%s\":%s,", key, v ? "true" : "false");
	else if (t->fmt == FMT_TEXT)
		meta_text(t, key, xstrdup(v ? "yes" : "no"));
}

/* A list of strings from the dump: a JSON array, text comma-separated. */
static void meta_list(struct table *t, const char *key, const char *const *v, size_t n)
{
	struct sbuf sb;

	if (t->fmt == FMT_CSV)
		return;
	sbuf_init(&sb);
	if (t->fmt == FMT_JSON)
		sbuf_printf(&t->json, "\"%s\":[", key);
	for (size_t i = 0; i < n; i++) {
		if (t->fmt == FMT_JSON) {
			sbuf_adds(&t->json, i ? ",\"" : "\"");
			json_append(&t->json, (const uint8_t *)v[i], strlen(v[i]));
			sbuf_addc(&t->json, '"');
		} else {
			sbuf_adds(&sb, i ? ", " : "");
			esc_append(&sb, (const uint8_t *)v[i], strlen(v[i]), 0);
		}
	}
	if (t->fmt == FMT_JSON)
		sbuf_adds(&t->json, "],");
	else
		meta_text(t, key, sbuf_detach(&sb));
	sbuf_free(&sb);
}

/* The heaps of a file of several (Mono's heapshots): which one this
 * is, then each one's time and totals (JSON a list, text a line each). */
static void meta_snaps(struct table *t, const struct heap *h, enum fmt f)
{
	if (f == FMT_TEXT) {
		meta_text(t, "heapshot", xasprintf("%u of %u (* below)", h->snap, h->nsnaps));
	} else {
		meta_num(t, "heapshot", h->snap);
		meta_num(t, "heapshots", h->nsnaps);
	}
	if (f == FMT_JSON)
		sbuf_adds(&t->json, "\"heapshot_list\":[");
	for (uint32_t i = 0; i < h->nsnaps; i++) {
		const struct hsnap *s = &h->snaps[i];
		time_t secs = (time_t)(s->time_ms / 1000);
		struct tm tm;
		char when[64] = "?";
		if (gmtime_r(&secs, &tm) != NULL)
			strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
		if (f == FMT_JSON) {
			sbuf_printf(&t->json, "%s{\"heapshot\":%u,\"time_ms\":%llu,\"objects\":%llu,\"bytes\":%llu,"
				    "\"complete\":%s}", i ? "," : "", i + 1, (unsigned long long)s->time_ms,
				    (unsigned long long)s->objects, (unsigned long long)s->bytes,
				    s->complete ? "true" : "false");
		} else if (f == FMT_TEXT) {
			char hb[32];
			fmt_bytes(hb, sizeof hb, s->bytes);
			meta_text(t, "heapshots", xasprintf("%2u%s %s.%03u UTC  %llu objects, %llu bytes (%s)%s", i + 1,
							   i + 1 == h->snap ? "*" : " ", when,
							   (unsigned)(s->time_ms % 1000),
							   (unsigned long long)s->objects,
							   (unsigned long long)s->bytes, hb,
							   s->complete ? "" : ", cut short"));
		}
	}
	if (f == FMT_JSON)
		sbuf_adds(&t->json, "],");
}

/* What old/new rests on, and the counts: new, old (with_old), gone
 * (when there is a baseline dump). */
static void meta_baseline(struct table *t, const struct heap *h, const char *key, int with_old)
{
	const struct baseline *b = h->baseline;
	struct sbuf src;

	sbuf_init(&src);
	baseline_source(h, b, &src);
	meta_str(t, key, src.buf, src.len);
	sbuf_free(&src);
	meta_num(t, "new_objects", b->fresh.count);
	meta_bytes(t, "new_bytes", b->fresh.shallow);
	if (with_old) {
		meta_num(t, "old_objects", b->nold);
		meta_bytes(t, "old_bytes", b->old_bytes);
	}
	if (b->mode == BL_MATCHED) {
		meta_num(t, "paired_objects", b->pairs);
		/* the pairs whose object is unidentified: not old, which
		 * paired_objects beside old_objects would seem to say */
		meta_num(t, "paired_objects_unidentified", b->pairs_unknown);
		char pct[16];
		snprintf(pct, sizeof pct, "%.1f", b->confidence * 100.0);
		if (b->fresh.count > 0) /* of no new object: none to be sure of */
			meta_dec(t, "new_confidence_pct", pct);
	}
	if (b->unknown.bits != NULL) {
		meta_num(t, "unidentified_objects", b->unknown.count);
		meta_num(t, "unidentified_objects_before", b->unknown_old.count);
	}
	if (baseline_has_old(b)) {
		meta_num(t, "gone_objects", b->gone.count);
		meta_bytes(t, "gone_bytes", b->gone.shallow);
	}
}

/* The views of a set that new, old or gone made: what that rests on,
 * exact or inferred with its confidence. */
static void meta_identity(struct table *t, const struct heap *h)
{
	const struct baseline *b = h->identity;
	struct sbuf src;

	if (b == NULL)
		return;
	sbuf_init(&src);
	baseline_source(h, b, &src);
	meta_str(t, "identity", src.buf, src.len);
	sbuf_free(&src);
}

static struct tcell format_cell(const struct table *t, const struct cell *c)
{
	struct tcell r = { NULL, NULL };
	struct sbuf sb;
	char h[32];

	sbuf_init(&sb);
	if (c->null) {
		if (t->fmt == FMT_JSON)
			sbuf_adds(&sb, "null");
	} else if (c->type == COL_STR) {
		const uint8_t *s = (const uint8_t *)c->s;
		if (t->fmt == FMT_JSON) {
			sbuf_addc(&sb, '"');
			json_append(&sb, s, c->len);
			sbuf_addc(&sb, '"');
		} else if (t->fmt == FMT_CSV) {
			(c->escaped ? csv_append_escaped : c->own ? csv_append_own : csv_append)(&sb, s, c->len);
		} else if (c->escaped) {
			esc_append_again(&sb, s, c->len);
		} else {
			esc_append(&sb, s, c->len, 0);
		}
	} else if (c->type == COL_PCT) {
		/* JSON and CSV take a plain number ("44.8%" is no JSON) */
		sbuf_printf(&sb, t->fmt == FMT_TEXT ? "%.1f%%" : "%.1f", c->pct);
	} else if (c->type == COL_DNUM || c->type == COL_DBYTES || c->type == COL_INUM) {
		int64_t d = (int64_t)c->n;
		uint64_t mag = d < 0 ? (uint64_t)0 - c->n : c->n;
		/* text marks growth with '+'; JSON and CSV take plain integers */
		sbuf_printf(&sb, "%s%llu", d < 0 ? "-" : d > 0 && t->fmt == FMT_TEXT && c->type != COL_INUM ? "+" : "",
			    (unsigned long long)mag);
		if (c->type == COL_DBYTES && t->fmt == FMT_TEXT) {
			fmt_bytes(h, sizeof h, mag);
			char hs[40];
			snprintf(hs, sizeof hs, "%s%s", d < 0 ? "-" : "+", h);
			r.human = xstrdup(mag >= 1024 ? hs : "");
		}
	} else {
		sbuf_printf(&sb, "%llu", (unsigned long long)c->n);
		if (c->type == COL_BYTES && t->fmt == FMT_TEXT) { /* "523 B" would say it twice */
			fmt_bytes(h, sizeof h, c->n);
			r.human = xstrdup(c->n >= 1024 ? h : "");
		}
	}
	r.s = sbuf_detach(&sb);
	return r;
}

/* A row from an array: one value for every column. */
static void table_cells(struct table *t, const struct cell *c)
{
	if (t->nrows == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 64;
		t->cells = xreallocarray(t->cells, t->cap * (size_t)t->ncols, sizeof *t->cells);
	}
	for (int i = 0; i < t->ncols; i++)
		t->cells[t->nrows * (size_t)t->ncols + (size_t)i] = format_cell(t, &c[i]);
	t->nrows++;
}

/* A row: one value for every column, shown in this format or not. */
static void table_row(struct table *t, ...)
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

/* Display width of escaped UTF-8 text, without the locale (output must
 * not depend on it): East Asian wide ranges count 2, combining marks 0. */
static size_t width(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t w = 0;

	while (*s) {
		uint32_t cp = *s;
		int n = cp < 0x80 ? 1 : cp < 0xe0 ? 2 : cp < 0xf0 ? 3 : 4;
		if (n > 1)
			cp &= 0x3fu >> (n - 1);
		for (int i = 1; i < n && (s[i] & 0xc0) == 0x80; i++)
			cp = cp << 6 | (s[i] & 0x3f);
		for (int i = 0; i < n && *s; i++)
			s++;
		if ((cp >= 0x300 && cp < 0x370) || (cp >= 0x200b && cp <= 0x200f))
			continue;
		w += (cp >= 0x1100 && cp <= 0x115f) || (cp >= 0x2e80 && cp <= 0xa4cf) ||
		     (cp >= 0xac00 && cp <= 0xd7a3) || (cp >= 0xf900 && cp <= 0xfaff) ||
		     (cp >= 0xfe30 && cp <= 0xfe4f) || (cp >= 0xff00 && cp <= 0xff60) ||
		     (cp >= 0xffe0 && cp <= 0xffe6) || (cp >= 0x20000 && cp <= 0x3fffd) ? 2 : 1;
	}
	return w;
}

static void pad(struct sbuf *out, size_t n)
{
	while (n-- > 0)
		sbuf_addc(out, ' ');
}

static void end_text(struct table *t, struct sbuf *out)
{
	size_t *w = xcalloc((size_t)t->ncols, sizeof *w), *hw = xcalloc((size_t)t->ncols, sizeof *hw);
	size_t kw = 0;
	int last = t->ncols - 1;

	for (size_t i = 0; i < t->nmeta; i++)
		if (strlen(t->meta[2 * i]) > kw)
			kw = strlen(t->meta[2 * i]);
	for (size_t i = 0; i < t->nmeta; i++) {
		sbuf_printf(out, "%s:", t->meta[2 * i]);
		pad(out, kw - strlen(t->meta[2 * i]) + 1);
		sbuf_printf(out, "%s\n", t->meta[2 * i + 1]);
	}
	if (t->nmeta > 0)
		sbuf_addc(out, '\n');
	while (last > 0 && !shown(t, last))
		last--;
	for (size_t r = 0; r < t->nrows; r++) /* bytes: exact, a space, human */
		for (int c = 0; c < t->ncols; c++) {
			const struct tcell *x = &t->cells[r * (size_t)t->ncols + (size_t)c];
			if (width(x->s) > w[c])
				w[c] = width(x->s);
			if (x->human && strlen(x->human) > hw[c])
				hw[c] = strlen(x->human);
		}
	for (int c = 0; c < t->ncols; c++) {
		if (hw[c] > 0)
			w[c] += 1;
		if (width(t->cols[c].title) > w[c] + hw[c])
			w[c] = width(t->cols[c].title) - hw[c];
	}
	for (size_t r = 0; r <= t->nrows; r++) {
		int first = 1;
		size_t keep = out->len; /* the line up to its last cell's text: a string's own spaces stay */
		for (int c = 0; c <= last; c++) {
			if (!shown(t, c))
				continue;
			const struct tcell *x = r ? &t->cells[(r - 1) * (size_t)t->ncols + (size_t)c] : NULL;
			const char *s = x ? x->s : t->cols[c].title;
			size_t cw = w[c] + hw[c];
			if (!first)
				sbuf_adds(out, "  ");
			first = 0;
			if (t->cols[c].type == COL_STR) {
				sbuf_adds(out, s);
				if (*s != '\0')
					keep = out->len;
				if (c != last)
					pad(out, cw - width(s));
			} else if (x == NULL || x->human == NULL || hw[c] == 0) {
				pad(out, cw - width(s));
				sbuf_adds(out, s);
				if (*s != '\0')
					keep = out->len;
			} else {
				pad(out, w[c] - width(s) - 1);
				sbuf_printf(out, "%s ", s);
				pad(out, hw[c] - strlen(x->human));
				sbuf_adds(out, x->human);
				keep = out->len;
			}
		}
		while (out->len > keep && out->buf[out->len - 1] == ' ') /* the padding of empty last cells */
			out->buf[--out->len] = '\0';
		sbuf_addc(out, '\n');
	}
	free(w);
	free(hw);
}

static void end_json(struct table *t, struct sbuf *out)
{
	sbuf_addc(out, '{');
	sbuf_add(out, t->json.buf, t->json.len);
	sbuf_adds(out, "\"rows\":[");
	for (size_t r = 0; r < t->nrows; r++) {
		int first = 1;
		sbuf_adds(out, r ? ",\n{" : "\n{");
		for (int c = 0; c < t->ncols; c++) {
			if (!shown(t, c))
				continue;
			sbuf_printf(out, "%s\"%s\":%s", first ? "" : ",", t->cols[c].key,
				    t->cells[r * (size_t)t->ncols + (size_t)c].s);
			first = 0;
		}
		sbuf_addc(out, '}');
	}
	sbuf_adds(out, "]}\n");
}

static void end_csv(struct table *t, struct sbuf *out)
{
	for (size_t r = 0; r <= t->nrows; r++) {
		int first = 1;
		for (int c = 0; c < t->ncols; c++) {
			if (!shown(t, c))
				continue;
			sbuf_adds(out, first ? "" : ",");
			sbuf_adds(out, r ? t->cells[(r - 1) * (size_t)t->ncols + (size_t)c].s : t->cols[c].key);
			first = 0;
		}
		sbuf_addc(out, '\n');
	}
}

/* Writes everything to out and frees the table. */
static void table_end(struct table *t, struct sbuf *out)
{
	if (t->fmt == FMT_TEXT)
		end_text(t, out);
	else if (t->fmt == FMT_JSON)
		end_json(t, out);
	else
		end_csv(t, out);
	for (size_t i = 0; i < t->nrows * (size_t)t->ncols; i++) {
		free(t->cells[i].s);
		free(t->cells[i].human);
	}
	free(t->cells);
	for (size_t i = 0; i < 2 * t->nmeta; i++)
		free(t->meta[i]);
	free(t->meta);
	sbuf_free(&t->json);
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

/* ---- info ---- */

/* "reachable": why no path leads to the object; weak: what to say when
 * only weak references do. */
static void meta_reach(struct table *t, const struct heap *h, unsigned pseudo, const char *weak)
{
	const char *why = unreached_why(h, pseudo);
	struct sbuf sb;

	sbuf_init(&sb);
	if (why == NULL)
		sbuf_adds(&sb, "no path found");
	else if (h->aroot == 0 && !(pseudo & PATH_UNREACHABLE))
		sbuf_adds(&sb, weak);
	else
		sbuf_printf(&sb, "no: %s", why);
	meta_str(t, "reachable", sb.buf, sb.len);
	sbuf_free(&sb);
}

/* The analyses' focus, when there is one: the analysis root, the
 * references left out ("0x1 .session -> 0x2; ..."). */
static void meta_focus(struct table *t, const struct heap *h)
{
	struct sbuf sb;
	char id[32];

	sbuf_init(&sb);
	if (h->aroot != 0) {
		node_id_text(h, h->aroot, id, sizeof id);
		sbuf_printf(&sb, "%s ", id);
		node_label(h, h->aroot, &sb);
		meta_str(t, "analysis_root", sb.buf, sb.len);
	}
	sbuf_reset(&sb);
	for (size_t i = 0; i < h->nignored; i++) {
		node_id_text(h, h->ignored[i].src, id, sizeof id);
		sbuf_printf(&sb, "%s%s .", i ? "; " : "", id);
		ref_labels(h, h->ignored[i].src, h->ignored[i].dst, ", .", &sb);
		node_id_text(h, h->ignored[i].dst, id, sizeof id);
		sbuf_printf(&sb, " -> %s", id);
	}
	if (h->nignored > 0)
		meta_str(t, "references_left_out", sb.buf, sb.len);
	sbuf_free(&sb);
}

void report_info(const struct heap *h, const struct info_view *v, enum fmt f, struct sbuf *out)
{
	static const struct col cols[] = {
		{ "root_kind", "GC roots by kind", COL_STR, 0 },
		{ "records", "records", COL_NUM, 0 },
		{ "objects", "objects", COL_NUM, 0 },
	};
	const struct jvm_layout *l = &h->layout;
	struct table t;

	table_init(&t, f, "info", cols, 3);
	meta_strs(&t, "dump", h->path);
	meta_str(&t, "format", h->version, strnlen(h->version, sizeof h->version));
	if (heap_knows_layout(h)) /* HPROF's; the other formats' ids are 8 bytes, or numbers */
		meta_num(&t, "id_size", l->idsize);
	if (h->timestamp_ms != 0) /* 0: not known (V8 snapshots but heapwalk's, a .gcdump without its time), never 1970 */
		meta_num(&t, "timestamp_ms", h->timestamp_ms);
	if (f == FMT_TEXT) {
		time_t secs = (time_t)(h->timestamp_ms / 1000);
		struct tm tm;
		char when[64];
		if (h->timestamp_ms == 0) /* V8 snapshots but heapwalk's, a .gcdump without its time */
			meta_strs(&t, "dumped_at", "unknown");
		else if (gmtime_r(&secs, &tm) && strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm))
			meta_strs(&t, "dumped_at", when);
	}
	if (h->nsnaps > 0) /* one heap of several: which, and the others */
		meta_snaps(&t, h, f);
	meta_num(&t, "objects", h->n - 1);
	meta_bytes(&t, "heap_bytes", h->total_shallow);
	meta_num(&t, "classes", h->ncls);
	/* as the dump has them; those left out are listed apart
	 * (references_left_out) */
	meta_num(&t, "references", heap_strong_refs(h));
	meta_num(&t, "weak_references", heap_weak_refs(h));
	meta_num(&t, "dangling_references", h->dangling_refs);
	meta_num(&t, "dangling_expected", h->dangling_expected);
	meta_num(&t, "set_objects", v->set_count);
	meta_bytes(&t, "set_bytes", v->set_shallow);
	meta_focus(&t, h);
	if (v->sizes) { /* --deep */
		meta_num(&t, "set_retained_objects", v->retained_count);
		meta_bytes(&t, "set_retained_bytes", v->retained_bytes);
		meta_num(&t, "set_deep_objects", v->deep_count);
		meta_bytes(&t, "set_deep_bytes", v->deep_bytes);
	}
	/* the JVM's layout, where the format tells one (the others give
	 * each object's size as it is) */
	if (heap_knows_layout(h)) {
		meta_bool(&t, "compressed_oops", l->compressed_oops);
		meta_bool(&t, "compressed_class_pointers", l->compressed_class_ptrs);
		meta_num(&t, "object_header", l->header);
		meta_num(&t, "array_header", l->array_header);
		meta_num(&t, "alignment", l->align);
		meta_bool(&t, "layout_detected", l->detected != 0);
		meta_strs(&t, "layout_source", l->detected == 2 ? "agent" : l->detected ? "addresses" : "assumed");
	}
	meta_bool(&t, "stable_ids", heap_ids_stable(h));
	if (h->agent.present) {
		char sess[24];
		snprintf(sess, sizeof sess, "%016llx", (unsigned long long)h->agent.session);
		meta_strs(&t, "agent_session", sess);
		meta_num(&t, "agent_pid", h->agent.pid);
		meta_num(&t, "marks", h->agent.marks);
		meta_num(&t, "mark_watermark", h->agent.watermark);
	}
	if (heap_knows_layout(h)) {
		meta_num(&t, "layout_objects_checked", l->checked);
		meta_num(&t, "layout_objects_exact", l->exact);
	}
	meta_num(&t, "gc_root_objects", v->gc_root_objects);
	meta_num(&t, "unreachable_objects", h->unreachable_count);
	meta_bytes(&t, "unreachable_bytes", h->unreachable_bytes);
	meta_bool(&t, "unreachable_kept", h->keep_unreachable);
	meta_num(&t, "weakly_reachable_objects", h->weakonly_count);
	meta_bytes(&t, "weakly_reachable_bytes", h->weakonly_bytes);
	meta_num(&t, "warnings", v->warnings);
	/* the warnings themselves (kept escaped): a JSON list, text a line each */
	if (f == FMT_JSON) {
		sbuf_adds(&t.json, "\"warning_messages\":[");
		for (size_t i = 0; i < h->warn.n; i++) {
			sbuf_adds(&t.json, i ? ",\"" : "\"");
			json_append(&t.json, (const uint8_t *)h->warn.msg[i], strlen(h->warn.msg[i]));
			sbuf_addc(&t.json, '"');
		}
		sbuf_adds(&t.json, "],");
	} else if (f == FMT_TEXT) {
		for (size_t i = 0; i < h->warn.n; i++)
			meta_text(&t, "warning", xstrdup(h->warn.msg[i]));
	}
	if (h->baseline != NULL)
		meta_baseline(&t, h, "baseline", 1);
	if (heap_knows_layout(h)) { /* sizes inferred from the JVM's layout */
		const char **names = xmalloc((v->nestimated + 1) * sizeof *names);
		for (size_t i = 0; i < v->nestimated; i++)
			names[i] = class_name(h, v->estimated[i]);
		meta_list(&t, "estimated_size_classes", names, v->nestimated);
		free(names);
	}
	if (h->truncated_at > 0) /* the dump ends inside what it was writing */
		meta_num(&t, "truncated_at", h->truncated_at);
	if (h->dump_gc_ns > 0) {
		meta_num(&t, "dump_gc_us", h->dump_gc_ns / 1000);
		meta_num(&t, "dump_pause_us", h->dump_pause_ns / 1000);
	}
	/* the set by generation: JSON a list, text a line each */
	if (f == FMT_JSON && v->ngens > 0) {
		sbuf_adds(&t.json, "\"generations\":[");
		for (unsigned g = 0; g < v->ngens; g++)
			sbuf_printf(&t.json, "%s{\"generation\":\"%s\",\"objects\":%llu,\"bytes\":%llu}", g ? "," : "",
				    heap_gen_name(h, g), (unsigned long long)v->gens[g].objects,
				    (unsigned long long)v->gens[g].bytes);
		sbuf_adds(&t.json, "],");
	} else if (f == FMT_TEXT) {
		for (unsigned g = 0; g < v->ngens; g++) {
			char hb[32];
			fmt_bytes(hb, sizeof hb, v->gens[g].bytes);
			meta_text(&t, "generation", xasprintf("%-5s %llu objects, %llu bytes (%s)", heap_gen_name(h, g),
							      (unsigned long long)v->gens[g].objects,
							      (unsigned long long)v->gens[g].bytes, hb));
		}
	}
	for (size_t i = 0; i < v->nroots; i++) {
		struct sbuf name;
		sbuf_init(&name);
		/* the engine's pseudo roots under an analysis root: of what it
		 * does not reach (as the merged views name them) */
		if (h->aroot != 0 && (v->roots[i].kind == RK_WEAK_ONLY || v->roots[i].kind == RK_UNREACHABLE))
			sbuf_adds(&name, "not the analysis root's: ");
		heap_root_kind(h, v->roots[i].kind, v->roots[i].native, &name);
		table_row(&t, CS(name.buf), CN(v->roots[i].records), CN(v->roots[i].objects));
		sbuf_free(&name);
	}
	table_end(&t, out);
}

/* ---- classes ---- */

/* A class row's cell of a column of the class histogram's schema. */
static struct cell class_cell(const struct heap *h, const struct class_view *v, const struct class_row *r,
			      const struct class_col *cc, const struct sbuf *gens)
{
	switch (cc->fig) {
	case CFIG_NAME: return CS(class_name(h, r->cls));
	case CFIG_COUNT: return CN(r->count);
	case CFIG_SHALLOW: return cc->unit == CU_PCT ? CP(pct(r->shallow, v->set_shallow)) : CB(r->shallow);
	case CFIG_RETAINED_LB: return CB(r->retained_lb);
	case CFIG_RETAINED_EXACT: return r->retained_exact == RETAINED_NONE ? CNULL : CB(r->retained_exact);
	case CFIG_GENS: return CSB(gens);
	default: return CNULL; /* the browser's figures */
	}
}

static const struct heap *cmp_heap; /* shared_names' sort */

static int cmp_class_name(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int c = strcmp(class_name(cmp_heap, x), class_name(cmp_heap, y));

	return c != 0 ? c : x < y ? -1 : x > y;
}

/* Per class: is its name another class's too (a JVM class that two
 * loaders define)? NULL when no name is. */
static uint8_t *shared_names(const struct heap *h)
{
	uint32_t *ix = xmalloc(((size_t)h->ncls + 1) * sizeof *ix);
	uint8_t *dup = NULL;

	for (uint32_t c = 0; c < h->ncls; c++)
		ix[c] = c;
	cmp_heap = h;
	hw_qsort(ix, h->ncls, sizeof *ix, cmp_class_name);
	for (uint32_t i = 1; i < h->ncls; i++)
		if (strcmp(class_name(h, ix[i - 1]), class_name(h, ix[i])) == 0) {
			if (dup == NULL)
				dup = xcalloc((size_t)h->ncls + 1, 1);
			dup[ix[i - 1]] = dup[ix[i]] = 1;
		}
	free(ix);
	return dup;
}

void report_classes(const struct heap *h, const struct class_view *v, enum fmt f, struct sbuf *out)
{
	static const enum coltype types[] = { [CU_TEXT] = COL_STR, [CU_COUNT] = COL_NUM, [CU_BYTES] = COL_BYTES,
					      [CU_PCT] = COL_PCT, [CU_GENS] = COL_STR };
	const struct class_col *cc[CC_MAX];
	struct col cols[CC_MAX];
	struct cell cells[CC_MAX];
	int n = (int)classcols_of(CC_REPORT, cc);
	struct table t;
	struct sbuf gens;

	for (int c = 0; c < n; c++)
		cols[c] = (struct col){ cc[c]->key, cc[c]->head, types[cc[c]->unit], cc[c]->where & CC_TEXT ? CF_TEXT : 0 };
	table_init(&t, f, "classes", cols, n);
	meta_cut(&t, h);
	for (int c = 0; c < n; c++) /* the exact sizes with --exact, generations where the dump tells them */
		if ((cc[c]->fig == CFIG_RETAINED_EXACT && !v->exact) || (cc[c]->fig == CFIG_GENS && !v->gens))
			t.hide |= 1u << c;
	meta_identity(&t, h);
	meta_num(&t, "objects", v->set_count);
	meta_bytes(&t, "shallow", v->set_shallow);
	meta_num(&t, "classes", v->matched);
	meta_num(&t, "shown", v->n);
	if (f == FMT_TEXT)
		meta_strs(&t, "retained>=", "a lower bound: the retained sizes of the instances "
			  "that no other instance of their class dominates");
	sbuf_init(&gens);
	/* a name two classes have (two loaders'): each row says its class
	 * object, as a step's `object ID` names it */
	uint8_t *dup = shared_names(h);
	struct sbuf named;
	sbuf_init(&named);
	for (size_t i = 0; i < v->n; i++) {
		const struct class_row *r = &v->rows[i];
		sbuf_reset(&gens);
		class_gens_text(h, r->gens, &gens);
		for (int c = 0; c < n; c++) {
			cells[c] = class_cell(h, v, r, cc[c], &gens);
			if (cc[c]->fig == CFIG_NAME && dup != NULL && r->cls < h->ncls && dup[r->cls] &&
			    h->cls[r->cls].id != 0) {
				sbuf_reset(&named);
				sbuf_printf(&named, "%s (class 0x%llx)", class_name(h, r->cls),
					    (unsigned long long)h->cls[r->cls].id);
				cells[c] = CSB(&named);
			}
		}
		table_cells(&t, cells);
	}
	sbuf_free(&named);
	free(dup);
	sbuf_free(&gens);
	table_end(&t, out);
}

/* ---- diff ---- */

/* The place of the column named key among n. */
static int col_index(const struct col *cols, int n, const char *key)
{
	int i = 0;
	while (i < n && strcmp(cols[i].key, key) != 0)
		i++;
	return i;
}

/* A dump's path, and for a file of heapshots which one, as the command
 * line names it (PATH:N). */
static void meta_dump(struct table *t, const char *key, const struct heap *h)
{
	char *s = heap_dump_name(h);

	meta_strs(t, key, s);
	free(s);
}

void report_diff(const struct heap *old, const struct heap *h, const struct diff_view *v, size_t top,
		 enum fmt f, struct sbuf *out)
{
	static const struct col cols[] = {
		{ "class", "class", COL_STR, 0 },
		{ "instances_before", "before", COL_NUM, 0 },
		{ "instances", "now", COL_NUM, 0 },
		{ "instances_delta", "+/-", COL_DNUM, 0 },
		{ "bytes_before", "bytes before", COL_BYTES, 0 },
		{ "bytes", "bytes now", COL_BYTES, 0 },
		{ "bytes_delta", "+/- bytes", COL_DBYTES, 0 },
		{ "new", "new", COL_NUM, 0 },
		{ "new_bytes", "new bytes", COL_BYTES, 0 },
		{ "gone", "gone", COL_NUM, 0 },
		{ "gone_bytes", "gone bytes", COL_BYTES, 0 },
		{ "unidentified_before", "not id'd before", COL_NUM, 0 },
		{ "unidentified", "not id'd now", COL_NUM, 0 },
		{ "unexplained", "unexplained", COL_DNUM, 0 },
	};
	struct table t;
	/* without identity, the class deltas alone (up to new); with it, new
	 * and gone; the unidentified columns when some are */
	int ncols = (int)(sizeof cols / sizeof cols[0]);
	if (!v->have_identity)
		ncols = col_index(cols, ncols, "new");
	else if (!v->have_unknown && !v->unexplained)
		ncols = col_index(cols, ncols, "unidentified_before");

	table_init(&t, f, "diff", cols, ncols);
	meta_dump(&t, "baseline", old);
	if (old->truncated_at > 0) /* either cut short: its counts are of part of a heap */
		meta_num(&t, "baseline_truncated_at", old->truncated_at);
	meta_dump(&t, "dump", h);
	meta_cut(&t, h);
	meta_num(&t, "objects_before", v->old_objects);
	meta_bytes(&t, "bytes_before", v->old_total);
	meta_num(&t, "objects", v->objects);
	meta_bytes(&t, "bytes", v->total);
	if (h->baseline != NULL) {
		meta_baseline(&t, h, "identity", 0);
		if (v->have_identity)
			meta_num(&t, "unexplained_classes", v->unexplained);
	} else {
		struct sbuf why;
		sbuf_init(&why);
		sbuf_printf(&why, "none: class deltas only (%s)",
			    v->no_identity != NULL ? v->no_identity : "the dumps carry no stable ids");
		meta_str(&t, "identity", why.buf, why.len);
		sbuf_free(&why);
	}
	size_t shown = top != 0 && top < v->n ? top : v->n; /* the rows come largest growth first */
	meta_num(&t, "classes", v->n);
	meta_num(&t, "shown", shown);
	for (size_t i = 0; i < shown; i++) {
		const struct class_delta *r = &v->rows[i];
		table_row(&t, CS(r->name), CN(r->old_count), CN(r->count), CD(r->count, r->old_count),
			  CB(r->old_bytes), CB(r->bytes), CDB(r->bytes, r->old_bytes),
			  CN(r->new_count), CB(r->new_bytes), CN(r->gone_count), CB(r->gone_bytes),
			  CN(r->unknown_old), CN(r->unknown), CD(r->unexplained, 0));
	}
	table_end(&t, out);
}

/* ---- biggest ---- */

/* A String's text for a value column, or null. */
static struct cell string_cell(const struct heap *h, node_t v, struct sbuf *sb, size_t max)
{
	sbuf_reset(sb);
	if (node_string(h, v, sb, max) != 0) /* none, or no text of its own */
		return CNULL;
	return CSB(sb);
}

void report_biggest(const struct heap *h, const struct big_view *v, enum fmt f, struct sbuf *out)
{
	static const struct col cols[] = {
		{ "depth", "depth", COL_NUM, CF_DATA },
		{ "id", "id", COL_STR, 0 },
		{ "object", "object", COL_STR, 0 },
		{ "shallow", "shallow", COL_BYTES, 0 },
		{ "retained", "retained", COL_BYTES, 0 },
		{ "parent_pct", "%", COL_PCT, CF_TEXT },
		{ "count", "count", COL_NUM, CF_DATA },
		{ "largest", "largest", COL_NUM, CF_DATA },
		{ "value", "value", COL_STR, 0 },
	};
	struct sbuf label, val;
	struct table t;
	char id[32], hb[32];

	sbuf_init(&label);
	sbuf_init(&val);
	table_init(&t, f, "biggest", cols, 9);
	meta_cut(&t, h);
	meta_identity(&t, h);
	meta_num(&t, "objects", v->set_count);
	meta_bytes(&t, "shallow", v->set_shallow);
	meta_num(&t, "top_level", v->top_level);
	meta_bytes(&t, "heap_bytes", v->heap_bytes);
	for (size_t i = 0; i < v->n; i++) {
		const struct big_row *r = &v->rows[i];
		sbuf_reset(&label);
		for (unsigned d = 0; f == FMT_TEXT && d < r->depth; d++)
			sbuf_adds(&label, "  ");
		if (r->node == HW_NONE) {
			sbuf_printf(&label, "%llu more object%s", (unsigned long long)r->count, r->count == 1 ? "" : "s");
			if (f == FMT_TEXT) {
				fmt_bytes(hb, sizeof hb, r->largest);
				sbuf_printf(&label, ", largest %s", hb);
			}
			table_row(&t, CN(r->depth), CNULL, CSB(&label), CB(r->shallow), CB(r->retained),
				  CP(pct(r->retained, r->parent)), CN(r->count), CN(r->largest), CNULL);
			continue;
		}
		node_label(h, r->node, &label);
		node_id_text(h, r->node, id, sizeof id);
		table_row(&t, CN(r->depth), CS(id), CSB(&label), CB(r->shallow), CB(r->retained),
			  CP(pct(r->retained, r->parent)), CN(r->count), CN(r->largest),
			  string_cell(h, r->node, &val, 60));
	}
	table_end(&t, out);
	sbuf_free(&label);
	sbuf_free(&val);
}

/* ---- objects ---- */

void report_objects(const struct heap *h, const struct objects_view *v, enum fmt f, struct sbuf *out)
{
	static const struct col cols[] = {
		{ "id", "id", COL_STR, 0 },
		{ "class", "class", COL_STR, 0 },
		{ "shallow", "shallow", COL_BYTES, 0 },
		{ "retained", "retained", COL_BYTES, 0 },
		{ "value", "value", COL_STR, 0 },
	};
	struct sbuf label, val;
	struct table t;
	char id[32];

	sbuf_init(&label);
	sbuf_init(&val);
	table_init(&t, f, "objects", cols, 5);
	meta_cut(&t, h);
	meta_identity(&t, h);
	meta_num(&t, "objects", v->set_count);
	meta_bytes(&t, "shallow", v->set_shallow);
	meta_num(&t, "shown", v->n);
	for (size_t i = 0; i < v->n; i++) {
		node_t x = v->nodes[i];
		sbuf_reset(&label);
		node_label(h, x, &label);
		node_id_text(h, x, id, sizeof id);
		table_row(&t, CS(id), CSB(&label), CB(h->node_shallow[x]), CB(h->retained[x]),
			  string_cell(h, x, &val, 200));
	}
	table_end(&t, out);
	sbuf_free(&label);
	sbuf_free(&val);
}

/* ---- paths ---- */

void report_paths(const struct heap *h, const struct path_view *v, enum fmt f, struct sbuf *out)
{
	static const struct col cols[] = {
		{ "path", "path", COL_NUM, 0 },
		{ "step", "step", COL_NUM, 0 },
		{ "id", "id", COL_STR, 0 },
		{ "object", "object", COL_STR, 0 },
		{ "via", "via", COL_STR, 0 },
		{ "root", "GC root", COL_STR, 0 },
		{ "value", "value", COL_STR, 0 }, /* a string's, a V8 root group's name */
	};
	struct sbuf label, via, root, val;
	struct table t;
	char id[32];

	if (f == FMT_DOT) {
		dot_paths(h, v, out);
		return;
	}
	sbuf_init(&label);
	sbuf_init(&via);
	sbuf_init(&root);
	sbuf_init(&val);
	table_init(&t, f, "paths", cols, 7);
	meta_cut(&t, h);
	meta_identity(&t, h);
	node_id_text(h, v->target, id, sizeof id);
	meta_strs(&t, "object", id);
	sbuf_reset(&label);
	node_label(h, v->target, &label);
	meta_str(&t, "class", label.buf, label.len);
	meta_bool(&t, "weak_references_followed", v->weak);
	meta_num(&t, "paths", v->npaths);
	if (v->npaths == 0) /* say why */
		meta_reach(&t, h, v->pseudo, "only through weak references (--weak shows them)");
	uint64_t left = 0;
	for (size_t p = 0; v->ends > 0 && p < v->npaths; p++)
		if (v->start[p + 1] - v->start[p] > 2 * v->ends)
			left += v->start[p + 1] - v->start[p] - 2 * v->ends;
	if (left > 0) {
		sbuf_reset(&label);
		sbuf_printf(&label, "each path's first and last %zu steps: %llu steps left out, a row says where",
			    v->ends, (unsigned long long)left);
		meta_str(&t, "steps_left_out", label.buf, label.len);
	}
	for (size_t p = 0; p < v->npaths; p++)
		for (size_t s = v->start[p]; s < v->start[p + 1]; s++) {
			size_t len = v->start[p + 1] - v->start[p];
			if (v->ends > 0 && len > 2 * v->ends && s == v->start[p] + v->ends) { /* the middle: one row */
				sbuf_reset(&label);
				sbuf_printf(&label, "(%zu steps left out)", len - 2 * v->ends);
				table_row(&t, CN(p + 1), CN(s - v->start[p]), CNULL, CSB(&label), CNULL, CNULL, CNULL);
				s = v->start[p + 1] - v->ends - 1;
				continue;
			}
			node_t x = v->nodes[s];
			int has_next = s + 1 < v->start[p + 1];
			sbuf_reset(&label);
			sbuf_reset(&via);
			sbuf_reset(&root);
			node_label(h, x, &label);
			if (has_next)
				edge_label(h, x, v->nodes[s + 1], &via);
			if (has_next && v->hop != NULL && v->hop[s] >= 0) { /* as the Incoming view says it */
				sbuf_adds(&via, " (");
				weak_hop_why(h, v->hop[s], &via);
				sbuf_addc(&via, ')');
			}
			if (s == v->start[p])
				root_label(h, x, &root);
			node_id_text(h, x, id, sizeof id);
			table_row(&t, CN(p + 1), CN(s - v->start[p]), CS(id), CSB(&label),
				  has_next ? CSB(&via) : CNULL, s == v->start[p] ? CSB(&root) : CNULL,
				  string_cell(h, x, &val, 60));
		}
	table_end(&t, out);
	sbuf_free(&label);
	sbuf_free(&via);
	sbuf_free(&root);
	sbuf_free(&val);
}

/* ---- lifelines ---- */

void report_lifelines(const struct heap *h, const struct lifeline_view *v, enum fmt f, struct sbuf *out)
{
	static const struct col cols[] = {
		{ "lifeline", "lifeline", COL_NUM, 0 },
		{ "paths", "paths", COL_NUM, 0 },
		{ "step", "step", COL_NUM, 0 },
		{ "object", "object", COL_STR, 0 },
		{ "via", "via", COL_STR, 0 },
		{ "times", "times", COL_STR, 0 },
		{ "end", "ends at", COL_STR, 0 },
	};
	struct sbuf label, times, end;
	struct table t;
	char id[32];

	sbuf_init(&label);
	sbuf_init(&times);
	sbuf_init(&end);
	table_init(&t, f, "lifelines", cols, 7);
	meta_cut(&t, h);
	meta_identity(&t, h);
	node_id_text(h, v->target, id, sizeof id);
	meta_strs(&t, "object", id);
	node_label(h, v->target, &label);
	meta_str(&t, "class", label.buf, label.len);
	meta_num(&t, "lifelines", v->n);
	meta_num(&t, "paths", v->paths);
	if (v->limited) { /* say that the counts are short */
		sbuf_reset(&end);
		sbuf_printf(&end, "stopped after %llu paths (--max): counts are lower bounds",
			    (unsigned long long)v->max);
		meta_str(&t, "limit", end.buf, end.len);
	}
	if (v->n == 0)
		meta_reach(&t, h, v->pseudo, "only through weak references");
	for (size_t i = 0; i < v->n; i++) {
		const struct lifeline *l = &v->ll[i];
		sbuf_reset(&end);
		if (l->end != LE_ROOT)
			sbuf_adds(&end, "owned: ");
		else if (h->aroot == 0) /* an analysis root: its own words, as paths give them */
			sbuf_adds(&end, "GC root: ");
		sbuf_adds(&end, v->strs[l->end_what]);
		for (size_t s = 0; s < l->n; s++) {
			const struct lifeline_step *st = &v->steps[l->first + s];
			sbuf_reset(&times);
			if (st->min == st->max)
				sbuf_printf(&times, "%llu", (unsigned long long)st->min);
			else
				sbuf_printf(&times, "%llu-%llu", (unsigned long long)st->min, (unsigned long long)st->max);
			table_row(&t, CN(i + 1), CN(l->count), CN(s), CS(v->strs[st->holder]), CS(v->strs[st->field]),
				  CSB(&times), s == 0 ? CSB(&end) : CNULL);
		}
		sbuf_reset(&label);
		node_label(h, v->target, &label);
		table_row(&t, CN(i + 1), CN(l->count), CN(l->n), CSB(&label), CNULL, CNULL,
			  l->n == 0 ? CSB(&end) : CNULL);
	}
	table_end(&t, out);
	sbuf_free(&label);
	sbuf_free(&times);
	sbuf_free(&end);
}

/* ---- allocations ---- */

struct alloc_out {
	struct table *t;
	const struct heap *h;
	const struct alloc_view *v;
	const char *tree;
	int depth;
	double cutoff;
	enum fmt f;
	struct sbuf label;
};

static void alloc_rows(struct alloc_out *o, const struct alloc_tree *t, uint32_t i, int depth, size_t top)
{
	const struct alloc_node *n = &t->n[i];

	for (uint32_t k = 0; k < n->nkids && (top == 0 || k < top); k++) {
		const struct alloc_node *c = &t->n[t->kid[n->kids + k]];
		if (depth > 0 && pct(c->bytes, o->v->traced_bytes) < o->cutoff)
			break; /* biggest first: the rest are smaller */
		sbuf_reset(&o->label);
		struct sbuf raw;
		sbuf_init(&raw);
		frame_label(o->h, c->frame, &raw);
		for (int d = 0; o->f == FMT_TEXT && d < depth; d++)
			sbuf_adds(&o->label, "  ");
		sbuf_add(&o->label, raw.buf, raw.len);
		sbuf_free(&raw);
		table_row(o->t, CS(o->tree), CN(depth), CN(c->count), CB(c->bytes),
			  CP(pct(c->bytes, o->v->traced_bytes)), CSB(&o->label));
		if (depth + 1 < o->depth)
			alloc_rows(o, t, t->kid[n->kids + k], depth + 1, 0);
	}
}

void report_allocations(const struct heap *h, const struct alloc_view *v, size_t top, int depth,
			double cutoff, enum fmt f, struct sbuf *out)
{
	static const struct col cols[] = {
		{ "tree", "tree", COL_STR, 0 },
		{ "depth", "depth", COL_NUM, CF_DATA },
		{ "objects", "objects", COL_NUM, 0 },
		{ "bytes", "bytes", COL_BYTES, 0 },
		{ "pct", "%", COL_PCT, 0 },
		{ "frame", "frame", COL_STR, 0 },
	};
	struct table t;
	struct alloc_out o = { &t, h, v, "hot", depth, cutoff, f, { 0 } };

	sbuf_init(&o.label);
	table_init(&t, f, "allocations", cols, 6);
	meta_cut(&t, h);
	meta_identity(&t, h);
	meta_num(&t, "objects", v->set_count);
	meta_bytes(&t, "shallow", v->set_shallow);
	meta_num(&t, "traced_objects", v->traced_count);
	meta_bytes(&t, "traced_bytes", v->traced_bytes);
	meta_num(&t, "traces", v->traces);
	if (v->traced_count == 0) {
		struct sbuf why;
		sbuf_init(&why);
		sbuf_printf(&why, "no object of the set has an allocation trace: %s (heapwalk(1))",
			    heap_alloc_hint(h));
		meta_strs(&t, "note", why.buf);
		sbuf_free(&why);
	}
	alloc_rows(&o, &v->hot, 0, 0, top);
	o.tree = "calls";
	alloc_rows(&o, &v->calls, 0, 0, top);
	table_end(&t, out);
	sbuf_free(&o.label);
}

/* ---- allocation times ---- */

void report_times(const struct heap *h, const struct time_view *v, enum fmt f, struct sbuf *out)
{
	static const struct col cols[] = {
		{ "from", "from s", COL_STR, CF_TEXT },
		{ "to", "to s", COL_STR, CF_TEXT },
		{ "from_ms", "from_ms", COL_NUM, CF_DATA },
		{ "to_ms", "to_ms", COL_NUM, CF_DATA },
		{ "objects", "objects", COL_NUM, 0 },
		{ "bytes", "bytes", COL_BYTES, 0 },
		{ "pct", "%", COL_PCT, 0 },
		{ "bar", "", COL_STR, CF_TEXT },
	};
	struct table t;
	struct sbuf from, to, bar;
	uint64_t most = 1;

	table_init(&t, f, "times", cols, 8);
	meta_cut(&t, h);
	meta_identity(&t, h);
	meta_num(&t, "objects", v->set_count);
	meta_bytes(&t, "shallow", v->set_shallow);
	meta_num(&t, "timed_objects", v->timed_count);
	meta_bytes(&t, "timed_bytes", v->timed_bytes);
	if (v->timed_count == 0) {
		struct sbuf why;
		sbuf_init(&why);
		time_none_note(h, v, &why);
		meta_strs(&t, "note", why.buf);
		sbuf_free(&why);
	} else {
		meta_strs(&t, "time_origin", v->origin);
		if (v->origin_ms)
			meta_num(&t, "time_origin_ms", v->origin_ms);
		meta_num(&t, "first_ms", v->first);
		meta_num(&t, "last_ms", v->last);
		meta_num(&t, "bucket_ms", v->width);
	}
	sbuf_init(&from);
	sbuf_init(&to);
	sbuf_init(&bar);
	for (size_t k = 0; k < v->nb; k++)
		most = v->b[k].count > most ? v->b[k].count : most;
	for (size_t k = 0; k < v->nb; k++) {
		const struct time_bucket *b = &v->b[k];
		sbuf_reset(&from);
		sbuf_reset(&to);
		sbuf_reset(&bar);
		time_seconds(b->from, &from);
		time_seconds(b->to, &to);
		for (uint64_t i = 0; i < (b->count * 20 + most - 1) / most; i++) /* 20 wide, of the fullest */
			sbuf_addc(&bar, '#');
		table_row(&t, CSB(&from), CSB(&to), CN(b->from), CN(b->to), CN(b->count), CB(b->bytes),
			  CP(pct(b->count, v->timed_count)), CSB(&bar));
	}
	table_end(&t, out);
	sbuf_free(&from);
	sbuf_free(&to);
	sbuf_free(&bar);
}

/* ---- inspections ---- */

static const char *priority_name(enum insp_priority p)
{
	return p == IP_HIGH ? "high" : p == IP_MEDIUM ? "medium" : "low";
}

void report_inspect(const struct heap *h, const struct inspection *in, const char *arg,
		    const struct insp_result *r, const struct objset *set, size_t top,
		    enum fmt f, struct sbuf *out)
{
	struct col cols[] = {
		{ "group", "#", COL_NUM, 0 },
		{ "priority", "priority", COL_STR, 0 },
		{ "objects", "objects", COL_NUM, 0 },
		{ "shallow", "shallow", COL_BYTES, 0 },
		{ "extra", "extra", COL_NUM, 0 },
		{ "name", "group", COL_STR, 0 },
	};
	struct table t;

	if (in->extra_name != NULL) {
		cols[4].key = cols[4].title = in->extra_name;
		cols[4].type = in->extra_bytes ? COL_BYTES : COL_NUM;
	}
	table_init(&t, f, "inspect", cols, 6);
	meta_cut(&t, h);
	meta_identity(&t, h);
	meta_strs(&t, "inspection", in->name);
	if (arg != NULL)
		meta_str(&t, "argument", arg, strlen(arg));
	meta_strs(&t, "category", in->category);
	meta_strs(&t, "title", in->title);
	meta_num(&t, "objects", set->count);
	meta_bytes(&t, "shallow", set->shallow);
	meta_num(&t, "examined", r->examined);
	if (r->note != NULL)
		meta_strs(&t, "note", r->note);
	meta_num(&t, "groups", r->n);
	size_t shown = top > 0 && top < r->n ? top : r->n;
	meta_num(&t, "shown", shown);
	/* the groups together: each object once (groups may overlap) */
	meta_num(&t, "total_objects", r->total.count);
	meta_bytes(&t, "total_shallow", r->total.shallow);
	if (in->extra_name != NULL) {
		char key[64];
		snprintf(key, sizeof key, "total_%s", in->extra_name);
		if (in->extra_bytes)
			meta_bytes(&t, key, r->total.extra);
		else
			meta_num(&t, key, r->total.extra);
	}
	meta_bool(&t, "groups_overlap", r->total.overlap);
	if (r->cancelled)
		meta_bool(&t, "cancelled", 1);
	for (size_t i = 0; i < shown; i++) {
		const struct insp_group *g = &r->g[i];
		struct cell ex = in->extra_name == NULL ? CNULL
				 : in->extra_bytes ? CB(g->extra) : CN(g->extra);
		table_row(&t, CN(i + 1), CS(priority_name(g->priority)), CN(g->count), CB(g->shallow),
			  ex, CS(g->name));
	}
	table_end(&t, out);
}

void report_inspect_list(enum fmt f, struct sbuf *out)
{
	static const struct col cols[] = {
		{ "name", "name", COL_STR, 0 },
		{ "category", "category", COL_STR, 0 },
		{ "argument", "argument", COL_STR, 0 },
		{ "title", "title", COL_STR, 0 },
		{ "runs_on", "runs on", COL_STR, 0 },
	};
	struct table t;
	size_t n;
	const struct inspection *in = inspect_all(&n);

	table_init(&t, f, "inspections", cols, 5);
	meta_num(&t, "inspections", n);
	struct sbuf on;
	sbuf_init(&on);
	for (size_t i = 0; i < n; i++) {
		const char *rt = inspect_runtime_words(&in[i]);
		sbuf_reset(&on);
		if (rt != NULL)
			sbuf_printf(&on, "%s only", rt);
		else if (in[i].reads_strings)
			sbuf_adds(&on, "every heap with strings' text");
		else
			sbuf_adds(&on, "every heap");
		table_row(&t, CS(in[i].name), CS(in[i].category),
			  in[i].arg ? CS(in[i].arg) : CNULL, CS(in[i].title), CSB(&on));
	}
	sbuf_free(&on);
	table_end(&t, out);
}

/* ---- merged references ---- */

void report_merged(const struct heap *h, const char *view, const struct merged_tree *v,
		   enum fmt f, struct sbuf *out)
{
	static const struct col cols[] = {
		{ "depth", "depth", COL_NUM, CF_DATA },
		{ "group", "group", COL_STR, CF_TEXT },
		{ "class", "class", COL_STR, CF_DATA },
		{ "field", "field", COL_STR, CF_DATA },
		{ "collection", "collection", COL_NUM, CF_DATA },
		{ "objects", "objects", COL_NUM, 0 },
		{ "shallow", "shallow", COL_BYTES, 0 },
		{ "reached", "reached", COL_NUM, 0 },
		{ "chain", "chain", COL_NUM, 0 },
		{ "weak", "weak", COL_NUM, CF_DATA },
		{ "not_owning", "not_owning", COL_NUM, CF_DATA },
		{ "root", "root", COL_STR, CF_DATA },
	};
	static const char *const kinds[] = { "outgoing", "incoming", "dominating" };
	struct sbuf label;
	struct table t;

	if (f == FMT_DOT) {
		dot_merged(h, view, v, out);
		return;
	}
	sbuf_init(&label);
	table_init(&t, f, view, cols, (int)(sizeof cols / sizeof cols[0]));
	meta_cut(&t, h);
	meta_identity(&t, h);
	meta_strs(&t, "references", kinds[v->kind]);
	meta_strs(&t, "by", v->by == MG_BY_FIELD ? "field" : "class");
	meta_bool(&t, "reverse", v->reverse);
	meta_num(&t, "objects", v->set_count);
	meta_bytes(&t, "shallow", v->set_shallow);
	meta_num(&t, "groups", v->top_groups);
	meta_num(&t, "shown", v->top_shown);
	if (v->kind == MG_INCOMING) {
		meta_bool(&t, "weak_shown", v->weak);
		meta_num(&t, "weak_held", v->weak_members);
		meta_num(&t, "weak_holders", v->weak_holders);
	}
	/* the notes go by every group of the top level, -n cut or not */
	size_t top_root = v->top_root;
	struct sbuf note;
	sbuf_init(&note);
	/* a lone GC roots row says little by itself: say what it means */
	int a = h->aroot != 0; /* the analysis root stands for the GC roots */
	/* the rows of the pseudo roots, said: those of no strong holder */
	struct sbuf none;
	sbuf_init(&none);
	if (v->top_unreachable && a)
		sbuf_printf(&none, "; the analysis root does not reach those of \"%s\": they are outside what "
			    "it holds", merged_cls_name(h, MG_UNREACHABLE));
	else if (v->top_unreachable)
		sbuf_printf(&none, "; the dump's GC roots do not reach those of \"%s\" (garbage, held by roots "
			    "the dump does not record, or by references left out)", merged_cls_name(h, MG_UNREACHABLE));
	if (v->top_weakly)
		sbuf_printf(&none, "; %s reach%s those of \"%s\" through weak references alone",
			    a ? "the analysis root" : "the dump's GC roots", a ? "es" : "", merged_cls_name(h, MG_WEAKLY));
	if (v->reverse) {
		sbuf_adds(&note, a ? "the analysis root to objects: each level the objects one step down the "
				     "dominator tree on the way to the set; reached: the set's objects below"
				   : "GC roots to objects: each level the objects one step down the "
				     "dominator tree on the way to the set; reached: the set's objects below");
		/* the top of the tree holds what the pseudo roots hold too */
		if (v->top_weakly_objs + v->top_unreachable_objs > 0)
			sbuf_printf(&note, "; %llu of the top level's objects %s (%llu reached through weak "
				    "references alone, %llu not reached): the engine's pseudo roots hold them",
				    (unsigned long long)(v->top_weakly_objs + v->top_unreachable_objs),
				    a ? "are not held by the analysis root" : "are held by no GC root",
				    (unsigned long long)v->top_weakly_objs, (unsigned long long)v->top_unreachable_objs);
		meta_strs(&t, "note", note.buf);
	} else if (v->kind == MG_INCOMING && v->top_strong == 0 && v->weak_members > 0) {
		/* no strong holder but the roots: the weak ones are the story */
		const char *also = !top_root ? "" : a ? "the analysis root and " : "GC roots and ";
		sbuf_printf(&note, "only %sweak or soft references refer to the objects of the set: weak ones "
			    "to %llu of them, from %llu objects%s%s", also,
			    (unsigned long long)v->weak_members, (unsigned long long)v->weak_holders,
			    v->weak ? " (the rows marked weak)" : " (--strong left them out)",
			    none.len > 0 ? none.buf : "");
		meta_strs(&t, "note", note.buf);
	} else if (v->top_groups == 1 && top_root == 1)
		meta_strs(&t, "note", v->kind == MG_DOMINATING
			  ? (a ? "no object dominates an object of the set: each is held directly by the analysis root, "
				 "or by several paths from it (reached counts them)"
			       : "no object dominates an object of the set: each is held directly by a GC root, "
				 "or by several paths from the roots (reached counts them)")
			  : (a ? "only the analysis root refers to the objects of the set (reached counts them)"
			       : "only GC roots refer to the objects of the set (reached counts them)"));
	else if (v->top_strong == 0 && v->top_groups == top_root + v->top_weakly + v->top_unreachable &&
		 none.len > 0) {
		/* the engine's pseudo roots' rows, perhaps with the roots' */
		sbuf_printf(&note, "%s%s; reached counts them",
			    v->kind == MG_DOMINATING ? "no object dominates an object of the set"
						     : "no object refers to an object of the set",
			    none.buf);
		meta_strs(&t, "note", note.buf);
	}
	sbuf_free(&none);
	for (size_t i = 0; i < v->n; i++) {
		const struct merged_row *r = &v->rows[i];
		const char *cn = merged_cls_name(h, r->cls);
		sbuf_reset(&label);
		for (unsigned d = 0; d < r->depth; d++)
			sbuf_adds(&label, "  ");
		/* outgoing reads "field -> class", the others "class.field", and a
		 * collection's role "map value of java.util.HashMap" */
		if (r->field != NULL && v->kind == MG_OUTGOING)
			sbuf_printf(&label, "%s -> %s", r->field, cn);
		else if (r->field != NULL && r->coll)
			sbuf_printf(&label, "%s of %s", r->field, cn);
		else if (r->field != NULL)
			sbuf_printf(&label, "%s.%s", cn, r->field);
		else
			sbuf_adds(&label, cn);
		if (r->weak)
			sbuf_adds(&label, r->weak == MG_NOT_OWNING ? " (not owning)" : " (weak)");
		table_row(&t, CN(r->depth), CSB(&label), mg_root_group(r->cls) ? CNULL : CS(cn),
			  CS(r->field), CN(r->coll), CN(r->count), CB(r->shallow), CN(r->nreached),
			  r->chain < 0 ? CNULL : CN(r->chain), CN(r->weak == 1), CN(r->weak == MG_NOT_OWNING),
			  r->cls == MG_ROOT	     ? CS(a ? "analysis" : "gc")
			  : r->cls == MG_WEAKLY	     ? CS("weakly_reachable")
			  : r->cls == MG_UNREACHABLE ? CS("unreachable")
						     : CNULL);
	}
	table_end(&t, out);
	sbuf_free(&label);
	sbuf_free(&note);
}

/* ---- the path between two objects ---- */

static void meta_object(struct table *t, const struct heap *h, const char *key, const char *ckey, node_t x)
{
	struct sbuf label;
	char id[32];

	node_id_text(h, x, id, sizeof id);
	meta_strs(t, key, id);
	sbuf_init(&label);
	node_label(h, x, &label);
	meta_str(t, ckey, label.buf, label.len);
	sbuf_free(&label);
}

void report_between(const struct heap *h, const struct between *b, enum fmt f, struct sbuf *out)
{
	static const char *const kinds[] = { "strong", "weak", "incidental" };
	static const struct col cols[] = {
		{ "step", "step", COL_NUM, 0 },
		{ "id", "id", COL_STR, 0 },
		{ "object", "object", COL_STR, 0 },
		{ "via", "via", COL_STR, 0 },
		{ "direction", "dir", COL_STR, 0 },
		{ "kind", "reference", COL_STR, 0 },
	};
	const struct reach_path *p = &b->path;
	struct sbuf label, via;
	struct table t;
	char id[32];

	sbuf_init(&label);
	sbuf_init(&via);
	table_init(&t, f, "between", cols, 6);
	meta_cut(&t, h);
	meta_identity(&t, h);
	meta_object(&t, h, "from", "from_class", b->from);
	meta_object(&t, h, "to", "to_class", b->to);
	meta_bool(&t, "weak_references_followed", (b->flags & REACH_WEAK) != 0);
	meta_bool(&t, "undirected", (b->flags & REACH_UNDIRECTED) != 0);
	meta_bool(&t, "found", b->found);
	if (b->found) {
		meta_num(&t, "references", p->n - 1);
	} else {
		between_none(h, b, &label);
		meta_str(&t, "path", label.buf, label.len);
	}
	/* hop i, from row i to row i + 1: a field of row i (->), or with
	 * <- one of row i + 1 that refers back to row i */
	for (size_t i = 0; b->found && i < p->n; i++) {
		node_t x = p->nodes[i];
		int hop = i + 1 < p->n;
		sbuf_reset(&label);
		sbuf_reset(&via);
		node_label(h, x, &label);
		if (hop && p->back[i])
			edge_label(h, p->nodes[i + 1], x, &via);
		else if (hop)
			edge_label(h, x, p->nodes[i + 1], &via);
		node_id_text(h, x, id, sizeof id);
		table_row(&t, CN(i), CS(id), CSB(&label), hop ? CSB(&via) : CNULL,
			  hop ? CW(p->back[i] ? "<-" : "->") : CNULL, hop ? CW(kinds[p->kind[i]]) : CNULL);
	}
	table_end(&t, out);
	sbuf_free(&label);
	sbuf_free(&via);
}

/* ---- leaks ---- */

/* "object 0x1,0x2": the step that selects the cluster's members; at
 * most max ids (0: all), then how many there are. */
static void leak_select(const struct heap *h, const struct leak_cluster *c, size_t max, struct sbuf *out)
{
	char id[32];
	size_t n = max > 0 && c->count > max ? max : (size_t)c->count;

	sbuf_adds(out, "object ");
	for (size_t i = 0; i < n; i++) {
		node_id_text(h, c->members[i], id, sizeof id);
		sbuf_printf(out, "%s%s", i ? "," : "", id);
	}
	if (n < c->count)
		sbuf_printf(out, ",... (%llu ids: heapwalk leaks -f json or csv lists them all)",
			    (unsigned long long)c->count);
}

void leaks_meta_of(struct leaks_meta *m, const struct leak_find *lf, const char *base, const char *target,
		   const char *final, size_t max_ids)
{
	*m = (struct leaks_meta){ .identity = lf->identity, .base = base, .target = target, .final = final,
				  .made = lf->made, .still = lf->still, .unidentified = lf->unidentified,
				  .exact = lf->exact, .max_ids = max_ids, .freed = lf->freed,
				  .fate_unknown = lf->fate_unknown, .in_place = lf->in_place };
}

void report_leaks(const struct heap *h, const struct leaks_view *v, const struct leaks_meta *m,
		  enum fmt f, struct sbuf *out)
{
	static const struct col cols[] = {
		{ "cluster", "cluster", COL_NUM, 0 },
		{ "count", "count", COL_NUM, 0 },
		{ "leaked_objects", "leaked", COL_NUM, 0 },
		{ "retained", "retained", COL_BYTES, 0 },
		{ "step", "step", COL_NUM, 0 },
		{ "object", "object", COL_STR, 0 },
		{ "class", "class", COL_STR, 0 },
		{ "via", "via", COL_STR, 0 },
		{ "times", "times", COL_NUM, 0 },
		{ "root", "root", COL_STR, CF_DATA },
		{ "select", "select", COL_STR, CF_DATA },
		{ "end", "GC root / select", COL_STR, CF_TEXT },
	};
	struct sbuf sb;
	struct table t;
	char id[32];

	sbuf_init(&sb);
	table_init(&t, f, "leaks", cols, 12);
	meta_strs(&t, "identity", m->identity);
	meta_strs(&t, "base", m->base);
	meta_strs(&t, "target", m->target);
	meta_strs(&t, "final", m->final);
	meta_num(&t, "made_by_action", m->made);
	meta_num(&t, "freed_since", m->freed);
	if (m->in_place > 0) /* there, in a gone one's place: not leaks themselves */
		meta_num(&t, "made_in_place", m->in_place);
	if (m->fate_unknown > 0) /* neither known gone nor known there: the leaks are at least those below */
		meta_num(&t, "made_fate_unknown", m->fate_unknown);
	meta_num(&t, "leaked_objects", v->leaked);
	meta_bytes(&t, "leaked_bytes", v->leaked_bytes);
	if (v->unreachable > 0) /* garbage, or held through weak references only */
		meta_num(&t, "leaked_not_reached", v->unreachable);
	if (m->unidentified > 0)
		meta_num(&t, "unidentified_left_out", m->unidentified);
	meta_num(&t, "leak_tops", v->tops);
	meta_bytes(&t, "leaked_retained", v->retained);
	meta_num(&t, "clusters", v->n);
	if (v->shown < v->n) {
		sbuf_printf(&sb, "the first %zu of %zu clusters (-n 0: all)", v->shown, v->n);
		meta_str(&t, "shown", sb.buf, sb.len);
	}
	for (size_t i = 0; i < v->shown; i++) {
		const struct leak_cluster *c = &v->cl[i];
		size_t s = 0;
		for (; s < c->nsteps; s++) {
			const struct leak_step *st = &v->steps[c->first + s];
			node_id_text(h, st->node, id, sizeof id);
			table_row(&t, CN(i + 1), CN(c->count), CN(c->objects), CB(c->retained), CN(s), CS(id),
				  CS(v->strs[st->holder]), CS(v->strs[st->field]), CN(st->times),
				  s == 0 ? CS(v->strs[c->root]) : CNULL, CNULL, s == 0 ? CS(v->strs[c->root]) : CNULL);
		}
		if (c->nsteps == 0) { /* the leaked object is a GC root itself */
			node_id_text(h, c->example, id, sizeof id);
			table_row(&t, CN(i + 1), CN(c->count), CN(c->objects), CB(c->retained), CN(0), CS(id),
				  CS(v->strs[c->cls]), CNULL, CNULL, CS(v->strs[c->root]), CNULL, CS(v->strs[c->root]));
			s = 1;
		}
		sbuf_reset(&sb);
		leak_select(h, c, f == FMT_TEXT ? 10 : m->max_ids, &sb);
		node_id_text(h, c->example, id, sizeof id);
		table_row(&t, CN(i + 1), CN(c->count), CN(c->objects), CB(c->retained), CN(s), CS(id),
			  CS(v->strs[c->cls]), CNULL, CNULL, CNULL, CSB(&sb), CSB(&sb));
	}
	table_end(&t, out);
	sbuf_free(&sb);
}

/* ---- a series: what grew every time ---- */

void report_growth(const struct growth *g, const char *const *paths, enum fmt f, struct sbuf *out)
{
	size_t n = g->nsnaps, ncols = n + 4;
	struct col *cols = xcalloc(ncols, sizeof *cols);
	char **keys = xcalloc(2 * n, sizeof *keys);
	struct cell *row = xcalloc(ncols, sizeof *row);
	struct table t;

	cols[0] = (struct col){ "kind", "kind", COL_STR, 0 };
	for (size_t i = 0; i < n; i++) {
		keys[2 * i] = xasprintf("count_%zu", i + 1);
		keys[2 * i + 1] = xasprintf("%zu", i + 1);
		cols[1 + i] = (struct col){ keys[2 * i], keys[2 * i + 1], COL_NUM, 0 };
	}
	cols[n + 1] = (struct col){ "growth", "growth", COL_NUM, 0 };
	cols[n + 2] = (struct col){ "bytes", "bytes (last)", COL_BYTES, 0 };
	cols[n + 3] = (struct col){ "name", "class or cluster (its trace)", COL_STR, 0 };
	table_init(&t, f, "leaks-series", cols, (int)ncols);
	meta_strs(&t, "identity", g->identity != NULL ? g->identity : "");
	meta_list(&t, "snapshots", paths, n);
	meta_num(&t, "grew_every_time", g->n);
	for (size_t r = 0; r < g->n; r++) {
		const struct growth_row *x = &g->rows[r];
		row[0] = CW(x->cluster ? "cluster" : "class");
		for (size_t i = 0; i < n; i++)
			row[1 + i] = CN(x->count[i]);
		row[n + 1] = CN(x->grew);
		row[n + 2] = CB(x->bytes[n - 1]);
		row[n + 3] = CS(x->name);
		table_cells(&t, row);
	}
	table_end(&t, out);
	for (size_t i = 0; i < 2 * n; i++)
		free(keys[i]);
	free(keys);
	free(cols);
	free(row);
}

/* ---- check ---- */

void report_check(const struct chk_rules *rs, const char *dump, const char *rules_file, enum fmt f,
		  struct sbuf *out)
{
	static const struct col cols[] = {
		{ "file", "file", COL_STR, 0 }, /* several --rules: which gate a row is */
		{ "line", "line", COL_NUM, 0 },
		{ "result", "result", COL_STR, 0 },
		{ "measured", "measured", COL_INUM, 0 }, /* whole numbers: counts, bytes */
		{ "op", "op", COL_STR, CF_DATA },
		{ "threshold", "threshold", COL_INUM, CF_DATA },
		{ "rule", "rule", COL_STR, 0 },
		{ "error", "error", COL_STR, CF_DATA },
		{ "note", "note", COL_STR, CF_DATA },
	};
	struct table t;
	size_t failed = 0, errors = 0;

	for (size_t i = 0; i < rs->n; i++) {
		errors += rs->r[i].error != NULL;
		failed += rs->r[i].error == NULL && !rs->r[i].ok;
	}
	table_init(&t, f, "check", cols, 9);
	meta_strs(&t, "dump", dump);
	meta_strs(&t, "rules", rules_file);
	meta_num(&t, "rules_checked", rs->n);
	meta_num(&t, "failed", failed);
	meta_num(&t, "errors", errors);
	for (size_t i = 0; i < rs->n; i++) {
		const struct chk_rule *r = &rs->r[i];
		table_row(&t, CS(r->file), CN(r->line), CW(r->error != NULL ? "error" : r->ok ? "pass" : "FAIL"),
			  r->error != NULL ? CNULL : CI(r->got), CW(check_op_text(r->op)), CI(r->value), CE(r->text),
			  r->error != NULL ? CE(r->error) : CNULL, r->note != NULL ? CE(r->note) : CNULL);
	}
	table_end(&t, out);
	/* text: an error's or a note's words under the table */
	if (f == FMT_TEXT)
		for (size_t i = 0; i < rs->n; i++) {
			const char *words = rs->r[i].error != NULL ? rs->r[i].error : rs->r[i].note;
			if (words == NULL)
				continue;
			esc_append(out, (const uint8_t *)rs->r[i].file, strlen(rs->r[i].file), 0);
			sbuf_printf(out, ":%u: %s", rs->r[i].line, rs->r[i].error != NULL ? "" : "note: ");
			esc_append_again(out, (const uint8_t *)words, strlen(words));
			sbuf_addc(out, '\n');
		}
}
