/* tui.h — the full-screen heap walker: selection steps, each with its
 * views. A view is a table of callbacks (struct view_ops, one file per
 * view: view_*.c) over one row list widget that the frame owns (rows
 * with depth, expansion and marks). This header is what views may call
 * of the frame; the frame's own internals are in frame.h. */
#ifndef HW_TUI_H
#define HW_TUI_H

#ifndef PCRE2_CODE_UNIT_WIDTH
#define PCRE2_CODE_UNIT_WIDTH 8
#endif
#include <pcre2.h>

#include "graph/heap.h"
#include "engine/open.h"
#include "progress.h"
#include "query/objset.h"
#include "tui/keys.h"

struct tui;
struct tview;

/* The number columns after a row's label: a view declares them (struct
 * column, in tview.cols), rows carry the numbers (row.val), and the frame
 * formats them when it draws, as compact as the terminal's width needs;
 * narrow screens drop the columns with the highest `drop` first. */
#define ROW_VALS 9
#define VIEW_COLS 8
enum col_type {
	COL_COUNT,   /* a number of objects */
	COL_BYTES,   /* bytes, human ("1.23 MB") */
	COL_PCT,     /* val of den, in percent */
	COL_RET,     /* retained bytes: "=" exact (RF_EXACT), ">=" a lower bound */
	COL_SCOUNT,  /* a count with its sign ('+' new, '-' gone; none: the
		      * count is an int64_t, a difference) */
	COL_SBYTES,  /* bytes with their sign */
	COL_BAR,     /* a bar of val of den, ncdu's */
	COL_ENUM,    /* names[val] */
	COL_GENS,    /* a bit per GC generation (heap_gen_name()): "..2L.." */
	COL_FIGURE,  /* bytes, or a count when the row has RF_COUNT */
};
struct column {
	const char *title;  /* right-aligned over the column */
	uint8_t type;       /* enum col_type */
	uint8_t val;        /* the row's number: row.val[val] */
	int8_t den;         /* COL_PCT, COL_BAR: the whole is row.val[den], or with -1 tview.whole[val] */
	uint8_t drop;       /* 0: always shown; else dropped, highest first, when the label gets narrow */
	char sign;          /* COL_SCOUNT, COL_SBYTES */
	const char *const *names; /* COL_ENUM */
};

#define RF_EXACT  0x01  /* COL_RET: exact, not a lower bound */
#define RF_COUNT  0x02  /* COL_FIGURE: a count, not bytes */
#define RF_NOCOLS 0x04  /* no numbers: the columns are blank */
#define RF_UNTOLD 0x08  /* COL_SCOUNT, COL_SBYTES of a sign (new, gone): some objects
			 * not told apart, "?" after those told ("+940?") */

/* One line of a view. Texts are escaped (safe for the terminal) and
 * owned by the row. */
struct row {
	node_t node;        /* the object, HW_NONE if the row is none */
	uint32_t cls;       /* the class, HW_NONE if none */
	uint32_t depth;     /* a path to a GC root can be a million steps long */
	int8_t open;        /* -1 leaf, 0 closed, 1 open */
	uint8_t marked;
	uint8_t kind;       /* the view's own row kinds (view.h) */
	uint8_t flags;      /* RF_* */
	uint8_t more;       /* expanding it loads more rows of its level (a page) */
	uint16_t unknown;   /* bit k: val[k] is not known ("?", or "-" for a signed column) */
	/* the class name inside left, abbreviated first ("c.s.t.javac.util.List")
	 * when the label does not fit; name_len 0: none */
	uint16_t name_off, name_len;
	uint64_t key;       /* who the row is among its siblings, found again after a
	                     * rebuild (0: from kind, node, class and label) */
	uint64_t num[4];    /* the view's own numbers */
	uint64_t val[ROW_VALS]; /* the columns' numbers */
	char *left;         /* the label, indented by depth when drawn */
	char *right;        /* NULL, or text in place of the columns */
	void *data;         /* the view's (freed by ops->row_free) */
};

struct rowvec {
	struct row *v;
	size_t n, cap;
};

enum view_id { V_CLASSES, V_BIGGEST, V_OUTGOING, V_INCOMING, V_MERGED_OUT, V_MERGED_IN,
	       V_MERGED_DOM, V_LEAKS, V_ALLOC, V_TIME, V_INSPECT, V_COUNT };

/* A new step's content: the set, its title and the expression step(s)
 * that make it from the current one ("" when none can). */
