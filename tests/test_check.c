/* test_check.c — heapwalk check DUMP --rules FILE: gates for CI, on the
 * JVM leaks session (tests/leaks-run.sh: tests/java/Leaky under the
 * agent, base.hprof, target.hprof, final.hprof and jcmd's histogram of
 * the final heap). Every kind of rule is held once at its true figure
 * (pass) and once just past it (fail); the truths come from jcmd's
 * histogram, from the workload's construction (300 Leaked, each with a
 * "leak-N" String and a Payload of a byte[64 + N % 16]: their sizes by
 * HotSpot's layout with compressed oops), and for the inspection from
 * `heapwalk inspect` (the gate's plumbing, not the inspection, is under
 * test here). Exit statuses 0, 1 and 2; the JUnit file read by Python's
 * XML parser as a CI system would. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jsonck.h"
#include "suites.h"
#include "util.h"

/* The retained size of the 300 Leaked objects, from their construction:
 * Leaked 24 B (12 header, 2 compressed references), its String 24 B and
 * the String's byte[] of "leak-N" (16 + 6..8, so 24 B), its Payload 16 B
 * and the Payload's byte[64 + N % 16] (16 + that, rounded up to 8). */
static unsigned long long leaked_retained(void)
{
	unsigned long long b = 0;

	for (int i = 0; i < 300; i++)
		b += 24 + 24 + 24 + 16 + ((16 + 64 + (unsigned)(i % 16) + 7) / 8 * 8);
	return b;
}

static unsigned long long histo_of(const char *dir, const char *which, const char *cls, int bytes)
{
	char path[600];
	size_t n;

	snprintf(path, sizeof path, "%s/%s.histo", dir, which);
	char *text = file_bytes(path, &n);
	unsigned long long v = 0;
	for (char *line = text; line != NULL && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		unsigned long long c, b;
		char name[256];
		if (sscanf(line, " %*d: %llu %llu %255s", &c, &b, name) == 3 && strcmp(name, cls) == 0)
			v = bytes ? b : c;
	}
	free(text);
	return v;
}

static unsigned long long histo(const char *dir, const char *cls, int bytes)
{
	return histo_of(dir, "final", cls, bytes);
}

/* heapwalk check on final.hprof with -b base --target target and the
 * rules text (written to DIR/NAME.rules); its output, status in *st. */
static char *check(const char *d, const char *name, const char *rules, const char *more, int *st)
{
	char path[600], cmd[4096];

	snprintf(path, sizeof path, "%s/%s.rules", d, name);
	FILE *f = fopen(path, "w");
	ck_assert(f != NULL && fputs(rules, f) >= 0 && fclose(f) == 0);
	snprintf(cmd, sizeof cmd, "%s -q check %s/final.hprof -b %s/base.hprof --target %s/target.hprof --rules %s %s 2>&1",
		 heapwalk(), d, d, d, path, more);
	char *out = run(cmd, st);
	*st = WIFEXITED(*st) ? WEXITSTATUS(*st) : -1;
	return out;
}

/* Each rule of the -f json output: its result, in order. */
static void results(const char *json, const char **want, size_t n)
{
	struct jv doc;
	char err[256];

	ck_assert_msg(json_parse(json, strlen(json), &doc, err, sizeof err) == 0, "%s: %s", err, json);
	const struct jv *rows = jv_get(&doc, "rows");
	ck_assert_msg(rows != NULL && rows->n == n, "%zu rows, not %zu: %s", rows ? rows->n : 0, n, json);
	for (size_t i = 0; i < n; i++) {
		const struct jv *r = &rows->v[i];
		ck_assert_msg(strcmp(jv_get(r, "result")->s, want[i]) == 0, "rule %zu (%s): %s, not %s", i + 1,
			      jv_get(r, "rule")->s, jv_get(r, "result")->s, want[i]);
	}
	jv_free(&doc);
}

