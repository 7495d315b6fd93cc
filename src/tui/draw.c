/* draw.c — drawing the browser: colours (monochrome when the terminal
 * has none or NO_COLOR is set), the dump and step lines, the tabs, the
 * view's rows, the breadcrumb and the key hint. A redraw formats little:
 * rows carry their texts. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "graph/reader.h"
#include "graph/rules.h"
#include "query/baseline.h"
#include "query/tname.h"
#include "query/views.h"
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

int draw_text(const char *s, int width, int pad)
{
	static const char blanks[] = "                                                                ";
	int used = 0;
	mbstate_t st;
	size_t i = 0, run = 0, len = strlen(s);

	/* runs of printable text go out in one call: ncurses' cost is per call */
	memset(&st, 0, sizeof st);
	while (i < len && used < width) {
		wchar_t wc;
		size_t k;
		int cw;
		if ((unsigned char)s[i] >= 0x20 && (unsigned char)s[i] < 0x7f) { /* ASCII */
			k = 1;
			cw = 1;
		} else {
			k = mbrtowc(&wc, s + i, len - i, &st);
			cw = k == (size_t)-1 || k == (size_t)-2 || k == 0 ? -1 : wcwidth(wc);
		}
		if (cw >= 0 && used + cw > width)
			break;
		if (cw < 0) { /* undecodable, or a control: '?' */
			addnstr(s + run, (int)(i - run));
			addch('?');
			memset(&st, 0, sizeof st);
			k = k == (size_t)-1 || k == (size_t)-2 || k == 0 ? 1 : k;
			cw = 1;
			run = i + k;
		}
		used += cw;
		i += k;
	}
	if (i > run)
		addnstr(s + run, (int)(i - run));
	while (pad && used < width) {
		int n = width - used < (int)sizeof blanks - 1 ? width - used : (int)sizeof blanks - 1;
		addnstr(blanks, n);
		used += n;
	}
	return used;
}
/* ---- drawing ---- */
/* "rules: jdk" or "rules: jdk, gradle (2 of 9 groups off)": the files
 * the groups come from (base names without ".rules"), as applied;
 * brief: "rules: jdk, 2/9 off". */
static void rules_only(const struct tui *t, int brief, struct sbuf *out);

/* The rules, then the analyses' focus (^X lists it). */
static void rules_text(const struct tui *t, int brief, struct sbuf *out)
{
	rules_only(t, brief, out);
	if (t->h->aroot != 0) {
		char id[32];
		node_id_text(t->h, t->h->aroot, id, sizeof id);
		sbuf_printf(out, brief ? ", root %s" : ", analysis root %s", id);
	}
	if (t->h->nignored > 0)
		sbuf_printf(out, brief ? ", %zu out" : ", %zu reference%s left out", t->h->nignored,
			    t->h->nignored == 1 ? "" : "s");
}

