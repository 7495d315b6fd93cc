/* tui.c — the browser's frame: screen layout, selection steps and their
 * history, key dispatch, prompts, help, progress with cancel.
 *
 * Screen, top to bottom: the dump line; the current step (title, count,
 * shallow and retained size); the view tabs; the column header; the
 * rows; the breadcrumb of steps; the key hint or a message. Handlers
 * change state and the main loop redraws everything with one doupdate:
 * the rows' texts are made when rows are made, so a redraw formats
 * nothing. */
#define _XOPEN_SOURCE_EXTENDED 1
#include "tui/tui.h"

#include <curses.h>
#include <errno.h>
#include <locale.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

#include "graph/analysis.h"
#include "graph/ownership.h"
#include "graph/rules.h"
#include "query/baseline.h"
#include "query/step.h"
#include "query/views.h"

/* ---- colours: one semantic table, attributes for monochrome ---- */
enum { C_TITLE = 1, C_STEP, C_TAB, C_TABSEL, C_HEAD, C_CURSOR, C_MARK, C_CRUMB, C_HINT,
       C_ERROR, C_BAR, C_DIM, C_COUNT };
static const struct { short fg, bg; attr_t mono, extra; } palette[C_COUNT] = {
	[C_TITLE] = { COLOR_WHITE, COLOR_BLUE, A_REVERSE, A_BOLD },
	[C_STEP] = { COLOR_YELLOW, -1, A_BOLD, A_BOLD },
	[C_TAB] = { COLOR_WHITE, -1, A_NORMAL, 0 },
	[C_TABSEL] = { COLOR_BLACK, COLOR_CYAN, A_REVERSE, 0 },
	[C_HEAD] = { COLOR_CYAN, -1, A_UNDERLINE, A_BOLD },
	[C_CURSOR] = { COLOR_BLACK, COLOR_CYAN, A_REVERSE, 0 },
	[C_MARK] = { COLOR_GREEN, -1, A_BOLD, A_BOLD },
	[C_CRUMB] = { COLOR_WHITE, -1, A_NORMAL, 0 },
	[C_HINT] = { COLOR_BLACK, COLOR_WHITE, A_REVERSE, 0 },
	[C_ERROR] = { COLOR_WHITE, COLOR_RED, A_REVERSE | A_BOLD, A_BOLD },
	[C_BAR] = { COLOR_GREEN, -1, A_NORMAL, 0 },
	[C_DIM] = { COLOR_BLUE, -1, A_DIM, A_BOLD },
};

static int use_color;

static attr_t attr_of(int c)
{
	if (!use_color)
		return palette[c].mono;
	return COLOR_PAIR(c) | palette[c].extra;
}

static void colors_init(void)
{
	const char *nc = getenv("NO_COLOR");

	use_color = has_colors() && (nc == NULL || *nc == '\0');
	if (!use_color)
		return;
	start_color();
	use_default_colors();
	for (int c = 1; c < C_COUNT; c++)
		init_pair((short)c, palette[c].fg, palette[c].bg);
}

/* Draw s at the cursor in at most `width` cells, padded with blanks when
 * pad; bytes the locale cannot decode become '?'. Returns cells used. */
static int put(const char *s, int width, int pad)
{
	int used = 0;
	mbstate_t st;
	size_t i = 0, len = strlen(s);

	memset(&st, 0, sizeof st);
	while (i < len && used < width) {
		wchar_t wc;
		size_t k = mbrtowc(&wc, s + i, len - i, &st);
		if (k == (size_t)-1 || k == (size_t)-2 || k == 0) {
			memset(&st, 0, sizeof st);
			addch('?');
			used++;
			i++;
			continue;
		}
		int cw = wcwidth(wc);
		if (cw < 0) {
			addch('?');
			cw = 1;
		} else if (used + cw > width) {
			break;
		} else {
			addnstr(s + i, (int)k);
		}
		used += cw;
		i += k;
	}
	while (pad && used < width) {
		addch(' ');
		used++;
	}
	return used;
}

/* ---- keys ---- */
static volatile sig_atomic_t got_signal;

/* The next key. Blocking, getch fails only on a signal or when the
 * terminal is gone: then it is as if SIGHUP came. Once a signal has
 * come every read is Esc, so that prompts and popups unwind. */