START_TEST(test_check_rule_kinds)
{
	const char *d = leaks_jvm_dir();
	unsigned long long leaked = histo(d, "Leaky$Leaked", 0), lbytes = histo(d, "Leaky$Leaked", 1);
	unsigned long long pkg = leaked + histo(d, "Leaky$Payload", 0), ret = leaked_retained();
	/* Strings at the base and at the end, as jcmd counted them */
	long long strings = (long long)histo(d, "java.lang.String", 0) - (long long)histo_of(d, "base", "java.lang.String", 0);
	char rules[4096], args[1024];
	int st;

	ck_assert_uint_eq(leaked, 300);
	ck_assert_uint_eq(histo_of(d, "base", "Leaky$Leaked", 0), 0);
	/* the inspection's top group, as heapwalk inspect says it */
	snprintf(args, sizeof args, "%s -q inspect -f json %s/final.hprof duplicate-strings", heapwalk(), d);
	char *insp = run(args, &st);
	ck_assert_int_eq(st, 0);
	struct jv doc;
	char err[256];
	ck_assert_msg(json_parse(insp, strlen(insp), &doc, err, sizeof err) == 0, "%s", err);
	const struct jv *rows = jv_get(&doc, "rows");
	ck_assert(rows != NULL && rows->n > 0);
	unsigned long long wasted = jv_get(&rows->v[0], "wasted")->u;
	jv_free(&doc);
	free(insp);
	snprintf(rules, sizeof rules,
		 "# each rule at its truth, then just past it\n"
		 "set instances Leaky$Leaked : count == %llu\n"
		 "set instances Leaky$Leaked : count < %llu\n"
		 "set instances Leaky$Leaked : shallow <= %llu\n"
		 "set instances Leaky$Leaked : shallow < %llu\n"
		 "set instances /^Leaky\\$(Leaked|Payload)$/ : count >= %llu   # a package's classes\n"
		 "set instances /^Leaky\\$(Leaked|Payload)$/ : count > %llu\n"
		 "set instances Leaky$Leaked : retained == %llu\n"
		 "set instances Leaky$Leaked : retained != %llu\n"
		 "growth instances Leaky$Leaked : count == %llu\n"
		 "growth instances Leaky$Leaked : count < %llu\n"
		 "growth instances java.lang.String : count == %lld\n"
		 "growth instances java.lang.String : count > %lld\n"
		 "leaks top : count == 300\n"
		 "leaks top : count != 300\n"
		 "leaks top : retained <= %llu\n"
		 "leaks top : retained < %lluB\n"
		 "inspection duplicate-strings top : wasted == %llu\n"
		 "inspection duplicate-strings top : wasted > %llu\n",
		 leaked, leaked, lbytes, lbytes, pkg, pkg, ret, ret, leaked, leaked, strings, strings, ret, ret, wasted,
		 wasted);
	char *out = check(d, "kinds", rules, "-f json", &st);
	ck_assert_msg(st == 1, "status %d: %s", st, out);
	static const char *want[] = { "pass", "FAIL", "pass", "FAIL", "pass", "FAIL", "pass", "FAIL",
				      "pass", "FAIL", "pass", "FAIL", "pass", "FAIL", "pass", "FAIL", "pass", "FAIL" };
	results(out, want, 18);
	free(out);
	/* every rule that holds: 0; the text says each with its figure */
	snprintf(rules, sizeof rules, "set instances Leaky$Leaked : count == %llu\nleaks top : retained < 1MB\n", leaked);
	out = check(d, "pass", rules, "", &st);
	ck_assert_msg(st == 0, "status %d: %s", st, out);
	ck_assert_msg(strstr(out, "failed:        0") != NULL, "%s", out);
	/* the first rule's row: FILE LINE RESULT MEASURED RULE */
	char *row = strstr(out, "set instances Leaky$Leaked : count ==");
	ck_assert_msg(row != NULL, "%s", out);
	while (row > out && row[-1] != '\n')
		row--;
	char result[16];
	unsigned ln;
	unsigned long long measured;
	ck_assert_msg(sscanf(row, "%*s %u %15s %llu", &ln, result, &measured) == 3 && ln == 1 &&
		      strcmp(result, "pass") == 0 && measured == leaked, "%s", out);
	free(out);
}
END_TEST

/* A bound with a fraction of a byte (a size in kB with decimals) decides
 * as the exact number does: just below the measure and just above it,
 * never rounded onto it; == and != want a whole number of bytes. The
 * measure is jcmd's histogram's. */
START_TEST(test_check_fractions)
{
	const char *d = leaks_jvm_dir();
	unsigned long long lbytes = histo(d, "Leaky$Leaked", 1);
	/* in millionths of a kB, just below lbytes bytes and just above: below
	 * (lbytes - 0.001024, lbytes) bytes, above (lbytes, lbytes + 0.001024) */
	unsigned long long q = lbytes * 1000000ULL / 1024, r = lbytes * 1000000ULL % 1024;
	unsigned long long below = r != 0 ? q : q - 1, above = q + 1;
	char rules[2048];
	int st;

	ck_assert_msg(lbytes > 0 && below * 1024 < lbytes * 1000000ULL && above * 1024 > lbytes * 1000000ULL, "%llu: %llu %llu",
		      lbytes, below, above);
	snprintf(rules, sizeof rules,
		 "set instances Leaky$Leaked : shallow > %llu.%06llukB\n"
		 "set instances Leaky$Leaked : shallow <= %llu.%06llukB\n"
		 "set instances Leaky$Leaked : shallow < %llu.%06llukB\n"
		 "set instances Leaky$Leaked : shallow >= %llu.%06llukB\n"
		 "set instances Leaky$Leaked : shallow == 0.5kB\n",
		 below / 1000000, below % 1000000, below / 1000000, below % 1000000, above / 1000000, above % 1000000,
		 above / 1000000, above % 1000000);
	char *out = check(d, "fractions", rules, "-f json", &st);
	ck_assert_msg(st == 1, "status %d: %s", st, out);
	static const char *want[] = { "pass", "FAIL", "pass", "FAIL", "FAIL" };
	results(out, want, 5);
	free(out);
	out = check(d, "fraction-eq", "set all : shallow == 0.0001kB\n", "", &st);
	ck_assert_msg(st == 2 && strstr(out, "fraction-eq.rules:1: a whole number of bytes with == or !=") != NULL,
		      "status %d: %s", st, out);
	free(out);
}
END_TEST

