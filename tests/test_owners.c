/* test_owners.c — where ownership is missing and what a field says:
 * the `floating` inspection, lifelines, and the rules tag-if-zero /
 * tag-if-nonzero.
 *
 * floating, against a brute force on hand-built HPROF graphs: an object
 * floats when it is reachable, no GC root, and no other object's removal
 * cuts it off the roots (dominance by definition, one reachability per
 * removed object); its bytes retained are the shallow sizes of what its
 * own removal cuts off. Then `owns` takes an object out of the list
 * (its idom becomes the owner), on a small graph and on a JDK dump of
 * tests/java/Owners, where parts 1..4 float (held from two classes'
 * statics) and `owns Owners$Holder part` gives part 1 to holder 1.
 *
 * Lifelines on a hand-built graph whose paths are known by construction
 * (two ways to one object, counted; a chain stopped by an owns rule; a
 * 200000-long chain; the bound), and in batch on the JDK dump.
 *
 * The conditional tags on the same dump: Owners.java's 12 connections
 * have known zero and non-zero fields (int, reference, long, boolean). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "engine/open.h"
#include "format/hprof.h"
#include "graph/ownership.h"
#include "graph/reader.h"
#include "graph/rules.h"
#include "hprofw.h"
#include "query/inspect.h"
#include "query/lifelines.h"
#include "query/step.h"
#include "suites.h"

static void open_rules(struct heap *h, const char *path, const char *rules_text, struct ruleset **rsp)
{
	struct ruleset *rs = NULL;
	struct sbuf err;

	sbuf_init(&err);
	if (rules_text != NULL) {
		rs = rules_new();
		ck_assert_msg(rules_parse(rs, "t.rules", rules_text, strlen(rules_text), &err) == 0, "%s", err.buf);
	}
	struct open_opts o = { .no_cache = 1, .quiet = 1, .rules = rs };
	ck_assert_msg(heap_open(h, path, &o, NULL, &err) == 0, "%s: %s", path, err.buf);
	heap_need(h, HP_ALL, NULL);
	sbuf_free(&err);
	*rsp = rs;
}

static void run_insp(struct heap *h, const char *name, const struct objset *set, struct insp_result *r)
{
	struct sbuf err;

	sbuf_init(&err);
	ck_assert_msg(inspect_run(h, inspect_find(name), NULL, set, r, NULL, &err) == 0, "%s", err.buf);
	sbuf_free(&err);
}

/* ---- floating, brute force on random graphs ---- */

#define G_MAX 36
#define G_NF 3
enum { G_FIELD = 0x3101 };

/* Object 0 is a root; object i > 0 is referred to by some j < i (when
 * no later one takes that slot), two more slots point anywhere or nowhere
 * (cycles, self loops, shared targets); a few more roots. Instances of
 * t.C0 (even objects) and t.C1 (odd ones), G_NF fields each; the
 * classes are roots, as in a JVM: instances do not share them. */
static void graph_make(struct hw_graph *g, uint32_t seed)
{
	memset(g, 0, sizeof *g);
	g->n = 8 + hw_rnd(&seed) % (G_MAX - 8);
	g->ncls = 2;
	g->nfields[0] = g->nfields[1] = G_NF;
	g->class_roots = HWG_CROOTS_ALL;
	g->root[0] = 1;
	for (unsigned k = hw_rnd(&seed) % 4; k > 0; k--)
		g->root[hw_rnd(&seed) % g->n] = 1;
	for (unsigned i = 0; i < g->n; i++) {
		g->kind[i] = HWG_INSTANCE;
		g->cls[i] = i % 2;
		g->nref[i] = G_NF;
		g->ref[i][0] = -1;
		for (unsigned f = 1; f < G_NF; f++)
			g->ref[i][f] = hw_rnd(&seed) % 100 < 45 ? -1 : (int)(hw_rnd(&seed) % g->n);
	}
	for (unsigned i = 1; i < g->n; i++)
		g->ref[hw_rnd(&seed) % i][0] = (int)i; /* a later one may take the slot: then via another */
}

static void graph_reach(const struct hw_graph *g, int cut, int *seen);

/* A slot taken again drops an earlier target: what nothing reaches then
 * becomes a root, so that every object is reachable (unreachable ones
 * would hang from pseudo roots, which the brute force does not model). */
static void graph_rootall(struct hw_graph *g)
{
	int seen[G_MAX];

	for (unsigned i = 0; i < g->n; i++) {
		graph_reach(g, -1, seen);
		if (!seen[i])
			g->root[i] = 1;
	}
}

