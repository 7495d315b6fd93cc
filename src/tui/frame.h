/* frame.h — the browser frame's internals, shared by its files and by
 * no view, bottom up: keys and rows (tui.c), drawing and progress
 * (draw.c), prompts and popups (prompt.c), steps and their history
 * (steps.c), the rules screen (rules_screen.c), the rows' tree
 * (tree.c), and the key loop (browser.c). Views see the frame through
 * tui.h only. */
#ifndef HW_FRAME_H
#define HW_FRAME_H

#define _XOPEN_SOURCE_EXTENDED 1
#include <curses.h>
#include <signal.h>

#include "query/step.h"
#include "tui/tui.h"

static inline struct hstep *cur_step(struct tui *t) { return t->steps[t->cur]; }
static inline struct tview *cur_view(struct tui *t) { return &cur_step(t)->views[cur_step(t)->view]; }

/* ---- tui.c ---- */
/* A signal that ends the program came (SIGTERM, SIGHUP, SIGINT, SIGQUIT
 * ...): the browser restores the terminal and leaves (set by the
 * handler). */
extern volatile sig_atomic_t tui_signal;
/* SIGTSTP came: suspend when next waiting for a key (set by the handler). */
extern volatile sig_atomic_t tui_stop;
/* Suspend (the terminal restored, the process group stopped); on fg,
 * the terminal set up and repainted as it was. Outside signal handlers. */
void tui_suspend(void);
/* The next key; Esc (27) for every read once a signal has come, so that
 * prompts and popups unwind. ^Z and SIGTSTP suspend and read on. */
int read_key(WINDOW *w);
void row_free(const struct tview *v, struct row *r);
void rows_clear(struct tview *v);

/* The view a build or an expansion is making, for a failure to drop
 * (browser.c's recovery). */
extern struct tview *volatile tui_building;

/* ---- draw.c ---- */
enum { C_TITLE = 1, C_STEP, C_TAB, C_TABSEL, C_HEAD, C_CURSOR, C_MARK, C_CRUMB, C_HINT,
       C_ERROR, C_BAR, C_DIM, C_COUNT };
attr_t attr_of(int c);
void colors_init(void);
/* Draw s at the cursor in at most `width` cells, padded with blanks when
 * pad; bytes the locale cannot decode become '?'. Returns cells used. */
int draw_text(const char *s, int width, int pad);
void draw_line(int y, int color, const char *s);
/* The rows the view pane has (at the last draw: a baseline's line or a
 * view's long header take some). */
int pane_rows(const struct tui *t);
/* s in lines of at most `width` cells, broken at blanks where there are
 * (a longer word is cut), the lines after the first led by `indent`
 * blanks; a '\n' ends a line. Returns how many; *lines and each line
 * are the caller's to free. */
size_t text_wrap(const char *s, int width, int indent, char ***lines);
void text_wrap_free(char **lines, size_t n);
/* A label in avail cells: its class name (at off, len) said shorter when
 * it does not fit (query/tname.h), what follows it kept first, then cut;
 * the name's outer simple name kept. Appends to out. */
void label_fit(const char *left, size_t off, size_t len, int avail, struct sbuf *out);
/* Row r of view v whole, for a box (v): its label (escaped when it was
 * made, or the view's row_label), an object's string value past what
 * the label shows (64 kB at most), the text in place of its columns, or
 * each column's title and value on a line of its own (a column without
 * a title: its value), those a narrow screen drops too. */
void row_whole(const struct tview *v, const struct row *r, struct sbuf *out);
/* Progress on the bottom line, Esc or ^C cancels (struct progress' tick). */
void tui_tick(struct progress *p, uint64_t done);
/* "rules: jdk" or "rules: jdk, gradle (2 of 9 groups off)". */
void rules_state(const struct tui *t, struct sbuf *out);