START_TEST(test_check_errors)
{
	const char *d = leaks_jvm_dir();
	char cmd[2048];
	int st;

	/* a line that does not parse: its file and line, status 2 */
	char *out = check(d, "bad", "set all : count < 10\nset all count < 10\n", "", &st);
	ck_assert_int_eq(st, 2);
	ck_assert_msg(strstr(out, "bad.rules:2: no ':' before the measure") != NULL && strchr(out, '\n') == out + strlen(out) - 1,
		      "%s", out);
	free(out);
	out = check(d, "unit", "set all : count < 10kB\n", "", &st);
	ck_assert_int_eq(st, 2);
	ck_assert_msg(strstr(out, "unit.rules:1: a plain number: a count takes no unit") != NULL, "%s", out);
	free(out);
	/* what is wrong said (a trial: "a number" for -5; a unit of bytes
	 * asked of a count for 1e9) */
	out = check(d, "neg", "set all : count < -5\n", "", &st);
	ck_assert_msg(st == 2 && strstr(out, "neg.rules:1: a count or size of 0 or more (a bound below 0 goes with "
					     "growth rules)") != NULL, "%s", out);
	free(out);
	out = check(d, "big", "set all : count < 9300000000000000000\n", "", &st); /* past 2^63, a count: no bytes */
	ck_assert_msg(st == 2 && strstr(out, "big.rules:1: a number below 2^63\n") != NULL, "%s", out);
	free(out);
	out = check(d, "two", "set all : count < 5 6\n", "", &st); /* trailing text, no unit */
	ck_assert_msg(st == 2 && strstr(out, "two.rules:1: a number alone after the comparison") != NULL, "%s", out);
	free(out);
	out = check(d, "exp", "set all : count < 1e9\n", "", &st);
	ck_assert_msg(st == 2 && strstr(out, "exp.rules:1: a plain number: a count takes no unit") != NULL, "%s", out);
	free(out);
	/* a value left out, a regex PCRE2 refuses (its words), steps
	 * that end in a view: each said (a trial: "a number", and "steps
	 * that do not parse" for both of the others) */
	out = check(d, "none", "set all : count <\n", "", &st);
	ck_assert_msg(st == 2 && strstr(out, "none.rules:1: no number after the comparison") != NULL, "%s", out);
	free(out);
	out = check(d, "regex", "set all : count < 1\nset instances /Leaky(/ : count < 1\n", "", &st);
	ck_assert_msg(st == 2 && strstr(out, "regex.rules:2: steps that do not parse: ") != NULL &&
			      strstr(out, "missing closing parenthesis") != NULL, "%s", out);
	free(out);
	out = check(d, "view", "set instances Leaky$Leaked | classes : count < 1\n", "", &st);
	ck_assert_msg(st == 2 && strstr(out, "view.rules:1: steps that end in a view") != NULL, "%s", out);
	free(out);
	out = check(d, "insp", "inspection no-such-thing : count < 1\n", "", &st);
	ck_assert_int_eq(st, 2);
	ck_assert_msg(strstr(out, "insp.rules:1: no inspection of that name") != NULL, "%s", out);
	free(out);
	/* a rule that cannot be measured (a regex the steps refuse at run): an error row, status 2 */
	out = check(d, "unmeasured", "set all : count > 0\nset object 0xfffffff0 : count == 1\n", "-f json", &st);
	ck_assert_msg(st == 2, "status %d: %s", st, out);
	static const char *want[] = { "pass", "error" };
	results(out, want, 2);
	free(out);
	/* usage: no rules, an unknown option; a growth rule without -b */
	snprintf(cmd, sizeof cmd, "%s check %s/final.hprof 2>&1", heapwalk(), d);
	out = run(cmd, &st);
	ck_assert_msg(WEXITSTATUS(st) == 2 && strstr(out, "check needs --rules FILE") != NULL, "%d %s", st, out);
	free(out);
	snprintf(cmd, sizeof cmd, "%s check --bogus %s/final.hprof 2>&1", heapwalk(), d);
	out = run(cmd, &st);
	ck_assert_msg(WEXITSTATUS(st) == 2 && strstr(out, "unknown option '--bogus'") != NULL, "%d %s", st, out);
	free(out);
	snprintf(cmd, sizeof cmd, "%s check %s/final.hprof --rules %s/kinds.rules 2>&1", heapwalk(), d, d);
	out = run(cmd, &st);
	/* the first rule that needs it named, in its file and line (a trial: none) */
	ck_assert_msg(WEXITSTATUS(st) == 2 && strstr(out, "kinds.rules:10: a growth rule needs --baseline OLD") != NULL,
		      "%d %s", st, out);
	free(out);
	snprintf(cmd, sizeof cmd, "%s check -b %s/base.hprof %s/final.hprof --rules %s/kinds.rules 2>&1", heapwalk(), d,
		 d, d);
	out = run(cmd, &st);
	ck_assert_msg(WEXITSTATUS(st) == 2 &&
			      strstr(out, "kinds.rules:14: a leaks rule needs --baseline BASE and --target TARGET") != NULL,
		      "%d %s", st, out);
	free(out);
	/* check's usage errors are 2 however the command line is spelt */
	static const char *const spelt[] = { "%s/final.hprof check --rules %s/kinds.rules --bogus",
					     "-qb %s/base.hprof check --rules %s/kinds.rules --bogus",
					     "check %s/final.hprof --rules %s/kinds.rules --rules-off nosuch" };
	for (size_t i = 0; i < sizeof spelt / sizeof spelt[0]; i++) {
		char args[1024];
		snprintf(args, sizeof args, spelt[i], d, d);
		snprintf(cmd, sizeof cmd, "%s %s >/dev/null 2>&1", heapwalk(), args);
		ck_assert_msg(WEXITSTATUS(system(cmd)) == 2, "%s: not 2", args);
	}
	/* a file of no rules (cut short, all comments) must not pass */
	out = check(d, "empty", "# nothing yet\n\n", "", &st);
	ck_assert_msg(st == 2 && strstr(out, "empty.rules: no rules in it") != NULL, "%d %s", st, out);
	free(out);
	/* '#' inside a word is the rule's (a regex), a comment after a blank */
	out = check(d, "hash", "set instances /^Leaky\\$Leak#?ed$/ : count == 300 # a comment\n", "", &st);
	ck_assert_msg(st == 0, "%d %s", st, out);
	free(out);
	/* other commands' usage errors stay 1 */
	snprintf(cmd, sizeof cmd, "%s classes --bogus %s/final.hprof 2>&1", heapwalk(), d);
	out = run(cmd, &st);
	ck_assert_int_eq(WEXITSTATUS(st), 1);
	free(out);
}
END_TEST

