/* tree.c — the view's rows as a tree: opening and closing rows,
 * building a view again with its tree as it was, searching the rows
 * (loading more as the search goes), filtering as the user types. */
#include <stdlib.h>
#include <string.h>

#include "tui/frame.h"

/* Open row i: its children after it (*added of them). -1 if
 * cancelled. Progress is the caller's. */
static int expand_at(struct tui *t, struct tview *v, size_t i, size_t *added)
{
	struct rowvec kids = { 0 };

	*added = 0;
	if (i >= v->rows.n || v->rows.v[i].open != 0 || v->ops->expand == NULL)
		return 0;
	struct tview *was = tui_building; /* a build may open rows */
	tui_building = v;
	int rc = v->ops->expand(t, v, i, &kids);
	tui_building = was;
	if (rc < 0 || progress_cancelled(&t->prog)) {
		for (size_t k = 0; k < kids.n; k++)
			row_free(v, &kids.v[k]);
		free(kids.v);
		return -1;
	}
	/* a "more" row's page goes on at its depth, after it; other rows'
	 * children one deeper */
	uint32_t d = v->rows.v[i].depth + (v->rows.v[i].more ? 0 : 1);
	for (size_t k = 0; k < kids.n; k++) /* a view may nest rows under a child */
		kids.v[k].depth += d;
	struct rowvec *rv = &v->rows;
	while (rv->n + kids.n > rv->cap) {
		rv->cap = rv->cap ? rv->cap * 2 : 64;
		rv->v = xreallocarray(rv->v, rv->cap, sizeof *rv->v);
	}
	memmove(rv->v + i + 1 + kids.n, rv->v + i + 1, (rv->n - i - 1) * sizeof *rv->v);
	if (kids.n > 0) /* kids.v is NULL with none */
		memcpy(rv->v + i + 1, kids.v, kids.n * sizeof *kids.v);
	rv->n += kids.n;
	rv->v[i].open = 1;
	free(kids.v);
	*added = kids.n;
	return 0;
}

int expand_row(struct tui *t, struct tview *v, size_t i, int quiet)
{
	size_t added;

	if (i >= v->rows.n || v->rows.v[i].open != 0 || v->ops->expand == NULL)
		return 0;
	tui_work_begin(t, "expanding");
	int rc = expand_at(t, v, i, &added);
	if (tui_work_end(t) < 0 || rc < 0)
		return -1;
	if (added == 0 && !quiet)
		tui_message(t, 0, "nothing below this row");
	return 0;
}

/* ---- rebuilding a view: what was open, marked and under the cursor is
 * found again by who the rows are, not where they were (tmux's mode
 * tree keeps its tree the same way) ---- */
static uint64_t row_ident(const struct row *r)
{
	uint64_t x = r->key;

	if (x != 0)
		return x;
	x = (1469598103934665603ull ^ r->kind) * 1099511628211ull;
	x = (x ^ r->node) * 1099511628211ull;
	x = (x ^ r->cls) * 1099511628211ull;
	for (const char *p = r->left; *p; p++)
		x = (x ^ (uint8_t)*p) * 1099511628211ull;
	return x;
}

/* The identities of rows [from, n) as paths: a row's with its parents'.
 * stack holds the path at each depth (grown as needed). */
static uint64_t path_ident(const struct tview *v, size_t i, uint64_t **stack, size_t *cap)
{
	const struct row *r = &v->rows.v[i];
	size_t d = r->depth;

	if (d + 1 > *cap) {
		*cap = d + 64;
		*stack = xreallocarray(*stack, *cap, sizeof **stack);
	}
	uint64_t x = ((d > 0 ? (*stack)[d - 1] : 0) ^ row_ident(r)) * 0x9e3779b97f4a7c15ull;
	(*stack)[d] = x;
	return x;
}

static int cmp_u64(const void *a, const void *b, void *ctx)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	(void)ctx;
	return x < y ? -1 : x > y;
}

static int has_u64(const uint64_t *a, size_t n, uint64_t x)
{
	size_t lo = lower_bound_u64(a, n, x);

	return lo < n && a[lo] == x;
}

int tview_rebuild(struct tui *t, struct tview *v)
{
	uint64_t *stack = NULL, *open = NULL, *marked = NULL, *curpath = NULL;
	size_t cap = 0, nopen = 0, nmarked = 0, ncur = 0, cur = v->cur, off = v->cur - v->top;

	/* before: the paths of the open and marked rows, and of the cursor's
	 * row with its parents (the nearest one is found if it is gone) */
	open = xmalloc((v->rows.n + 1) * sizeof *open);
	marked = xmalloc((v->rows.n + 1) * sizeof *marked);
	for (size_t i = 0; i < v->rows.n; i++) {
		uint64_t x = path_ident(v, i, &stack, &cap);
		if (v->rows.v[i].open == 1)
			open[nopen++] = x;
		if (v->rows.v[i].marked)
			marked[nmarked++] = x;
		if (i == cur) {
			ncur = (size_t)v->rows.v[i].depth + 1;
			curpath = xmalloc(ncur * sizeof *curpath);
			memcpy(curpath, stack, ncur * sizeof *curpath);
		}
	}
	hw_sort(open, nopen, sizeof *open, cmp_u64, NULL);
	hw_sort(marked, nmarked, sizeof *marked, cmp_u64, NULL);
	rows_clear(v);
	v->built = 0;
	int rc = view_ensure(t, v);
	/* after: open again what was open (its children come next), mark
	 * again, and put the cursor back */
	size_t best = cur, bestd = 0;
	for (size_t i = 0; rc == 0 && i < v->rows.n; i++) {
		uint64_t x = path_ident(v, i, &stack, &cap);
		struct row *r = &v->rows.v[i];
		if (has_u64(marked, nmarked, x)) {
			r->marked = 1;
			v->nmarked++;
		}
		if (r->depth < ncur && curpath[r->depth] == x && (size_t)r->depth + 1 > bestd) {
			best = i;
			bestd = r->depth + 1u;
		}
		if (r->open == 0 && has_u64(open, nopen, x) && expand_row(t, v, i, 1) < 0)
			break; /* cancelled: what is open so far stays */
	}
	v->cur_kept = bestd > 0;
	if (v->rows.n == 0)
		v->cur = v->top = 0;
	else {
		v->cur = best < v->rows.n ? best : v->rows.n - 1;
		v->top = v->cur > off ? v->cur - off : 0;
	}
	free(stack);
	free(open);
	free(marked);
	free(curpath);
	return rc;
}

