/* test_output.c — where the command line's output goes and what it
 * holds for other programs: -o naming a descriptor writes to it as it is
 * open (appending in >> mode), -o never names an input of the run (a
 * dump, a rules file; through links too). Dumps are made here by
 * tests/hprofw.c. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hprofw.h"
#include "suites.h"

#define FORMULA_CLASS "=HYPERLINK(\"http://x\")"
#define FORMULA_STRING "@SUM(1)"

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
		hw_root(&w, RK_UNKNOWN, O_X + 2 * (uint64_t)i, 0, 0);
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

Suite *output_suite(void)
{
	Suite *s = suite_create("output");
	TCase *tc = tcase_create("unit");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, output_to_a_descriptor);
	tcase_add_test(tc, output_never_an_input);
	suite_add_tcase(s, tc);
	return s;
}