/* Rules from several files: each row names its file (escaped as every
 * string is: a name holding a control character) and line, in text,
 * JSON, CSV and JUnit. */
START_TEST(test_check_files)
{
	const char *d = leaks_jvm_dir();
	char a[600], b[600], bx[600], cmd[4096];
	/* the rules, in order: file, line, a word of the rule */
	const char *file[3] = { a, a, b }, *rule[3] = { "Leaky$Leaked", "Leaky$Payload", "set all" };
	const unsigned line[3] = { 2, 4, 1 };
	int st;

	snprintf(a, sizeof a, "%s/files-a.rules", d);
	snprintf(b, sizeof b, "%s/files\x01two.rules", d);
	snprintf(bx, sizeof bx, "%s/files\\x01two.rules", d); /* b as esc_append writes it */
	FILE *f = fopen(a, "w");
	ck_assert(f != NULL && fputs("# a\nset instances Leaky$Leaked : count == 300\n\n"
				     "set instances Leaky$Payload : count == 300\n", f) >= 0 && fclose(f) == 0);
	f = fopen(b, "w");
	ck_assert(f != NULL && fputs("set all : count > 0\n", f) >= 0 && fclose(f) == 0);
	const char *fmt[] = { "json", "csv", "text" };
	for (int k = 0; k < 3; k++) {
		snprintf(cmd, sizeof cmd, "%s -q check -f %s %s/final.hprof --rules '%s' --rules '%s' --junit %s/files.xml",
			 heapwalk(), fmt[k], d, a, b, d);
		char *out = run(cmd, &st);
		ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: %d %s", fmt[k], st, out);
		char err[256];
		if (k == 0) {
			struct jv doc;
			ck_assert_msg(json_parse(out, strlen(out), &doc, err, sizeof err) == 0, "%s: %s", err, out);
			const struct jv *rows = jv_get(&doc, "rows");
			ck_assert(rows != NULL && rows->n == 3);
			for (size_t i = 0; i < 3; i++) {
				const struct jv *r = &rows->v[i], *fl = jv_get(r, "file");
				ck_assert_msg(fl != NULL && fl->t == J_STR && strcmp(fl->s, file[i]) == 0, "row %zu: %s", i, out);
				ck_assert_msg(jv_get(r, "line")->u == line[i] && strstr(jv_get(r, "rule")->s, rule[i]) != NULL,
					      "row %zu: %s", i, out);
			}
			jv_free(&doc);
		} else if (k == 1) {
			struct csv c;
			ck_assert_msg(csv_parse(out, strlen(out), &c, err, sizeof err) == 0, "%s: %s", err, out);
			int fc = csv_col(&c, "file"), lc = csv_col(&c, "line");
			ck_assert_msg(c.nrows == 4 && fc >= 0 && lc >= 0, "%s", out);
			for (size_t i = 0; i < 3; i++) {
				ck_assert_msg(strcmp(c.cell[(i + 1) * c.ncols + (size_t)fc], i < 2 ? a : bx) == 0, "%s", out);
				ck_assert_msg(strtoul(c.cell[(i + 1) * c.ncols + (size_t)lc], NULL, 10) == line[i], "%s", out);
			}
			csv_free(&c);
		} else { /* the row of each rule starts FILE  LINE */
			for (size_t i = 0; i < 3; i++) {
				char *at = strstr(out, rule[i]);
				ck_assert_msg(at != NULL, "%s", out);
				while (at > out && at[-1] != '\n')
					at--;
				char want[700];
				snprintf(want, sizeof want, "%s", i < 2 ? a : bx);
				ck_assert_msg(strncmp(at, want, strlen(want)) == 0 &&
					      strtoul(at + strlen(want), NULL, 10) == line[i], "rule %zu: %s", i, out);
			}
		}
		free(out);
	}
	if (!have("python3")) {
		fprintf(stderr, "check: no python3: the JUnit file is not read by a consumer\n");
		return;
	}
	snprintf(cmd, sizeof cmd,
		 "python3 -c \"import xml.etree.ElementTree as E, sys; r = E.parse(sys.argv[1]).getroot(); "
		 "[print(c.get('file'), c.get('line'), sep='|') for c in r.iter('testcase')]\" %s/files.xml", d);
	char *out = run(cmd, &st);
	char want[2048];
	snprintf(want, sizeof want, "%s|2\n%s|4\n%s|1\n", a, a, bx);
	ck_assert_msg(st == 0 && strcmp(out, want) == 0, "%s", out);
	free(out);
}
END_TEST

