/* test_rules.c — reference-classifier rules: the parser (errors name
 * FILE:LINE:COLUMN), and their effect on a real dump of tests/java/Owned
 * whose dominators are worked out by hand in Owned.java's comments:
 *   A  item 1: owner 1 and a registry slot refer to it; without rules the
 *      class Owned (whose statics hold both) dominates it, with `owns
 *      Owner item` owner 1 does, and the slot's reference is incidental
 *   B  a parent only its child's back link reaches: dominated by the
 *      child, or weakly reachable (the virtual root) with `weak Child parent`
 *   C  items 100..104, in a cache's HashMap and in a list: the class Owned,
 *      or with `owns Cache map.values` each its HashMap$Node
 *   D  item 2, owned by owners 2 and 3 with equal weight: ambiguous, the
 *      class Owned still dominates it
 *   E  item 3: owner 4 (weight 1) and the boss (weight 10): the boss
 *   H  a WeakHashMap entry whose value is its key: the referent field is
 *      weak, the value field strong, so the entry dominates the key
 *   F  item 4: owner 5, which only a weak reference (Backup.owner) reaches,
 *      and a registry slot: its owner is out of strong reach, so the slot's
 *      reference counts again (not incidental), and what only a weak
 *      reference keeps holds nothing the roots hold: the slots' array
 *      dominates it (it was the virtual root, where weakly reachable
 *      objects hang, with owner 5 for a second holder)
 * Toggling a group and applying again gives what a fresh open with those
 * rules gives, also through the index cache. The References inspections
 * run on tests/java/Refs, dumped without a GC first (refs-run.sh): 3
 * objects only soft references reach, 4 weak, 5 phantom, 6 finalizable
 * objects nothing else keeps (2 more held strongly), one object a soft
 * and a weak reference both reach (soft), one weakly referenced object
 * held strongly (in no group). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "format/hprof.h"
#include "graph/analysis.h"
#include "engine/open.h"
#include "graph/ownership.h"
#include "graph/rules.h"
#include "query/inspect.h"
#include "query/lifelines.h"
#include "query/merged.h"
#include "suites.h"


/* ---- the parser ---- */

static void parse_fails(const char *text, const char *want)
{
	struct ruleset *rs = rules_new();
	struct sbuf err;

	sbuf_init(&err);
	ck_assert_int_eq(rules_parse(rs, "t.rules", text, strlen(text), &err), -1);
	ck_assert_msg(err.buf != NULL && strncmp(err.buf, want, strlen(want)) == 0,
		      "for \"%s\": got \"%s\", want \"%s...\"", text, err.buf ? err.buf : "", want);
	ck_assert_uint_eq(rs->n, 0); /* nothing of a bad text is kept */
	sbuf_free(&err);
	rules_free(rs);
}

START_TEST(parse_errors)
{
	parse_fails("owns Foo", "t.rules:1:9: expected a field");
	parse_fails("own Foo bar", "t.rules:1:1: unknown verb 'own'");
	parse_fails("# fine\nweak Foo bar\nweak /a(/ x", "t.rules:3:");
	parse_fails("tag Foo \"x", "t.rules:1:9: unclosed");
	parse_fails("owns Foo bar weight 0", "t.rules:1:21: the weight");
	parse_fails("owns Foo bar weight 1001", "t.rules:1:21: the weight");
	parse_fails("weak Foo bar.vals", "t.rules:1:13: bad field");
	parse_fails("weak Foo bar weight 3", "t.rules:1:14: only 'owns'");
	parse_fails("tag Foo", "t.rules:1:8: 'tag' needs");
	parse_fails("weak Foo this", "t.rules:1:10: 'this' needs");
	parse_fails("group\n", "t.rules:1:6: expected a group name");
	parse_fails("group g maybe", "t.rules:1:9: expected 'on'");
	parse_fails("weak Fo^o x", "t.rules:1:6: 'Fo^o' is not a class name");
}
END_TEST

START_TEST(parse_rules)
{
	static const char text[] =
		"# a comment\n"
		"weak java.lang.ref.Reference+ referent   # trailing\n"
		"group own off \"owning\"\n"
		"owns /^com\\.acme\\./+ cache.values items.keys weight 7\n"
		"tag com.acme.Foo \"a \\\"quoted\\\" label\"\n"
		"group own on\n"
		"weak java.lang.Object[] [] this.elements *\n";
	struct ruleset *rs = rules_new();
	struct sbuf err, s;

	sbuf_init(&err);
	sbuf_init(&s);
	ck_assert_msg(rules_parse(rs, "t.rules", text, strlen(text), &err) == 0, "%s", err.buf);
	ck_assert_uint_eq(rs->n, 4);
	ck_assert_uint_eq(rs->ngroups, 2);
	ck_assert_str_eq(rs->groups[0].name, "default");
	ck_assert_str_eq(rs->groups[1].name, "own");
	ck_assert_str_eq(rs->groups[1].description, "owning");
	ck_assert_int_eq(rs->groups[1].enabled, 1); /* "on" later wins */
	ck_assert_int_eq(rs->rules[1].verb, RV_OWNS);
	ck_assert_int_eq(rs->rules[1].type_regex, 1);
	ck_assert_int_eq(rs->rules[1].subclasses, 1);
	ck_assert_uint_eq(rs->rules[1].weight, 7);
	ck_assert_uint_eq(rs->rules[1].nfields, 2);
	ck_assert_int_eq(rs->rules[1].fields[0].reach, RR_VALUES);
	ck_assert_str_eq(rs->rules[1].fields[1].name, "items");
	ck_assert_int_eq(rs->rules[1].fields[1].reach, RR_KEYS);
	ck_assert_uint_eq(rs->rules[2].line, 5);
	ck_assert_str_eq(rs->rules[2].label, "a \"quoted\" label");
	/* the canonical text parses back to the same rules */
	for (size_t i = 0; i < rs->n; i++) {
		rule_to_string(rs, &rs->rules[i], &s);
		sbuf_addc(&s, '\n');
	}
	struct ruleset *again = rules_new();
	ck_assert_msg(rules_parse(again, "u.rules", s.buf, s.len, &err) == 0, "%s: %s", s.buf, err.buf);
	ck_assert_uint_eq(rules_fingerprint(again), rules_fingerprint(rs));
	uint64_t fp = rules_fingerprint(rs);
	ck_assert_int_eq(rules_enable(rs, "own", 0), 0);
	ck_assert(rules_fingerprint(rs) != fp);
	ck_assert_int_eq(rules_enable(rs, "none-such", 0), -1);
	ck_assert(rules_fingerprint(NULL) == 0); /* the built-in default */
	ck_assert(rules_fingerprint(rs) != 0);
	rules_free(again);
	rules_free(rs);
	sbuf_free(&s);
	sbuf_free(&err);
}
END_TEST