struct use {
	struct objset set;
	char *title;
	char *expr;
	struct heap *h;     /* the heap set is over; NULL: the current step's */
	int bl_dep;         /* made by new, old or gone: the baseline's */
};

/* A request the view handles itself: 1 handled (rebuilt if needed), 0
 * the frame's default applies. */
struct view_key {
	enum request req;
	int (*fn)(struct tui *t, struct tview *v, enum request r);
};

enum {
	VO_FILTER = 1, /* f filters the rows (the others: / searches them) */
	VO_REACHED = 2, /* U uses the set's objects reached through a row */
};

struct view_ops {
	const char *name;       /* the tab */
	unsigned flags;         /* VO_* */
	const char *short_name; /* the tab when the names do not fit in 80 columns; NULL: name */
	/* the view's options, kept with the step: state_size bytes the frame
	 * allocates zeroed (then state_init) and frees with the step */
	size_t state_size;
	void (*state_init)(void *state);
	/* (re)build the top-level rows from the step's set; -1 cancelled */
	int (*build)(struct tui *t, struct tview *v);
	/* child rows of row i (append to out); -1 cancelled */
	int (*expand)(struct tui *t, struct tview *v, size_t i, struct rowvec *out);
	/* the objects of rows (marked ones, or the cursor row); 0, -1 if the
	 * rows stand for nothing that can be used (msg set) */
	int (*use)(struct tui *t, struct tview *v, int reached, struct use *u);
	const struct view_key *keys; /* ended by { REQ_NONE }; NULL: none */
	void (*row_free)(struct row *r);
	/* frees v->data, what build computed from the heap's analyses (it
	 * goes when the baseline or the rules change); NULL: free() */
	void (*data_free)(void *data);
	/* NULL, or set the headers for the cursor's row (called before drawing) */
	void (*head)(struct tview *v);
	/* NULL, or copy the options a new step takes over from the step
	 * before (default: all of them) */
	void (*state_carry)(void *to, const void *from);
	/* NULL, or row r's label whole, escaped, appended to out, where the
	 * row keeps it cut (an inspection group's text): what v shows */
	void (*row_label)(const struct tview *v, const struct row *r, struct sbuf *out);
};

struct tview {
	const struct view_ops *ops;
	struct hstep *st;
	struct rowvec rows;
	size_t cur, top;
	struct column cols[VIEW_COLS]; /* the number columns, set by build */
	int ncols;
	uint64_t whole[ROW_VALS]; /* the wholes of percentages with den -1 */
	char lefthead[96];  /* the label column's header */
	char *filter;       /* PCRE2 source, NULL: none */
	pcre2_code *filter_re;
	void *state;        /* the view's options (ops->state_size), kept with the step */
	void *data;         /* what build computed: the view's own, freed by ops->data_free */
	size_t nmarked;     /* rows marked (kept by the frame) */
	int built;
	int dropped;        /* a failure while making it: not made again but on ^L */
	int cur_kept;       /* tview_rebuild found the cursor's row again, or a parent of it */
};

struct hstep {
	struct heap *h;     /* the dump the set is over: the open one, or the baseline's (gone) */
	int bl_dep;         /* it or a step before it used new, old or gone: goes with the baseline */
	struct objset set;
	char *title;
	char *expr;         /* steps from "all", NULL if not expressible */
	uint64_t retained;  /* exact, once asked for */
	int retained_known;
	uint64_t deep, deep_count; /* the deep size (bytes, objects), once asked for */
	int deep_known;
	enum view_id view;
	struct tview views[V_COUNT];
	/* narrowed by a filter of its own (a class loader, K): the set, title
	 * and expression before it */
	int filtered;
	struct objset unfiltered;
	char *utitle, *uexpr;
};

struct tui {
	struct heap *h;       /* the current step's dump (main, or old on the baseline's side) */
	struct heap *main;    /* the dump opened */
	struct heap *old;     /* the baseline dump, or NULL */
	struct baseline *bl;  /* owned; main->baseline points at it, or both NULL */
	const char *dump;
	char *baseline;       /* the baseline dump's path, or NULL */
	const char *target;   /* --target: the dump after the action (the Leaks view), or NULL */
	struct open_opts oo;
	struct hstep **steps;
	size_t nsteps, cur;
	struct progress prog;
	char *msg;          /* status line message, owned */
	int msg_error;
	pcre2_code *search_re;
	char *search;
	int rows, cols;
	int pane;             /* rows of the view pane at the last draw, 0 before */
	int quit;
	unsigned reopen;      /* quit, then open heapshot reopen of the dump */
	int color;
	FILE *keylog;       /* HEAPWALK_KEYLOG: key, milliseconds to redraw */
	char **hist;        /* the ':' prompt's lines, oldest first (cmdline.c) */
	size_t nhist;
	int hist_loaded;
};

