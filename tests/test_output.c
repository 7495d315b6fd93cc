/* test_output.c — where the command line's output goes and what it
 * holds for other programs: -o naming a descriptor writes to it as it is
 * open (appending in >> mode), -o never names an input of the run (a
 * dump, a rules file; through links too), and CSV cells a spreadsheet
 * would take for formulas are neutralised while computed numbers stay
 * numbers. Dumps are made here by tests/hprofw.c. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hprofw.h"
#include "jsonck.h"
#include "suites.h"

#define FORMULA_CLASS "=HYPERLINK(\"http://x\")"
#define FORMULA_STRING "@SUM(1)"
/* as class names are shown: the dump's internal form, '/' for '.' */
#define FORMULA_SHOWN "=HYPERLINK(\"http:..x\")"

enum { O_CLS = 0x5001, O_NAME = 0x5003, O_F = 0x5005, O_X = 0x6001, O_S = 0x7001, O_A = 0x7003 };

/* n instances of a class named FORMULA_CLASS (each a GC root), the
 * first holding a String whose text is FORMULA_STRING; written under
 * hw_tmpdir() as name, the path returned (caller frees). */
static char *formula_dump(const char *name, int n)
{
	struct hw w;

	hw_begin(&w, "JAVA PROFILE 1.0.2", 8);
	hw_jdk_names(&w);
	hw_utf8(&w, O_F, "text");
	hw_utf8(&w, O_NAME, FORMULA_CLASS);
	hw_load_class(&w, 8, O_CLS, O_NAME);
	hw_heap_begin(&w);
	hw_jdk_classes(&w);
	struct hw_field decl = { O_F, T_OBJECT, 0 };
	hw_class_dump(&w, O_CLS, J_OBJECT, 0, NULL, 0, NULL, 0, &decl, 1);
	for (int i = 0; i < n; i++) {
		struct hw_field v = { 0, T_OBJECT, i == 0 ? O_S : 0 };
		hw_root(&w, HW_ROOT_UNKNOWN, O_X + 2 * (uint64_t)i, 0, 0);
		hw_instance(&w, O_X + 2 * (uint64_t)i, O_CLS, &v, 1);
	}
	hw_primarray(&w, O_A, T_BYTE, (uint32_t)strlen(FORMULA_STRING), FORMULA_STRING);
	hw_jdk_string(&w, O_S, O_A);
	hw_heap_end(&w);
	hw_dump_end(&w);
	char *path = hw_write(&w, name, SIZE_MAX);
	hw_free(&w);
	return path;
}

static void put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_msg(f != NULL && fputs(text, f) >= 0 && fclose(f) == 0, "cannot write %s", path);
}

static int lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* Two words and neither a command: the one that names no file is said
 * to be an unknown command, with the nearest one; one line on stderr,
 * status 1, nothing on stdout. Before, the dump was the argument named
 * as unexpected ("clases DUMP": unexpected argument 'DUMP'). */
START_TEST(misspelt_command)
{
	char *dump = formula_dump("misspelt.hprof", 1);
	static const struct { const char *args, *want; } cases[] = {
		{ "clases %s", "heapwalk: unknown command 'clases': did you mean classes? (see heapwalk --help)\n" },
		{ "%s bigest", "heapwalk: unknown command 'bigest': did you mean biggest? (see heapwalk --help)\n" },
		{ "%s clsases", "heapwalk: unknown command 'clsases': did you mean classes? (see heapwalk --help)\n" },
		{ "dif %s", "heapwalk: unknown command 'dif': did you mean diff? (see heapwalk --help)\n" },
		{ "%s xyzzy", "heapwalk: unknown command 'xyzzy' (see heapwalk --help)\n" },
		/* what a terminal would take as an escape, shown as text */
		{ "$'clas\\033[31m' %s", "heapwalk: unknown command 'clas\\x1b[31m' (see heapwalk --help)\n" },
		/* a command and more: unexpected, as before */
		{ "classes %s more", "heapwalk: unexpected argument 'more' (see heapwalk --help)\n" },
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char args[1200], cmd[2048];
		int st;
		snprintf(args, sizeof args, cases[i].args, dump);
		snprintf(cmd, sizeof cmd, "bash -c \"'%s' -q %s 2>&1 >/dev/null; echo \\$?\"", heapwalk(), args);
		char *out = run(cmd, &st), want[600];
		snprintf(want, sizeof want, "%s1\n", cases[i].want);
		ck_assert_msg(strcmp(out, want) == 0, "%s: said\n%swant\n%s", args, out, want);
		free(out);
	}
	free(dump);
}
END_TEST

