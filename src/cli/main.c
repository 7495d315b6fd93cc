/* main.c — the command line: options, commands, selection steps. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "graph/open.h"
#include "query/step.h"
#include "query/views.h"

enum { EXIT_USAGE = 1, EXIT_INPUT = 2 };

static const char usage_text[] =
"usage: heapwalk [options] COMMAND DUMP [OBJECT]\n"
"       heapwalk [options] DUMP -e 'STEP | STEP ... [| VIEW]'\n"
"\n"
"commands:\n"
"  info            counts, sizes, detected layout, GC roots by kind, unreachable objects\n"
"  classes         class histogram: instances, shallow and retained (lower bound) bytes\n"
"  biggest         the biggest objects: the dominator tree by retained size\n"
"  objects         the objects of the set, biggest retained first\n"
"  paths OBJECT    shortest paths from OBJECT (an id, 0x... or decimal) to GC roots\n"
"\n"
"steps (-e, separated by '|', applied to all objects in turn):\n"
"  instances NAME | instances /REGEX/   instances of a class, or of classes matching\n"
"  retained        the objects the set retains (freed if the set were gone)\n"
"  referrers [weak]  objects referring to the set   referents [weak]  objects it refers to\n"
"  dominated       the set's direct children in the dominator tree\n"
"  object ID       one object            all   every object\n"
"  a last word classes, biggest, objects or info picks the view (default: classes)\n"
"\n"
"options:\n"
"  -e, --expr EXPR      selection steps, see above\n"
"  -f, --format FMT     text (default), json or csv\n"
"  -s, --sort COL       classes: name, instances, shallow (default) or retained\n"
"  -r, --reverse        reverse the sort order\n"
"      --filter REGEX   classes: only classes whose name matches (PCRE2)\n"
"      --exact REGEX    classes: exact retained size of the matching classes\n"
"      --all            classes: also classes with no instance in the set\n"
"  -n, --top N          rows at the top level (biggest: 20, objects: 100; 0 = all)\n"
"  -d, --depth N        biggest: levels of the dominator tree to show (default 1)\n"
"      --cutoff PCT     biggest: fold children under PCT%% of their parent (0.5)\n"
"      --max N          paths: number of paths (default 5)\n"
"  -w, --weak           paths: follow weak references (Reference.referent) too\n"
"      --no-cache       neither read nor write the index cache (DUMP.hwi)\n"
"  -q, --quiet          no progress and no warnings on stderr\n"
"  -h, --help           this text          -V, --version   the version\n"
"\n"
"exit status: 0 ok, 1 usage error, 2 bad input (unreadable dump, bad id or regex)\n";

struct cli {
	const char *cmd, *dump, *object, *expr;
	struct view_opts vo;
	struct open_opts oo;
	int top_set;
};

static _Noreturn void usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "heapwalk: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'heapwalk --help'.\n");
	exit(EXIT_USAGE);
}

static long num_arg(const char *opt, const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v < 0)
		usage_error("%s needs a number of 0 or more", opt);
	return v;
}

static int is_command(const char *s)
{
	static const char *cmds[] = { "info", "classes", "biggest", "objects", "paths" };

	for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
		if (strcmp(s, cmds[i]) == 0)
			return 1;
	return 0;
}

static void parse_args(int argc, char **argv, struct cli *c)
{
	static const struct option lo[] = {
		{ "expr", required_argument, 0, 'e' }, { "format", required_argument, 0, 'f' },
		{ "sort", required_argument, 0, 's' }, { "reverse", no_argument, 0, 'r' },
		{ "filter", required_argument, 0, 'F' }, { "exact", required_argument, 0, 'X' },
		{ "all", no_argument, 0, 'A' }, { "top", required_argument, 0, 'n' },
		{ "depth", required_argument, 0, 'd' }, { "cutoff", required_argument, 0, 'C' },
		{ "max", required_argument, 0, 'M' }, { "weak", no_argument, 0, 'w' },
		{ "no-cache", no_argument, 0, 'N' }, { "quiet", no_argument, 0, 'q' },
		{ "help", no_argument, 0, 'h' }, { "version", no_argument, 0, 'V' }, { 0, 0, 0, 0 },
	};
	int ch;
	char *end;

	c->vo.depth = 1;
	c->vo.cutoff = 0.5;
	c->vo.max_paths = 5;
	while ((ch = getopt_long(argc, argv, "e:f:s:rn:d:wqhV", lo, NULL)) != -1) {
		switch (ch) {
		case 'e': c->expr = optarg; break;
		case 'f':
			if (strcmp(optarg, "text") == 0) c->vo.fmt = FMT_TEXT;
			else if (strcmp(optarg, "json") == 0) c->vo.fmt = FMT_JSON;
			else if (strcmp(optarg, "csv") == 0) c->vo.fmt = FMT_CSV;
			else usage_error("unknown format '%s' (text, json, csv)", optarg);
			break;
		case 's': c->vo.sort = optarg; break;
		case 'r': c->vo.reverse = 1; break;
		case 'F': c->vo.filter = optarg; break;
		case 'X': c->vo.exact = optarg; break;
		case 'A': c->vo.all = 1; break;
		case 'n': c->vo.top = (int)num_arg("--top", optarg); c->top_set = 1; break;
		case 'd': c->vo.depth = (int)num_arg("--depth", optarg); break;
		case 'C':
			c->vo.cutoff = strtod(optarg, &end);
			if (*end != '\0' || c->vo.cutoff < 0 || c->vo.cutoff > 100)
				usage_error("--cutoff needs a percentage, not '%s'", optarg);
			break;
		case 'M': c->vo.max_paths = (int)num_arg("--max", optarg); break;
		case 'w': c->vo.weak = 1; break;
		case 'N': c->oo.no_cache = 1; break;
		case 'q': c->oo.quiet = 1; break;
		case 'h': fputs(usage_text, stdout); exit(0);
		case 'V': puts("heapwalk " PACKAGE_VERSION); exit(0);
		default: fprintf(stderr, "Try 'heapwalk --help'.\n"); exit(EXIT_USAGE);
		}
	}
	int i = optind;
	if (i < argc && is_command(argv[i]))
		c->cmd = argv[i++];
	if (i < argc)
		c->dump = argv[i++];
	if (c->cmd != NULL && strcmp(c->cmd, "paths") == 0 && i < argc)
		c->object = argv[i++];
	if (i < argc)
		usage_error("unexpected argument '%s'", argv[i]);
	if (c->dump == NULL)
		usage_error("%s", "no dump given");
	if (c->cmd != NULL && strcmp(c->cmd, "paths") == 0 && c->object == NULL)
		usage_error("%s", "paths needs an OBJECT id");
}

static int run_view(struct heap *h, const char *view, struct objset *set, struct cli *c,
		    struct sbuf *out, struct sbuf *err)
{
	if (strcmp(view, "info") == 0)
		return view_info(h, set, &c->vo, out);
	if (strcmp(view, "classes") == 0)
		return view_classes(h, set, &c->vo, out, err);
	if (strcmp(view, "biggest") == 0) {
		if (!c->top_set)
			c->vo.top = 20;
		return view_biggest(h, set, &c->vo, out);
	}
	if (strcmp(view, "objects") == 0) {
		if (!c->top_set)
			c->vo.top = 100;
		return view_objects(h, set, &c->vo, out);
	}
	/* paths */
	struct step s = { .op = ST_OBJECT, .arg = (char *)c->object };
	if (step_apply(h, &s, set, c->vo.progress, err) < 0)
		return -1;
	node_t v = 1;
	while (v < h->n && !bit_get(set->bits, v))
		v++;
	return view_paths(h, v, &c->vo, out);
}

