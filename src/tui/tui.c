/* tui.c — the browser's frame: rows, messages, progress with cancel,
 * moving, searching and expanding, the key dispatch (a view's own keys,
 * then the frame's table), terminal setup and the main loop.
 *
 * Screen, top to bottom (draw.c): the dump line; the current step
 * (title, count, shallow and retained size); the view tabs; the column
 * header; the rows; the breadcrumb of steps; the key hint or a message.
 * Handlers change state and the main loop redraws everything. */
#include <errno.h>
#include <setjmp.h>
#include <locale.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "query/baseline.h"
#include "tui/frame.h"

/* ---- keys ---- */
volatile sig_atomic_t tui_signal;

/* Blocking, getch fails only on a signal or when the terminal is gone:
 * then it is as if SIGHUP came. */
int read_key(WINDOW *w)
{
	for (int lost = 0;;) {
		if (tui_signal)
			return 27;
		errno = 0;
		int c = wgetch(w);
		if (c != ERR)
			return c;
		if (errno != EINTR && ++lost > 10)
			tui_signal = SIGHUP;
	}
}

/* ---- rows ---- */
struct row *rowvec_add(struct rowvec *rv)
{
	if (rv->n == rv->cap) {
		rv->cap = rv->cap ? rv->cap * 2 : 64;
		rv->v = xreallocarray(rv->v, rv->cap, sizeof *rv->v);
	}
	struct row *r = &rv->v[rv->n++];
	memset(r, 0, sizeof *r);
	r->node = HW_NONE;
	r->cls = HW_NONE;
	r->open = -1;
	return r;
}

/* Either text may be the row's own: copy before freeing. */
void row_set(struct row *r, const char *left, const char *right)
{
	char *l = xstrdup(left ? left : ""), *rt = right ? xstrdup(right) : NULL;

	free(r->left);
	free(r->right);
	r->left = l;
	r->right = rt;
	r->name_off = r->name_len = 0;
}

void row_set_named(struct row *r, const char *left, size_t off, size_t len)
{
	row_set(r, left, NULL);
	if (off + len <= strlen(r->left) && off < UINT16_MAX && len < UINT16_MAX) {
		r->name_off = (uint16_t)off;
		r->name_len = (uint16_t)len;
	}
}

void tview_columns(struct tview *v, const struct column *cols, int n)
{
	v->ncols = n < VIEW_COLS ? n : VIEW_COLS;
	memcpy(v->cols, cols, (size_t)v->ncols * sizeof *cols);
}

void row_free(const struct tview *v, struct row *r)
{
	if (v->ops->row_free != NULL)
		v->ops->row_free(r);
	free(r->left);
	free(r->right);
}

void rowvec_free(struct rowvec *rv, void (*free_row)(struct row *r))
{
	for (size_t i = 0; i < rv->n; i++) {
		if (free_row != NULL)
			free_row(&rv->v[i]);
		free(rv->v[i].left);
		free(rv->v[i].right);
	}
	free(rv->v);
	memset(rv, 0, sizeof *rv);
}

void rows_clear(struct tview *v)
{
	for (size_t i = 0; i < v->rows.n; i++)
		row_free(v, &v->rows.v[i]);
	v->rows.n = 0;
	v->cur = v->top = 0;
	v->nmarked = 0;
}

void tui_typed(struct sbuf *sb, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		/* C0, DEL and C1 (UTF-8 C2 80..9F) would reach the terminal */
		if (*p < 0x20 || *p == 0x7f) {
			sbuf_printf(sb, "\\x%02x", *p++);
		} else if (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) {
			sbuf_printf(sb, "\\u{%04x}", p[1]);
			p += 2;
		} else {
			sbuf_addc(sb, (char)*p++);
		}
	}
}

int tui_filter_ok(const struct tview *v, const char *text)
{
	if (v->filter_re == NULL)
		return 1;
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(v->filter_re, NULL);
	int rc = pcre2_match(v->filter_re, (PCRE2_SPTR)text, PCRE2_ZERO_TERMINATED, 0, 0, md, NULL);
	pcre2_match_data_free(md);
	return rc >= 0;
}

