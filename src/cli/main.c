/* main.c — the command line: options, commands, selection steps, one
 * view rendered to stdout. Everything is checked that can be before the
 * dump is opened: a typo must not cost the parse of a 30 GB dump. */
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/attach.h"
#include "cli/dotnet.h"
#include "cli/dotnet_mark.h"
#include "cli/proc.h"
#include "config.h"
#include "engine/open.h"
#include "graph/rules.h"
#include "query/dot.h"
#include "query/html.h"
#include "query/inspect.h"
#include "query/merged.h"
#include "query/baseline.h"
#include "query/report.h"
#include "tui/keys.h"
#include "tui/tui.h"
#include "query/step.h"
#include "query/views.h"

enum { EXIT_USAGE = 1, EXIT_INPUT = 2 };

static const char usage_text[] =
"usage: heapwalk [options] COMMAND DUMP [OBJECT]\n"
"       heapwalk [options] between DUMP FROM TO\n"
"       heapwalk [options] DUMP -e 'STEP | STEP ... [| VIEW]'\n"
"       heapwalk [--no-cache] [--baseline OLD] DUMP   the full-screen browser\n"
"                                    (keys: --keys, or ?)\n"
"       heapwalk [options] diff OLD NEW\n"
"       heapwalk [options] inspect DUMP NAME [ARG] | inspect --list\n"
"       heapwalk [rule options] rules      the rule groups and rules in effect\n"
"       heapwalk mark PID [FILE] | snapshot PID FILE\n"
"\n"
"DUMP: HPROF (plain, or gzip: jcmd -gz=N, gzip), a V8 heap snapshot (Node,\n"
"Chrome), a .NET heap-dump trace (nettrace) or dotnet-gcdump's .gcdump, Mono's\n"
"log-profiler heapshots (.mlpd), told apart by content; see FORMATS in\n"
"heapwalk(1)\n"
"\n"
"commands:\n"
"  info            the dump: counts, sizes, layout, GC roots by kind, unreachable\n"
"  classes         class histogram: instances, shallow and retained (lower bound)\n"
"  biggest         the biggest objects: the dominator tree by retained size\n"
"  objects         the objects of the set, biggest retained first\n"
"  paths OBJECT    shortest paths from GC roots to OBJECT (id: 0x... or decimal)\n"
"  lifelines OBJECT  OBJECT's short paths to GC roots or to objects an owns rule\n"
"                  owns, grouped by the classes and fields along them, counted\n"
"  between FROM TO a shortest path from object FROM to object TO along\n"
"                  references (--undirected: either way; --weak: weak ones too)\n"
"  allocations     where the objects were allocated, for dumps with stack traces\n"
"                  (the agent's sample:BYTES; node --track-heap-objects): hot\n"
"                  spots and the call tree\n"
"  times           when the objects were allocated: a histogram of the times the\n"
"                  agent's sample:BYTES records, -n buckets (default 20)\n"
"  report          one self-contained HTML file of the set (-o FILE.html): the\n"
"                  dump, leak suspects with their paths, the dominator tree as\n"
"                  a tree, a treemap and a sunburst, the class histogram, the\n"
"                  top -n groups (10) of the inspections --inspections names\n"
"                  (NAME,NAME..., all, none; default: boxed-primitives,\n"
"                  zero-length-arrays, duplicate-classes, finalizer-queue,\n"
"                  pinned), what is new (-b); the tree cut at --max objects\n"
"                  (60000), -d levels (128), --cutoff PCT of its bytes (0.005)\n"
"  merged-out      merged outgoing references: what the set refers to, by class\n"
"                  (or --by field), class-recursive chains collapsed, -d levels\n"
"  merged-in       merged incoming references: what refers to the set\n"
"  merged-dom      merged dominating references: the set's immediate dominators;\n"
"                  -r: from the GC roots down the dominator tree to the set\n"
"  graph [OBJECT]  the set's objects (or OBJECT) and those within -d references\n"
"                  out and in (default 1), GC roots marked, in GraphViz dot: at\n"
"                  most --max objects (500); dot -Tsvg draws it\n"
"  diff OLD NEW    class deltas from dump OLD to dump NEW, with the new and gone\n"
"                  objects by class: exact for snapshots (stable ids), or matched;\n"
"                  V8: exact where its ids identify, natives and code per class;\n"
"                  .NET: exact from the heap of a mark (mark PID FILE) to the\n"
"                  snapshot after it\n"
"  inspect NAME [ARG]  run the inspection NAME on the set (-e) and list its\n"
"                  groups (waste, references, retention, class loaders, search,\n"
"                  .NET's finalizer queue, pinned objects and GC handles);\n"
"                  inspect --list names them all\n"
"  rules           the reference-classifier rules: groups (on/off) and rules\n"
"  mark PID [FILE]  mark the objects a running JVM has now (loads the agent);\n"
"                  its later snapshots tell new objects from old; a .NET\n"
"                  process: its heap now (kept in FILE if given: a baseline\n"
"                  for the next snapshot), and a recorder of the GC's moves\n"
"                  that the next snapshot replays into its FILE.hwmark (exact;\n"
"                  large and pinned objects a background GC kept: inferred,\n"
"                  and counted; or labelled not exact with the reason)\n"
"  snapshot PID FILE  a heap dump with stable object ids and the last mark (JVM),\n"
"                  or the heap a .NET process's runtime reports (nettrace: cut\n"
"                  short, nothing written, past the room on FILE's file system\n"
"                  but 1/20, after 60 s without a byte or 30 min in all)\n"
"                  (mark, snapshot: the process is told from /proc first; one\n"
"                  that is not a HotSpot JVM or .NET runtime of your own user is\n"
"                  refused, never signalled)\n"
"\n"
"steps (-e), separated by '|', each applied to the set (at first every object):\n"
"  all                       every object\n"
"  instances NAME|/REGEX/    instances of class NAME (java.util.HashMap, byte[])\n"
"                            or of the classes whose name matches REGEX (PCRE2)\n"
"  instanceof NAME|/REGEX/   the same, instances of subclasses included\n"
"  retained                  what the set retains (freed if the set were gone)\n"
"  referrers [weak]          objects that refer to a member\n"
"  referents [weak]          objects a member refers to\n"
"  dominated                 the members' children in the dominator tree\n"
"  top                       members no other member dominates (biggest's top)\n"
"  class-objects             the java.lang.Class objects of the members' classes\n"
"  elements [keys|values]    the elements (keys, values) of member collections\n"
"  loaded                    instances of the classes member class loaders define\n"
"  site F [<- F...]          members allocated at frame F (as allocations shows\n"
"                            it), called from the next F...; calls F [-> F...]:\n"
"                            on a path from the outermost frame F in\n"
"  loader ID                 members whose class the class loader ID defines (0:\n"
"                            the bootstrap loader)\n"
"  reachable [weak]          everything the set reaches, the set included (the\n"
"                            deep set)\n"
"  path FROM TO [undirected] [weak]  the objects on a shortest path from object\n"
"                            FROM to TO (the set does not matter)\n"
"  allocated FROM..TO        members allocated then: seconds after the JVM's\n"
"                            start (or the agent's load, where the system does\n"
"                            not tell it), inclusive; ..TO, FROM.. open-ended\n"
"  unreachable               members the GC roots do not reach: the dump's garbage\n"
"                            (classes -e unreachable: its histogram)\n"
"  generation NAME           members in one GC generation (.NET: gen0, gen1,\n"
"                            gen2, loh, poh, nongc)\n"
"  object ID[,ID...]         the objects with those ids (0x... hex or decimal)\n"
"  new | old                 objects that did not exist / existed at the baseline\n"
"                            (--baseline OLD, or the agent's mark in the dump,\n"
"                            or a .NET snapshot's mark file, DUMP.hwmark)\n"
"  gone                      first step only: the baseline's objects now gone\n"
"  inspection NAME [ARG] group K[,K...]  group K of an inspection run on the\n"
"                            set (K,L...: the union of those groups)\n"
"  root ID | root gc         from here on, analyse (dominators, retained sizes,\n"
"                            paths) as if object ID were the only GC root; the\n"
"                            set: what it reaches (not through objects' classes)\n"
"  ignore ID LABEL           leave out the reference of ID that LABEL names (a\n"
"                            field, [INDEX] or the target's id), analyse again;\n"
"                            unignore ID LABEL puts it back\n"
"  a last word info, classes, biggest, objects, paths, lifelines, allocations,\n"
"  times, merged-out, merged-in, merged-dom or graph picks the view (default\n"
"  classes; paths and lifelines need a set of one object)\n"
"\n"
"options:\n"
"  -e, --expr EXPR      selection steps, see above\n"
"  -b, --baseline OLD   the earlier dump that new, old and gone refer to (matched\n"
"                       by content and references unless both are snapshots);\n"
"                       FILE:N is heapshot N of a Mono .mlpd (from the GC's\n"
"                       moves in one file: exact, or the inferred part counted)\n"
"      --heapshot N     of a Mono .mlpd, heapshot N (1 = the first; default: the\n"
"                       last; info lists them)\n"
"  -f, --format FMT     text (default), json or csv; dot (GraphViz) for the\n"
"                       graphs: graph (its only format), paths, merged-*\n"
"  -o, --output FILE    write the output to FILE (whole, or not at all), not to\n"
"                       standard output; /dev/stdout, /dev/fd/N: to that\n"
"                       descriptor as it is open (>> appends); never an input\n"
"  -s, --sort KEY       classes: shallow (default), retained, instances or name\n"
"  -r, --reverse        classes: the other way round; merged-dom: GC roots to\n"
"                       objects, from the top of the dominator tree down\n"
"      --by class|field merged-*: group by class (default) or by class and field\n"
"      --filter REGEX   classes: only classes whose name matches\n"
"      --exact REGEX    classes: also the exact retained size of matching classes\n"
"      --all            classes: also classes without instances in the set\n"
"  -n, --top N          rows at the top level; 0 = all (default: classes all,\n"
"                       biggest 20, objects 100, allocations 20 of each tree,\n"
"                       inspect all groups, merged-* 20 groups at each level;\n"
"                       times: about N buckets, 20)\n"
"  -d, --depth N        biggest: levels of the dominator tree shown (default 1);\n"
"                       allocations: levels of callers and callees (default 4);\n"
"                       merged-*: levels of groups, each shown group expanded (1)\n"
"                       graph: references out and in from the set (1)\n"
"      --cutoff PCT     biggest: fold children under PCT% of their parent (0.5);\n"
"                       allocations: leave out nodes under PCT% of traced bytes\n"
"      --max N          paths: at most N paths, each to another root (default 5);\n"
"                       lifelines: at most N paths walked (default 1000);\n"
"                       graph: at most N objects (default 500)\n"
"  -w, --weak           paths, between, referrers, referents, reachable, path,\n"
"                       info --deep, graph: follow weak references too\n"
"      --undirected     between: references lead either way\n"
"      --deep           info: also the set's exact retained size and its deep\n"
"                       size (everything it reaches; a pass over the heap each)\n"
"      --root ID        the step root ID before the others (also in the browser)\n"
"      --ignore 'ID LABEL'  the step ignore ID LABEL first; repeatable\n"
"      --rules FILE     also apply the reference-classifier rules in FILE\n"
"                       (heapwalk-rules(5)); repeatable\n"
"      --no-default-rules  without the built-in rules/jdk.rules\n"
"      --rules-off GROUP, --rules-on GROUP  turn a rule group off or on\n"
"      --keep-unreachable  count what unreachable objects refer to as retained\n"
"                       by them: by default dominators and retained sizes are\n"
"                       of what the GC roots reach alone\n"
"      --no-cache       neither read nor write the index cache (DUMP.hwi)\n"
"      --verify-cache   hash the whole dump before trusting its index cache\n"
"  -q, --quiet          no progress and no warnings on stderr\n"
"  -v, --verbose        every warning about the dump on stderr (else one line)\n"
"  -h, --help           this text\n"
"  -V, --version        the version\n"
"      --keys[=mdoc]    the browser's keys (mdoc: as the man page lists them)\n"
"\n"
"exit status: 0 ok, 1 usage error, 2 bad input (unreadable dump, bad id or regex;\n"
"a dump too big to open here; a process mark or snapshot refuses), 3 out of memory\n"
"(the line says how much)\n";