/* The views, in tab order (view_common.c). */
extern const struct view_ops *const view_table[V_COUNT];

/* ---- the frame, for the views ---- */
void tui_message(struct tui *t, int error, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
struct row *rowvec_add(struct rowvec *rv);
/* The row's label (escaped) and, instead of its columns, a text (or NULL).
 * Either may be the row's own: they are copied first. */
void row_set(struct row *r, const char *left, const char *right);
/* The same, with the class name at [off, off + len) of left. */
void row_set_named(struct row *r, const char *left, size_t off, size_t len);
/* Free rows a view keeps aside (in its data), with its ops->row_free. */
void rowvec_free(struct rowvec *rv, void (*free_row)(struct row *r));
/* The view's number columns, from a template of n (n <= VIEW_COLS). */
void tview_columns(struct tview *v, const struct column *cols, int n);
/* Whether the view's filter (a regex) finds the row's text as shown, or
 * raw (NULL: none), the dump's name it shows escaped: "\x1b" finds an
 * escape character as --filter does, "x1b" what the screen shows */
int tui_filter_ok(const struct tview *v, const char *text, const char *raw);
/* Text for the screen with its control characters escaped (C0, DEL,
 * C1) and nothing else: what the user typed (a regex, an argument) shows
 * as typed. A dump's strings go through esc_append, which also escapes
 * backslashes and quotes, so that what is shown reads back exactly. */
void tui_typed(struct sbuf *sb, const char *s);
/* A prompt on the status line; NULL when cancelled. Caller frees. */
char *tui_prompt(struct tui *t, const char *label, void (*live)(struct tui *, const char *, void *),
		 void *arg);
/* One key asked for on the status line; -1 for Esc. */
int tui_ask(struct tui *t, const char *label);
/* Make u the next step (the forward history goes) and go there. */
void tui_push(struct tui *t, struct use *u);
/* Narrow the current step to *set (taken), a filter every view of it
 * shows and the steps made from it keep: its expression gets " | expr",
 * its title " (what)"; a filter before goes first. set NULL: the step as
 * it was. */
void tui_step_filter(struct tui *t, struct objset *set, const char *expr, const char *what);
/* The same without building its view (more steps follow). */
void tui_push_quiet(struct tui *t, struct use *u);
/* Build v's rows again after a change of its options: open rows open
 * again, marks kept, the cursor on its row (or the nearest of its
 * parents left) at the same height on the screen. -1 if cancelled. */
int tview_rebuild(struct tui *t, struct tview *v);
/* The same after a change of order (a sort): the cursor on its row, but
 * the pane from the first row when that shows the cursor too (a row
 * sorted towards the top does not hide the rows now above it). */
int tview_resort(struct tui *t, struct tview *v);
/* Long work: progress on the bottom line, keys polled, Esc cancels.
 * tui_work_end returns -1 (and says "cancelled") if it was. */
void tui_work_begin(struct tui *t, const char *what);
int tui_work_end(struct tui *t);
/* Redraw everything now (used by live filters). */
void tui_draw(struct tui *t);

/* The object whose paths to GC roots the Incoming view v shows, or
 * HW_NONE (another view, or its list of objects). */
node_t incoming_paths_target(const struct tview *v);
/* The Incoming view v on the paths to GC roots of x (as r makes them), or
 * on its lifelines (as y does). */
void incoming_show(struct tui *t, struct tview *v, node_t x, int lifelines);

/* Entry point from main(): open the dump (with the baseline; target, for
 * the Leaks view, when given) and browse it, first making
 * the steps of `start` (NULL: none) as the ':' prompt does; note (NULL:
 * none) on the message line at first. Exit status. */
int tui_main(const char *dump, const char *baseline, const char *target, const struct open_opts *oo, const char *start,
	     const char *note);
/* Can the browser start here (a terminal, and a description of it)? 0,
 * or -1 with one line in err: asked before a process pays for a
 * snapshot to show. */
int tui_can_start(struct sbuf *err);

#endif