/* -o /dev/stdout (and the other names of a descriptor) with the shell's
 * >> log: log keeps what it held and gets the output after it, the same
 * file (no other one renamed over it); a descriptor that is not open is
 * one line. */
START_TEST(output_to_a_descriptor)
{
	static const char *const names[] = { "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1", "/dev/stderr", "-" };
	char log[600], cmd[1600];
	struct stat before, after;
	struct sbuf expect;
	int status;
	size_t n;

	char *dump = formula_dump("fd.hprof", 2);
	snprintf(cmd, sizeof cmd, "%s -q classes %s", heapwalk(), dump);
	char *want = run(cmd, &status);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0 && strstr(want, "instances") != NULL);
	snprintf(log, sizeof log, "%s/log.txt", hw_tmpdir());
	put_file(log, "an earlier line\n");
	ck_assert(stat(log, &before) == 0);
	sbuf_init(&expect);
	sbuf_adds(&expect, "an earlier line\n");
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		int err = strcmp(names[i], "/dev/stderr") == 0;
		snprintf(cmd, sizeof cmd, "%s -q classes %s -o %s %s>> %s", heapwalk(), dump, names[i], err ? "2" : "", log);
		char *out = run(cmd, &status);
		ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0 && *out == '\0', "%s: status %d, %s", cmd,
			      status, out);
		free(out);
		sbuf_adds(&expect, want);
		char *got = file_bytes(log, &n);
		ck_assert_msg(n == expect.len && memcmp(got, expect.buf, n) == 0, "%s: the log holds\n%s", cmd, got);
		free(got);
		ck_assert(stat(log, &after) == 0);
		ck_assert_msg(after.st_ino == before.st_ino && after.st_dev == before.st_dev,
			      "%s: the log was replaced by another file", cmd);
	}
	snprintf(cmd, sizeof cmd, "%s -q classes %s -o /dev/fd/9 9>&- 2>&1", heapwalk(), dump);
	char *out = run(cmd, &status);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 2 &&
		      strcmp(out, "heapwalk: /dev/fd/9: Bad file descriptor\n") == 0, "%s: %s", cmd, out);
	free(out);
	sbuf_free(&expect);
	free(want);
	free(dump);
}
END_TEST

/* -o naming an input of the run (a --rules file or a dump; by its name,
 * through a symbolic link, a hard link, or the descriptor >> opened on
 * it): one line, status 1, and the file keeps its bytes. */
START_TEST(output_never_an_input)
{
	static const char rules_text[] = "# mine: heapwalk reads this file and never writes it\n";
	char rules[600], sym[600], hard[600], dlink[600], cmd[2400];
	int status;
	size_t n;

	char *dump = formula_dump("in-new.hprof", 1), *old = formula_dump("in-old.hprof", 3);
	snprintf(rules, sizeof rules, "%s/mine.rules", hw_tmpdir());
	snprintf(sym, sizeof sym, "%s/link.rules", hw_tmpdir());
	snprintf(hard, sizeof hard, "%s/hard.rules", hw_tmpdir());
	snprintf(dlink, sizeof dlink, "%s/hard.hprof", hw_tmpdir());
	put_file(rules, rules_text);
	ck_assert(symlink("mine.rules", sym) == 0 && link(rules, hard) == 0 && link(dump, dlink) == 0);
	size_t dump_size;
	free(file_bytes(dump, &dump_size));
	/* --rules FILE -o OUT [REDIRECTION] */
	const struct { const char *rules, *out, *redirect; } cases[] = {
		{ rules, rules, "" },
		{ rules, sym, "" },
		{ sym, hard, "" },
		{ rules, "/dev/stdout", ">> mine.rules" },
		{ rules, dlink, "" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		/* stderr to the pipe, then stdout to the redirection */
		snprintf(cmd, sizeof cmd, "cd %s && %s -q classes %s --rules %s -o %s 2>&1 %s", hw_tmpdir(), heapwalk(),
			 dump, cases[i].rules, cases[i].out, cases[i].redirect);
		char *out = run(cmd, &status);
		ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 1 && lines(out) == 1 &&
			      strstr(out, "which heapwalk never writes") != NULL, "%s: status %d: %s", cmd, status, out);
		free(out);
		char *kept = file_bytes(rules, &n);
		ck_assert_msg(n == strlen(rules_text) && memcmp(kept, rules_text, n) == 0, "%s: the rules now hold\n%s",
			      cmd, kept);
		free(kept);
		free(file_bytes(dump, &n));
		ck_assert_msg(n == dump_size, "%s: the dump changed", cmd);
	}
	/* diff's dumps, and the rules beside them */
	snprintf(cmd, sizeof cmd, "%s -q diff %s %s --rules %s -o %s 2>&1", heapwalk(), old, dump, rules, sym);
	char *out = run(cmd, &status);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 1 && lines(out) == 1 &&
		      strstr(out, "which heapwalk never writes") != NULL, "%s: %s", cmd, out);
	free(out);
	snprintf(cmd, sizeof cmd, "%s -q diff %s %s -o %s 2>&1", heapwalk(), old, dump, dlink);
	out = run(cmd, &status);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 1 && lines(out) == 1 &&
		      strstr(out, "is a dump, which heapwalk never writes") != NULL, "%s: %s", cmd, out);
	free(out);
	char *kept = file_bytes(rules, &n);
	ck_assert(n == strlen(rules_text) && memcmp(kept, rules_text, n) == 0);
	free(kept);
	free(dump);
	free(old);
}
END_TEST

