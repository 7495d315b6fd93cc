/* tui.c — the frame's ground floor, used by its other files and (through
 * tui.h) by the views: reading keys, rows and their texts, messages. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tui/frame.h"

/* The view being made when a key's work fails (tree.c and steps.c set
 * it around a build or an expansion, browser.c's recovery reads it);
 * NULL: another action. Here, below all three. */
struct tview *volatile tui_building;

/* ---- keys ---- */
volatile sig_atomic_t tui_signal, tui_stop;

/* Stop as the terminal's own ^Z would stop us, which raw mode turned
 * off: the terminal as the shell had it, the process group stopped. On
 * fg: the browser's modes, keypad and screen again, all repainted. */
void tui_suspend(void)
{
	struct sigaction dfl, old;
	sigset_t tstp, was;

	tui_stop = 0;
	endwin();
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	sigaction(SIGTSTP, &dfl, &old);
	sigemptyset(&tstp);
	sigaddset(&tstp, SIGTSTP);
	sigprocmask(SIG_UNBLOCK, &tstp, &was);
	/* the group, as ^Z: a script that runs us stops with us and the
	 * shell sees the job stopped (an orphaned group ignores it) */
	kill(0, SIGTSTP);
	sigprocmask(SIG_SETMASK, &was, NULL);
	sigaction(SIGTSTP, &old, NULL);
	raw();
	noecho();
	nonl();
	clearok(curscr, TRUE);
	doupdate(); /* back from endwin: program mode, the alternate screen, every cell */
	keypad(stdscr, TRUE); /* endwin left keypad mode: arrows would come unkeyed */
}

/* Blocking, getch fails only on a signal or when the terminal is gone:
 * then it is as if SIGHUP came. ^Z and SIGTSTP suspend here, wherever
 * a key is awaited, and the key read goes on after fg. The read wakes
 * every second, so that a signal that came between the look at the
 * flags and the read is seen then, not at the next key; a read that
 * fails at once (not on a signal, not on the timeout) is a lost
 * terminal. The caller's delay mode is given back. */
int read_key(WINDOW *w)
{
	int delay = wgetdelay(w), c;

	wtimeout(w, 1000);
	for (int lost = 0;;) {
		if (tui_signal) {
			c = 27;
			break;
		}
		if (tui_stop)
			tui_suspend();
		errno = 0;
		double t0 = hw_now();
		c = wgetch(w);
		if (c == 26) { /* ^Z */
			tui_suspend();
			continue;
		}
		if (c != ERR)
			break;
		if (errno == EINTR || hw_now() - t0 > 0.5)
			lost = 0;
		else if (++lost > 10)
			tui_signal = SIGHUP;
	}
	wtimeout(w, delay);
	return c;
}

/* ---- rows ---- */
struct row *rowvec_add(struct rowvec *rv)
{
	if (rv->n == rv->cap) {
		rv->cap = rv->cap ? rv->cap * 2 : 64;
		rv->v = xreallocarray(rv->v, rv->cap, sizeof *rv->v);
	}
	struct row *r = &rv->v[rv->n++];
	memset(r, 0, sizeof *r);
	r->node = HW_NONE;
	r->cls = HW_NONE;
	r->open = -1;
	return r;
}

/* Either text may be the row's own: copy before freeing. */
void row_set(struct row *r, const char *left, const char *right)
{
	char *l = xstrdup(left ? left : ""), *rt = right ? xstrdup(right) : NULL;

	free(r->left);
	free(r->right);
	r->left = l;
	r->right = rt;
	r->name_off = r->name_len = 0;
}

void row_set_named(struct row *r, const char *left, size_t off, size_t len)
{
	row_set(r, left, NULL);
	if (off + len <= strlen(r->left) && off < UINT16_MAX && len < UINT16_MAX) {
		r->name_off = (uint16_t)off;
		r->name_len = (uint16_t)len;
	}
}

void tview_columns(struct tview *v, const struct column *cols, int n)
{
	v->ncols = n < VIEW_COLS ? n : VIEW_COLS;
	memcpy(v->cols, cols, (size_t)v->ncols * sizeof *cols);
}

void row_free(const struct tview *v, struct row *r)
{
	if (v->ops->row_free != NULL)
		v->ops->row_free(r);
	free(r->left);
	free(r->right);
}

void rowvec_free(struct rowvec *rv, void (*free_row)(struct row *r))
{
	for (size_t i = 0; i < rv->n; i++) {
		if (free_row != NULL)
			free_row(&rv->v[i]);
		free(rv->v[i].left);
		free(rv->v[i].right);
	}
	free(rv->v);
	memset(rv, 0, sizeof *rv);
}

void rows_clear(struct tview *v)
{
	for (size_t i = 0; i < v->rows.n; i++)
		row_free(v, &v->rows.v[i]);
	v->rows.n = 0;
	v->cur = v->top = 0;
	v->nmarked = 0;
}

void tui_typed(struct sbuf *sb, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		/* C0, DEL and C1 (UTF-8 C2 80..9F) would reach the terminal */
		if (*p < 0x20 || *p == 0x7f) {
			sbuf_printf(sb, "\\x%02x", *p++);
		} else if (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) {
			sbuf_printf(sb, "\\u{%04x}", p[1]);
			p += 2;
		} else {
			sbuf_addc(sb, (char)*p++);
		}
	}
}

int tui_filter_ok(const struct tview *v, const char *text, const char *raw)
{
	if (v->filter_re == NULL)
		return 1;
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(v->filter_re, NULL);
	int rc = pcre2_match(v->filter_re, (PCRE2_SPTR)text, PCRE2_ZERO_TERMINATED, 0, 0, md, NULL);
	if (rc < 0 && raw != NULL && strcmp(raw, text) != 0)
		rc = pcre2_match(v->filter_re, (PCRE2_SPTR)raw, PCRE2_ZERO_TERMINATED, 0, 0, md, NULL);
	pcre2_match_data_free(md);
	return rc >= 0;
}

/* ---- messages ---- */
void tui_message(struct tui *t, int error, const char *fmt, ...)
{
	va_list ap;
	struct sbuf sb;

	sbuf_init(&sb);
	va_start(ap, fmt);
	char *raw = NULL;
	if (vasprintf(&raw, fmt, ap) < 0)
		raw = NULL;
	va_end(ap);
	if (raw != NULL) /* messages may quote the dump or the user: no control characters */
		tui_typed(&sb, raw);
	free(raw);
	free(t->msg);
	t->msg = sbuf_detach(&sb);
	t->msg_error = error;
}