/* A file --rules names twice, by one path or two, is read once: its
 * gates were measured twice (two rows, two JUnit test cases of one
 * line), and a classifier's rules applied twice. A note says so. */
START_TEST(test_check_rules_once)
{
	const char *d = leaks_jvm_dir();
	char a[600], cmd[4096];
	int st;

	snprintf(a, sizeof a, "%s/once.rules", d);
	FILE *f = fopen(a, "w");
	ck_assert(f != NULL && fputs("set instances Leaky$Leaked : count == 300\n", f) >= 0 && fclose(f) == 0);
	snprintf(cmd, sizeof cmd, "%s check -f json %s/final.hprof --rules '%s' --rules '%s/./once.rules' "
		 "--rules '%s' 2>%s/once.err", heapwalk(), d, a, d, a, d);
	char *out = run(cmd, &st), err[256];
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%d %s", st, out);
	struct jv doc;
	ck_assert_msg(json_parse(out, strlen(out), &doc, err, sizeof err) == 0, "%s: %s", err, out);
	const struct jv *rows = jv_get(&doc, "rows");
	ck_assert_msg(rows != NULL && rows->n == 1, "%s", out);
	jv_free(&doc);
	free(out);
	snprintf(cmd, sizeof cmd, "cat %s/once.err", d);
	out = run(cmd, &st);
	char want[4096];
	snprintf(want, sizeof want, "heapwalk: note: --rules %s/./once.rules: the file --rules %s names, read once\n"
		 "heapwalk: note: --rules %s: the file --rules %s names, read once\n", d, a, a, a);
	ck_assert_msg(strstr(out, want) != NULL, "%s", out);
	free(out);
	/* the classifier's: the rules in effect are those of one reading */
	char *once, *twice;
	snprintf(cmd, sizeof cmd, "%s --rules %s/rules/jetty.rules rules 2>&1", heapwalk(), TEST_SRCDIR "/..");
	once = run(cmd, &st);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	snprintf(cmd, sizeof cmd, "%s -q --rules %s/rules/jetty.rules --rules %s/rules/../rules/jetty.rules rules 2>&1",
		 heapwalk(), TEST_SRCDIR "/..", TEST_SRCDIR "/..");
	twice = run(cmd, &st);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	ck_assert_msg(strlen(once) > 100 && strcmp(once, twice) == 0, "%s\n----\n%s", once, twice);
	free(once);
	free(twice);
}
END_TEST

/* A class the dump has none of selects none: the rule is measured on no
 * objects (a .NET, V8 or Mono dump lists only the classes of its
 * objects: "count == 0" must be able to pass) and a note says so; a
 * name an edit or two from a class's is a misspelling, an error with
 * the name meant. The words name what the rule wrote (a backslash, a
 * control character) escaped once (by esc_append's rules, \\ and \xHH)
 * in every format: not escaped again by the output. */