/* What the roots reach when object `cut` (-1: none) is taken away. */
static void graph_reach(const struct hw_graph *g, int cut, int *seen)
{
	int stack[G_MAX];
	unsigned sp = 0;

	memset(seen, 0, G_MAX * sizeof *seen);
	for (unsigned i = 0; i < g->n; i++)
		if (g->root[i] && (int)i != cut) {
			seen[i] = 1;
			stack[sp++] = (int)i;
		}
	while (sp > 0) {
		int u = stack[--sp];
		for (int f = 0; f < G_NF; f++) {
			int t = g->ref[u][f];
			if (t >= 0 && t != cut && !seen[t]) {
				seen[t] = 1;
				stack[sp++] = t;
			}
		}
	}
}

START_TEST(floating_brute_force)
{
	unsigned total = 0, nonfloat = 0, heaps = RANDOM_HEAPS(60);

	for (uint32_t seed = 1; seed <= heaps; seed++) {
		struct hw_graph g;
		struct heap h;
		struct objset all;
		struct insp_result r;
		int seen[G_MAX], floats[G_MAX] = { 0 };
		uint64_t ret[G_MAX] = { 0 };
		char name[32];

		graph_make(&g, seed * 7919u);
		graph_rootall(&g);
		snprintf(name, sizeof name, "float%u.hprof", seed);
		hw_open_graph(&h, &g, name);
		/* the brute force: v floats if no single other object cuts it off */
		for (unsigned v = 0; v < g.n; v++) {
			if (g.root[v])
				continue;
			floats[v] = 1;
			for (unsigned d = 0; d < g.n && floats[v]; d++) {
				if (d == v)
					continue;
				graph_reach(&g, (int)d, seen);
				floats[v] = seen[v];
			}
			if (!floats[v])
				continue;
			graph_reach(&g, (int)v, seen); /* what v alone keeps: itself and what it cuts off */
			for (unsigned u = 0; u < g.n; u++)
				if (!seen[u])
					ret[v] += h.node_shallow[g.node[u]];
		}
		objset_all(&h, &all);
		run_insp(&h, "floating", &all, &r);
		unsigned found = 0, want = 0;
		for (unsigned v = 0; v < g.n; v++)
			want += floats[v];
		for (size_t i = 0; i < r.n; i++) {
			uint64_t sum = 0;
			for (uint64_t k = 0; k < r.g[i].count; k++) {
				node_t x = r.g[i].nodes[k];
				uint64_t id = heap_node_id(&h, x);
				ck_assert_msg(id >= HWG_OBJ && id < hw_graph_id(g.n), "seed %u: %s 0x%llx floats",
					      seed, r.g[i].name, (unsigned long long)id);
				unsigned v = (unsigned)((id - HWG_OBJ) / 2);
				ck_assert_msg(floats[v], "seed %u: object %u floats, brute force says not", seed, v);
				ck_assert_str_eq(r.g[i].name, v % 2 ? "t.C1" : "t.C0"); /* a group per class */
				ck_assert_uint_eq(h.retained[x], ret[v]);
				sum += ret[v];
				found++;
			}
			ck_assert_uint_eq(r.g[i].extra, sum); /* none dominates another */
		}
		ck_assert_msg(found == want, "seed %u: %u float, brute force %u", seed, found, want);
		total += want;
		for (unsigned v = 0; v < g.n; v++)
			nonfloat += !g.root[v] && !floats[v];
		insp_result_free(&r);
		objset_free(&all);
		heap_free(&h);
	}
	/* the graphs have both kinds, plenty of each (100 in 60 graphs) */
	ck_assert_uint_ge(3 * total, 5 * heaps);
	ck_assert_uint_ge(3 * nonfloat, 5 * heaps);
}
END_TEST

/* a (root, t.A) -> x (t.B) <- c (root, t.C), x -> y: x floats, and
 * `owns t.A f0` makes a its dominator. */
enum { O_A = 0x5001, O_B = 0x5003, O_C = 0x5005, O_Y = 0x5007, C_A = 0x3001, C_B = 0x3011, C_C = 0x3021 };

static char *write_shared(void)
{
	struct hw w;
	const struct hw_field f[] = { { G_FIELD, T_OBJECT, 0 } };

	hw_begin(&w, "JAVA PROFILE 1.0.2", 8);
	hw_jdk_names(&w);
	hw_utf8(&w, G_FIELD, "f0");
	hw_class_name(&w, 8, C_A, "t/A");
	hw_class_name(&w, 9, C_B, "t/B");
	hw_class_name(&w, 10, C_C, "t/C");
	hw_heap_begin(&w);
	hw_jdk_classes(&w);
	for (uint64_t c = C_A; c <= C_C; c += 0x10)
		hw_class_dump(&w, c, J_OBJECT, 0, NULL, 0, NULL, 0, f, 1);
	for (uint64_t c = J_OBJECT; c <= J_OBJARR; c += 0x10)
		hw_root(&w, HW_ROOT_STICKY_CLASS, c, 0, 0);
	for (uint64_t c = C_A; c <= C_C; c += 0x10)
		hw_root(&w, HW_ROOT_STICKY_CLASS, c, 0, 0);
	hw_root(&w, HW_ROOT_UNKNOWN, O_A, 0, 0);
	hw_root(&w, HW_ROOT_UNKNOWN, O_C, 0, 0);
	const struct hw_field to_b[] = { { 0, T_OBJECT, O_B } }, to_y[] = { { 0, T_OBJECT, O_Y } },
		none[] = { { 0, T_OBJECT, 0 } };
	hw_instance(&w, O_A, C_A, to_b, 1);
	hw_instance(&w, O_B, C_B, to_y, 1);
	hw_instance(&w, O_C, C_C, to_b, 1);
	hw_instance(&w, O_Y, C_B, none, 1);
	hw_heap_end(&w);
	hw_dump_end(&w);
	char *path = hw_write(&w, "shared-owner.hprof", SIZE_MAX);
	hw_free(&w);
	return path;
}