int tview_resort(struct tui *t, struct tview *v)
{
	int rc = tview_rebuild(t, v);

	if (v->cur < (size_t)t->pane)
		v->top = 0;
	return rc;
}

void collapse_row(struct tview *v, size_t i)
{
	struct row *r = &v->rows.v[i];

	if (r->open != 1 || r->more) { /* go to the parent (a page loaded stays) */
		while (i > 0 && v->rows.v[i - 1].depth >= r->depth)
			i--;
		if (i > 0 && r->depth > 0)
			v->cur = i - 1;
		return;
	}
	size_t j = i + 1;
	while (j < v->rows.n && v->rows.v[j].depth > r->depth)
		j++;
	for (size_t k = i + 1; k < j; k++) {
		v->nmarked -= v->rows.v[k].marked;
		row_free(v, &v->rows.v[k]);
	}
	memmove(v->rows.v + i + 1, v->rows.v + j, (v->rows.n - j) * sizeof *v->rows.v);
	v->rows.n -= j - i - 1;
	r->open = 0;
}

pcre2_code *compile_regex(struct tui *t, const char *src)
{
	int code;
	PCRE2_SIZE at;
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)src, PCRE2_ZERO_TERMINATED, PCRE2_UTF | PCRE2_CASELESS,
				       &code, &at, NULL);
	if (re == NULL) {
		PCRE2_UCHAR buf[160];
		pcre2_get_error_message(code, buf, sizeof buf);
		tui_message(t, 1, "regex: column %zu: %s", (size_t)at + 1, (char *)buf);
	}
	return re;
}

/* / then n or N: the next row whose label matches, around the list.
 * Forward, the rows not loaded yet (the next page of a large set, of a
 * long array) are loaded as the search comes to them, with progress;
 * Esc stops it where it is. */
void search(struct tui *t, int dir)
{
	struct tview *v = cur_view(t);
	size_t loaded = 0;
	int found = 0, stopped = 0;

	if (t->search_re == NULL) {
		tui_message(t, 1, "no search: press /");
		return;
	}
	if (v->rows.n == 0) {
		tui_message(t, 1, "not found: %s (no rows)", t->search);
		return;
	}
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(t->search_re, NULL);
	size_t start = v->cur < v->rows.n ? v->cur : 0, i = start, added;
	tui_work_begin(t, "searching");
	t->prog.total = 0; /* rows loaded: no whole to give a percentage of */
	/* on a page not loaded yet: it is the next rows */
	if (dir > 0 && v->rows.v[start].more && v->rows.v[start].open == 0) {
		if (expand_at(t, v, start, &added) < 0)
			stopped = 1;
		loaded += added;
	}
	do {
		if (stopped)
			break;
		i = dir > 0 ? (i + 1 == v->rows.n ? 0 : i + 1) : (i == 0 ? v->rows.n - 1 : i - 1);
		struct row *r = &v->rows.v[i];
		if (pcre2_match(t->search_re, (PCRE2_SPTR)r->left, PCRE2_ZERO_TERMINATED, 0, 0, md, NULL) >= 0) {
			found = 1;
			break;
		}
		if (dir > 0 && r->more && r->open == 0) {
			if (expand_at(t, v, i, &added) < 0) {
				stopped = 1;
				break;
			}
			if (i < start) /* the rows after i moved down */
				start += added;
			loaded += added;
			progress_update(&t->prog, loaded);
		}
	} while (i != start);
	pcre2_match_data_free(md);
	if (tui_work_end(t) < 0)
		stopped = 1;
	v->cur = found ? i : start; /* else on its row, which rows loaded before it moved */
	if (found && loaded > 0)
		tui_message(t, 0, "found after loading %zu more rows", loaded);
	else if (stopped)
		tui_message(t, 1, "search stopped after loading %zu rows: n goes on", loaded);
	else if (!found)
		tui_message(t, 1, "not found: %s%s", t->search, dir < 0 ? " (N searches the rows loaded; n loads the rest)" : "");
}

void live_filter(struct tui *t, const char *text, void *arg)
{
	struct tview *v = arg;
	int code;
	PCRE2_SIZE at;
	pcre2_code *re = NULL;

	if (*text) {
		re = pcre2_compile((PCRE2_SPTR)text, PCRE2_ZERO_TERMINATED, PCRE2_UTF | PCRE2_CASELESS,
				   &code, &at, NULL);
		if (re == NULL) /* incomplete as typed: keep the last one */
			return;
	}
	pcre2_code_free(v->filter_re);
	v->filter_re = re;
	free(v->filter);
	v->filter = *text ? xstrdup(text) : NULL;
	/* the cursor stays on its row if the filter keeps it (or on its
	 * parent's), else goes to the first (it stayed at its index, on
	 * whatever row was there) */
	if (tview_rebuild(t, v) == 0 && !v->cur_kept)
		v->cur = v->top = 0;
}

