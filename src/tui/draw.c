/* draw.c — drawing the browser: colours (monochrome when the terminal
 * has none or NO_COLOR is set), the dump and step lines, the tabs, the
 * view's rows, the breadcrumb and the key hint. A redraw formats little:
 * rows carry their texts. */
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "graph/rules.h"
#include "query/baseline.h"
#include "tui/frame.h"

/* ---- colours: one semantic table, attributes for monochrome ---- */
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

attr_t attr_of(int c)
{
	if (!use_color)
		return palette[c].mono;
	return COLOR_PAIR(c) | palette[c].extra;
}

void colors_init(void)
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

int put(const char *s, int width, int pad)
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
/* ---- drawing ---- */
/* "rules: jdk" or "rules: jdk, gradle (2 of 9 groups off)": the files
 * the groups come from (base names without ".rules"), as applied. */
void rules_state(const struct tui *t, struct sbuf *out)
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

void draw_line(int y, int color, const char *s)
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

int pane_rows(const struct tui *t) { return t->rows - 6 > 1 ? t->rows - 6 : 1; }

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