static int read_key(WINDOW *w)
{
	for (int lost = 0;;) {
		if (got_signal)
			return 27;
		errno = 0;
		int c = wgetch(w);
		if (c != ERR)
			return c;
		if (errno != EINTR && ++lost > 10)
			got_signal = SIGHUP;
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
	char *l = xstrdup(left ? left : ""), *rt = xstrdup(right ? right : "");

	free(r->left);
	free(r->right);
	r->left = l;
	r->right = rt;
}

static void row_free(const struct tview *v, struct row *r)
{
	if (v->ops->row_free != NULL)
		v->ops->row_free(r);
	free(r->left);
	free(r->right);
}

static void rows_clear(struct tview *v)
{
	for (size_t i = 0; i < v->rows.n; i++)
		row_free(v, &v->rows.v[i]);
	v->rows.n = 0;
	v->cur = v->top = 0;
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
	if (raw != NULL) /* messages may quote the dump: escape */
		esc_append(&sb, (const uint8_t *)raw, strlen(raw), 0);
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
	if (got_signal) /* SIGTERM, SIGHUP: stop working, then leave */
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

/* ---- steps ---- */
static struct hstep *step_new(struct heap *h, struct objset set, const char *title, const char *expr)
{
	struct hstep *s = xcalloc(1, sizeof *s);

	s->h = h;
	s->set = set;
	s->title = xstrdup(title);
	s->expr = expr ? xstrdup(expr) : NULL;
	for (int i = 0; i < V_COUNT; i++) {
		s->views[i].ops = view_table[i];
		s->views[i].st = s;
		s->views[i].sort = 2; /* classes: shallow */
	}
	return s;
}

void tview_free_data(struct tview *v);

static void view_free(struct tview *v)
{
	rows_clear(v);
	free(v->rows.v);
	free(v->colhead);
	free(v->filter);
	free(v->exact);
	pcre2_code_free(v->filter_re);
	tview_free_data(v);
	free(v->data);
}

static void step_free(struct hstep *s)
{
	for (int i = 0; i < V_COUNT; i++)
		view_free(&s->views[i]);
	objset_free(&s->set);
	free(s->title);
	free(s->expr);
	free(s);
}

static struct hstep *cur_step(struct tui *t) { return t->steps[t->cur]; }
static struct tview *cur_view(struct tui *t) { return &cur_step(t)->views[cur_step(t)->view]; }

/* Make step k the current one; the views work on its dump. */
static void step_go(struct tui *t, size_t k)
{
	t->cur = k;
	t->h = t->steps[k]->h;
}

/* Build the view if it never was; -1 if cancelled (it stays unbuilt). */
static int view_ensure(struct tui *t, struct tview *v)
{
	if (v->built)
		return 0;
	tui_work_begin(t, "building the view");
	int rc = v->ops->build(t, v);
	if (tui_work_end(t) < 0 || rc < 0) {
		rows_clear(v);
		return -1;
	}
	v->built = 1;
	return 0;
}

/* Rebuild after a change of its options; keeps the cursor row index. */
int tview_rebuild(struct tui *t, struct tview *v);
int tview_rebuild(struct tui *t, struct tview *v)
{
	size_t cur = v->cur;

	rows_clear(v);
	v->built = 0;
	if (view_ensure(t, v) < 0)
		return -1;
	v->cur = v->rows.n ? (cur < v->rows.n ? cur : v->rows.n - 1) : 0;
	return 0;
}

/* Push a step after the current one; the forward history goes. */
void tui_push(struct tui *t, struct use *u)
{
	struct hstep *from = cur_step(t);
	char *expr = NULL;

	struct heap *h = u->h ? u->h : from->h;

	/* "object ..." and "gone ..." stand alone; objects of the baseline's
	 * side are named from its gone objects */
	if (from->expr != NULL && u->expr != NULL && *u->expr) {
		if (strncmp(u->expr, "object ", 7) == 0 && h != t->main)
			expr = xasprintf("gone | %s", u->expr);
		else if (strcmp(from->expr, "all") == 0 || strncmp(u->expr, "object ", 7) == 0 ||
			 strncmp(u->expr, "gone", 4) == 0)
			expr = xstrdup(u->expr);
		else
			expr = xasprintf("%s | %s", from->expr, u->expr);
	}
	for (size_t i = t->cur + 1; i < t->nsteps; i++)
		step_free(t->steps[i]);
	t->nsteps = t->cur + 1;
	t->steps = xreallocarray(t->steps, t->nsteps + 1, sizeof *t->steps);
	struct hstep *s = step_new(h, u->set, u->title, expr);
	s->bl_dep = from->bl_dep || u->bl_dep || h != t->main;
	s->view = from->view == V_INSPECT ? V_CLASSES : from->view; /* a group: see its objects */
	if (s->view == V_CLASSES && u->set.count < 50) /* a few objects: show them */
		s->view = V_BIGGEST;
	t->steps[t->nsteps++] = s;
	step_go(t, t->nsteps - 1);
	free(expr);
	free(u->title);
	free(u->expr);
	if (view_ensure(t, cur_view(t)) < 0)
		tui_message(t, 1, "view not built: cancelled");
}

/* Apply one engine step to the current set (use menu). */
static void use_step(struct tui *t, enum step_op op, const char *title)
{
	struct step st = { .op = op };
	struct use u = { .title = NULL };
	struct sbuf err, ex;

	if ((op == ST_NEW || op == ST_OLD) && t->h != t->main) {
		tui_message(t, 1, "%s", "this step is on the baseline's side: new and old are about the open "
				       "dump's objects");
		return;
	}
	sbuf_init(&err);
	sbuf_init(&ex);
	u.set = cur_step(t)->set; /* a copy: step_apply replaces it */
	u.set.bits = xmalloc(bits_words(t->h->n) * sizeof *u.set.bits);
	memcpy(u.set.bits, cur_step(t)->set.bits, bits_words(t->h->n) * sizeof *u.set.bits);
	tui_work_begin(t, title);
	int rc = step_apply(t->h, &st, &u.set, &t->prog, &err);
	if (tui_work_end(t) < 0 || rc < 0) {
		if (rc < 0)
			tui_message(t, 1, "%s", err.buf);
		objset_free(&u.set);
	} else {
		step_to_string(&st, &ex);
		u.title = xasprintf("%s of %llu objects", title,
				    (unsigned long long)cur_step(t)->set.count);
		u.expr = sbuf_detach(&ex);
		u.bl_dep = op == ST_NEW || op == ST_OLD;
		tui_push(t, &u);
	}
	sbuf_free(&err);
	sbuf_free(&ex);
}

static void use_rows(struct tui *t, int reached)
{
	struct tview *v = cur_view(t);
	struct use u = { .title = NULL };

	if (v->ops->use == NULL || v->ops->use(t, v, reached, &u) < 0)
		return;
	if (u.set.count == 0) {
		objset_free(&u.set);
		free(u.title);
		free(u.expr);
		tui_message(t, 1, "no objects to use");
		return;
	}
	tui_push(t, &u);
}

/* The baseline's objects that are gone: a step on the baseline's side. */
static void use_gone(struct tui *t)
{
	struct use u = { .title = NULL };

	if (t->bl == NULL || !baseline_has_old(t->bl)) {
		tui_message(t, 1, "%s", t->bl == NULL ? "no baseline: press B to load one"
						      : "gone needs a baseline dump; the agent's mark has none");
		return;
	}
	if (t->bl->gone.count == 0) {
		tui_message(t, 0, "nothing is gone since the baseline");
		return;
	}
	u.set = t->bl->gone;
	u.set.bits = xmalloc(bits_words(t->old->n) * sizeof *u.set.bits);
	memcpy(u.set.bits, t->bl->gone.bits, bits_words(t->old->n) * sizeof *u.set.bits);
	u.title = xasprintf("Gone since the baseline: %llu objects", (unsigned long long)u.set.count);
	u.expr = xstrdup("gone");
	u.h = t->old;
	tui_push(t, &u);
}

/* Every view of every step is built again when next shown (a baseline
 * or the rules changed); with `analyses`, the steps' retained sizes
 * are unknown again too (the dominators changed). */
static void views_reset(struct tui *t, int analyses)
{
	for (size_t i = 0; i < t->nsteps; i++) {
		for (int j = 0; j < V_COUNT; j++) {
			struct tview *v = &t->steps[i]->views[j];
			rows_clear(v);
			v->built = 0;
			tview_reset(v);
		}
		if (analyses)
			t->steps[i]->retained_known = 0;
	}
}

/* Drop the baseline: the steps that new, old or gone made go (the
 * history up to the first of them: the ones after rest on it), the views
 * that show new and old are built again. */
static void baseline_drop(struct tui *t)
{
	size_t k = 0;

	while (k < t->nsteps && !t->steps[k]->bl_dep)
		k++;
	if (k < t->nsteps) {
		for (size_t i = k; i < t->nsteps; i++)
			step_free(t->steps[i]);
		t->nsteps = k;
		if (t->cur >= k)
			step_go(t, k - 1);
	}
	views_reset(t, 0);
	t->main->baseline = NULL;
	if (t->bl != NULL) {
		baseline_free(t->bl);
		free(t->bl);
		t->bl = NULL;
	}
	if (t->old != NULL) {
		heap_free(t->old);
		free(t->old);
		t->old = NULL;
	}
	free(t->baseline);
	t->baseline = NULL;
}

/* Open path as the baseline of the open dump, in place of the one
 * before. 0, or -1 with err set and nothing changed. */
static int baseline_load(struct tui *t, const char *path, struct sbuf *err)
{
	struct heap *old = xmalloc(sizeof *old);
	struct baseline *bl = xcalloc(1, sizeof *bl);
	struct open_opts oo = t->oo;
	int rc;

	oo.quiet = 1; /* the screen owns the terminal: warnings are collected */
	tui_work_begin(t, "opening the baseline");
	rc = heap_open(old, path, &oo, &t->prog, err);
	if (rc == 0) {
		heap_need(old, HP_ALL, &t->prog);
		t->prog.phase = "matching the two dumps";
		rc = baseline_compare(t->main, old, bl, &t->prog, err);
		if (rc < 0)
			heap_free(old);
	}
	if (tui_work_end(t) < 0 && rc == 0) {
		heap_free(old);
		rc = -1;
		sbuf_adds(err, "cancelled");
	}
	if (rc < 0) {
		baseline_free(bl);
		free(bl);
		free(old);
		return -1;
	}
	baseline_drop(t);
	t->old = old;
	t->bl = bl;
	t->main->baseline = bl;
	t->baseline = xstrdup(path);
	return 0;
}

/* B: ask for a baseline dump. */
static void baseline_prompt(struct tui *t)
{
	char *q = tui_prompt(t, "baseline (the earlier dump of this JVM): ", NULL, NULL);
	struct sbuf err;

	if (q == NULL || *q == '\0') {
		free(q);
		return;
	}
	sbuf_init(&err);
	if (baseline_load(t, q, &err) < 0) {
		tui_message(t, 1, "%s", err.buf);
	} else {
		struct sbuf sum;
		sbuf_init(&sum);
		baseline_summary(t->bl, &sum);
		tui_message(t, 0, "baseline loaded: %s", sum.buf);
		sbuf_free(&sum);
		view_ensure(t, cur_view(t));
	}
	sbuf_free(&err);
	free(q);
}

static void exact_retained(struct tui *t)
{
	struct hstep *s = cur_step(t);
	uint64_t count;

	if (s->retained_known)
		return;
	tui_work_begin(t, "retained size");
	t->prog.total = t->h->n;
	uint64_t bytes = analysis_retained_set(t->h, s->set.bits, NULL, &count, &t->prog);
	if (tui_work_end(t) == 0) {
		s->retained = bytes;
		s->retained_known = 1;
	}
}

/* No control character, C0 or C1 (UTF-8 C2 80..9F), in s? */
static int term_safe(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f || (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f))
			return 0;
	return 1;
}

/* 'text' for a POSIX shell: a ' inside becomes '\''. */
static void sh_quote(struct sbuf *sb, const char *s)
{
	sbuf_addc(sb, '\'');
	for (; *s; s++)
		if (*s == '\'')
			sbuf_adds(sb, "'\\''");
		else
			sbuf_addc(sb, *s);
	sbuf_addc(sb, '\'');
}

/* The command that makes this step: the expression first, so that a
 * narrow screen still shows it whole. */
static void show_expr(struct tui *t)
{
	struct hstep *s = cur_step(t);
	struct sbuf cmd;

	if (s->expr == NULL) {
		tui_message(t, 0, "this step has no -e expression (a selection the steps cannot name)");
		return;
	}
	sbuf_init(&cmd);
	sbuf_adds(&cmd, "heapwalk -e ");
	sh_quote(&cmd, s->expr);
	if (t->baseline != NULL) {
		sbuf_adds(&cmd, " --baseline ");
		sh_quote(&cmd, t->baseline);
	}
	sbuf_addc(&cmd, ' ');
	sh_quote(&cmd, t->dump);
	if (!term_safe(cmd.buf)) {
		tui_message(t, 0, "%s", cmd.buf); /* escaped */
	} else { /* as it is, to copy */
		free(t->msg);
		t->msg = sbuf_detach(&cmd);
		t->msg_error = 0;
	}
	sbuf_free(&cmd);
}

/* ---- drawing ---- */
/* "rules: jdk" or "rules: jdk, gradle (2 of 9 groups off)": the files
 * the groups come from (base names without ".rules"), as applied. */
static void rules_state(const struct tui *t, struct sbuf *out)
{
	const struct ruleset *rs = t->oo.rules;
	struct sbuf names;
	size_t off = 0;

	if (rs == NULL || rs->ngroups == 0) {
		sbuf_adds(out, "no rules");
		return;
	}
	sbuf_init(&names);
	for (size_t i = 0; i < rs->ngroups; i++) {
		const char *f = rs->groups[i].file ? rs->groups[i].file : "?";
		const char *b = strrchr(f, '/');
		size_t n;
		b = b ? b + 1 : f;
		n = strlen(b);
		if (n > 6 && strcmp(b + n - 6, ".rules") == 0)
			n -= 6;
		off += !rs->groups[i].enabled;
		/* listed already? (a few files: a search is enough) */
		int seen = 0;
		for (size_t j = 0; j < i && !seen; j++) {
			const char *g = rs->groups[j].file ? rs->groups[j].file : "?";
			const char *c = strrchr(g, '/');
			c = c ? c + 1 : g;
			seen = strncmp(c, b, n) == 0 && (c[n] == '\0' || strcmp(c + n, ".rules") == 0);
		}
		if (seen)
			continue;
		if (names.len)
			sbuf_adds(&names, ", ");
		esc_append(&names, (const uint8_t *)b, n, 0);
	}
	sbuf_printf(out, "rules: %s", names.buf);
	if (off)
		sbuf_printf(out, " (%zu of %zu groups off)", off, rs->ngroups);
	sbuf_free(&names);
}

static void draw_line(int y, int color, const char *s)
{
	move(y, 0);
	attrset(attr_of(color));
	put(s, COLS, 1);
	attrset(A_NORMAL);
}

static void draw_header(struct tui *t)
{
	char a[32], b[32], line[512];
	struct hstep *s = cur_step(t);

	fmt_bytes(a, sizeof a, t->h->total_shallow);
	struct sbuf d, bl;
	sbuf_init(&d);
	sbuf_init(&bl);
	if (t->h == t->main) {
		esc_append(&d, (const uint8_t *)t->dump, strlen(t->dump), 0);
		if (t->bl != NULL)
			baseline_summary(t->bl, &bl);
		else
			sbuf_adds(&bl, "no baseline (B: load one)");
	} else { /* a step of gone objects, or from them */
		esc_append(&d, (const uint8_t *)t->baseline, strlen(t->baseline), 0);
		sbuf_adds(&bl, "the baseline's side: its objects, not the open dump's");
	}
	struct sbuf rl;
	sbuf_init(&rl);
	rules_state(t, &rl);
	/* too wide: the directory goes first, then the baseline hint, then
	 * the rules state moves to the end (the counts matter more), then
	 * "no baseline" goes */
	const char *base = strrchr(d.buf, '/'), *file = d.buf;
	unsigned long long n = (unsigned long long)(t->h->n - 1);
	for (int k = 0; k < 5; k++) {
		if (k == 1 && base != NULL)
			file = base + 1;
		if (k == 2 && t->bl == NULL && t->h == t->main) {
			sbuf_reset(&bl);
			sbuf_adds(&bl, "no baseline");
		}
		if (k == 4 && t->bl == NULL && t->h == t->main) /* then none at all */
			snprintf(line, sizeof line, " heapwalk  %s  %llu objects  %s heap  %s", file, n, a,
				 rl.buf);
		else if (k < 3)
			snprintf(line, sizeof line, " heapwalk  %s  %llu objects  %s heap  %s  %s", file, n, a,
				 rl.buf, bl.buf);
		else
			snprintf(line, sizeof line, " heapwalk  %s  %llu objects  %s heap  %s  %s", file, n, a,
				 bl.buf, rl.buf);
		if (text_width(line) <= COLS)
			break;
	}
	sbuf_free(&d);
	sbuf_free(&bl);
	sbuf_free(&rl);
	draw_line(0, C_TITLE, line);
	fmt_bytes(a, sizeof a, s->set.shallow);
	if (s->retained_known)
		fmt_bytes(b, sizeof b, s->retained);
	snprintf(line, sizeof line, " Step %zu: %s  |  %llu objects, %s shallow, retained %s", t->cur + 1,
		 s->title, (unsigned long long)s->set.count, a,
		 s->retained_known ? b : "? (e: compute)");
	draw_line(1, C_STEP, line);
	move(2, 0);
	int x = 0, all = 0, pad = 1, brief = 0;
	for (int i = 0; i < V_COUNT; i++)
		all += (int)strlen(view_table[i]->name) + 3;
	if (all > COLS) { /* 80 columns: short names, without margins */
		pad = 0;
		brief = 1;
		addch(' ');
		x = 1;
	}
	for (int i = 0; i < V_COUNT; i++) {
		const char *name = brief && view_table[i]->short_name ? view_table[i]->short_name
								       : view_table[i]->name;
		int w = (int)strlen(name) + 2 * pad;
		if (x + w > COLS)
			break;
		attrset(attr_of(i == (int)s->view ? C_TABSEL : C_TAB));
		if (pad)
			addch(' ');
		addstr(name);
		if (pad)
			addch(' ');
		attrset(A_NORMAL);
		x += w;
		if (x < COLS) {
			addch(' ');
			x++;
		}
	}
	clrtoeol();
}

static int pane_rows(const struct tui *t) { return t->rows - 6 > 1 ? t->rows - 6 : 1; }

static void draw_rows(struct tui *t)
{
	struct tview *v = cur_view(t);

	if (v->ops->head != NULL)
		v->ops->head(v);
	int h = pane_rows(t), rw = v->colhead ? text_width(v->colhead) : 0;
	int lw = COLS - rw - 1;

	if (lw < 10)
		lw = 10;
	move(3, 0);
	attrset(attr_of(C_HEAD));
	put(v->lefthead, lw, 1);
	addch(' ');
	put(v->colhead ? v->colhead : "", COLS - lw - 1, 1);
	attrset(A_NORMAL);
	if (v->cur >= v->rows.n)
		v->cur = v->rows.n ? v->rows.n - 1 : 0;
	if (v->cur < v->top)
		v->top = v->cur;
	if (v->cur >= v->top + (size_t)h)
		v->top = v->cur - (size_t)h + 1;
	for (int y = 0; y < h; y++) {
		size_t i = v->top + (size_t)y;
		move(4 + y, 0);
		if (i >= v->rows.n) {
			if (v->rows.n == 0 && y == 0)
				put(v->built ? "  (nothing to show)" : "  (not built: press ^L)", COLS, 0);
			clrtoeol();
			continue;
		}
		struct row *r = &v->rows.v[i];
		attr_t a = i == v->cur ? attr_of(C_CURSOR) : r->marked ? attr_of(C_MARK) : A_NORMAL;
		attrset(a);
		char ind[80];
		int d = r->depth < 30 ? r->depth : 30;
		memset(ind, ' ', (size_t)d * 2);
		ind[d * 2] = '\0';
		int used = put(r->marked ? "*" : " ", 1, 0);
		used += put(ind, lw - used, 0);
		used += put(r->open < 0 ? "  " : r->open ? "- " : "+ ", lw - used, 0);
		put(r->left, lw - used, 1);
		addch(' ');
		put(r->right, COLS - lw - 1, 1);
		attrset(A_NORMAL);
	}
}

/* The key hint: as many as fit, "? help  q quit" always. */
static const char *hint(int cols)
{
	static const char *const parts[] = { " Enter use", "Space mark", "Tab view", "+/- expand",
					     "Left/Right steps", "u use...", "/ search", "f filter",
					     "s sort", "x expression" };
	static char buf[512];
	const char *tail = "  ? help  q quit";
	size_t len = 0, tl = strlen(tail);

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
		size_t pl = strlen(parts[i]) + (i ? 2 : 0);
		if ((int)(len + pl + tl) > cols || len + pl + tl >= sizeof buf)
			break;
		snprintf(buf + len, sizeof buf - len, "%s%s", i ? "  " : "", parts[i]);
		len += pl;
	}
	snprintf(buf + len, sizeof buf - len, "%s", tail);
	return buf;
}