START_TEST(floating_owned)
{
	char *path = write_shared();
	struct heap h;
	struct ruleset *rs;
	struct objset all;
	struct insp_result r;

	open_rules(&h, path, NULL, &rs);
	node_t a = heap_find_id(&h, O_A), x = heap_find_id(&h, O_B), y = heap_find_id(&h, O_Y);
	objset_all(&h, &all);
	run_insp(&h, "floating", &all, &r);
	ck_assert_uint_eq(r.n, 1);
	ck_assert_str_eq(r.g[0].name, "t.B");
	ck_assert_uint_eq(r.g[0].count, 1);
	ck_assert_uint_eq(r.g[0].nodes[0], x);
	ck_assert_uint_eq(r.g[0].extra, (uint64_t)h.node_shallow[x] + h.node_shallow[y]);
	insp_result_free(&r);
	objset_free(&all);
	heap_free(&h);

	open_rules(&h, path, "owns t.A f0\n", &rs);
	ck_assert_uint_eq(h.idom[x], a);
	objset_all(&h, &all);
	run_insp(&h, "floating", &all, &r);
	ck_assert_uint_eq(r.n, 0);
	insp_result_free(&r);
	objset_free(&all);
	heap_free(&h);
	rules_free(rs);
	free(path);
}
END_TEST

/* ---- on a JDK dump of tests/java/Owners ---- */

static const char *owners_dump(void)
{
	static char path[512];

	workload_dump("Owners", "owners", "", path, sizeof path);
	return path;
}

struct fval { const char *name; struct hvalue v; int found; };

static void fval_cb(void *arg, const char *name, const struct hvalue *val)
{
	struct fval *f = arg;

	if (!f->found && strcmp(name, f->name) == 0) {
		f->v = *val;
		f->found = 1;
	}
}

static struct hvalue field_of(const struct heap *h, node_t v, const char *name)
{
	struct fval f = { name, { 0 }, 0 };

	hprof_fields(h, v, fval_cb, &f);
	ck_assert_msg(f.found, "no field %s", name);
	return f.v;
}

static uint32_t class_named(const struct heap *h, const char *name)
{
	for (uint32_t c = 0; c < h->ncls; c++)
		if (strcmp(class_name(h, c), name) == 0)
			return c;
	ck_abort_msg("no class %s", name);
	return HW_NONE;
}

/* The instances of cls, ascending; *n of them. */
static node_t *instances(const struct heap *h, const char *cls, uint64_t *n)
{
	uint32_t c = class_named(h, cls);
	node_t *v = xmalloc(((size_t)h->n + 1) * sizeof *v);

	*n = 0;
	for (node_t u = 1; u < h->n; u++)
		if (h->node_class[u] == c)
			v[(*n)++] = u;
	return v;
}

/* The group named `name`, and its number (from 1) in *k; NULL if none. */
static const struct insp_group *group_named(const struct insp_result *r, const char *name, size_t *k)
{
	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->g[i].name, name) == 0) {
			*k = i + 1;
			return &r->g[i];
		}
	return NULL;
}

/* The parts that float, each with its payload, per the workload: `ids`
 * (a bit per part id) members, bytes the parts and payloads. The step
 * "inspection floating group K" selects the same. */