START_TEST(test_check_error_escaped_once)
{
	const char *d = leaks_jvm_dir();
	/* the user's words as written, but for what must not reach a
	 * terminal (the control characters): backslashes not doubled */
	static const char *const want[] = { "measured on no objects: no class named 'Bad\\Name\\x01'",
					    "measured on no objects: no class matches /a\\\\\\x02b/",
					    "no class named 'Leaky$Leakd': did you mean Leaky$Leaked?" };
	static const char *const result[] = { "pass", "pass", "error" };
	char path[600], cmd[4096], err[256];
	int st;

	snprintf(path, sizeof path, "%s/esc.rules", d);
	FILE *f = fopen(path, "w");
	ck_assert(f != NULL &&
		  fputs("set instances Bad\\Name\x01 : count == 0\nset instances /a\\\\\x02" "b/ : count == 0\n"
			"set instances Leaky$Leakd : count == 0\n", f) >= 0 &&
		  fclose(f) == 0);
	const char *fmt[] = { "text", "json", "csv" };
	for (int k = 0; k < 3; k++) {
		snprintf(cmd, sizeof cmd, "%s -q check -f %s %s/final.hprof --rules %s --junit %s/esc.xml", heapwalk(), fmt[k], d,
			 path, d);
		char *out = run(cmd, &st);
		ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 2, "%s: %d %s", fmt[k], st, out);
		for (size_t i = 0; i < 3; i++) {
			const char *col = i < 2 ? "note" : "error";
			if (k == 0) { /* FILE:LINE: the words, a line of their own */
				char line[1024];
				snprintf(line, sizeof line, "\n%s:%zu: %s%s\n", path, i + 1, i < 2 ? "note: " : "", want[i]);
				ck_assert_msg(strstr(out, line) != NULL, "not %s in %s", line, out);
			} else if (k == 1) {
				struct jv doc;
				ck_assert_msg(json_parse(out, strlen(out), &doc, err, sizeof err) == 0, "%s: %s", err, out);
				const struct jv *r = &jv_get(&doc, "rows")->v[i], *e = jv_get(r, col);
				ck_assert_msg(e != NULL && e->t == J_STR && strcmp(e->s, want[i]) == 0, "not %s: %s", want[i], out);
				ck_assert_msg(strcmp(jv_get(r, "result")->s, result[i]) == 0, "rule %zu: %s", i + 1, out);
				ck_assert_msg(i == 2 || jv_get(r, "measured")->u == 0, "rule %zu: %s", i + 1, out);
				jv_free(&doc);
			} else {
				struct csv c;
				ck_assert_msg(csv_parse(out, strlen(out), &c, err, sizeof err) == 0, "%s: %s", err, out);
				int ec = csv_col(&c, col);
				ck_assert_msg(ec >= 0 && c.nrows == 4 && strcmp(c.cell[(i + 1) * c.ncols + (size_t)ec], want[i]) == 0,
					      "not %s: %s", want[i], out);
				csv_free(&c);
			}
		}
		free(out);
	}
	if (!have("python3"))
		return;
	snprintf(cmd, sizeof cmd,
		 "python3 -c \"import xml.etree.ElementTree as E, sys; r = E.parse(sys.argv[1]).getroot(); "
		 "[print(c.find('system-out').text if c.find('error') is None else c.find('error').get('message')) "
		 "for c in r.iter('testcase')]\" %s/esc.xml", d);
	char *out = run(cmd, &st);
	char all[1024];
	snprintf(all, sizeof all, "%s\n%s\n%s\n", want[0], want[1], want[2]);
	ck_assert_msg(st == 0 && strcmp(out, all) == 0, "%s", out);
	free(out);
}
END_TEST

/* JSON gives the figure measured and the threshold as numbers: exact
 * integers (bytes with a unit, a negative growth), the measure null
 * where the rule could not be measured. */
START_TEST(test_check_json_numbers)
{
	const char *d = leaks_jvm_dir();
	char err[256];
	int st;

	char *out = check(d, "nums",
			  "set instances Leaky$Leaked : count == 300\n"
			  "set instances Leaky$Leaked : shallow < 1.5MB\n"
			  "growth instances Leaky$Leaked : count > -5\n"
			  "set object 0xfffffff0 : count == 9007199254740993\n", "-f json", &st);
	ck_assert_msg(st == 2, "status %d: %s", st, out);
	struct jv doc;
	ck_assert_msg(json_parse(out, strlen(out), &doc, err, sizeof err) == 0, "%s: %s", err, out);
	const struct jv *rows = jv_get(&doc, "rows");
	ck_assert(rows != NULL && rows->n == 4);
	/* the measure: 300 Leaked and their bytes (jcmd's), their growth from none at the base */
	const unsigned long long got[] = { 300, histo(d, "Leaky$Leaked", 1), 300 };
	static const struct { int neg; unsigned long long v; } want[] = { { 0, 300 }, { 0, 1572864 }, { 1, 5 },
									 { 0, 9007199254740993ull } };
	for (size_t i = 0; i < 4; i++) {
		const struct jv *m = jv_get(&rows->v[i], "measured"), *t = jv_get(&rows->v[i], "threshold");
		ck_assert_msg(m != NULL && t != NULL && t->t == J_NUM, "row %zu: %s", i, out);
		if (i == 3)
			ck_assert_msg(m->t == J_NULL, "row %zu: %s", i, out);
		else
			ck_assert_msg(m->t == J_NUM && m->is_uint && m->u == got[i] && got[i] > 0, "row %zu: %s", i, out);
		if (want[i].neg) /* written -5: no unsigned integer, but a number of that value */
			ck_assert_msg(!t->is_uint && t->num == -(double)want[i].v, "row %zu: %s", i, out);
		else
			ck_assert_msg(t->is_uint && t->u == want[i].v, "row %zu: %s", i, out);
	}
	jv_free(&doc);
	free(out);
}
END_TEST

/* --junit onto what is no regular file (a FIFO nobody reads, a device):
 * refused in one line, status 2, before any dump is read; never waited
 * on (timeout: a hang is a failure, not a stuck suite). */