static void draw_footer(struct tui *t)
{
	struct sbuf sb;

	sbuf_init(&sb);
	/* the breadcrumb: ends kept, the middle elided when too long */
	for (size_t i = 0; i < t->nsteps; i++) {
		if (i > 0)
			sbuf_adds(&sb, " > ");
		sbuf_printf(&sb, i == t->cur ? "[%zu %s]" : "%zu %s", i + 1, t->steps[i]->title);
	}
	const char *crumb = sb.buf;
	int w = text_width(crumb);
	if (w > COLS - 1) { /* show the end, where the current steps are */
		while (w > COLS - 4 && *crumb) {
			crumb++;
			while ((*crumb & 0xc0) == 0x80)
				crumb++;
			w = text_width(crumb);
		}
		move(t->rows - 2, 0);
		attrset(attr_of(C_CRUMB));
		addstr("...");
		put(crumb, COLS - 3, 1);
		attrset(A_NORMAL);
	} else {
		draw_line(t->rows - 2, C_CRUMB, crumb);
	}
	sbuf_free(&sb);
	if (t->msg != NULL)
		draw_line(t->rows - 1, t->msg_error ? C_ERROR : C_HINT, t->msg);
	else
		draw_line(t->rows - 1, C_HINT, hint(t->cols));
}

