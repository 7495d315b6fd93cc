/* cmd.c — the commands' table and the functions that render them (see
 * cmd.h). A run gets the set the steps left and appends the command's
 * output; what it would say on standard error goes to the caller. */
#include "query/cmd.h"

#include <stdlib.h>
#include <string.h>

#include "query/alloc.h"
#include "query/alloctime.h"
#include "query/between.h"
#include "query/dot.h"
#include "query/html.h"
#include "query/inspect.h"
#include "query/lifelines.h"

static int run_info(struct cmd_ctx *x)
{
	struct info_view v;

	view_info(x->h, x->set, &v);
	if (x->o->deep && view_info_sizes(x->h, x->set, x->o->vo.weak, &v, x->o->vo.progress) < 0) {
		info_view_free(&v);
		sbuf_adds(x->err, "cancelled");
		return -1;
	}
	report_info(x->h, &v, x->o->fmt, x->out);
	info_view_free(&v);
	return 0;
}

static int run_classes(struct cmd_ctx *x)
{
	struct class_view v;

	if (view_classes(x->h, x->set, &x->o->vo, &v, x->err) < 0)
		return -1;
	report_classes(x->h, &v, x->o->fmt, x->out);
	class_view_free(&v);
	return 0;
}

static int run_biggest(struct cmd_ctx *x)
{
	struct cmd_opts *o = x->o;
	struct big_view v;

	o->vo.top = o->top_set ? o->vo.top : 20;
	view_biggest(x->h, x->set, &o->vo, &v);
	report_biggest(x->h, &v, o->fmt, x->out);
	big_view_free(&v);
	return 0;
}

static int run_objects(struct cmd_ctx *x)
{
	struct cmd_opts *o = x->o;
	struct objects_view v;

	o->vo.top = o->top_set ? o->vo.top : 100;
	view_objects(x->h, x->set, &o->vo, &v);
	report_objects(x->h, &v, o->fmt, x->out);
	objects_view_free(&v);
	return 0;
}

/* paths, lifelines: of the one object of the set */
static node_t the_object(const struct cmd_ctx *x)
{
	node_t v = 1;

	while (!objset_has(x->set, v))
		v++;
	return v;
}

static int run_paths(struct cmd_ctx *x)
{
	struct path_view v;

	view_paths(x->h, the_object(x), &x->o->vo, &v);
	report_paths(x->h, &v, x->o->fmt, x->out);
	path_view_free(&v);
	return 0;
}

static int run_lifelines(struct cmd_ctx *x)
{
	const struct cmd_opts *o = x->o;
	struct lifeline_view v;

	view_lifelines(x->h, the_object(x), o->max_set ? (uint64_t)o->vo.max_paths : 0, &v);
	report_lifelines(x->h, &v, o->fmt, x->out);
	lifeline_view_free(&v);
	return 0;
}

static int run_between(struct cmd_ctx *x)
{
	const struct cmd_opts *o = x->o;
	unsigned flags = (o->vo.weak ? REACH_WEAK : 0) | (o->undirected ? REACH_UNDIRECTED : 0);
	struct between b;

	if (between_ids(x->h, o->object, o->to, flags, &b, o->vo.progress, x->err) < 0)
		return -1;
	report_between(x->h, &b, o->fmt, x->out);
	between_free(&b);
	return 0;
}

static int run_allocations(struct cmd_ctx *x)
{
	const struct cmd_opts *o = x->o;
	struct alloc_view v;

	view_allocations(x->h, x->set, &v);
	report_allocations(x->h, &v, o->top_set ? o->vo.top : 20, o->depth_set ? o->vo.depth : 4,
			   o->vo.cutoff, o->fmt, x->out);
	alloc_view_free(&v);
	return 0;
}

static int run_times(struct cmd_ctx *x)
{
	const struct cmd_opts *o = x->o;
	struct time_view v;

	view_times(x->h, x->set, o->top_set && o->vo.top ? o->vo.top : 20, &v);
	report_times(x->h, &v, o->fmt, x->out);
	time_view_free(&v);
	return 0;
}