START_TEST(test_check_junit_not_regular)
{
	const char *d = leaks_jvm_dir();
	char fifo[600], cmd[4096];
	int st;

	snprintf(fifo, sizeof fifo, "%s/junit.fifo", d);
	unlink(fifo);
	ck_assert(mkfifo(fifo, 0600) == 0);
	free(check(d, "nonreg", "set all : count > 0\n", "", &st));
	ck_assert_int_eq(st, 0); /* the run itself is fine */
	/* a FIFO no one reads: one line, status 2, no wait (-o alike) */
	for (int o = 0; o < 2; o++) {
		snprintf(cmd, sizeof cmd, "timeout %.0f %s -q check %s/final.hprof --rules %s/nonreg.rules %s %s 2>&1 >/dev/null",
			 hang_seconds(60), heapwalk(), d, d, o ? "-o" : "--junit", fifo);
		char *out = run(cmd, &st);
		ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 2, "%s: status %d: %s", o ? "-o" : "--junit", st, out);
		ck_assert_msg(strstr(out, "no process reads") != NULL && strchr(out, '\n') == out + strlen(out) - 1, "%s", out);
		free(out);
	}
	/* what -o writes to, --junit does: a pipe (/dev/stdout), /dev/null */
	snprintf(cmd, sizeof cmd, "%s -q check %s/final.hprof --rules %s/nonreg.rules --junit /dev/stdout -o /dev/null | "
		 "grep -c '<testsuites'", heapwalk(), d, d);
	char *out = run(cmd, &st);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0 && atoi(out) == 1, "status %d: %s", st, out);
	free(out);
	unlink(fifo);
}
END_TEST

/* The views' options mean nothing to check: each refused in one line
 * naming it, status 2 (check's usage errors), nothing measured. */
START_TEST(test_check_view_options)
{
	const char *d = leaks_jvm_dir();
	static const char *const opt[] = { "-s name", "-r", "--filter x", "--exact x", "--all", "-n 3", "--top=3", "-d 2",
					   "--cutoff 1", "--max 3", "-w", "--by class", "--deep", "--plain", "--gz" };
	char cmd[4096];
	int st;

	free(check(d, "viewopts", "set all : count > 0\n", "", &st));
	ck_assert_int_eq(st, 0); /* without them, the run is fine */
	for (size_t i = 0; i < sizeof opt / sizeof opt[0]; i++) {
		char name[32];
		snprintf(name, sizeof name, "%s", opt[i]);
		name[strcspn(name, " =")] = '\0';
		static const char *const longname[][2] = { { "-s", "--sort" }, { "-r", "--reverse" }, { "-n", "--top" },
							   { "-d", "--depth" }, { "-w", "--weak" } };
		for (size_t k = 0; k < sizeof longname / sizeof longname[0]; k++)
			if (strcmp(name, longname[k][0]) == 0)
				snprintf(name, sizeof name, "%s", longname[k][1]);
		snprintf(cmd, sizeof cmd, "%s -q check %s/final.hprof --rules %s/viewopts.rules %s 2>&1", heapwalk(), d, d, opt[i]);
		char *out = run(cmd, &st);
		char says[64];
		snprintf(says, sizeof says, "check takes no %s", name);
		ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 2 && strstr(out, says) != NULL &&
			      strchr(out, '\n') == out + strlen(out) - 1, "%s: %d %s", opt[i], st, out);
		free(out);
	}
}
END_TEST

/* The JUnit file as a consumer reads it: Python's XML parser, the suite's
 * counts, a testcase per rule, a failure with the measured figure. */
START_TEST(test_check_junit)
{
	const char *d = leaks_jvm_dir();
	char more[1024], cmd[2048];
	int st;

	if (!have("python3")) {
		fprintf(stderr, "check: no python3: the JUnit file is not read by a consumer\n");
		return;
	}
	snprintf(more, sizeof more, "--junit %s/check.xml", d);
	char *out = check(d, "junit",
			  "set instances Leaky$Leaked : count == 300\n"
			  "set instances Leaky$Leaked : count < 300   # <fails> & says \"why\"\n"
			  "set object 0xfffffff0 : count == 1\n"
			  "set instances Bad\xef\xbf\xbfName\x01 : count == 0   # no XML character, a control\n", more, &st);
	ck_assert_msg(st == 2, "status %d: %s", st, out);
	free(out);
	snprintf(cmd, sizeof cmd,
		 "python3 -c \"import xml.etree.ElementTree as E, sys; r = E.parse(sys.argv[1]).getroot(); "
		 "s = r.find('testsuite'); c = s.findall('testcase'); "
		 "print(r.tag, r.get('tests'), r.get('failures'), r.get('errors'), len(c), "
		 "c[1].find('failure').get('message'), c[2].find('error') is not None, c[1].get('name'), "
		 "c[3].find('system-out').text)\" %s/check.xml",
		 d);
	out = run(cmd, &st);
	ck_assert_msg(st == 0, "%s", out);
	/* the last: a class the dump has none of, measured on none, said in
	 * the test case's output */
	ck_assert_msg(strcmp(out, "testsuites 4 1 1 4 measured 300, not < 300 True line 2: set instances Leaky$Leaked : "
			      "count < 300 measured on no objects: no class named 'Bad\\u{FFFF}Name\\x01'\n") == 0,
		      "%s", out);
	free(out);
	/* a run that ends in an error before any rule is measured (a rules
	 * file that does not parse, a dump that is not there) leaves no last
	 * run's results behind: a test in error, read by the same consumer */
	static const char *const broken[] = { "bad-rules", "no-dump" };
	for (int k = 0; k < 2; k++) {
		out = check(d, "junit-ok", "set instances Leaky$Leaked : count == 300\n", more, &st);
		ck_assert_msg(st == 0, "status %d: %s", st, out);
		free(out);
		if (k == 0) {
			out = check(d, "junit-bad", "set instances Leaky$Leaked count == 300\n", more, &st);
		} else {
			snprintf(cmd, sizeof cmd, "%s -q check %s/not-there.hprof --rules %s/junit-ok.rules %s 2>&1",
				 heapwalk(), d, d, more);
			out = run(cmd, &st);
			st = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
		}
		ck_assert_msg(st == 2, "%s: status %d: %s", broken[k], st, out);
		free(out);
		snprintf(cmd, sizeof cmd,
			 "python3 -c \"import xml.etree.ElementTree as E, sys; r = E.parse(sys.argv[1]).getroot(); "
			 "c = r.find('testsuite').findall('testcase'); "
			 "print(r.get('tests'), r.get('failures'), r.get('errors'), len(c), c[0].find('error').get('type'))\" "
			 "%s/check.xml",
			 d);
		out = run(cmd, &st);
		ck_assert_msg(st == 0 && strcmp(out, "1 0 1 1 not run\n") == 0, "%s: %s", broken[k], out);
		free(out);
	}
}
END_TEST