/* -o (or --junit) naming what heapwalk keeps with a dump of the run: its
 * index cache, its .NET mark file (the GC's record of a moment gone), a
 * heapshot's cache: refused, one line, status 1, the file kept; a name
 * that only starts as the dump's does is written. */
START_TEST(output_never_a_companion)
{
	static const char mark_text[] = "a mark file's bytes, which nothing can make again\n";
	char mark[600], cache[600], cmd[8000];
	int status;
	size_t n, cache_size;

	char *dump = formula_dump("comp.hprof", 1), *old = formula_dump("comp-old.hprof", 3);
	snprintf(mark, sizeof mark, "%s.hwmark", dump);
	snprintf(cache, sizeof cache, "%s.hwi", dump);
	put_file(mark, mark_text);
	snprintf(cmd, sizeof cmd, "%s -q info %s > /dev/null 2>&1", heapwalk(), dump); /* the cache written */
	ck_assert_int_eq(system(cmd), 0);
	free(file_bytes(cache, &cache_size));
	ck_assert(cache_size > 0);
	const char *dir = hw_tmpdir();
	char args[5][1200];
	snprintf(args[0], sizeof args[0], "classes %s -o %s", dump, mark);
	snprintf(args[1], sizeof args[1], "classes %s -o %s", dump, cache);
	snprintf(args[2], sizeof args[2], "classes %s -o %s/../%s/comp.hprof.7.hwi", dump, dir, strrchr(dir, '/') + 1);
	snprintf(args[3], sizeof args[3], "diff %s %s -o %s.hwi", old, dump, old);
	snprintf(args[4], sizeof args[4], "check %s -b %s --rules /dev/null --junit %s", old, dump, mark);
	for (size_t i = 0; i < 5; i++) {
		snprintf(cmd, sizeof cmd, "cd %s && %s -q %s 2>&1", dir, heapwalk(), args[i]);
		char *out = run(cmd, &status);
		ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == (i == 4 ? 2 : 1) && lines(out) == 1 && /* check: 2 */
			      strstr(out, "is what heapwalk keeps with the dump") != NULL, "%s: status %d: %s", cmd, status, out);
		free(out);
		char *kept = file_bytes(mark, &n);
		ck_assert_msg(n == strlen(mark_text) && memcmp(kept, mark_text, n) == 0, "%s: the mark file changed", cmd);
		free(kept);
		free(file_bytes(cache, &n));
		ck_assert_msg(n == cache_size, "%s: the cache changed", cmd);
	}
	snprintf(cmd, sizeof cmd, "%s -q classes %s -o %s.csv -f csv 2>&1", heapwalk(), dump, dump);
	char *out = run(cmd, &status);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s: %s", cmd, out);
	free(out);
	free(dump);
	free(old);
}
END_TEST

/* heapwalk -q -f csv ARGS: its output (status 0), parsed. */
static char *csv_of(const char *args, struct csv *c)
{
	char cmd[2048], err[256];
	int status;

	snprintf(cmd, sizeof cmd, "%s -q -f csv %s", heapwalk(), args);
	char *out = run(cmd, &status);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s: status %d", cmd, status);
	ck_assert_msg(csv_parse(out, strlen(out), c, err, sizeof err) == 0, "%s: not CSV: %s\n%s", cmd, err, out);
	return out;
}

static const char *cell(const struct csv *c, size_t row, const char *col)
{
	int k = csv_col(c, col);

	ck_assert_msg(k >= 0, "no column %s", col);
	ck_assert(row < c->nrows);
	return c->cell[row * c->ncols + (size_t)k];
}