static int run_report(struct cmd_ctx *x)
{
	const struct cmd_opts *c = x->o;
	struct html_opts o;

	html_opts_default(&o);
	o.expr = c->expr;
	o.progress = c->vo.progress;
	if (c->depth_set)
		o.depth = (unsigned)c->vo.depth;
	if (c->cutoff_set)
		o.cutoff = c->vo.cutoff;
	if (c->max_set)
		o.max_nodes = (size_t)c->vo.max_paths;
	if (c->top_set)
		o.top = c->vo.top;
	if (c->ninsps >= 0) {
		o.inspections = c->insps;
		o.ninspections = (size_t)c->ninsps;
	}
	o.leaks_json = c->leaks_json;
	return report_html(x->h, x->set, &o, x->out, x->err);
}

/* merged-out, merged-in, merged-dom: the tree, -d levels deep. */
static int run_merged(struct cmd_ctx *x, enum merged_kind k, const char *view)
{
	const struct cmd_opts *o = x->o;
	struct merged_tree t;
	node_t *m = objset_members(x->h, x->set);
	int rc = merged_tree(x->h, k, o->by, o->vo.reverse, !o->strong, m, (size_t)x->set->count,
			     (unsigned)(o->depth_set ? o->vo.depth : 1), o->top_set ? o->vo.top : 20, &t,
			     o->vo.progress);

	free(m);
	if (rc < 0) {
		sbuf_adds(x->err, "cancelled");
		return -1;
	}
	report_merged(x->h, view, &t, o->fmt, x->out);
	merged_tree_free(&t);
	return 0;
}

static int run_merged_out(struct cmd_ctx *x) { return run_merged(x, MG_OUTGOING, "merged-out"); }
static int run_merged_in(struct cmd_ctx *x) { return run_merged(x, MG_INCOMING, "merged-in"); }
static int run_merged_dom(struct cmd_ctx *x) { return run_merged(x, MG_DOMINATING, "merged-dom"); }

static int run_graph(struct cmd_ctx *x)
{
	const struct cmd_opts *o = x->o;
	int rc = graph_dot(x->h, x->set, (unsigned)o->vo.depth, o->max_set ? (size_t)o->vo.max_paths : 0,
			   o->vo.weak, x->out, x->err);

	if (rc > 0)
		sbuf_printf(x->note, "graph: cut at %d objects, more lie within depth %d (--max N draws more)",
			    o->max_set ? o->vo.max_paths : GRAPH_MAX_NODES, o->vo.depth);
	return rc < 0 ? -1 : 0;
}

/* diff OLD NEW: class deltas, and the new and gone objects where the
 * dumps carry stable ids; why not, in the note. */
static int run_diff(struct cmd_ctx *x)
{
	struct diff_view dv;
	struct sbuf why;

	sbuf_init(&why);
	int compared = baseline_compare(x->h, x->old, x->bl, x->p, &why) == 0;
	if (compared)
		x->h->baseline = x->bl;
	else
		sbuf_printf(x->note, "note: %s", why.buf);
	diff_classes(x->old, x->h, x->h->baseline, !compared && x->bl->two_runs, &dv);
	if (!compared && why.len > 0) /* the table says why it has class deltas only */
		dv.no_identity = sbuf_detach(&why);
	sbuf_free(&why);
	report_diff(x->old, x->h, &dv, x->o->top_set ? x->o->vo.top : 0, x->o->fmt, x->out);
	diff_view_free(&dv);
	return 0;
}