static const char *const commands[] = {
	"info", "classes", "biggest", "objects", "paths", "lifelines", "allocations", "diff", "mark", "snapshot",
	"inspect", "rules", "merged-out", "merged-in", "merged-dom", "between", "times", "report", "graph"
};

struct cli {
	const char *cmd, *dump, *object, *expr;
	const char *baseline;   /* --baseline OLD, or diff's OLD */
	const char *pid, *file; /* mark, snapshot */
	enum fmt fmt;
	int fmt_set;            /* -f was given */
	struct view_opts vo;
	struct open_opts oo;
	int top_set, depth_set, max_set, cutoff_set;
	enum merged_by by;           /* merged-*: --by */
	const char *insp, *insp_arg; /* inspect NAME [ARG] */
	int insp_list;               /* inspect --list */
	const char *rule_files[32];  /* --rules, in order */
	size_t nrule_files;
	int no_default_rules;
	const char *rule_groups[32]; /* --rules-off/--rules-on GROUP, in order */
	int rule_on[32];
	size_t nrule_groups;
	const char *focus[32];       /* --root ID, --ignore 'ID LABEL': the steps first, in order */
	int focus_root[32];
	size_t nfocus;
	const char *to;              /* between FROM TO: object is FROM */
	int undirected, deep;        /* --undirected, --deep */
	const char *output;          /* -o FILE: the output there, not on stdout */
	const char *insps[64];       /* report --inspections LIST; ninsps -1: the default */
	int ninsps;
};

