/* term.h — heapwalk in a real terminal for the tests (term.c): tmux runs
 * it at a fixed size on a socket of its own, keys go in as typed, the
 * screen's text comes back. Strings returned are the caller's to free. */
#ifndef HW_TEST_TERM_H
#define HW_TEST_TERM_H

struct term {
	char sock[64];
	char status[512];   /* heapwalk's exit status is written here */
};

/* A shell command's standard output. */
char *run_out(const char *cmd);
/* The tmux program ($TMUX_BIN, else tmux). */
const char *tmux(void);
void tmuxf(struct term *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* heapwalk ARGS in a cols x rows terminal, with ENV before it; it has
 * 300 s at most. */
void term_start(struct term *t, int cols, int rows, const char *env, const char *args);
void term_stop(struct term *t);
/* An interactive bash, with job control, in a cols x rows terminal
 * (300 s at most), at its prompt "$ ": tests type command lines in. */
void term_shell(struct term *t, int cols, int rows);
/* heapwalk ARGS typed at the shell's prompt, as a user would. */
void shell_heapwalk(struct term *t, const char *args);
/* Send signal sig (a kill(1) name: "TSTP") to the heapwalk whose
 * command line is exactly "$HEAPWALK args". */
void signal_heapwalk(const char *sig, const char *args);
/* The pane's terminal modes from tmux: "A C", A 1 on the alternate
 * screen, C 1 when the cursor is shown. */
char *term_modes(struct term *t);
/* The screen's text (with escapes: its SGR sequences too). */
char *screen(struct term *t, int escapes);
/* tmux send-keys names ("Enter", "Tab", "x"); type: literal text */
void keys(struct term *t, const char *k);
void type(struct term *t, const char *text);
/* A screen squeezed and cut for a failure message. */
const char *shown(const char *s);
int settled(struct term *t, const char *s);
/* Poll until the screen shows needle (and not gone), 30 s at most;
 * fail the test if it never does. The screen. */
char *wait_for(struct term *t, const char *needle);
char *wait_without(struct term *t, const char *needle, const char *gone);
void has(const char *s, const char *needle);
void lacks(const char *s, const char *needle);
/* After q: the process ended, with status 0. */
void wait_exit(struct term *t);
/* The exit status heapwalk left, waiting 10 s at most; -1 if none. */
int exit_status(struct term *t);
int count_lines(const char *s);
/* The line holding needle, the line after it ("" if none). */
char *line_of(const char *s, const char *needle);
char *line_after(const char *s, const char *needle);
char *squeeze(const char *s);
char *box_text(const char *s);

#endif