/* ---- steps.c ---- */
struct hstep *step_new(struct heap *h, struct objset set, const char *title, const char *expr);
void step_free(struct hstep *s);
/* Make step k the current one; the views work on its dump. */
void step_go(struct tui *t, size_t k);
/* Build the view if it never was; -1 if cancelled (it stays unbuilt). */
int view_ensure(struct tui *t, struct tview *v);
void use_step(struct tui *t, enum step_op op, const char *title);
/* The same with the step's argument (a generation's name). */
void use_step_arg(struct tui *t, enum step_op op, const char *arg, const char *title);
void use_rows(struct tui *t, int reached);
void use_gone(struct tui *t);
void use_menu(struct tui *t);
void step_list(struct tui *t);
/* Every view of every step is built again when next shown; with
 * `analyses`, the steps' retained sizes are unknown again too. */
void views_reset(struct tui *t, int analyses);
void baseline_drop(struct tui *t);
void baseline_prompt(struct tui *t);
void exact_retained(struct tui *t);
void show_expr(struct tui *t);
/* export.c: W, the step written as an HTML report or a dot graph. */
void export_step(struct tui *t);

/* ---- between.c ---- */
/* The current set's deep size (everything it reaches), with progress. */
void deep_size(struct tui *t);
/* The path between the two marked objects (or the marked one and the
 * cursor's): asked which way, shown, and made a step. */
void path_between(struct tui *t);

/* ---- prompt.c ---- */
/* The last character typed goes (all its UTF-8 bytes). */
void input_backspace(struct sbuf *in);
/* Text wrapped in a box, a line of keys under it; the key pressed. */
int text_box(struct tui *t, const char *title, const char *text, const char *keys);
/* The same over a screen of the caller's own, which under(t, arg) draws
 * again when the terminal's size changes (text_box's: the browser). */
int text_box_over(struct tui *t, const char *title, const char *text, const char *keys,
		  void (*under)(struct tui *t, void *arg), void *arg);
/* A list in a box; returns the chosen index or -1. */
int popup(struct tui *t, const char *title, char **items, size_t n, size_t sel);
void help(struct tui *t);
/* What help shows: the keys, then the views. */
void help_text(struct sbuf *sb);

/* ---- cmdline.c ---- */
/* ':' — a pipeline of steps and a view word, as -e takes them. */
void command_prompt(struct tui *t);
/* The same for a line not typed (--root, --ignore); 0, or -1 with err. */
int command_run(struct tui *t, const char *line, struct sbuf *err);
/* The analyses' focus by key: A the cursor's object as the analysis
 * root, X leave out the cursor row's reference, ^X list them (undo). */
void use_root(struct tui *t);
void use_ignore(struct tui *t);
void focus_list(struct tui *t);
/* The expression that makes a step of expr under h's analyses as they
 * are (its root, the references left out), for the command line, which
 * starts from none: expr itself where its own steps make them, else
 * "root ID | ignore ID LABEL | ... | all | expr" (a new string). *exact:
 * 0 where expr's own focus steps change them again after that (the
 * analyses were changed after the step was made), and the command
 * cannot show this screen's analyses with this step's objects. */
char *focus_expr(const struct heap *h, const char *expr, int *exact);
/* How src refers to dst in a step ("ignore ID LABEL"): its label, or
 * dst's id where the label would not read back */
void focus_ref_text(const struct heap *h, node_t src, node_t dst, struct sbuf *out);

/* ---- rules_screen.c ---- */
void rules_screen(struct tui *t);

/* ---- tree.c ---- */
/* Open row i (quiet: no "nothing below" message); -1 if cancelled. */
int expand_row(struct tui *t, struct tview *v, size_t i, int quiet);
/* Close row i, or go to its parent. */
void collapse_row(struct tview *v, size_t i);
/* The next match of the search (dir 1) or the one before (-1). */
void search(struct tui *t, int dir);
/* The filter as typed so far (a prompt's live callback; arg: the view). */
void live_filter(struct tui *t, const char *text, void *arg);
/* A regex typed by the user, or NULL with the message set. */
pcre2_code *compile_regex(struct tui *t, const char *src);

#endif
