/* browser.c — the browser's top: the key dispatch (a view's own keys,
 * then the frame's table of requests), a failure contained to the view
 * it happened in, terminal setup and the main loop (tui_main).
 *
 * The frame's other files, bottom up: tui.c (keys, rows, messages),
 * draw.c (the screen, progress), prompt.c (prompts, boxes, help),
 * steps.c (steps and their history), rules_screen.c, tree.c (opening,
 * rebuilding, searching rows). Screen, top to bottom (draw.c): the dump
 * line; the current step (title, count, shallow and retained size); the
 * view tabs; the column header; the rows; the breadcrumb of steps; the
 * key hint or a message. Handlers change state and the main loop redraws
 * everything. */
#include <errno.h>
#include <setjmp.h>
#include <locale.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "graph/resident.h"
#include "query/baseline.h"
#include "tui/frame.h"

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
/* U: the Merged views' (a row there is reached from the set's objects;
 * elsewhere Enter uses the row) */
static void rq_use_reached(struct tui *t, struct tview *v, int c)
{
	(void)c;
	if (!(v->ops->flags & VO_REACHED))
		tui_message(t, 1, "not in the %s view: U is the Merged views' (Enter uses the row)", v->ops->name);
	else
		use_rows(t, 1);
}
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

/* Another heapshot of the file: the browser starts again on it. */
static void rq_heapshot(struct tui *t, struct tview *v, int c)
{
	const struct heap *h = t->main;
	char q[64];

	(void)v;
	(void)c;
	if (h->nsnaps == 0) {
		tui_message(t, 1, "this dump holds one heap: heapshots are Mono's (.mlpd)");
		return;
	}
	snprintf(q, sizeof q, "heapshot (1 to %u, now %u): ", h->nsnaps, h->snap);
	char *a = tui_prompt(t, q, NULL, NULL), *end;
	unsigned long n = a != NULL ? strtoul(a, &end, 10) : 0;
	if (a != NULL && *a != '\0' && (*end != '\0' || n < 1 || n > h->nsnaps))
		tui_message(t, 1, "no heapshot '%s': 1 to %u", a, h->nsnaps);
	else if (a != NULL && *a != '\0' && t->old != NULL && t->old->nsnaps > 0 && n <= t->old->snap &&
		 strcmp(t->old->path, h->path) == 0)
		tui_message(t, 1, "the baseline is heapshot %u: open a later one, or load another baseline (B) "
			    "first", t->old->snap);
	else if (a != NULL && *a != '\0' && n != h->snap) {
		t->reopen = (unsigned)n;
		t->quit = 1;
	}
	free(a);
}

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
static void rq_deep(struct tui *t, struct tview *v, int c) { (void)v; (void)c; deep_size(t); }
static void rq_between(struct tui *t, struct tview *v, int c) { (void)v; (void)c; path_between(t); }
static void rq_export(struct tui *t, struct tview *v, int c) { (void)v; (void)c; export_step(t); }