/* The row whose column col is want; fails if none. */
static size_t row_with(const struct csv *c, const char *col, const char *want)
{
	for (size_t r = 1; r < c->nrows; r++)
		if (strcmp(cell(c, r, col), want) == 0)
			return r;
	ck_abort_msg("no row with %s '%s'", col, want);
	return 0;
}

/* No cell of the text columns starts as a formula would. */
static void no_formula(const struct csv *c, const char *const *cols, size_t ncols)
{
	for (size_t r = 1; r < c->nrows; r++)
		for (size_t k = 0; k < ncols; k++) {
			const char *s = cell(c, r, cols[k]);
			ck_assert_msg(strchr("=+-@\t\r", s[0]) == NULL || s[0] == '\0', "row %zu, %s: '%s'", r, cols[k], s);
		}
}

/* A class name and a String from the dump that a spreadsheet would run
 * as formulas: quoted cells starting with ' (OWASP's advice); the
 * negative counts diff computes stay plain numbers. */
START_TEST(csv_formulas_neutralised)
{
	static const char *const text_cols[] = { "class" };
	static const char *const obj_cols[] = { "id", "class", "value" };
	struct csv c;
	char args[1400];

	char *dump = formula_dump("csv-new.hprof", 1), *old = formula_dump("csv-old.hprof", 3);
	snprintf(args, sizeof args, "classes %s", dump);
	char *out = csv_of(args, &c);
	size_t r = row_with(&c, "class", "'" FORMULA_SHOWN);
	ck_assert_str_eq(cell(&c, r, "instances"), "1");
	ck_assert_msg(strstr(out, "\n\"'=HYPERLINK(\"\"http:..x\"\")\",") != NULL, "not a quoted cell:\n%s", out);
	no_formula(&c, text_cols, 1);
	csv_free(&c);
	free(out);

	snprintf(args, sizeof args, "-n 0 %s -e 'all | objects'", dump);
	out = csv_of(args, &c);
	r = row_with(&c, "value", "'" FORMULA_STRING);
	ck_assert_str_eq(cell(&c, r, "class"), "java.lang.String");
	ck_assert_msg(strstr(out, ",\"'@SUM(1)\"\n") != NULL, "not a quoted cell:\n%s", out);
	no_formula(&c, obj_cols, 3);
	csv_free(&c);
	free(out);

	/* from 3 instances to 1: -2, as a number */
	snprintf(args, sizeof args, "diff %s %s", old, dump);
	out = csv_of(args, &c);
	r = row_with(&c, "class", "'" FORMULA_SHOWN);
	ck_assert_str_eq(cell(&c, r, "instances_before"), "3");
	ck_assert_str_eq(cell(&c, r, "instances"), "1");
	ck_assert_str_eq(cell(&c, r, "instances_delta"), "-2");
	unsigned long long was = strtoull(cell(&c, r, "bytes_before"), NULL, 10),
			   now = strtoull(cell(&c, r, "bytes"), NULL, 10);
	char delta[96];
	ck_assert(was > now && now > 0);
	snprintf(delta, sizeof delta, "-%llu", was - now);
	ck_assert_str_eq(cell(&c, r, "bytes_delta"), delta);
	snprintf(delta, sizeof delta, ",-2,%llu,%llu,-%llu", was, now, was - now); /* unquoted */
	ck_assert_msg(strstr(out, delta) != NULL, "no %s in\n%s", delta, out);
	no_formula(&c, text_cols, 1);
	csv_free(&c);
	free(out);
	free(dump);
	free(old);
}
END_TEST

/* A class is named as the dump has it or as text and CSV show it (its
 * control characters escaped): what a script read from a CSV finds it
 * again; and a .NET generic type as either of .NET's two dump formats
 * spells it. The user's own words come back as written: a rule's regex
 * in check's text, CSV and JUnit, a pattern in an error, backslashes not
 * doubled (a regex \x1b shown \\x1b is another regex). */