static void check_parts(struct heap *h, unsigned ids)
{
	struct objset all, k;
	struct insp_result r;
	size_t gk = 0;
	uint64_t np, want_n = 0, want_bytes = 0;
	node_t *parts = instances(h, "Owners$Part", &np);

	ck_assert_uint_eq(np, 4);
	for (uint64_t i = 0; i < np; i++) {
		int64_t id = field_of(h, parts[i], "id").v.i;
		if (!(ids & (1u << id)))
			continue;
		node_t pay = heap_find_id(h, field_of(h, parts[i], "payload").v.id);
		want_n++;
		want_bytes += (uint64_t)h->node_shallow[parts[i]] + h->node_shallow[pay];
	}
	objset_all(h, &all);
	run_insp(h, "floating", &all, &r);
	const struct insp_group *g = group_named(&r, "Owners$Part", &gk);
	ck_assert_ptr_nonnull(g);
	ck_assert_uint_eq(g->count, want_n);
	ck_assert_uint_eq(g->extra, want_bytes);
	for (uint64_t i = 0; i < g->count; i++)
		ck_assert(ids & (1u << field_of(h, g->nodes[i], "id").v.i));
	/* nothing else of the workload floats: holder, lists, conns are the
	 * statics' own, the payloads their parts' */
	for (size_t i = 0; i < r.n; i++)
		ck_assert_msg(strncmp(r.g[i].name, "Owners", 6) != 0 || &r.g[i] == g, "%s floats", r.g[i].name);
	/* the group is a step */
	struct pipeline pl;
	struct sbuf err;
	char expr[64];
	sbuf_init(&err);
	snprintf(expr, sizeof expr, "inspection floating group %zu", gk);
	ck_assert_msg(pipeline_parse(expr, &pl, &err) == 0, "%s", err.buf);
	objset_whole(h, &k);
	ck_assert_msg(step_apply(h, &pl.steps[0], &k, NULL, &err) == 0, "%s", err.buf);
	ck_assert_uint_eq(k.count, want_n);
	for (uint64_t i = 0; i < g->count; i++)
		ck_assert(objset_has(&k, g->nodes[i]));
	pipeline_free(&pl);
	objset_free(&k);
	sbuf_free(&err);
	insp_result_free(&r);
	objset_free(&all);
	free(parts);
}

START_TEST(floating_jdk)
{
	const char *path = owners_dump();
	struct heap h;
	struct ruleset *rs;
	struct sbuf err;

	open_rules(&h, path, NULL, &rs);
	check_parts(&h, 0x1e); /* parts 1..4 */
	heap_free(&h);
	/* jdk.rules and an owner for part 1 */
	rs = rules_new();
	sbuf_init(&err);
	ck_assert_int_eq(rules_load_default(rs, &err), 0);
	ck_assert_int_eq(rules_parse(rs, "t.rules", "owns Owners$Holder part\n", 24, &err), 0);
	struct open_opts o = { .no_cache = 1, .quiet = 1, .rules = rs };
	ck_assert_msg(heap_open(&h, path, &o, NULL, &err) == 0, "%s", err.buf);
	heap_need(&h, HP_ALL, NULL);
	uint64_t n;
	node_t *holder = instances(&h, "Owners$Holder", &n);
	ck_assert_uint_eq(n, 1);
	node_t part1 = heap_find_id(&h, field_of(&h, holder[0], "part").v.id);
	ck_assert_uint_eq(h.idom[part1], holder[0]);
	check_parts(&h, 0x1c); /* parts 2..4 */
	/* the rules switched off again: part 1 floats again */
	ck_assert_int_eq(rules_enable(rs, "default", 0), 0);
	ck_assert_int_eq(heap_apply_rules(&h, rs, NULL), 0);
	check_parts(&h, 0x1e);
	free(holder);
	heap_free(&h);
	rules_free(rs);
	sbuf_free(&err);
}
END_TEST

/* ---- tag-if-zero, tag-if-nonzero ---- */

static void parse_fails(const char *text, const char *want)
{
	struct ruleset *rs = rules_new();
	struct sbuf err;

	sbuf_init(&err);
	ck_assert_int_eq(rules_parse(rs, "t.rules", text, strlen(text), &err), -1);
	ck_assert_msg(err.buf != NULL && strncmp(err.buf, want, strlen(want)) == 0,
		      "for \"%s\": got \"%s\", want \"%s...\"", text, err.buf ? err.buf : "", want);
	ck_assert_ptr_null(strchr(err.buf, '\n'));
	ck_assert_uint_eq(rs->n, 0);
	sbuf_free(&err);
	rules_free(rs);
}