/* What a view needs of a cached heap beyond the summary tables. */
static unsigned view_parts(const char *view, const struct cli *c, size_t nsteps)
{
	if (nsteps > 0)
		return HP_ALL;
	if (strcmp(view, "biggest") == 0 || strcmp(view, "objects") == 0)
		return HP_NODES | HP_DOM;
	if (strcmp(view, "paths") == 0)
		return HP_NODES | HP_IN | (c->vo.weak ? HP_WEAK : 0);
	return HP_ALL; /* classes --exact, and anything new */
}

int main(int argc, char **argv)
{
	struct cli c = { 0 };
	struct heap h;
	struct progress p;
	struct pipeline pl = { 0 };
	struct sbuf err, out;
	struct objset set;
	int rc = 0;

	parse_args(argc, argv, &c);
	sbuf_init(&err);
	sbuf_init(&out);
	if (c.expr != NULL && pipeline_parse(c.expr, &pl, &err) < 0) {
		fprintf(stderr, "heapwalk: -e: %s\n", err.buf);
		rc = EXIT_USAGE;
		goto out;
	}
	if (c.cmd == NULL && c.expr == NULL) {
		fprintf(stderr, "heapwalk: %s: the full-screen TUI is not built yet; "
			"use a command, e.g. 'heapwalk classes %s' (see --help)\n", c.dump, c.dump);
		rc = EXIT_USAGE;
		goto out;
	}
	progress_init(&p, c.oo.quiet);
	c.vo.progress = &p;
	if (heap_open(&h, c.dump, &c.oo, &p, &err) < 0) {
		fprintf(stderr, "heapwalk: %s\n", err.buf);
		rc = EXIT_INPUT;
		goto out;
	}
	/* info and the whole heap's classes come from per-class totals: a
	 * cached open then never loads the per-node arrays */
	const char *view = c.cmd ? c.cmd : pl.view ? pl.view : "classes";
	int light = pl.n == 0 && (strcmp(view, "info") == 0 ||
				  (strcmp(view, "classes") == 0 && c.vo.exact == NULL));
	if (light) {
		objset_whole(&h, &set);
	} else {
		heap_need(&h, view_parts(view, &c, pl.n), &p);
		objset_all(&h, &set);
	}
	for (size_t i = 0; i < pl.n && rc == 0; i++)
		if (step_apply(&h, &pl.steps[i], &set, &p, &err) < 0)
			rc = EXIT_INPUT;
	if (rc == 0 && run_view(&h, view, &set, &c, &out, &err) < 0)
		rc = EXIT_INPUT;
	if (rc != 0)
		fprintf(stderr, "heapwalk: %s: %s\n", c.dump, err.buf);
	else if (fwrite(out.buf, 1, out.len, stdout) != out.len || fflush(stdout) != 0)
		rc = EXIT_INPUT;
	objset_free(&set);
	heap_free(&h);
out:
	pipeline_free(&pl);
	sbuf_free(&err);
	sbuf_free(&out);
	return rc;
}