START_TEST(names_as_shown_and_as_written)
{
	char *path = hw_write_evil(), cmd[2048], rules[700];
	int st;
	static const char *const names[] = { "Evil\x1b]0;pwned\x07,\"x\"", "Evil\\x1b]0;pwned\\x07,\"x\"" };

	for (int k = 0; k < 2; k++) {
		snprintf(cmd, sizeof cmd, "%s -q -f json info -e 'instances %s' %s 2>&1", heapwalk(), names[k], path);
		char *out = run(cmd, &st);
		ck_assert_msg(st == 0 && strstr(out, "\"set_objects\":1,") != NULL, "%d: %s", k, out);
		free(out);
	}
	static const char *const spelt[][2] = {
		{ "workload.gcdump", "System.Collections.Generic.Dictionary`2[System.String,Workload.CacheEntry]" },
		{ "workload-1.nettrace", "System.Collections.Generic.Dictionary<System.String,Workload.CacheEntry>" },
	};
	for (int k = 0; k < 2; k++) {
		snprintf(cmd, sizeof cmd, "%s -q --no-cache -f json info -e 'instances %s' %s/dotnet/%s 2>&1", heapwalk(),
			 spelt[k][1], TEST_SRCDIR, spelt[k][0]);
		char *out = run(cmd, &st);
		ck_assert_msg(st == 0 && strstr(out, "\"set_objects\":1,") != NULL, "%s: %s", spelt[k][0], out);
		free(out);
	}
	snprintf(rules, sizeof rules, "%s/as-written.rules", hw_tmpdir());
	put_file(rules, "set instances /^Evil\\x1b\\]/ : count == 1\n");
	static const char *const fmt[] = { "text", "csv" };
	for (int k = 0; k < 2; k++) {
		snprintf(cmd, sizeof cmd, "%s -q -f %s check %s --rules %s --junit %s/as-written.xml 2>&1", heapwalk(), fmt[k],
			 path, rules, hw_tmpdir());
		char *out = run(cmd, &st);
		ck_assert_msg(st == 0 && strstr(out, "/^Evil\\x1b\\]/") != NULL && strstr(out, "\\\\") == NULL, "%s: %s",
			      fmt[k], out);
		free(out);
	}
	snprintf(cmd, sizeof cmd, "%s/as-written.xml", hw_tmpdir());
	size_t n;
	char *xml = file_bytes(cmd, &n);
	ck_assert_msg(strstr(xml, "name=\"line 1: set instances /^Evil\\x1b\\]/ : count == 1\"") != NULL, "%s", xml);
	free(xml);
	snprintf(cmd, sizeof cmd, "%s -q info -e 'instances /^No\\dSuch/' %s 2>&1", heapwalk(), path);
	char *out = run(cmd, &st);
	ck_assert_msg(strstr(out, "no class matches /^No\\dSuch/") != NULL, "%s", out);
	free(out);
	free(path);
}
END_TEST

/* A String's own spaces at its end are its text: the text table keeps
 * them (it drops only the padding of empty last cells), so that "pad"
 * and "pad  " do not look alike; JSON has them too. */
START_TEST(text_keeps_trailing_spaces)
{
	static const char *const texts[] = { "pad", "pad  " };
	struct hw w;
	char cmd[1400];
	int st;

	hw_begin(&w, "JAVA PROFILE 1.0.2", 8);
	hw_jdk_names(&w);
	hw_heap_begin(&w);
	hw_jdk_classes(&w);
	for (int i = 0; i < 2; i++) {
		hw_root(&w, HW_ROOT_UNKNOWN, O_S + 4 * (uint64_t)i, 0, 0);
		hw_primarray(&w, O_A + 4 * (uint64_t)i, T_BYTE, (uint32_t)strlen(texts[i]), texts[i]);
		hw_jdk_string(&w, O_S + 4 * (uint64_t)i, O_A + 4 * (uint64_t)i);
	}
	hw_heap_end(&w);
	hw_dump_end(&w);
	char *dump = hw_write(&w, "spaces.hprof", SIZE_MAX);
	hw_free(&w);
	snprintf(cmd, sizeof cmd, "%s -q %s -e 'instances java.lang.String | objects' 2>&1", heapwalk(), dump);
	char *out = run(cmd, &st);
	/* the value is the last column: each line ends with its text */
	ck_assert_msg(st == 0 && strstr(out, " pad\n") != NULL && strstr(out, " pad  \n") != NULL, "%s", out);
	free(out);
	snprintf(cmd, sizeof cmd, "%s -q -f json %s -e 'instances java.lang.String | objects' 2>&1", heapwalk(), dump);
	out = run(cmd, &st);
	ck_assert_msg(st == 0 && strstr(out, "\"pad  \"") != NULL, "%s", out);
	free(out);
	free(dump);
}
END_TEST

Suite *output_suite(void)
{
	Suite *s = suite_create("output");
	TCase *tc = tcase_create("unit");

	tcase_set_timeout(tc, HANG_TIMEOUT);
	tcase_add_test(tc, output_to_a_descriptor);
	tcase_add_test(tc, output_never_an_input);
	tcase_add_test(tc, output_never_a_companion);
	tcase_add_test(tc, csv_formulas_neutralised);
	tcase_add_test(tc, misspelt_command);
	tcase_add_test(tc, names_as_shown_and_as_written);
	tcase_add_test(tc, text_keeps_trailing_spaces);
	suite_add_tcase(s, tc);
	return s;
}
