/* keys.c — the default bindings and the help text made from them. */
#include "tui/keys.h"

#include <curses.h>
#include <string.h>

#include "util.h"

#define CTRL(c) ((c) & 0x1f)

/* One table: the help screen and the man page list the keys in this
 * order, a request's keys joined by ", ". A NULL name binds silently
 * (the '2'..'9' that "1-9" stands for). */
const struct binding bindings[] = {
	{ KEY_UP, REQ_UP, "Up" }, { 'k', REQ_UP, "k" },
	{ KEY_DOWN, REQ_DOWN, "Down" }, { 'j', REQ_DOWN, "j" },
	{ KEY_PPAGE, REQ_PAGE_UP, "PgUp" }, { CTRL('b'), REQ_PAGE_UP, "^B" },
	{ KEY_NPAGE, REQ_PAGE_DOWN, "PgDn" }, { CTRL('f'), REQ_PAGE_DOWN, "^F" },
	/* rows: g and G as in vi and less, Home and End alike; the first
	 * step is 0 (as 1, the breadcrumb's first) */
	{ KEY_HOME, REQ_TOP, "Home" }, { 'g', REQ_TOP, "g" }, { 'T', REQ_TOP, "T" },
	{ KEY_END, REQ_BOTTOM, "End" }, { 'G', REQ_BOTTOM, "G" },
	{ '+', REQ_EXPAND, "+" }, { '=', REQ_EXPAND, "=" },
	{ '-', REQ_COLLAPSE, "-" },
	{ '\t', REQ_NEXT_VIEW, "Tab" },
	{ KEY_BTAB, REQ_PREV_VIEW, "Shift-Tab" },
	{ '\n', REQ_USE, "Enter" }, { '\r', REQ_USE, NULL }, { KEY_ENTER, REQ_USE, NULL },
	{ ' ', REQ_MARK, "Space" },
	{ 'u', REQ_USE_MENU, "u" },
	{ 'R', REQ_USE_RETAINED, "R" },
	{ 'I', REQ_USE_REFERRERS, "I" },
	{ 'O', REQ_USE_REFERENTS, "O" },
	{ 'D', REQ_USE_DOMINATED, "D" },
	{ 'U', REQ_USE_REACHED, "U" },
	{ KEY_LEFT, REQ_BACK, "Left" }, { 'h', REQ_BACK, "h" },
	{ KEY_BACKSPACE, REQ_BACK, "Backspace" }, { 127, REQ_BACK, NULL }, { CTRL('h'), REQ_BACK, NULL },
	{ KEY_RIGHT, REQ_FORWARD, "Right" }, { 'l', REQ_FORWARD, "l" },
	{ '0', REQ_FIRST_STEP, "0" },
	{ 'b', REQ_STEP_LIST, "b" },
	{ '1', REQ_JUMP, "1-9" }, { '2', REQ_JUMP, NULL }, { '3', REQ_JUMP, NULL },
	{ '4', REQ_JUMP, NULL }, { '5', REQ_JUMP, NULL }, { '6', REQ_JUMP, NULL },
	{ '7', REQ_JUMP, NULL }, { '8', REQ_JUMP, NULL }, { '9', REQ_JUMP, NULL },
	{ 'x', REQ_EXPR, "x" },
	{ 'v', REQ_ROW, "v" },
	{ ':', REQ_COMMAND, ":" },
	{ 'A', REQ_ROOT, "A" },
	{ 'X', REQ_IGNORE, "X" },
	{ CTRL('x'), REQ_FOCUS, "^X" },
	{ 'e', REQ_RETAINED, "e" },
	{ 'a', REQ_DEEP, "a" },
	{ 'P', REQ_BETWEEN, "P" },
	{ 'E', REQ_EXACT, "E" },
	{ 'p', REQ_PACKAGES, "p" },
	{ 'L', REQ_LOADERS, "L" },
	{ 'K', REQ_LOADER_ONLY, "K" },
	{ 'Z', REQ_UNREACHABLE, "Z" },
	{ 'c', REQ_GROUP, "c" },
	{ 'z', REQ_NULLS, "z" },
	{ 'w', REQ_WEAK, "w" },
	{ 'r', REQ_PATHS, "r" },
	{ 'y', REQ_LIFELINES, "y" },
	{ 't', REQ_REVERSE, "t" },
	{ 'C', REQ_RULES, "C" },
	{ '/', REQ_SEARCH, "/" },
	{ 'n', REQ_SEARCH_NEXT, "n" },
	{ 'N', REQ_SEARCH_PREV, "N" },
	{ '>', REQ_USE_NEW, ">" },
	{ '<', REQ_USE_OLD, "<" },
	{ '~', REQ_USE_GONE, "~" },
	{ 'B', REQ_BASELINE, "B" },
	{ 'H', REQ_HEAPSHOT, "H" },
	{ 'd', REQ_DELTA, "d" },
	{ 'f', REQ_FILTER, "f" },
	{ 's', REQ_SORT, "s" },
	{ 'W', REQ_EXPORT, "W" },
	{ '?', REQ_HELP, "?" }, { KEY_F(1), REQ_HELP, "F1" },
	{ CTRL('l'), REQ_REDRAW, "^L" },
	{ CTRL('z'), REQ_SUSPEND, "^Z" }, /* read_key takes it, wherever a key is read */
	{ 'q', REQ_QUIT, "q" }, { CTRL('c'), REQ_QUIT, "^C" },
};
const size_t nbindings = sizeof bindings / sizeof bindings[0];