/* A usage error: one line, status 1. */
static _Noreturn __attribute__((format(printf, 1, 2))) void usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("heapwalk: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" (see heapwalk --help)\n", stderr);
	exit(EXIT_USAGE);
}

static long num_arg(const char *opt, const char *s, long min)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s < '0' || *s > '9' || *end != '\0' || v < min || v > 1000000000)
		usage_error("%s needs a number of %ld or more, not '%s'", opt, min, s);
	return v;
}

static int is_command(const char *s)
{
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (strcmp(s, commands[i]) == 0)
			return 1;
	return 0;
}

static void set_format(struct cli *c, const char *s)
{
	if (strcmp(s, "text") == 0)
		c->fmt = FMT_TEXT;
	else if (strcmp(s, "json") == 0)
		c->fmt = FMT_JSON;
	else if (strcmp(s, "csv") == 0)
		c->fmt = FMT_CSV;
	else if (strcmp(s, "dot") == 0)
		c->fmt = FMT_DOT;
	else
		usage_error("unknown format '%s': text, json, csv or dot", s);
	c->fmt_set = 1;
}

/* --keys: the browser's key table; --keys=mdoc the man page's list. */
static void print_keys(const char *how)
{
	struct sbuf sb;

	if (how != NULL && strcmp(how, "mdoc") != 0)
		usage_error("--keys takes no value, or =mdoc");
	sbuf_init(&sb);
	if (how != NULL)
		keys_mdoc(&sb);
	else
		keys_help(&sb);
	fputs(sb.buf, stdout);
	sbuf_free(&sb);
}

/* --inspections LIST: names separated by commas, "all" (every one that
 * takes no argument) or "none". */
static void inspections_arg(struct cli *c, char *list)
{
	size_t n;
	const struct inspection *all = inspect_all(&n);

	c->ninsps = 0;
	if (strcmp(list, "all") == 0) {
		for (size_t i = 0; i < n && c->ninsps < 64; i++)
			if (!all[i].arg_required)
				c->insps[c->ninsps++] = all[i].name;
		return;
	}
	if (strcmp(list, "none") == 0)
		return;
	for (char *save = NULL, *name = strtok_r(list, ",", &save); name != NULL; name = strtok_r(NULL, ",", &save)) {
		const struct inspection *in = inspect_find(name);
		if (in == NULL)
			usage_error("--inspections: no inspection named '%s' (heapwalk inspect --list)", name);
		if (in->arg_required)
			usage_error("--inspections: %s needs an argument: run it with inspect", name);
		if (c->ninsps == 64)
			usage_error("--inspections: more than 64");
		c->insps[c->ninsps++] = in->name;
	}
}

