/* termcheck.c — can the browser start here (tui.h's tui_can_start)?
 * Apart from the rest of tui/ because <term.h>'s capability macros
 * (lines, columns, ...) would name the browser's own variables. */
#include <stdlib.h>
#include <unistd.h>

#include <curses.h>
#include <term.h>

#include "tui/tui.h"

int tui_can_start(struct sbuf *err)
{
	int e = 0;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		sbuf_adds(err, "the browser needs a terminal");
		return -1;
	}
	/* what initscr() does first, and exits on: the terminal's description */
	if (setupterm(NULL, STDOUT_FILENO, &e) != OK) {
		const char *term = getenv("TERM");
		char *et = esc_str(term ? term : "");
		sbuf_printf(err, "the browser cannot set up the terminal TERM=%s (%s)", et,
			    e == -1   ? "no terminfo database found"
			    : e == 0 ? "no terminfo description of it, or one too generic to draw on"
				     : "it cannot be used as one");
		free(et);
		return -1;
	}
	del_curterm(cur_term);
	cur_term = NULL;
	return 0;
}