#define REQ_INFO(id, sec, help) { sec, help },
static const struct { const char *section, *help; } req_info[] = {
	{ "", "" }, REQ_LIST(REQ_INFO)
};
#undef REQ_INFO

enum request key_request(int key)
{
	for (size_t i = 0; i < nbindings; i++)
		if (bindings[i].key == key)
			return bindings[i].req;
	return REQ_NONE;
}

static void key_names(enum request r, struct sbuf *out)
{
	int first = 1;

	for (size_t i = 0; i < nbindings; i++) {
		if (bindings[i].req != r || bindings[i].name == NULL)
			continue;
		if (!first)
			sbuf_adds(out, ", ");
		sbuf_adds(out, bindings[i].name);
		first = 0;
	}
}

void keys_help(struct sbuf *out)
{
	const char *section = "";

	for (int r = 1; r < REQ_COUNT; r++) {
		if (strcmp(section, req_info[r].section) != 0) {
			section = req_info[r].section;
			sbuf_printf(out, "%s%s\n", r > 1 ? "\n" : "", section);
		}
		struct sbuf k;
		sbuf_init(&k);
		key_names((enum request)r, &k);
		sbuf_printf(out, "  %-22s %s\n", k.buf, req_info[r].help);
		sbuf_free(&k);
	}
}

/* mdoc: a tagged list per section. Each key name gets a \& so that
 * "?", "-" or "." are not read as punctuation or requests. */
void keys_mdoc(struct sbuf *out)
{
	const char *section = "";

	for (int r = 1; r < REQ_COUNT; r++) {
		if (strcmp(section, req_info[r].section) != 0) {
			if (*section)
				sbuf_adds(out, ".El\n");
			section = req_info[r].section;
			sbuf_printf(out, ".Ss %s\n.Bl -tag -width Ds -compact\n", section);
		}
		sbuf_adds(out, ".It");
		int first = 1;
		for (size_t i = 0; i < nbindings; i++) {
			if (bindings[i].req != (enum request)r || bindings[i].name == NULL)
				continue;
			sbuf_printf(out, "%s Li \\&%s", first ? "" : " ,", bindings[i].name);
			first = 0;
		}
		sbuf_printf(out, "\n%s.\n", req_info[r].help);
	}
	sbuf_adds(out, ".El\n");
}