static void parse_options(int argc, char **argv, struct cli *c)
{
	static const struct option lo[] = {
		{ "expr", required_argument, 0, 'e' }, { "format", required_argument, 0, 'f' },
		{ "sort", required_argument, 0, 's' }, { "reverse", no_argument, 0, 'r' },
		{ "filter", required_argument, 0, 'F' }, { "exact", required_argument, 0, 'X' },
		{ "all", no_argument, 0, 'A' }, { "top", required_argument, 0, 'n' },
		{ "depth", required_argument, 0, 'd' }, { "cutoff", required_argument, 0, 'C' },
		{ "max", required_argument, 0, 'M' }, { "weak", no_argument, 0, 'w' },
		{ "no-cache", no_argument, 0, 'N' }, { "quiet", no_argument, 0, 'q' },
		{ "verify-cache", no_argument, 0, 'G' },
		{ "keep-unreachable", no_argument, 0, 'U' },
		{ "verbose", no_argument, 0, 'v' },
		{ "help", no_argument, 0, 'h' }, { "version", no_argument, 0, 'V' },
		{ "keys", optional_argument, 0, 'K' }, { "baseline", required_argument, 0, 'b' },
		{ "rules", required_argument, 0, 'R' }, { "no-default-rules", no_argument, 0, 'D' },
		{ "rules-off", required_argument, 0, 'O' }, { "rules-on", required_argument, 0, 'P' },
		{ "list", no_argument, 0, 'L' }, { "by", required_argument, 0, 'Y' },
		{ "heapshot", required_argument, 0, 'H' },
		{ "root", required_argument, 0, 'T' }, { "ignore", required_argument, 0, 'I' },
		{ "output", required_argument, 0, 'o' }, { "inspections", required_argument, 0, 'i' },
		{ "undirected", no_argument, 0, 'u' }, { "deep", no_argument, 0, 'p' },
		{ 0, 0, 0, 0 },
	};
	int ch;
	char *end;

	opterr = 0; /* our own one-line messages */
	while ((ch = getopt_long(argc, argv, ":e:f:s:rn:d:wqvhVb:o:", lo, NULL)) != -1) {
		switch (ch) {
		case 'e': c->expr = optarg; break;
		case 'b': c->baseline = optarg; break;
		case 'i': inspections_arg(c, optarg); break;
		case 'o': c->output = strcmp(optarg, "-") == 0 ? NULL : optarg; break; /* -: standard output */
		case 'f': set_format(c, optarg); break;
		case 's': c->vo.sort = optarg; break;
		case 'r': c->vo.reverse = 1; break;
		case 'F': c->vo.filter = optarg; break;
		case 'X': c->vo.exact = optarg; break;
		case 'A': c->vo.all = 1; break;
		case 'n': c->vo.top = (size_t)num_arg("--top", optarg, 0); c->top_set = 1; break;
		case 'd': c->vo.depth = (int)num_arg("--depth", optarg, 1); c->depth_set = 1; break;
		case 'C':
			c->vo.cutoff = strtod(optarg, &end);
			if (*optarg == '\0' || *end != '\0' || !(c->vo.cutoff >= 0 && c->vo.cutoff <= 100))
				usage_error("--cutoff needs a percentage from 0 to 100, not '%s'", optarg);
			c->cutoff_set = 1;
			break;
		case 'M': c->vo.max_paths = (int)num_arg("--max", optarg, 1); c->max_set = 1; break;
		case 'w': c->vo.weak = 1; break;
		case 'N': c->oo.no_cache = 1; break;
		case 'G': c->oo.verify_cache = 1; break;
		case 'U': c->oo.keep_unreachable = 1; break;
		case 'q': c->oo.quiet = 1; break;
		case 'v': c->oo.verbose = 1; break;
		case 'h': fputs(usage_text, stdout); exit(0);
		case 'V': puts("heapwalk " PACKAGE_VERSION); exit(0);
		case 'K': print_keys(optarg); exit(0);
		case 'R':
			if (c->nrule_files == 32)
				usage_error("more than 32 --rules files");
			c->rule_files[c->nrule_files++] = optarg;
			break;
		case 'D': c->no_default_rules = 1; break;
		case 'O':
		case 'P':
			if (c->nrule_groups == 32)
				usage_error("more than 32 --rules-off and --rules-on");
			c->rule_on[c->nrule_groups] = ch == 'P';
			c->rule_groups[c->nrule_groups++] = optarg;
			break;
		case 'L': c->insp_list = 1; break;
		case 'T':
		case 'I':
			if (c->nfocus == 32)
				usage_error("more than 32 --root and --ignore");
			c->focus_root[c->nfocus] = ch == 'T';
			c->focus[c->nfocus++] = optarg;
			break;
		case 'u': c->undirected = 1; break;
		case 'p': c->deep = 1; break;
		case 'H': c->oo.snapshot = (unsigned)num_arg("--heapshot", optarg, 1); break;
		case 'Y':
			if (strcmp(optarg, "class") != 0 && strcmp(optarg, "field") != 0)
				usage_error("--by takes class or field, not '%s'", optarg);
			c->by = optarg[0] == 'f' ? MG_BY_FIELD : MG_BY_CLASS;
			break;
		case ':': usage_error("option '%s' needs a value", argv[optind - 1]);
		default:
			if (optopt != 0)
				usage_error("unknown option '-%c'", optopt);
			usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
}

/* between FROM TO: two object ids; the path is its own command, no -e
 * (the step `path FROM TO` makes a set of it instead). */
static void between_args(int argc, char **argv, int *i, struct cli *c)
{
	uint64_t id;

	if (argc - *i < 2)
		usage_error("between needs two object ids: FROM TO");
	c->object = argv[(*i)++];
	c->to = argv[(*i)++];
	for (const char *const *s = (const char *const[]){ c->object, c->to, NULL }; *s; s++)
		if (parse_object_id(*s, &id) < 0)
			usage_error("between: '%s' is not an object id: 0x... hex or decimal", *s);
	if (c->expr != NULL)
		usage_error("between takes no -e: the step 'path FROM TO' makes a set of the path");
}

/* COMMAND DUMP [OBJECT] (or DUMP COMMAND [OBJECT]), or DUMP; then
 * whatever can be checked early. */
static void parse_args(int argc, char **argv, struct cli *c)
{
	c->vo.depth = 1;
	c->vo.cutoff = 0.5;
	c->vo.max_paths = 5;
	parse_options(argc, argv, c);
	int i = optind;
	if (i < argc && is_command(argv[i]))
		c->cmd = argv[i++];
	if (c->cmd != NULL && (strcmp(c->cmd, "mark") == 0 || strcmp(c->cmd, "snapshot") == 0)) {
		int snap = c->cmd[0] == 's';
		if (i >= argc)
			usage_error("%s needs the process id of a running JVM or .NET process", c->cmd);
		c->pid = argv[i++];
		if (snap && i >= argc)
			usage_error("snapshot needs a FILE to write the dump to");
		if (i < argc) /* mark PID FILE: a .NET mark's heap kept */
			c->file = argv[i++];
		if (i < argc)
			usage_error("unexpected argument '%s'", argv[i]);
		if (c->expr != NULL || c->baseline != NULL)
			usage_error("%s takes no -e or --baseline", c->cmd);
		return;
	}
	if (c->cmd != NULL && (strcmp(c->cmd, "rules") == 0 ||
			       (strcmp(c->cmd, "inspect") == 0 && c->insp_list))) {
		if (i < argc)
			usage_error("unexpected argument '%s'", argv[i]);
		if (c->fmt == FMT_DOT)
			usage_error("-f dot goes with graph, paths and merged-*, not %s", c->cmd);
		return;
	}
	if (c->insp_list)
		usage_error("--list goes with inspect: heapwalk inspect --list");
	if (c->cmd != NULL && strcmp(c->cmd, "diff") == 0) {
		if (argc - i != 2)
			usage_error("diff needs two dumps: OLD NEW");
		if (c->baseline != NULL)
			usage_error("diff takes OLD as its first argument, not --baseline");
		if (c->expr != NULL)
			usage_error("diff takes no -e");
		c->baseline = argv[i++];
		c->dump = argv[i++];
		return;
	}
	if (i < argc)
		c->dump = argv[i++];
	if (c->cmd == NULL && i < argc && is_command(argv[i])) /* DUMP COMMAND: fine too */
		c->cmd = argv[i++];
	if (c->cmd != NULL && (strcmp(c->cmd, "diff") == 0 || strcmp(c->cmd, "mark") == 0 ||
			       strcmp(c->cmd, "snapshot") == 0))
		usage_error("%s comes first: heapwalk diff OLD NEW, heapwalk mark PID, "
			    "heapwalk snapshot PID FILE", c->cmd);
	if (c->cmd != NULL && (strcmp(c->cmd, "paths") == 0 || strcmp(c->cmd, "lifelines") == 0 ||
			       strcmp(c->cmd, "graph") == 0) && i < argc)
		c->object = argv[i++];
	if (c->cmd != NULL && strcmp(c->cmd, "between") == 0)
		between_args(argc, argv, &i, c);
	if (c->cmd != NULL && strcmp(c->cmd, "inspect") == 0) {
		if (i >= argc)
			usage_error("inspect needs the NAME of an inspection (heapwalk inspect --list)");
		c->insp = argv[i++];
		const struct inspection *in = inspect_find(c->insp);
		if (in == NULL)
			usage_error("no inspection named '%s' (heapwalk inspect --list)", c->insp);
		if (i < argc)
			c->insp_arg = argv[i++];
		if (in->arg_required && c->insp_arg == NULL)
			usage_error("inspection %s needs an argument: %s", in->name, in->arg);
		if (in->arg == NULL && c->insp_arg != NULL)
			usage_error("inspection %s takes no argument", in->name);
	}
	if (i < argc)
		usage_error("unexpected argument '%s'", argv[i]);
	if (c->dump == NULL)
		usage_error("no dump given");
	if (c->object == NULL && c->cmd != NULL && (strcmp(c->cmd, "paths") == 0 || strcmp(c->cmd, "lifelines") == 0))
		usage_error("%s needs an OBJECT id", c->cmd);
	if (c->object != NULL && c->expr != NULL && c->to == NULL)
		usage_error("%s takes an OBJECT, not -e: end the expression with '| %s'", c->cmd, c->cmd);
	if (c->undirected && (c->cmd == NULL || strcmp(c->cmd, "between") != 0))
		usage_error("--undirected goes with between (in -e: path FROM TO undirected)");
	uint64_t id;
	if (c->object != NULL && parse_object_id(c->object, &id) < 0)
		usage_error("%s: '%s' is not an object id: 0x... hex or decimal", c->cmd, c->object);
	if (c->ninsps >= 0 && (c->cmd == NULL || strcmp(c->cmd, "report") != 0))
		usage_error("--inspections goes with report");
	if (c->cmd != NULL && strcmp(c->cmd, "report") == 0 && c->fmt_set)
		usage_error("report writes HTML: -f goes with the other commands");
	if (c->vo.sort != NULL && !view_sort_valid(c->vo.sort))
		usage_error("unknown sort key '%s': shallow, retained, instances or name", c->vo.sort);
}

/* -o naming an input of the run: a dump, the baseline, a rules file, by
 * any of its names (a link, /dev/stdout opened on it): refused before
 * anything is read, so that nothing is written over it. */
static void check_output(const struct cli *c)
{
	const char *out = c->output;

	if (out == NULL)
		return;
	if ((c->dump != NULL && file_names(out, c->dump)) || (c->baseline != NULL && file_names(out, c->baseline)))
		usage_error("-o %s: is a dump, which heapwalk never writes", esc_str(out));
	for (size_t i = 0; i < c->nrule_files; i++)
		if (file_names(out, c->rule_files[i]))
			usage_error("-o %s: is the rules file %s, which heapwalk never writes", esc_str(out),
				    esc_str(c->rule_files[i]));
}

/* The files write_file() must not write, NULL-terminated, in keep[]
 * (room for 35): the dumps and the rules files. */
static void inputs_of(const struct cli *c, const char **keep)
{
	size_t k = 0;

	if (c->dump != NULL)
		keep[k++] = c->dump;
	if (c->baseline != NULL)
		keep[k++] = c->baseline;
	for (size_t i = 0; i < c->nrule_files; i++)
		keep[k++] = c->rule_files[i];
	keep[k] = NULL;
}

/* Regexes of options are bad input (status 2), like those of -e. */
static int check_regexes(const struct cli *c)
{
	const char *opt[] = { "--filter", "--exact" }, *val[] = { c->vo.filter, c->vo.exact };
	struct sbuf err;

	for (int i = 0; i < 2; i++) {
		if (val[i] == NULL)
			continue;
		sbuf_init(&err);
		if (regex_check(val[i], &err) < 0) {
			fprintf(stderr, "heapwalk: %s: %s\n", opt[i], err.buf);
			sbuf_free(&err);
			return -1;
		}
		sbuf_free(&err);
	}
	return 0;
}

/* What a view needs of a cached heap beyond the summary tables; 0 when
 * it can answer from per-class totals over the whole heap. */
static unsigned parts_needed(const char *view, const struct cli *c, size_t nsteps)
{
	if (nsteps > 0)
		return HP_ALL;
	if (strcmp(view, "info") == 0 && c->deep)
		return HP_ALL;
	if (strcmp(view, "info") == 0 || (strcmp(view, "classes") == 0 && c->vo.exact == NULL))
		return 0;
	if (strcmp(view, "biggest") == 0 || strcmp(view, "objects") == 0)
		return HP_NODES | HP_DOM;
	if (strcmp(view, "paths") == 0) /* dot: the objects' retained sizes */
		return HP_NODES | HP_IN | (c->vo.weak ? HP_WEAK : 0) | (c->fmt == FMT_DOT ? HP_DOM : 0);
	if (strcmp(view, "lifelines") == 0) /* the rules' incidental references tell owners */
		return HP_NODES | HP_IN | HP_OUT | HP_WEAK;
	if (strcmp(view, "allocations") == 0 || strcmp(view, "times") == 0)
		return HP_NODES;
	return HP_ALL; /* report too */
}

/* merged-out, merged-in, merged-dom: the tree, -d levels deep. */
static int merged_view(struct heap *h, const char *view, struct objset *set, struct cli *c,
		       struct sbuf *out)
{
	enum merged_kind k = strcmp(view, "merged-out") == 0 ? MG_OUTGOING
			   : strcmp(view, "merged-in") == 0 ? MG_INCOMING : MG_DOMINATING;
	struct merged_tree t;
	node_t *m = objset_members(h, set);
	int rc = merged_tree(h, k, c->by, c->vo.reverse, m, (size_t)set->count, (unsigned)(c->depth_set ? c->vo.depth : 1),
			     c->top_set ? c->vo.top : 20, &t, c->vo.progress);

	free(m);
	if (rc < 0)
		return -1;
	report_merged(h, view, &t, c->fmt, out);
	merged_tree_free(&t);
	return 0;
}

/* The view over set, rendered into out; -1 with err set. */
static int run_view(struct heap *h, const char *view, struct objset *set, struct cli *c,
		    struct sbuf *out, struct sbuf *err)
{
	if (strcmp(view, "info") == 0) {
		struct info_view v;
		view_info(h, set, &v);
		if (c->deep && view_info_sizes(h, set, c->vo.weak, &v, c->vo.progress) < 0) {
			info_view_free(&v);
			sbuf_adds(err, "cancelled");
			return -1;
		}
		report_info(h, &v, c->fmt, out);
		info_view_free(&v);
	} else if (strcmp(view, "between") == 0) {
		struct between b;
		unsigned flags = (c->vo.weak ? REACH_WEAK : 0) | (c->undirected ? REACH_UNDIRECTED : 0);
		if (between_ids(h, c->object, c->to, flags, &b, c->vo.progress, err) < 0)
			return -1;
		report_between(h, &b, c->fmt, out);
		between_free(&b);
	} else if (strcmp(view, "classes") == 0) {
		struct class_view v;
		if (view_classes(h, set, &c->vo, &v, err) < 0)
			return -1;
		report_classes(h, &v, c->fmt, out);
		class_view_free(&v);
	} else if (strcmp(view, "biggest") == 0) {
		struct big_view v;
		c->vo.top = c->top_set ? c->vo.top : 20;
		view_biggest(h, set, &c->vo, &v);
		report_biggest(h, &v, c->fmt, out);
		big_view_free(&v);
	} else if (strcmp(view, "objects") == 0) {
		struct objects_view v;
		c->vo.top = c->top_set ? c->vo.top : 100;
		view_objects(h, set, &c->vo, &v);
		report_objects(h, &v, c->fmt, out);
		objects_view_free(&v);
	} else if (strcmp(view, "allocations") == 0) {
		struct alloc_view v;
		view_allocations(h, set, &v);
		report_allocations(h, &v, c->top_set ? c->vo.top : 20, c->depth_set ? c->vo.depth : 4,
				   c->vo.cutoff, c->fmt, out);
		alloc_view_free(&v);
	} else if (strcmp(view, "times") == 0) {
		struct time_view v;
		view_times(h, set, c->top_set && c->vo.top ? c->vo.top : 20, &v);
		report_times(h, &v, c->fmt, out);
		time_view_free(&v);
	} else if (strcmp(view, "graph") == 0) {
		int rc = graph_dot(h, set, (unsigned)c->vo.depth, c->max_set ? (size_t)c->vo.max_paths : 0,
				   c->vo.weak, out, err);
		if (rc < 0)
			return -1;
		if (rc > 0 && !c->oo.quiet)
			fprintf(stderr, "heapwalk: graph: cut at %d objects, more lie within depth %d "
				"(--max N draws more)\n", c->max_set ? c->vo.max_paths : GRAPH_MAX_NODES, c->vo.depth);
	} else if (strncmp(view, "merged-", 7) == 0) {
		if (merged_view(h, view, set, c, out) < 0) {
			sbuf_adds(err, "cancelled");
			return -1;
		}
	} else if (strcmp(view, "report") == 0) {
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
		if (report_html(h, set, &o, out, err) < 0)
			return -1;
	} else if (strcmp(view, "inspect") == 0) {
		const struct inspection *in = inspect_find(c->insp);
		struct insp_result r;
		if (inspect_run(h, in, c->insp_arg, set, &r, c->vo.progress, err) < 0)
			return -1;
		report_inspect(h, in, c->insp_arg, &r, set, c->top_set ? c->vo.top : 0, c->fmt, out);
		insp_result_free(&r);
	} else { /* paths, lifelines: of the one object of the set */
		if (set->count != 1) {
			sbuf_printf(err, "%s needs a set of one object, not %llu", view,
				    (unsigned long long)set->count);
			return -1;
		}
		node_t x = 1;
		while (!objset_has(set, x))
			x++;
		if (strcmp(view, "lifelines") == 0) {
			struct lifeline_view v;
			view_lifelines(h, x, c->max_set ? (uint64_t)c->vo.max_paths : 0, &v);
			report_lifelines(h, &v, c->fmt, out);
			lifeline_view_free(&v);
		} else {
			struct path_view v;
			view_paths(h, x, &c->vo, &v);
			report_paths(h, &v, c->fmt, out);
			path_view_free(&v);
		}
	}
	return 0;
}

/* --root and --ignore as steps, "root ID | ignore ID LABEL ...", into
 * *text (caller frees; NULL if none) and fpl; the status to exit with. */
static int parse_focus(const struct cli *c, struct pipeline *fpl, char **text)
{
	struct sbuf err, sb;
	int rc;

	*text = NULL;
	if (c->nfocus == 0)
		return 0;
	sbuf_init(&sb);
	for (size_t i = 0; i < c->nfocus; i++)
		sbuf_printf(&sb, "%s%s %s", i ? " | " : "", c->focus_root[i] ? "root" : "ignore", c->focus[i]);
	sbuf_init(&err);
	rc = pipeline_parse(sb.buf, fpl, &err);
	if (rc != 0 || fpl->view != NULL) {
		fprintf(stderr, "heapwalk: --root, --ignore: %s\n", rc != 0 ? err.buf : "not a view");
		rc = EXIT_USAGE;
	}
	sbuf_free(&err);
	*text = sbuf_detach(&sb);
	return rc;
}

/* Parse -e into pl; the status to exit with, 0 if fine. */
static int parse_expr(struct cli *c, struct pipeline *pl)
{
	struct sbuf err;
	int rc;

	if (c->expr == NULL)
		return 0;
	sbuf_init(&err);
	rc = pipeline_parse(c->expr, pl, &err);
	if (rc != 0)
		fprintf(stderr, "heapwalk: -e: %s\n", err.buf);
	sbuf_free(&err);
	if (rc != 0)
		return rc == STEP_EREGEX ? EXIT_INPUT : EXIT_USAGE;
	if (c->cmd != NULL && pl->view != NULL && strcmp(c->cmd, pl->view) != 0) {
		fprintf(stderr, "heapwalk: -e ends in the view '%s', the command says '%s'\n", pl->view, c->cmd);
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < pl->n && c->vo.weak; i++) /* --weak: the steps follow them too */
		if (pl->steps[i].op == ST_REFERRERS || pl->steps[i].op == ST_REFERENTS ||
		    pl->steps[i].op == ST_REACHABLE || pl->steps[i].op == ST_PATH)
			pl->steps[i].weak = 1;
	return 0;
}

/* mark PID, snapshot PID FILE: the agent's one line (a .NET process:
 * heapwalk's own, cli/dotnet_mark.h), or its error. The
 * process is told from /proc first: nothing else is signalled, attached
 * or spoken to. */
static int attach_command(const struct cli *c)
{
	struct sbuf res, err;
	struct proc_info p;
	int rc;

	sbuf_init(&res);
	sbuf_init(&err);
	if (proc_identify(c->pid, &p, &err) < 0)
		rc = -1;
	else if (p.kind == PROC_DOTNET && c->cmd[0] == 'm') /* its runtime reports the GC's moves */
		rc = dotnet_mark(&p, c->file, &res, &err);
	else if (p.kind == PROC_DOTNET) /* its runtime reports the heap itself */
		rc = dotnet_take(&p, c->file, &res, &err);
	else if (c->cmd[0] == 'm' && c->file != NULL) {
		sbuf_printf(&err, "mark PID FILE is for .NET processes (a JVM's mark is in its later snapshots)");
		rc = -1;
	} else if (c->file != NULL)
		rc = agent_snapshot(&p, c->file, &res, &err);
	else
		rc = agent_run(&p, "mark", &res, &err);
	if (rc < 0)
		fprintf(stderr, "heapwalk: %s\n", err.buf);
	else
		printf("%s\n", res.buf ? res.buf : "");
	sbuf_free(&res);
	sbuf_free(&err);
	return rc < 0 ? EXIT_INPUT : 0;
}

/* -f against the view: dot is for the views that are graphs, and the
 * graph is dot alone. The misuse, or NULL. */
static const char *format_misuse(const struct cli *c, const char *view)
{
	int graph = strcmp(view, "graph") == 0;

	if (c->fmt == FMT_DOT && !graph && strcmp(view, "paths") != 0 && strncmp(view, "merged-", 7) != 0)
		return "-f dot goes with graph, paths and merged-*";
	if (graph && c->fmt_set && c->fmt != FMT_DOT)
		return "-f text, json and csv go with the views that are tables";
	return NULL;
}

/* Does the pipeline (or the info view) speak of old and new objects? */
static int wants_baseline(const struct pipeline *pl, const char *view)
{
	for (size_t i = 0; i < pl->n; i++)
		if (pl->steps[i].op == ST_NEW || pl->steps[i].op == ST_OLD || pl->steps[i].op == ST_GONE)
			return 1;
	return strcmp(view, "info") == 0 || strcmp(view, "report") == 0 ? 2 : 0; /* 2: if there is one */
}

/* diff OLD NEW: class deltas, and the new and gone objects where the
 * dumps carry stable ids. */
static int diff_command(struct cli *c, struct heap *old, struct heap *h, struct progress *p,
			struct baseline *bl, struct sbuf *out)
{
	struct diff_view dv;
	struct sbuf why;

	sbuf_init(&why);
	if (baseline_compare(h, old, bl, p, &why) == 0)
		h->baseline = bl;
	else if (!c->oo.quiet)
		fprintf(stderr, "heapwalk: note: %s\n", why.buf);
	sbuf_free(&why);
	diff_classes(old, h, h->baseline, &dv);
	report_diff(old, h, &dv, c->fmt, out);
	diff_view_free(&dv);
	return 0;
}

/* The rules: jdk.rules unless --no-default-rules, the --rules files,
 * then the groups turned off or on. NULL with the message printed. */
static struct ruleset *load_rules(const struct cli *c, int *rc)
{
	struct ruleset *rs = rules_new();
	struct sbuf err;

	sbuf_init(&err);
	*rc = 0;
	if (!c->no_default_rules && rules_load_default(rs, &err) < 0)
		*rc = EXIT_INPUT;
	for (size_t i = 0; i < c->nrule_files && *rc == 0; i++)
		if (rules_load_file(rs, c->rule_files[i], &err) < 0)
			*rc = EXIT_INPUT;
	for (size_t i = 0; i < c->nrule_groups && *rc == 0; i++)
		if (rules_enable(rs, c->rule_groups[i], c->rule_on[i]) < 0) {
			sbuf_printf(&err, "--rules-%s: no rule group '%s' (heapwalk rules lists them)",
				    c->rule_on[i] ? "on" : "off", c->rule_groups[i]);
			*rc = EXIT_USAGE;
		}
	if (*rc != 0) {
		fprintf(stderr, "heapwalk: %s\n", err.buf);
		rules_free(rs);
		rs = NULL;
	}
	sbuf_free(&err);
	return rs;
}

/* heapwalk rules: the groups and their rules, as rules files say them. */
static void print_rules(const struct ruleset *rs)
{
	struct sbuf sb;

	sbuf_init(&sb);
	for (size_t g = 0; g < rs->ngroups; g++) {
		const struct rule_group *gr = &rs->groups[g];
		sbuf_printf(&sb, "group %s %s", gr->name, gr->enabled ? "on" : "off");
		if (*gr->description) {
			sbuf_adds(&sb, " \"");
			esc_append(&sb, (const uint8_t *)gr->description, strlen(gr->description), 1);
			sbuf_addc(&sb, '"');
		}
		sbuf_adds(&sb, "   # ");
		esc_append(&sb, (const uint8_t *)gr->file, strlen(gr->file), 0);
		sbuf_addc(&sb, '\n');
		for (size_t i = 0; i < rs->n; i++)
			if (rs->rules[i].group == g) {
				struct sbuf one;
				sbuf_init(&one);
				rule_to_string(rs, &rs->rules[i], &one);
				sbuf_adds(&sb, "  ");
				esc_append(&sb, (const uint8_t *)one.buf, one.len, 0);
				sbuf_printf(&sb, "   # line %u\n", rs->rules[i].line);
				sbuf_free(&one);
			}
	}
	fputs(sb.buf ? sb.buf : "", stdout);
	sbuf_free(&sb);
}

/* "heapwalk: FILE: what", the file name escaped (it may hold control
 * characters; the message's own parts are escaped where they are made). */
static void path_error(const char *path, const char *msg)
{
	char *ep = esc_str(path);

	fprintf(stderr, "heapwalk: %s: %s\n", ep, msg);
	free(ep);
}

/* ---- a dump that shrinks under a command ---- */
/* Reading a mapped page past the file's end raises SIGBUS: one line
 * naming the file (made when it was mapped), and the status of bad
 * input. The browser, once its screen is up, contains it instead. */
static void on_bus(int sig, siginfo_t *si, void *ctx)
{
	(void)sig;
	(void)ctx;
	map_fault_exit(si->si_addr, EXIT_INPUT);
}

static void catch_bus(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_bus;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGBUS, &sa, NULL);
}

/* The baseline is the last heapshot of its file unless it says FILE:N;
 * --heapshot is the dump's. */
static int open_dump(struct heap *h, const char *path, struct cli *c, struct progress *p, int baseline)
{
	struct open_opts oo = c->oo;
	struct sbuf err;

	if (baseline)
		oo.snapshot = 0;
	sbuf_init(&err);
	if (heap_open(h, path, &oo, p, &err) < 0) {
		fprintf(stderr, "heapwalk: %s\n", err.buf);
		sbuf_free(&err);
		return -1;
	}
	sbuf_free(&err);
	return 0;
}

int main(int argc, char **argv)
{
	struct cli c = { .ninsps = -1 };
	struct heap h, old;
	struct progress p;
	struct pipeline pl = { 0 }, fpl = { 0 };
	char *focus = NULL;
	struct sbuf err, out;
	struct objset set = { 0 };
	struct baseline bl = { 0 };
	int rc, have_old = 0;

	parse_args(argc, argv, &c);
	if (c.output != NULL && (c.pid != NULL || c.insp_list || (c.cmd != NULL && strcmp(c.cmd, "rules") == 0) ||
				 (c.cmd == NULL && c.expr == NULL)))
		usage_error("-o goes with the commands that report on a dump, not %s",
			    c.pid ? c.cmd : c.insp_list ? "inspect --list" : c.cmd ? c.cmd : "the browser");
	check_output(&c);
	if (c.pid != NULL)
		return attach_command(&c);
	if (c.insp_list) {
		sbuf_init(&out);
		report_inspect_list(c.fmt, &out);
		fwrite(out.buf, 1, out.len, stdout);
		sbuf_free(&out);
		return 0;
	}
	struct ruleset *rs = load_rules(&c, &rc);
	if (rs == NULL)
		return rc;
	if (c.cmd != NULL && strcmp(c.cmd, "rules") == 0) {
		print_rules(rs);
		rules_free(rs);
		return 0;
	}
	c.oo.rules = rs;
	rc = parse_focus(&c, &fpl, &focus);
	if (rc == 0)
		rc = parse_expr(&c, &pl);
	if (rc == 0 && check_regexes(&c) < 0)
		rc = EXIT_INPUT;
	if (rc != 0) {
		pipeline_free(&pl);
		pipeline_free(&fpl);
		free(focus);
		rules_free(rs);
		return rc;
	}
	if (c.cmd == NULL && c.expr == NULL) {
		pipeline_free(&pl);
		pipeline_free(&fpl);
		catch_bus(); /* while it opens the dumps */
		rc = tui_main(c.dump, c.baseline, &c.oo, focus);
		free(focus);
		rules_free(rs);
		return rc;
	}
	const char *view = c.cmd ? c.cmd : pl.view ? pl.view : "classes";
	const char *misuse = c.deep && strcmp(view, "info") != 0 ? "--deep goes with info"
			     : c.vo.reverse && (strcmp(view, "merged-out") == 0 || strcmp(view, "merged-in") == 0)
			     ? "--reverse goes with classes and merged-dom" : format_misuse(&c, view);
	for (size_t i = 1; i < pl.n && misuse == NULL; i++)
		if (pl.steps[i].op == ST_GONE)
			misuse = "-e: 'gone' can only be the first step";
	if (misuse != NULL) {
		if (misuse[0] == '-' && misuse[1] == 'e')
			fprintf(stderr, "heapwalk: %s\n", misuse);
		else
			fprintf(stderr, "heapwalk: %s, not %s (see heapwalk --help)\n", misuse, view);
		pipeline_free(&pl);
		pipeline_free(&fpl);
		free(focus);
		rules_free(rs);
		return EXIT_USAGE;
	}
	if (strcmp(view, "graph") == 0)
		c.fmt = FMT_DOT;
	if (c.object != NULL && c.to == NULL) { /* paths DUMP OBJECT is "object OBJECT | paths" (lifelines, graph too) */
		pl.steps = xmalloc(sizeof *pl.steps);
		pl.steps[0] = (struct step){ .op = ST_OBJECT, .arg = xstrdup(c.object) };
		pl.n = 1;
	}
	sbuf_init(&err);
	sbuf_init(&out);
	progress_init(&p, c.oo.quiet);
	c.vo.progress = &p;
	catch_bus();
	if (c.baseline != NULL) {
		if (open_dump(&old, c.baseline, &c, &p, 1) < 0) {
			rc = EXIT_INPUT;
			goto done;
		}
		have_old = 1;
	}
	if (open_dump(&h, c.dump, &c, &p, 0) < 0) {
		rc = EXIT_INPUT;
		goto done;
	}
	if (strcmp(view, "diff") == 0) {
		rc = diff_command(&c, &old, &h, &p, &bl, &out);
		goto print;
	}
	int want = wants_baseline(&pl, view);
	if (have_old) {
		if (baseline_compare(&h, &old, &bl, &p, &err) < 0) {
			fprintf(stderr, "heapwalk: %s\n", err.buf);
			rc = EXIT_INPUT;
			goto print;
		}
		h.baseline = &bl;
	} else if (want == 1 || (want == 2 && baseline_has_mark(&h))) {
		if (baseline_from_mark(&h, &bl, &err) == 0) {
			h.baseline = &bl;
		} else if (want == 2) { /* info, report: the dump all the same (a .NET mark file damaged) */
			if (!c.oo.quiet)
				fprintf(stderr, "heapwalk: note: %s\n", err.buf);
			sbuf_reset(&err);
		} else {
			path_error(c.dump, err.buf);
			rc = EXIT_INPUT;
			goto print;
		}
	}
	/* gone: the rest of the pipeline runs on the baseline's side */
	struct heap *cur = &h;
	size_t first = 0;
	if (pl.n > 0 && pl.steps[0].op == ST_GONE) {
		if (!baseline_has_old(&bl)) {
			fprintf(stderr, "heapwalk: -e: 'gone' needs --baseline OLD\n");
			rc = EXIT_INPUT;
			goto print;
		}
		cur = &old;
		first = 1;
	}
	cur->identity = first == 1 ? &bl : h.baseline; /* reports say what new, old, gone rest on */
	unsigned parts = parts_needed(view, &c, c.object ? 0 : pl.n + fpl.n);
	if (parts != 0)
		heap_need(cur, parts, &p);
	if (fpl.n > 0) { /* the focus is the open dump's; its set is the start */
		heap_need(&h, HP_ALL, &p);
		objset_all(&h, &set);
		for (size_t i = 0; i < fpl.n && rc == 0; i++)
			if (step_apply(&h, &fpl.steps[i], &set, &p, &err) < 0)
				rc = EXIT_INPUT;
		if (rc != 0) {
			path_error(h.path, err.buf);
			goto print;
		}
	}
	if (first == 1) {
		objset_free(&set);
		objset_empty(cur, &set);
		memcpy(set.bits, bl.gone.bits, bits_words(cur->n) * sizeof *set.bits);
		objset_recount(cur, &set);
	} else if (fpl.n > 0) {
		/* the set the focus left */
	} else if (parts == 0) {
		objset_whole(cur, &set);
	} else {
		objset_all(cur, &set);
	}
	for (size_t i = first; i < pl.n && rc == 0; i++)
		if (step_apply(cur, &pl.steps[i], &set, &p, &err) < 0)
			rc = EXIT_INPUT;
	if (rc == 0 && run_view(cur, view, &set, &c, &out, &err) < 0)
		rc = EXIT_INPUT;
	if (rc != 0)
		path_error(cur->path, err.buf);
print:
	if (rc == 0 && c.output != NULL) {
		const char *keep[35];
		inputs_of(&c, keep);
		sbuf_reset(&err);
		if (write_file(c.output, out.buf, out.len, keep, 0, &err) < 0) {
			path_error(c.output, err.buf);
			rc = EXIT_INPUT;
		}
	} else if (rc == 0 && (fwrite(out.buf, 1, out.len, stdout) != out.len || fflush(stdout) != 0)) {
		fprintf(stderr, "heapwalk: standard output: write error\n");
		rc = EXIT_INPUT;
	}
	objset_free(&set);
	baseline_free(&bl);
	heap_free(&h);
done:
	if (have_old)
		heap_free(&old);
	pipeline_free(&pl);
	pipeline_free(&fpl);
	free(focus);
	sbuf_free(&err);
	sbuf_free(&out);
	rules_free(rs);
	return rc;
}