START_TEST(load_file_errors)
{
	struct ruleset *rs = rules_new();
	struct sbuf err;
	const char *path = TEST_BUILDDIR "/tmp/bad.rules";

	sbuf_init(&err);
	ck_assert_int_eq(rules_load_file(rs, TEST_BUILDDIR "/tmp/no-such.rules", &err), -1);
	ck_assert_ptr_nonnull(strstr(err.buf, "no-such.rules: No such file"));
	sbuf_reset(&err);
	mkdir(TEST_BUILDDIR "/tmp", 0755);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("weak A b\n\n  owns B c weight x\n", f);
	fclose(f);
	ck_assert_int_eq(rules_load_file(rs, path, &err), -1);
	ck_assert_msg(strstr(err.buf, "bad.rules:3:19: the weight") != NULL, "%s", err.buf);
	/* and the shipped rules parse */
	ck_assert_int_eq(rules_load_default(rs, &err), 0);
	sbuf_free(&err);
	rules_free(rs);
}
END_TEST

/* ---- on the dump ---- */

static const char test_rules[] =
	"weak java.lang.ref.Reference+ referent\n"
	"group owning\n"
	"owns Owned$Owner item\n"
	"owns Owned$Boss item weight 10\n"
	"owns Owned$Cache map.values weight 5\n"
	"group backlinks\n"
	"weak Owned$Child parent\n"
	"weak Owned$Backup owner\n"
	"group tags\n"
	"tag Owned$Item \"owned-item\"\n";

static const char *owned_dump(void)
{
	static char path[512];

	workload_dump("Owned", "owned", "", path, sizeof path);
	return path;
}

struct idfield { const char *name; int64_t v; uint64_t ref; int found; };

static void id_cb(void *arg, const char *name, const struct hvalue *val)
{
	struct idfield *f = arg;

	if (strcmp(name, f->name) == 0) {
		f->v = val->v.i;
		f->ref = val->v.id;
		f->found = 1;
	}
}

static uint32_t class_named(const struct heap *h, const char *name)
{
	for (uint32_t c = 0; c < h->ncls; c++)
		if (strcmp(class_name(h, c), name) == 0)
			return c;
	ck_abort_msg("no class %s in the dump", name);
	return HW_NONE;
}

/* The instance of class `cls` whose int field `id` is `id` (-1: the only one). */
static node_t obj(const struct heap *h, const char *cls, int64_t id)
{
	uint32_t c = class_named(h, cls);
	node_t found = HW_NONE;

	for (node_t v = 1; v < h->n; v++) {
		if (h->node_class[v] != c)
			continue;
		struct idfield f = { "id", 0, 0, 0 };
		hprof_fields(h, v, id_cb, &f);
		if (id < 0 || (f.found && f.v == id)) {
			ck_assert_msg(found == HW_NONE, "two %s with id %lld", cls, (long long)id);
			found = v;
		}
	}
	ck_assert_msg(found != HW_NONE, "no %s with id %lld", cls, (long long)id);
	return found;
}

/* The node that field `name` of v refers to. */
static node_t ref_of(const struct heap *h, node_t v, const char *name)
{
	struct idfield f = { name, 0, 0, 0 };

	hprof_fields(h, v, id_cb, &f);
	ck_assert_msg(f.found && f.ref != 0, "no reference field %s", name);
	return heap_find_id(h, f.ref);
}

/* The HashMap$Node whose value is v. */
static node_t map_node_of(const struct heap *h, node_t v)
{
	uint32_t c = class_named(h, "java.util.HashMap$Node");
	uint64_t id = heap_node_id(h, v);

	for (node_t u = 1; u < h->n; u++) {
		if (h->node_class[u] != c)
			continue;
		struct idfield f = { "value", 0, 0, 0 };
		hprof_fields(h, u, id_cb, &f);
		if (f.ref == id)
			return u;
	}
	ck_abort_msg("no HashMap$Node holds the item");
	return HW_NONE;
}

struct cast { node_t cls_owned, item1, owner1, slots, parent, child, item2, item3, owner4, boss, item4; };

static void find_cast(const struct heap *h, struct cast *k)
{
	k->cls_owned = h->cls[class_named(h, "Owned")].node;
	k->item1 = obj(h, "Owned$Item", 1);
	k->owner1 = obj(h, "Owned$Owner", 1);
	k->slots = ref_of(h, obj(h, "Owned$Registry", -1), "slots");
	k->child = obj(h, "Owned$Child", -1);
	k->parent = obj(h, "Owned$Parent", -1);
	k->item2 = obj(h, "Owned$Item", 2);
	k->item3 = obj(h, "Owned$Item", 3);
	k->owner4 = obj(h, "Owned$Owner", 4);
	k->boss = obj(h, "Owned$Boss", -1);
	k->item4 = obj(h, "Owned$Item", 4);
}

static struct ruleset *test_ruleset(void)
{
	struct ruleset *rs = rules_new();
	struct sbuf err;

