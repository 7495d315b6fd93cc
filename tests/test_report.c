/* test_report.c — the HTML report: its figures as Chromium renders them
 * against the command line's JSON (and jcmd's class histogram) for a
 * JDK-made dump; the treemap and the sunburst drawn and zooming on a real
 * click; dump strings made to break out of the page rendered as text;
 * a truncated dump said so at the top; the cut tree adding up. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hprofw.h"
#include "jsonck.h"
#include "query/html.h"
#include "suites.h"
#include "term.h"

#define DUMPS TEST_BUILDDIR "/dumps"
#define EVIL_CLASS "<img src=x onerror=alert(1)>"
#define EVIL_STRING "</script><img src=x onerror=alert(1)>"

static void parse(const char *text, size_t n, struct jv *out, const char *what)
{
	char err[256];

	ck_assert_msg(json_parse(text, n, out, err, sizeof err) == 0, "%s: %s", what, err);
}

/* heapwalk ARGS -f json, parsed. */
static void cli_json(const char *args, struct jv *out)
{
	char cmd[2048];
	int st;

	snprintf(cmd, sizeof cmd, "%s -q %s -f json", heapwalk(), args);
	char *s = run(cmd, &st);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: status %d", cmd, st);
	parse(s, strlen(s), out, cmd);
	free(s);
}

/* The figures of the report's own JSON (the page's #hw-data). */
static void page_data(const char *html, size_t n, struct jv *out)
{
	const char *open = "<script type=\"application/json\" id=\"hw-data\">\n";
	const char *a = strstr(html, open);

	ck_assert(a != NULL);
	a += strlen(open);
	const char *b = strstr(a, "</script>");
	ck_assert(b != NULL && (size_t)(b - html) < n);
	parse(a, (size_t)(b - a), out, "the report's data");
}

/* The page as headless Chromium renders it (tests/report-browser.js);
 * 0, said, where there is no Chromium or Node. */
static int browse(const char *html, struct jv *out)
{
	const char *chromium = getenv("CHROMIUM") ? getenv("CHROMIUM") : "chromium";
	char cmd[2048];
	int st;

	if (!have(chromium) || !have("node")) {
		printf("report: SKIP the page in a browser: no %s or no node on the PATH "
		       "(sh contrib/setup.sh installs Debian's chromium)\n", have("node") ? chromium : "node");
		return 0;
	}
	snprintf(cmd, sizeof cmd, "node %s/report-browser.js %s %s", TEST_SRCDIR, chromium, html);
	char *s = run(cmd, &st);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: status %d", cmd, st);
	parse(s, strlen(s), out, "report-browser.js");
	free(s);
	const struct jv *e = jv_get(out, "errors"), *d = jv_get(out, "dialogs"), *r = jv_get(out, "requests");
	ck_assert_msg(e->n == 0, "script error in the page: %s", e->n ? e->v[0].s : "");
	ck_assert_msg(d->n == 0, "the page opened a dialog: %s", d->n ? d->v[0].s : "");
	ck_assert_msg(r->n == 0, "the page asked the network for %s", r->n ? r->v[0].s : "");
	ck_assert(jv_get(out, "ready")->b);
	return 1;
}

static const struct jv *at(const struct jv *v, size_t i)
{
	ck_assert(v != NULL && v->t == J_ARR && i < v->n);
	return &v->v[i];
}

static uint64_t u(const struct jv *v)
{
	ck_assert(v != NULL && v->t == J_NUM);
	return (uint64_t)v->num;
}

/* Nothing in the file can load from elsewhere, and exactly our two
 * scripts end: no element the dump's strings could have opened. */
static void self_contained(const char *html)
{
	const char *bad[] = { "<link", "<img", "<iframe", "src=\"http", "href=\"http", "@import", "url(", "<object", "<embed" };
	size_t ends = 0;

	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		ck_assert_msg(strcasestr(html, bad[i]) == NULL, "the report holds %s", bad[i]);
	for (const char *p = html; (p = strcasestr(p, "</script")) != NULL; p++)
		ends++;
	ck_assert_uint_eq(ends, 2);
	ck_assert(strstr(html, "Content-Security-Policy\" content=\"default-src 'none'") != NULL);
}

/* Each kept node's children (kept and elided) and its own bytes add up
 * to its retained size; kept <= the bound, no deeper than depth; the cut
 * is the biggest first: nothing elided above the depth limit retains
 * more than the smallest object kept. */