static int run_inspect(struct cmd_ctx *x)
{
	const struct cmd_opts *o = x->o;
	const struct inspection *in = inspect_find(o->insp);
	struct insp_result r;

	if (inspect_run(x->h, in, o->insp_arg, x->set, &r, o->vo.progress, x->err) < 0)
		return -1;
	/* "/Tree/" finds nothing where strings hold no slashes: the form of
	 * an -e step's (inspection string-regex /Tree/ group 1, as x writes
	 * it), which takes the slashes for bounds; said, when nothing came */
	const char *a = o->insp_arg;
	size_t n = a != NULL ? strlen(a) : 0;
	if (r.n == 0 && x->note != NULL && strcmp(in->name, "string-regex") == 0 && n >= 3 && a[0] == '/' &&
	    a[n - 1] == '/') {
		if (x->note->len > 0) /* after another note: a line of its own */
			sbuf_addc(x->note, '\n');
		sbuf_adds(x->note, "note: string-regex: nothing matched the regex with its slashes; here it comes bare (");
		esc_append(x->note, (const uint8_t *)a + 1, n - 2, 0);
		sbuf_adds(x->note, "), between slashes only in -e's step 'inspection string-regex /REGEX/ group K'");
	}
	report_inspect(x->h, in, o->insp_arg, &r, x->set, o->top_set ? o->vo.top : 0, o->fmt, x->out);
	insp_result_free(&r);
	return 0;
}

/* ---- the table ---- */

#define TD (CMD_TABLES | CMD_FMT(FMT_DOT))
#define VB (CMD_VIEW | CMD_BROWSER)

