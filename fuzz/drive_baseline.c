/* drive_baseline.c — the baseline fuzzer's body (drive.h): two dumps of
 * one format, the earlier one as `--baseline OLD[:N]` opens it, then
 * what `heapwalk diff OLD NEW` and `-e 'new | old | gone'` compute, in
 * the order src/cli/main.c computes it. */
#include "drive.h"

#include <stdlib.h>
#include <string.h>

#include "engine/open.h"
#include "graph/open.h"
#include "graph/reader.h"
#include "query/baseline.h"
#include "query/html.h"
#include "query/report.h"
#include "query/step.h"
#include "views.h"

static const enum fmt fmts[] = { FMT_TEXT, FMT_JSON, FMT_CSV };
static int last_mode = -1; /* fuzz_baseline_mode() */

/* The input's parts: OLD, NEW (empty: OLD's file again, which is its own
 * baseline, exact; the same bytes in NEW are a copy, exact too), the heapshots
 * asked for, and the format both are of. */
struct pair {
	const uint8_t *old, *cur;
	size_t nold, ncur;
	unsigned snap_old, snap_cur;
	const struct format_ops *fmt;
};

/* 0, or -1 where the input is not two dumps of one format. */
static int split(const uint8_t *data, size_t len, struct pair *pr)
{
	static const char sep[] = FUZZ_BASELINE_SEP;

	if (len < 1)
		return -1;
	const uint8_t *rest = data + 1, *end = data + len;
	const uint8_t *at = memmem(rest, (size_t)(end - rest), sep, sizeof sep - 1);
	if (at == NULL)
		return -1;
	*pr = (struct pair){ rest, at + sizeof sep - 1, (size_t)(at - rest), (size_t)(end - at) - (sizeof sep - 1),
			     data[0] & 15u, data[0] >> 4, format_find(rest, (size_t)(at - rest)) };
	if (pr->fmt == NULL || (pr->ncur > 0 && format_find(pr->cur, pr->ncur) != pr->fmt))
		return -1;
	if (!pr->fmt->snapshots) /* heap_open refuses a heapshot of a file of one heap */
		pr->snap_old = pr->snap_cur = 0;
	return 0;
}

/* heap_open, its failure checked as the dump bodies check it: one line. */
static int open_one(struct heap *h, const char *path, unsigned snap)
{
	struct open_opts o = { .no_cache = 1, .quiet = 1, .snapshot = snap };
	struct progress p;
	struct sbuf err;

	progress_init(&p, 1);
	sbuf_init(&err);
	int rc = heap_open(h, path, &o, &p, &err);
	if (rc < 0 && (err.len == 0 || strchr(err.buf, '\n') != NULL))
		fuzz_finding("the open of %s failed without one line: '%s'", path, err.buf ? err.buf : "");
	sbuf_free(&err);
	return rc;
}

/* The class deltas add up to both heaps, and their new and gone
 * columns to the baseline's sets. */
static void check_deltas(const struct heap *old, const struct heap *h, const struct baseline *b,
			 const struct diff_view *v)
{
	uint64_t n = 0, o = 0, fresh = 0, gone = 0;

	for (size_t i = 0; i < v->n; i++) {
		n += v->rows[i].count;
		o += v->rows[i].old_count;
		fresh += v->rows[i].new_count;
		gone += v->rows[i].gone_count;
	}
	if (n != (uint64_t)h->n - 1 || o != (uint64_t)old->n - 1)
		fuzz_finding("diff: the classes count %llu and %llu objects, the heaps have %llu and %llu",
			     (unsigned long long)o, (unsigned long long)n, (unsigned long long)old->n - 1,
			     (unsigned long long)h->n - 1);
	if (b != NULL && (fresh != b->fresh.count || (baseline_has_old(b) && gone != b->gone.count)))
		fuzz_finding("diff: the classes count %llu new and %llu gone objects, the baseline %llu and %llu",
			     (unsigned long long)fresh, (unsigned long long)gone,
			     (unsigned long long)b->fresh.count, (unsigned long long)b->gone.count);
}

/* heapwalk diff: the identity if there is one, the deltas in every
 * format. 0 with b filled, or -1 (b needs no free). */
static int diff(struct heap *old, struct heap *h, struct baseline *b, struct progress *p, struct sbuf *out)
{
	struct diff_view dv;
	struct sbuf why;

	sbuf_init(&why);
	int rc = baseline_compare(h, old, b, p, &why);
	if (rc < 0 && (why.len == 0 || strchr(why.buf, '\n') != NULL))
		fuzz_finding("the baseline was refused without one line: '%s'", why.buf ? why.buf : "");
	sbuf_free(&why);
	h->baseline = rc == 0 ? b : NULL;
	diff_classes(old, h, h->baseline, rc < 0 && b->two_runs, &dv);
	check_deltas(old, h, h->baseline, &dv);
	for (int f = 0; f < 3; f++)
		report_diff(old, h, &dv, f == 1 ? 2 : 0, fmts[f], out); /* -n too */
	diff_view_free(&dv);
	return rc;
}