/* ---- messages ---- */
void tui_message(struct tui *t, int error, const char *fmt, ...)
{
	va_list ap;
	struct sbuf sb;

	sbuf_init(&sb);
	va_start(ap, fmt);
	char *raw = NULL;
	if (vasprintf(&raw, fmt, ap) < 0)
		raw = NULL;
	va_end(ap);
	if (raw != NULL) /* messages may quote the dump or the user: no control characters */
		tui_typed(&sb, raw);
	free(raw);
	free(t->msg);
	t->msg = sbuf_detach(&sb);
	t->msg_error = error;
}

/* ---- progress: drawn on the hint line, Esc or ^C cancels ---- */
static void tick(struct progress *p, uint64_t done)
{
	struct tui *t = p->tick_arg;
	int c, ahead[64], n = 0;

	/* Esc or ^C cancels; keys typed ahead are put back, in order */
	while ((c = getch()) != ERR) {
		if (c == 27 || c == 3)
			p->cancelled = 1;
		else if (n < (int)(sizeof ahead / sizeof ahead[0]))
			ahead[n++] = c;
	}
	while (n > 0)
		ungetch(ahead[--n]);
	if (tui_signal) /* SIGTERM, SIGHUP: stop working, then leave */
		p->cancelled = 1;
	char line[160];
	snprintf(line, sizeof line, " %s: %3.0f%%   Esc: cancel", p->phase ? p->phase : "working",
		 p->total ? 100.0 * (double)done / (double)p->total : 0.0);
	move(t->rows - 1, 0);
	attrset(attr_of(C_HINT));
	put(line, t->cols, 1);
	attrset(A_NORMAL);
	refresh();
}

/* Start a long computation: the first tick draws after 50 ms, and keys
 * are polled without blocking until tui_work_end. */
void tui_work_begin(struct tui *t, const char *what)
{
	t->prog.cancelled = 0;
	t->prog.phase = what;
	t->prog.start = t->prog.last = hw_now();
	t->prog.total = 0;
	nodelay(stdscr, TRUE);
}

int tui_work_end(struct tui *t)
{
	int cancelled = t->prog.cancelled;

	nodelay(stdscr, FALSE);
	t->prog.phase = NULL;
	t->prog.cancelled = 0;
	if (cancelled)
		tui_message(t, 1, "cancelled");
	return cancelled ? -1 : 0;
}
/* ---- moving, searching, expanding ---- */
/* Open row i: its children after it (*added of them). -1 if
 * cancelled. Progress is the caller's. */
static int expand_at(struct tui *t, struct tview *v, size_t i, size_t *added)
{
	struct rowvec kids = { 0 };

	*added = 0;
	if (i >= v->rows.n || v->rows.v[i].open != 0 || v->ops->expand == NULL)
		return 0;
	int rc = v->ops->expand(t, v, i, &kids);
	if (rc < 0 || progress_cancelled(&t->prog)) {
		for (size_t k = 0; k < kids.n; k++)
			row_free(v, &kids.v[k]);
		free(kids.v);
		return -1;
	}
	uint16_t d = v->rows.v[i].depth + 1;
	for (size_t k = 0; k < kids.n; k++) /* a view may nest rows under a child */
		kids.v[k].depth += d;
	struct rowvec *rv = &v->rows;
	while (rv->n + kids.n > rv->cap) {
		rv->cap = rv->cap ? rv->cap * 2 : 64;
		rv->v = xreallocarray(rv->v, rv->cap, sizeof *rv->v);
	}
	memmove(rv->v + i + 1 + kids.n, rv->v + i + 1, (rv->n - i - 1) * sizeof *rv->v);
	memcpy(rv->v + i + 1, kids.v, kids.n * sizeof *kids.v);
	rv->n += kids.n;
	rv->v[i].open = 1;
	free(kids.v);
	*added = kids.n;
	return 0;
}

static int expand_row(struct tui *t, struct tview *v, size_t i, int quiet)
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