/* In the order heapwalk --help lists them. */
const struct cmd_entry cmd_table[CMD_N] = {
	[CMD_INFO] = { "info", CMD_ARG_NONE, 0, CMD_TABLES, CMD_BL_SHOWN, VB | CMD_P_DEEP | CMD_O_DEEP | CMD_O_WEAK, run_info,
		"  info            the dump: counts, sizes, layout, GC roots by kind, unreachable\n" },
	[CMD_CLASSES] = { "classes", CMD_ARG_NONE, 0, CMD_TABLES, CMD_BL_STEPS, VB | CMD_P_EXACT | CMD_O_CLASSES | CMD_O_REVERSE, run_classes,
		"  classes         class histogram: instances, shallow and retained (lower bound)\n" },
	[CMD_BIGGEST] = { "biggest", CMD_ARG_NONE, HP_NODES | HP_DOM, CMD_TABLES, CMD_BL_STEPS, VB | CMD_O_DEPTH | CMD_O_CUTOFF, run_biggest,
		"  biggest         the biggest objects: the dominator tree by retained size\n" },
	[CMD_OBJECTS] = { "objects", CMD_ARG_NONE, HP_NODES | HP_DOM, CMD_TABLES, CMD_BL_STEPS, VB, run_objects,
		"  objects         the objects of the set, biggest retained first\n" },
	[CMD_PATHS] = { "paths", CMD_ARG_OBJECT_REQ, HP_NODES | HP_IN, TD, CMD_BL_STEPS, VB | CMD_ONE | CMD_P_WEAK | CMD_P_DOT_DOM | CMD_O_MAX | CMD_O_WEAK, run_paths,
		"  paths OBJECT    shortest paths from GC roots to OBJECT (id: 0x... or decimal, @ before it or not)\n" },
	[CMD_LIFELINES] = { "lifelines", CMD_ARG_OBJECT_REQ, HP_NODES | HP_IN | HP_OUT | HP_WEAK, CMD_TABLES, CMD_BL_STEPS, VB | CMD_ONE | CMD_O_MAX, run_lifelines,
		"  lifelines OBJECT  OBJECT's short paths to GC roots or to objects an owns rule\n"
		"                  owns, grouped by the classes and fields along them, counted\n" },
	[CMD_BETWEEN] = { "between", CMD_ARG_FROM_TO, HP_ALL, CMD_TABLES, CMD_BL_STEPS, CMD_O_UNDIRECTED | CMD_O_WEAK, run_between,
		"  between FROM TO a shortest path from object FROM to object TO along\n"
		"                  references (--undirected: either way; --weak: weak ones too)\n" },
	[CMD_ALLOCATIONS] = { "allocations", CMD_ARG_NONE, HP_NODES, CMD_TABLES, CMD_BL_STEPS, VB | CMD_O_DEPTH | CMD_O_CUTOFF, run_allocations,
		"  allocations     where the objects were allocated, for dumps with stack traces\n"
		"                  (the agent's sample:BYTES; node --track-heap-objects): hot\n"
		"                  spots and the call tree\n" },
	[CMD_TIMES] = { "times", CMD_ARG_NONE, HP_NODES, CMD_TABLES, CMD_BL_STEPS, VB, run_times,
		"  times           when the objects were allocated: a histogram of the times the\n"
		"                  agent's sample:BYTES records, -n buckets (default 20)\n" },
	[CMD_REPORT] = { "report", CMD_ARG_NONE, HP_ALL, CMD_HTML, CMD_BL_SHOWN, CMD_O_INSPECTIONS | CMD_O_DEPTH | CMD_O_CUTOFF | CMD_O_MAX, run_report,
		"  report          one self-contained HTML file of the set (-o FILE.html): the\n"
		"                  dump, leak suspects with their paths, the dominator tree as\n"
		"                  a tree, a treemap and a sunburst, the class histogram, the\n"
		"                  top -n groups (10) of the inspections --inspections names\n"
		"                  (NAME,NAME..., all, none; default: boxed-primitives,\n"
		"                  zero-length-arrays, duplicate-classes, finalizer-queue,\n"
		"                  pinned), what is new (-b); the tree cut at --max objects\n"
		"                  (60000), -d levels (128), --cutoff PCT of its bytes (0.005)\n" },
	[CMD_MERGED_OUT] = { "merged-out", CMD_ARG_NONE, HP_ALL, TD, CMD_BL_STEPS, VB | CMD_O_BY | CMD_O_DEPTH, run_merged_out,
		"  merged-out      merged outgoing references: what the set refers to, by class\n"
		"                  (or --by field), class-recursive chains collapsed, -d levels\n" },
	[CMD_MERGED_IN] = { "merged-in", CMD_ARG_NONE, HP_ALL, TD, CMD_BL_STEPS, VB | CMD_O_STRONG | CMD_O_BY | CMD_O_DEPTH,
		run_merged_in,
		"  merged-in       merged incoming references: what refers to the set, weak and\n"
		"                  soft holders marked weak, holders an owns rule makes no\n"
		"                  owners marked not owning (--strong: both left out)\n" },
	[CMD_MERGED_DOM] = { "merged-dom", CMD_ARG_NONE, HP_ALL, TD, CMD_BL_STEPS, VB | CMD_O_REVERSE | CMD_O_BY | CMD_O_DEPTH, run_merged_dom,
		"  merged-dom      merged dominating references: the set's immediate dominators;\n"
		"                  -r: from the GC roots down the dominator tree to the set\n" },
	[CMD_GRAPH] = { "graph", CMD_ARG_OBJECT, HP_ALL, CMD_FMT(FMT_DOT), CMD_BL_STEPS, CMD_VIEW | CMD_O_DEPTH | CMD_O_MAX | CMD_O_WEAK, run_graph,
		"  graph [OBJECT]  the set's objects (or OBJECT) and those within -d references\n"
		"                  out and in (default 1), GC roots marked, in GraphViz dot: at\n"
		"                  most --max objects (500); dot -Tsvg draws it\n" },
	[CMD_DIFF] = { "diff", CMD_ARG_DUMPS, HP_ALL, CMD_TABLES, CMD_BL_OWN, 0, run_diff,
		"  diff OLD NEW    class deltas from dump OLD to dump NEW, with the new and gone\n"
		"                  objects by class: exact for snapshots (stable ids), or matched;\n"
		"                  V8: exact where its ids identify, natives and code per class;\n"
		"                  .NET: exact from the heap of a mark (mark PID FILE) to the\n"
		"                  snapshot after it\n" },
	[CMD_LEAKS] = { "leaks", CMD_ARG_SERIES, HP_ALL, CMD_TABLES, CMD_BL_OWN, 0, NULL,
		"  leaks BASE TARGET FINAL  what an action leaked: objects new in TARGET (made\n"
		"                  after BASE) still alive in FINAL (after the action was\n"
		"                  undone), in clusters by their shortest path from a GC root\n"
		"                  (classes and fields), biggest retained first (-n clusters,\n"
		"                  default 20), each with a path and a step that selects it;\n"
		"                  exact with stable ids, else said to be inferred; four to 16\n"
		"                  dumps S1 S2 S3 S4...: the classes and clusters (of what is\n"
		"                  new since S1) whose count grew every time, with each count\n" },
	[CMD_CHECK] = { "check", CMD_ARG_NONE, HP_ALL, CMD_TABLES, CMD_BL_OWN, 0, NULL,
		"  check           gates for CI: the rules of the --rules files (a threshold on\n"
		"                  a figure each: set STEPS, growth STEPS against -b, leaks\n"
		"                  [top] with -b and --target, inspection NAME [ARG] [top]);\n"
		"                  a row per rule with what it measured; exit 0 when every\n"
		"                  rule holds, 1 when one fails, 2 on an error; --junit FILE\n"
		"                  also writes JUnit XML\n" },
	[CMD_INSPECT] = { "inspect", CMD_ARG_NAME, HP_ALL, CMD_TABLES, CMD_BL_STEPS, 0, run_inspect,
		"  inspect NAME [ARG]  run the inspection NAME on the set (-e) and list its\n"
		"                  groups (waste, references, retention, class loaders, search,\n"
		"                  .NET's finalizer queue, pinned objects and GC handles);\n"
		"                  inspect --list names them all\n" },
	[CMD_RULES] = { "rules", CMD_ARG_NOTHING, 0, CMD_FMT(FMT_TEXT), CMD_BL_NONE, 0, NULL,
		"  rules           the reference-classifier rules: groups (on/off) and rules\n" },
	[CMD_MARK] = { "mark", CMD_ARG_PID, 0, CMD_FMT(FMT_TEXT), CMD_BL_NONE, 0, NULL,
		"  mark PID [FILE]  mark the objects a running JVM has now (loads the agent;\n"
		"                  its answer awaited 30 min at most, then no mark is made);\n"
		"                  its later snapshots tell new objects from old; a .NET\n"
		"                  process: its heap now (kept in FILE if given: a baseline\n"
		"                  for the next snapshot), and a recorder of the GC's moves\n"
		"                  that the next snapshot replays into its FILE.hwmark (exact;\n"
		"                  large and pinned objects a background GC kept: inferred,\n"
		"                  and counted; or labelled not exact with the reason); a Node\n"
		"                  process is refused (its snapshots compare by content)\n" },
	[CMD_SNAPSHOT] = { "snapshot", CMD_ARG_PID_FILE, 0, CMD_FMT(FMT_TEXT), CMD_BL_NONE, 0, NULL,
		"  snapshot PID FILE  a heap dump with stable object ids and the last mark (JVM;\n"
		"                  HotSpot's own dump when the agent cannot be loaded, said on\n"
		"                  stderr, or with --plain; the agent's answer or HotSpot's\n"
		"                  awaited 30 min at most, then nothing is written),\n"
		"                  or the heap a .NET process's runtime reports (nettrace), or a\n"
		"                  Node process's V8 heap snapshot through its inspector (opened\n"
		"                  with SIGUSR1 if closed, and closed again; progress on stderr\n"
		"                  when a terminal); .NET and Node: cut short, nothing written,\n"
		"                  past the room on FILE's file system but 1/20, after 60 s\n"
		"                  without a byte or 30 min in all\n"
		"                  (mark, snapshot: the process is told from /proc first; one\n"
		"                  that is not a HotSpot JVM, .NET runtime or Node of your own\n"
		"                  user is refused, never signalled)\n" },
};

