/* cmd.h — the commands, one row each (tmux's cmd_entry): what a command
 * takes after it, which parts of the index it needs, the formats it
 * writes, whether it speaks of a baseline, and the function that renders
 * it. The command line (cli/main.c) checks its arguments and runs it from
 * the row; the selection steps (step.c) and the browser's ':' prompt
 * (tui/cmdline.c) take the rows that are views as a last word. */
#ifndef HW_CMD_H
#define HW_CMD_H

#include "query/baseline.h"
#include "query/merged.h"
#include "query/objset.h"
#include "query/report.h"
#include "query/views.h"

/* Every command; the index of its row in cmd_table. */
enum cmd_id {
	CMD_INFO, CMD_CLASSES, CMD_BIGGEST, CMD_OBJECTS, CMD_PATHS, CMD_LIFELINES, CMD_BETWEEN,
	CMD_ALLOCATIONS, CMD_TIMES, CMD_REPORT, CMD_MERGED_OUT, CMD_MERGED_IN, CMD_MERGED_DOM,
	CMD_GRAPH, CMD_DIFF, CMD_LEAKS, CMD_CHECK, CMD_INSPECT, CMD_RULES, CMD_MARK, CMD_SNAPSHOT, CMD_N
};

/* What follows the command on the command line. */
enum cmd_arg {
	CMD_ARG_NONE,       /* COMMAND DUMP */
	CMD_ARG_OBJECT,     /* COMMAND DUMP [OBJECT] */
	CMD_ARG_OBJECT_REQ, /* COMMAND DUMP OBJECT */
	CMD_ARG_FROM_TO,    /* between DUMP FROM TO */
	CMD_ARG_NAME,       /* inspect DUMP NAME [ARG], or inspect --list */
	CMD_ARG_DUMPS,      /* diff OLD NEW: the baseline is its first argument */
	CMD_ARG_SERIES,     /* leaks BASE TARGET FINAL: three dumps, earliest first */
	CMD_ARG_PID,        /* mark PID [FILE]: a process, no dump */
	CMD_ARG_PID_FILE,   /* snapshot PID FILE */
	CMD_ARG_NOTHING,    /* rules: no dump */
};

/* When the command has a baseline. */
enum cmd_baseline {
	CMD_BL_STEPS, /* when its steps say new, old or gone: --baseline, else the dump's mark */
	CMD_BL_SHOWN, /* also whenever there is one: info and report show it */
	CMD_BL_OWN,   /* its own first argument (diff OLD NEW), never --baseline */
	CMD_BL_NONE,  /* never: no --baseline, no -e (mark, snapshot, rules) */
};

#define CMD_FMT(f)  (1u << (f))
#define CMD_HTML    (1u << 8) /* report: an HTML file, no -f */
#define CMD_TABLES  (CMD_FMT(FMT_TEXT) | CMD_FMT(FMT_JSON) | CMD_FMT(FMT_CSV))

/* cmd_entry.flags */
#define CMD_VIEW       0x01 /* a view: the last word of -e (and of the ':' prompt) may name it */
#define CMD_ONE        0x02 /* on a set of one object */
#define CMD_BROWSER    0x04 /* the browser's ':' prompt shows it */
/* parts it needs beyond cmd_entry.parts, with an option */
#define CMD_P_DEEP     0x10 /* --deep: every part */
#define CMD_P_EXACT    0x80 /* --exact: every part */
#define CMD_P_WEAK     0x20 /* --weak: the weak references */
#define CMD_P_DOT_DOM  0x40 /* -f dot: the objects' retained sizes */
/* options that go with this command alone */
#define CMD_O_DEEP        0x100 /* --deep */
#define CMD_O_UNDIRECTED  0x200 /* --undirected */
#define CMD_O_INSPECTIONS 0x400 /* --inspections */
#define CMD_O_STRONG      0x800 /* --strong */
/* the views' options it reads (a command without one refuses it, and
 * says which commands take it: not ignored) */