static void tree_adds_up(const struct jv *tree, uint64_t max_nodes, unsigned depth)
{
	const struct jv *rows = jv_get(tree, "rows");
	size_t n = rows->n, kept = 0;
	uint64_t *sum = calloc(n + 1, sizeof *sum), top = 0;
	unsigned *dep = calloc(n + 1, sizeof *dep);

	for (size_t i = 0; i < n; i++) {
		const struct jv *r = at(rows, i);
		long p = (long)r->v[0].num;
		int elided = r->v[1].num < 0;
		uint64_t ret = u(&r->v[4]);
		ck_assert(p < (long)i);
		if (p < 0)
			top += ret;
		else {
			ck_assert_msg(at(rows, (size_t)p)->v[1].num >= 0, "row %zu hangs under an elided row", i);
			sum[p] += ret;
		}
		if (!elided) {
			kept++;
			dep[i] = p < 0 ? 1 : dep[p] + 1;
			ck_assert_uint_le(dep[i], depth);
		} else
			ck_assert_uint_gt(u(&r->v[2]), 0);
	}
	uint64_t smallest = UINT64_MAX;
	for (size_t i = 0; i < n; i++)
		if (at(rows, i)->v[1].num >= 0 && u(&at(rows, i)->v[4]) < smallest)
			smallest = u(&at(rows, i)->v[4]);
	for (size_t i = 0; i < n; i++) {
		const struct jv *r = at(rows, i);
		long p = (long)r->v[0].num;
		if (r->v[1].num < 0 && (p < 0 || dep[p] < depth))
			ck_assert_msg(u(&r->v[5]) <= smallest, "row %zu: an elided object retains %llu, more than one kept (%llu)",
				      i, (unsigned long long)u(&r->v[5]), (unsigned long long)smallest);
	}
	for (size_t i = 0; i < n; i++) {
		const struct jv *r = at(rows, i);
		if (r->v[1].num >= 0 && (sum[i] > 0 || u(&r->v[4]) != u(&r->v[3])))
			ck_assert_msg(sum[i] + u(&r->v[3]) == u(&r->v[4]), "row %zu: children %llu + shallow %llu != retained %llu",
				      i, (unsigned long long)sum[i], (unsigned long long)u(&r->v[3]),
				      (unsigned long long)u(&r->v[4]));
	}
	ck_assert_uint_eq(top, u(jv_get(tree, "retained")));
	ck_assert_uint_eq(kept, u(jv_get(tree, "kept")));
	ck_assert_uint_le(kept, max_nodes);
	free(sum);
	free(dep);
}