	sbuf_init(&err);
	ck_assert_msg(rules_parse(rs, "test.rules", test_rules, strlen(test_rules), &err) == 0, "%s", err.buf);
	sbuf_free(&err);
	return rs;
}

static void open_with(struct heap *h, const char *path, struct ruleset *rs, int no_cache)
{
	struct open_opts o = { .no_cache = no_cache, .quiet = 1, .rules = rs };
	struct sbuf err;

	sbuf_init(&err);
	ck_assert_msg(heap_open(h, path, &o, NULL, &err) == 0, "%s", err.buf);
	sbuf_free(&err);
	heap_need(h, HP_ALL, NULL);
}

static void check_without(const struct heap *h, const struct cast *k)
{
	ck_assert_uint_eq(h->idom[k->item1], k->cls_owned);
	ck_assert_uint_eq(h->idom[k->parent], k->child);
	ck_assert_uint_eq(h->idom[k->item2], k->cls_owned);
	ck_assert_uint_eq(h->idom[k->item3], k->cls_owned);
	ck_assert_uint_eq(h->idom[k->item4], k->cls_owned);
	for (int i = 100; i < 105; i++)
		ck_assert_uint_eq(h->idom[obj(h, "Owned$Item", i)], k->cls_owned);
	ck_assert_int_eq(ref_is_incidental(h, k->slots, k->item1), -1);
	ck_assert_uint_eq(h->nambiguous, 0);
}

static void check_with(const struct heap *h, const struct cast *k)
{
	/* A */
	ck_assert_uint_eq(h->idom[k->item1], k->owner1);
	ck_assert_int_eq(ref_is_incidental(h, k->slots, k->item1), 0);
	node_t pay = ref_of(h, k->item1, "payload");
	ck_assert_uint_eq(h->retained[k->owner1], (uint64_t)h->node_shallow[k->owner1] +
			  h->node_shallow[k->item1] + h->node_shallow[pay]);
	/* B */
	ck_assert_uint_eq(h->idom[k->parent], 0);
	ck_assert_int_ge(ref_is_weak(h, k->child, k->parent), 0);
	/* C */
	for (int i = 100; i < 105; i++) {
		node_t it = obj(h, "Owned$Item", i);
		ck_assert_uint_eq(h->idom[it], map_node_of(h, it));
	}
	/* D */
	ck_assert_uint_eq(h->idom[k->item2], k->cls_owned);
	ck_assert_uint_eq(h->nambiguous, 1);
	ck_assert_uint_eq(h->ambiguous[0], k->item2);
	/* E */
	ck_assert_uint_eq(h->idom[k->item3], k->boss);
	ck_assert_int_eq(ref_is_incidental(h, k->owner4, k->item3), 0);
	/* F */
	ck_assert_uint_eq(h->idom[k->item4], k->slots);
	ck_assert_int_eq(ref_is_incidental(h, k->slots, k->item4), -1);
	/* H: one object, two fields: the weak referent and the strong value */
	node_t key = obj(h, "Owned$SelfKey", -1);
	node_t entry = h->idom[key];
	ck_assert_str_eq(class_name(h, h->node_class[entry]), "java.util.WeakHashMap$Entry");
	ck_assert_int_ge(ref_is_weak(h, entry, key), 0);
	/* G: tags */
	struct sbuf sb;
	sbuf_init(&sb);
	ck_assert_int_eq(node_tags(h, k->item4, &sb), 1);
	ck_assert_str_eq(sb.buf, "owned-item");
	sbuf_reset(&sb);
	ck_assert_int_eq(node_tags(h, k->owner1, &sb), 0);
	sbuf_free(&sb);
}

/* Every analysis array of a equals b's. */
static void same_analyses(const struct heap *a, const struct heap *b)
{
	ck_assert_uint_eq(a->n, b->n);
	ck_assert_uint_eq(a->nedges, b->nedges);
	ck_assert_uint_eq(a->nweak, b->nweak);
	ck_assert_uint_eq(a->nrx, b->nrx);
	ck_assert_int_eq(memcmp(a->idom, b->idom, a->n * sizeof *a->idom), 0);
	ck_assert_int_eq(memcmp(a->retained, b->retained, a->n * sizeof *a->retained), 0);
	ck_assert_int_eq(memcmp(a->out, b->out, a->nedges * sizeof *a->out), 0);
	ck_assert_uint_eq(a->rules_fp, b->rules_fp);
}