START_TEST(conditional_parse)
{
	parse_fails("tag-if-zero Foo \"x\"", "t.rules:1:17: 'tag-if-zero' needs a field");
	parse_fails("tag-if-nonzero Foo a b \"x\"", "t.rules:1:22: 'tag-if-nonzero' takes one field");
	parse_fails("tag-if-zero Foo a", "t.rules:1:18: 'tag-if-zero' needs a \"label\"");
	parse_fails("tag-if-zero Foo * \"x\"", "t.rules:1:17: 'tag-if-zero' reads a field by its name");
	parse_fails("tag-if-zero Foo [] \"x\"", "t.rules:1:17: 'tag-if-zero' reads a field");
	parse_fails("tag-if-zero Foo a.values \"x\"", "t.rules:1:17: 'tag-if-zero' reads a field");
	parse_fails("# c\n  tag-if-nonzero Foo this.keys \"x\"", "t.rules:2:22: 'tag-if-nonzero' reads");
	parse_fails("tag-if-zero Foo a weight 2", "t.rules:1:19: only 'owns'");
	parse_fails("tag-if-zero Foo a \"x\" b", "t.rules:1:23: nothing may follow");
	parse_fails("tag-if-zer Foo a \"x\"", "t.rules:1:1: unknown verb 'tag-if-zer'");
	parse_fails("owns Foo a \"x\"", "t.rules:1:12: only the tag verbs");

	/* the canonical text parses back to the same rules */
	static const char text[] = "tag-if-zero com.acme.Conn+ port \"idle \\\"port\\\"\"\n"
				   "tag-if-nonzero /^a\\/b/ peer \"up\"\n";
	struct ruleset *rs = rules_new(), *again = rules_new();
	struct sbuf err, s;
	sbuf_init(&err);
	sbuf_init(&s);
	ck_assert_msg(rules_parse(rs, "t.rules", text, strlen(text), &err) == 0, "%s", err.buf);
	ck_assert_uint_eq(rs->n, 2);
	ck_assert_int_eq(rs->rules[0].verb, RV_TAG_ZERO);
	ck_assert_int_eq(rs->rules[1].verb, RV_TAG_NONZERO);
	ck_assert_str_eq(rs->rules[0].label, "idle \"port\"");
	ck_assert_str_eq(rs->rules[1].fields[0].name, "peer");
	for (size_t i = 0; i < rs->n; i++) {
		rule_to_string(rs, &rs->rules[i], &s);
		sbuf_addc(&s, '\n');
	}
	ck_assert_str_eq(s.buf, "tag-if-zero com.acme.Conn+ port \"idle \\\"port\\\"\"\n"
				"tag-if-nonzero /^a\\/b/ peer \"up\"\n");
	ck_assert_msg(rules_parse(again, "u.rules", s.buf, s.len, &err) == 0, "%s", err.buf);
	ck_assert_uint_eq(rules_fingerprint(again), rules_fingerprint(rs));
	rules_free(again);
	rules_free(rs);
	sbuf_free(&s);
	sbuf_free(&err);
}
END_TEST

static const char cond_rules[] =
	"tag-if-zero Owners$Conn port \"idle\"\n"
	"tag-if-nonzero Owners$Conn port \"listening\"\n"
	"tag-if-zero Owners$Conn peer \"alone\"\n"
	"tag-if-nonzero Owners$Conn peer \"connected\"\n"
	"tag-if-zero Owners$Conn opened \"never opened\"\n"
	"tag-if-nonzero Owners$Conn open \"open\"\n"
	"tag-if-zero Owners$Conn nosuchfield \"never\"\n";

/* The members of the `tagged` group named label (none: 0). */
static uint64_t tagged_count(const struct insp_result *r, const char *label)
{
	size_t k;
	const struct insp_group *g = group_named(r, label, &k);

	return g != NULL ? g->count : 0;
}

START_TEST(conditional_tags)
{
	const char *path = owners_dump();
	struct heap h;
	struct ruleset *rs;
	struct objset all;
	struct insp_result r;

	open_rules(&h, path, cond_rules, &rs);
	objset_all(&h, &all);
	run_insp(&h, "tagged", &all, &r);
	/* from Owners.java: conn i has port 0 for i < 7, peer null when
	 * i % 3 == 0 (0, 3, 6, 9), opened 0 for i < 2, open when i is even */
	ck_assert_uint_eq(tagged_count(&r, "idle"), 7);
	ck_assert_uint_eq(tagged_count(&r, "listening"), 5);
	ck_assert_uint_eq(tagged_count(&r, "alone"), 4);
	ck_assert_uint_eq(tagged_count(&r, "connected"), 8);
	ck_assert_uint_eq(tagged_count(&r, "never opened"), 2);
	ck_assert_uint_eq(tagged_count(&r, "open"), 6);
	ck_assert_uint_eq(tagged_count(&r, "never"), 0);
	ck_assert_uint_eq(r.n, 6);
	insp_result_free(&r);
	/* each conn's labels agree with its own fields, decoded here */
	uint64_t n;
	node_t *conn = instances(&h, "Owners$Conn", &n);
	ck_assert_uint_eq(n, 12);
	for (uint64_t i = 0; i < n; i++) {
		struct sbuf sb, want;
		sbuf_init(&sb);
		sbuf_init(&want);
		node_tags(&h, conn[i], &sb);
		int port = field_of(&h, conn[i], "port").v.i != 0;
		int peer = field_of(&h, conn[i], "peer").v.id != 0;
		int opened = field_of(&h, conn[i], "opened").v.i != 0;
		int open = field_of(&h, conn[i], "open").v.i != 0;
		/* labels in the order of their first use in the rules */
		sbuf_printf(&want, "%s; %s%s%s", port ? "listening" : "idle", peer ? "connected" : "alone",
			    opened ? "" : "; never opened", open ? "; open" : "");
		ck_assert_str_eq(sb.buf, want.buf);
		sbuf_free(&sb);
		sbuf_free(&want);
	}
	free(conn);
	/* the rule whose field no Conn has is said, as a note of the run's
	 * (its rules'), not among the dump's warnings (6145985) */
	int warned = 0, in_dump = 0;
	for (size_t i = 0; i < h.notes.n; i++)
		warned |= strstr(h.notes.msg[i], "'tag-if-zero Owners$Conn nosuchfield \"never\"'") != NULL;
	for (size_t i = 0; i < h.warn.n; i++)
		in_dump |= strstr(h.warn.msg[i], "nosuchfield") != NULL;
	ck_assert(warned && !in_dump);
	objset_free(&all);
	heap_free(&h);
	rules_free(rs);
}
END_TEST