/* -e 'new | classes', 'old | info', as main.c applies the steps. */
static void new_old(struct heap *h, struct progress *p)
{
	static const char *const views[] = { "classes", "info" };

	for (int k = 0; k < 2; k++) {
		struct step s = { .op = k == 0 ? ST_NEW : ST_OLD };
		struct objset set;
		struct sbuf err;
		sbuf_init(&err);
		objset_all(h, &set);
		if (step_apply(h, &s, &set, p, &err) == 0)
			fz_one_view(h, views[k], &set, p);
		objset_free(&set);
		sbuf_free(&err);
	}
}

/* -e 'gone | classes': the baseline's side, its set the gone objects. */
static void gone(struct heap *old, const struct baseline *b, struct progress *p)
{
	struct objset set;

	heap_need(old, HP_ALL, p);
	old->identity = b;
	objset_empty(old, &set);
	memcpy(set.bits, b->gone.bits, bits_words(old->n) * sizeof *set.bits);
	objset_recount(old, &set);
	fz_one_view(old, "classes", &set, p);
	fz_one_view(old, "info", &set, p);
	objset_free(&set);
	old->identity = NULL;
}

/* heapwalk report --baseline OLD: the page's "what is new" part. */
static void html(struct heap *h, struct progress *p, struct sbuf *out)
{
	struct html_opts o;
	struct objset set;
	struct sbuf err;

	html_opts_default(&o);
	o.max_nodes = 200; /* the tree is not what is tested here */
	o.progress = p;
	sbuf_init(&err);
	objset_all(h, &set);
	report_html(h, &set, &o, out, &err);
	objset_free(&set);
	sbuf_free(&err);
}

/* With a baseline b of the dump h: its summary, its new, old and gone
 * objects. */
static void with_baseline(struct heap *old, struct heap *h, struct baseline *b, struct progress *p,
			  struct sbuf *out)
{
	baseline_summary(b, out);
	baseline_source(h, b, out);
	heap_need(h, HP_ALL, p);
	h->baseline = b;
	h->identity = b;
	new_old(h, p);
	html(h, p, out);
	if (baseline_has_old(b) && old != NULL)
		gone(old, b, p);
	h->baseline = NULL;
	h->identity = NULL;
}

/* The same heap of the same file on both sides: what tells identity
 * exactly finds nothing new and nothing gone. */
static void check_itself(const struct heap *old, const struct heap *h, const struct baseline *b)
{
	if (strcmp(old->path, h->path) != 0 || old->snap != h->snap || (b->mode != BL_FILE && b->mode != BL_IDS))
		return;
	if (b->fresh.count != 0 || b->gone.count != 0)
		fuzz_finding("a heap against itself has %llu new and %llu gone objects (mode %d)",
			     (unsigned long long)b->fresh.count, (unsigned long long)b->gone.count, (int)b->mode);
}

/* Both heaps opened: the diff, then the baseline's views; then the
 * dump's own mark, as when no --baseline is given. */
static void compare(struct heap *old, struct heap *h)
{
	struct progress p;
	struct baseline b, mark;
	struct sbuf out, err;

	progress_init(&p, 1);
	sbuf_init(&out);
	sbuf_init(&err);
	if (diff(old, h, &b, &p, &out) == 0) {
		last_mode = (int)b.mode;
		check_itself(old, h, &b);
		with_baseline(old, h, &b, &p, &out);
		baseline_free(&b);
	}
	if (baseline_from_mark(h, &mark, &err) == 0) {
		with_baseline(NULL, h, &mark, &p, &out);
		baseline_free(&mark);
	}
	sbuf_free(&out);
	sbuf_free(&err);
}

int fuzz_baseline(const uint8_t *data, size_t len)
{
	struct pair pr;

	last_mode = -1;
	if (split(data, len, &pr) < 0)
		return -1;
	char *file_old = xasprintf("%s/old", fuzz_dir()), *file_cur = xasprintf("%s/new", fuzz_dir());
	/* the baseline as main.c opens it: FILE:N, not the option */
	char *arg_old = pr.snap_old ? xasprintf("%s:%u", file_old, pr.snap_old) : xstrdup(file_old);
	const char *arg_cur = pr.ncur > 0 ? file_cur : file_old;
	struct heap old, h;

	fuzz_put_file(file_old, pr.old, pr.nold);
	if (pr.ncur > 0)
		fuzz_put_file(file_cur, pr.cur, pr.ncur);
	if (open_one(&old, arg_old, 0) == 0) {
		if (open_one(&h, arg_cur, pr.snap_cur) == 0) {
			compare(&old, &h);
			heap_free(&h);
		}
		heap_free(&old);
	}
	free(file_old);
	free(file_cur);
	free(arg_old);
	return 0;
}

int fuzz_baseline_mode(void)
{
	return last_mode;
}