/* "1,234,567" as the page writes counts. */
static void commas(uint64_t v, char *buf, size_t n)
{
	char raw[32];
	size_t len, o = 0;

	snprintf(raw, sizeof raw, "%llu", (unsigned long long)v);
	len = strlen(raw);
	for (size_t i = 0; i < len && o + 2 < n; i++) {
		if (i > 0 && (len - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = raw[i];
	}
	buf[o] = '\0';
}

/* jcmd's count of instances of a class (its histogram), or -1. */
static long histo_count(const char *histo, const char *name)
{
	for (const char *p = histo; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		char cls[512];
		long num, inst, bytes;
		if (sscanf(p, " %ld: %ld %ld %511s", &num, &inst, &bytes, cls) == 4 && strcmp(cls, name) == 0)
			return inst;
	}
	return -1;
}

START_TEST(jdk_dump_in_chromium)
{
	char dump[512], html[600], args[1200], buf[64];
	size_t n;
	struct jv page, info, classes, biggest, suspects, dups, data;
	int st;

	ensure_dump("coops", "");
	snprintf(dump, sizeof dump, DUMPS "/coops.hprof");
	snprintf(html, sizeof html, "%s/coops-report.html", hw_tmpdir());
	snprintf(args, sizeof args, "%s -q report %s --inspections duplicate-strings,boxed-primitives -o %s", heapwalk(), dump, html);
	free(run(args, &st));
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: status %d", args, st);
	char *text = file_bytes(html, &n);
	self_contained(text);
	page_data(text, n, &data);
	tree_adds_up(jv_get(&data, "tree"), HTML_MAX_NODES, 128);

	snprintf(args, sizeof args, "info %s", dump);
	cli_json(args, &info);
	snprintf(args, sizeof args, "classes %s -s retained -n 0", dump);
	cli_json(args, &classes);
	snprintf(args, sizeof args, "biggest %s -n 30", dump);
	cli_json(args, &biggest);
	snprintf(args, sizeof args, "inspect %s leak-suspects", dump);
	cli_json(args, &suspects);
	snprintf(args, sizeof args, "inspect %s duplicate-strings -n 10", dump);
	cli_json(args, &dups);
	/* the report's data is the command line's JSON */
	ck_assert_uint_eq(u(jv_get(jv_get(&data, "info"), "objects")), u(jv_get(&info, "objects")));
	ck_assert_uint_eq(jv_get(jv_get(&data, "classes"), "rows")->n, jv_get(&classes, "rows")->n);

	if (browse(html, &page)) {
		const struct jv *pg = jv_get(&page, "page");
		ck_assert_uint_eq(u(jv_get(pg, "img")), 0);
		/* the dump's figures */
		const struct jv *dt = jv_get(pg, "dump");
		commas(u(jv_get(&info, "objects")), buf, sizeof buf);
		ck_assert_str_eq(jv_get(dt, "objects")->s, buf);
		commas(u(jv_get(&info, "heap_bytes")), buf, sizeof buf);
		ck_assert_msg(strncmp(jv_get(dt, "heap_bytes")->s, buf, strlen(buf)) == 0, "heap size %s, want %s",
			      jv_get(dt, "heap_bytes")->s, buf);
		commas(u(jv_get(&info, "classes")), buf, sizeof buf);
		ck_assert_str_eq(jv_get(dt, "classes")->s, buf);
		commas(u(jv_get(&info, "gc_root_objects")), buf, sizeof buf);
		ck_assert_str_eq(jv_get(dt, "gc_root_objects")->s, buf);
		const struct jv *roots = jv_get(pg, "roots"), *want_roots = jv_get(&info, "rows");
		ck_assert_uint_eq(roots->n, want_roots->n);
		for (size_t i = 0; i < roots->n; i++) {
			ck_assert_str_eq(at(roots, i)->v[0].s, jv_get(at(want_roots, i), "root_kind")->s);
			ck_assert_uint_eq(u(&at(roots, i)->v[2]), u(jv_get(at(want_roots, i), "objects")));
		}
		/* the histogram: every row shown is the command line's row of that
		 * class, biggest retained first; instances as jcmd counted them */
		const struct jv *rows = jv_get(pg, "classes"), *want = jv_get(&classes, "rows");
		size_t nw = want->n;
		ck_assert_uint_eq(rows->n, nw < 500 ? nw : 500);
		char *histo = file_bytes(DUMPS "/coops.histo", &n);
		int checked = 0;
		for (size_t i = 0; i < rows->n; i++) {
			const struct jv *r = at(rows, i);
			size_t k = 0;
			while (k < nw && strcmp(jv_get(at(want, k), "class")->s, r->v[0].s) != 0)
				k++;
			ck_assert_msg(k < nw, "class %s is not in the command line's histogram", r->v[0].s);
			ck_assert_uint_eq(u(&r->v[1]), u(jv_get(at(want, k), "instances")));
			ck_assert_uint_eq(u(&r->v[2]), u(jv_get(at(want, k), "shallow")));
			ck_assert_uint_eq(u(&r->v[3]), u(jv_get(at(want, k), "retained_lb")));
			if (i > 0)
				ck_assert_uint_ge(u(&at(rows, i - 1)->v[3]), u(&r->v[3]));
			long hc = i < 40 && strcmp(r->v[0].s, "java.lang.Class") != 0 ? histo_count(histo, r->v[0].s) : -1;
			if (hc >= 0) {
				ck_assert_msg((uint64_t)hc == u(&r->v[1]), "%s: %llu instances shown, jcmd counted %ld",
					      r->v[0].s, (unsigned long long)u(&r->v[1]), hc);
				checked++;
			}
		}
		ck_assert_int_ge(checked, 20);
		free(histo);
		/* the biggest objects: the top level as biggest lists it */
		const struct jv *big = jv_get(pg, "biggest"), *wb = jv_get(&biggest, "rows");
		size_t nb = 0;
		for (size_t i = 0; i < wb->n; i++) {
			const struct jv *w = at(wb, i);
			if (u(jv_get(w, "depth")) != 0 || jv_get(w, "id")->t == J_NULL)
				continue;
			char label[1024];
			snprintf(label, sizeof label, "%s @%s", jv_get(w, "object")->s, jv_get(w, "id")->s);
			ck_assert_str_eq(at(at(big, nb), 0)->s, label);
			ck_assert_uint_eq(u(&at(big, nb)->v[1]), u(jv_get(w, "shallow")));
			ck_assert_uint_eq(u(&at(big, nb)->v[2]), u(jv_get(w, "retained")));
			nb++;
		}
		ck_assert_uint_eq(nb, 30);
		/* leak suspects: retained as the inspection says, each with the
		 * path that paths finds to its accumulation point; one
		 * accumulated in many instances that no object holds has none */
		const struct jv *sus = jv_get(pg, "suspects"), *ws = jv_get(&suspects, "rows");
		size_t npaths = 0;
		ck_assert_uint_eq(sus->n, ws->n);
		ck_assert_uint_ge(sus->n, 1);
		for (size_t i = 0; i < sus->n; i++) {
			const struct jv *path = &at(sus, i)->v[2];
			struct jv pj;
			ck_assert_uint_eq(u(&at(sus, i)->v[1]), u(jv_get(at(ws, i), "retained")));
			if (path->n == 0) {
				ck_assert_msg(strstr(at(sus, i)->v[0].s, "no one object holds them") != NULL ||
						      strstr(at(sus, i)->v[0].s, "no object holds it") != NULL,
					      "%s: no path", at(sus, i)->v[0].s);
				continue;
			}
			npaths++;
			snprintf(args, sizeof args, "paths %s %s --max 1", dump, path->v[path->n - 1].s);
			cli_json(args, &pj);
			const struct jv *pr = jv_get(&pj, "rows");
			ck_assert_uint_eq(pr->n, path->n);
			for (size_t k = 0; k < pr->n; k++)
				ck_assert_str_eq(jv_get(at(pr, k), "id")->s, path->v[k].s);
			jv_free(&pj);
		}
		ck_assert_uint_ge(npaths, 1);
		/* an inspection's top groups */
		const struct jv *ins = jv_get(pg, "inspections"), *dg = NULL, *wd = jv_get(&dups, "rows");
		for (size_t i = 0; i < ins->n; i++)
			if (strcmp(at(ins, i)->v[0].s, "duplicate-strings") == 0)
				dg = &at(ins, i)->v[1];
		ck_assert(dg != NULL && dg->n == wd->n && dg->n > 0);
		for (size_t i = 0; i < dg->n; i++) {
			ck_assert_str_eq(at(dg, i)->v[0].s, jv_get(at(wd, i), "name")->s);
			ck_assert_uint_eq(u(&at(dg, i)->v[1]), u(jv_get(at(wd, i), "objects")));
			ck_assert_uint_eq(u(&at(dg, i)->v[2]), u(jv_get(at(wd, i), "shallow")));
		}
		/* the pictures: drawn, and a click zooms into what was clicked */
		for (int k = 0; k < 2; k++) {
			const struct jv *pic = jv_get(&page, k ? "sunburst" : "treemap");
			double drawn = jv_get(pic, "drawn")->num;
			ck_assert_msg(drawn > (k ? 0.2 : 0.5), "%s: %.3f of its pixels drawn", k ? "sunburst" : "treemap", drawn);
			const struct jv *c = jv_get(pic, "clicked");
			ck_assert(c != NULL && c->t == J_OBJ);
			char want_crumb[1024];
			snprintf(want_crumb, sizeof want_crumb, "%s @%s", jv_get(c, "label")->s, jv_get(c, "id")->s);
			ck_assert_str_eq(jv_get(pic, "crumb_last")->s, want_crumb);
			ck_assert_str_ne(jv_get(pic, "crumbs_after")->s, jv_get(pic, "crumbs_before")->s);
			ck_assert_str_eq(jv_get(pic, "crumbs_back")->s, jv_get(pic, "crumbs_before")->s);
		}
		jv_free(&page);
	}
	jv_free(&info);
	jv_free(&classes);
	jv_free(&biggest);
	jv_free(&suspects);
	jv_free(&dups);
	jv_free(&data);
	free(text);
}
END_TEST

enum { E_CLS = 0x5001, E_NAME = 0x5003, E_F = 0x5005, E_X = 0x6001, E_S1 = 0x6011, E_S2 = 0x6021,
       E_A1 = 0x6013, E_A2 = 0x6023, E_BIG = 0x6031 };

/* A class named like markup holding a big array, and two Strings equal
 * to a script end tag and markup (a duplicate-strings group names them);
 * without the second String when `old`. */
static void evil_dump_as(struct hw *w, int old)
{
	struct hw_field f = { E_F, T_OBJECT, E_BIG };

	hw_begin(w, "JAVA PROFILE 1.0.2", 8);
	hw_jdk_names(w);
	hw_utf8(w, E_F, "payload");
	hw_utf8(w, E_NAME, EVIL_CLASS);
	hw_load_class(w, 8, E_CLS, E_NAME);
	hw_heap_begin(w);
	hw_jdk_classes(w);
	hw_class_dump(w, E_CLS, J_OBJECT, 0, NULL, 0, NULL, 0, &f, 1);
	hw_root(w, HW_ROOT_UNKNOWN, E_X, 0, 0);
	hw_root(w, HW_ROOT_UNKNOWN, E_S1, 0, 0);
	if (!old)
		hw_root(w, HW_ROOT_UNKNOWN, E_S2, 0, 0);
	hw_instance(w, E_X, E_CLS, &f, 1);
	hw_primarray(w, E_BIG, T_LONG, 4096, NULL);
	/* the earlier dump's String has other text: a String is replaced,
	 * never changed, so both of the later dump's are new (two equal
	 * Strings of which one was there before would be ambiguous) */
	const char *text = old ? "an earlier text" : EVIL_STRING;
	hw_primarray(w, E_A1, T_BYTE, (uint32_t)strlen(text), text);
	if (!old)
		hw_primarray(w, E_A2, T_BYTE, (uint32_t)strlen(EVIL_STRING), EVIL_STRING);
	hw_jdk_string(w, E_S1, E_A1);
	if (!old)
		hw_jdk_string(w, E_S2, E_A2);
	hw_heap_end(w);
	hw_dump_end(w);
}

static void evil_dump(struct hw *w)
{
	evil_dump_as(w, 0);
}

START_TEST(dump_strings_stay_text)
{
	struct hw w;
	struct jv page, data;
	char cmd[1200], html[600];
	size_t n;
	int st;

	evil_dump(&w);
	char *path = hw_write(&w, "evil-report.hprof", SIZE_MAX);
	hw_free(&w);
	snprintf(html, sizeof html, "%s/evil-report.html", hw_tmpdir());
	snprintf(cmd, sizeof cmd, "%s -q report %s --inspections all -o %s", heapwalk(), path, html);
	free(run(cmd, &st));
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: status %d", cmd, st);
	char *text = file_bytes(html, &n);
	self_contained(text);
	ck_assert(strstr(text, EVIL_CLASS) == NULL && strstr(text, "onerror=alert(1)>") == NULL);
	page_data(text, n, &data); /* the escapes read back to the very names */
	const struct jv *names = jv_get(jv_get(&data, "tree"), "names");
	int found = 0;
	for (size_t i = 0; i < names->n; i++)
		found |= strcmp(names->v[i].s, EVIL_CLASS) == 0;
	ck_assert(found);
	if (browse(html, &page)) {
		const struct jv *pg = jv_get(&page, "page"), *cls = jv_get(pg, "classes"), *ins = jv_get(pg, "inspections");
		ck_assert_uint_eq(u(jv_get(pg, "img")), 0);
		ck_assert_uint_eq(u(jv_get(pg, "scripts")), 2);
		found = 0;
		for (size_t i = 0; i < cls->n; i++)
			found |= strcmp(at(cls, i)->v[0].s, EVIL_CLASS) == 0;
		ck_assert_msg(found, "no class row reads " EVIL_CLASS);
		ck_assert_msg(strncmp(at(jv_get(pg, "biggest"), 0)->v[0].s, EVIL_CLASS " @", strlen(EVIL_CLASS) + 2) == 0,
			      "the biggest object reads %s", at(jv_get(pg, "biggest"), 0)->v[0].s);
		found = 0;
		for (size_t i = 0; i < ins->n; i++)
			if (strcmp(at(ins, i)->v[0].s, "duplicate-strings") == 0)
				found = at(ins, i)->v[1].n == 1 && strstr(at(at(ins, i)->v[1].v, 0)->s, EVIL_STRING) != NULL;
		ck_assert_msg(found, "the duplicate-strings group does not read " EVIL_STRING);
		jv_free(&page);
	}
	jv_free(&data);
	free(text);
	free(path);
}
END_TEST

START_TEST(truncated_said_at_the_top)
{
	struct hw w;
	struct jv page, data;
	char cmd[1200], html[600];
	size_t n;
	int st;

	evil_dump(&w);
	size_t cut = hw_pos(&w) - 40; /* inside the last String's record */
	char *path = hw_write(&w, "cut-report.hprof", cut);
	hw_free(&w);
	snprintf(html, sizeof html, "%s/cut-report.html", hw_tmpdir());
	snprintf(cmd, sizeof cmd, "%s -q report %s -o %s", heapwalk(), path, html);
	free(run(cmd, &st));
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: status %d", cmd, st);
	char *text = file_bytes(html, &n);
	page_data(text, n, &data);
	ck_assert_uint_eq(u(jv_get(jv_get(&data, "info"), "truncated_at")), cut);
	if (browse(html, &page)) {
		const struct jv *b = jv_get(jv_get(&page, "page"), "banner");
		char want[128], num[32];
		commas(cut, num, sizeof num);
		snprintf(want, sizeof want, "This dump is truncated: it ends at offset %s,", num);
		ck_assert_msg(b->t == J_STR && strncmp(b->s, want, strlen(want)) == 0, "the banner reads %s",
			      b->t == J_STR ? b->s : "(none)");
		jv_free(&page);
	}
	/* the whole dump says nothing of it */
	evil_dump(&w);
	free(path);
	path = hw_write(&w, "whole-report.hprof", SIZE_MAX);
	hw_free(&w);
	jv_free(&data);
	free(text);
	snprintf(cmd, sizeof cmd, "%s -q report %s -o %s", heapwalk(), path, html);
	free(run(cmd, &st));
	text = file_bytes(html, &n);
	page_data(text, n, &data);
	ck_assert(jv_get(jv_get(&data, "info"), "truncated_at") == NULL);
	jv_free(&data);
	free(text);
	free(path);
}
END_TEST

/* With a baseline: what is new, as classes -e new says it; the new
 * objects' tree holds them and nothing else. */
START_TEST(baseline_section)
{
	struct hw w;
	struct jv page, data, cli;
	char cmd[1400], html[600], args[1400];
	size_t n;
	int st;

	evil_dump_as(&w, 1);
	char *old = hw_write(&w, "old-report.hprof", SIZE_MAX);
	hw_free(&w);
	evil_dump(&w);
	char *cur = hw_write(&w, "new-report.hprof", SIZE_MAX);
	hw_free(&w);
	snprintf(html, sizeof html, "%s/new-report.html", hw_tmpdir());
	snprintf(cmd, sizeof cmd, "%s -q report %s --baseline %s -o %s", heapwalk(), cur, old, html);
	free(run(cmd, &st));
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: status %d", cmd, st);
	char *text = file_bytes(html, &n);
	page_data(text, n, &data);
	snprintf(args, sizeof args, "classes %s --baseline %s -e new", cur, old);
	cli_json(args, &cli);
	const struct jv *bl = jv_get(&data, "baseline");
	ck_assert(bl != NULL && bl->t == J_OBJ);
	const struct jv *nc = jv_get(jv_get(bl, "new_classes"), "rows"), *want = jv_get(&cli, "rows");
	/* by construction: two Strings and their byte[]s are new */
	ck_assert_uint_eq(want->n, 2);
	ck_assert_uint_eq(nc->n, want->n);
	for (size_t i = 0; i < nc->n; i++) {
		ck_assert_str_eq(jv_get(at(nc, i), "class")->s, jv_get(at(want, i), "class")->s);
		ck_assert_uint_eq(u(jv_get(at(nc, i), "instances")), 2);
	}
	/* the new objects' tree: each String dominating its array */
	const struct jv *rows = jv_get(jv_get(bl, "tree"), "rows");
	/* rows: [parent (-1: top), name, id, shallow, retained, flags]: two
	 * Strings at the top, each the parent of its array */
	ck_assert_uint_eq(rows->n, 4);
	unsigned top = 0;
	for (size_t i = 0; i < rows->n; i++) {
		double parent = at(rows, i)->v[0].num;
		if (parent < 0) {
			top++;
			ck_assert(((unsigned)at(rows, i)->v[5].num & 8) != 0);
		} else {
			ck_assert(parent < (double)i && at(rows, (size_t)parent)->v[0].num < 0);
		}
	}
	ck_assert_uint_eq(top, 2);
	ck_assert(jv_get(bl, "diff")->t == J_OBJ);
	if (browse(html, &page)) {
		const struct jv *pg = jv_get(&page, "page"), *shown = jv_get(pg, "new_classes");
		ck_assert(jv_get(pg, "baseline")->t == J_STR);
		ck_assert_uint_eq(shown->n, 2);
		for (size_t i = 0; i < shown->n; i++)
			ck_assert_uint_eq(u(&at(shown, i)->v[1]), 2);
		jv_free(&page);
	}
	jv_free(&cli);
	jv_free(&data);
	free(text);
	free(cur);
	free(old);
}
END_TEST

/* The cut follows --max and --depth and still adds up; -f and a dump as
 * the output are refused before anything is read. */
START_TEST(cut_and_usage)
{
	char dump[512], html[600], cmd[1400];
	struct jv data;
	size_t n;
	int st;

	ensure_dump("coops", "");
	snprintf(dump, sizeof dump, DUMPS "/coops.hprof");
	snprintf(html, sizeof html, "%s/cut.html", hw_tmpdir());
	snprintf(cmd, sizeof cmd, "%s -q report %s --max 40 --depth 3 --cutoff 0 -o %s", heapwalk(), dump, html);
	free(run(cmd, &st));
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	char *text = file_bytes(html, &n);
	page_data(text, n, &data);
	ck_assert_uint_eq(u(jv_get(jv_get(&data, "tree"), "kept")), 40);
	tree_adds_up(jv_get(&data, "tree"), 40, 3);
	jv_free(&data);
	free(text);
	/* the same bytes from the dump as from its index cache */
	snprintf(cmd, sizeof cmd, "%s -q --no-cache report %s", heapwalk(), dump);
	char *cold = run(cmd, &st);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	snprintf(cmd, sizeof cmd, "%s -q report %s >/dev/null && %s -q report %s", heapwalk(), dump, heapwalk(), dump);
	char *warm = run(cmd, &st);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	ck_assert_msg(strcmp(cold, warm) == 0, "the report differs with the cache");
	free(cold);
	free(warm);
	snprintf(cmd, sizeof cmd, "%s -q report %s -f json 2>&1", heapwalk(), dump);
	char *out = run(cmd, &st);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 1);
	ck_assert_str_eq(out, "heapwalk: report writes HTML: -f goes with the other commands (see heapwalk --help)\n");
	free(out);
	snprintf(cmd, sizeof cmd, "%s -q report %s --inspections boxed-primitives,nope 2>&1", heapwalk(), dump);
	out = run(cmd, &st);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 1);
	ck_assert_str_eq(out, "heapwalk: --inspections: no inspection named 'nope' (heapwalk inspect --list) (see heapwalk --help)\n");
	free(out);
	/* the sort keys the classes view knows, growth (the browser's,
	 * against a baseline) not among them */
	snprintf(cmd, sizeof cmd, "%s -q classes %s --sort growth 2>&1", heapwalk(), dump);
	out = run(cmd, &st);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 1);
	ck_assert_str_eq(out, "heapwalk: unknown sort key 'growth': name, instances, shallow, retained (see heapwalk --help)\n");
	free(out);
	/* the inspections asked for, in that order, and no other */
	snprintf(cmd, sizeof cmd, "%s -q report %s --inspections zero-length-arrays,duplicate-strings -o %s", heapwalk(), dump,
		 html);
	free(run(cmd, &st));
	text = file_bytes(html, &n);
	page_data(text, n, &data);
	const struct jv *ins = jv_get(&data, "inspections");
	ck_assert_uint_eq(ins->n, 2);
	ck_assert_str_eq(jv_get(at(ins, 0), "inspection")->s, "zero-length-arrays");
	ck_assert_str_eq(jv_get(at(ins, 1), "inspection")->s, "duplicate-strings");
	jv_free(&data);
	free(text);
	snprintf(cmd, sizeof cmd, "%s -q report %s -o %s 2>&1", heapwalk(), dump, dump);
	out = run(cmd, &st);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 1);
	ck_assert(strstr(out, "is a dump, which heapwalk never writes") != NULL);
	free(out);
}
END_TEST

