/* test_report.c — the HTML report: its figures as Chromium renders them
 * against the command line's JSON (and jcmd's class histogram) for a
 * JDK-made dump; the treemap and the sunburst drawn and zooming on a real
 * click; dump strings made to break out of the page rendered as text;
 * a truncated dump said so at the top; the cut tree adding up; a .NET
 * heap of long generic names laid out without sideways scrolling, its
 * suspects sharing a point shown with one path; a Mono heapshot's report
 * saying which heapshot it is; a V8 snapshot's suspects sharing their
 * points, one card a point. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
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
static int browse_filtered(const char *html, const char *filters, struct jv *out);

static int browse(const char *html, struct jv *out)
{
	return browse_filtered(html, "[]", out);
}

/* The same, with the classes each regex of the JSON list filters (a
 * word of no quote) left in page.filtered. Not under the sanitizers:
 * they see heapwalk write the page (the same bytes as the plain
 * build's), not Chromium render it, which the plain build's run of the
 * same test does (the suite under the sanitizers: 31 CPU-s with Chromium, 10 without). */
static int browse_filtered(const char *html, const char *filters, struct jv *out)
{
	const char *chromium = getenv("CHROMIUM") ? getenv("CHROMIUM") : "chromium";
	char cmd[4096];
	int st;

#ifdef HW_TEST_ASAN
	(void)html, (void)filters, (void)out, (void)chromium, (void)cmd, (void)st;
	printf("report: SKIP the page in a browser under the sanitizers (the plain build's run renders it)\n");
	return 0;
#endif
	if (!have(chromium) || !have("node")) {
		printf("report: SKIP the page in a browser: no %s or no node on the PATH "
		       "(sh contrib/setup.sh installs Debian's chromium)\n", have("node") ? chromium : "node");
		return 0;
	}
	snprintf(cmd, sizeof cmd, "REPORT_FILTERS='%s' node %s/report-browser.js %s %s", filters, TEST_SRCDIR, chromium, html);
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
				ck_assert_msg(strstr(at(sus, i)->v[0].s, "no one object keeps them alive") != NULL ||
						      strstr(at(sus, i)->v[0].s, "no one object keeps it alive") != NULL,
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
		/* the sunburst's first ring adds up to the root's children,
		 * those too thin to draw each (there are some) in one segment */
		const struct jv *ring1 = jv_get(jv_get(&page, "sunburst"), "ring1");
		double rd = jv_get(ring1, "drawn")->num, rw = jv_get(ring1, "want")->num;
		ck_assert_msg(jv_get(ring1, "thin")->num > 0 && rw > 0 && fabs(rd - rw) < 1e-6 * rw,
			      "the first ring spans %.6f rad of %.6f (%g thin children of %g)", rd, rw,
			      jv_get(ring1, "thin")->num, jv_get(ring1, "kids")->num);
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
       E_A1 = 0x6013, E_A2 = 0x6023, E_BIG = 0x6031, E_CLS2 = 0x5007, E_NAME2 = 0x5009, E_Y = 0x6041 };
/* a class named with an escape sequence, a bell, U+202E (which shown
 * raw turns the text after it round) and the four characters \x1b (a
 * backslash doubled: no ESC), and as heapwalk shows it */
#define CTL_CLASS "Ctl\x1b[31mRed\x07\xe2\x80\xaeTxt\\x1b"
#define CTL_SHOWN "Ctl\\x1b[31mRed\\x07\\u{202e}Txt\\\\x1b"

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
	hw_utf8(w, E_NAME2, CTL_CLASS);
	hw_load_class(w, 9, E_CLS2, E_NAME2);
	hw_heap_begin(w);
	hw_jdk_classes(w);
	hw_class_dump(w, E_CLS, J_OBJECT, 0, NULL, 0, NULL, 0, &f, 1);
	hw_class_dump(w, E_CLS2, J_OBJECT, 0, NULL, 0, NULL, 0, NULL, 0);
	hw_root(w, HW_ROOT_UNKNOWN, E_X, 0, 0);
	hw_root(w, HW_ROOT_UNKNOWN, E_Y, 0, 0);
	hw_instance(w, E_Y, E_CLS2, NULL, 0);
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

/* evil_dump() written as NAME.hprof and its report as NAME.html (its
 * path in html) with the options args; the dump's path. */
static char *evil_report(const char *name, const char *args, char *html, size_t hcap)
{
	struct hw w;
	char cmd[1200], file[128];
	int st;

	evil_dump(&w);
	snprintf(file, sizeof file, "%s.hprof", name);
	char *path = hw_write(&w, file, SIZE_MAX);
	hw_free(&w);
	snprintf(html, hcap, "%s/%s.html", hw_tmpdir(), name);
	snprintf(cmd, sizeof cmd, "%s -q report %s %s -o %s", heapwalk(), path, args, html);
	free(run(cmd, &st));
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: status %d", cmd, st);
	return path;
}

START_TEST(dump_strings_stay_text)
{
	struct jv page, data;
	char html[600];
	size_t n;
	char *path = evil_report("evil-report", "--inspections all", html, sizeof html);
	char *text = file_bytes(html, &n);
	self_contained(text);
	ck_assert(strstr(text, EVIL_CLASS) == NULL && strstr(text, "onerror=alert(1)>") == NULL);
	page_data(text, n, &data); /* the escapes read back to the very names */
	const struct jv *names = jv_get(jv_get(&data, "tree"), "names");
	int found = 0;
	for (size_t i = 0; i < names->n; i++)
		found |= strcmp(names->v[i].s, EVIL_CLASS) == 0;
	ck_assert(found);
	/* the filter finds a name by a regex of it as the dump has it, or as
	 * shown (the JSON list's own escapes: \u001b, \\x1b) */
	if (browse_filtered(html, "[\"Ctl\\u001b\\\\[31m\", \"Ctl\\\\\\\\x1b\", \"\\\\\\\\u\\\\{202e\", \"x1c\", \"ctl\\\\\\\\x1b\", \"(?i)^ctl\"]", &page)) {
		const struct jv *pg = jv_get(&page, "page"), *cls = jv_get(pg, "classes"), *ins = jv_get(pg, "inspections");
		ck_assert_uint_eq(u(jv_get(pg, "img")), 0);
		ck_assert_uint_eq(u(jv_get(pg, "scripts")), 2);
		/* no control or format character reaches the page raw: the
		 * class reads as the terminal shows it */
		ck_assert_msg(!jv_get(pg, "raw_controls")->b, "a raw control character on the page");
		found = 0;
		for (size_t i = 0; i < cls->n; i++)
			found |= strcmp(at(cls, i)->v[0].s, CTL_SHOWN) == 0;
		ck_assert_msg(found, "no class row reads " CTL_SHOWN);
		const struct jv *fl = jv_get(pg, "filtered");
		/* case counts, as in --filter, unless the regex starts (?i) */
		ck_assert_uint_eq(fl->n, 6);
		for (size_t i = 0; i < 6; i++)
			ck_assert_msg(i == 3 || i == 4 ? at(fl, i)->n == 0
				      : at(fl, i)->n == 1 && strcmp(at(at(fl, i), 0)->s, CTL_SHOWN) == 0,
				      "filter %zu: %zu rows", i, at(fl, i)->n);
		/* a count's cell has no tooltip of bytes; a size's says them */
		const struct jv *tips = at(jv_get(pg, "class_tips"), 0);
		ck_assert_msg(strcmp(at(tips, 1)->s, "") == 0, "instances: %s", at(tips, 1)->s);
		ck_assert_msg(strstr(at(tips, 2)->s, " bytes)") != NULL, "shallow: %s", at(tips, 2)->s);
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

/* The set's expression reads as typed: its backslashes are its own
 * (a regex's), not a dump's string's, doubled. */
START_TEST(expression_as_typed)
{
	struct jv page;
	char html[600];
	char *path = evil_report("expr-report", "-e 'instances /Ctl|x\\\\y/'", html, sizeof html);

	if (browse(html, &page)) {
		const struct jv *set = jv_get(jv_get(&page, "page"), "set");
		ck_assert_msg(set->t == J_STR && strstr(set->s, "the set: instances /Ctl|x\\\\y/") != NULL,
			      "the set reads %s", set->t == J_STR ? set->s : "(none)");
		jv_free(&page);
	}
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
	/* a backslash in its name: the warnings, which heapwalk escaped,
	 * read as on the terminal (it doubled), not escaped twice */
	char *path = hw_write(&w, "cut\\report.hprof", cut);
	hw_free(&w);
	snprintf(html, sizeof html, "%s/cut-report.html", hw_tmpdir());
	snprintf(cmd, sizeof cmd, "%s -q report '%s' -o %s", heapwalk(), path, html);
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
		ck_assert_msg(strstr(b->s, "/cut\\\\report.hprof: offset ") != NULL &&
			      strstr(b->s, "/cut\\\\\\\\report.hprof") == NULL, "the banner reads %.300s", b->s);
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

#define DNDIR DUMPS "/dotnet"

/* The .NET workload's "report" heap (tests/dotnet/Program.cs: a holder
 * of 20000 envelopes of long generic names and 1750 byte arrays), taken
 * with heapwalk snapshot into path; 0 (said) without dotnet. */
static int long_names_heap(char *path, size_t n)
{
	char cmd[4096], log[600];
	int st;

	if (!dotnet_workload())
		return 0;
	snprintf(path, n, "%s/names.nettrace", hw_tmpdir());
	snprintf(log, sizeof log, "%s/names.log", hw_tmpdir());
	/* its stdin held open by a sleep whose pid is kept, to end it too */
	snprintf(cmd, sizeof cmd, "rm -f %s %s; ((sleep 600 & echo $! > %s.sleep; wait) | " DNDIR
		 "/out/Workload report > %s 2>&1 &); "
		 "for i in $(seq %d); do grep -q pid %s 2>/dev/null && break; sleep 0.1; done",
		 path, log, log, log, (int)(hang_seconds(60) * 10), log);
	ck_assert_int_eq(system(cmd), 0);
	char *said = file_bytes(log, &(size_t){ 0 });
	const char *p = strstr(said, "\"pid\":");
	ck_assert_msg(p != NULL && strstr(said, "\"Envelopes\":20000") != NULL, "the workload said: %s", said);
	long pid = strtol(p + 6, NULL, 10);
	free(said);
	snprintf(cmd, sizeof cmd, "%s -q snapshot %ld %s 2>&1", heapwalk(), pid, path);
	char *out = run(cmd, &st);
	snprintf(cmd, sizeof cmd, "kill %ld; kill $(cat %s.sleep)", pid, log);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "snapshot: %s", out);
	free(out);
	return 1;
}

/* The id of the accumulation point a leak suspect's name says, into id. */
static void point_of(const char *name, char *id, size_t n)
{
	const char *a = strstr(name, "; accumulation point: ");
	ck_assert_msg(a != NULL, "no point in %s", name);
	const char *end = strstr(a, " (");
	ck_assert(end != NULL);
	const char *at = end;
	while (at > a && *at != '@')
		at--;
	ck_assert(*at == '@' && (size_t)(end - at) < n);
	memcpy(id, at + 1, (size_t)(end - at - 1));
	id[end - at - 1] = '\0';
}

/* The leak-suspects inspection's rows (the command line's) grouped by
 * the accumulation point their names say, in the order of their first. */
struct groups {
	size_t ns, ng, widest, longest; /* suspects, points, the point of most suspects, the longest name */
	char (*pts)[64];                /* each point's id */
	int *grp, *size;                /* each suspect's point; each point's suspects */
};

static void suspect_groups(const char *dump, struct groups *g)
{
	char args[1024], id[64];
	struct jv suspects;

	snprintf(args, sizeof args, "inspect %s leak-suspects", dump);
	cli_json(args, &suspects);
	const struct jv *ws = jv_get(&suspects, "rows");
	memset(g, 0, sizeof *g);
	g->ns = ws->n;
	g->pts = calloc(g->ns + 1, sizeof *g->pts);
	g->grp = calloc(g->ns + 1, sizeof *g->grp);
	g->size = calloc(g->ns + 1, sizeof *g->size);
	for (size_t i = 0; i < g->ns; i++) {
		const char *name = jv_get(at(ws, i), "name")->s;
		size_t k = 0;
		point_of(name, id, sizeof id);
		while (k < g->ng && strcmp(g->pts[k], id) != 0)
			k++;
		if (k == g->ng)
			strcpy(g->pts[g->ng++], id);
		g->grp[i] = (int)k;
		g->size[k]++;
		if (strlen(name) > g->longest)
			g->longest = strlen(name);
	}
	for (size_t k = 0; k < g->ng; k++)
		if (g->size[k] > g->size[g->widest])
			g->widest = k;
	jv_free(&suspects);
}

static void groups_free(struct groups *g)
{
	free(g->pts);
	free(g->grp);
	free(g->size);
}

/* The report's data holds each point's path once: with its first
 * suspect; the page shows one card a point, its suspects in it in
 * order, with one path table, and each suspect's card's path is the
 * paths command's to its point. */
static void one_card_a_point(const char *dump, const char *html, const struct jv *page, const struct groups *g)
{
	char args[1024];
	struct jv data;
	size_t n;
	char *text = file_bytes(html, &n);

	page_data(text, n, &data);
	const struct jv *ds = jv_get(&data, "suspects");
	ck_assert_uint_eq(ds->n, g->ns);
	for (size_t i = 0; i < g->ns; i++) {
		int first = 1;
		for (size_t k = 0; k < i; k++)
			first &= g->grp[k] != g->grp[i];
		ck_assert_msg((jv_get(at(ds, i), "path") != NULL) == first, "suspect %zu: a path %s", i + 1,
			      first ? "missing" : "again");
	}
	jv_free(&data);
	free(text);
	if (page == NULL)
		return;
	const struct jv *pg = jv_get(page, "page"), *cards = jv_get(pg, "cards"), *sus = jv_get(pg, "suspects");
	ck_assert_uint_eq(sus->n, g->ns);
	ck_assert_uint_eq(cards->n, g->ng);
	for (size_t k = 0; k < g->ng; k++) {
		const struct jv *c = at(cards, k), *members = at(c, 0);
		size_t m = 0;
		ck_assert_str_eq(at(c, 1)->s, g->pts[k]);
		ck_assert_uint_eq(u(at(c, 2)), 1); /* one path table */
		for (size_t i = 0; i < g->ns; i++)
			if (g->grp[i] == (int)k) {
				ck_assert_msg(m < members->n && u(at(members, m)) == i + 1,
					      "card %zu: suspect %zu not in it", k + 1, i + 1);
				m++;
			}
		ck_assert_uint_eq(m, members->n);
	}
	for (size_t i = 0; i < g->ns; i++) {
		const struct jv *path = at(at(sus, i), 2);
		struct jv pj;
		snprintf(args, sizeof args, "paths %s %s --max 1", dump, g->pts[g->grp[i]]);
		cli_json(args, &pj);
		const struct jv *pr = jv_get(&pj, "rows");
		ck_assert_uint_eq(pr->n, path->n);
		for (size_t k = 0; k < pr->n; k++)
			ck_assert_str_eq(jv_get(at(pr, k), "id")->s, at(path, k)->s);
		jv_free(&pj);
	}
}

/* heapwalk report DUMP -o HTML. */
static void write_report(const char *dump, const char *html)
{
	char args[2048];
	int st;

	snprintf(args, sizeof args, "%s -q report %s -o %s", heapwalk(), dump, html);
	free(run(args, &st));
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: status %d", args, st);
}

/* A real .NET heap whose leak suspects have names of 200 letters and
 * more (generic types, one word) in Chromium: at 1400, 800 and 480
 * pixels the page never scrolls sideways, no table cell sticks out of
 * its card or its section, and the path tables' name column keeps its
 * width. Suspects sharing an accumulation point (three and five of them
 * here) share one card and one path table. */
START_TEST(dotnet_long_names_in_chromium)
{
	char dump[512], html[600];
	struct jv page;
	struct groups g;

	if (!long_names_heap(dump, sizeof dump))
		return;
	snprintf(html, sizeof html, "%s/names-report.html", hw_tmpdir());
	write_report(dump, html);
	suspect_groups(dump, &g);
	ck_assert_msg(g.ng >= 3 && g.size[g.widest] >= 3 && g.longest > 300, "%zu suspects, %zu points, %d at most "
		      "at one, the longest name %zu letters: not the heap the workload makes", g.ns, g.ng,
		      g.size[g.widest], g.longest);
	if (!browse(html, &page)) {
		one_card_a_point(dump, html, NULL, &g);
		groups_free(&g);
		return;
	}
	one_card_a_point(dump, html, &page, &g);
	const struct jv *lay = jv_get(&page, "layout");
	ck_assert_uint_eq(lay->n, 3);
	for (size_t w = 0; w < lay->n; w++) {
		const struct jv *l = at(lay, w), *cols = jv_get(l, "class_columns");
		unsigned width = (unsigned)u(jv_get(l, "width"));
		ck_assert_msg(u(jv_get(l, "scroll_width")) <= u(jv_get(l, "client_width")),
			      "at %u px the page scrolls sideways: %llu px wide", width,
			      (unsigned long long)u(jv_get(l, "scroll_width")));
		if (u(jv_get(l, "overflowing")) > 0) {
			const struct jv *f = at(jv_get(l, "first"), 0);
			ck_abort_msg("at %u px %llu table cells stick out, the first: \"%s\" to %.0f px, its box "
				     "to %.0f px, %.0f px of content in %.0f", width,
				     (unsigned long long)u(jv_get(l, "overflowing")), jv_get(f, "text")->s,
				     jv_get(f, "right")->num, jv_get(f, "box")->num, jv_get(f, "scroll")->num,
				     jv_get(f, "client")->num);
		}
		ck_assert_uint_eq(cols->n, g.ng);
		/* the name column: never a few letters wide (200 px, or 30% of
		 * a narrower window), and where the names are long a good share
		 * of the card */
		for (size_t k = 0; k < g.ng; k++) {
			double cw = at(at(cols, k), 0)->num, card = at(at(cols, k), 1)->num;
			double least = 0.3 * width < 200 ? 0.3 * width : 200;
			ck_assert_msg(cw >= least, "at %u px the name column of card %zu is %.0f px wide", width, k + 1, cw);
			if (k == g.widest)
				ck_assert_msg(cw >= 0.3 * card, "at %u px the long names' column is %.0f px of %.0f",
					      width, cw, card);
		}
	}
	jv_free(&page);
	groups_free(&g);
}
END_TEST

/* A V8 snapshot (tests/node/suspects.js) whose class suspects share
 * their accumulation points, three at each of two: one card a point. */
START_TEST(v8_shared_points_in_chromium)
{
	char dump[600], html[600], cmd[1400];
	struct jv page;
	struct groups g;
	int st;

	if (!have("node")) {
		printf("report: SKIP the V8 report: no node on the PATH\n");
		return;
	}
	snprintf(dump, sizeof dump, "%s/suspects.heapsnapshot", hw_tmpdir());
	snprintf(html, sizeof html, "%s/suspects-report.html", hw_tmpdir());
	snprintf(cmd, sizeof cmd, "rm -f %s; node " TEST_SRCDIR "/node/suspects.js %s 2>&1", dump, dump);
	char *out = run(cmd, &st);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: %s", cmd, out);
	free(out);
	write_report(dump, html);
	suspect_groups(dump, &g);
	ck_assert_msg(g.ng >= 2 && g.size[g.widest] >= 3, "%zu suspects, %zu points, %d at most at one: not the "
		      "heap suspects.js makes", g.ns, g.ng, g.size[g.widest]);
	if (browse(html, &page)) {
		one_card_a_point(dump, html, &page, &g);
		jv_free(&page);
	} else
		one_card_a_point(dump, html, NULL, &g);
	groups_free(&g);
}
END_TEST

/* A Mono heapshot's report says which heapshot it is (the number, of
 * how many, its time as info has it) at the top and in the dump's
 * table, with its object count as mprof-report counted it. */
START_TEST(mono_heapshot_said)
{
	char html[600], args[1400], want[256], when[64];
	struct jv page, info;
	int st;

	snprintf(html, sizeof html, "%s/mono-report.html", hw_tmpdir());
	snprintf(args, sizeof args, "%s -q report " TEST_SRCDIR "/mono/workload.mlpd:2 -o %s", heapwalk(), html);
	free(run(args, &st));
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: status %d", args, st);
	cli_json("info " TEST_SRCDIR "/mono/workload.mlpd:2", &info);
	ck_assert_uint_eq(u(jv_get(&info, "heapshot")), 2);
	uint64_t ms = u(jv_get(at(jv_get(&info, "heapshot_list"), 1), "time_ms"));
	time_t secs = (time_t)(ms / 1000);
	struct tm tm;
	ck_assert(gmtime_r(&secs, &tm) != NULL);
	strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
	snprintf(want, sizeof want, "heapshot 2 of 4, taken %s.%03u UTC", when, (unsigned)(ms % 1000));
	/* mprof-report's second heap shot (it counts from 0) */
	size_t n;
	char *rep = file_bytes(TEST_SRCDIR "/mono/workload.mlpd.report", &n);
	const char *h1 = strstr(rep, "Heap shot 1 at ");
	ck_assert(h1 != NULL && strstr(h1, "object count: ") != NULL);
	unsigned long count = strtoul(strstr(h1, "object count: ") + 14, NULL, 10);
	free(rep);
	char cnt[64];
	commas(count, cnt, sizeof cnt);
	if (browse(html, &page)) {
		const struct jv *pg = jv_get(&page, "page");
		ck_assert_str_eq(jv_get(pg, "heapshot")->s, want);
		const char *row = jv_get(jv_get(pg, "dump"), "heapshot")->s;
		ck_assert_msg(strncmp(row, want, strlen(want)) == 0 && strstr(row, cnt) != NULL,
			      "the dump's heapshot row: %s (want %s, %s objects)", row, want, cnt);
		ck_assert_msg(strstr(jv_get(&page, "title")->s, "heapshot 2") != NULL, "title %s",
			      jv_get(&page, "title")->s);
		/* the generations as info has them */
		const struct jv *gens = jv_get(&info, "generations");
		char gw[512] = "";
		ck_assert(gens != NULL && gens->n > 0);
		for (size_t g = 0; g < gens->n; g++) {
			char o[32], b[32];
			commas(u(jv_get(at(gens, g), "objects")), o, sizeof o);
			commas(u(jv_get(at(gens, g), "bytes")), b, sizeof b);
			snprintf(gw + strlen(gw), sizeof gw - strlen(gw), "%s%s %s objects, %s bytes", g ? "; " : "",
				 jv_get(at(gens, g), "generation")->s, o, b);
		}
		const struct jv *grow = jv_get(jv_get(pg, "dump"), "generations");
		ck_assert_msg(grow != NULL && strcmp(grow->s, gw) == 0, "the generations row: %s, want %s",
			      grow ? grow->s : "none", gw);
		/* no inspection of the report's reads a Mono heap: said, not an
		 * empty section */
		const struct jv *none = jv_get(pg, "insp_none");
		ck_assert_msg(none != NULL && none->n == 1 &&
				      strstr(none->v[0].s, "None of the report\xe2\x80\x99s inspections applies") != NULL,
			      "no word on the empty inspections");
		jv_free(&page);
	}
	jv_free(&info);
}
END_TEST

/* What a .gcdump does not tell the pinned inspection (the generations:
 * no pinned object heap), said on the page above its groups; a trace
 * that tells them has no such line. */
START_TEST(gcdump_inspection_note)
{
	static const char *const dumps[] = { TEST_SRCDIR "/dotnet/workload.gcdump",
					     TEST_SRCDIR "/dotnet/workload-1.nettrace" };
	char html[600], args[1400];
	struct jv page;
	int st;

	for (int i = 0; i < 2; i++) {
		snprintf(html, sizeof html, "%s/note-%d.html", hw_tmpdir(), i);
		snprintf(args, sizeof args, "%s -q report %s -o %s", heapwalk(), dumps[i], html);
		free(run(args, &st));
		ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: status %d", args, st);
		/* in the page's data, browser or not */
		size_t n;
		char *page_text = file_bytes(html, &n);
		ck_assert_ptr_nonnull(page_text);
		int has = strstr(page_text, "\"note\":\"the pinned object heap is not counted") != NULL;
		free(page_text);
		ck_assert_msg(has == (i == 0), "%s: the pinned inspection's note %s", dumps[i], has ? "there" : "missing");
		if (!browse(html, &page))
			continue;
		const struct jv *notes = jv_get(jv_get(&page, "page"), "insp_notes");
		ck_assert_msg(notes != NULL && notes->t == J_ARR, "no insp_notes");
		const char *want = "not here: the pinned object heap is not counted: this dump tells no GC "
				   "generations (dotnet-gcdump's .gcdump files do not;";
		if (i == 0)
			ck_assert_msg(notes->n == 1 && strncmp(notes->v[0].s, want, strlen(want)) == 0,
				      "%zu notes: %s", notes->n, notes->n ? notes->v[0].s : "");
		else
			ck_assert_uint_eq(notes->n, 0);
		jv_free(&page);
	}
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
	tcase_add_test(tc, expression_as_typed);
	tcase_add_test(tc, baseline_section);
	tcase_add_test(tc, output_file);
	tcase_set_timeout(jvm, FIXTURE_TIMEOUT);
	tcase_add_test(jvm, jdk_dump_in_chromium);
	tcase_add_test(jvm, cut_and_usage);
	tcase_add_test(jvm, dotnet_long_names_in_chromium);
	tcase_add_test(jvm, v8_shared_points_in_chromium);
	tcase_add_test(tc, mono_heapshot_said);
	tcase_add_test(tc, gcdump_inspection_note);
	TCase *term = tcase_create("terminal");
	tcase_set_timeout(term, HANG_TIMEOUT);
	tcase_add_test(term, browser_writes_the_step);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, jvm);
	suite_add_tcase(s, term);
	return s;
}
