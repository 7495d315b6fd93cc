/* main.c — the command line: options, commands, selection steps, one
 * view rendered to stdout. Everything is checked that can be before the
 * dump is opened: a typo must not cost the parse of a 30 GB dump. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/attach.h"
#include "cli/dotnet.h"
#include "cli/dotnet_mark.h"
#include "cli/hsattach.h"
#include "cli/hsdump.h"
#include "cli/mcp.h"
#include "cli/pidsnap.h"
#include "cli/node.h"
#include "cli/proc.h"
#include "cli/run.h"
#include "config.h"
#include "engine/open.h"
#include "graph/rules.h"
#include "query/classcols.h"
#include "query/check.h"
#include "query/cmd.h"
#include "query/leaks.h"
#include "query/inspect.h"
#include "query/merged.h"
#include "query/baseline.h"
#include "query/report.h"
#include "tui/keys.h"
#include "tui/tui.h"
#include "query/step.h"
#include "query/views.h"

enum { EXIT_USAGE = 1, EXIT_INPUT = 2 };

static const char usage_head[] =
"usage: heapwalk [options] COMMAND DUMP [OBJECT]\n"
"       heapwalk [options] between DUMP FROM TO\n"
"       heapwalk [options] DUMP -e 'STEP | STEP ... [| VIEW]'\n"
"       heapwalk [--no-cache] [--baseline OLD] DUMP   the full-screen browser\n"
"                                    (keys: --keys, or ?)\n"
"       heapwalk [options] diff OLD NEW\n"
"       heapwalk [options] leaks BASE TARGET FINAL | leaks S1 S2 S3 S4...\n"
"       heapwalk [-b OLD [--target TARGET]] [--junit FILE] check DUMP --rules GATES\n"
"       heapwalk [options] inspect DUMP NAME [ARG] | inspect --list\n"
"       heapwalk [rule options] rules      the rule groups and rules in effect\n"
"       heapwalk mark PID [FILE] | snapshot [--plain] [--gz[=LEVEL]] PID FILE\n"
"       heapwalk mcp [--no-cache] [--rules FILE] [DIR...]   a Model Context\n"
"                                    Protocol server on standard input and\n"
"                                    output: the commands as tools for coding\n"
"                                    agents, on dumps under DIR (default .)\n"
"                                    (see MCP in heapwalk(1))\n"
"       heapwalk [-q] [-o FILE | -e EXPR] [-b OLD] PID   a snapshot of the\n"
"                                    running JVM, .NET or Node process PID (a\n"
"                                    file of that name wins: ./1234; after a\n"
"                                    command, a number is a file), into the\n"
"                                    cache (or -o FILE), the one before its\n"
"                                    baseline; the browser on it (see LIVE\n"
"                                    PROCESSES)\n"
"\n";

/* after the commands, which cmd_table lists */
static const char usage_tail[] =
"\n"
"steps (-e), separated by '|', each applied to the set (at first every object):\n"
"  all                       every object\n"
"  instances NAME|/REGEX/    instances of class NAME (java.util.HashMap, byte[])\n"
"                            or of the classes whose name matches REGEX (PCRE2);\n"
"                            a NAME with blanks or '|' in quotes: 'Foo [app.dll]'\n"
"  instanceof NAME|/REGEX/   the same, instances of subclasses included (HPROF:\n"
"                            the other formats name no superclass)\n"
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
"  live                      members the GC roots reach (Eclipse MAT's histogram)\n"
"  generation NAME           members in one GC generation (.NET: gen0, gen1,\n"
"                            gen2, loh, poh, nongc)\n"
"  object ID[,ID...]         the objects with those ids (0x... hex or decimal,\n"
"                            @ before it or not)\n"
"  new | old                 objects that did not exist / existed at the baseline\n"
"                            (--baseline OLD, or the agent's mark in the dump,\n"
"                            or a .NET snapshot's mark file, DUMP.hwmark)\n"
"  unidentified              objects the baseline calls neither new nor old\n"
"                            (ambiguous to the matcher, or ids that do not\n"
"                            identify them: V8's natives and code)\n"
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
"                       last complete one, or the first when none is; info lists\n"
"                       them)\n"
"      --plain          snapshot of a JVM: HotSpot's own HPROF dump (its dumpheap),\n"
"                       not the agent's (no stable ids, no mark)\n"
"      --gz[=LEVEL]     snapshot of a JVM: HotSpot's dump in gzip, LEVEL 1 to 9\n"
"                       (default 1); implies --plain\n"
"  -f, --format FMT     text (default), json or csv; dot (GraphViz) for the\n"
"                       graphs: graph (its only format), paths, merged-*\n"
"  -o, --output FILE    write the output to FILE (whole, or not at all), not to\n"
"                       standard output; /dev/stdout, /dev/fd/N: to that\n"
"                       descriptor as it is open (>> appends); never an input\n"
"                       or a dump's cache or mark file (DUMP.hwi, DUMP.hwmark);\n"
"                       heapwalk PID (no -e): the snapshot's file, not the cache\n"
"      --target TARGET  with -b BASE, report or the browser: the dump after the\n"
"                       action, BASE before it, DUMP after it was undone: the\n"
"                       leaks section, the browser's Leaks view\n"
"  -s, --sort KEY       classes: shallow (default), retained, instances or name\n"
"  -r, --reverse        classes: the other way round; merged-dom: GC roots to\n"
"                       objects, from the top of the dominator tree down\n"
"      --by class|field merged-*: group by class (default) or by class and field\n"
"      --filter REGEX   classes: only classes whose name matches\n"
"      --exact REGEX    classes: also the exact retained size of matching classes\n"
"      --all            classes: also classes without instances in the set\n"
"  -n, --top N          rows at the top level; 0 = all (default: classes all,\n"
"                       biggest 20, objects 100, allocations 20 of each tree,\n"
"                       diff all classes, those that grew most first,\n"
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
"      --strong         merged-in: strong references only; by default the weak\n"
"                       and soft holders are shown too, each group marked weak,\n"
"                       and the holders an owns rule makes no owners, marked\n"
"                       not owning\n"
"      --undirected     between: references lead either way\n"
"      --deep           info: also the set's exact retained size and its deep\n"
"                       size (everything it reaches; a pass over the heap each)\n"
"      --root ID        the step root ID before the others (also in the browser)\n"
"      --ignore 'ID LABEL'  the step ignore ID LABEL first; repeatable\n"
"      --rules FILE     also apply the reference-classifier rules in FILE\n"
"                       (heapwalk-rules(5)); repeatable\n"
"                       (check: files of gates instead, see heapwalk(1) GATES)\n"
"      --junit FILE     check: also the results as JUnit XML\n"
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
"exit status: 0 ok, 1 usage error (an id that is no number too), 2 bad input\n"
"(unreadable dump, an id not in it, a bad regex; a dump too big to open here; a\n"
"process mark or snapshot refuses), 3 out of memory\n"
"(the line says how much); check: 0 every rule holds, 1 one fails, 2 an error\n";

struct cli {
	const struct cmd_entry *cmd; /* NULL: the browser, or the view -e ends with */
	const char *dump;
	const char *baseline;   /* --baseline OLD, or diff's OLD */
	const char *series[16]; /* leaks BASE TARGET FINAL, or a series */
	const char *target;     /* report --target TARGET: its leaks section */
	const char *junit;      /* check --junit FILE */
	size_t nseries;
	const char *pid, *file; /* mark, snapshot */
	int plain, gz;          /* snapshot --plain, --gz[=LEVEL] (0: none) */
	int fmt_set;            /* -f was given */
	int by_set;             /* --by was given */
	struct cmd_opts o;      /* what the command reads of the options */
	struct open_opts oo;
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
	const char *output;          /* -o FILE: the output there, not on stdout */
	int live;                    /* heapwalk PID: dump is a process id; -o its snapshot's file */
};

/* A usage error: one line, status 1. */
/* check's errors are all 2 (1: a rule failed); everything else's usage
 * errors 1 */
static int usage_status = EXIT_USAGE;