void tui_draw(struct tui *t)
{
	getmaxyx(stdscr, t->rows, t->cols);
	erase();
	if (t->rows < 8 || t->cols < 40) {
		mvaddstr(0, 0, "heapwalk: the terminal is too small");
		refresh();
		return;
	}
	draw_header(t);
	draw_rows(t);
	draw_footer(t);
	move(t->rows - 1, t->cols - 1);
	refresh();
}

/* ---- prompts and popups ---- */
char *tui_prompt(struct tui *t, const char *label, void (*live)(struct tui *, const char *, void *),
		 void *arg)
{
	struct sbuf in;

	sbuf_init(&in);
	curs_set(1);
	for (;;) {
		move(t->rows - 1, 0);
		attrset(A_NORMAL);
		put(label, COLS, 0);
		put(in.buf, COLS - text_width(label) - 1, 0);
		clrtoeol();
		refresh();
		int c = read_key(stdscr);
		if (c == 27 || c == 3) {
			sbuf_free(&in);
			curs_set(0);
			return NULL;
		}
		if (c == '\n' || c == '\r' || c == KEY_ENTER)
			break;
		if (c == KEY_BACKSPACE || c == 127 || c == 8) {
			while (in.len > 0 && (in.buf[in.len - 1] & 0xc0) == 0x80)
				in.len--;
			if (in.len > 0)
				in.len--;
			in.buf[in.len] = '\0';
		} else if (c == KEY_RESIZE) {
			tui_draw(t);
			continue;
		} else if (c >= 32 && c < 256 && c != 127) {
			sbuf_addc(&in, (char)c);
		} else {
			continue;
		}
		if (live != NULL) {
			live(t, in.buf, arg);
			tui_draw(t);
		}
	}
	curs_set(0);
	return sbuf_detach(&in);
}