/* -o: whole or not at all, never over a dump (a heapshot's FILE:N
 * names FILE), in place where it is no regular file, a replaced file
 * keeping its mode; refused where there is no output to write. */
START_TEST(output_file)
{
	struct hw w;
	char out[600], cmd[1600];
	struct stat st;
	int status;

	evil_dump(&w);
	char *a = hw_write(&w, "out-a.hprof", SIZE_MAX);
	char *b = hw_write(&w, "out-b.hprof", SIZE_MAX);
	hw_free(&w);
	snprintf(cmd, sizeof cmd, "%s -q info %s --baseline %s:1 -o %s 2>&1", heapwalk(), a, b, b);
	char *s = run(cmd, &status);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 1 && strstr(s, "is a dump, which heapwalk never writes"),
		      "%s", s);
	free(s);
	ck_assert(stat(b, &st) == 0 && (size_t)st.st_size > 1000); /* still the dump */
	snprintf(out, sizeof out, "%s/out.txt", hw_tmpdir());
	FILE *f = fopen(out, "w");
	ck_assert(f != NULL && fputs("old\n", f) >= 0 && fclose(f) == 0 && chmod(out, 0600) == 0);
	snprintf(cmd, sizeof cmd, "%s -q info %s -o %s", heapwalk(), a, out);
	free(run(cmd, &status));
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert(stat(out, &st) == 0 && (st.st_mode & 07777) == 0600 && st.st_size > 100);
	snprintf(cmd, sizeof cmd, "%s -q info %s", heapwalk(), a);
	char *want = run(cmd, &status);
	size_t n;
	char *got = file_bytes(out, &n);
	ck_assert_str_eq(got, want);
	free(got);
	/* no regular file: written in place; "-": standard output */
	snprintf(cmd, sizeof cmd, "%s -q info %s -o /dev/stdout | cat", heapwalk(), a);
	got = run(cmd, &status);
	ck_assert_str_eq(got, want);
	free(got);
	snprintf(cmd, sizeof cmd, "%s -q info %s -o /dev/null", heapwalk(), a);
	free(run(cmd, &status));
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode)); /* not replaced by a file */
	snprintf(cmd, sizeof cmd, "%s -q info %s -o -", heapwalk(), a);
	got = run(cmd, &status);
	ck_assert_str_eq(got, want);
	free(got);
	free(want);
	/* a directory that is not there: one line, nothing left behind */
	snprintf(cmd, sizeof cmd, "%s -q info %s -o %s/none/x.txt 2>&1", heapwalk(), a, hw_tmpdir());
	s = run(cmd, &status);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 2 && strstr(s, "none/x.txt: No such file or directory\n"));
	free(s);
	snprintf(cmd, sizeof cmd, "%s rules -o %s 2>&1", heapwalk(), out);
	s = run(cmd, &status);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 1 && strstr(s, "-o goes with the commands that report on a dump, not rules"));
	free(s);
	free(a);
	free(b);
}
END_TEST