START_TEST(dominators_follow_rules)
{
	const char *path = owned_dump();
	struct ruleset *rs = test_ruleset(), *none = rules_new();
	struct heap h, plain;
	struct cast k;
	struct sbuf err;

	sbuf_init(&err);
	rules_parse(none, "none.rules", test_rules, strcspn(test_rules, "\n") + 1, &err);
	open_with(&plain, path, none, 1); /* only the referent rule */
	find_cast(&plain, &k);
	check_without(&plain, &k);
	open_with(&h, path, rs, 1);
	check_with(&h, &k);
	/* the inspections of the rules see the same */
	struct objset all;
	struct insp_result r;
	objset_all(&h, &all);
	ck_assert_int_eq(inspect_run(&h, inspect_find("ambiguous-owners"), NULL, &all, &r, NULL, &err), 0);
	ck_assert_uint_eq(r.n, 1);
	ck_assert_uint_eq(r.g[0].count, 1);
	ck_assert_uint_eq(r.g[0].nodes[0], k.item2);
	insp_result_free(&r);
	ck_assert_int_eq(inspect_run(&h, inspect_find("tagged"), NULL, &all, &r, NULL, &err), 0);
	ck_assert_uint_eq(r.n, 1);
	ck_assert_str_eq(r.g[0].name, "owned-item");
	ck_assert_uint_eq(r.g[0].count, 9); /* items 1, 2, 3, 4 and 100..104 */
	insp_result_free(&r);
	ck_assert_int_eq(inspect_run(&h, inspect_find("unowned"), NULL, &all, &r, NULL, &err), 0);
	/* the parent (Child.parent) and owner 5 (Backup.owner) are reached only
	 * through weak rules; owner 5's item and payload are strongly held */
	uint64_t total = 0;
	int saw_parent = 0;
	for (size_t i = 0; i < r.n; i++) {
		total += r.g[i].count;
		for (uint64_t j = 0; j < r.g[i].count; j++)
			if (r.g[i].nodes[j] == k.parent) {
				saw_parent = 1;
				ck_assert_ptr_nonnull(strstr(r.g[i].name, "weak Owned$Child parent"));
			}
	}
	ck_assert(saw_parent);
	ck_assert_uint_eq(total, 2);
	insp_result_free(&r);
	objset_free(&all);

	/* toggling: off is the plain heap again, on is the ruled one again */
	ck_assert_int_eq(rules_enable(rs, "owning", 0), 0);
	ck_assert_int_eq(rules_enable(rs, "backlinks", 0), 0);
	ck_assert_int_eq(heap_apply_rules(&h, rs, NULL), 0);
	check_without(&h, &k);
	ck_assert_int_eq(memcmp(h.idom, plain.idom, h.n * sizeof *h.idom), 0);
	ck_assert_int_eq(memcmp(h.retained, plain.retained, h.n * sizeof *h.retained), 0);
	rules_enable(rs, "owning", 1);
	rules_enable(rs, "backlinks", 1);
	ck_assert_int_eq(heap_apply_rules(&h, rs, NULL), 0);
	check_with(&h, &k);
	struct heap fresh;
	open_with(&fresh, path, rs, 1);
	same_analyses(&h, &fresh);
	heap_free(&fresh);
	heap_free(&h);
	heap_free(&plain);
	rules_free(rs);
	rules_free(none);
	sbuf_free(&err);
}
END_TEST

/* The cache keeps the rules' answer, and other rules recompute it. */
START_TEST(cache_follows_rules)
{
	const char *path = owned_dump();
	char copy[512], cmd[2048];
	struct ruleset *rs = test_ruleset(), *none = rules_new();
	struct heap a, b, c;
	struct cast k;
	struct sbuf err;

	sbuf_init(&err);
	rules_parse(none, "none.rules", test_rules, strcspn(test_rules, "\n") + 1, &err);
	snprintf(copy, sizeof copy, TEST_BUILDDIR "/tmp/owned-cache.hprof");
	mkdir(TEST_BUILDDIR "/tmp", 0755);
	snprintf(cmd, sizeof cmd, "rm -f %s.hwi && cp %s %s", copy, path, copy);
	ck_assert_int_eq(system(cmd), 0);
	open_with(&a, copy, rs, 0);           /* parse, save */
	ck_assert_int_eq(a.from_cache, 0);
	open_with(&b, copy, rs, 0);           /* the cache, same rules */
	ck_assert_int_eq(b.from_cache, 1);
	find_cast(&b, &k);
	check_with(&b, &k);
	same_analyses(&a, &b);
	heap_free(&b);
	open_with(&c, copy, none, 0);         /* the cache, other rules: recomputed */
	check_without(&c, &k);
	heap_free(&c);
	open_with(&b, copy, rs, 0);           /* and back */
	ck_assert_int_eq(b.from_cache, 1);
	check_with(&b, &k);
	same_analyses(&a, &b);
	heap_free(&b);
	heap_free(&a);
	unlink(copy);
	snprintf(cmd, sizeof cmd, "%s.hwi", copy);
	unlink(cmd);
	rules_free(rs);
	rules_free(none);
	sbuf_free(&err);
}
END_TEST

/* Lifelines end at the first owned object up a path, whatever the owns
 * rule reaches it through: a field (A: item 1, owner 1's rule) or a
 * collection's inside (C: item 100 in the cache's HashMap, `map.values`:
 * the lifeline of its payload went on through the HashMap's node up to
 * the class Owned); never at an object whose owner the program does not
 * reach (F: item 4, which owner 5, only weakly reachable, and the
 * registry's slot hold: its payload's lifeline goes on through the slot).
 * A fresh open and one from the index cache alike. */
START_TEST(lifelines_end_at_owned)
{
	const char *path = owned_dump();
	char copy[512], cmd[2048];
	struct ruleset *rs = test_ruleset();
	struct heap h;
	struct cast k;
	struct lifeline_view v;

	snprintf(copy, sizeof copy, TEST_BUILDDIR "/tmp/owned-lifelines.hprof");
	mkdir(TEST_BUILDDIR "/tmp", 0755);
	snprintf(cmd, sizeof cmd, "rm -f %s.hwi && cp %s %s", copy, path, copy);
	ck_assert_int_eq(system(cmd), 0);
	for (int cached = 0; cached < 2; cached++) {
		open_with(&h, copy, rs, 0);
		ck_assert_int_eq(h.from_cache, cached);
		find_cast(&h, &k);
		const struct { node_t item; const char *rule; } want[] = {
			{ k.item1, "owns Owned$Owner item weight 1 (test.rules:3)" },
			{ obj(&h, "Owned$Item", 100), "owns Owned$Cache map.values weight 5 (test.rules:5)" },
			{ obj(&h, "Owned$Item", 104), "owns Owned$Cache map.values weight 5 (test.rules:5)" },
		};
		for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
			view_lifelines(&h, ref_of(&h, want[i].item, "payload"), 0, &v);
			ck_assert_uint_eq(v.n, 1);
			ck_assert_int_eq(v.ll[0].end, LE_OWNED);
			ck_assert_uint_eq(v.ll[0].example, want[i].item);
			ck_assert_uint_eq(v.ll[0].n, 1);
			ck_assert_str_eq(v.strs[v.ll[0].end_what], want[i].rule);
			lifeline_view_free(&v);
		}
		/* F: up through the registry's slots to a GC root */
		view_lifelines(&h, ref_of(&h, k.item4, "payload"), 0, &v);
		ck_assert_uint_ge(v.n, 1);
		for (size_t i = 0; i < v.n; i++) {
			ck_assert_int_eq(v.ll[i].end, LE_ROOT);
			ck_assert_uint_ge(v.ll[i].n, 3);
		}
		lifeline_view_free(&v);
		heap_free(&h);
	}
	unlink(copy);
	snprintf(cmd, sizeof cmd, "%s.hwi", copy);
	unlink(cmd);
	rules_free(rs);
}
END_TEST