#define CMD_O_CLASSES     0x1000  /* --sort, --filter, --exact, --all: the classes' rows */
#define CMD_O_REVERSE     0x2000  /* --reverse */
#define CMD_O_BY          0x4000  /* --by */
#define CMD_O_DEPTH       0x8000  /* --depth */
#define CMD_O_CUTOFF      0x10000 /* --cutoff */
#define CMD_O_MAX         0x20000 /* --max */
#define CMD_O_WEAK        0x40000 /* --weak (-e's steps follow weak references with it too) */

/* What the options say, for the commands' functions. */
struct cmd_opts {
	enum fmt fmt;
	struct view_opts vo;
	int top_set, depth_set, max_set, cutoff_set; /* the option was given */
	enum merged_by by;           /* merged-*: --by */
	const char *insp, *insp_arg; /* inspect NAME [ARG] */
	const char *object, *to;     /* between FROM TO: object is FROM */
	int undirected, deep;        /* --undirected, --deep */
	int strong;                  /* --strong: merged-in without weak holders */
	const char *expr;            /* -e as given, for the report */
	const char *insps[64];       /* report --inspections LIST; ninsps -1: the default */
	const char *leaks_json;      /* report --target: the leaks view's JSON, its section */
	int ninsps;
};

/* A command's run: its output appended to out; -1 with err set. note: a
 * line for standard error unless -q (nothing is written there here). */
struct cmd_ctx {
	struct heap *h;         /* the dump the set is of */
	struct objset *set;
	struct cmd_opts *o;
	struct heap *old;       /* diff: the baseline dump */
	struct baseline *bl;    /* diff: where the comparison is kept (freed by the caller) */
	struct progress *p;
	struct sbuf *out, *err, *note;
};

struct cmd_entry {
	const char *name;
	enum cmd_arg arg;
	unsigned parts;     /* HP_* it needs of a cached heap on every object (steps: HP_ALL) */
	unsigned formats;   /* CMD_FMT(f) of each it writes; the first the default */
	enum cmd_baseline baseline;
	unsigned flags;     /* CMD_* */
	int (*run)(struct cmd_ctx *x); /* NULL: the command line's own (mark, snapshot, rules) */
	const char *help;   /* its lines in heapwalk --help, "  name ...\n" each */
};

extern const struct cmd_entry cmd_table[CMD_N];

/* The command of that name, or NULL. */
const struct cmd_entry *cmd_find(const char *name);
/* The command whose name is nearest word, for a misspelt one: at most
 * two letters added, dropped, changed or swapped (one for a name of
 * four or fewer), or NULL. */
const struct cmd_entry *cmd_nearest(const char *word);
/* The view of that name (a row with CMD_VIEW), or NULL. */
const struct cmd_entry *cmd_view(const char *name);
/* What the command needs of a cached heap beyond the summary tables,
 * after nsteps steps; 0 when it can answer from per-class totals. */
unsigned cmd_parts(const struct cmd_entry *e, const struct cmd_opts *o, size_t nsteps);
/* -f against the command's formats: the misuse, or NULL. fmt_set: -f
 * was given. */
const char *cmd_format_misuse(const struct cmd_entry *e, enum fmt fmt, int fmt_set);
/* A view's option that the command (its flags) does not read: the
 * words that say which commands do ("--sort goes with classes"), or
 * NULL. Refused, not ignored (a trial: --filter with biggest showed the
 * whole heap). by_set: --by was given; steps: -e's steps (which follow
 * weak references with --weak too). */
const char *cmd_view_option_misuse(const struct cmd_opts *o, int by_set, int steps, unsigned flags);
/* A CMD_ONE command on a set of count objects: 0, or -1 with err set. */
int cmd_check_set(const struct cmd_entry *e, uint64_t count, struct sbuf *err);
/* The commands' lines of heapwalk --help, appended. */
void cmd_help(struct sbuf *out);

#endif