/* The command line: a rules file with the conditional verbs, printed
 * back by `heapwalk rules` and applied by `inspect tagged`. */
START_TEST(conditional_cli)
{
	const char *path = owners_dump();
	char cmd[2048];
	int st;

	mkdir(TEST_BUILDDIR "/tmp", 0755);
	FILE *f = fopen(TEST_BUILDDIR "/tmp/cond.rules", "w");
	ck_assert_ptr_nonnull(f);
	fputs("group conns\ntag-if-zero Owners$Conn port \"idle\"\n", f);
	fclose(f);
	snprintf(cmd, sizeof cmd, "%s --rules " TEST_BUILDDIR "/tmp/cond.rules rules", heapwalk());
	char *out = run(cmd, &st);
	ck_assert_int_eq(WEXITSTATUS(st), 0);
	ck_assert_ptr_nonnull(strstr(out, "  tag-if-zero Owners$Conn port \"idle\""));
	free(out);
	snprintf(cmd, sizeof cmd, "%s -q --no-cache --rules " TEST_BUILDDIR "/tmp/cond.rules inspect %s tagged -f csv",
		 heapwalk(), path);
	out = run(cmd, &st);
	ck_assert_int_eq(WEXITSTATUS(st), 0);
	ck_assert_msg(strstr(out, ",7,") != NULL && strstr(out, "idle") != NULL, "%s", out);
	free(out);
	f = fopen(TEST_BUILDDIR "/tmp/cond-bad.rules", "w");
	fputs("\ntag-if-nonzero Owners$Conn peer port \"x\"\n", f);
	fclose(f);
	snprintf(cmd, sizeof cmd, "%s --rules " TEST_BUILDDIR "/tmp/cond-bad.rules rules 2>&1", heapwalk());
	out = run(cmd, &st);
	ck_assert_int_eq(WEXITSTATUS(st), 2);
	ck_assert_msg(strstr(out, "cond-bad.rules:2:33: 'tag-if-nonzero' takes one field") != NULL, "%s", out);
	ck_assert_int_eq((int)strcspn(out, "\n") + 1, (int)strlen(out));
	free(out);
}
END_TEST

/* ---- lifelines ---- */

/* X held by 3 t.H1 (field f0) in an Object[] that a JNI global holds,
 * and by 2 t.H2 that are GC roots themselves; a chain R -> O -> M -> Y
 * through f0 (R a root); a chain of `chain` t.C objects through f0
 * from a root C0 down to the last. */
enum { L_X = 0x6001, L_ARR = 0x6003, L_H1 = 0x6101, L_H2 = 0x6201, L_R = 0x6301, L_O = 0x6303,
       L_M = 0x6305, L_Y = 0x6307, L_C = 0x100001,
       LC_X = 0x3001, LC_H1 = 0x3011, LC_H2 = 0x3021, LC_R = 0x3031, LC_O = 0x3041, LC_M = 0x3051,
       LC_Y = 0x3061, LC_C = 0x3071 };