static void rules_only(const struct tui *t, int brief, struct sbuf *out)
{
	const struct ruleset *rs = t->oo.rules;
	struct sbuf names;
	size_t off = 0;

	if (rs == NULL || rs->ngroups == 0 || t->h->rules == NULL) {
		/* none given, or a heap of another runtime (the rules name Java's) */
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
	if (off && brief)
		sbuf_printf(out, ", %zu/%zu off", off, rs->ngroups);
	else if (off)
		sbuf_printf(out, " (%zu of %zu groups off)", off, rs->ngroups);
	sbuf_free(&names);
}

void rules_state(const struct tui *t, struct sbuf *out)
{
	rules_text(t, 0, out);
}

void draw_line(int y, int color, const char *s)
{
	move(y, 0);
	attrset(attr_of(color));
	draw_text(s, COLS, 1);
	attrset(A_NORMAL);
}

/* Where a line of p that could hold k bytes ends: after a comma or a
 * semicolon in its second half, else at a blank outside parentheses in
 * its last two thirds ("(c: by object)" stays whole), else at its last
 * blank; a word longer than the line is cut. */
static size_t line_break(const char *p, size_t k)
{
	size_t punct = 0, outside = 0, any = 0;
	int depth = 0;

	for (size_t i = 1; i <= k; i++) {
		depth += p[i - 1] == '(' ? 1 : p[i - 1] == ')' && depth > 0 ? -1 : 0;
		if (p[i] != ' ')
			continue;
		any = i;
		if (depth == 0)
			outside = i;
		if (depth == 0 && (p[i - 1] == ',' || p[i - 1] == ';'))
			punct = i;
	}
	if (punct > k / 2)
		return punct;
	if (outside > k / 3)
		return outside;
	if (any > 0 || k > 0)
		return any > 0 ? any : k;
	size_t c = 1; /* a character wider than the line: on one of its own */
	while ((p[c] & 0xc0) == 0x80)
		c++;
	return c;
}

size_t text_wrap(const char *s, int width, int indent, char ***lines)
{
	size_t n = 0;
	struct sbuf l;

	*lines = NULL;
	if (indent >= width)
		indent = 0;
	sbuf_init(&l);
	for (const char *p = s; *p || n == 0;) {
		int room = n == 0 ? width : width - indent, used;
		size_t k = text_fit(p, room, &used), nl = strcspn(p, "\n");
		if (nl <= k) { /* the text's own line ends first */
			k = nl;
		} else if (p[k] != '\0') {
			k = line_break(p, k);
		}
		sbuf_reset(&l);
		if (n > 0)
			sbuf_printf(&l, "%*s", indent, "");
		sbuf_add(&l, p, k);
		*lines = xreallocarray(*lines, n + 1, sizeof **lines);
		(*lines)[n++] = xstrdup(l.buf ? l.buf : "");
		p += k;
		if (*p == '\n')
			p++;
		else
			while (*p == ' ')
				p++;
		if (*p == '\0')
			break;
	}
	sbuf_free(&l);
	return n;
}

void text_wrap_free(char **lines, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
}

/* s cut to `width` cells in its middle ("heap-2026...-01.hprof"), so
 * that both ends of a file name stay. */
static void middle_cut(const char *s, int width, struct sbuf *out)
{
	int w = text_width(s);

	if (w <= width || width < 5) {
		sbuf_adds(out, s);
		return;
	}
	int head = (width - 1) / 2, used;
	size_t k = text_fit(s, head, &used);
	sbuf_add(out, s, k);
	sbuf_adds(out, MB_CUR_MAX > 1 ? "\xe2\x80\xa6" : "~");
	const char *p = s + k;
	while (*p && text_width(p) > width - used - 1) {
		p++;
		while ((*p & 0xc0) == 0x80)
			p++;
	}
	sbuf_adds(out, p);
}

/* The dump line: the file, its counts, the baseline and the rules. When
 * it is too wide, whole parts give way, least needed first: the
 * directory, the baseline hint, the long form of the rules; then a
 * baseline's summary goes to lines of its own below (all of it: what is
 * new, old and gone); then the hint, the rules, the heap size; the file
 * name is cut in its middle last. Never a word cut in two. Returns the
 * lines drawn from y 0. */
static int draw_title(struct tui *t)
{
	struct sbuf d, bl, rl, rs, line;
	int main = t->h == t->main;
	unsigned long long n = (unsigned long long)(t->h->n - 1);
	char a[32];

	sbuf_init(&d);
	sbuf_init(&bl);
	sbuf_init(&rl);
	sbuf_init(&rs);
	sbuf_init(&line);
	fmt_bytes(a, sizeof a, t->h->total_shallow);
	if (main) {
		esc_append(&d, (const uint8_t *)t->dump, strlen(t->dump), 0);
		if (t->main->nsnaps > 0) /* one of the file's heapshots: H opens another */
			sbuf_printf(&d, " [heapshot %u of %u]", t->main->snap, t->main->nsnaps);
		if (t->bl != NULL)
			baseline_summary(t->bl, &bl);
	} else { /* a step of gone objects, or from them */
		esc_append(&d, (const uint8_t *)t->baseline, strlen(t->baseline), 0);
		sbuf_adds(&bl, "the baseline's side: its objects, not the open dump's");
	}
	rules_text(t, 0, &rl);
	rules_text(t, 1, &rs);
	const char *base = strrchr(d.buf, '/');
	const char *file = d.buf, *hint = main && t->bl == NULL ? "no baseline (B: load one)" : NULL;
	const char *rules = rl.buf, *heap = a;
	int own = 0; /* the baseline on lines of its own */
	for (int k = 0;; k++) {
		if (k == 4 && bl.len && !own) { /* it does not fit beside what matters */
			own = 1;
			k = 0;
			file = d.buf;
			hint = NULL;
			rules = rl.buf;
		}
		switch (k) {
		case 1: file = base ? base + 1 : file; break;
		case 2: hint = hint ? "no baseline" : NULL; break;
		case 3: rules = rs.buf; break;
		case 4: hint = NULL; break;
		case 5: rules = NULL; break;
		case 6: heap = NULL; break;
		default: break;
		}
		sbuf_reset(&line);
		sbuf_printf(&line, " heapwalk  ");
		if (k >= 7) { /* the name itself, cut in the middle */
			char cnt[48];
			snprintf(cnt, sizeof cnt, "  %llu object%s", n, n == 1 ? "" : "s");
			middle_cut(file, COLS - text_width(line.buf) - text_width(cnt), &line);
		} else {
			sbuf_adds(&line, file);
		}
		sbuf_printf(&line, "  %llu object%s", n, n == 1 ? "" : "s");
		if (heap)
			sbuf_printf(&line, "  %s heap", heap);
		if (bl.len && !own)
			sbuf_printf(&line, "  %s", bl.buf);
		if (rules)
			sbuf_printf(&line, "  %s", rules);
		if (hint)
			sbuf_printf(&line, "  %s", hint);
		if (text_width(line.buf) <= COLS || k >= 7)
			break;
	}
	draw_line(0, C_TITLE, line.buf);
	int y = 1;
	if (own) {
		char **l;
		sbuf_reset(&line);
		sbuf_printf(&line, " %s%s", main ? "baseline: " : "", bl.buf);
		size_t nl = text_wrap(line.buf, COLS, main ? 11 : 1, &l);
		for (size_t i = 0; i < nl && y < t->rows - 6; i++)
			draw_line(y++, C_TITLE, l[i]);
		text_wrap_free(l, nl);
	}
	sbuf_free(&d);
	sbuf_free(&bl);
	sbuf_free(&rl);
	sbuf_free(&rs);
	sbuf_free(&line);
	return y;
}

/* The step line: its number and title, then its counts. The counts
 * stay, said shorter as the screen narrows; then the title is cut. */
static void draw_step(struct tui *t, int y)
{
	struct hstep *s = cur_step(t);
	char a[32], b[32], tail[3][160];
	struct sbuf line;
	const char *objs = s->set.count == 1 ? "object" : "objects";
	unsigned long long n = (unsigned long long)s->set.count;

	fmt_bytes(a, sizeof a, s->set.shallow);
	snprintf(b, sizeof b, "?");
	if (s->retained_known)
		fmt_bytes(b, sizeof b, s->retained);
	char deep[48] = ""; /* asked for with a: beside the retained size */
	if (s->deep_known) {
		char d[32];
		fmt_bytes(d, sizeof d, s->deep);
		snprintf(deep, sizeof deep, ", deep %s", d);
	}
	snprintf(tail[0], sizeof tail[0], "  |  %llu %s, %s shallow, retained %s%s%s", n, objs, a, b,
		 s->retained_known ? "" : " (e: compute)", deep);
	snprintf(tail[1], sizeof tail[1], "  |  %llu %s, %s shallow, retained %s%s", n, objs, a, b, deep);
	snprintf(tail[2], sizeof tail[2], "  |  %llu %s, %s, retained %s%s", n, objs, a, b, deep);
	sbuf_init(&line);
	sbuf_printf(&line, " Step %zu: ", t->cur + 1);
	int k = 0, tw = text_width(s->title), room;
	while ((room = COLS - text_width(line.buf) - text_width(tail[k])) < tw && k < 2)
		k++;
	/* the longest dotted word of the title is a class name: it gives way
	 * by packages first ("Instances of c.s.t.javac.tree.JCTree$JCIdent") */
	size_t off = 0, len = 0;
	for (const char *p = s->title; *p;) {
		size_t w = strcspn(p, " ");
		if (memchr(p, '.', w) != NULL && w > len) {
			off = (size_t)(p - s->title);
			len = w;
		}
		p += w;
		p += strspn(p, " ");
	}
	if (tw <= room) {
		sbuf_adds(&line, s->title);
	} else if (len > 0) {
		struct sbuf fit;
		sbuf_init(&fit);
		label_fit(s->title, off, len, room, &fit);
		int used;
		sbuf_add(&line, fit.buf, text_fit(fit.buf, room, &used));
		sbuf_free(&fit);
	} else if (room > 3) {
		int used;
		sbuf_add(&line, s->title, text_fit(s->title, room - 3, &used));
		sbuf_adds(&line, "...");
	}
	sbuf_adds(&line, tail[k]);
	draw_line(y, C_STEP, line.buf);
	sbuf_free(&line);
}

static void draw_tabs(struct tui *t, int y)
{
	struct hstep *s = cur_step(t);

	move(y, 0);
	int x = 0, all = 0, pad = 1, brief[V_COUNT] = { 0 };
	for (int i = 0; i < V_COUNT; i++)
		all += (int)strlen(view_table[i]->name) + 3;
	/* too wide: the short names that save most first (the later tab on a
	 * tie), as many as it takes; still too wide (80 columns): every short
	 * name, without margins */
	while (all > COLS) {
		int best = -1, save = 0;
		for (int i = 0; i < V_COUNT; i++) {
			const char *sn = view_table[i]->short_name;
			int d = sn != NULL && !brief[i] ? (int)(strlen(view_table[i]->name) - strlen(sn)) : 0;
			if (d > 0 && d >= save) {
				best = i;
				save = d;
			}
		}
		if (best < 0)
			break;
		brief[best] = 1;
		all -= save;
	}
	if (all > COLS) {
		pad = 0;
		for (int i = 0; i < V_COUNT; i++)
			brief[i] = 1;
		addch(' ');
		x = 1;
	}
	/* what still does not fit is said, never cut without a word: "<"
	 * before the first tab shown when tabs lie before it, ">" after the
	 * last when tabs follow; the view's own tab is always among them */
	int w[V_COUNT], cur = (int)s->view, lo = 0, hi;
	for (int i = 0; i < V_COUNT; i++)
		w[i] = (int)strlen(brief[i] && view_table[i]->short_name ? view_table[i]->short_name
									  : view_table[i]->name) + 2 * pad + 1;
	for (;;) { /* lo: the first tab shown, hi: past the last */
		int room = COLS - x - (lo > 0 ? 2 : 0), used = 0;
		for (hi = lo; hi < V_COUNT && used + w[hi] - 1 <= room - (hi + 1 < V_COUNT ? 2 : 0); hi++)
			used += w[hi];
		if (hi > cur || lo >= cur)
			break;
		lo++;
	}
	if (lo > 0) {
		addstr("< ");
		x += 2;
	}
	for (int i = lo; i < hi; i++) {
		const char *name = brief[i] && view_table[i]->short_name ? view_table[i]->short_name
									  : view_table[i]->name;
		attrset(attr_of(i == cur ? C_TABSEL : C_TAB));
		if (pad)
			addch(' ');
		addstr(name);
		if (pad)
			addch(' ');
		attrset(A_NORMAL);
		x += w[i] - 1;
		if (x < COLS) {
			addch(' ');
			x++;
		}
	}
	if (hi < V_COUNT && x < COLS)
		addch('>');
	clrtoeol();
}

/* Returns the lines it took. */
static int draw_header(struct tui *t)
{
	int y = draw_title(t);

	draw_step(t, y);
	draw_tabs(t, y + 1);
	return y + 2;
}

int pane_rows(const struct tui *t)
{
	if (t->pane > 0)
		return t->pane;
	return t->rows - 6 > 1 ? t->rows - 6 : 1;
}

/* ---- the rows: a label column and number columns ---- */

static int digits(uint64_t n)
{
	int d = 1;

	while (n >= 10) {
		n /= 10;
		d++;
	}
	return d;
}

/* Cells a column needs: its widest value (counts are at most the dump's
 * objects; fmt_bytes is at most "1023 MB") or its title. */
static int col_width(const struct tview *v, const struct column *c)
{
	int cnt = digits(v->st->h->n > 99999 ? v->st->h->n : 99999), w;

	switch (c->type) {
	case COL_COUNT: w = cnt; break;
	case COL_BYTES: case COL_FIGURE: w = 7 > cnt ? 7 : cnt; break;
	case COL_PCT: w = 6; break;
	case COL_RET: w = 10; break;
	/* new, gone (a sign): room for the "?" after them (RF_UNTOLD) */
	case COL_SCOUNT: w = cnt + 1 + (c->sign != 0); break;
	case COL_SBYTES: w = 8 + (c->sign != 0); break;
	case COL_BAR: w = 12; break;
	case COL_GENS:
		for (w = 0; w < HW_MAX_GENS && heap_gen_name(v->st->h, (unsigned)w) != NULL; w++)
			;
		break;
	case COL_ENUM:
		w = 1;
		for (int k = 0; c->names && c->names[k]; k++)
			if ((int)strlen(c->names[k]) > w)
				w = (int)strlen(c->names[k]);
		break;
	default: w = 8; break;
	}
	int tw = text_width(c->title);
	return tw > w ? tw : w;
}

/* Which columns fit: all, unless the label would get narrower than
 * `want`; then the ones with the highest drop go first. Returns the
 * label's width; shown[i] and width[i] per column. */
static int col_layout(const struct tview *v, int cols, int *shown, int *width)
{
	int total = 0, want = cols < 100 ? cols * 55 / 100 : 45;

	for (int i = 0; i < v->ncols; i++) {
		shown[i] = 1;
		width[i] = col_width(v, &v->cols[i]);
		total += width[i] + 1;
	}
	while (cols - 1 - total < want) {
		int worst = -1;
		for (int i = 0; i < v->ncols; i++)
			if (shown[i] && v->cols[i].drop > 0 && (worst < 0 || v->cols[i].drop > v->cols[worst].drop))
				worst = i;
		if (worst < 0)
			break;
		shown[worst] = 0;
		total -= width[worst] + 1;
	}
	int lw = cols - 1 - total;
	return lw < 10 ? 10 : lw;
}

/* One cell, right-aligned in w: the row's number as the column says. */
static void cell(const struct tview *v, const struct column *c, const struct row *r, int w, struct sbuf *out)
{
	char buf[64], num[32];
	uint64_t x = r->val[c->val];
	int unknown = r->unknown >> c->val & 1;

	buf[0] = '\0';
	switch (c->type) {
	case COL_COUNT:
		snprintf(buf, sizeof buf, unknown ? "?" : "%llu", (unsigned long long)x);
		break;
	case COL_BYTES:
		if (unknown)
			snprintf(buf, sizeof buf, "?");
		else
			fmt_bytes(buf, sizeof buf, x);
		break;
	case COL_FIGURE:
		if (unknown)
			break;
		if (r->flags & RF_COUNT)
			snprintf(buf, sizeof buf, "%llu", (unsigned long long)x);
		else
			fmt_bytes(buf, sizeof buf, x);
		break;
	case COL_PCT:
	case COL_BAR: {
		uint64_t of = c->den < 0 ? v->whole[c->val] : r->val[c->den];
		double p = of ? 100.0 * (double)x / (double)of : 0.0;
		if (unknown || (c->den >= 0 && (r->unknown >> c->den & 1)))
			break;
		/* a part short of the whole never reads as all of it */
		if (x < of && p > 99.9)
			p = 99.9;
		if (c->type == COL_PCT) {
			snprintf(buf, sizeof buf, "%.1f%%", p);
			break;
		}
		int n = x < of && p > 95.0 ? 9 : (int)(p / 10.0 + 0.5);
		buf[0] = '[';
		for (int k = 0; k < 10; k++)
			buf[1 + k] = k < n ? '#' : ' ';
		buf[11] = ']';
		buf[12] = '\0';
		break;
	}
	case COL_RET:
		if (unknown) {
			snprintf(buf, sizeof buf, "?");
			break;
		}
		fmt_bytes(num, sizeof num, x);
		snprintf(buf, sizeof buf, "%s %s", r->flags & RF_EXACT ? "=" : ">=", num);
		break;
	case COL_SCOUNT:
	case COL_SBYTES: {
		/* new or gone of a class with objects not told apart: "?" after */
		const char *more = c->sign != 0 && (r->flags & RF_UNTOLD) ? "?" : "";
		if (unknown)
			snprintf(buf, sizeof buf, "-");
		else if (x == 0)
			snprintf(buf, sizeof buf, "0%s", more);
		else if (c->type == COL_SCOUNT && c->sign == 0) /* a difference */
			snprintf(buf, sizeof buf, "%+lld", (long long)(int64_t)x);
		else if (c->type == COL_SCOUNT)
			snprintf(buf, sizeof buf, "%c%llu%s", c->sign, (unsigned long long)x, more);
		else {
			fmt_bytes(num, sizeof num, x);
			snprintf(buf, sizeof buf, "%c%s%s", c->sign, num, more);
		}
		break;
	}
	case COL_GENS: { /* "genN": N, else the name's first letter, capital */
		const char *g;
		size_t k = 0;
		for (; k < HW_MAX_GENS && k + 1 < sizeof buf && (g = heap_gen_name(v->st->h, (unsigned)k)) != NULL; k++)
			buf[k] = !(x >> k & 1) || unknown ? '.'
				 : strncmp(g, "gen", 3) == 0 && g[3] ? g[3] : (char)toupper((unsigned char)g[0]);
		buf[k] = '\0';
		break;
	}
	case COL_ENUM: {
		size_t k = 0;
		while (c->names && c->names[k] && k < x)
			k++;
		snprintf(buf, sizeof buf, "%s", c->names && c->names[k] ? c->names[k] : "?");
		break;
	}
	default:
		break;
	}
	sbuf_printf(out, "%*s", w, buf);
}

/* The columns of row r (NULL: the header) as one string. */
static void row_cols(const struct tview *v, const struct row *r, const int *shown, const int *width,
		     struct sbuf *out)
{
	for (int i = 0; i < v->ncols; i++) {
		if (!shown[i])
			continue;
		sbuf_addc(out, ' ');
		if (r == NULL)
			sbuf_printf(out, "%*s", width[i] + (int)strlen(v->cols[i].title) - text_width(v->cols[i].title),
				    v->cols[i].title);
		else if (r->flags & RF_NOCOLS)
			sbuf_printf(out, "%*s", width[i], "");
		else
			cell(v, &v->cols[i], r, width[i], out);
	}
}

void row_whole(const struct tview *v, const struct row *r, struct sbuf *out)
{
	if (v->ops->row_label != NULL)
		v->ops->row_label(v, r, out);
	else
		sbuf_adds(out, r->left);
	/* an object's string value, which its label cuts at 120 bytes:
	 * whole, or its first 64 kB (the box scrolls) */
	struct sbuf val;
	sbuf_init(&val);
	if (r->node != HW_NONE && r->node != 0 && v->st != NULL && r->node < v->st->h->n &&
	    node_string(v->st->h, r->node, &val, (size_t)64 << 10) == 0 && val.len > 120) {
		sbuf_adds(out, "\n\nvalue: \"");
		esc_append(out, (const uint8_t *)val.buf, val.len, 1);
		sbuf_addc(out, '"');
	}
	sbuf_free(&val);
	if (r->right != NULL) {
		sbuf_adds(out, "\n\n");
		sbuf_adds(out, r->right);
	}
	if (r->flags & RF_NOCOLS)
		return;
	if (r->right == NULL && v->ncols > 0)
		sbuf_addc(out, '\n');
	for (int i = 0; r->right == NULL && i < v->ncols; i++) {
		struct sbuf c;
		sbuf_init(&c);
		cell(v, &v->cols[i], r, 0, &c);
		/* none for a percentage or bar of a number not known; a
		 * column without a title (an inspection's figure, named
		 * above the rows) by its value alone */
		if (c.len > 0)
			sbuf_printf(out, "\n%s%s%s", v->cols[i].title, *v->cols[i].title ? ": " : "", c.buf);
		sbuf_free(&c);
	}
}

/* A quoted value in what follows the name gives way, so that what
 * follows it (a path step's field) stays: t is the label, its first
 * `named` bytes what comes before the tail. 0 when that does not fit. */
static int value_fit(const char *t, size_t named, int avail, struct sbuf *out)
{
	const char *ell = MB_CUR_MAX > 1 ? "\xe2\x80\xa6" : "..";
	const char *q1 = strchr(t + named, '"'), *q2 = q1 ? strrchr(t + named, '"') : NULL;
	int used;

	if (q1 == NULL || q2 <= q1 + 1)
		return 0;
	char *head = xstrndup(t, (size_t)(q1 + 1 - t)), *value = xstrndup(q1 + 1, (size_t)(q2 - q1 - 1));
	int fixed = text_width(head) + text_width(q2) + text_width(ell), ok = fixed < avail;
	if (ok) {
		sbuf_adds(out, head);
		sbuf_add(out, value, text_fit(value, avail - fixed, &used));
		sbuf_adds(out, ell);
		sbuf_adds(out, q2);
	}
	free(head);
	free(value);
	return ok;
}

/* The label with its name's arguments cut to fit (tname_squeeze). */
static int squeeze(const struct tname_forms *f, const char *left, size_t off, const char *tail, int avail,
		   struct sbuf *out)
{
	struct sbuf pre, nm;
	int ok;

	sbuf_init(&pre);
	sbuf_init(&nm);
	sbuf_add(&pre, left, off);
	ok = tname_squeeze(f, avail - text_width(pre.buf) - text_width(tail), &nm);
	if (ok) {
		sbuf_adds(out, pre.buf);
		sbuf_adds(out, nm.buf);
		sbuf_adds(out, tail);
	}
	sbuf_free(&pre);
	sbuf_free(&nm);
	return ok;
}

/* The row's label in `avail` cells: as it is when it fits; else its
 * class name said shorter, form by form (query/tname.h: namespaces to
 * initials from the left, the outer type's first, then its generic
 * arguments'; then namespaces gone; then the arguments cut), with what
 * follows the name (an id, a field, a value) whole; from the form where
 * every namespace is an initial on, a quoted value gives way before the
 * name gets shorter. Then what follows the shortest name is cut; last,
 * that name itself, its outer simple name's start kept. A row never
 * loses its id to a long value or a long generic argument. */
/* The last resort of label_fit: t, the label with the shortest form of
 * its name (the first `named` bytes: what comes before the name, and
 * the name), cut to avail cells. */
static void label_cut(const struct tname_forms *f, const char *t, size_t named, int avail, struct sbuf *out)
{
	const char *ell = MB_CUR_MAX > 1 ? "\xe2\x80\xa6" : "..";
	int ew = MB_CUR_MAX > 1 ? 1 : 2, used;
	char *name = xstrndup(t, named);
	int nw = text_width(name), pw = nw - text_width(f->v[f->n - 1]);

	if (nw + ew < avail) { /* what follows the name, cut */
		size_t k = text_fit(t, avail - ew, &used);
		sbuf_add(out, t, k > named ? k : named);
		sbuf_adds(out, ell);
	} else if (nw <= avail) {
		sbuf_adds(out, name);
	} else if (avail - pw - ew >= 12) { /* what comes before the name stays if the name keeps room */
		sbuf_add(out, name, named - strlen(f->v[f->n - 1]));
		tname_cut(f->v[f->n - 1], f->brackets, avail - pw, out);
	} else if (nw - pw + ew < avail) { /* the name whole, the end of what comes before it */
		size_t pre = named - strlen(f->v[f->n - 1]), k = pre;
		while (k > 0) {
			size_t j = k - 1;
			while (j > 0 && ((unsigned char)name[j] & 0xc0) == 0x80) /* a UTF-8 character's start */
				j--;
			char *rest = xstrndup(name + j, pre - j);
			int fits = text_width(rest) + (nw - pw) + ew <= avail;
			free(rest);
			if (!fits)
				break;
			k = j;
		}
		sbuf_adds(out, ell);
		sbuf_adds(out, name + k);
	} else {
		tname_cut(f->v[f->n - 1], f->brackets, avail, out);
	}
	free(name);
}

void label_fit(const char *left, size_t off, size_t len, int avail, struct sbuf *out)
{
	size_t n = strlen(left);

	/* no UTF-8 character is wider than its bytes: a short label fits */
	if (len == 0 || off + len > n || (int)n <= avail || text_width(left) <= avail) {
		sbuf_adds(out, left);
		return;
	}
	const char *tail = left + off + len;
	struct tname_forms f;
	struct sbuf t;
	size_t named = 0, i;

	tname_forms(left + off, len, &f);
	sbuf_init(&t);
	for (i = 0; i < f.n; i++) {
		sbuf_reset(&t);
		sbuf_add(&t, left, off);
		sbuf_adds(&t, f.v[i]);
		named = t.len;
		sbuf_adds(&t, tail);
		if (text_width(t.buf) <= avail) {
			sbuf_adds(out, t.buf);
			break;
		}
		if (i >= f.initials && value_fit(t.buf, named, avail, out))
			break;
		if (i == f.bare && squeeze(&f, left, off, tail, avail, out))
			break;
	}
	if (i == f.n)
		label_cut(&f, t.buf, named, avail, out);
	tname_forms_free(&f);
	sbuf_free(&t);
}

/* The view's header from line y: its label column's title, wrapped in
 * the label column when longer ("dominator tree, by class: no object
 * holds much (c: by object)"), the columns' titles on its last line.
 * Returns the lines it took. */
static int draw_colhead(struct tui *t, struct tview *v, int y, int lw, const int *shown, const int *width)
{
	char **l;
	struct sbuf rt;
	size_t all = text_wrap(v->lefthead, lw - 1, 1, &l), n = all;

	if (n > (size_t)(t->rows - y - 3) && t->rows - y - 3 > 0)
		n = (size_t)(t->rows - y - 3); /* a pane row at least */
	sbuf_init(&rt);
	row_cols(v, NULL, shown, width, &rt);
	attrset(attr_of(C_HEAD));
	for (size_t i = 0; i < n; i++) {
		move(y + (int)i, 0);
		draw_text(l[i], lw, 1);
		draw_text(i + 1 == n ? rt.buf : "", COLS - lw, 1);
	}
	attrset(A_NORMAL);
	sbuf_free(&rt);
	text_wrap_free(l, all);
	return (int)n;
}

static void draw_rows(struct tui *t, int y0)
{
	struct tview *v = cur_view(t);
	int shown[VIEW_COLS], width[VIEW_COLS];
	struct sbuf rt, lab;

	if (v->ops->head != NULL)
		v->ops->head(v);
	int lw = col_layout(v, COLS, shown, width);
	y0 += draw_colhead(t, v, y0, lw, shown, width);
	int h = t->rows - y0 - 2 > 1 ? t->rows - y0 - 2 : 1;
	t->pane = h;
	sbuf_init(&rt);
	sbuf_init(&lab);
	if (v->cur >= v->rows.n)
		v->cur = v->rows.n ? v->rows.n - 1 : 0;
	if (v->cur < v->top)
		v->top = v->cur;
	if (v->cur >= v->top + (size_t)h)
		v->top = v->cur - (size_t)h + 1;
	if (v->top > 0 && v->top + (size_t)h > v->rows.n) /* no blank pane under the last row */
		v->top = v->rows.n > (size_t)h ? v->rows.n - (size_t)h : 0;
	for (int y = 0; y < h; y++) {
		size_t i = v->top + (size_t)y;
		move(y0 + y, 0);
		if (i >= v->rows.n) {
			if (v->rows.n == 0 && y == 0)
				draw_text(v->dropped ? "  (dropped after a failure: ^L makes it again)"
					  : v->built ? "  (nothing to show)" : "  (not built: press ^L)", COLS, 0);
			clrtoeol();
			continue;
		}
		struct row *r = &v->rows.v[i];
		attr_t a = i == v->cur ? attr_of(C_CURSOR) : r->marked ? attr_of(C_MARK) : A_NORMAL;
		attrset(a);
		/* deep trees: the indent takes a third of the label at most */
		int cap = lw > 0 ? lw / 3 : 0;
		int d = r->depth <= (uint32_t)cap / 2 ? (int)r->depth * 2 : cap;
		/* a row without numbers (a note, a GC root's record) has the line */
		int nocols = (r->flags & RF_NOCOLS) && r->right == NULL, w = nocols ? COLS : lw;
		int used = draw_text(r->marked ? "*" : " ", 1, 0);
		used += draw_text("", d < w - used ? d : w - used, 1);
		/* an open "more" row stays, its page after it: no sign */
		used += draw_text(r->open < 0 || (r->more && r->open) ? "  " : r->open ? "- " : "+ ", w - used, 0);
		sbuf_reset(&lab);
		label_fit(r->left, r->name_off, r->name_len, w - used, &lab);
		draw_text(lab.buf, w - used, 1);
		if (!nocols) {
			sbuf_reset(&rt);
			if (r->right != NULL) {
				sbuf_addc(&rt, ' ');
				sbuf_adds(&rt, r->right);
			} else {
				row_cols(v, r, shown, width, &rt);
			}
			draw_text(rt.buf, COLS - lw, 1);
		}
		attrset(A_NORMAL);
	}
	sbuf_free(&rt);
	sbuf_free(&lab);
}

static int view_takes(const struct view_ops *o, enum request r)
{
	for (const struct view_key *k = o->keys; k != NULL && k->req != REQ_NONE; k++)
		if (k->req == r)
			return 1;
	return 0;
}

/* The key hint: what is active first (marks, a filter), then as many
 * keys as fit of those the view takes, "? help  q quit" always. */
static void hint(const struct tui *t, const struct tview *v, struct sbuf *out)
{
	static const char *const parts[] = { "Enter use", "Space mark", "Tab view", "+/- expand",
					     "Left/Right steps", "u use...", "/ search", "f filter",
					     "s sort", "x expression" };
	const char *tail = "  ? help  q quit";
	size_t marked = v->nmarked;
	int first = 1;

	sbuf_addc(out, ' ');
	if (marked > 0) {
		sbuf_printf(out, "%zu marked: Enter uses them, Space unmarks", marked);
		first = 0;
	}
	if (v->filter != NULL) {
		sbuf_printf(out, "%sfilter /", first ? "" : "  ");
		tui_typed(out, v->filter);
		sbuf_adds(out, "/ (f: change)");
		first = 0;
	}
	for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
		if (marked > 0 && i < 2)
			continue; /* said already */
		if ((strcmp(parts[i], "f filter") == 0 && !(v->ops->flags & VO_FILTER)) ||
		    (strcmp(parts[i], "s sort") == 0 && !view_takes(v->ops, REQ_SORT)))
			continue;
		int w = text_width(out->buf) + (first ? 0 : 2) + (int)strlen(parts[i]) + (int)strlen(tail);
		if (w > t->cols)
			break;
		sbuf_printf(out, "%s%s", first ? "" : "  ", parts[i]);
		first = 0;
	}
	sbuf_adds(out, tail);
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
		draw_text(crumb, COLS - 3, 1);
		attrset(A_NORMAL);
	} else {
		draw_line(t->rows - 2, C_CRUMB, crumb);
	}
	if (t->msg != NULL) { /* all of it: a long one over the lines above */
		char **l;
		size_t n = text_wrap(t->msg, COLS, 1, &l), k = n < (size_t)t->rows / 2 ? n : (size_t)t->rows / 2;
		for (size_t i = 0; i < k; i++)
			draw_line(t->rows - (int)k + (int)i, t->msg_error ? C_ERROR : C_HINT, l[i]);
		text_wrap_free(l, n);
	} else {
		sbuf_reset(&sb);
		hint(t, cur_view(t), &sb);
		draw_line(t->rows - 1, C_HINT, sb.buf);
	}
	sbuf_free(&sb);
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
	draw_rows(t, draw_header(t));
	draw_footer(t);
	move(t->rows - 1, t->cols - 1);
	refresh();
}