static _Noreturn __attribute__((format(printf, 1, 2))) void usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("heapwalk: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" (see heapwalk --help)\n", stderr);
	exit(usage_status);
}

static long num_arg(const char *opt, const char *s, long min)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s < '0' || *s > '9' || *end != '\0' || v < min || v > 1000000000)
		usage_error("%s needs a number from %ld to 1000000000, not '%s'", opt, min, s);
	return v;
}

static void set_format(struct cli *c, const char *s)
{
	if (strcmp(s, "text") == 0)
		c->o.fmt = FMT_TEXT;
	else if (strcmp(s, "json") == 0)
		c->o.fmt = FMT_JSON;
	else if (strcmp(s, "csv") == 0)
		c->o.fmt = FMT_CSV;
	else if (strcmp(s, "dot") == 0)
		c->o.fmt = FMT_DOT;
	else
		usage_error("unknown format '%s': text, json, csv or dot", s);
	c->fmt_set = 1;
}

/* DUMP: the formats' table in words (engine/formats.c), wrapped at 79
 * columns as the rest of --help. */
static void dump_help(struct sbuf *out)
{
	struct sbuf w;
	size_t col = 0;

	sbuf_init(&w);
	sbuf_adds(&w, "DUMP: ");
	formats_say(&w);
	sbuf_adds(&w, "; told apart by content: see FORMATS in heapwalk(1)");
	for (const char *p = w.buf; *p != '\0';) {
		size_t word = strcspn(p, " "), gap = p[word] == ' ';
		if (col > 0 && col + 1 + word > 79) {
			sbuf_addc(out, '\n');
			col = 0;
		} else if (col > 0) {
			sbuf_addc(out, ' ');
			col++;
		}
		sbuf_add(out, p, word);
		col += word;
		p += word + gap;
	}
	sbuf_addc(out, '\n');
	sbuf_free(&w);
}

/* --help: the commands' lines are their rows'. */
static void print_usage(void)
{
	struct sbuf sb;

	sbuf_init(&sb);
	sbuf_adds(&sb, usage_head);
	dump_help(&sb);
	sbuf_adds(&sb, "\ncommands:\n");
	cmd_help(&sb);
	sbuf_adds(&sb, usage_tail);
	fputs(sb.buf, stdout);
	sbuf_free(&sb);
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

	c->o.ninsps = 0;
	if (strcmp(list, "all") == 0) {
		for (size_t i = 0; i < n && c->o.ninsps < 64; i++)
			if (!all[i].arg_required)
				c->o.insps[c->o.ninsps++] = all[i].name;
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
		if (c->o.ninsps == 64)
			usage_error("--inspections: more than 64");
		c->o.insps[c->o.ninsps++] = in->name;
	}
}

/* A regex option's argument, refused where it is the next option
 * instead ('--exact -n 10' took -n for the regex, then said only that 10
 * was unexpected): one that begins with '-' is given as --NAME=REGEX. */