static char *write_lifelines(unsigned chain)
{
	static const struct { uint64_t id; const char *name; } cls[] = {
		{ LC_X, "t/X" }, { LC_H1, "t/H1" }, { LC_H2, "t/H2" }, { LC_R, "t/R" }, { LC_O, "t/O" },
		{ LC_M, "t/M" }, { LC_Y, "t/Y" }, { LC_C, "t/C" },
	};
	struct hw w;
	struct hw_field f[] = { { G_FIELD, T_OBJECT, 0 } };
	uint64_t arr[3];

	hw_begin(&w, "JAVA PROFILE 1.0.2", 8);
	hw_jdk_names(&w);
	hw_utf8(&w, G_FIELD, "f0");
	for (size_t i = 0; i < sizeof cls / sizeof *cls; i++)
		hw_class_name(&w, 8 + (uint32_t)i, cls[i].id, cls[i].name);
	hw_heap_begin(&w);
	hw_jdk_classes(&w);
	for (size_t i = 0; i < sizeof cls / sizeof *cls; i++) {
		hw_class_dump(&w, cls[i].id, J_OBJECT, 0, NULL, 0, NULL, 0, f, 1);
		hw_root(&w, HW_ROOT_STICKY_CLASS, cls[i].id, 0, 0);
	}
	for (uint64_t c = J_OBJECT; c <= J_OBJARR; c += 0x10)
		hw_root(&w, HW_ROOT_STICKY_CLASS, c, 0, 0);
	hw_root(&w, HW_ROOT_JNI_GLOBAL, L_ARR, 0x9001, 0);
	hw_root(&w, HW_ROOT_UNKNOWN, L_H2, 0, 0);
	hw_root(&w, HW_ROOT_UNKNOWN, L_H2 + 2, 0, 0);
	hw_root(&w, HW_ROOT_UNKNOWN, L_R, 0, 0);
	hw_root(&w, HW_ROOT_UNKNOWN, L_C, 0, 0);
	f[0].value = L_X;
	for (int i = 0; i < 3; i++) {
		arr[i] = L_H1 + 2 * (uint64_t)i;
		hw_instance(&w, arr[i], LC_H1, f, 1);
	}
	hw_objarray(&w, L_ARR, J_OBJARR, arr, 3);
	hw_instance(&w, L_H2, LC_H2, f, 1);
	hw_instance(&w, L_H2 + 2, LC_H2, f, 1);
	f[0].value = 0;
	hw_instance(&w, L_X, LC_X, f, 1);
	f[0].value = L_O;
	hw_instance(&w, L_R, LC_R, f, 1);
	f[0].value = L_M;
	hw_instance(&w, L_O, LC_O, f, 1);
	f[0].value = L_Y;
	hw_instance(&w, L_M, LC_M, f, 1);
	f[0].value = 0;
	hw_instance(&w, L_Y, LC_Y, f, 1);
	for (unsigned i = 0; i < chain; i++) {
		f[0].value = i + 1 < chain ? L_C + 2 * (uint64_t)(i + 1) : 0;
		hw_instance(&w, L_C + 2 * (uint64_t)i, LC_C, f, 1);
	}
	hw_heap_end(&w);
	hw_dump_end(&w);
	char *path = hw_write(&w, "lifelines.hprof", SIZE_MAX);
	hw_free(&w);
	return path;
}

/* Lifeline i reads: its steps' holder and field, "holder .field" joined by " / ". */
static void ll_text(const struct lifeline_view *v, size_t i, struct sbuf *out)
{
	const struct lifeline *l = &v->ll[i];

	sbuf_reset(out);
	for (size_t k = 0; k < l->n; k++) {
		const struct lifeline_step *st = &v->steps[l->first + k];
		sbuf_printf(out, "%s%s .%s", k ? " / " : "", v->strs[st->holder], v->strs[st->field]);
		if (st->max > 1)
			sbuf_printf(out, " x%llu-%llu", (unsigned long long)st->min, (unsigned long long)st->max);
	}
}

