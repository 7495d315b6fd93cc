/* prompt.c — the status-line prompt, the popup list and the help
 * screen; keys come through read_key, so a signal unwinds them. */
#include <stdlib.h>
#include <string.h>

#include "tui/frame.h"

void input_backspace(struct sbuf *in)
{
	while (in->len > 0 && (in->buf[in->len - 1] & 0xc0) == 0x80)
		in->len--; /* a UTF-8 character's continuation bytes, then its first */
	if (in->len > 0)
		in->len--;
	if (in->buf != NULL)
		in->buf[in->len] = '\0';
}

char *tui_prompt(struct tui *t, const char *label, void (*live)(struct tui *, const char *, void *),
		 void *arg)
{
	struct sbuf in;

	sbuf_init(&in);
	curs_set(1);
	for (;;) {
		move(t->rows - 1, 0);
		attrset(A_NORMAL);
		draw_text(label, COLS, 0);
		draw_text(in.buf, COLS - text_width(label) - 1, 0);
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
		if (c == 21) { /* ^U: what was typed goes */
			sbuf_reset(&in);
		} else if (c == KEY_BACKSPACE || c == 127 || c == 8) {
			input_backspace(&in);
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

int tui_ask(struct tui *t, const char *label)
{
	move(t->rows - 1, 0);
	attrset(attr_of(C_HINT));
	draw_text(label, COLS, 1);
	attrset(A_NORMAL);
	refresh();
	int c = read_key(stdscr);
	return c == 27 || c == 3 ? -1 : c;
}

/* text wrapped into lines of at most inner cells: at a blank when the
 * line has one, else where it fills; *n lines, each malloc'd */
static char **wrap_text(const char *text, int inner, size_t *np)
{
	char **lines = NULL;
	size_t n = 0;

	for (const char *p = text; *p;) {
		size_t k = text_fit(p, inner, NULL);
		const char *nl = strchr(p, '\n');
		if (nl != NULL && (size_t)(nl - p) <= k) { /* a line of the text ends first */
			lines = xreallocarray(lines, n + 1, sizeof *lines);
			lines[n++] = xstrndup(p, (size_t)(nl - p));
			p = nl + 1;
			continue;
		}
		if (k == 0)
			k = 1; /* a cell too wide for the box: on a line of its own */
		if (p[k] != '\0') {
			size_t b = k;
			while (b > 0 && p[b] != ' ')
				b--;
			if (b > 0)
				k = b + 1;
		}
		lines = xreallocarray(lines, n + 1, sizeof *lines);
		lines[n++] = xstrndup(p, k);
		p += k;
	}
	*np = n;
	return lines;
}

static void free_lines(char **lines, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
}

/* A box's window where the screen has room for one (min_h rows, 12
 * columns at least), NULL where it has not; keypad on. */
static WINDOW *box_window(int hgt, int w, int y, int x, int min_h)
{
	if (hgt < min_h || w < 12)
		return NULL;
	WINDOW *win = newwin(hgt, w, y, x);
	if (win != NULL)
		keypad(win, TRUE);
	return win;
}

static void browser_under(struct tui *t, void *arg)
{
	(void)arg;
	tui_draw(t);
}

int text_box(struct tui *t, const char *title, const char *text, const char *keys)
{
	return text_box_over(t, title, text, keys, browser_under, NULL);
}

int text_box_over(struct tui *t, const char *title, const char *text, const char *keys,
		  void (*under)(struct tui *t, void *arg), void *arg)
{
	char **lines = NULL;
	size_t n = 0, top = 0, page = 1;
	WINDOW *win = NULL;
	int c, w = 0, hgt = 0;

	for (;;) { /* all of it, or a page with Up and Down when it is long */
		if (win == NULL) { /* (again) at the screen's size */
			w = COLS - 4 < 120 ? COLS - 4 : 120;
			free_lines(lines, n);
			lines = wrap_text(text, w - 4 > 1 ? w - 4 : 1, &n);
			hgt = (int)n + 4 < t->rows - 2 ? (int)n + 4 : t->rows - 2;
			page = hgt > 4 ? (size_t)hgt - 4 : 1;
			if (top + page > n)
				top = n > page ? n - page : 0;
			if ((win = box_window(hgt, w, (t->rows - hgt) / 2, 2, 4)) == NULL) {
				c = 27; /* no room for it: closed */
				break;
			}
		}
		werase(win);
		box(win, 0, 0);
		wmove(win, 0, 2);
		waddnstr(win, title, w - 4);
		for (size_t y = 0; y < page && top + y < n; y++) {
			wmove(win, (int)y + 2, 2);
			waddstr(win, lines[top + y]);
		}
		wattrset(win, attr_of(C_HINT));
		wmove(win, hgt - 1, 2);
		if (n > page) {
			char more[64];
			snprintf(more, sizeof more, "lines %zu-%zu of %zu (Up/Down)  ", top + 1,
				 top + page < n ? top + page : n, n);
			waddnstr(win, more, w - 4);
		}
		waddnstr(win, keys, w - 4 - getcurx(win) + 2);
		wattrset(win, A_NORMAL);
		wrefresh(win);
		c = read_key(win);
		if (c == KEY_RESIZE) { /* the screen under it, then the box anew */
			delwin(win);
			win = NULL;
			under(t, arg);
			continue;
		}
		enum request r = key_request(c);
		if (n > page && r == REQ_DOWN && top + page < n)
			top++;
		else if (n > page && r == REQ_UP && top > 0)
			top--;
		else if (!(n > page && (r == REQ_UP || r == REQ_DOWN)))
			break;
	}
	if (win != NULL)
		delwin(win);
	touchwin(stdscr);
	wnoutrefresh(stdscr);
	free_lines(lines, n);
	return c;
}

int popup(struct tui *t, const char *title, char **items, size_t n, size_t sel)
{
	WINDOW *win = NULL;
	size_t top = 0;
	int res = -1, w = 0, hgt = 0;

	for (;;) {
		if (win == NULL) { /* (again) at the screen's size */
			w = COLS - 8 < 100 ? COLS - 8 : 100;
			hgt = (int)n + 2 > t->rows - 4 ? t->rows - 4 : (int)n + 2;
			if ((win = box_window(hgt, w, 2, 4, 3)) == NULL)
				break; /* no room for it: closed */
		}
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
		if (c == KEY_RESIZE) { /* the screen under it, then the menu anew */
			delwin(win);
			win = NULL;
			tui_draw(t);
			continue;
		}
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
	if (win != NULL)
		delwin(win);
	/* the screen under it queued for the next update: a popup opened
	 * from this one's choice (Use, then Generation) is drawn over the
	 * screen, not over what is left of this one */
	touchwin(stdscr);
	wnoutrefresh(stdscr);
	return res;
}

void help_text(struct sbuf *sb)
{
	sbuf_adds(sb, "heapwalk keys (Esc or q closes; Up/Down scroll)\n\n");
	keys_help(sb);
	/* the views by their tabs' names (a test holds it to the table) */
	sbuf_adds(sb, "\nViews (Tab): Classes; Biggest (the dominator tree); Outgoing and Incoming\n"
		      "references; Merged out, Merged in and Dominating (references merged by class\n"
		      "or field); Leaks (the clusters of what an action leaked, with -b BASE\n"
		      "--target TARGET); Allocations (hot spots and call tree, for snapshots with\n"
		      "allocation traces); Time (the objects by when they were allocated, where the\n"
		      "dump tells); Inspections (Enter runs one on the step's set; Enter on a group\n"
		      "of its result uses it). Every Enter on objects makes a new step; the\n"
		      "breadcrumb at the bottom lists them. C opens the rules screen. See\n"
		      "heapwalk(1).\n");
}

/* Where a help line's text starts after its keys ("  +, =      Expand"):
 * its continuation lines are led so far. 0 for a line of prose. */
static int hanging(const char *line)
{
	const char *gap;

	if (strncmp(line, "  ", 2) != 0 || line[2] == ' ' || (gap = strstr(line + 2, "  ")) == NULL)
		return 0;
	while (*gap == ' ')
		gap++;
	return (int)(gap - line);
}

/* The help text in lines of the screen's width, each wrapped under its
 * own start: nothing is cut at 80 columns. */
static size_t help_lines(const char *text, int width, char ***out)
{
	char *copy = xstrdup(text);
	size_t n = 0;

	*out = NULL;
	for (char *p = copy, *q; p != NULL && *p; p = q ? q + 1 : NULL) {
		char **l;
		q = strchr(p, '\n');
		if (q != NULL)
			*q = '\0';
		size_t k = text_wrap(p, width, hanging(p), &l);
		*out = xreallocarray(*out, n + k, sizeof **out);
		memcpy(*out + n, l, k * sizeof *l);
		n += k;
		free(l);
	}
	free(copy);
	return n;
}

void help(struct tui *t)
{
	struct sbuf sb;
	sbuf_init(&sb);
	help_text(&sb);
	char **lines = NULL;
	size_t n = help_lines(sb.buf, COLS, &lines);
	size_t top = 0;
	for (;;) {
		erase();
		for (int y = 0; y < t->rows && top + (size_t)y < n; y++) {
			move(y, 0);
			draw_text(lines[top + (size_t)y], COLS, 0);
		}
		refresh();
		int c = read_key(stdscr);
		enum request r = key_request(c);
		if (c == KEY_RESIZE) {
			getmaxyx(stdscr, t->rows, t->cols);
			text_wrap_free(lines, n);
			n = help_lines(sb.buf, COLS, &lines);
			top = top < n ? top : 0;
		} else if (r == REQ_DOWN || r == REQ_PAGE_DOWN) {
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
	text_wrap_free(lines, n);
	sbuf_free(&sb);
}