static char *regex_arg(const char *name, char *arg, char **argv, int optind_now)
{
	if (arg[0] == '-' && arg[1] != '\0' && optind_now > 0 && argv[optind_now - 1] == arg)
		usage_error("--%s takes a regex, not the option '%s' (--%s=REGEX for one that begins with '-')", name,
			    arg, name);
	return arg;
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
		{ "strong", no_argument, 0, 'S' }, { "target", required_argument, 0, 'g' },
		{ "junit", required_argument, 0, 'J' },
		{ "plain", no_argument, 0, 'j' }, { "gz", optional_argument, 0, 'z' },
		{ 0, 0, 0, 0 },
	};
	int ch;
	char *end;

	opterr = 0; /* our own one-line messages */
	while ((ch = getopt_long(argc, argv, ":e:f:s:rn:d:wqvhVb:o:", lo, NULL)) != -1) {
		switch (ch) {
		case 'e': c->o.expr = optarg; break;
		case 'g': c->target = optarg; break;
		case 'J': c->junit = optarg; break;
		case 'b': c->baseline = optarg; break;
		case 'i': inspections_arg(c, optarg); break;
		case 'o': c->output = strcmp(optarg, "-") == 0 ? NULL : optarg; break; /* -: standard output */
		case 'f': set_format(c, optarg); break;
		case 's': c->o.vo.sort = optarg; break;
		case 'r': c->o.vo.reverse = 1; break;
		case 'F': c->o.vo.filter = regex_arg("filter", optarg, argv, optind); break;
		case 'X': c->o.vo.exact = regex_arg("exact", optarg, argv, optind); break;
		case 'A': c->o.vo.all = 1; break;
		case 'n': c->o.vo.top = (size_t)num_arg("--top", optarg, 0); c->o.top_set = 1; break;
		case 'd': c->o.vo.depth = (int)num_arg("--depth", optarg, 1); c->o.depth_set = 1; break;
		case 'C':
			c->o.vo.cutoff = strtod(optarg, &end);
			if (*optarg == '\0' || *end != '\0' || !(c->o.vo.cutoff >= 0 && c->o.vo.cutoff <= 100))
				usage_error("--cutoff needs a percentage from 0 to 100, not '%s'", optarg);
			c->o.cutoff_set = 1;
			break;
		case 'M': c->o.vo.max_paths = (int)num_arg("--max", optarg, 1); c->o.max_set = 1; break;
		case 'w': c->o.vo.weak = 1; break;
		case 'N': c->oo.no_cache = 1; break;
		case 'G': c->oo.verify_cache = 1; break;
		case 'U': c->oo.keep_unreachable = 1; break;
		case 'q': c->oo.quiet = 1; break;
		case 'v': c->oo.verbose = 1; break;
		case 'h': print_usage(); exit(0);
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
		case 'u': c->o.undirected = 1; break;
		case 'S': c->o.strong = 1; break;
		case 'p': c->o.deep = 1; break;
		case 'H': c->oo.snapshot = (unsigned)num_arg("--heapshot", optarg, 1); break;
		case 'j': c->plain = 1; break;
		case 'z':
			c->gz = optarg ? (int)num_arg("--gz", optarg, 1) : 1;
			if (c->gz > 9)
				usage_error("--gz takes a level from 1 to 9, not '%s'", optarg);
			break;
		case 'Y':
			if (strcmp(optarg, "class") != 0 && strcmp(optarg, "field") != 0)
				usage_error("--by takes class or field, not '%s'", optarg);
			c->o.by = optarg[0] == 'f' ? MG_BY_FIELD : MG_BY_CLASS;
			c->by_set = 1;
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
	c->o.object = argv[(*i)++];
	c->o.to = argv[(*i)++];
	for (const char *const *s = (const char *const[]){ c->o.object, c->o.to, NULL }; *s; s++)
		if (parse_object_id(*s, &id) < 0)
			usage_error("between: '%s' is not an object id: 0x... hex or decimal, @ before it or not", *s);
	if (c->o.expr != NULL)
		usage_error("between takes no -e: the step 'path FROM TO' makes a set of the path");
}

/* inspect NAME [ARG]: an inspection, and its argument where it takes one */
static void inspect_args(int argc, char **argv, int *i, struct cli *c)
{
	if (*i >= argc)
		usage_error("inspect needs the NAME of an inspection (heapwalk inspect --list)");
	c->o.insp = argv[(*i)++];
	const struct inspection *in = inspect_find(c->o.insp);
	if (in == NULL)
		usage_error("no inspection named '%s' (heapwalk inspect --list)", c->o.insp);
	if (*i < argc)
		c->o.insp_arg = argv[(*i)++];
	if (in->arg_required && c->o.insp_arg == NULL)
		usage_error("inspection %s needs an argument: %s", in->name, in->arg);
	if (in->arg == NULL && c->o.insp_arg != NULL)
		usage_error("inspection %s takes no argument", in->name);
}

/* mark PID [FILE], snapshot PID FILE: a process, no dump. */
static void process_args(int argc, char **argv, int i, struct cli *c)
{
	const struct cmd_entry *e = c->cmd;

	if (i >= argc)
		usage_error("%s needs the process id of a running JVM, .NET or Node process", e->name);
	c->pid = argv[i++];
	if (e->arg == CMD_ARG_PID_FILE && i >= argc)
		usage_error("%s needs a FILE to write the dump to", e->name);
	if (i < argc) /* mark PID FILE: a .NET mark's heap kept */
		c->file = argv[i++];
	if (i < argc)
		usage_error("unexpected argument '%s'", argv[i]);
	if (c->o.expr != NULL || c->baseline != NULL)
		usage_error("%s takes no -e or --baseline", e->name);
	if ((c->plain || c->gz) && e->arg != CMD_ARG_PID_FILE)
		usage_error("--plain and --gz are options of snapshot");
}

static void check_command_options(const struct cli *c);

/* diff OLD NEW: the baseline is its first argument. */
static void dumps_args(int argc, char **argv, int i, struct cli *c)
{
	const char *name = c->cmd->name;

	if (argc - i != 2)
		usage_error("%s needs two dumps: OLD NEW", name);
	if (c->baseline != NULL)
		usage_error("%s takes OLD as its first argument, not --baseline", name);
	if (c->o.expr != NULL)
		usage_error("%s takes no -e", name);
	c->baseline = argv[i++];
	c->dump = argv[i++];
	check_command_options(c);
}

static void series_args(int argc, char **argv, int i, struct cli *c)
{
	if (argc - i < 3 || argc - i > 16)
		usage_error("leaks needs three dumps, BASE TARGET FINAL, or a series of four to 16, the earliest first");
	if (c->baseline != NULL)
		usage_error("leaks takes BASE as its first argument, not --baseline");
	if (c->o.expr != NULL || c->nfocus > 0)
		usage_error("leaks takes no -e, --root or --ignore");
	if (c->oo.snapshot != 0)
		usage_error("leaks takes no --heapshot: name each heapshot FILE:N");
	for (; i < argc; i++)
		c->series[c->nseries++] = argv[i];
	c->dump = c->series[c->nseries - 1];
	check_command_options(c);
}

/* check measures its rules and shows no view, and diff's rows are every
 * class: the views' options mean nothing to them, and are refused rather
 * than ignored (diff took --filter and showed every class). */
static void check_view_options(const struct cli *c, const char *name, const char *why)
{
	/* its -n, and how the dumps are read, are its own */
	int diff = strcmp(name, "diff") == 0 || strcmp(name, "leaks") == 0;
	const struct { int set; const char *name; } opt[] = {
		{ c->o.vo.sort != NULL, "--sort" }, { c->o.vo.reverse, "--reverse" },
		{ c->o.vo.filter != NULL, "--filter" }, { c->o.vo.exact != NULL, "--exact" },
		{ c->o.vo.all, "--all" }, { c->o.top_set && !diff, "--top" }, { c->o.depth_set, "--depth" },
		{ c->o.cutoff_set, "--cutoff" }, { c->o.max_set, "--max" }, { c->o.vo.weak, "--weak" },
		{ c->by_set, "--by" }, { c->o.deep, "--deep" }, { c->plain && !diff, "--plain" },
		{ c->gz != 0 && !diff, "--gz" }, /* diff's: check_command_options's words */
	};

	for (size_t i = 0; i < sizeof opt / sizeof opt[0]; i++)
		if (opt[i].set)
			usage_error("%s takes no %s: %s", name, opt[i].name, why);
}

static const char *view_option_misuse(const struct cli *c, unsigned flags)
{
	return cmd_view_option_misuse(&c->o, c->by_set, c->o.expr != NULL, flags);
}

/* The options that go with some commands alone, against the command. */
static void check_command_options(const struct cli *c)
{
	const struct cmd_entry *e = c->cmd;
	unsigned flags = e != NULL ? e->flags : 0;
	uint64_t id;

	if (c->o.object == NULL && e != NULL && e->arg == CMD_ARG_OBJECT_REQ)
		usage_error("%s needs an OBJECT id", e->name);
	if (c->o.object != NULL && c->o.expr != NULL && c->o.to == NULL)
		usage_error("%s takes an OBJECT, not -e: end the expression with '| %s'", e->name, e->name);
	if (c->o.undirected && !(flags & CMD_O_UNDIRECTED))
		usage_error("--undirected goes with between (in -e: path FROM TO undirected)");
	if (c->o.object != NULL && parse_object_id(c->o.object, &id) < 0)
		usage_error("%s: '%s' is not an object id: 0x... hex or decimal, @ before it or not", e->name, c->o.object);
	if (c->junit != NULL && e != cmd_find("check"))
		usage_error("--junit goes with check");
	if (e == cmd_find("check") && (c->nrule_files == 0 || c->o.expr != NULL || c->nfocus > 0))
		usage_error("check needs --rules FILE (its gates) and takes no -e, --root or --ignore");
	if (c->target != NULL && e == cmd_find("check") && c->baseline == NULL)
		usage_error("check --target needs --baseline BASE (leaks BASE TARGET DUMP)");
	if (c->target != NULL && e != cmd_find("check") &&
	    (c->baseline == NULL || (e != NULL && e != cmd_find("report")) || (e == NULL && c->o.expr != NULL)))
		usage_error("--target goes with --baseline, for report or the browser: heapwalk [report] -b BASE "
			    "--target TARGET FINAL");
	if (c->o.ninsps >= 0 && !(flags & CMD_O_INSPECTIONS))
		usage_error("--inspections goes with report");
	if (c->o.strong && (e != NULL || c->o.expr == NULL) && !(flags & CMD_O_STRONG)) /* -e's view: below */
		usage_error("--strong goes with merged-in");
	if (e != NULL && (e->formats & CMD_HTML) && c->fmt_set)
		usage_error("%s writes HTML: -f goes with the other commands", e->name);
	if (e == cmd_find("check"))
		check_view_options(c, "check", "its rules say what is measured");
	if (e == cmd_find("diff"))
		check_view_options(c, "diff", "its rows are every class, the largest growth first (-n N: the first N)");
	if (e == cmd_find("leaks"))
		check_view_options(c, "leaks", "its rows are the clusters of what leaked, biggest first (-n N: the first N)");
	/* how a JVM is dumped: nothing to any other command, nor to a dump
	 * given or a live snapshot (its dumper is heapwalk's own) */
	if (c->plain || c->gz)
		usage_error("--plain and --gz are options of snapshot: heapwalk snapshot --plain PID FILE");
	if (c->o.vo.sort != NULL && !view_sort_valid(c->o.vo.sort))
		usage_error("unknown sort key '%s': %s", c->o.vo.sort, classcols_sort_list(0));
	if (e != NULL && (e->arg == CMD_ARG_SERIES || e == cmd_find("check"))) { /* the command line runs them */
		const char *misuse = cmd_format_misuse(e, c->o.fmt, c->fmt_set);
		if (misuse != NULL)
			usage_error("%s, not %s", misuse, e->name);
		if (c->o.vo.sort != NULL || c->o.vo.weak || c->o.vo.filter != NULL || c->o.vo.exact != NULL)
			usage_error("%s takes no --sort, --weak, --filter or --exact", e->name);
	}
}

/* COMMAND DUMP [OBJECT] (or DUMP COMMAND [OBJECT]), or DUMP; then
 * whatever can be checked early. What follows a command is its row's. */
static void parse_args(int argc, char **argv, struct cli *c)
{
	const struct cmd_entry *e;

	c->o.vo.depth = 1;
	c->o.vo.cutoff = 0.5;
	c->o.vo.max_paths = 5;
	parse_options(argc, argv, c);
	int i = optind;
	if (i < argc && (c->cmd = cmd_find(argv[i])) != NULL)
		i++;
	e = c->cmd;
	if (e != NULL && (e->arg == CMD_ARG_PID || e->arg == CMD_ARG_PID_FILE)) {
		/* before any process is looked at: they write text alone */
		const char *misuse = cmd_format_misuse(e, c->o.fmt, c->fmt_set);
		if (misuse != NULL)
			usage_error("%s, not %s", misuse, e->name);
		process_args(argc, argv, i, c);
		return;
	}
	if (e != NULL && (e->arg == CMD_ARG_NOTHING || (e->arg == CMD_ARG_NAME && c->insp_list))) {
		if (i < argc)
			usage_error("unexpected argument '%s'", argv[i]);
		const char *misuse = cmd_format_misuse(e, c->o.fmt, c->fmt_set);
		if (misuse != NULL)
			usage_error("%s, not %s", misuse, e->name);
		return;
	}
	if (c->insp_list)
		usage_error("--list goes with inspect: heapwalk inspect --list");
	if (e != NULL && e->arg == CMD_ARG_DUMPS) {
		dumps_args(argc, argv, i, c);
		return;
	}
	if (e != NULL && e->arg == CMD_ARG_SERIES) {
		series_args(argc, argv, i, c);
		return;
	}
	if (i < argc)
		c->dump = argv[i++];
	if (e == NULL && i < argc && (c->cmd = cmd_find(argv[i])) != NULL) /* DUMP COMMAND: fine too */
		i++;
	e = c->cmd;
	if (e != NULL && (e->arg == CMD_ARG_DUMPS || e->arg == CMD_ARG_SERIES || e->arg == CMD_ARG_PID ||
			  e->arg == CMD_ARG_PID_FILE))
		usage_error("%s comes first: heapwalk diff OLD NEW, heapwalk leaks BASE TARGET FINAL, heapwalk mark PID, "
			    "heapwalk snapshot PID FILE", e->name);
	if (e != NULL && (e->arg == CMD_ARG_OBJECT || e->arg == CMD_ARG_OBJECT_REQ) && i < argc)
		c->o.object = argv[i++];
	if (e != NULL && e->arg == CMD_ARG_FROM_TO)
		between_args(argc, argv, &i, c);
	if (e != NULL && e->arg == CMD_ARG_NAME)
		inspect_args(argc, argv, &i, c);
	if (i < argc && e == NULL) { /* two words, neither a command: the one that is no file is meant as one */
		struct stat st;
		const char *word = stat(c->dump, &st) != 0 ? c->dump : argv[i];
		const struct cmd_entry *near = cmd_nearest(word);
		char *ew = esc_str(word);
		if (near != NULL)
			usage_error("unknown command '%s': did you mean %s?", ew, near->name);
		usage_error("unknown command '%s'", ew);
	}
	if (i < argc)
		usage_error("unexpected argument '%s'", argv[i]);
	if (c->dump == NULL)
		usage_error("no dump given");
	c->live = c->cmd == NULL && pidsnap_is_pid(c->dump); /* with a command, a file as ever */
	if (c->live && c->o.expr != NULL && c->output != NULL)
		usage_error("heapwalk -e EXPR -o FILE PID: -o would be both the report's and the snapshot's: "
			    "the report goes to standard output (heapwalk -o FILE PID keeps the snapshot)");
	check_command_options(c);
}

/* -o naming an input of the run: a dump, the baseline, a rules file, by
 * any of its names (a link, /dev/stdout opened on it): refused before
 * anything is read, so that nothing is written over it. */
static void not_an_input(const struct cli *c, const char *opt, const char *out)
{
	const char *dumps[3] = { c->dump, c->baseline, c->target };

	for (size_t i = 0; i < 3 + c->nseries; i++) {
		const char *d = i < 3 ? dumps[i] : c->series[i - 3];
		if (d != NULL && dump_companion(out, d))
			usage_error("%s %s: is what heapwalk keeps with the dump %s (its index cache, or mark file), "
				    "which it never writes over", opt, esc_str(out), esc_str(d));
	}
	if ((c->dump != NULL && file_names(out, c->dump)) || (c->baseline != NULL && file_names(out, c->baseline)))
		usage_error("%s %s: is a dump, which heapwalk never writes", opt, esc_str(out));
	if (c->target != NULL && file_names(out, c->target))
		usage_error("%s %s: is a dump, which heapwalk never writes", opt, esc_str(out));
	for (size_t i = 0; i < c->nseries; i++)
		if (file_names(out, c->series[i]))
			usage_error("%s %s: is a dump, which heapwalk never writes", opt, esc_str(out));
	for (size_t i = 0; i < c->nrule_files; i++)
		if (file_names(out, c->rule_files[i]))
			usage_error("%s %s: is the rules file %s, which heapwalk never writes", opt, esc_str(out),
				    esc_str(c->rule_files[i]));
}

static void check_output(const struct cli *c)
{
	if (c->output != NULL)
		not_an_input(c, "-o", c->output);
	if (c->junit != NULL)
		not_an_input(c, "--junit", c->junit);
	if (c->output != NULL && c->junit != NULL && file_names(c->output, c->junit))
		usage_error("-o %s: is also --junit's file", esc_str(c->output));
}

/* One file named twice by --rules (under one name or two) is read once,
 * at its first: its rules applied twice, its gates measured twice. */
static void rules_once(struct cli *c)
{
	size_t k = 0;

	for (size_t i = 0; i < c->nrule_files; i++) {
		struct stat a, b;
		size_t j = 0;
		int known = stat(c->rule_files[i], &a) == 0;
		for (; j < k; j++)
			if (strcmp(c->rule_files[j], c->rule_files[i]) == 0 ||
			    (known && stat(c->rule_files[j], &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino))
				break;
		if (j == k) {
			c->rule_files[k++] = c->rule_files[i];
			continue;
		}
		if (!c->oo.quiet) {
			char *e = esc_str(c->rule_files[i]), *f = esc_str(c->rule_files[j]);
			fprintf(stderr, "heapwalk: note: --rules %s: the file --rules %s names, read once\n", e, f);
			free(e);
			free(f);
		}
	}
	c->nrule_files = k;
}

/* The files write_file() must not write, NULL-terminated, in keep[]
 * (room for 51): the dumps and the rules files. */
static void inputs_of(const struct cli *c, const char **keep)
{
	size_t k = 0;

	if (c->dump != NULL)
		keep[k++] = c->dump;
	if (c->baseline != NULL)
		keep[k++] = c->baseline;
	for (size_t i = 0; i + 1 < c->nseries; i++) /* leaks: all but the last (dump) */
		keep[k++] = c->series[i];
	if (c->target != NULL)
		keep[k++] = c->target;
	for (size_t i = 0; i < c->nrule_files; i++)
		keep[k++] = c->rule_files[i];
	keep[k] = NULL;
}

/* Regexes of options are bad input (status 2), like those of -e. */
static int check_regexes(const struct cli *c)
{
	const char *opt[] = { "--filter", "--exact" }, *val[] = { c->o.vo.filter, c->o.vo.exact };
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

	if (c->o.expr == NULL)
		return 0;
	sbuf_init(&err);
	rc = pipeline_parse(c->o.expr, pl, &err);
	if (rc != 0)
		fprintf(stderr, "heapwalk: -e: %s\n", err.buf);
	sbuf_free(&err);
	if (rc != 0)
		return rc == STEP_EREGEX ? EXIT_INPUT : EXIT_USAGE;
	if (c->cmd != NULL && pl->view != NULL && cmd_view(pl->view) != c->cmd) {
		fprintf(stderr, "heapwalk: -e ends in the view '%s', the command says '%s'\n", pl->view, c->cmd->name);
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < pl->n && c->o.vo.weak; i++) /* --weak: the steps follow them too */
		if (pl->steps[i].op == ST_REFERRERS || pl->steps[i].op == ST_REFERENTS ||
		    pl->steps[i].op == ST_REACHABLE || pl->steps[i].op == ST_PATH)
			pl->steps[i].weak = 1;
	return 0;
}

/* snapshot PID FILE of a JVM: by the agent (stable ids), else by
 * HotSpot's own dumper: when asked (--plain, --gz) or, with a line on
 * stderr that says why, when the agent cannot be loaded into it. */
static int jvm_snapshot(const struct cli *c, const struct proc_info *p, struct sbuf *res, struct sbuf *err)
{
	hs_progress(!c->oo.quiet); /* the dump file's size as it grows, on a terminal */
	if (c->plain || c->gz)
		return hs_dumpheap(p, c->file, c->gz, res, err);
	int rc = agent_snapshot(p, c->file, res, err);
	if (rc != -2)
		return rc;
	fprintf(stderr, "heapwalk: %s: HotSpot's own heap dump instead (no stable ids)\n", err->buf);
	sbuf_reset(err);
	return hs_dumpheap(p, c->file, 0, res, err);
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
	else if (p.kind == PROC_DOTNET && (c->plain || c->gz)) {
		sbuf_printf(&err, "--plain and --gz are for a JVM's snapshot; PID %s is a .NET process", c->pid);
		rc = -1;
	}
	else if (p.kind == PROC_DOTNET && c->cmd->arg == CMD_ARG_PID) /* its runtime reports the GC's moves */
		rc = dotnet_mark(&p, c->file, &res, &err);
	else if (p.kind == PROC_DOTNET) /* its runtime reports the heap itself */
		rc = dotnet_take(&p, c->file, NULL, &res, &err);
	else if (p.kind == PROC_NODE && c->cmd->arg == CMD_ARG_PID) {
		sbuf_printf(&err, "PID %s is a Node process: mark is for JVMs and .NET; take two snapshots "
			    "(heapwalk snapshot PID FILE) and compare them (heapwalk diff OLD NEW: by content, V8 "
			    "clears its ids as each inspector session ends; exact with two the process writes itself, "
			    "v8.writeHeapSnapshot())", c->pid);
		rc = -1;
	} else if (p.kind == PROC_NODE)
		rc = node_snapshot(&p, c->file, isatty(2), &res, &err);
	else if (c->cmd->arg == CMD_ARG_PID && c->file != NULL) {
		sbuf_printf(&err, "mark PID FILE is for .NET processes (a JVM's mark is in its later snapshots)");
		rc = -1;
	} else if (c->file != NULL)
		rc = jvm_snapshot(c, &p, &res, &err);
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
			*rc = usage_status;
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
				sbuf_adds(&sb, "  "); /* as written (a regex's backslashes once): read back the same */
				esc_append_again(&sb, (const uint8_t *)one.buf, one.len);
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

/* heapwalk PID: the process identified (nothing else is touched), its
 * snapshot taken (pidsnap.h), then it is the dump, its baseline the one
 * before unless -b says; what the baseline is into *said (caller
 * frees). The browser's terminal is checked first: no process pays for
 * a snapshot that cannot be shown. The status to exit with, 0 if fine. */
static int take_live(struct cli *c, struct pidsnap *snap, char **said)
{
	struct sbuf err;
	struct proc_info p;
	int rc = 0, fd = -1;
	struct stat st;

	sbuf_init(&err);
	if (c->cmd == NULL && c->o.expr == NULL && tui_can_start(&err) < 0) {
		fprintf(stderr, "heapwalk: %s; heapwalk -e 'STEPS' PID reports instead\n", err.buf);
		sbuf_free(&err);
		return EXIT_USAGE;
	}
	/* before the process pays: a dump there, a file that opens (not a
	 * FIFO to wait on, not a directory) */
	if (c->baseline != NULL && (fd = open(c->baseline, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0) {
		path_error(c->baseline, strerror(errno));
		sbuf_free(&err);
		return EXIT_INPUT;
	} else if (c->baseline != NULL) {
		int reg = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
		close(fd);
		if (!reg) {
			path_error(c->baseline, "not a regular file: no dump to compare with");
			sbuf_free(&err);
			return EXIT_INPUT;
		}
	}
	if (proc_identify(c->dump, &p, &err) < 0 || pidsnap_take(&p, c->output, c->oo.quiet, snap, &err) < 0) {
		fprintf(stderr, "heapwalk: %s\n", err.buf);
		rc = EXIT_INPUT;
	} else {
		c->dump = snap->file;
		c->output = NULL; /* it was the snapshot's */
		if (c->baseline == NULL) {
			c->baseline = snap->baseline;
			*said = xstrdup(snap->says);
		} else {
			char *e = esc_str(c->baseline);
			*said = xasprintf("baseline: %s (-b)", e);
			free(e);
		}
	}
	sbuf_free(&err);
	return rc;
}

/* inputs_of, and the nmore files more[] too (check's gates, no longer
 * rule_files): what a write must not write, in keep[51]. */
static void inputs_and(const struct cli *c, const char *const *more, size_t nmore, const char **keep)
{
	size_t k = 0;

	inputs_of(c, keep);
	while (keep[k] != NULL)
		k++;
	for (size_t i = 0; i < nmore; i++)
		keep[k++] = more[i];
	keep[k] = NULL;
}

/* Writes out to -o FILE or standard output (more: further files never
 * written); the status to exit with. */
static int put_output(struct cli *c, struct sbuf *out, const char *const *more, size_t nmore)
{
	struct sbuf err;
	int rc = 0;

	sbuf_init(&err);
	if (c->output != NULL) {
		const char *keep[51];
		inputs_and(c, more, nmore, keep);
		if (write_file(c->output, out->buf, out->len, keep, 0, &err) < 0) {
			path_error(c->output, err.buf);
			rc = EXIT_INPUT;
		}
	} else if (fwrite(out->buf, 1, out->len, stdout) != out->len || fflush(stdout) != 0) {
		fprintf(stderr, "heapwalk: standard output: write error\n");
		rc = EXIT_INPUT;
	}
	sbuf_free(&err);
	return rc;
}

/* leaks S1 S2 S3 S4...: what grew every time. The first stays open,
 * each other is opened, added and freed in turn, once the next one is
 * known to come after it. */
static int run_series(struct cli *c)
{
	struct heap first, hs[2], *prev = NULL;
	struct progress p;
	struct growth g;
	struct sbuf out, err;
	int rc = 0;

	progress_init(&p, c->oo.quiet);
	sbuf_init(&out);
	sbuf_init(&err);
	catch_bus();
	growth_init(&g, c->nseries);
	if (open_dump(&first, c->series[0], c, &p, 1) < 0) {
		growth_free(&g);
		sbuf_free(&out);
		sbuf_free(&err);
		return EXIT_INPUT;
	}
	growth_add(&g, 0, NULL, &first, &p, &err);
	for (size_t i = 1; i < c->nseries && rc == 0; i++) {
		struct heap *h = &hs[i % 2];
		if (open_dump(h, c->series[i], c, &p, i + 1 < c->nseries) < 0) {
			rc = EXIT_INPUT;
			break;
		}
		/* each against the first (what grew), and after the one before
		 * it: s1 s3 s2 s4 was taken for a series (identity exact,
		 * nothing grew every time) */
		if (prev != NULL && baseline_in_order(h, prev, &p, &err) < 0) {
			fprintf(stderr, "heapwalk: leaks: %s does not follow %s (the series goes earliest first): %s\n",
				c->series[i], c->series[i - 1], err.buf);
			rc = EXIT_INPUT;
		} else if (growth_add(&g, i, &first, h, &p, &err) < 0) {
			fprintf(stderr, "heapwalk: %s\n", err.buf);
			rc = EXIT_INPUT;
		}
		if (prev != NULL)
			heap_free(prev);
		prev = h;
	}
	if (prev != NULL)
		heap_free(prev);
	if (rc == 0) {
		growth_finish(&g);
		report_growth(&g, c->series, c->o.fmt, &out);
		if (!g.exact && !c->oo.quiet) /* the identity says "not exact: FIRST to DUMP: ..." */
			fprintf(stderr, "heapwalk: leaks: clusters %s\n", g.identity);
		rc = put_output(c, &out, NULL, 0);
	}
	heap_free(&first);
	growth_free(&g);
	sbuf_free(&out);
	sbuf_free(&err);
	return rc;
}

/* report -b BASE --target TARGET FINAL: the leaks of BASE TARGET FINAL
 * (old and h open) as JSON into *json, for the report's section; the
 * status to exit with. */
static int report_leaks_json(struct cli *c, struct heap *old, struct heap *h, struct progress *p, struct sbuf *json)
{
	struct heap t;
	struct leak_find lf;
	struct leaks_view v;
	struct leaks_meta m;
	struct sbuf err;

	if (open_dump(&t, c->target, c, p, 1) < 0)
		return EXIT_INPUT;
	sbuf_init(&err);
	if (leaks_find(old, &t, h, &lf, p, &err) < 0) {
		fprintf(stderr, "heapwalk: %s\n", err.buf);
		sbuf_free(&err);
		heap_free(&t);
		return EXIT_INPUT;
	}
	heap_free(&t);
	heap_need(h, HP_ALL, p);
	view_leaks(h, &lf.leaked, c->o.top_set ? c->o.vo.top : 20, &v);
	leaks_meta_of(&m, &lf, c->baseline, c->target, c->dump, 1000);
	report_leaks(h, &v, &m, FMT_JSON, json);
	if (!lf.exact && !c->oo.quiet)
		fprintf(stderr, "heapwalk: leaks: %s\n", lf.identity);
	leaks_view_free(&v);
	leak_find_free(&lf);
	sbuf_free(&err);
	return 0;
}

/* leaks BASE TARGET FINAL: the three opened in order (the earliest
 * first: each comparison refuses a later baseline), what the action
 * leaked found and grouped; the status to exit with. */
static int run_leaks(struct cli *c)
{
	struct heap hs[3];
	struct progress p;
	struct leak_find lf;
	struct leaks_view v;
	struct leaks_meta m;
	struct sbuf out, err;
	int rc = 0, open = 0;

	progress_init(&p, c->oo.quiet);
	c->o.vo.progress = &p;
	sbuf_init(&out);
	sbuf_init(&err);
	catch_bus();
	for (; open < 3; open++)
		if (open_dump(&hs[open], c->series[open], c, &p, open < 2) < 0) {
			rc = EXIT_INPUT;
			goto done;
		}
	if (leaks_find(&hs[0], &hs[1], &hs[2], &lf, &p, &err) < 0) {
		fprintf(stderr, "heapwalk: %s\n", err.buf);
		rc = EXIT_INPUT;
		goto done;
	}
	heap_need(&hs[2], HP_ALL, &p);
	view_leaks(&hs[2], &lf.leaked, c->o.top_set ? c->o.vo.top : 20, &v);
	leaks_meta_of(&m, &lf, c->series[0], c->series[1], c->series[2], 0);
	report_leaks(&hs[2], &v, &m, c->o.fmt, &out);
	if (!lf.exact && !c->oo.quiet)
		fprintf(stderr, "heapwalk: leaks: %s\n", lf.identity);
	leaks_view_free(&v);
	leak_find_free(&lf);
	rc = put_output(c, &out, NULL, 0);
done:
	while (open > 0)
		heap_free(&hs[--open]);
	sbuf_free(&out);
	sbuf_free(&err);
	return rc;
}

/* Is the command word check? Among the first two words that are no
 * option nor an option's value (heapwalk check DUMP, heapwalk DUMP
 * check), before getopt reads the options (for usage_status): bundled
 * short options (-qb OLD) and long ones shortened (--base OLD) taken as
 * getopt takes them. */
static int is_check(int argc, char **argv)
{
	static const char shortv[] = "efsndbo"; /* short options with a value */
	static const char *const longv[] = { "expr", "format", "sort", "filter", "exact", "top", "depth", "cutoff",
		"max", "baseline", "rules", "rules-off", "rules-on", "by", "heapshot", "root", "ignore", "output",
		"inspections", "target", "junit" };
	int words = 0;

	for (int i = 1; i < argc && words < 2; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--") == 0) {
			for (int k = i + 1; k < argc && words < 2; k++, words++)
				if (strcmp(argv[k], "check") == 0)
					return 1;
			return 0;
		}
		if (a[0] != '-' || a[1] == '\0') {
			if (strcmp(a, "check") == 0)
				return 1;
			words++;
			continue;
		}
		if (a[1] != '-') { /* -qb OLD: a value-taking letter ends the bundle, or its value follows it */
			for (const char *q = a + 1; *q; q++)
				if (strchr(shortv, *q) != NULL) {
					if (q[1] == '\0')
						i++;
					break;
				}
			continue;
		}
		if (strchr(a, '=') != NULL)
			continue;
		size_t len = strlen(a + 2);
		for (size_t k = 0; k < sizeof longv / sizeof longv[0]; k++)
			if (len > 0 && strncmp(longv[k], a + 2, len) == 0) { /* --base: --baseline's value follows */
				i++;
				break;
			}
	}
	return 0;
}

/* A dump cut short (truncated_at: it lost part of its heap) makes no
 * rule's verdict: any figure may differ in the whole heap, a bound held
 * as much as one broken (the first such dump's words, for every rule). */
static void check_unfit(struct chk_rules *rs, const struct heap *h, const char *role)
{
	if (rs->unfit != NULL)
		return;
	if (h->truncated_at != 0)
		rs->unfit = xasprintf("%s is truncated: it is whole only up to offset %llu, and no rule is measured "
				      "on part of a heap", h->path, (unsigned long long)h->truncated_at);
	/* a file of several heaps whose last is cut short opens its last
	 * whole one: an earlier heap than the file's, which a gate asking
	 * for the dump would take for it (FILE:N or --heapshot N asks for
	 * one; the baseline and target take FILE:N alone) */
	else if (h->nsnaps > 0 && h->want_snap == 0 && h->snap < h->nsnaps) {
		char *ask = role == NULL ? xasprintf("--heapshot %u", h->snap)
					 : xasprintf("%s %s:%u", role, h->path, h->snap);
		rs->unfit = xasprintf("%s is truncated: its last heapshot (%u) is cut short, and no rule is "
				      "measured on an earlier one unless asked for (%s, the last whole one)",
				      h->path, h->nsnaps, ask);
		free(ask);
	}
}

/* check DUMP --rules FILE...: the gates read, the dump (and -b, --target)
 * opened, every rule measured; 0 all hold, 1 one failed, 2 an error. */
static int run_check(struct cli *c, const char *const *files, size_t nfiles)
{
	struct chk_rules rs = { 0 }, one;
	struct heap h, old, target;
	struct baseline bl = { 0 };
	struct progress p;
	struct leak_find lf = { 0 };
	struct leaks_view lv = { 0 };
	struct sbuf err, out, text, names;
	int rc = 0, have_old = 0, have_lv = 0, junit_done = 0;

	sbuf_init(&err);
	sbuf_init(&out);
	sbuf_init(&names);
	for (size_t i = 0; i < nfiles; i++)
		sbuf_printf(&names, "%s%s", i ? "," : "", files[i]);
	for (size_t i = 0; i < nfiles; i++) { /* a regular file only: no FIFO to wait on */
		int fd = open(files[i], O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		struct stat st;
		char buf[65536];
		ssize_t n;
		if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
			path_error(files[i], fd < 0 ? strerror(errno) : "not a regular file");
			if (fd >= 0)
				close(fd);
			rc = 2;
			goto done_rules;
		}
		sbuf_init(&text);
		while ((n = read(fd, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
			if (n > 0 && text.len + (size_t)n > ((size_t)16 << 20)) { /* gates, not a dump */
				n = -2;
				break;
			} else if (n > 0) {
				sbuf_add(&text, buf, (size_t)n);
			}
		close(fd);
		if (n == -2) {
			path_error(files[i], "more than 16 MiB: not a file of gates");
			sbuf_free(&text);
			rc = 2;
			goto done_rules;
		}
		if (n < 0 || check_parse(files[i], text.buf ? text.buf : "", text.len, &one, &err) < 0) {
			if (n < 0)
				path_error(files[i], "read error");
			else
				fprintf(stderr, "heapwalk: %s\n", err.buf);
			sbuf_free(&text);
			rc = 2;
			goto done_rules;
		}
		sbuf_free(&text);
		if (one.n == 0) { /* a gates file cut short or all comments must not pass */
			path_error(files[i], "no rules in it");
			check_free(&one);
			rc = 2;
			goto done_rules;
		}
		rs.r = xreallocarray(rs.r, rs.n + one.n + 1, sizeof *rs.r);
		memcpy(rs.r + rs.n, one.r, one.n * sizeof *one.r);
		rs.n += one.n;
		free(one.r);
	}
	/* the first rule that needs what is missing, named where it is */
	for (size_t i = 0; i < rs.n; i++) {
		const struct chk_rule *r = &rs.r[i];
		int growth = r->kind == CK_GROWTH && c->baseline == NULL;
		int leaks = (r->kind == CK_LEAKS || r->kind == CK_LEAKS_TOP) && c->target == NULL;
		if (!growth && !leaks)
			continue;
		char *ef = esc_str(r->file);
		fprintf(stderr, "heapwalk: check: %s:%u: %s\n", ef, r->line,
			growth ? "a growth rule needs --baseline OLD" : "a leaks rule needs --baseline BASE and --target TARGET");
		free(ef);
		rc = 2;
		goto done_rules;
	}
	progress_init(&p, c->oo.quiet);
	catch_bus();
	if (c->baseline != NULL) {
		if (open_dump(&old, c->baseline, c, &p, 1) < 0) {
			rc = 2;
			goto done_rules;
		}
		have_old = 1;
	}
	if (open_dump(&h, c->dump, c, &p, 0) < 0) {
		rc = 2;
		goto done_old;
	}
	if (have_old) { /* new and old in the steps mean against it */
		if (baseline_compare(&h, &old, &bl, &p, &err) < 0) {
			fprintf(stderr, "heapwalk: %s\n", err.buf);
			rc = 2;
			goto done;
		}
		h.baseline = &bl;
		h.identity = &bl;
		heap_need(&old, HP_ALL, &p);
	}
	if (c->target != NULL) {
		if (open_dump(&target, c->target, c, &p, 1) < 0) {
			rc = 2;
			goto done;
		}
		int bad = leaks_find(&old, &target, &h, &lf, &p, &err) < 0;
		check_unfit(&rs, &target, "--target");
		heap_free(&target);
		if (bad) {
			fprintf(stderr, "heapwalk: %s\n", err.buf);
			rc = 2;
			goto done;
		}
		if (!lf.exact && !c->oo.quiet)
			fprintf(stderr, "heapwalk: leaks: %s\n", lf.identity);
	}
	heap_need(&h, HP_ALL, &p);
	check_unfit(&rs, &h, NULL);
	if (have_old)
		check_unfit(&rs, &old, "-b");
	if (c->target != NULL) {
		view_leaks(&h, &lf.leaked, 1, &lv);
		lv.fate_unknown = lf.fate_unknown;
		lv.unidentified = lf.unidentified;
		lv.fate_unknown_bytes = lf.fate_unknown_bytes;
		if (lf.fate_unknown > 0)
			lv.fate_unknown_retained = analysis_retained_set(&h, lf.maybe.bits, NULL, NULL, &p);
		have_lv = 1;
	}
	size_t failed = check_eval(&rs, &h, have_old ? &old : NULL, have_lv ? &lv : NULL, &p);
	int errors = 0;
	for (size_t i = 0; i < rs.n; i++)
		errors |= rs.r[i].error != NULL;
	/* a heapshot of a file of several: which one, as diff names it
	 * (--heapshot 3 was shown as the bare file, which reads as its last) */
	char *label = h.nsnaps > 0 ? heap_dump_name(&h) : xstrdup(c->dump);
	report_check(&rs, label, names.buf ? names.buf : "", c->o.fmt, &out);
	if (c->junit != NULL) {
		struct sbuf x;
		const char *keep[51];
		sbuf_init(&x);
		check_junit(&rs, label, &x);
		inputs_and(c, files, nfiles, keep);
		sbuf_reset(&err);
		if (write_file(c->junit, x.buf, x.len, keep, 0, &err) < 0) {
			path_error(c->junit, err.buf);
			errors = 1;
		}
		junit_done = 1; /* written, or said why not: not written again below */
		sbuf_free(&x);
	}
	if (put_output(c, &out, files, nfiles) != 0)
		errors = 1;
	free(label);
	rc = errors ? 2 : failed > 0 ? 1 : 0;
done:
	if (have_lv)
		leaks_view_free(&lv);
	leak_find_free(&lf);
	baseline_free(&bl);
	heap_free(&h);
done_old:
	if (have_old)
		heap_free(&old);
done_rules:
	if (rc == 2 && c->junit != NULL && !junit_done) { /* not the last run's results: an error */
		struct sbuf x;
		const char *keep[51];
		sbuf_init(&x);
		check_junit_error(c->dump, names.buf ? names.buf : "", &x);
		inputs_and(c, files, nfiles, keep);
		sbuf_reset(&err);
		if (write_file(c->junit, x.buf, x.len, keep, 0, &err) < 0)
			path_error(c->junit, err.buf);
		sbuf_free(&x);
	}
	check_free(&rs);
	sbuf_free(&err);
	sbuf_free(&out);
	sbuf_free(&names);
	return rc;
}

/* heapwalk mcp [--no-cache] [--keep-unreachable] [--no-default-rules]
 * [--rules FILE]... [DIR...]: the MCP server on standard input and
 * output, opening dumps under the DIRs (default: the working directory)
 * with the rules a command would apply. */
static int run_mcp(int argc, char **argv)
{
	struct cli c = { 0 };
	const char *dirs[64];
	size_t ndirs = 0;
	int rc;

	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--no-cache") == 0)
			c.oo.no_cache = 1;
		else if (strcmp(argv[i], "--keep-unreachable") == 0)
			c.oo.keep_unreachable = 1;
		else if (strcmp(argv[i], "--no-default-rules") == 0)
			c.no_default_rules = 1;
		else if (strcmp(argv[i], "--rules") == 0 && i + 1 < argc && c.nrule_files < 32)
			c.rule_files[c.nrule_files++] = argv[++i];
		else if (strcmp(argv[i], "--") == 0 || argv[i][0] != '-') {
			i += strcmp(argv[i], "--") == 0;
			for (; i < argc; i++) {
				if (ndirs == 64)
					usage_error("mcp: 64 directories at most");
				dirs[ndirs++] = argv[i];
			}
		} else
			usage_error("mcp: unknown option '%s' (--no-cache, --keep-unreachable, --no-default-rules, --rules FILE)",
				    argv[i]);
	}
	rules_once(&c);
	if (isatty(STDOUT_FILENO) && isatty(STDIN_FILENO))
		fprintf(stderr, "heapwalk: mcp: a Model Context Protocol server: JSON-RPC messages on standard input, "
				"one a line (an MCP client starts it)\n");
	struct ruleset *rs = load_rules(&c, &rc);
	if (rs == NULL)
		return rc;
	c.oo.rules = rs;
	struct sbuf err;
	sbuf_init(&err);
	struct mcp *m = mcp_new(dirs, ndirs, &c.oo, &err);
	if (m == NULL) {
		fprintf(stderr, "heapwalk: mcp: %s\n", err.buf);
		sbuf_free(&err);
		rules_free(rs);
		return EXIT_INPUT;
	}
	sbuf_free(&err);
	rc = mcp_serve(m, STDIN_FILENO, STDOUT_FILENO);
	mcp_free(m);
	rules_free(rs);
	return rc;
}

/* What new, old and gone rest on, into note (stderr's), where that is
 * not exact (baseline_exact): inferred, wholly or partly, with a doubt,
 * or with objects neither new nor old. A CSV table has no room for it, and a script that reads "no new
 * objects" from one must not miss that some were not told apart. */
static void identity_note(const struct baseline *b, const struct heap *h, struct sbuf *note)
{
	if (b == NULL || baseline_exact(b))
		return;
	struct sbuf src;
	sbuf_init(&src);
	baseline_source(h, b, &src);
	char *e = esc_str(src.buf);
	sbuf_printf(note, "%sidentity: %s", note->len ? "\n" : "", e);
	free(e);
	sbuf_free(&src);
}

int main(int argc, char **argv)
{
	struct cli c = { .o.ninsps = -1 };
	struct heap h, old;
	struct progress p;
	struct pipeline pl = { 0 }, fpl = { 0 };
	char *focus = NULL;
	struct sbuf err, out, note;
	struct objset set = { 0 };
	struct baseline bl = { 0 };
	int rc, have_old = 0;

	if (argc >= 2 && strcmp(argv[1], "mcp") == 0)
		return run_mcp(argc, argv);
	if (is_check(argc, argv))
		usage_status = 2;
	parse_args(argc, argv, &c);
	rules_once(&c);
	if (c.output != NULL && !c.live && (c.pid != NULL || c.insp_list || (c.cmd != NULL && c.cmd->arg == CMD_ARG_NOTHING) ||
				 (c.cmd == NULL && c.o.expr == NULL)))
		usage_error("-o goes with the commands that report on a dump, not %s",
			    c.pid ? c.cmd->name : c.insp_list ? "inspect --list" : c.cmd ? c.cmd->name : "the browser");
	if (!c.live) /* heapwalk PID -o FILE: the snapshot's, which must not exist */
		check_output(&c);
	if (c.pid != NULL)
		return attach_command(&c);
	if (c.insp_list) {
		sbuf_init(&out);
		report_inspect_list(c.o.fmt, &out);
		fwrite(out.buf, 1, out.len, stdout);
		sbuf_free(&out);
		return 0;
	}
	const char *gates[32];
	size_t ngates = 0;
	if (c.cmd == cmd_find("check")) { /* its --rules are its gates; the classifier's rules are the default */
		for (; ngates < c.nrule_files; ngates++)
			gates[ngates] = c.rule_files[ngates];
		c.nrule_files = 0;
	}
	struct ruleset *rs = load_rules(&c, &rc);
	if (rs == NULL)
		return rc;
	if (c.cmd != NULL && c.cmd->arg == CMD_ARG_NOTHING) { /* rules */
		print_rules(rs);
		rules_free(rs);
		return 0;
	}
	c.oo.rules = rs;
	if (c.cmd == cmd_find("check")) {
		rc = run_check(&c, gates, ngates);
		rules_free(rs);
		return rc;
	}
	if (c.cmd != NULL && c.cmd->arg == CMD_ARG_SERIES) {
		rc = c.nseries == 3 ? run_leaks(&c) : run_series(&c);
		rules_free(rs);
		return rc;
	}
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
	struct pidsnap snap = { 0 };
	char *said = NULL;
	if (c.cmd == NULL && c.o.expr == NULL) {
		pipeline_free(&pl);
		pipeline_free(&fpl);
		rc = c.live ? take_live(&c, &snap, &said) : 0;
		catch_bus(); /* while it opens the dumps */
		if (rc == 0)
			rc = tui_main(c.dump, c.baseline, c.target, &c.oo, focus, said);
		if (rc != 0 && snap.kept) { /* not shown: say that it stays (the next run's baseline if it opens whole) */
			char *e = esc_str(snap.file);
			fprintf(stderr, "heapwalk: the snapshot stays in the cache: %s\n", e);
			free(e);
		}
		free(focus);
		free(said);
		pidsnap_free(&snap);
		rules_free(rs);
		return rc;
	}
	const struct cmd_entry *e = c.cmd ? c.cmd : cmd_view(pl.view ? pl.view : "classes");
	const char *misuse = c.o.deep && !(e->flags & CMD_O_DEEP) ? "--deep goes with info"
			     : c.o.strong && !(e->flags & CMD_O_STRONG) ? "--strong goes with merged-in (in -e: its last word)"
			     : view_option_misuse(&c, e->flags);
	if (misuse == NULL)
		misuse = cmd_format_misuse(e, c.o.fmt, c.fmt_set);
	for (size_t i = 1; i < pl.n && misuse == NULL; i++)
		if (pl.steps[i].op == ST_GONE)
			misuse = "-e: 'gone' can only be the first step";
	if (misuse != NULL) {
		if (misuse[0] == '-' && misuse[1] == 'e')
			fprintf(stderr, "heapwalk: %s\n", misuse);
		else
			fprintf(stderr, "heapwalk: %s, not %s (see heapwalk --help)\n", misuse, e->name);
		pipeline_free(&pl);
		pipeline_free(&fpl);
		free(focus);
		rules_free(rs);
		return EXIT_USAGE;
	}
	if (c.live && (rc = take_live(&c, &snap, &said)) != 0) { /* all checked: now the process pays */
		pipeline_free(&pl);
		pipeline_free(&fpl);
		free(focus);
		rules_free(rs);
		return rc;
	}
	if (said != NULL && !c.oo.quiet) {
		char *ef = esc_str(snap.file);
		fprintf(stderr, "heapwalk: snapshot %s; %s\n", ef, said);
		free(ef);
	}
	free(said);
	if (!(e->formats & CMD_FMT(c.o.fmt)) && (e->formats & CMD_FMT(FMT_DOT))) /* the graph's only format */
		c.o.fmt = FMT_DOT;
	if (c.o.object != NULL && c.o.to == NULL) { /* paths DUMP OBJECT is "object OBJECT | paths" (lifelines, graph too) */
		pl.steps = xmalloc(sizeof *pl.steps);
		pl.steps[0] = (struct step){ .op = ST_OBJECT, .arg = xstrdup(c.o.object) };
		pl.n = 1;
	}
	sbuf_init(&err);
	sbuf_init(&out);
	sbuf_init(&note);
	progress_init(&p, c.oo.quiet);
	c.o.vo.progress = &p;
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
	struct cmd_ctx x = { .h = &h, .set = &set, .o = &c.o, .old = &old, .bl = &bl, .p = &p,
			     .out = &out, .err = &err, .note = &note };
	if (e->baseline == CMD_BL_OWN) { /* diff OLD NEW */
		e->run(&x);
		if (c.o.fmt == FMT_CSV) /* its new and gone columns, as a step's would be */
			identity_note(h.baseline, &h, &note);
		goto print;
	}
	if (run_baseline(&h, have_old ? &old : NULL, &pl, e, &bl, &p, &note, &err) < 0) {
		fprintf(stderr, "heapwalk: %s\n", err.buf);
		rc = EXIT_INPUT;
		goto print;
	}
	if (c.target != NULL) {
		struct sbuf lj;
		sbuf_init(&lj);
		if ((rc = report_leaks_json(&c, &old, &h, &p, &lj)) != 0) {
			sbuf_free(&lj);
			goto print;
		}
		c.o.leaks_json = sbuf_detach(&lj);
	}
	if (c.live && !c.oo.quiet && h.baseline != NULL) { /* what the engine made of the baseline it was told */
		struct sbuf lb;
		sbuf_init(&lb);
		baseline_label(h.baseline, &lb);
		fprintf(stderr, "heapwalk: the baseline, opened: %s\n", lb.buf);
		sbuf_free(&lb);
	}
	if (run_steps(&h, have_old ? &old : NULL, &bl, &fpl, &pl, e, &c.o, &set, &p, &out, &note, &err) < 0) {
		fprintf(stderr, "heapwalk: %s\n", err.buf);
		rc = EXIT_INPUT;
	} else if (c.o.fmt == FMT_CSV) { /* text and JSON say it in their output, CSV cannot */
		identity_note(pl.n > 0 && pl.steps[0].op == ST_GONE ? &bl : h.baseline, &h, &note);
	}
print:
	for (char *l = note.buf, *nl; note.len > 0 && !c.oo.quiet && l != NULL; l = nl ? nl + 1 : NULL) {
		nl = strchr(l, '\n');
		fprintf(stderr, "heapwalk: %.*s\n", (int)(nl ? (size_t)(nl - l) : strlen(l)), l);
	}
	if (rc == 0 && c.output != NULL) {
		const char *keep[51];
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
	free((char *)c.o.leaks_json);
done:
	if (have_old)
		heap_free(&old);
	pipeline_free(&pl);
	pipeline_free(&fpl);
	free(focus);
	sbuf_free(&err);
	sbuf_free(&out);
	sbuf_free(&note);
	rules_free(rs);
	pidsnap_free(&snap);
	return rc;
}