static char *sh(const char *cmd, int *status);

/* The group of level l of class cls (by name), field and weak kind;
 * NULL if none. */
static const struct merged_group *group_named(const struct heap *h, const struct merged_level *l,
					      const char *cls, const char *field, int weak)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct merged_group *g = &l->groups[i];
		if (g->cls != MG_ROOT && strcmp(class_name(h, g->cls), cls) == 0 && g->weak == weak &&
		    g->field != NULL && strcmp(g->field, field) == 0)
			return g;
	}
	return NULL;
}

/* Merged in shows the holders whose references an owns rule made
 * incidental, marked "(not owning)", as heapwalk(1) and heapwalk-rules(5)
 * say of them (a trial of stop 63: they were left out without a word,
 * and the list that holds items 100..104 was missing from what refers
 * to them). By Owned.java's construction, of every item: the list
 * (element of java.util.ArrayList) holds items 100..104, owner 4 item 3,
 * the registry's slots item 1, none owning; owner 5 holds item 4 weakly
 * (it is only weakly reachable). --strong leaves them out. */
START_TEST(merged_in_not_owning)
{
	const char *path = owned_dump();
	struct ruleset *rs = test_ruleset();
	struct heap h;
	struct cast k;
	struct merged_level l;
	char cmd[2048];
	int st;

	open_with(&h, path, rs, 1);
	find_cast(&h, &k);
	uint32_t item = class_named(&h, "Owned$Item");
	node_t *items = xmalloc((size_t)h.n * sizeof *items);
	size_t n = 0;
	for (node_t v = 1; v < h.n; v++)
		if (h.node_class[v] == item)
			items[n++] = v;
	ck_assert_uint_eq(n, 9);
	ck_assert_int_eq(merged_level(&h, MG_INCOMING, MG_BY_FIELD, 1, items, n, HW_NONE, &l, NULL), 0);
	size_t not_owning = 0;
	for (size_t i = 0; i < l.n; i++)
		not_owning += l.groups[i].weak == MG_NOT_OWNING;
	ck_assert_uint_eq(not_owning, 3);
	const struct merged_group *g = group_named(&h, &l, "java.util.ArrayList", "element", MG_NOT_OWNING);
	ck_assert_ptr_nonnull(g);
	ck_assert_uint_eq(g->count, 1);
	ck_assert_int_eq(g->coll, 1);
	ck_assert_uint_eq(g->nreached, 5);
	for (size_t i = 0; i < 5; i++)
		ck_assert_uint_eq(g->reached[i], obj(&h, "Owned$Item", 100 + (int64_t)i));
	ck_assert_ptr_null(group_named(&h, &l, "java.util.ArrayList", "element", 0));
	g = group_named(&h, &l, "Owned$Owner", "item", MG_NOT_OWNING);
	ck_assert_ptr_nonnull(g);
	ck_assert_uint_eq(g->count, 1);
	ck_assert_uint_eq(g->nodes[0], k.owner4);
	ck_assert_uint_eq(g->nreached, 1);
	ck_assert_uint_eq(g->reached[0], k.item3);
	g = group_named(&h, &l, "[Ljava.lang.Object;", "[]", MG_NOT_OWNING);
	ck_assert_ptr_nonnull(g);
	ck_assert_uint_eq(g->count, 1);
	ck_assert_uint_eq(g->nodes[0], k.slots);
	ck_assert_uint_eq(g->nreached, 1);
	ck_assert_uint_eq(g->reached[0], k.item1);
	g = group_named(&h, &l, "Owned$Owner", "item", 1); /* owner 5: weak */
	ck_assert_ptr_nonnull(g);
	ck_assert_uint_eq(g->reached[0], k.item4);
	/* the set's members a row leads to (the browser's U): the list's */
	struct merged_step step = { items, n, HW_NONE, class_named(&h, "java.util.ArrayList"), "element", 1,
				    MG_NOT_OWNING };
	node_t *got;
	size_t ngot;
	ck_assert_int_eq(merged_reached(&h, MG_INCOMING, MG_BY_FIELD, 1, &step, 1, &got, &ngot, NULL), 0);
	ck_assert_uint_eq(ngot, 5);
	for (size_t i = 0; i < 5; i++)
		ck_assert_uint_eq(got[i], obj(&h, "Owned$Item", 100 + (int64_t)i));
	free(got);
	merged_level_free(&l);
	/* strong references only */
	ck_assert_int_eq(merged_level(&h, MG_INCOMING, MG_BY_FIELD, 0, items, n, HW_NONE, &l, NULL), 0);
	for (size_t i = 0; i < l.n; i++)
		ck_assert_int_eq(l.groups[i].weak, 0);
	merged_level_free(&l);
	free(items);
	heap_free(&h);
	rules_free(rs);

	/* the batch view: the row marked, in CSV its column */
	mkdir(TEST_BUILDDIR "/tmp", 0755);
	FILE *f = fopen(TEST_BUILDDIR "/tmp/not-owning.rules", "w");
	ck_assert_ptr_nonnull(f);
	fputs(test_rules, f);
	fclose(f);
	snprintf(cmd, sizeof cmd, "%s -q --no-cache --rules " TEST_BUILDDIR "/tmp/not-owning.rules %s "
		 "-e 'instances Owned$Item' merged-in --by field -n 0", heapwalk(), path);
	char *out = sh(cmd, &st);
	ck_assert_int_eq(st, 0);
	ck_assert_msg(strstr(out, "\nelement of java.util.ArrayList (not owning) ") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "\nOwned$Owner.item (weak) ") != NULL, "%s", out);
	free(out);
	snprintf(cmd, sizeof cmd, "%s -q --no-cache --rules " TEST_BUILDDIR "/tmp/not-owning.rules %s "
		 "-e 'instances Owned$Item' merged-in --by field -n 0 -f csv", heapwalk(), path);
	out = sh(cmd, &st);
	ck_assert_int_eq(st, 0);
	ck_assert_msg(strncmp(out, "depth,class,field,collection,objects,shallow,reached,chain,weak,not_owning,root\n", 79) == 0,
		      "%s", out);
	char *row = strstr(out, "\n0,java.util.ArrayList,element,1,1,");
	ck_assert_msg(row != NULL && strncmp(strchr(row + 1, '\n') - 8, ",5,,0,1,", 8) == 0, "%s", out);
	free(out);
	snprintf(cmd, sizeof cmd, "%s -q --no-cache --rules " TEST_BUILDDIR "/tmp/not-owning.rules %s "
		 "-e 'instances Owned$Item' merged-in --by field -n 0 --strong", heapwalk(), path);
	out = sh(cmd, &st);
	ck_assert_int_eq(st, 0);
	ck_assert_msg(strstr(out, "not owning") == NULL && strstr(out, "(weak)") == NULL &&
		      strstr(out, "map value of java.util.HashMap ") != NULL, "%s", out);
	free(out);
	unlink(TEST_BUILDDIR "/tmp/not-owning.rules");
}
END_TEST