/* A list in a box; returns the chosen index or -1. */
static int popup(struct tui *t, const char *title, char **items, size_t n, size_t sel)
{
	int w = COLS - 8 < 100 ? COLS - 8 : 100, hgt = (int)n + 2 > t->rows - 4 ? t->rows - 4 : (int)n + 2;
	WINDOW *win = newwin(hgt, w, 2, 4);
	size_t top = 0;
	int res = -1;

	keypad(win, TRUE);
	for (;;) {
		werase(win);
		box(win, 0, 0);
		mvwaddnstr(win, 0, 2, title, w - 4);
		if (sel < top)
			top = sel;
		if (sel >= top + (size_t)(hgt - 2))
			top = sel - (size_t)(hgt - 2) + 1;
		for (int y = 0; y < hgt - 2 && top + (size_t)y < n; y++) {
			wattrset(win, top + (size_t)y == sel ? attr_of(C_CURSOR) : A_NORMAL);
			wmove(win, y + 1, 1);
			size_t k = text_fit(items[top + (size_t)y], w - 2, NULL);
			waddnstr(win, items[top + (size_t)y], (int)k);
			wattrset(win, A_NORMAL);
		}
		wrefresh(win);
		int c = read_key(win);
		enum request r = key_request(c);
		if (r == REQ_UP && sel > 0)
			sel--;
		else if (r == REQ_DOWN && sel + 1 < n)
			sel++;
		else if (r == REQ_USE) {
			res = (int)sel;
			break;
		} else if (c == 27 || r == REQ_QUIT || r == REQ_BACK) {
			break;
		} else if (c < 256 && c > 32) { /* the item's first letter picks it */
			for (size_t i = 0; i < n; i++)
				if (items[i][0] == c) {
					res = (int)i;
					goto out;
				}
		}
	}
out:
	delwin(win);
	touchwin(stdscr);
	return res;
}