START_TEST(lifelines_graph)
{
	enum { CHAIN = 200000 };
	char *path = write_lifelines(CHAIN);
	struct heap h;
	struct ruleset *rs;
	struct lifeline_view v;
	struct sbuf sb;

	sbuf_init(&sb);
	open_rules(&h, path, NULL, &rs);
	/* five holders, two ways: 3 through the array, 2 roots themselves */
	view_lifelines(&h, heap_find_id(&h, L_X), 0, &v);
	ck_assert_uint_eq(v.n, 2);
	ck_assert_uint_eq(v.paths, 5);
	ck_assert(!v.limited);
	ll_text(&v, 0, &sb);
	ck_assert_str_eq(sb.buf, "[Ljava.lang.Object; .[] / t.H1 .f0");
	ck_assert_uint_eq(v.ll[0].count, 3);
	ck_assert_int_eq(v.ll[0].end, LE_ROOT);
	ck_assert_str_eq(v.strs[v.ll[0].end_what], "global handle: JNI global");
	ll_text(&v, 1, &sb);
	ck_assert_str_eq(sb.buf, "t.H2 .f0");
	ck_assert_uint_eq(v.ll[1].count, 2);
	lifeline_view_free(&v);
	/* the bound: two paths, and the view says it stopped */
	view_lifelines(&h, heap_find_id(&h, L_X), 2, &v);
	ck_assert_uint_eq(v.paths, 2);
	ck_assert(v.limited);
	lifeline_view_free(&v);
	/* no rules: Y's one lifeline goes up to the root R */
	view_lifelines(&h, heap_find_id(&h, L_Y), 0, &v);
	ck_assert_uint_eq(v.n, 1);
	ll_text(&v, 0, &sb);
	ck_assert_str_eq(sb.buf, "t.R .f0 / t.O .f0 / t.M .f0");
	lifeline_view_free(&v);
	/* the chain's last object: one lifeline, its step repeated, walked
	 * in a loop (CHAIN objects would overflow a recursion's stack) */
	view_lifelines(&h, heap_find_id(&h, L_C + 2 * (uint64_t)(CHAIN - 1)), 0, &v);
	ck_assert_uint_eq(v.n, 1);
	ll_text(&v, 0, &sb);
	ck_assert_str_eq(sb.buf, "t.C .f0 x199999-199999");
	lifeline_view_free(&v);
	/* a GC root lives by itself */
	view_lifelines(&h, heap_find_id(&h, L_R), 0, &v);
	ck_assert(v.root);
	ck_assert_uint_eq(v.n, 1);
	ck_assert_uint_eq(v.ll[0].n, 0);
	lifeline_view_free(&v);
	heap_free(&h);

	/* with O owning M, Y's lifeline stops at M, owned */
	open_rules(&h, path, "owns t.O f0\n", &rs);
	view_lifelines(&h, heap_find_id(&h, L_Y), 0, &v);
	ck_assert_uint_eq(v.n, 1);
	ll_text(&v, 0, &sb);
	ck_assert_str_eq(sb.buf, "t.M .f0");
	ck_assert_int_eq(v.ll[0].end, LE_OWNED);
	ck_assert_str_eq(v.strs[v.ll[0].end_what], "owns t.O f0 weight 1 (t.rules:1)");
	ck_assert_uint_eq(v.ll[0].example, heap_find_id(&h, L_M));
	lifeline_view_free(&v);
	heap_free(&h);
	rules_free(rs);
	sbuf_free(&sb);
	free(path);
}
END_TEST

/* Batch: the command and the view word give the same report; the JDK
 * dump's part 1 lives through holder 1 and through Other.keep. */
START_TEST(lifelines_cli)
{
	const char *path = owners_dump();
	struct heap h;
	struct ruleset *rs;
	char cmd[2048], id[32];
	int st;

	open_rules(&h, path, NULL, &rs);
	uint64_t n;
	node_t *holder = instances(&h, "Owners$Holder", &n);
	node_t part1 = heap_find_id(&h, field_of(&h, holder[0], "part").v.id);
	snprintf(id, sizeof id, "0x%llx", (unsigned long long)heap_node_id(&h, part1));
	free(holder);
	heap_free(&h);
	snprintf(cmd, sizeof cmd, "%s -q --no-cache lifelines %s %s -f csv", heapwalk(), path, id);
	char *a = run(cmd, &st);
	ck_assert_int_eq(WEXITSTATUS(st), 0);
	snprintf(cmd, sizeof cmd, "%s -q --no-cache %s -e 'object %s | lifelines' -f csv", heapwalk(), path, id);
	char *b = run(cmd, &st);
	ck_assert_int_eq(WEXITSTATUS(st), 0);
	ck_assert_str_eq(a, b);
	ck_assert_msg(strstr(a, "Owners$Holder,part,1,") != NULL, "%s", a);
	ck_assert_msg(strstr(a, "\"class Owners$Other\",\"static keep\",1,") != NULL, "%s", a);
	free(a);
	free(b);
	snprintf(cmd, sizeof cmd, "%s -q --no-cache lifelines %s %s -f json", heapwalk(), path, id);
	a = run(cmd, &st);
	ck_assert_int_eq(WEXITSTATUS(st), 0);
	ck_assert_ptr_nonnull(strstr(a, "\"view\":\"lifelines\""));
	free(a);
	snprintf(cmd, sizeof cmd, "%s -q --no-cache %s -e 'instances Owners$Part | lifelines' 2>&1", heapwalk(), path);
	a = run(cmd, &st);
	ck_assert_int_ne(WEXITSTATUS(st), 0);
	ck_assert_ptr_nonnull(strstr(a, "lifelines needs a set of one object, not 4"));
	free(a);
}
END_TEST

Suite *owners_suite(void)
{
	Suite *s = suite_create("owners");
	TCase *tc = tcase_create("graphs");
	tcase_add_test(tc, floating_brute_force);
	tcase_add_test(tc, floating_owned);
	tcase_add_test(tc, conditional_parse);
	tcase_add_test(tc, lifelines_graph);
	suite_add_tcase(s, tc);
	tc = tcase_create("dump");
	tcase_set_timeout(tc, FIXTURE_TIMEOUT);
	tcase_add_test(tc, floating_jdk);
	tcase_add_test(tc, conditional_tags);
	tcase_add_test(tc, conditional_cli);
	tcase_add_test(tc, lifelines_cli);
	suite_add_tcase(s, tc);
	return s;
}