/* insp_retained (dominator-based bytes of a set, remembered between
 * calls) against the definition, walked for each member: its retained
 * size counts unless a member is above it in the dominator tree. */
START_TEST(retained_of_sets)
{
	const char *path = owned_dump();
	struct ruleset *rs = test_ruleset();
	struct heap h;

	open_with(&h, path, rs, 1);
	bits_t *in = xcalloc(bits_words(h.n), sizeof *in);
	node_t *nodes = xmalloc((size_t)h.n * sizeof *nodes);
	for (unsigned step = 1; step < 40; step += 3) /* sets of every step-th object, offset */
		for (unsigned off = 0; off < 3; off++) {
			uint64_t n = 0, want = 0;
			memset(in, 0, bits_words(h.n) * sizeof *in);
			for (node_t v = 1 + off; v < h.n; v += step) {
				nodes[n++] = v;
				bit_set(in, v);
			}
			for (uint64_t i = 0; i < n; i++) {
				int above = 0;
				for (node_t d = h.idom[nodes[i]]; d != 0 && d != HW_NONE && !above; d = h.idom[d])
					above = bit_get(in, d);
				if (!above)
					want += h.retained[nodes[i]];
			}
			ck_assert_uint_eq(insp_retained(&h, nodes, n, NULL), want);
		}
	free(in);
	free(nodes);
	heap_free(&h);
	rules_free(rs);
}
END_TEST

/* ---- the References inspections, on tests/java/Refs ---- */


/* Members of group g by class: how many are of `cls`; the others must be
 * the planted objects' int[] payloads (as many as `payloads`) or the
 * JDK's own objects. */
static uint64_t members_of(const struct heap *h, const struct insp_group *g, const char *cls,
			   const char *also, uint64_t *nalso, uint64_t *ints, uint64_t *jdk)
{
	uint64_t n = 0;

	for (uint64_t i = 0; i < g->count; i++) {
		const char *name = class_name(h, h->node_class[g->nodes[i]]);
		if (strcmp(name, cls) == 0)
			n++;
		else if (also != NULL && strcmp(name, also) == 0)
			(*nalso)++;
		else if (strcmp(name, "[I") == 0)
			(*ints)++;
		else if (strncmp(name, "Refs", 4) == 0)
			ck_abort_msg("%s in group %s", name, g->name);
		else
			(*jdk)++;
	}
	return n;
}

START_TEST(references_inspections)
{
	const char *path = refs_dump();
	struct ruleset *rs = rules_new();
	struct heap h;
	struct objset all;
	struct insp_result r;
	struct sbuf err;
	static const struct { const char *group, *cls; uint64_t n, ints; } want[] = {
		{ "softly reachable (SoftReference)", "Refs$SoftOnly", 3, 4 }, /* 3 + the shared one's */
		{ "weakly reachable (WeakReference)", "Refs$WeakOnly", 4, 4 },
		{ "reachable through a finalizer (FinalReference)", "Refs$Finalizable", 6, 0 },
		{ "phantom reachable (PhantomReference)", "Refs$PhantomOnly", 5, 0 },
	};

	sbuf_init(&err);
	ck_assert_int_eq(rules_load_default(rs, &err), 0); /* with jdk.rules, as by default */
	open_with(&h, path, rs, 1);
	objset_all(&h, &all);
	ck_assert_int_eq(inspect_run(&h, inspect_find("weak-reachable"), NULL, &all, &r, NULL, &err), 0);
	uint64_t seen = 0;
	for (size_t i = 0; i < r.n; i++)
		for (size_t k = 0; k < sizeof want / sizeof *want; k++) {
			if (strcmp(r.g[i].name, want[k].group) != 0)
				continue;
			uint64_t ints = 0, jdk = 0, both = 0;
			/* the object a soft and a weak reference both reach: soft */
			ck_assert_uint_eq(members_of(&h, &r.g[i], want[k].cls, k == 0 ? "Refs$WeakOnly" : NULL,
						     &both, &ints, &jdk), want[k].n);
			ck_assert_uint_eq(both, k == 0 ? 1 : 0);
			ck_assert_uint_eq(ints, want[k].ints); /* each payload with its object */
			/* the JDK's own: this small program has none weakly reachable */
			ck_assert_uint_eq(jdk, 0);
			seen |= 1u << k;
		}
	ck_assert_uint_eq(seen, 0xf);
	ck_assert_uint_eq(r.n, 4);
	insp_result_free(&r);
	/* what only the finalizer keeps: the 6 dropped ones, not the 2 held */
	ck_assert_int_eq(inspect_run(&h, inspect_find("pending-finalization"), NULL, &all, &r, NULL, &err), 0);
	ck_assert_uint_eq(r.n, 1);
	ck_assert_str_eq(r.g[0].name, "Refs$Finalizable awaiting finalization");
	ck_assert_uint_eq(r.g[0].count, 6);
	for (uint64_t i = 0; i < r.g[0].count; i++) {
		struct idfield f = { "n", 0, 0, 0 };
		hprof_fields(&h, r.g[0].nodes[i], id_cb, &f);
		ck_assert(f.found && f.v >= 0 && f.v < 6);
	}
	insp_result_free(&r);
	objset_free(&all);
	heap_free(&h);
	rules_free(rs);
	sbuf_free(&err);
}
END_TEST