static void help(struct tui *t)
{
	struct sbuf sb;
	sbuf_init(&sb);
	sbuf_adds(&sb, "heapwalk keys (Esc or q closes; Up/Down scroll)\n\n");
	keys_help(&sb);
	sbuf_adds(&sb, "\nViews: Classes, Biggest (dominator tree), Outgoing and Incoming references,\n"
		       "Merged outgoing, incoming and dominating references, Allocations (hot spots\n"
		       "and call tree, for snapshots with allocation traces), Inspections (Enter runs\n"
		       "one on the step's set; Enter on a group of its result uses it). Every Enter\n"
		       "on objects makes a new step; the breadcrumb at the bottom lists them.\n"
		       "C opens the rules screen. See heapwalk(1).\n");
	char **lines = NULL;
	size_t n = 0;
	for (char *p = sb.buf, *q; p != NULL && *p; p = q ? q + 1 : NULL) {
		q = strchr(p, '\n');
		if (q != NULL)
			*q = '\0';
		lines = xreallocarray(lines, n + 1, sizeof *lines);
		lines[n++] = p;
	}
	size_t top = 0;
	for (;;) {
		erase();
		for (int y = 0; y < t->rows && top + (size_t)y < n; y++) {
			move(y, 0);
			put(lines[top + (size_t)y], COLS, 0);
		}
		refresh();
		int c = read_key(stdscr);
		enum request r = key_request(c);
		if (c == KEY_RESIZE)
			getmaxyx(stdscr, t->rows, t->cols);
		else if (r == REQ_DOWN || r == REQ_PAGE_DOWN) {
			size_t step = r == REQ_DOWN ? 1 : (size_t)t->rows - 1;
			if (top + (size_t)t->rows < n)
				top = top + step + (size_t)t->rows > n ? n - (size_t)t->rows : top + step;
		} else if (r == REQ_UP || r == REQ_PAGE_UP) {
			size_t step = r == REQ_UP ? 1 : (size_t)t->rows - 1;
			top = top > step ? top - step : 0;
		} else if (c == 27 || r == REQ_QUIT || r == REQ_HELP) {
			break;
		}
	}
	free(lines);
	sbuf_free(&sb);
}

/* ---- the rules screen ---- */
struct rules_ui {
	struct ruleset *rs;
	int *was;           /* the groups' flags as applied */
	size_t *nrules;     /* rules per group */
	size_t sel, top;
};

static void rules_draw(struct tui *t, struct rules_ui *u)
{
	int h = t->rows - 3 > 1 ? t->rows - 3 : 1;
	struct sbuf l;

	erase();
	draw_line(0, C_TITLE, " Rules: Space turns a group on or off, Enter or a applies (recomputes), "
			      "q or Esc closes");
	sbuf_init(&l);
	size_t on = 0, changed = 0;
	for (size_t i = 0; i < u->rs->ngroups; i++) {
		on += u->rs->groups[i].enabled != 0;
		changed += (u->rs->groups[i].enabled != 0) != (u->was[i] != 0);
	}
	sbuf_printf(&l, " %zu of %zu groups on; %zu changed, not applied yet", on, u->rs->ngroups, changed);
	draw_line(1, C_STEP, l.buf);
	if (u->sel < u->top)
		u->top = u->sel;
	if (u->sel >= u->top + (size_t)h)
		u->top = u->sel - (size_t)h + 1;
	for (int y = 0; y < h && u->top + (size_t)y < u->rs->ngroups; y++) {
		size_t i = u->top + (size_t)y;
		const struct rule_group *g = &u->rs->groups[i];
		sbuf_reset(&l);
		sbuf_adds(&l, g->enabled ? " [x] " : " [ ] ");
		esc_append(&l, (const uint8_t *)g->name, strlen(g->name), 0);
		sbuf_printf(&l, "  (%zu rule%s, ", u->nrules[i], u->nrules[i] == 1 ? "" : "s");
		esc_append(&l, (const uint8_t *)(g->file ? g->file : "?"), strlen(g->file ? g->file : "?"), 0);
		sbuf_adds(&l, ")  ");
		if (g->description)
			esc_append(&l, (const uint8_t *)g->description, strlen(g->description), 0);
		draw_line(2 + y, i == u->sel ? C_CURSOR : C_CRUMB, l.buf);
	}
	sbuf_free(&l);
	draw_line(t->rows - 1, t->msg && t->msg_error ? C_ERROR : C_HINT,
		  t->msg ? t->msg : " Space on/off  Enter apply  q close without applying  ? help");
	refresh();
}

/* Apply the groups as flagged to the open dump (and the baseline dump):
 * 0, or -1 if cancelled, with every dump as before. */
static int rules_apply(struct tui *t)
{
	struct ruleset *rs = t->oo.rules;
	int rc;

	tui_work_begin(t, "applying the rules");
	rc = heap_apply_rules(t->main, rs, &t->prog);
	if (rc == 0 && t->old != NULL && heap_apply_rules(t->old, rs, &t->prog) < 0)
		rc = 1; /* the open dump has them, its baseline not */
	tui_work_end(t);
	return rc;
}

/* C: the groups of the rules, turned on and off, then applied; the
 * views of every step are built again (the sets stay). */