static void collapse_row(struct tview *v, size_t i)
{
	struct row *r = &v->rows.v[i];

	if (r->open != 1) { /* go to the parent */
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

static pcre2_code *compile(struct tui *t, const char *src)
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
static void search(struct tui *t, int dir)
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
	size_t start = v->cur < v->rows.n ? v->cur : 0, i = start;
	tui_work_begin(t, "searching");
	t->prog.total = v->st->set.count;
	do {
		i = dir > 0 ? (i + 1 == v->rows.n ? 0 : i + 1) : (i == 0 ? v->rows.n - 1 : i - 1);
		struct row *r = &v->rows.v[i];
		if (pcre2_match(t->search_re, (PCRE2_SPTR)r->left, PCRE2_ZERO_TERMINATED, 0, 0, md, NULL) >= 0) {
			found = 1;
			break;
		}
		if (dir > 0 && r->more && r->open == 0) {
			size_t added;
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
	if (found)
		v->cur = i;
	if (found && loaded > 0)
		tui_message(t, 0, "found after loading %zu more rows", loaded);
	else if (stopped)
		tui_message(t, 1, "search stopped after loading %zu rows: n goes on", loaded);
	else if (!found)
		tui_message(t, 1, "not found: %s%s", t->search, dir < 0 ? " (N searches the rows loaded; n loads the rest)" : "");
}

static void live_filter(struct tui *t, const char *text, void *arg)
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
	tview_rebuild(t, v);
}

/* ---- requests: the frame's handlers, one per request ---- */
typedef void (*frame_fn)(struct tui *t, struct tview *v, int key);

static void rq_up(struct tui *t, struct tview *v, int c) { (void)t; (void)c; if (v->cur > 0) v->cur--; }
static void rq_down(struct tui *t, struct tview *v, int c) { (void)t; (void)c; if (v->cur + 1 < v->rows.n) v->cur++; }

static void rq_page_up(struct tui *t, struct tview *v, int c)
{
	size_t page = (size_t)pane_rows(t);

	(void)c;
	v->cur = v->cur > page ? v->cur - page : 0;
}

static void rq_page_down(struct tui *t, struct tview *v, int c)
{
	size_t page = (size_t)pane_rows(t);

	(void)c;
	v->cur = v->rows.n == 0 ? 0 : v->cur + page < v->rows.n ? v->cur + page : v->rows.n - 1;
}

static void rq_top(struct tui *t, struct tview *v, int c) { (void)t; (void)c; v->cur = 0; }
static void rq_bottom(struct tui *t, struct tview *v, int c) { (void)t; (void)c; v->cur = v->rows.n ? v->rows.n - 1 : 0; }
static void rq_expand(struct tui *t, struct tview *v, int c) { (void)c; expand_row(t, v, v->cur, 0); }

static void rq_collapse(struct tui *t, struct tview *v, int c)
{
	(void)t;
	(void)c;
	if (v->cur < v->rows.n)
		collapse_row(v, v->cur);
}

static void rq_view(struct tui *t, struct tview *v, int c)
{
	struct hstep *s = cur_step(t);

	(void)v;
	s->view = (enum view_id)((s->view + (key_request(c) == REQ_NEXT_VIEW ? 1 : V_COUNT - 1)) % V_COUNT);
	if (view_ensure(t, cur_view(t)) < 0)
		tui_message(t, 1, "view not built: cancelled");
}

static void rq_mark(struct tui *t, struct tview *v, int c)
{
	(void)t;
	(void)c;
	if (v->cur < v->rows.n) {
		v->rows.v[v->cur].marked ^= 1;
		if (v->rows.v[v->cur].marked)
			v->nmarked++;
		else
			v->nmarked--;
		if (v->cur + 1 < v->rows.n)
			v->cur++;
	}
}

static void rq_use(struct tui *t, struct tview *v, int c) { (void)v; (void)c; use_rows(t, 0); }
static void rq_use_reached(struct tui *t, struct tview *v, int c) { (void)v; (void)c; use_rows(t, 1); }
static void rq_use_menu(struct tui *t, struct tview *v, int c) { (void)v; (void)c; use_menu(t); }

static void rq_use_step(struct tui *t, struct tview *v, int c)
{
	(void)v;
	switch (key_request(c)) {
	case REQ_USE_RETAINED: use_step(t, ST_RETAINED, "Retained"); break;
	case REQ_USE_REFERRERS: use_step(t, ST_REFERRERS, "Referrers"); break;
	case REQ_USE_REFERENTS: use_step(t, ST_REFERENTS, "Referents"); break;
	case REQ_USE_DOMINATED: use_step(t, ST_DOMINATED, "Dominated"); break;
	case REQ_USE_NEW: use_step(t, ST_NEW, "New objects"); break;
	case REQ_USE_OLD: use_step(t, ST_OLD, "Old objects"); break;
	default: break;
	}
}

static void rq_use_gone(struct tui *t, struct tview *v, int c) { (void)v; (void)c; use_gone(t); }
static void rq_baseline(struct tui *t, struct tview *v, int c) { (void)v; (void)c; baseline_prompt(t); }

static void rq_back(struct tui *t, struct tview *v, int c)
{
	(void)v;
	(void)c;
	if (t->cur > 0)
		step_go(t, t->cur - 1);
	else
		tui_message(t, 0, "this is the first step");
}

static void rq_forward(struct tui *t, struct tview *v, int c)
{
	(void)v;
	(void)c;
	if (t->cur + 1 < t->nsteps)
		step_go(t, t->cur + 1);
	else
		tui_message(t, 0, "this is the last step");
}

static void rq_first_step(struct tui *t, struct tview *v, int c) { (void)v; (void)c; step_go(t, 0); }
static void rq_step_list(struct tui *t, struct tview *v, int c) { (void)v; (void)c; step_list(t); }

static void rq_jump(struct tui *t, struct tview *v, int c)
{
	(void)v;
	if ((size_t)(c - '1') < t->nsteps)
		step_go(t, (size_t)(c - '1'));
	else
		tui_message(t, 1, "no step %c", c);
}

static void rq_expr(struct tui *t, struct tview *v, int c) { (void)v; (void)c; show_expr(t); }
static void rq_retained(struct tui *t, struct tview *v, int c) { (void)v; (void)c; exact_retained(t); }

static void rq_search(struct tui *t, struct tview *v, int c)
{
	char *q = tui_prompt(t, "search: ", NULL, NULL);

	(void)v;
	(void)c;
	if (q != NULL && *q) {
		pcre2_code *re = compile(t, q);
		if (re != NULL) {
			pcre2_code_free(t->search_re);
			t->search_re = re;
			free(t->search);
			t->search = q;
			q = NULL;
			search(t, 1);
		}
	}
	free(q);
}

static void rq_search_next(struct tui *t, struct tview *v, int c)
{
	(void)v;
	search(t, key_request(c) == REQ_SEARCH_NEXT ? 1 : -1);
}

static void rq_filter(struct tui *t, struct tview *v, int c)
{
	char *old = v->filter ? xstrdup(v->filter) : NULL;
	char *q = tui_prompt(t, "filter (regex): ", live_filter, v);

	(void)c;
	if (q == NULL) { /* Esc: back to the filter before */
		live_filter(t, old ? old : "", v);
	} else if (*q == '\0') { /* Enter on nothing: no filter */
		live_filter(t, "", v);
		if (old != NULL)
			tui_message(t, 0, "filter off");
	} else if (v->filter == NULL || strcmp(v->filter, q) != 0) {
		tui_message(t, 1, "bad regex: %s", q);
	}
	free(q);
	free(old);
}

static void rq_help(struct tui *t, struct tview *v, int c) { (void)v; (void)c; help(t); }
static void rq_rules(struct tui *t, struct tview *v, int c) { (void)v; (void)c; rules_screen(t); }

static void rq_redraw(struct tui *t, struct tview *v, int c)
{
	(void)c;
	clearok(curscr, TRUE);
	if (!v->built && view_ensure(t, v) < 0)
		tui_message(t, 1, "view not built: cancelled");
}

static void rq_quit(struct tui *t, struct tview *v, int c) { (void)v; (void)c; t->quit = 1; }

/* A view's own request, pressed in another view. */
static void rq_not_here(struct tui *t, struct tview *v, int c)
{
	(void)c;
	tui_message(t, 1, "not in the %s view", v->ops->name);
}

static const frame_fn frame_keys[REQ_COUNT] = {
	[REQ_UP] = rq_up, [REQ_DOWN] = rq_down, [REQ_PAGE_UP] = rq_page_up,
	[REQ_PAGE_DOWN] = rq_page_down, [REQ_TOP] = rq_top, [REQ_BOTTOM] = rq_bottom,
	[REQ_EXPAND] = rq_expand, [REQ_COLLAPSE] = rq_collapse,
	[REQ_NEXT_VIEW] = rq_view, [REQ_PREV_VIEW] = rq_view,
	[REQ_MARK] = rq_mark, [REQ_USE] = rq_use, [REQ_USE_REACHED] = rq_use_reached,
	[REQ_USE_MENU] = rq_use_menu, [REQ_USE_RETAINED] = rq_use_step, [REQ_USE_REFERRERS] = rq_use_step,
	[REQ_USE_REFERENTS] = rq_use_step, [REQ_USE_DOMINATED] = rq_use_step, [REQ_USE_NEW] = rq_use_step,
	[REQ_USE_OLD] = rq_use_step, [REQ_USE_GONE] = rq_use_gone, [REQ_BASELINE] = rq_baseline,
	[REQ_BACK] = rq_back, [REQ_FORWARD] = rq_forward, [REQ_FIRST_STEP] = rq_first_step,
	[REQ_STEP_LIST] = rq_step_list, [REQ_JUMP] = rq_jump, [REQ_EXPR] = rq_expr,
	[REQ_RETAINED] = rq_retained, [REQ_SEARCH] = rq_search, [REQ_SEARCH_NEXT] = rq_search_next,
	[REQ_SEARCH_PREV] = rq_search_next, [REQ_FILTER] = rq_filter, [REQ_HELP] = rq_help,
	[REQ_RULES] = rq_rules, [REQ_REDRAW] = rq_redraw, [REQ_QUIT] = rq_quit,
	[REQ_SORT] = rq_not_here, [REQ_EXACT] = rq_not_here, [REQ_PACKAGES] = rq_not_here,
	[REQ_LOADERS] = rq_not_here, [REQ_GROUP] = rq_not_here, [REQ_NULLS] = rq_not_here,
	[REQ_WEAK] = rq_not_here, [REQ_PATHS] = rq_not_here, [REQ_DELTA] = rq_not_here,
	[REQ_REVERSE] = rq_not_here,
};

/* The view's handler of r, if it has one and takes it (1). */
static int view_key(struct tui *t, struct tview *v, enum request r)
{
	if (v->ops->keys == NULL)
		return 0;
	for (const struct view_key *k = v->ops->keys; k->req != REQ_NONE; k++)
		if (k->req == r)
			return k->fn(t, v, r);
	return 0;
}

static void dispatch(struct tui *t, int c)
{
	struct tview *v = cur_view(t);
	enum request r = key_request(c);

	free(t->msg);
	t->msg = NULL;
	if (r != REQ_NONE && view_key(t, v, r))
		return;
	if (r != REQ_NONE && frame_keys[r] != NULL)
		frame_keys[r](t, v, c);
	else if (c != KEY_RESIZE && c != ERR && c != 27) /* Esc: nothing to cancel */
		tui_message(t, 1, "unbound key: press ? for help");
	if (!cur_view(t)->built && r != REQ_QUIT && view_ensure(t, cur_view(t)) < 0)
		tui_message(t, 1, "view not built: cancelled");
}

/* ---- terminal setup and teardown ---- */

static void restore_terminal(void)
{
	if (!isendwin())
		endwin();
}

static void on_term(int sig)
{
	tui_signal = sig;
}

/* A key's work that fails (a fault, an allocation) unwinds to here: the
 * view it was building goes, the session and its steps stay. */
#define GUARD_OOM 1000
static sigjmp_buf guard;
static volatile sig_atomic_t guarded;

static void on_fatal(int sig)
{
	if (guarded && sig != SIGABRT) {
		guarded = 0;
		siglongjmp(guard, sig);
	}
	endwin(); /* not async-signal-safe, but the process dies next */
	signal(sig, SIG_DFL);
	raise(sig);
}

static void on_oom(size_t n)
{
	(void)n;
	if (guarded) {
		guarded = 0;
		siglongjmp(guard, GUARD_OOM);
	}
}

/* After a failure: the terminal and the frame as after any key; the
 * view being made is dropped (shown empty, not made again by itself). */
static void recover(struct tui *t, struct tview *v, int what)
{
	nodelay(stdscr, FALSE);
	curs_set(0);
	t->prog.phase = NULL;
	t->prog.cancelled = 0;
	rows_clear(v);
	v->built = 1;
	touchwin(stdscr);
	if (what == SIGBUS)
		tui_message(t, 1, "the dump file changed or shrank while open (SIGBUS reading it): this view "
				  "is dropped; what reads the file fails until it is opened again");
	else if (what == GUARD_OOM)
		tui_message(t, 1, "out of memory: the %s view is dropped, the steps stay (^L makes it again)",
			    v->ops->name);
	else
		tui_message(t, 1, "internal error (%s) in the %s view: it is dropped, the steps stay "
				  "(^L makes it again); please report it", strsignal(what), v->ops->name);
}

/* dispatch, with a failure contained: 0, or what failed. */
static int guarded_dispatch(struct tui *t, int c)
{
	int what = sigsetjmp(guard, 1);

	if (what != 0) {
		recover(t, cur_view(t), what);
		return what;
	}
	guarded = 1;
	dispatch(t, c);
	guarded = 0;
	return 0;
}

static void screen_init(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_fatal;
	sa.sa_flags = SA_NODEFER; /* a second fault after recovering is caught too */
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGFPE, &sa, NULL);
	signal(SIGABRT, on_fatal);
	initscr();
	hw_set_cleanup(restore_terminal);
	hw_set_oom(on_oom);
	raw();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	colors_init();
}

int tui_main(const char *dump, const char *baseline, const struct open_opts *oo)
{
	struct heap h;
	struct tui t = { 0 };
	struct sbuf err;

	setlocale(LC_ALL, "");
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		fprintf(stderr, "heapwalk: the browser needs a terminal; use a command (see --help)\n");
		return 1;
	}
	sbuf_init(&err);
	progress_init(&t.prog, oo->quiet);
	if (baseline != NULL) {
		t.old = xmalloc(sizeof *t.old);
		if (heap_open(t.old, baseline, oo, &t.prog, &err) < 0) {
			fprintf(stderr, "heapwalk: %s\n", err.buf);
			sbuf_free(&err);
			free(t.old);
			return 2;
		}
	}
	if (heap_open(&h, dump, oo, &t.prog, &err) < 0) {
		fprintf(stderr, "heapwalk: %s\n", err.buf);
		sbuf_free(&err);
		if (t.old != NULL) {
			heap_free(t.old);
			free(t.old);
		}
		return 2;
	}
	heap_need(&h, HP_ALL, &t.prog);
	if (t.old != NULL) /* its side is browsed too (gone) */
		heap_need(t.old, HP_ALL, &t.prog);
	/* old and new: against the baseline dump, or the agent's mark */
	t.bl = xcalloc(1, sizeof *t.bl);
	if (baseline != NULL ? baseline_compare(&h, t.old, t.bl, &t.prog, &err) == 0
			     : h.agent.marks > 0 && baseline_from_mark(&h, t.bl, &err) == 0) {
		h.baseline = t.bl;
	} else if (baseline != NULL) {
		fprintf(stderr, "heapwalk: %s\n", err.buf);
		sbuf_free(&err);
		free(t.bl);
		heap_free(&h);
		heap_free(t.old);
		free(t.old);
		return 2;
	} else {
		free(t.bl);
		t.bl = NULL;
	}
	sbuf_free(&err);
	progress_init(&t.prog, 1);
	t.prog.tick = tick;
	t.prog.tick_arg = &t;
	t.h = t.main = &h;
	t.dump = dump;
	t.baseline = baseline ? xstrdup(baseline) : NULL;
	t.oo = *oo;
	const char *kl = getenv("HEAPWALK_KEYLOG");
	if (kl != NULL && *kl)
		t.keylog = fopen(kl, "w");
	struct objset all;
	objset_all(&h, &all);
	t.steps = xmalloc(sizeof *t.steps);
	t.steps[0] = step_new(&h, all, "All objects", "all");
	t.nsteps = 1;
	h.warn.quiet = 1; /* warnings were printed at open; the screen owns the terminal now */
	if (t.old != NULL)
		t.old->warn.quiet = 1;
	screen_init();
	getmaxyx(stdscr, t.rows, t.cols);
	if (h.warn.n > 0)
		tui_message(&t, 1, "%zu warnings while reading the dump: see heapwalk info",
			    h.warn.n + h.warn.suppressed);
	view_ensure(&t, cur_view(&t));
	while (!t.quit && !tui_signal) {
		tui_draw(&t);
		int c = read_key(stdscr);
		if (tui_signal)
			break;
		double t0 = hw_now();
		guarded_dispatch(&t, c);
		if (t.keylog != NULL) {
			tui_draw(&t);
			fprintf(t.keylog, "%d %.3f\n", c, (hw_now() - t0) * 1000.0);
			fflush(t.keylog);
		}
	}
	restore_terminal();
	if (t.keylog != NULL)
		fclose(t.keylog);
	for (size_t i = 0; i < t.nsteps; i++)
		step_free(t.steps[i]);
	free(t.steps);
	t.nsteps = 0;
	free(t.msg);
	free(t.search);
	pcre2_code_free(t.search_re);
	baseline_drop(&t);
	heap_free(&h);
	return tui_signal ? 128 + tui_signal : 0;
}