/* ---- the command line ---- */

static char *sh(const char *cmd, int *status)
{
	char *out = run(cmd, status);
	*status = WIFEXITED(*status) ? WEXITSTATUS(*status) : -1;
	return out;
}

START_TEST(cli_rules)
{
	const char *path = owned_dump();
	char cmd[2048];
	int st;
	char *out;

	mkdir(TEST_BUILDDIR "/tmp", 0755);
	FILE *f = fopen(TEST_BUILDDIR "/tmp/cli.rules", "w");
	ck_assert_ptr_nonnull(f);
	fputs(test_rules + strcspn(test_rules, "\n") + 1, f); /* all but the referent rule */
	fclose(f);
	f = fopen(TEST_BUILDDIR "/tmp/cli-bad.rules", "w");
	ck_assert_ptr_nonnull(f);
	fputs("group g\nowns Foo bar weight 0\n", f);
	fclose(f);

	/* a syntax error: one line naming file, line and column; status 2 */
	snprintf(cmd, sizeof cmd, "%s --rules " TEST_BUILDDIR "/tmp/cli-bad.rules info %s 2>&1", heapwalk(), path);
	out = sh(cmd, &st);
	ck_assert_int_eq(st, 2);
	ck_assert_msg(strstr(out, "cli-bad.rules:2:21: the weight is a number from 1 to 1000") != NULL, "%s", out);
	ck_assert_int_eq((int)strcspn(out, "\n") + 1, (int)strlen(out)); /* one line */
	free(out);
	/* an unknown group: a usage error */
	snprintf(cmd, sizeof cmd, "%s --rules-off no-such-group info %s 2>&1", heapwalk(), path);
	out = sh(cmd, &st);
	ck_assert_int_eq(st, 1);
	ck_assert_ptr_nonnull(strstr(out, "no rule group 'no-such-group'"));
	free(out);
	/* `rules` lists the groups as loaded and switched */
	snprintf(cmd, sizeof cmd, "%s --rules " TEST_BUILDDIR "/tmp/cli.rules --rules-off backlinks rules",
		 heapwalk());
	out = sh(cmd, &st);
	ck_assert_int_eq(st, 0);
	ck_assert_ptr_nonnull(strstr(out, "group references on"));   /* jdk.rules, built in */
	ck_assert_ptr_nonnull(strstr(out, "group owning on"));
	ck_assert_ptr_nonnull(strstr(out, "group backlinks off"));
	ck_assert_ptr_nonnull(strstr(out, "  owns Owned$Cache map.values weight 5"));
	free(out);
	/* the owner is the dominator with the rules, the class Owned without:
	 * the paths to item 1 go through owner 1 only, or through both */
	snprintf(cmd, sizeof cmd, "%s -q --no-cache --rules " TEST_BUILDDIR "/tmp/cli.rules %s "
		 "-e 'instances Owned$Owner | dominated | instances Owned$Item' objects -f csv", heapwalk(), path);
	out = sh(cmd, &st);
	ck_assert_int_eq(st, 0);
	int items = 0;
	for (char *q = out; (q = strstr(q, "Owned$Item")) != NULL; q++)
		items++;
	/* item 1 only: 2 is shared (ambiguous), 3 goes to the boss, 4's owner
	 * is weakly reachable; without rules the class Owned dominates all */
	ck_assert_int_eq(items, 1);
	free(out);
	snprintf(cmd, sizeof cmd, "%s -q --no-cache %s "
		 "-e 'instances Owned$Owner | dominated | instances Owned$Item' objects -f csv", heapwalk(), path);
	out = sh(cmd, &st);
	ck_assert_int_eq(st, 0);
	ck_assert_ptr_null(strstr(out, "Owned$Item"));
	free(out);
}
END_TEST

/* A rule that does nothing on a dump is said in the run that has it,
 * and only there: it was kept in the dump's index cache with the dump's
 * own warnings, and a later run without the rules said it again (and
 * listed it in info's warnings, in a report), its output depending on
 * what had run before. info's bytes without the rules: the same before
 * and after a run with them. */
START_TEST(rule_warning_not_cached)
{
	char cmd[2048];
	int st;
	const char *dir = TEST_BUILDDIR "/tmp/rulewarn";

	snprintf(cmd, sizeof cmd, "rm -rf %s && mkdir -p %s && cp '%s' %s/d.hprof && "
		 "printf 'weak Owned$Owner no_such_field\n' > %s/w.rules", dir, dir, owned_dump(), dir, dir);
	ck_assert_int_eq(system(cmd), 0);
	snprintf(cmd, sizeof cmd, "%s info %s/d.hprof 2>&1", heapwalk(), dir);
	char *before = sh(cmd, &st);
	ck_assert_int_eq(st, 0);
	snprintf(cmd, sizeof cmd, "%s --rules %s/w.rules info %s/d.hprof 2>&1", heapwalk(), dir, dir);
	char *with = sh(cmd, &st);
	ck_assert_msg(st == 0 && strstr(with, "w.rules:1: no class that 'weak Owned$Owner no_such_field' selects "
					  "has that field; the rule does nothing here") != NULL, "%s", with);
	snprintf(cmd, sizeof cmd, "%s info %s/d.hprof 2>&1", heapwalk(), dir);
	char *after = sh(cmd, &st);
	ck_assert_int_eq(st, 0);
	ck_assert_msg(strstr(after, "no_such_field") == NULL && strcmp(before, after) == 0, "before:\n%s\nafter:\n%s",
		      before, after);
	free(before);
	free(with);
	free(after);
}
END_TEST