static void rules_screen(struct tui *t)
{
	struct rules_ui u = { .rs = t->oo.rules };

	if (u.rs == NULL || u.rs->ngroups == 0) {
		tui_message(t, 1, "no rules loaded (heapwalk --rules FILE loads some)");
		return;
	}
	u.was = xmalloc(u.rs->ngroups * sizeof *u.was);
	u.nrules = xcalloc(u.rs->ngroups, sizeof *u.nrules);
	for (size_t i = 0; i < u.rs->ngroups; i++)
		u.was[i] = u.rs->groups[i].enabled;
	for (size_t i = 0; i < u.rs->n; i++)
		if (u.rs->rules[i].group < u.rs->ngroups)
			u.nrules[u.rs->rules[i].group]++;
	free(t->msg);
	t->msg = NULL;
	int apply = 0;
	for (;;) {
		rules_draw(t, &u);
		int c = read_key(stdscr);
		enum request r = key_request(c);
		size_t page = t->rows > 4 ? (size_t)t->rows - 4 : 1;
		free(t->msg);
		t->msg = NULL;
		if (c == KEY_RESIZE)
			getmaxyx(stdscr, t->rows, t->cols);
		else if (r == REQ_UP && u.sel > 0)
			u.sel--;
		else if (r == REQ_DOWN && u.sel + 1 < u.rs->ngroups)
			u.sel++;
		else if (r == REQ_PAGE_UP)
			u.sel = u.sel > page ? u.sel - page : 0;
		else if (r == REQ_PAGE_DOWN)
			u.sel = u.sel + page < u.rs->ngroups ? u.sel + page : u.rs->ngroups - 1;
		else if (r == REQ_TOP)
			u.sel = 0;
		else if (r == REQ_BOTTOM)
			u.sel = u.rs->ngroups - 1;
		else if (r == REQ_MARK)
			rules_enable(u.rs, u.rs->groups[u.sel].name, !u.rs->groups[u.sel].enabled);
		else if (r == REQ_USE || c == 'a') {
			apply = 1;
			break;
		} else if (c == 27 || r == REQ_QUIT || r == REQ_BACK || r == REQ_RULES)
			break;
		else if (c != ERR)
			tui_message(t, 1, "Space: on or off, Enter: apply, q: close");
	}
	int changed = 0;
	for (size_t i = 0; i < u.rs->ngroups; i++)
		changed |= (u.rs->groups[i].enabled != 0) != (u.was[i] != 0);
	int rc = apply && changed ? rules_apply(t) : -1;
	if (rc != 0) { /* not applied (or cancelled): the flags as they were */
		for (size_t i = 0; i < u.rs->ngroups; i++)
			u.rs->groups[i].enabled = u.was[i];
	}
	if (rc == 1) /* the baseline's was cancelled: the open dump's back */
		heap_apply_rules(t->main, u.rs, NULL);
	if (rc == 0) {
		views_reset(t, 1);
		struct sbuf st;
		sbuf_init(&st);
		rules_state(t, &st);
		tui_message(t, 0, "applied: %s; every view is computed again", st.buf);
		sbuf_free(&st);
	} else if (apply && changed) {
		tui_message(t, 1, "cancelled: the rules are as they were");
	} else if (apply) {
		tui_message(t, 0, "no group changed: nothing to apply");
	}
	free(u.was);
	free(u.nrules);
	touchwin(stdscr);
}

static void step_list(struct tui *t)
{
	char **items = xmalloc(t->nsteps * sizeof *items);

	for (size_t i = 0; i < t->nsteps; i++) {
		char a[32];
		fmt_bytes(a, sizeof a, t->steps[i]->set.shallow);
		items[i] = xasprintf("%zu %s  (%llu objects, %s)", i + 1, t->steps[i]->title,
				     (unsigned long long)t->steps[i]->set.count, a);
	}
	int k = popup(t, "Steps (Enter: go)", items, t->nsteps, t->cur);
	if (k >= 0)
		step_go(t, (size_t)k);
	for (size_t i = 0; i < t->nsteps; i++)
		free(items[i]);
	free(items);
}

static void use_menu(struct tui *t)
{
	char *items[] = { "retained  the objects the set retains (R)",
			  "incoming  the objects that refer to the set: referrers (I)",
			  "outgoing  the objects the set refers to: referents (O)",
			  "dominated the objects the set dominates directly (D)",
			  "selected  the marked rows, or the cursor row (Enter)",
			  "new       the objects created since the baseline or mark (>)",
			  "old       the objects that existed at the baseline or mark (<)",
			  "gone      the baseline's objects that no longer exist (~)" };
	switch (popup(t, "Use", items, 8, 0)) {
	case 0: use_step(t, ST_RETAINED, "Retained"); break;
	case 1: use_step(t, ST_REFERRERS, "Referrers"); break;
	case 2: use_step(t, ST_REFERENTS, "Referents"); break;
	case 3: use_step(t, ST_DOMINATED, "Dominated"); break;
	case 4: use_rows(t, 0); break;
	case 5: use_step(t, ST_NEW, "New objects"); break;
	case 6: use_step(t, ST_OLD, "Old objects"); break;
	case 7: use_gone(t); break;
	default: break;
	}
}