static void rq_search(struct tui *t, struct tview *v, int c)
{
	char *q = tui_prompt(t, "search: ", NULL, NULL);

	(void)v;
	(void)c;
	if (q != NULL && *q) {
		pcre2_code *re = compile_regex(t, q);
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
	(void)c;
	if (!(v->ops->flags & VO_FILTER)) {
		tui_message(t, 1, "no filter in the %s view: / searches it", v->ops->name);
		return;
	}
	char *old = v->filter ? xstrdup(v->filter) : NULL;
	char *q = tui_prompt(t, "filter (regex): ", live_filter, v);

	if (q == NULL) { /* Esc: back to the filter before */
		live_filter(t, old ? old : "", v);
	} else if (*q == '\0') { /* Enter on nothing: no filter */
		live_filter(t, "", v);
		if (old != NULL)
			tui_message(t, 0, "filter off");
	} else if (v->filter == NULL || strcmp(v->filter, q) != 0) {
		/* typed as far as a valid regex, then not: the filter before */
		live_filter(t, old ? old : "", v);
		tui_message(t, 1, "bad regex, filter unchanged: %s", q);
	}
	free(q);
	free(old);
}

static void rq_row(struct tui *t, struct tview *v, int c)
{
	struct sbuf text;

	(void)c;
	if (v->cur >= v->rows.n) {
		tui_message(t, 1, "no row here");
		return;
	}
	sbuf_init(&text);
	row_whole(v, &v->rows.v[v->cur], &text);
	text_box(t, "The cursor row, whole", text.buf, "any key closes");
	sbuf_free(&text);
}

static void rq_help(struct tui *t, struct tview *v, int c) { (void)v; (void)c; help(t); }
static void rq_command(struct tui *t, struct tview *v, int c) { (void)v; (void)c; command_prompt(t); }
static void rq_root(struct tui *t, struct tview *v, int c) { (void)v; (void)c; use_root(t); }
static void rq_ignore(struct tui *t, struct tview *v, int c) { (void)v; (void)c; use_ignore(t); }
static void rq_focus(struct tui *t, struct tview *v, int c) { (void)v; (void)c; focus_list(t); }
static void rq_rules(struct tui *t, struct tview *v, int c) { (void)v; (void)c; rules_screen(t); }

static void rq_redraw(struct tui *t, struct tview *v, int c)
{
	(void)c;
	clearok(curscr, TRUE);
	v->dropped = 0; /* ^L makes a dropped view again */
	if (!v->built && view_ensure(t, v) < 0)
		tui_message(t, 1, "view not built: cancelled");
}

static void rq_quit(struct tui *t, struct tview *v, int c) { (void)v; (void)c; t->quit = 1; }
static void rq_suspend(struct tui *t, struct tview *v, int c) { (void)t; (void)v; (void)c; tui_suspend(); }

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
	[REQ_HEAPSHOT] = rq_heapshot,
	[REQ_BACK] = rq_back, [REQ_FORWARD] = rq_forward, [REQ_FIRST_STEP] = rq_first_step,
	[REQ_STEP_LIST] = rq_step_list, [REQ_JUMP] = rq_jump, [REQ_EXPR] = rq_expr, [REQ_COMMAND] = rq_command,
	[REQ_EXPORT] = rq_export,
	[REQ_ROOT] = rq_root, [REQ_IGNORE] = rq_ignore, [REQ_FOCUS] = rq_focus,
	[REQ_RETAINED] = rq_retained, [REQ_SEARCH] = rq_search, [REQ_SEARCH_NEXT] = rq_search_next,
	[REQ_SEARCH_PREV] = rq_search_next, [REQ_FILTER] = rq_filter, [REQ_HELP] = rq_help, [REQ_ROW] = rq_row,
	[REQ_RULES] = rq_rules, [REQ_REDRAW] = rq_redraw, [REQ_SUSPEND] = rq_suspend, [REQ_QUIT] = rq_quit,
	[REQ_SORT] = rq_not_here, [REQ_EXACT] = rq_not_here, [REQ_PACKAGES] = rq_not_here,
	[REQ_LOADERS] = rq_not_here, [REQ_LOADER_ONLY] = rq_not_here, [REQ_UNREACHABLE] = rq_not_here, [REQ_LIFELINES] = rq_not_here, [REQ_GROUP] = rq_not_here, [REQ_NULLS] = rq_not_here,
	[REQ_WEAK] = rq_not_here, [REQ_PATHS] = rq_not_here, [REQ_DELTA] = rq_not_here,
	[REQ_REVERSE] = rq_not_here,
	[REQ_DEEP] = rq_deep, [REQ_BETWEEN] = rq_between,
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
	if (!cur_view(t)->built && !cur_view(t)->dropped && r != REQ_QUIT && view_ensure(t, cur_view(t)) < 0)
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

static void on_tstp(int sig)
{
	(void)sig;
	tui_stop = 1;
}

/* The signals whose default ends the program (some with a core): each
 * ends the browser after it restores the terminal. */
static const int ending_signals[] = {
	SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE, SIGALRM, SIGUSR1, SIGUSR2,
	SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF,
#ifdef SIGPOLL
	SIGPOLL,
#endif
#ifdef SIGPWR
	SIGPWR,
#endif
};

/* Work refused before it starts is an answer, not a failure: a key
 * whose parts of the index there is no room for is said and not done
 * (guarded_dispatch asks heap_try_need first). Two failures inside a
 * key's work unwind to here: a part that could not be loaded after all
 * (hw_refuse: the memory went to something else meanwhile), and a dump
 * that shrank (SIGBUS); the view being built goes, the session and its
 * steps stay. Anything else is not hidden: an allocation that fails
 * (util.c's hw_fatal: "out of memory allocating N bytes", status 3), a
 * fault that is a bug (SIGSEGV, SIGFPE, an abort) restore the terminal,
 * say so in one line and end the program, the signal's with a core to
 * fix it from. */
#define GUARD_REFUSED 1000
static sigjmp_buf guard;
static volatile sig_atomic_t guarded, failed;

static void on_fatal(int sig, siginfo_t *si, void *ctx)
{
	(void)ctx;
	if (sig == SIGSEGV && si != NULL && map_fault_fix(si->si_addr))
		return; /* a page of a gzip dump, made now: read again */
	if (guarded && sig == SIGBUS) {
		guarded = 0;
		failed = sig;
		siglongjmp(guard, 1);
	}
	endwin(); /* not async-signal-safe, but the process dies next */
	if (sig == SIGBUS) /* outside a key's work: one line, as in batch */
		map_fault_exit(si != NULL ? si->si_addr : NULL, 2);
	/* a bug: said, then the signal's default (a core where allowed) */
	const char *say = sig == SIGSEGV ? "heapwalk: internal error (segmentation fault): please report it\n"
			  : sig == SIGFPE ? "heapwalk: internal error (arithmetic fault): please report it\n"
					  : "heapwalk: internal error (abort): please report it\n";
	if (write(STDERR_FILENO, say, strlen(say)) < 0) {
		/* nothing more to do: the signal ends the program next */
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static void on_abort(int sig)
{
	on_fatal(sig, NULL, NULL);
}

/* util.c's hook, before an allocation's failure or a refusal ends the
 * program: a refusal inside a key's work unwinds; a failed allocation
 * (n bytes) returns, and hw_fatal restores the terminal and ends it. */
static void on_oom(size_t n)
{
	(void)n;
	if (guarded && hw_refusal() != NULL) {
		guarded = 0;
		failed = GUARD_REFUSED;
		siglongjmp(guard, 1);
	}
}

/* After a failure: the terminal and the frame as after any key; the
 * view being made, if any, is dropped (shown empty, made again on ^L).
 * What the failed work had allocated is not freed. */
static void recover(struct tui *t, int what)
{
	struct tview *v = tui_building;
	char where[96];

	tui_building = NULL;
	/* the work that was cut short no longer holds the heaps, nor a
	 * section it was writing */
	heap_unwound(t->main);
	if (t->old != NULL)
		heap_unwound(t->old);
	nodelay(stdscr, FALSE);
	curs_set(0);
	t->prog.phase = NULL;
	t->prog.cancelled = 0;
	touchwin(stdscr);
	if (v != NULL) {
		rows_clear(v);
		v->built = 0;
		v->dropped = 1;
		snprintf(where, sizeof where, "the %s view is dropped (^L: again)", v->ops->name);
	} else {
		snprintf(where, sizeof where, "that was not done");
	}
	if (what == SIGBUS)
		tui_message(t, 1, "the dump file changed or shrank (SIGBUS): %s", where);
	else
		tui_message(t, 1, "%s: %s", hw_refusal() != NULL ? hw_refusal() : "refused", where);
	hw_refusal_clear();
}

/* Can the request be answered without the object graph, from the
 * classes' totals alone (the first screen of a dump: its classes)? The
 * graph is loaded before any other (a dump too big for the memory is
 * refused there, with a message), so that opening it costs nothing. */
static int frame_only(enum request r)
{
	switch (r) {
	case REQ_NONE: case REQ_UP: case REQ_DOWN: case REQ_PAGE_UP: case REQ_PAGE_DOWN:
	case REQ_TOP: case REQ_BOTTOM: case REQ_HELP: case REQ_REDRAW: case REQ_SUSPEND:
	case REQ_QUIT: case REQ_SEARCH: case REQ_SEARCH_NEXT: case REQ_SEARCH_PREV:
	case REQ_FILTER: case REQ_SORT: case REQ_PACKAGES: case REQ_EXPR:
		return 1;
	default:
		return 0;
	}
}

/* dispatch, with a failure contained: 0, or what failed. */
static int guarded_dispatch(struct tui *t, int c)
{
	failed = 0;
	if (sigsetjmp(guard, 1) != 0) {
		recover(t, failed);
		return failed;
	}
	guarded = 1;
	if (!frame_only(key_request(c))) {
		/* a refusal is an answer: said, and the key not done */
		struct sbuf no;
		sbuf_init(&no);
		/* loading it shows its progress, keys polled: Esc cancels */
		t->prog.cancelled = 0;
		nodelay(stdscr, TRUE);
		int rc = heap_try_need(t->h, HP_ALL, &t->prog, &no);
		if (rc == 0 && t->old != NULL) /* its side is browsed too (gone) */
			rc = heap_try_need(t->old, HP_ALL, &t->prog, &no);
		nodelay(stdscr, FALSE);
		t->prog.cancelled = 0;
		if (rc < 0) {
			guarded = 0;
			tui_message(t, 1, "%s: not done", no.buf);
			sbuf_free(&no);
			return 0;
		}
		sbuf_free(&no);
	}
	dispatch(t, c);
	guarded = 0;
	return 0;
}

static void screen_init(void)
{
	struct sigaction sa;

	/* no SA_RESTART: the read of a key fails with EINTR, and read_key
	 * sees the flag the handler set. Set before initscr, ncurses keeps
	 * its own handlers off them (its SIGTSTP leaves keypad mode off). */
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_term;
	for (size_t i = 0; i < sizeof ending_signals / sizeof ending_signals[0]; i++)
		sigaction(ending_signals[i], &sa, NULL);
	sa.sa_handler = on_tstp;
	sigaction(SIGTSTP, &sa, NULL);
	/* an overflowed stack still runs the handler: on a stack of its own */
	static char altstack[1 << 16];
	stack_t ss = { .ss_sp = altstack, .ss_size = sizeof altstack };
	sigaltstack(&ss, NULL);
	sa.sa_sigaction = on_fatal;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK; /* a second fault after recovering is caught too */
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGFPE, &sa, NULL);
	signal(SIGABRT, on_abort);
	if (stdscr == NULL)
		initscr();
	else /* again (another heapshot): the screen as it was */
		refresh();
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

int tui_main(const char *dump, const char *baseline, const char *target, const struct open_opts *oo, const char *start,
	     const char *note)
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
		struct open_opts boo = *oo;
		boo.snapshot = 0; /* the last heapshot, unless the path says FILE:N */
		t.old = xmalloc(sizeof *t.old);
		if (heap_open(t.old, baseline, &boo, &t.prog, &err) < 0) {
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
	/* the object graph is loaded when a key first needs it
	 * (guarded_dispatch) */
	/* old and new: against the baseline dump, or the agent's mark */
	t.bl = xcalloc(1, sizeof *t.bl);
	if (baseline != NULL ? baseline_compare(&h, t.old, t.bl, &t.prog, &err) == 0
			     : baseline_has_mark(&h) && baseline_from_mark(&h, t.bl, &err) == 0) {
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
	t.prog.tick = tui_tick;
	t.prog.tick_arg = &t;
	t.h = t.main = &h;
	t.dump = dump;
	t.baseline = baseline ? xstrdup(baseline) : NULL;
	t.target = target;
	t.oo = *oo;
	const char *kl = getenv("HEAPWALK_KEYLOG");
	if (kl != NULL && *kl)
		t.keylog = fopen(kl, "w");
	struct objset all;
	objset_all(&h, &all);
	t.steps = xmalloc(sizeof *t.steps);
	t.steps[0] = step_new(&h, all, "All objects", "all");
	t.nsteps = 1;
	h.warn.quiet = h.notes.quiet = 1; /* said at open; the screen owns the terminal now */
	if (t.old != NULL)
		t.old->warn.quiet = t.old->notes.quiet = 1;
	screen_init();
	getmaxyx(stdscr, t.rows, t.cols);
	struct sbuf said; /* heapwalk PID: which snapshot the baseline is, and what the engine made of it */
	sbuf_init(&said);
	if (note != NULL) {
		sbuf_adds(&said, note);
		if (t.bl != NULL) {
			sbuf_adds(&said, "; opened: ");
			baseline_label(t.bl, &said);
		}
	}
	if (h.warn.n > 0) {
		/* a dump cut short says so first: its objects past the cut are
		 * missing, and so may be its roots (every object unreachable) */
		size_t real = 0;
		for (size_t i = 0; i < h.nroot_rec; i++)
			real += h.root_rec[i].kind < RK_WEAK_ONLY;
		char cut[160] = "";
		if (h.truncated_at > 0)
			snprintf(cut, sizeof cut, "the dump is cut short at offset %llu%s; ",
				 (unsigned long long)h.truncated_at, real == 0 ? ", no GC root read: every object unreachable" : "");
		size_t nw = h.warn.n + h.warn.suppressed;
		tui_message(&t, 1, "%s%zu warning%s while reading the dump: see heapwalk info%s%s", cut, nw,
			    nw == 1 ? "" : "s", note ? "; " : "", note ? said.buf : "");
	}
	else if (note != NULL)
		tui_message(&t, 0, "%s", said.buf);
	sbuf_free(&said);
	if (start != NULL && *start != '\0') { /* --root, --ignore */
		sbuf_init(&err);
		if (command_run(&t, start, &err) < 0)
			tui_message(&t, 1, "%s", err.buf);
		sbuf_free(&err);
	}
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
	for (size_t i = 0; i < t.nhist; i++)
		free(t.hist[i]);
	free(t.hist);
	free(t.search);
	pcre2_code_free(t.search_re);
	char *bl_path = t.reopen && t.baseline != NULL ? xstrdup(t.baseline) : NULL;
	/* the file itself: FILE:N named one heapshot, and another is asked for */
	char *file = t.reopen && h.path != NULL ? xstrdup(h.path) : NULL;
	baseline_drop(&t);
	heap_free(&h);
	if (t.reopen != 0 && !tui_signal) { /* another heapshot of the dump, from its first step */
		struct open_opts again = *oo;
		again.snapshot = t.reopen;
		int rc = tui_main(file != NULL ? file : dump, bl_path, target, &again, NULL, NULL);
		free(bl_path);
		free(file);
		return rc;
	}
	free(file);
	return tui_signal ? 128 + tui_signal : 0;
}