const struct cmd_entry *cmd_find(const char *name)
{
	for (size_t i = 0; i < CMD_N; i++)
		if (strcmp(cmd_table[i].name, name) == 0)
			return &cmd_table[i];
	return NULL;
}

const struct cmd_entry *cmd_nearest(const char *word)
{
	const struct cmd_entry *best = NULL;
	size_t max = strlen(word) <= 4 ? 1 : 2, least = max + 1;

	for (size_t i = 0; i < CMD_N; i++) {
		size_t k = str_edits(word, cmd_table[i].name, max);
		if (k < least) { /* the first of the nearest: the table's order */
			least = k;
			best = &cmd_table[i];
		}
	}
	return best;
}

const struct cmd_entry *cmd_view(const char *name)
{
	const struct cmd_entry *e = cmd_find(name);

	return e != NULL && (e->flags & CMD_VIEW) ? e : NULL;
}

unsigned cmd_parts(const struct cmd_entry *e, const struct cmd_opts *o, size_t nsteps)
{
	unsigned parts = e->parts;

	if (nsteps > 0)
		return HP_ALL;
	if (((e->flags & CMD_P_DEEP) && o->deep) || ((e->flags & CMD_P_EXACT) && o->vo.exact != NULL))
		return HP_ALL;
	if ((e->flags & CMD_P_WEAK) && o->vo.weak)
		parts |= HP_WEAK;
	if ((e->flags & CMD_P_DOT_DOM) && o->fmt == FMT_DOT)
		parts |= HP_DOM;
	return parts;
}