/* ---- moving, searching, expanding ---- */
static void expand_row(struct tui *t, struct tview *v, size_t i)
{
	struct rowvec kids = { 0 };

	if (i >= v->rows.n || v->rows.v[i].open != 0 || v->ops->expand == NULL)
		return;
	tui_work_begin(t, "expanding");
	int rc = v->ops->expand(t, v, i, &kids);
	if (tui_work_end(t) < 0 || rc < 0) {
		for (size_t k = 0; k < kids.n; k++)
			row_free(v, &kids.v[k]);
		free(kids.v);
		return;
	}
	uint16_t d = v->rows.v[i].depth + 1;
	for (size_t k = 0; k < kids.n; k++)
		kids.v[k].depth = d;
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
	if (kids.n == 0)
		tui_message(t, 0, "nothing below this row");
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
	for (size_t k = i + 1; k < j; k++)
		row_free(v, &v->rows.v[k]);
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

static void search(struct tui *t, int dir)
{
	struct tview *v = cur_view(t);

	if (t->search_re == NULL) {
		tui_message(t, 1, "no search: press /");
		return;
	}
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(t->search_re, NULL);
	size_t n = v->rows.n;
	for (size_t k = 1; k <= n; k++) {
		size_t i = (v->cur + (dir > 0 ? k : n - k)) % n;
		if (pcre2_match(t->search_re, (PCRE2_SPTR)v->rows.v[i].left, PCRE2_ZERO_TERMINATED, 0, 0, md,
				NULL) >= 0) {
			v->cur = i;
			pcre2_match_data_free(md);
			return;
		}
	}
	pcre2_match_data_free(md);
	tui_message(t, 1, "not found: %s", t->search);
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

static void dispatch(struct tui *t, int c)
{
	struct tview *v = cur_view(t);
	struct hstep *s = cur_step(t);
	enum request r = key_request(c);
	size_t page = (size_t)pane_rows(t);

	free(t->msg);
	t->msg = NULL;
	if (r != REQ_NONE && v->ops->request != NULL && v->ops->request(t, v, r))
		return;
	switch (r) {
	case REQ_UP: if (v->cur > 0) v->cur--; break;
	case REQ_DOWN: if (v->cur + 1 < v->rows.n) v->cur++; break;
	case REQ_PAGE_UP: v->cur = v->cur > page ? v->cur - page : 0; break;
	case REQ_PAGE_DOWN:
		v->cur = v->rows.n == 0 ? 0 : v->cur + page < v->rows.n ? v->cur + page : v->rows.n - 1;
		break;
	case REQ_TOP: v->cur = 0; break;
	case REQ_BOTTOM: v->cur = v->rows.n ? v->rows.n - 1 : 0; break;
	case REQ_EXPAND: expand_row(t, v, v->cur); break;
	case REQ_COLLAPSE: if (v->cur < v->rows.n) collapse_row(v, v->cur); break;
	case REQ_NEXT_VIEW:
	case REQ_PREV_VIEW:
		s->view = (enum view_id)((s->view + (r == REQ_NEXT_VIEW ? 1 : V_COUNT - 1)) % V_COUNT);
		if (view_ensure(t, cur_view(t)) < 0)
			tui_message(t, 1, "view not built: cancelled");
		break;
	case REQ_MARK:
		if (v->cur < v->rows.n) {
			v->rows.v[v->cur].marked ^= 1;
			if (v->cur + 1 < v->rows.n)
				v->cur++;
		}
		break;
	case REQ_USE: use_rows(t, 0); break;
	case REQ_USE_REACHED: use_rows(t, 1); break;
	case REQ_USE_MENU: use_menu(t); break;
	case REQ_USE_RETAINED: use_step(t, ST_RETAINED, "Retained"); break;
	case REQ_USE_REFERRERS: use_step(t, ST_REFERRERS, "Referrers"); break;
	case REQ_USE_REFERENTS: use_step(t, ST_REFERENTS, "Referents"); break;
	case REQ_USE_DOMINATED: use_step(t, ST_DOMINATED, "Dominated"); break;
	case REQ_USE_NEW: use_step(t, ST_NEW, "New objects"); break;
	case REQ_USE_OLD: use_step(t, ST_OLD, "Old objects"); break;
	case REQ_USE_GONE: use_gone(t); break;
	case REQ_BASELINE: baseline_prompt(t); break;
	case REQ_BACK:
		if (t->cur > 0)
			step_go(t, t->cur - 1);
		else
			tui_message(t, 0, "this is the first step");
		break;
	case REQ_FORWARD:
		if (t->cur + 1 < t->nsteps)
			step_go(t, t->cur + 1);
		else
			tui_message(t, 0, "this is the last step");
		break;
	case REQ_FIRST_STEP: step_go(t, 0); break;
	case REQ_STEP_LIST: step_list(t); break;
	case REQ_JUMP:
		if ((size_t)(c - '1') < t->nsteps)
			step_go(t, (size_t)(c - '1'));
		else
			tui_message(t, 1, "no step %c", c);
		break;
	case REQ_EXPR: show_expr(t); break;
	case REQ_RETAINED: exact_retained(t); break;
	case REQ_SEARCH: {
		char *q = tui_prompt(t, "search: ", NULL, NULL);
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
		break;
	}
	case REQ_SEARCH_NEXT: search(t, 1); break;
	case REQ_SEARCH_PREV: search(t, -1); break;
	case REQ_FILTER: {
		char *old = v->filter ? xstrdup(v->filter) : NULL;
		char *q = tui_prompt(t, "filter (regex): ", live_filter, v);
		if (q == NULL) /* Esc: back to the filter before */
			live_filter(t, old ? old : "", v);
		else if (*q && v->filter == NULL)
			tui_message(t, 1, "bad regex: %s", q);
		free(q);
		free(old);
		break;
	}
	case REQ_HELP: help(t); break;
	case REQ_RULES: rules_screen(t); break;
	case REQ_REDRAW:
		clearok(curscr, TRUE);
		if (!v->built && view_ensure(t, v) < 0)
			tui_message(t, 1, "view not built: cancelled");
		break;
	case REQ_QUIT: t->quit = 1; break;
	case REQ_SORT: case REQ_EXACT: case REQ_PACKAGES: case REQ_LOADERS: case REQ_GROUP:
	case REQ_NULLS: case REQ_WEAK: case REQ_PATHS: case REQ_DELTA:
		tui_message(t, 1, "not in the %s view", v->ops->name);
		break;
	default:
		if (c != KEY_RESIZE && c != ERR && c != 27) /* Esc: nothing to cancel */
			tui_message(t, 1, "unbound key: press ? for help");
		break;
	}
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
	got_signal = sig;
}

static void on_fatal(int sig)
{
	endwin(); /* not async-signal-safe, but the process dies next */
	signal(sig, SIG_DFL);
	raise(sig);
}

static void screen_init(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGSEGV, on_fatal);
	signal(SIGBUS, on_fatal);
	signal(SIGABRT, on_fatal);
	signal(SIGFPE, on_fatal);
	initscr();
	hw_set_cleanup(restore_terminal);
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
	while (!t.quit && !got_signal) {
		tui_draw(&t);
		int c = read_key(stdscr);
		if (got_signal)
			break;
		double t0 = hw_now();
		dispatch(&t, c);
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
	return got_signal ? 128 + got_signal : 0;
}