/* W in the browser: the step's report written in the working directory,
 * its path on the status line; the same file the command line writes. */
START_TEST(browser_writes_the_step)
{
	struct hw w;
	struct term t;
	char want[600], cmd[1400], line[600];
	size_t n, m;
	int st;

	evil_dump(&w);
	char *path = hw_write(&w, "browser-report.hprof", SIZE_MAX);
	hw_free(&w);
	ck_assert(chdir(hw_tmpdir()) == 0); /* where the browser writes */
	term_start(&t, 200, 40, "", path);
	free(wait_for(&t, "Step 1"));
	keys(&t, "W");
	free(wait_for(&t, "r the HTML report"));
	keys(&t, "r");
	snprintf(want, sizeof want, "wrote %s/heapwalk-browser-report-step1.html (", hw_tmpdir());
	char *s = wait_for(&t, want);
	free(s);
	keys(&t, "W");
	free(wait_for(&t, "g a graph"));
	keys(&t, "g");
	snprintf(want, sizeof want, "wrote %s/heapwalk-browser-report-step1.dot (", hw_tmpdir());
	free(wait_for(&t, want));
	keys(&t, "q");
	wait_exit(&t);
	term_stop(&t);
	snprintf(line, sizeof line, "%s/heapwalk-browser-report-step1.html", hw_tmpdir());
	char *text = file_bytes(line, &n);
	self_contained(text);
	free(text);
	/* the graph: the command line's for the whole heap at depth 1 */
	snprintf(line, sizeof line, "%s/heapwalk-browser-report-step1.dot", hw_tmpdir());
	char *dot = file_bytes(line, &n);
	snprintf(cmd, sizeof cmd, "%s -q graph %s -e all", heapwalk(), path);
	char *want_dot = run(cmd, &st);
	ck_assert_str_eq(dot, want_dot);
	free(dot);
	free(want_dot);
	snprintf(line, sizeof line, "%s/heapwalk-browser-report-step1.html", hw_tmpdir());
	text = file_bytes(line, &n);
	snprintf(cmd, sizeof cmd, "%s -q report %s", heapwalk(), path);
	char *batch = run(cmd, &st);
	m = strlen(batch);
	/* the same figures; only the set's title differs (the step's "all") */
	struct jv a, b;
	page_data(text, n, &a);
	page_data(batch, m, &b);
	ck_assert_uint_eq(u(jv_get(jv_get(&a, "info"), "objects")), u(jv_get(jv_get(&b, "info"), "objects")));
	ck_assert_uint_eq(jv_get(jv_get(&a, "tree"), "rows")->n, jv_get(jv_get(&b, "tree"), "rows")->n);
	ck_assert_uint_eq(jv_get(jv_get(&a, "classes"), "rows")->n, jv_get(jv_get(&b, "classes"), "rows")->n);
	jv_free(&a);
	jv_free(&b);
	free(batch);
	free(text);
	free(path);
}
END_TEST

Suite *report_suite(void)
{
	Suite *s = suite_create("report");
	TCase *tc = tcase_create("unit");
	TCase *jvm = tcase_create("jvm");

	tcase_set_timeout(tc, HANG_TIMEOUT);
	tcase_add_test(tc, dump_strings_stay_text);
	tcase_add_test(tc, truncated_said_at_the_top);
	tcase_add_test(tc, baseline_section);
	tcase_add_test(tc, output_file);
	tcase_set_timeout(jvm, FIXTURE_TIMEOUT);
	tcase_add_test(jvm, jdk_dump_in_chromium);
	tcase_add_test(jvm, cut_and_usage);
	TCase *term = tcase_create("terminal");
	tcase_set_timeout(term, HANG_TIMEOUT);
	tcase_add_test(term, browser_writes_the_step);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, jvm);
	suite_add_tcase(s, term);
	return s;
}