/* ---- progress: drawn on the hint line, Esc or ^C cancels ---- */
void tui_tick(struct progress *p, uint64_t done)
{
	struct tui *t = p->tick_arg;
	int c, ahead[64], n = 0;

	/* Esc or ^C cancels; keys typed ahead are put back, in order */
	while ((c = getch()) != ERR) {
		if (c == 27 || c == 3)
			p->cancelled = 1;
		else if (c == 26) /* ^Z: suspend now, the work goes on after fg */
			tui_stop = 1;
		else if (n < (int)(sizeof ahead / sizeof ahead[0]))
			ahead[n++] = c;
	}
	while (n > 0)
		ungetch(ahead[--n]);
	if (tui_signal) /* SIGTERM, SIGHUP: stop working, then leave */
		p->cancelled = 1;
	else if (tui_stop)
		tui_suspend();
	char line[160];
	if (p->total) /* else a count with no whole: rows loaded so far */
		snprintf(line, sizeof line, " %s: %3.0f%%   Esc: cancel", p->phase ? p->phase : "working",
			 100.0 * (double)done / (double)p->total);
	else
		snprintf(line, sizeof line, " %s: %llu   Esc: cancel", p->phase ? p->phase : "working",
			 (unsigned long long)done);
	move(t->rows - 1, 0);
	attrset(attr_of(C_HINT));
	draw_text(line, t->cols, 1);
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
	draw_footer(t); /* the progress line goes: a box drawn next sits over the footer */
	return cancelled ? -1 : 0;
}