/* A dump cut short (the file ends inside a record) makes no verdict: a
 * gate of upper bounds held on what was read (fewer objects, less
 * retained) would pass a heap that breaks it. Every rule is an error
 * naming the cut, status 2, in JSON and JUnit alike; the same for a cut
 * baseline. The whole dump's rules pass first (the control). */
START_TEST(test_check_truncated)
{
	const char *d = leaks_jvm_dir();
	char cut[600], cmd[2048], rules[600];
	int st;

	snprintf(cut, sizeof cut, "%s/cut-check.hprof", d);
	snprintf(cmd, sizeof cmd, "cp %s/final.hprof %s", d, cut);
	ck_assert(system(cmd) == 0);
	struct stat sb;
	ck_assert(stat(cut, &sb) == 0 && truncate(cut, sb.st_size * 3 / 5) == 0);
	snprintf(cmd, sizeof cmd, "%s -q -f json info %s 2>/dev/null", heapwalk(), cut);
	char *out = run(cmd, &st);
	ck_assert_msg(strstr(out, "\"truncated_at\":") != NULL, "the cut is no truncation: %s", out);
	free(out);
	static const char text[] = "set instances Leaky$Leaked : count <= 300\nset all : retained < 1GB\n";
	out = check(d, "whole", text, "-f json", &st);
	static const char *pass[] = { "pass", "pass" }, *err[] = { "error", "error" };
	ck_assert_msg(st == 0, "status %d: %s", st, out);
	results(out, pass, 2);
	free(out);
	snprintf(rules, sizeof rules, "%s/whole.rules", d);
	snprintf(cmd, sizeof cmd, "%s -q -f json check %s --rules %s --junit %s/cut.xml 2>&1", heapwalk(), cut, rules, d);
	out = run(cmd, &st);
	ck_assert_msg(WEXITSTATUS(st) == 2, "status %d: %s", st, out);
	results(out, err, 2);
	ck_assert_msg(strstr(out, "cut-check.hprof is truncated: it is whole only up to offset ") != NULL, "%s", out);
	free(out);
	snprintf(cmd, sizeof cmd, "grep -c '<error message=\"[^\"]*cut-check.hprof is truncated' %s/cut.xml", d);
	out = run(cmd, &st);
	ck_assert_msg(strcmp(out, "2\n") == 0, "JUnit errors: %s", out);
	free(out);
	/* the baseline cut: growth measured against part of it is no verdict */
	FILE *f = fopen(rules, "w");
	ck_assert(f != NULL && fputs("growth instances Leaky$Leaked : count <= 300\n", f) >= 0 && fclose(f) == 0);
	snprintf(cmd, sizeof cmd, "%s -q check %s/final.hprof -b %s --rules %s 2>&1", heapwalk(), d, cut, rules);
	out = run(cmd, &st);
	ck_assert_msg(WEXITSTATUS(st) == 2 && strstr(out, "cut-check.hprof is truncated") != NULL, "status %d: %s", st, out);
	free(out);
	unlink(cut);
}
END_TEST

Suite *check_suite(void)
{
	Suite *s = suite_create("check");
	TCase *tc = tcase_create("check");

	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_check_rule_kinds);
	tcase_add_test(tc, test_check_errors);
	tcase_add_test(tc, test_check_fractions);
	tcase_add_test(tc, test_check_junit);
	tcase_add_test(tc, test_check_files);
	tcase_add_test(tc, test_check_rules_once);
	tcase_add_test(tc, test_check_error_escaped_once);
	tcase_add_test(tc, test_check_json_numbers);
	tcase_add_test(tc, test_check_junit_not_regular);
	tcase_add_test(tc, test_check_view_options);
	tcase_add_test(tc, test_check_truncated);
	suite_add_tcase(s, tc);
	return s;
}