const char *cmd_format_misuse(const struct cmd_entry *e, enum fmt fmt, int fmt_set)
{
	if (e->formats & CMD_FMT(fmt))
		return NULL;
	if (fmt == FMT_DOT)
		return "-f dot goes with graph, paths and merged-*";
	if (fmt_set && !(e->formats & CMD_TABLES)) /* unset: the graph's own, dot */
		return "-f text, json and csv go with the views that are tables";
	if (fmt_set && fmt != FMT_TEXT) /* a command of text alone (rules: a rules file's lines) */
		return "-f json and csv go with the views that are tables";
	return NULL;
}

const char *cmd_view_option_misuse(const struct cmd_opts *o, int by_set, int steps, unsigned flags)
{
	const struct { int set; unsigned flag; const char *words; } opt[] = {
		{ o->vo.sort != NULL, CMD_O_CLASSES, "--sort goes with classes" },
		{ o->vo.filter != NULL, CMD_O_CLASSES, "--filter goes with classes" },
		{ o->vo.exact != NULL, CMD_O_CLASSES, "--exact goes with classes" },
		{ o->vo.all, CMD_O_CLASSES, "--all goes with classes" },
		{ o->vo.reverse, CMD_O_REVERSE, "--reverse goes with classes and merged-dom" },
		{ by_set, CMD_O_BY, "--by goes with merged-out, merged-in and merged-dom" },
		{ o->depth_set, CMD_O_DEPTH, "--depth goes with biggest, allocations, merged-*, graph and report" },
		{ o->cutoff_set, CMD_O_CUTOFF, "--cutoff goes with biggest, allocations and report" },
		{ o->max_set, CMD_O_MAX, "--max goes with paths, lifelines, graph and report" },
		/* -e's steps follow weak references with it too */
		{ o->vo.weak && !steps, CMD_O_WEAK, "--weak goes with paths, between, info --deep, graph and -e" },
		/* info reads it for --deep's figures alone */
		{ o->vo.weak && !steps && !o->deep && (flags & CMD_O_DEEP), 0,
		  "--weak goes with paths, between, info --deep, graph and -e" },
	};

	for (size_t i = 0; i < sizeof opt / sizeof opt[0]; i++)
		if (opt[i].set && !(flags & opt[i].flag))
			return opt[i].words;
	return NULL;
}

int cmd_check_set(const struct cmd_entry *e, uint64_t count, struct sbuf *err)
{
	if (!(e->flags & CMD_ONE) || count == 1)
		return 0;
	sbuf_printf(err, "%s needs a set of one object, not %llu", e->name, (unsigned long long)count);
	return -1;
}

void cmd_help(struct sbuf *out)
{
	for (size_t i = 0; i < CMD_N; i++)
		sbuf_adds(out, cmd_table[i].help);
}
