/* cmdline.c — the ':' prompt: a step expression and a view word, as -e
 * takes them, applied to the current step (each step of the pipeline a
 * step of the history); a history kept across runs, Tab completion, and
 * a syntax error shown under its column while the prompt stays open. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "graph/ownership.h"
#include "graph/reader.h"
#include "query/baseline.h"
#include "query/cmd.h"
#include "query/inspect.h"
#include "query/report.h"
#include "query/views.h"
#include "tui/frame.h"
#include "tui/view.h"

#define HIST_KEEP 1000 /* lines kept; the file is cut back to them past twice as many */
#define PROMPT_MAX 65536 /* bytes of the ':' line: a paste goes no further */

/* ---- the history file ----
 * What was typed names classes and objects of a dump, and the file is
 * written where others may have been first: its directory must be ours
 * and closed to writes by others (dir_untrusted, as the private cache
 * directory), the file a regular file of ours opened without following
 * a symbolic link, and its rewrite goes through a file whose name no
 * one can guess. A history that is not so is not used, and the prompt
 * says why. */

/* $XDG_STATE_HOME/heapwalk, else ~/.local/state/heapwalk; NULL if there
 * is no home. */
static char *history_dir(void)
{
	const char *state = getenv("XDG_STATE_HOME"), *home = getenv("HOME");

	if (state != NULL && *state == '/')
		return xasprintf("%s/heapwalk", state);
	if (home != NULL && *home != '\0')
		return xasprintf("%s/.local/state/heapwalk", home);
	return NULL;
}

/* The history file's path, its directory made (0700, as mkdir -p) when
 * make; NULL if there is no home, or no directory and !make. A
 * directory that cannot be trusted: *why says so ("its directory is
 * ..."), and the path returned is the directory's, for the message. */
static char *history_path(int make, const char **why)
{
	char *dir = history_dir();
	struct stat st;

	*why = NULL;
	if (dir == NULL)
		return NULL;
	if (make) { /* each level, as mkdir -p */
		for (char *p = dir + 1;; p++)
			if (*p == '/' || *p == '\0') {
				char c = *p;
				*p = '\0';
				if (mkdir(dir, 0700) < 0 && errno != EEXIST)
					c = '\0';
				*p = c;
				if (c == '\0')
					break;
			}
	} else if (lstat(dir, &st) < 0 && errno == ENOENT) {
		free(dir);
		return NULL;
	}
	const char *bad = dir_untrusted(dir, 0);
	if (bad != NULL) {
		static char buf[96];
		snprintf(buf, sizeof buf, "its directory is %s", bad);
		*why = buf;
		return dir;
	}
	char *path = xasprintf("%s/history", dir);
	free(dir);
	return path;
}

/* The history opened with flags (O_NOFOLLOW added): a regular file of
 * ours, or -1 with why (NULL: there is none to read). */
