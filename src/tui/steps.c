/* steps.c — selection steps and their history: making a step from a
 * view's rows or from the use menu, going back and forth, the baseline
 * (loaded, dropped), and the expression that names a step. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "graph/analysis.h"
#include "graph/reader.h"
#include "query/baseline.h"
#include "tui/frame.h"

/* ---- steps ---- */
struct hstep *step_new(struct heap *h, struct objset set, const char *title, const char *expr)
{
	struct hstep *s = xcalloc(1, sizeof *s);

	s->h = h;
	s->set = set;
	s->title = xstrdup(title);
	s->expr = expr ? xstrdup(expr) : NULL;
	for (int i = 0; i < V_COUNT; i++) {
		const struct view_ops *ops = view_table[i];
		struct tview *v = &s->views[i];
		v->ops = ops;
		v->st = s;
		v->state = xcalloc(1, ops->state_size ? ops->state_size : 1);
		if (ops->state_init != NULL)
			ops->state_init(v->state);
	}
	return s;
}

/* Drop what the view computed (its options stay). */
static void view_drop_data(struct tview *v)
{
	if (v->ops->data_free != NULL)
		v->ops->data_free(v->data);
	else
		free(v->data);
	v->data = NULL;
}

static void view_free(struct tview *v)
{
	rows_clear(v);
	free(v->rows.v);
	free(v->filter);
	pcre2_code_free(v->filter_re);
	view_drop_data(v);
	free(v->state);
}

void step_free(struct hstep *s)
{
	for (int i = 0; i < V_COUNT; i++)
		view_free(&s->views[i]);
	if (s->filtered) {
		objset_free(&s->unfiltered);
		free(s->utitle);
		free(s->uexpr);
	}
	objset_free(&s->set);
	free(s->title);
	free(s->expr);
	free(s);
}

void step_go(struct tui *t, size_t k)
{
	t->cur = k;
	t->h = t->steps[k]->h;
}

int view_ensure(struct tui *t, struct tview *v)
{
	if (v->built || v->dropped)
		return 0;
	tui_work_begin(t, "building the view");
	tui_building = v;
	int rc = v->ops->build(t, v);
	tui_building = NULL;
	if (tui_work_end(t) < 0 || rc < 0) {
		rows_clear(v);
		return -1;
	}
	v->built = 1;
	return 0;
}


/* Push a step after the current one; the forward history goes. */
/* The view a new step opens in. From a view of the whole set (classes,
 * inspections, allocations), the one useful next, as JProfiler does:
 * the objects and their fields when they are of one class or a few,
 * else their classes; from a view of references or of the dominator
 * tree, the same view, one step further. */
static enum view_id next_view(enum view_id from, const struct heap *h, const struct objset *set)
{
	if (from != V_CLASSES && from != V_INSPECT && from != V_ALLOC && from != V_TIME)
		return from;
	if (set->count < 50)
		return V_OUTGOING;
	uint32_t cls = HW_NONE;
	for (node_t x = 1; x < h->n; x++)
		if (bit_get(set->bits, x)) {
			if (cls != HW_NONE && h->node_class[x] != cls)
				return V_CLASSES;
			cls = h->node_class[x];
		}
	return V_OUTGOING;
}

void tui_push(struct tui *t, struct use *u)
{
	tui_push_quiet(t, u);
	if (view_ensure(t, cur_view(t)) < 0)
		tui_message(t, 1, "view not built: cancelled");
}