/* `rules` lists a rule as its file has it: a regex's backslash once (it
 * was doubled, and the line pasted back selected nothing). The listed
 * line, as a rules file of its own, is listed the same again. */
START_TEST(rules_listed_as_written)
{
	char cmd[2048];
	int st;
	const char *dir = TEST_BUILDDIR "/tmp/rulelist";
	const char *rule = "weak /^Owned\\$Own(er)?/+ item";

	snprintf(cmd, sizeof cmd, "rm -rf %s && mkdir -p %s && printf '%%s\\n' '%s' > %s/r.rules", dir, dir, rule, dir);
	ck_assert_int_eq(system(cmd), 0);
	snprintf(cmd, sizeof cmd, "%s --rules %s/r.rules rules", heapwalk(), dir);
	char *out = sh(cmd, &st);
	char *want = xasprintf("\n  %s   # line 1\n", rule);
	ck_assert_msg(st == 0 && strstr(out, want) != NULL, "no %s in:\n%s", want, out);
	free(out);
	free(want);
}
END_TEST

/* inspect: the list, errors, and the same bytes with and without the cache */
START_TEST(cli_inspect)
{
	const char *path = owned_dump();
	char cmd[2048], copy[512];
	int st;
	char *out, *a, *b;

	out = sh("\"$HEAPWALK\" inspect --list -f csv", &st);
	ck_assert_int_eq(st, 0);
	size_t n;
	const struct inspection *in = inspect_all(&n);
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(strstr(out, in[i].name) != NULL, "%s not listed", in[i].name);
	ck_assert_int_eq((int)n, 27);
	free(out);
	snprintf(cmd, sizeof cmd, "%s inspect %s no-such 2>&1", heapwalk(), path);
	out = sh(cmd, &st);
	ck_assert_int_eq(st, 1);
	ck_assert_ptr_nonnull(strstr(out, "no inspection named 'no-such'"));
	free(out);
	snprintf(cmd, sizeof cmd, "%s inspect %s string-regex 2>&1", heapwalk(), path);
	out = sh(cmd, &st);
	ck_assert_int_eq(st, 1);
	ck_assert_ptr_nonnull(strstr(out, "needs an argument"));
	free(out);
	snprintf(cmd, sizeof cmd, "%s -q --no-cache inspect %s string-regex '(' 2>&1", heapwalk(), path);
	out = sh(cmd, &st);
	ck_assert_int_eq(st, 2);
	ck_assert_ptr_nonnull(strstr(out, "regex /(/"));
	free(out);
	snprintf(cmd, sizeof cmd, "%s -q -e 'inspection tagged' %s 2>&1", heapwalk(), path);
	out = sh(cmd, &st);
	ck_assert_int_eq(st, 1);
	ck_assert_ptr_nonnull(strstr(out, "expected 'group K'"));
	free(out);
	/* byte-identical with and without the cache, and again from it */
	snprintf(copy, sizeof copy, TEST_BUILDDIR "/tmp/owned-cli.hprof");
	snprintf(cmd, sizeof cmd, "rm -f %s.hwi && cp %s %s", copy, path, copy);
	ck_assert_int_eq(system(cmd), 0);
	static const char *const which[] = { "duplicate-strings", "boxed-primitives", "class-loaders",
					     "weak-reachable", "largest-arrays" };
	for (size_t i = 0; i < sizeof which / sizeof *which; i++) {
		snprintf(cmd, sizeof cmd, "%s -q --no-cache inspect %s %s -f json", heapwalk(), copy, which[i]);
		a = sh(cmd, &st);
		ck_assert_int_eq(st, 0);
		snprintf(cmd, sizeof cmd, "%s -q inspect %s %s -f json", heapwalk(), copy, which[i]);
		b = sh(cmd, &st); /* writes the cache the first time, reads it after */
		ck_assert_int_eq(st, 0);
		ck_assert_str_eq(a, b);
		free(b);
		b = sh(cmd, &st);
		ck_assert_str_eq(a, b);
		ck_assert_ptr_nonnull(strstr(a, "\"view\":\"inspect\""));
		free(a);
		free(b);
	}
	unlink(copy);
	snprintf(cmd, sizeof cmd, "%s.hwi", copy);
	unlink(cmd);
}
END_TEST

Suite *rules_suite(void)
{
	Suite *s = suite_create("rules");
	TCase *tc = tcase_create("parse");
	tcase_add_test(tc, parse_errors);
	tcase_add_test(tc, parse_rules);
	tcase_add_test(tc, load_file_errors);
	suite_add_tcase(s, tc);
	tc = tcase_create("dump");
	tcase_set_timeout(tc, FIXTURE_TIMEOUT);
	tcase_add_test(tc, dominators_follow_rules);
	tcase_add_test(tc, cache_follows_rules);
	tcase_add_test(tc, lifelines_end_at_owned);
	tcase_add_test(tc, merged_in_not_owning);
	tcase_add_test(tc, retained_of_sets);
	tcase_add_test(tc, references_inspections);
	tcase_add_test(tc, cli_rules);
	tcase_add_test(tc, rule_warning_not_cached);
	tcase_add_test(tc, rules_listed_as_written);
	tcase_add_test(tc, cli_inspect);
	suite_add_tcase(s, tc);
	return s;
}