static int history_open(const char *path, int flags, const char **why)
{
	int fd = open(path, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
	struct stat st;

	*why = NULL;
	if (fd < 0) {
		if (errno != ENOENT)
			*why = errno == ELOOP ? "a symbolic link" : strerror(errno);
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		*why = "not a regular file";
	else if (st.st_uid != geteuid())
		*why = "owned by another user";
	if (*why != NULL) {
		close(fd);
		return -1;
	}
	return fd;
}

static void history_refused(struct sbuf *out, const char *path, const char *why)
{
	sbuf_printf(out, "history not used (%s): %s", why, path);
}

static void hist_push(struct tui *t, const char *line)
{
	if (t->nhist > 0 && strcmp(t->hist[t->nhist - 1], line) == 0)
		return;
	if (t->nhist == HIST_KEEP) {
		free(t->hist[0]);
		memmove(t->hist, t->hist + 1, (t->nhist - 1) * sizeof *t->hist);
		t->nhist--;
	}
	t->hist = xreallocarray(t->hist, t->nhist + 1, sizeof *t->hist);
	t->hist[t->nhist++] = xstrdup(line);
}

/* Rewrite the file with the lines in memory (a new file of a name no one
 * can guess, mkstemp's, renamed over it): when it has grown past twice
 * what is kept. */
static void history_rewrite(struct tui *t, const char *path)
{
	char *tmp = xasprintf("%s.XXXXXX", path);
	int fd = mkstemp(tmp); /* 0600, O_EXCL: never through a name planted before */
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	int ok = f != NULL;

	for (size_t i = 0; ok && i < t->nhist; i++)
		ok = fprintf(f, "%s\n", t->hist[i]) >= 0;
	if (f != NULL && fclose(f) != 0)
		ok = 0;
	else if (f == NULL && fd >= 0)
		close(fd);
	if (fd >= 0 && (!ok || rename(tmp, path) < 0))
		unlink(tmp);
	free(tmp);
}

/* The history of earlier runs, once per session; why it is not used in
 * note. */
static void history_load(struct tui *t, struct sbuf *note)
{
	const char *why;
	char *path = history_path(0, &why);
	int fd = path != NULL && why == NULL ? history_open(path, O_RDONLY, &why) : -1;
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
	size_t lines = 0;

	t->hist_loaded = 1;
	if (why != NULL)
		history_refused(note, path, why);
	if (f == NULL && fd >= 0)
		close(fd);
	if (f != NULL) {
		char *line = NULL;
		size_t cap = 0;
		ssize_t n;
		while ((n = getline(&line, &cap, f)) >= 0) {
			while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
				line[--n] = '\0';
			if (n > 0)
				hist_push(t, line);
			lines++;
		}
		free(line);
		fclose(f);
		if (lines > 2 * HIST_KEEP)
			history_rewrite(t, path);
	}
	free(path);
}

/* An accepted line: kept, and appended to the file (0600: what was typed
 * names classes and objects of a dump). Why not, on the message line
 * unless the line that ran left one there. */
static void history_add(struct tui *t, const char *line)
{
	const char *why;
	struct sbuf sb;

	hist_push(t, line);
	char *path = history_path(1, &why);
	if (path == NULL)
		return;
	int fd = why == NULL ? history_open(path, O_WRONLY | O_CREAT | O_APPEND, &why) : -1;
	sbuf_init(&sb);
	if (fd >= 0) {
		sbuf_printf(&sb, "%s\n", line);
		(void)fchmod(fd, 0600); /* made by an older umask or by hand */
		if (write(fd, sb.buf, sb.len) != (ssize_t)sb.len)
			tui_message(t, 1, "history %s: %s", path, strerror(errno));
		close(fd);
	} else if (why != NULL && t->msg == NULL) {
		history_refused(&sb, path, why);
		tui_message(t, 1, "%s", sb.buf);
	}
	sbuf_free(&sb);
	free(path);
}

/* ---- completion ---- */

struct cands {
	const char **v;
	size_t n, cap;
};

static void cand_add(struct cands *c, const char *s)
{
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 64;
		c->v = xreallocarray(c->v, c->cap, sizeof *c->v);
	}
	c->v[c->n++] = s;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Can the word be typed back? Not with a blank, a '|', a control byte,
 * nor a quote or '/' first (the steps' syntax). */
static int typeable(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p <= ' ' || *p == '|' || *p == 0x7f)
			return 0;
	return *s != '\0' && *s != '/' && *s != '\'' && *s != '"';
}

/* The words that may stand where the word at `ws` of in begins: step and
 * view words at a step's start, else what the word before takes. */
static void candidates(struct tui *t, const char *in, size_t ws, struct cands *c)
{
	size_t e = ws, b;

	while (e > 0 && in[e - 1] == ' ')
		e--;
	b = e;
	while (b > 0 && in[b - 1] != ' ' && in[b - 1] != '|')
		b--;
	if (e == 0 || in[e - 1] == '|') {
		for (size_t i = 0; step_word(i) != NULL; i++)
			cand_add(c, step_word(i));
		return;
	}
	size_t n = e - b;
	const char *prev = in + b;
#define PREV_IS(w) (n == strlen(w) && strncmp(prev, w, n) == 0)
	if (PREV_IS("instances") || PREV_IS("instanceof")) {
		for (uint32_t k = 0; k < t->h->ncls; k++)
			if (typeable(class_name(t->h, k)))
				cand_add(c, class_name(t->h, k));
	} else if (PREV_IS("inspection")) {
		size_t ni;
		const struct inspection *all = inspect_all(&ni);
		for (size_t i = 0; i < ni; i++)
			cand_add(c, all[i].name);
	} else if (PREV_IS("elements")) {
		cand_add(c, "keys");
		cand_add(c, "values");
	} else if (PREV_IS("referrers") || PREV_IS("referents")) {
		cand_add(c, "weak");
	} else if (PREV_IS("generation")) {
		const char *g;
		for (unsigned k = 0; (g = heap_gen_name(t->h, k)) != NULL; k++)
			cand_add(c, g);
	}
#undef PREV_IS
}

/* Tab: the word being typed completed as far as its candidates agree;
 * a list of them in *shown when more than one is left. */
static void complete(struct tui *t, struct sbuf *in, struct sbuf *shown)
{
	size_t ws = in->len;
	struct cands c = { 0 };

	while (ws > 0 && in->buf[ws - 1] != ' ' && in->buf[ws - 1] != '|')
		ws--;
	const char *w = in->buf + ws;
	size_t wl = in->len - ws;
	sbuf_reset(shown);
	if (*w == '/') {
		sbuf_adds(shown, "a /regex/ is not completed");
		return;
	}
	candidates(t, in->buf, ws, &c);
	size_t k = 0;
	for (size_t i = 0; i < c.n; i++) /* those that start with the word */
		if (strncmp(c.v[i], w, wl) == 0)
			c.v[k++] = c.v[i];
	c.n = k;
	if (c.n > 1) {
		qsort(c.v, c.n, sizeof *c.v, cmp_str);
		k = 1;
		for (size_t i = 1; i < c.n; i++)
			if (strcmp(c.v[i], c.v[k - 1]) != 0)
				c.v[k++] = c.v[i];
		c.n = k;
	}
	if (c.n == 0) {
		sbuf_adds(shown, wl > 0 ? "no completion" : "nothing to complete here");
	} else if (c.n == 1) {
		sbuf_adds(in, c.v[0] + wl);
		sbuf_addc(in, ' ');
	} else {
		size_t common = strlen(c.v[0]);
		for (size_t i = 1; i < c.n; i++) {
			size_t j = 0;
			while (j < common && c.v[i][j] == c.v[0][j])
				j++;
			common = j;
		}
		if (common > wl)
			sbuf_add(in, c.v[0] + wl, common - wl);
		/* as many as the line holds, and how many more there are
		 * (the line was cut where the screen ended, nothing said) */
		struct sbuf one;
		char more[48];
		int room = COLS > 1 ? COLS - 1 : 80;
		sbuf_init(&one);
		sbuf_printf(shown, "%zu: ", c.n);
		for (size_t i = 0; i < c.n; i++) {
			sbuf_reset(&one);
			tui_typed(&one, c.v[i]);
			snprintf(more, sizeof more, "\u2026 %zu more", c.n - i);
			int last = i + 1 == c.n, used = text_width(shown->buf) + text_width(one.buf);
			if (used + (last ? 0 : 2 + text_width(more)) > room && i > 0) {
				sbuf_adds(shown, more);
				break;
			}
			sbuf_adds(shown, one.buf);
			sbuf_adds(shown, "  ");
		}
		sbuf_free(&one);
	}
	free(c.v);
}

/* ---- running a pipeline ---- */

/* How the browser shows a command its ':' prompt takes (a row of
 * cmd_table with CMD_BROWSER): its view, and the key pressed there on the
 * object's row (REQ_NONE: none); info, in a box, has none. */
static const struct { enum view_id id; enum request req; } browser_views[CMD_N] = {
	[CMD_CLASSES] = { V_CLASSES, REQ_NONE }, [CMD_BIGGEST] = { V_BIGGEST, REQ_NONE },
	[CMD_OBJECTS] = { V_OUTGOING, REQ_NONE }, [CMD_PATHS] = { V_INCOMING, REQ_PATHS },
	[CMD_LIFELINES] = { V_INCOMING, REQ_LIFELINES }, [CMD_ALLOCATIONS] = { V_ALLOC, REQ_NONE },
	[CMD_TIMES] = { V_TIME, REQ_NONE }, [CMD_MERGED_OUT] = { V_MERGED_OUT, REQ_NONE },
	[CMD_MERGED_IN] = { V_MERGED_IN, REQ_NONE }, [CMD_MERGED_DOM] = { V_MERGED_DOM, REQ_NONE },
};

/* The analyses' focus of a heap, kept to be put back when a pipeline
 * that changed it fails. */
struct focus_saved {
	struct heap *h;
	node_t aroot;
	struct href *ignored;
	size_t nignored;
	uint32_t agen;
};

static void focus_save(struct heap *h, struct focus_saved *f)
{
	f->h = h;
	f->aroot = h != NULL ? h->aroot : 0;
	f->nignored = h != NULL ? h->nignored : 0;
	f->ignored = xmalloc((f->nignored + 1) * sizeof *f->ignored);
	if (f->nignored > 0)
		memcpy(f->ignored, h->ignored, f->nignored * sizeof *f->ignored);
	f->agen = h != NULL ? h->agen : 0;
}

/* restore: as it was, if a step changed it; else just forget it. */
static void focus_end(struct focus_saved *f, int restore)
{
	struct heap *h = f->h;

	if (restore && h != NULL && h->agen != f->agen) {
		free(h->ignored);
		h->ignored = f->ignored;
		h->nignored = f->nignored;
		h->aroot = f->aroot;
		heap_apply_rules(h, h->rules, NULL);
		return;
	}
	free(f->ignored);
}

/* A copy of a set (step_apply replaces what it is given). */
static struct objset set_copy(const struct heap *h, const struct objset *s)
{
	struct objset c = *s;

	c.bits = xmalloc(bits_words(h->n) * sizeof *c.bits);
	memcpy(c.bits, s->bits, bits_words(h->n) * sizeof *c.bits);
	return c;
}

/* The steps of pl applied in turn from the current set, into uses[]
 * (pl->n of them). 0, or -1 with err set and nothing made. */
static int apply_all(struct tui *t, const struct pipeline *pl, struct use *uses, struct sbuf *err)
{
	struct heap *h = t->h;
	struct objset set = set_copy(h, &cur_step(t)->set);
	int bl_dep = 0;
	size_t i;

	for (i = 0; i < pl->n; i++) {
		const struct step *st = &pl->steps[i];
		struct use *u = &uses[i];
		memset(u, 0, sizeof *u);
		if (st->op == ST_GONE) {
			if (i > 0) {
				sbuf_adds(err, "'gone' can only be the first step");
				break;
			}
			if (t->bl == NULL || !baseline_has_old(t->bl) || t->bl->gone.count == 0) {
				sbuf_adds(err, t->bl == NULL ? "gone needs a baseline: press B to load one"
					  : !baseline_has_old(t->bl) ? "gone needs a baseline dump; a mark has none"
					  : "nothing is gone since the baseline");
				break;
			}
			objset_free(&set);
			h = t->old;
			set = set_copy(h, &t->bl->gone);
			bl_dep = 1;
		} else {
			if (step_on_baseline(st->op) && h != t->main) {
				sbuf_adds(err, "this step is on the baseline's side: new and old mean the open dump's");
				break;
			}
			struct sbuf why;
			sbuf_init(&why);
			tui_work_begin(t, "applying the step");
			int rc = step_apply(h, st, &set, &t->prog, &why);
			if (tui_work_end(t) < 0 || rc < 0) {
				if (pl->n > 1) { /* which of them */
					sbuf_printf(err, "step %zu (", i + 1);
					step_to_string(st, err);
					sbuf_adds(err, "): ");
				}
				sbuf_adds(err, rc < 0 ? why.buf : "cancelled");
				sbuf_free(&why);
				break;
			}
			sbuf_free(&why);
			bl_dep |= step_on_baseline(st->op);
		}
		struct sbuf ex;
		sbuf_init(&ex);
		step_to_string(st, &ex);
		u->set = set_copy(h, &set);
		u->h = h == t->h ? NULL : h;
		u->bl_dep = bl_dep;
		u->title = xstrdup(ex.buf);
		u->expr = sbuf_detach(&ex);
	}
	objset_free(&set);
	if (i == pl->n)
		return 0;
	for (size_t k = 0; k < i; k++) {
		objset_free(&uses[k].set);
		free(uses[k].title);
		free(uses[k].expr);
	}
	return -1;
}

/* The Incoming view of the current step on the paths to GC roots of x,
 * as r makes them; with REQ_LIFELINES, its lifelines, as y makes them. */
static void show_paths(struct tui *t, node_t x, enum request req)
{
	struct hstep *s = cur_step(t);

	s->view = V_INCOMING;
	incoming_show(t, cur_view(t), x, req == REQ_LIFELINES);
}

/* The view word (view_word_ok): info in a box, as the command line
 * writes it; "paths" and "lifelines" as the Incoming view's r and y on
 * the step's one object, the others the view of that name. */
static void show_view(struct tui *t, const char *word)
{
	struct hstep *s = cur_step(t);
	const struct cmd_entry *e = cmd_view(word);
	size_t i = (size_t)(e - cmd_table);

	if (i == CMD_INFO) {
		struct cmd_opts o = { .fmt = FMT_TEXT };
		struct sbuf out, err, note;
		struct cmd_ctx x = { .h = t->h, .set = &s->set, .o = &o, .out = &out, .err = &err, .note = &note };
		sbuf_init(&out);
		sbuf_init(&err);
		sbuf_init(&note);
		e->run(&x);
		text_box(t, "info", out.buf, "Esc close");
		sbuf_free(&out);
		sbuf_free(&err);
		sbuf_free(&note);
		return;
	}
	s->view = browser_views[i].id;
	struct tview *v = cur_view(t);
	if (view_ensure(t, v) < 0)
		return;
	if (browser_views[i].req != REQ_NONE) { /* the set's one object */
		node_t x = 1;
		while (x < t->h->n && !objset_has(&s->set, x))
			x++;
		show_paths(t, x, browser_views[i].req);
	}
}

/* Can the view word be shown on a set of count objects? 0, or -1 with
 * err set. */
static int view_word_ok(const char *word, uint64_t count, struct sbuf *err)
{
	const struct cmd_entry *e = cmd_view(word);

	if (e == NULL || !(e->flags & CMD_BROWSER)) {
		sbuf_printf(err, "no view '%s' in the browser", word);
		return -1;
	}
	return cmd_check_set(e, count, err);
}

/* Parse and run line; 0, or -1 with err (and *col, from 1, when the
 * error has a column; else 0). */
static int run_line(struct tui *t, const char *line, struct sbuf *err, int *col)
{
	struct pipeline pl = { 0 };
	int rc = pipeline_parse(line, &pl, err);

	*col = 0;
	if (rc != 0) {
		if (sscanf(err->buf, "column %d", col) != 1)
			*col = 0;
		pipeline_free(&pl);
		return -1;
	}
	struct use *uses = xcalloc(pl.n + 1, sizeof *uses);
	struct focus_saved fm, fo;
	uint32_t agen = t->main->agen + (t->old != NULL ? t->old->agen : 0);
	focus_save(t->main, &fm);
	focus_save(t->old, &fo);
	rc = apply_all(t, &pl, uses, err);
	/* the view word first: nothing is made unless all of it can be */
	if (rc == 0 && pl.view != NULL &&
	    view_word_ok(pl.view, pl.n > 0 ? uses[pl.n - 1].set.count : cur_step(t)->set.count, err) < 0) {
		for (size_t i = 0; i < pl.n; i++) {
			objset_free(&uses[i].set);
			free(uses[i].title);
			free(uses[i].expr);
		}
		rc = -1;
	}
	/* a root or ignore of a pipeline that fails goes too: every change of
	 * the analyses is a step */
	focus_end(&fm, rc != 0);
	focus_end(&fo, rc != 0);
	if (agen != t->main->agen + (t->old != NULL ? t->old->agen : 0))
		views_reset(t, 1); /* root, ignore: every view computed again */
	if (rc == 0) {
		for (size_t i = 0; i < pl.n; i++)
			tui_push_quiet(t, &uses[i]);
		if (pl.view != NULL)
			show_view(t, pl.view);
		if (view_ensure(t, cur_view(t)) < 0)
			tui_message(t, 1, "view not built: cancelled");
	}
	free(uses);
	pipeline_free(&pl);
	return rc;
}

int command_run(struct tui *t, const char *line, struct sbuf *err)
{
	int col;

	return run_line(t, line, err, &col);
}

/* ---- the prompt ---- */

/* The bottom line: ':' and what is typed (its end when it is too long);
 * above it, an error under its column or the completions, wrapped onto
 * the lines above (half the screen at most), never cut. */
static void draw_prompt(struct tui *t, const char *in, const char *note, int col, int error)
{
	struct sbuf shown;
	int width = COLS - 2;

	sbuf_init(&shown);
	tui_typed(&shown, in);
	const char *p = shown.buf ? shown.buf : "";
	int skip;
	p += text_tail(p, width - 1, &skip); /* the end shows, where the cursor is */
	if (note != NULL && *note) {
		struct sbuf safe;
		sbuf_init(&safe);
		tui_typed(&safe, note);
		note = safe.buf;
		struct sbuf line;
		sbuf_init(&line);
		int indent = 1;
		if (col > 0) { /* the caret under the byte the parser names */
			char *pre = xstrndup(in, (size_t)col - 1);
			struct sbuf tp;
			sbuf_init(&tp);
			tui_typed(&tp, pre);
			int x = 1 + text_width(tp.buf ? tp.buf : "") - skip;
			free(pre);
			sbuf_free(&tp);
			if (x < 0)
				x = 0;
			if (x > COLS - 1)
				x = COLS - 1;
			sbuf_printf(&line, "%*s^ ", x, "");
			indent = x + 2; /* the lines after it under the first */
		}
		sbuf_adds(&line, note);
		char **l;
		size_t n = text_wrap(line.buf, COLS, indent, &l), k = n < (size_t)t->rows / 2 ? n : (size_t)t->rows / 2;
		for (size_t i = 0; i < k; i++)
			draw_line(t->rows - 1 - (int)k + (int)i, error ? C_ERROR : C_HINT, l[i]);
		text_wrap_free(l, n);
		sbuf_free(&line);
		sbuf_free(&safe);
	}
	move(t->rows - 1, 0);
	attrset(A_NORMAL);
	draw_text(":", 1, 0);
	draw_text(p, width, 0);
	clrtoeol();
	refresh();
	sbuf_free(&shown);
}

/* Is a key waiting? Then the line is not drawn before it is taken: a
 * paste comes as thousands of keys, and only its end needs a draw. */
static int key_waiting(void)
{
	int delay = wgetdelay(stdscr);

	nodelay(stdscr, TRUE);
	int c = getch();
	wtimeout(stdscr, delay);
	if (c == ERR)
		return 0;
	ungetch(c);
	return 1;
}

/* The line cut to PROMPT_MAX bytes, and a character the cut split. */
static void prompt_cut(struct sbuf *in)
{
	size_t n = PROMPT_MAX, j = n;

	while (j > 0 && (in->buf[j - 1] & 0xc0) == 0x80)
		j--;
	if (j > 0) { /* the last character's first byte, at j - 1: whole? */
		unsigned char lead = (unsigned char)in->buf[j - 1];
		size_t need = lead < 0xc0 ? 1 : lead < 0xe0 ? 2 : lead < 0xf0 ? 3 : 4;
		if (j - 1 + need > n)
			n = j - 1;
	}
	in->len = n;
	in->buf[n] = '\0';
}

void command_prompt(struct tui *t)
{
	struct sbuf in, note, err;
	size_t at;
	int col = 0, error = 0, cut = 0;

	sbuf_init(&in);
	sbuf_init(&note);
	sbuf_init(&err);
	if (!t->hist_loaded)
		history_load(t, &note);
	at = t->nhist; /* t->nhist: the line being typed */
	sbuf_adds(&in, "");
	curs_set(1);
	for (;;) {
		if (!key_waiting()) {
			tui_draw(t);
			draw_prompt(t, in.buf, note.buf, col, error);
		}
		int c = read_key(stdscr);
		if (c == 27 || c == 3)
			break;
		int enter = c == '\n' || c == '\r' || c == KEY_ENTER;
		if (cut && (enter || c == '\t') && key_waiting())
			continue; /* inside the rest of a paste past the bound: not a key of the user's */
		if (enter) {
			if (in.len == 0)
				break;
			sbuf_reset(&err);
			if (run_line(t, in.buf, &err, &col) == 0) {
				history_add(t, in.buf);
				break;
			}
			sbuf_reset(&note); /* stay: the error under its column */
			sbuf_adds(&note, err.buf);
			error = 1;
			continue;
		}
		int typed = c >= 32 && c < 256 && c != 127;
		sbuf_reset(&note);
		col = error = 0;
		cut = cut && typed; /* an edit lifts the cut: what is typed next is taken */
		if (c == '\t') {
			complete(t, &in, &note);
		} else if (c == KEY_UP || c == KEY_DOWN) {
			if (c == KEY_UP ? at == 0 : at >= t->nhist)
				continue;
			at += c == KEY_UP ? (size_t)-1 : 1;
			sbuf_reset(&in);
			sbuf_adds(&in, at < t->nhist ? t->hist[at] : "");
		} else if (c == 21) { /* ^U */
			sbuf_reset(&in);
		} else if (c == 23) { /* ^W: the word before goes */
			while (in.len > 0 && in.buf[in.len - 1] == ' ')
				in.len--;
			while (in.len > 0 && in.buf[in.len - 1] != ' ')
				in.len--;
			in.buf[in.len] = '\0';
		} else if (c == KEY_BACKSPACE || c == 127 || c == 8) {
			input_backspace(&in);
		} else if (typed && !cut) {
			sbuf_addc(&in, (char)c);
		}
		if (in.len > PROMPT_MAX) { /* a paste, a completion, a line of the history */
			prompt_cut(&in);
			cut = 1;
		}
		if (cut) { /* the rest of a paste that went past the bound is not taken */
			sbuf_printf(&note, "the line is cut at %d bytes (64 kB): what came after it was not taken",
				    PROMPT_MAX);
			error = 1;
		}
	}
	curs_set(0);
	sbuf_free(&in);
	sbuf_free(&note);
	sbuf_free(&err);
}

/* ---- the analyses' focus from the browser ---- */

/* Run a step made by a key, as the prompt would (x then shows it). */
static void run_made(struct tui *t, const char *expr)
{
	node_t paths = incoming_paths_target(cur_view(t));
	size_t before = t->cur;
	struct sbuf err;

	sbuf_init(&err);
	if (command_run(t, expr, &err) < 0)
		tui_message(t, 1, "%s", err.buf);
	else if (t->cur != before && paths != HW_NONE && objset_has(&cur_step(t)->set, paths))
		show_paths(t, paths, REQ_PATHS); /* the paths again, as the new analyses find them */
	sbuf_free(&err);
}


/* A: the cursor's object becomes the analysis root. */
void use_root(struct tui *t)
{
	struct tview *v = cur_view(t);
	node_t x = v->cur < v->rows.n ? v->rows.v[v->cur].node : HW_NONE;
	char id[32];

	if (x == HW_NONE || x == 0 || t->h != t->main) {
		tui_message(t, 1, "%s", t->h != t->main ? "the analysis root is the open dump's, not the baseline's"
							 : "put the cursor on an object first");
		return;
	}
	node_id_text(t->h, x, id, sizeof id);
	char *expr = xasprintf("root %s", id);
	run_made(t, expr);
	free(expr);
}

/* X: leave out the reference of the cursor row: a referrer row of the
 * Incoming view or of a path (it refers to the object above it), or a
 * field or element row of the Outgoing view (the object above refers
 * to it). */
void use_ignore(struct tui *t)
{
	struct tview *v = cur_view(t);
	enum view_id id = cur_step(t)->view;

	if (v->cur >= v->rows.n || (id != V_INCOMING && id != V_OUTGOING) || t->h != t->main) {
		tui_message(t, 1, "%s", t->h != t->main ? "the references left out are the open dump's"
			    : "put the cursor on a reference: a referrer or path row (Incoming) or a field (Outgoing)");
		return;
	}
	const struct row *r = &v->rows.v[v->cur];
	node_t x = r->node, above = HW_NONE;
	uint32_t d = r->depth;
	for (size_t i = v->cur; i-- > 0 && d > 0;) /* the object row above it */
		if (v->rows.v[i].depth < d) {
			d = v->rows.v[i].depth;
			if (v->rows.v[i].node != HW_NONE && v->rows.v[i].node != 0) {
				above = v->rows.v[i].node;
				break;
			}
		}
	if (x == HW_NONE || x == 0 || above == HW_NONE) {
		tui_message(t, 1, "this row is no reference between two objects");
		return;
	}
	node_t src = id == V_INCOMING ? x : above, dst = id == V_INCOMING ? above : x;
	struct sbuf e;
	char sid[32];
	sbuf_init(&e);
	node_id_text(t->h, src, sid, sizeof sid);
	sbuf_printf(&e, "ignore %s ", sid);
	focus_ref_text(t->h, src, dst, &e);
	run_made(t, e.buf);
	if (t->msg == NULL)
		tui_message(t, 0, "left out: %s (^X lists them, and puts one back)", e.buf + 7);
	sbuf_free(&e);
}

/* ^X: the analysis root and the references left out; Enter on one makes
 * the step that undoes it. */
void focus_list(struct tui *t)
{
	const struct heap *h = t->main;
	size_t n = h->nignored + (h->aroot != 0);
	char **items, id[32];

	if (t->h != t->main) {
		tui_message(t, 1, "%s", "the analyses' focus is the open dump's, not the baseline's");
		return;
	}
	if (n == 0) {
		tui_message(t, 0, "no analysis root (A sets one) and no reference left out (X leaves one out)");
		return;
	}
	items = xmalloc(n * sizeof *items);
	char **exprs = xmalloc(n * sizeof *exprs);
	size_t k = 0;
	if (h->aroot != 0) {
		struct sbuf l;
		sbuf_init(&l);
		node_id_text(h, h->aroot, id, sizeof id);
		tv_object_text(h, h->aroot, &l, NULL);
		items[k] = xasprintf("analysis root %s: Enter makes the GC roots the roots again", l.buf);
		exprs[k++] = xstrdup("root gc");
		sbuf_free(&l);
	}
	for (size_t i = 0; i < h->nignored; i++) {
		struct sbuf e, l;
		sbuf_init(&e);
		sbuf_init(&l);
		node_id_text(h, h->ignored[i].src, id, sizeof id);
		sbuf_printf(&e, "unignore %s ", id);
		focus_ref_text(h, h->ignored[i].src, h->ignored[i].dst, &e);
		tv_object_text(h, h->ignored[i].src, &l, NULL);
		sbuf_adds(&l, "  .");
		struct sbuf lab;
		sbuf_init(&lab);
		ref_labels(h, h->ignored[i].src, h->ignored[i].dst, ", .", &lab);
		tv_add_esc(&l, lab.buf ? lab.buf : "");
		sbuf_adds(&l, "  -> ");
		tv_object_text(h, h->ignored[i].dst, &l, NULL);
		items[k] = xasprintf("left out: %s", l.buf);
		exprs[k++] = sbuf_detach(&e);
		sbuf_free(&lab);
		sbuf_free(&l);
	}
	int sel = popup(t, "The analyses' focus (Enter: undo it, a step)", items, n, 0);
	if (sel >= 0)
		run_made(t, exprs[sel]);
	for (size_t i = 0; i < n; i++) {
		free(items[i]);
		free(exprs[i]);
	}
	free(items);
	free(exprs);
}