void tui_push_quiet(struct tui *t, struct use *u)
{
	struct hstep *from = cur_step(t);
	char *expr = NULL;

	struct heap *h = u->h ? u->h : from->h;

	/* "object ...", "path ..." and "gone ..." stand alone; objects of the
	 * baseline's side are named from its gone objects */
	if (from->expr != NULL && u->expr != NULL && *u->expr) {
		int alone = strncmp(u->expr, "object ", 7) == 0 || strncmp(u->expr, "path ", 5) == 0;
		if (alone && h != t->main)
			expr = xasprintf("gone | %s", u->expr);
		else if (strcmp(from->expr, "all") == 0 || alone || strncmp(u->expr, "gone", 4) == 0 ||
			 strcmp(u->expr, "all") == 0)
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
	s->view = next_view(from->view, h, &s->set);
	for (int i = 0; i < V_COUNT; i++) { /* the user's options (sort, ...) go on */
		const struct view_ops *ops = view_table[i];
		if (ops->state_carry != NULL)
			ops->state_carry(s->views[i].state, from->views[i].state);
		else if (ops->state_size > 0)
			memcpy(s->views[i].state, from->views[i].state, ops->state_size);
	}
	t->steps[t->nsteps++] = s;
	step_go(t, t->nsteps - 1);
	free(expr);
	free(u->title);
	free(u->expr);
}

/* Every view of step s is built again when next shown; with sizes, its
 * retained and deep sizes are unknown again too. */
static void step_views_reset(struct hstep *s, int sizes)
{
	for (int j = 0; j < V_COUNT; j++) {
		struct tview *v = &s->views[j];
		rows_clear(v);
		v->built = 0;
		view_drop_data(v);
	}
	if (sizes)
		s->retained_known = s->deep_known = 0;
}

void tui_step_filter(struct tui *t, struct objset *set, const char *expr, const char *what)
{
	struct hstep *s = cur_step(t);

	if (s->filtered) { /* as it was */
		objset_free(&s->set);
		free(s->title);
		free(s->expr);
		s->set = s->unfiltered;
		s->title = s->utitle;
		s->expr = s->uexpr;
		s->filtered = 0;
	}
	if (set != NULL) {
		s->unfiltered = s->set;
		s->utitle = s->title;
		s->uexpr = s->expr;
		s->set = *set;
		s->title = xasprintf("%s (%s)", s->utitle, what);
		s->expr = s->uexpr == NULL ? NULL : strcmp(s->uexpr, "all") == 0 ? xstrdup(expr)
			  : xasprintf("%s | %s", s->uexpr, expr);
		s->filtered = 1;
	}
	step_views_reset(s, 1); /* another set: its sizes too */
	if (view_ensure(t, cur_view(t)) < 0)
		tui_message(t, 1, "view not built: cancelled");
}

/* Apply one engine step to the current set (use menu). */
void use_step(struct tui *t, enum step_op op, const char *title)
{
	use_step_arg(t, op, NULL, title);
}

void use_step_arg(struct tui *t, enum step_op op, const char *arg, const char *title)
{
	struct step st = { .op = op, .arg = (char *)arg };
	struct use u = { .title = NULL };
	struct sbuf err, ex;

	if (step_on_baseline(op) && t->h != t->main) {
		tui_message(t, 1, "%s", "this step is on the baseline's side: new and old mean the open dump's");
		return;
	}
	if (step_on_baseline(op) && t->h->baseline == NULL) { /* no mark's either: the browser's words */
		tui_message(t, 1, "%s", "no baseline: press B to load one");
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
		/* those of the set that are new (old, of an age...) are among
		 * its objects; referrers and the like are of them */
		int among = op == ST_NEW || op == ST_OLD || op == ST_UNIDENTIFIED || op == ST_GENERATION;
		uint64_t of = cur_step(t)->set.count;
		u.title = xasprintf("%s %s %llu object%s", title, among ? "among" : "of", (unsigned long long)of,
				    of == 1 ? "" : "s");
		u.expr = sbuf_detach(&ex);
		u.bl_dep = step_on_baseline(op);
		tui_push(t, &u);
	}
	sbuf_free(&err);
	sbuf_free(&ex);
}

void use_rows(struct tui *t, int reached)
{
	struct tview *v = cur_view(t);
	struct use u = { .title = NULL };

	if (v->ops->use == NULL || v->ops->use(t, v, reached, &u) < 0)
		return;
	for (size_t i = 0; i < v->rows.n; i++) /* used: the marks are done with */
		v->rows.v[i].marked = 0;
	v->nmarked = 0;
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
void use_gone(struct tui *t)
{
	struct use u = { .title = NULL };

	if (t->bl == NULL || !baseline_has_old(t->bl)) {
		tui_message(t, 1, "%s", t->bl == NULL ? "no baseline: press B to load one"
						      : "gone needs a baseline dump; a mark has none");
		return;
	}
	if (t->bl->gone.count == 0) {
		tui_message(t, 0, "nothing is gone since the baseline");
		return;
	}
	u.set = t->bl->gone;
	u.set.bits = xmalloc(bits_words(t->old->n) * sizeof *u.set.bits);
	memcpy(u.set.bits, t->bl->gone.bits, bits_words(t->old->n) * sizeof *u.set.bits);
	u.title = xasprintf("Gone since the baseline: %llu object%s", (unsigned long long)u.set.count,
			    u.set.count == 1 ? "" : "s");
	u.expr = xstrdup("gone");
	u.h = t->old;
	tui_push(t, &u);
}

/* A baseline or the rules changed: with the rules, the dominators too. */
void views_reset(struct tui *t, int analyses)
{
	/* the rules may have made references weak or strong: sizes change */
	for (size_t i = 0; i < t->nsteps; i++)
		step_views_reset(t->steps[i], analyses);
}

/* Drop the baseline: the steps that new, old or gone made go (the
 * history up to the first of them: the ones after rest on it), the views
 * that show new and old are built again. */
void baseline_drop(struct tui *t)
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
	oo.snapshot = 0; /* the last heapshot, unless the path says FILE:N */
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
void baseline_prompt(struct tui *t)
{
	char *q = tui_prompt(t, t->main->nsnaps > 0 ? "baseline (an earlier dump; :N heapshot N of this file): "
						   : "baseline (the earlier dump of this process): ", NULL, NULL);
	struct sbuf err;

	if (q == NULL || *q == '\0') {
		free(q);
		return;
	}
	if (q[0] == ':' && t->main->nsnaps > 0) { /* a heapshot of this very file */
		char *full = xasprintf("%s%s", t->main->path, q);
		free(q);
		q = full;
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

void exact_retained(struct tui *t)
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
/* OSC 52: the terminal (and tmux with set-clipboard on) puts the text
 * on its clipboard; base64 as the sequence wants. Written past ncurses,
 * after its output is flushed. */
static void osc52(const char *text)
{
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *p = (const unsigned char *)text;
	size_t n = strlen(text);
	struct sbuf sb;

	sbuf_init(&sb);
	sbuf_adds(&sb, "\033]52;c;");
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) |
			     (i + 2 < n ? p[i + 2] : 0);
		sbuf_addc(&sb, b64[v >> 18 & 63]);
		sbuf_addc(&sb, b64[v >> 12 & 63]);
		sbuf_addc(&sb, i + 1 < n ? b64[v >> 6 & 63] : '=');
		sbuf_addc(&sb, i + 2 < n ? b64[v & 63] : '=');
	}
	sbuf_adds(&sb, "\a");
	refresh();
	fputs(sb.buf, stdout);
	fflush(stdout);
	sbuf_free(&sb);
}

/* w: the command appended to a file (a list of steps worth keeping). */
static void write_expr(struct tui *t, const char *cmd)
{
	char *path = tui_prompt(t, "append the command to the file: ", NULL, NULL);

	if (path == NULL || *path == '\0') {
		free(path);
		return;
	}
	FILE *f = fopen(path, "a");
	if (f == NULL || fprintf(f, "%s\n", cmd) < 0 || fclose(f) != 0)
		tui_message(t, 1, "%s: %s", path, strerror(errno));
	else
		tui_message(t, 0, "appended to %s", path);
	free(path);
}

/* x: the command that makes this step, whole (wrapped) in a box, the
 * expression first; c copies it to the terminal's clipboard, w appends
 * it to a file. Another key closes the box and does what it does. */
void show_expr(struct tui *t)
{
	struct hstep *s = cur_step(t);
	struct sbuf cmd, shown;

	if (s->expr == NULL) {
		tui_message(t, 0, "this step has no -e expression (a selection the steps cannot name)");
		return;
	}
	sbuf_init(&cmd);
	sbuf_init(&shown);
	int exact;
	char *expr = focus_expr(t->main, s->expr, &exact);
	sbuf_adds(&cmd, "heapwalk -e ");
	sh_quote(&cmd, expr);
	free(expr);
	if (t->baseline != NULL) {
		sbuf_adds(&cmd, " --baseline ");
		sh_quote(&cmd, t->baseline);
	}
	sbuf_addc(&cmd, ' ');
	if (t->main->nsnaps > 0 && t->main->want_snap != 0 && t->main->path != NULL) {
		/* a heapshot asked for (--heapshot, H): the file names it (the
		 * open dump's, also on a step of the baseline's side) */
		char *one = xasprintf("%s:%u", t->main->path, t->main->snap);
		sh_quote(&cmd, one);
		free(one);
	} else {
		sh_quote(&cmd, t->dump);
	}
	if (term_safe(cmd.buf)) /* as it is, to copy */
		sbuf_adds(&shown, cmd.buf);
	else
		esc_append(&shown, (const uint8_t *)cmd.buf, cmd.len, 0);
	if (!exact)
		sbuf_adds(&shown, "\n\n(not this screen's analyses: they were changed after this step, whose own root or "
			  "ignore steps change them again)");
	int k = text_box(t, "The command that makes this step", shown.buf,
			 "c copy (OSC 52)  w append to a file  Esc close");
	if (k == 'c') {
		osc52(cmd.buf);
		tui_message(t, 0, "copied to the clipboard (where the terminal takes OSC 52): %s", shown.buf);
	} else if (k == 'w') {
		write_expr(t, cmd.buf);
	} else if (k != 27 && k != 'q' && k != 'x' && k != '\n' && k != '\r' && k != KEY_ENTER) {
		ungetch(k); /* not the box's: the frame's */
	}
	sbuf_free(&cmd);
	sbuf_free(&shown);
}
void step_list(struct tui *t)
{
	char **items = xmalloc(t->nsteps * sizeof *items);

	for (size_t i = 0; i < t->nsteps; i++) {
		char a[32];
		fmt_bytes(a, sizeof a, t->steps[i]->set.shallow);
		items[i] = xasprintf("%zu %s  (%llu object%s, %s)", i + 1, t->steps[i]->title,
				     (unsigned long long)t->steps[i]->set.count, t->steps[i]->set.count == 1 ? "" : "s", a);
	}
	int k = popup(t, "Steps (Enter: go)", items, t->nsteps, t->cur);
	if (k >= 0)
		step_go(t, (size_t)k);
	for (size_t i = 0; i < t->nsteps; i++)
		free(items[i]);
	free(items);
}

static void use_generation(struct tui *t);

/* Does any class of h have its class object in the heap (a JVM's
 * java.lang.Class instances)? */
void use_menu(struct tui *t)
{
	/* the first letters differ: a letter picks its item (h and q are
	 * Left and quit there); what cannot apply to this dump (class
	 * objects where classes have none, elements and loaded where the
	 * format tells no collections or loaders, an age where it tells no
	 * generations) is not offered */
	enum { U_RETAINED, U_IN, U_OUT, U_DOM, U_SELECTED, U_TOP, U_CLASSES, U_ELEMENTS, U_LOADED, U_NEW,
	       U_OLD, U_GONE, U_AGE, U_UNKNOWN };
	static const struct { int what; const char *text; } all[] = {
		{ U_RETAINED, "retained  the objects the set retains (R)" },
		{ U_IN, "incoming  the objects that refer to the set: referrers (I)" },
		{ U_OUT, "outgoing  the objects the set refers to: referents (O)" },
		{ U_DOM, "dominated the objects the set dominates directly (D)" },
		{ U_SELECTED, "selected  the marked rows, or the cursor row (Enter)" },
		{ U_TOP, "top       the set's objects no other of them dominates" },
		{ U_CLASSES, "classes   the class objects of the set's classes" },
		{ U_ELEMENTS, "elements  the elements, keys and values of the set's collections" },
		{ U_LOADED, "loaded    the instances of the classes the set's class loaders define" },
		{ U_NEW, "new       the objects created since the baseline or mark (>)" },
		{ U_OLD, "before    old objects: those that existed at the baseline or mark (<)" },
		{ U_GONE, "gone      the baseline's objects that no longer exist (~)" },
		{ U_AGE, "age       the set's objects of one GC generation" }, /* the dump's named below */
		{ U_UNKNOWN, "unknown   the objects neither new nor old: ambiguous, or not identified" },
	};
	char *items[sizeof all / sizeof all[0]];
	int what[sizeof all / sizeof all[0]];
	size_t n = 0;
	struct sbuf age; /* the age item with the dump's generations: "(nursery, old)" */
	sbuf_init(&age);
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
		if ((all[i].what == U_CLASSES && !step_applies(t->h, ST_CLASSOBJ)) ||
		    (all[i].what == U_ELEMENTS && !step_applies(t->h, ST_ELEMENTS)) ||
		    (all[i].what == U_LOADED && !step_applies(t->h, ST_LOADED)) ||
		    (all[i].what == U_AGE && heap_gen_name(t->h, 0) == NULL))
			continue;
		items[n] = (char *)all[i].text;
		if (all[i].what == U_AGE) {
			const char *g;
			sbuf_adds(&age, all[i].text);
			for (unsigned k = 0; (g = heap_gen_name(t->h, k)) != NULL; k++)
				sbuf_printf(&age, "%s%s", k ? ", " : " (", g);
			sbuf_addc(&age, ')');
			items[n] = age.buf;
		}
		what[n++] = all[i].what;
	}
	int k = popup(t, "Use", items, n, 0);
	sbuf_free(&age);
	switch (k < 0 ? -1 : what[k]) {
	case U_RETAINED: use_step(t, ST_RETAINED, "Retained"); break;
	case U_IN: use_step(t, ST_REFERRERS, "Referrers"); break;
	case U_OUT: use_step(t, ST_REFERENTS, "Referents"); break;
	case U_DOM: use_step(t, ST_DOMINATED, "Dominated"); break;
	case U_SELECTED: use_rows(t, 0); break;
	case U_TOP: use_step(t, ST_TOP, "Top"); break;
	case U_CLASSES: use_step(t, ST_CLASSOBJ, "Class objects"); break;
	case U_ELEMENTS: use_step(t, ST_ELEMENTS, "Elements"); break;
	case U_LOADED: use_step(t, ST_LOADED, "Loaded by the loaders"); break;
	case U_NEW: use_step(t, ST_NEW, "New objects"); break;
	case U_OLD: use_step(t, ST_OLD, "Old objects"); break;
	case U_GONE: use_gone(t); break;
	case U_AGE: use_generation(t); break;
	case U_UNKNOWN: use_step(t, ST_UNIDENTIFIED, "Unidentified objects"); break;
	default: break;
	}
}

/* The step "generation NAME", NAME picked from the dump's. */
static void use_generation(struct tui *t)
{
	char *items[HW_MAX_GENS];
	size_t n = 0;
	const char *g;

	while (n < HW_MAX_GENS && (g = heap_gen_name(t->h, (unsigned)n)) != NULL)
		items[n++] = (char *)g;
	if (n == 0) {
		struct sbuf why;
		sbuf_init(&why);
		heap_gen_none(t->h, &why);
		tui_message(t, 1, "%s", why.buf);
		sbuf_free(&why);
		return;
	}
	int k = popup(t, "Generation", items, n, 0);
	if (k < 0)
		return;
	char *title = xasprintf("Generation %s", items[k]);
	use_step_arg(t, ST_GENERATION, items[k], title);
	free(title);
}
