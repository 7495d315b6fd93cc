/* test_tui.c — the browser in a real terminal: tmux runs heapwalk at a
 * fixed size on a dump of the test workload, keys are sent as a user
 * would type them, and the captured screen text is checked at each
 * step. The workload plants a leak: a static listener list
 * (Workload$LeakRegistry.LISTENERS) whose listeners keep 200
 * Workload$Session objects alive. Also: the engine's cancel, display
 * widths, monochrome output, escaping of what the dump says. */
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "graph/analysis.h"
#include "engine/open.h"
#include "graph/ownership.h"
#include "graph/reader.h"
#include "graph/rules.h"
#include "query/tname.h"
#include "hprofw.h"
#include "suites.h"
#include "term.h"
#include "util.h"

#define DUMPS TEST_BUILDDIR "/dumps"

/* The walk to the planted leak, as in the README. */
static void leak_walk(int cols, int rows)
{
	struct term t;
	char args[512];

	ensure_dump("coops", "");
	snprintf(args, sizeof args, "%s/coops.hprof", DUMPS);
	term_start(&t, cols, rows, "", args);
	char *s = wait_for(&t, "Step 1: All objects");
	has(s, " Classes ");
	has(s, " Biggest ");
	has(s, "instances");
	has(s, "Workload$ChainNode"); /* the biggest shallow size: first */
	/* the bottom line is the key hint, the breadcrumb above it */
	ck_assert_int_eq(count_lines(s), rows);
	has(s, "[1 All objects]");
	free(s);

	/* filter as you type, then use the class */
	keys(&t, "f");
	type(&t, "Workload.Session$");
	keys(&t, "Enter");
	s = wait_without(&t, "q quit", "filter (regex)"); /* the prompt is done */
	has(s, "Workload$Session ");
	lacks(s, "Workload$ChainNode");
	char *row = line_of(s, "Workload$Session ");
	has(row, " 200 "); /* 200 sessions, as the workload made */
	free(row);
	free(s);
	keys(&t, "Enter");
	s = wait_for(&t, "Step 2: Instances of Workload$Session");
	has(s, "200 objects");
	has(s, "1 All objects > [2 Instances of Workload$Session]");
	/* one class's instances: the step opens on their fields, as JProfiler's */
	has(s, "object / field = value");
	has(s, "Workload$Session 0x");
	free(s);

	/* the expression that makes this step from the command line, in a
	 * box, whole; c copies it to the clipboard by OSC 52, which tmux
	 * keeps as a paste buffer when set-clipboard is on */
	tmuxf(&t, "set-option -g set-clipboard on");
	keys(&t, "x");
	s = wait_for(&t, "-e 'instances Workload$Session'");
	has(s, "The command that makes this step");
	char cmd[512], want[1024];
	snprintf(want, sizeof want, "heapwalk -e 'instances Workload$Session' '%s/coops.hprof'", DUMPS);
	/* the dump's path, wrapped but whole (where it breaks depends on
	 * how long the build directory's path is) */
	char *inside = box_text(s), *w = squeeze(want);
	ck_assert_msg(strstr(inside, w) != NULL, "the box holds '%s', not '%s'", inside, w);
	free(inside);
	free(w);
	free(s);
	keys(&t, "c");
	free(wait_for(&t, "copied to the clipboard"));
	snprintf(cmd, sizeof cmd, "%s -L %s show-buffer", tmux(), t.sock);
	char *clip = run_out(cmd);
	ck_assert_str_eq(clip, want);
	free(clip);
	/* w appends it to a file, twice: two lines */
	char kept[512];
	snprintf(kept, sizeof kept, "%s/steps-%d.txt", hw_tmpdir(), cols);
	unlink(kept);
	for (int i = 0; i < 2; i++) {
		keys(&t, "x");
		free(wait_for(&t, "The command that makes this step"));
		keys(&t, "w");
		free(wait_for(&t, "append the command to the file:"));
		type(&t, kept);
		keys(&t, "Enter");
		/* the message names the file; a long path wraps it (how long
		 * depends on the build directory's path and the clock) */
		s = wait_for(&t, "appended to");
		char *flat = squeeze(s), *said = xasprintf("appendedto%s", kept);
		char *o = flat;
		for (const char *p = flat; *p; p++)
			if (*p != '\n')
				*o++ = *p;
		*o = '\0';
		ck_assert_msg(strstr(flat, said) != NULL, "the message does not name %s:\n%s", kept, shown(s));
		free(said);
		free(flat);
		free(s);
	}
	FILE *kf = fopen(kept, "r");
	ck_assert(kf != NULL);
	char line[1024];
	for (int i = 0; i < 2; i++) {
		ck_assert(fgets(line, sizeof line, kf) != NULL);
		line[strcspn(line, "\n")] = '\0';
		ck_assert_str_eq(line, want);
	}
	ck_assert(fgets(line, sizeof line, kf) == NULL);
	fclose(kf);

	/* incoming references of the sessions: their listeners */
	keys(&t, "Tab");
	s = wait_for(&t, "object / referrer");
	has(s, "Workload$Session 0x");
	free(s);
	keys(&t, "+");
	s = wait_for(&t, ".session");
	has(s, "Workload$SessionListener");
	free(s);

	/* paths to GC roots: through the static list */
	keys(&t, "r");
	s = wait_for(&t, "path 1:");
	has(s, "paths to GC roots");
	has(s, "Workload$SessionListener");
	has(s, "java.util.ArrayList");
	has(s, "Workload$LeakRegistry");
	if (cols >= 200) { /* wide enough for every label in full */
		has(s, "class Workload$LeakRegistry 0x");
		has(s, ".static LISTENERS");
		has(s, ".elementData");
	}
	/* the root's kind on a line of its own: whole at 80 columns too */
	has(s, "GC root: global handle: JNI global");
	free(s);

	/* back to the first step (its filter kept), forward again (the paths) */
	keys(&t, "Left");
	s = wait_for(&t, "Step 1: All objects");
	has(s, "Workload$Session ");
	lacks(s, "Workload$ChainNode");
	free(s);
	keys(&t, "Right");
	s = wait_for(&t, "Step 2: Instances");
	has(s, "path 1:");
	free(s);

	/* biggest objects of the set: the dominator tree, with size bars */
	keys(&t, "BTab BTab");
	s = wait_for(&t, "dominator tree");
	has(s, "Workload$Session 0x");
	/* 200 sessions that retain the same, each a share of the whole
	 * heap (4.38 MB) too small to show */
	row = line_of(s, "Workload$Session 0x");
	has(row, "   0.0%");
	has(row, "1.09 kB"); /* 24 B + the 1 kB payload (1040 B) + its user String, 48 B */
	free(row);
	free(s);

	/* the retained size of the set, on request */
	keys(&t, "e");
	s = wait_for(&t, "retained ");
	lacks(s, "e: compute");
	free(s);

	/* a resize redraws at the new size */
	tmuxf(&t, "resize-window -t hw -x %d -y %d", cols + 20, rows + 6);
	for (double end = now_seconds() + hang_seconds(60); now_seconds() < end;) {
		s = screen(&t, 0);
		int ok = count_lines(s) == rows + 6 && strstr(s, "q quit") != NULL &&
			 strstr(s, "Step 2") != NULL;
		free(s);
		if (ok)
			break;
		usleep(100000);
	}
	s = screen(&t, 0);
	ck_assert_int_eq(count_lines(s), rows + 6);
	char *last = line_of(s, "q quit");
	ck_assert_msg(*last != '\0', "no key hint after the resize:\n%s", shown(s));
	free(last);
	has(s, "Step 2: Instances of Workload$Session");
	free(s);

	/* a menu open through a resize is drawn anew at the new size, over
	 * the screen drawn anew (it stayed at the old width, cut, over what
	 * was left of the old screen) */
	keys(&t, "u");
	free(wait_for(&t, "retained  the objects the set retains"));
	tmuxf(&t, "resize-window -t hw -x %d -y %d", cols, rows);
	int menu_w = cols - 8 < 100 ? cols - 8 : 100, at = -1;
	for (double end = now_seconds() + hang_seconds(60); now_seconds() < end && at != 4 + menu_w - 1;) {
		s = screen(&t, 0);
		char *mline = line_of(s, "retained  the objects");
		int pos = 4 + menu_w - 1; /* the box's right side, 'x' as tmux shows ACS */
		at = count_lines(s) == rows && (int)strlen(mline) > pos && mline[pos] == 'x' ? pos : -1;
		free(mline);
		free(s);
		if (at != 4 + menu_w - 1)
			usleep(100000);
	}
	s = screen(&t, 0);
	ck_assert_msg(at == 4 + menu_w - 1, "the menu's right side not at %d:\n%s", 4 + menu_w - 1, shown(s));
	ck_assert_msg(strncmp(s, " heapwalk ", 10) == 0, "the top line:\n%s", shown(s));
	free(s);
	keys(&t, "Escape");
	free(wait_without(&t, "q quit", "retained  the objects the set retains")); /* (Esc U: Alt-U) */
	/* U is the Merged views' alone: elsewhere it says so, no step made
	 * (in Classes it used the row as Enter does) */
	keys(&t, "U");
	s = wait_for(&t, "not in the Biggest view: U is the Merged views' (Enter uses the row)");
	has(s, "Step 2: Instances of Workload$Session");
	free(s);

	/* help comes from the key table (at 80 columns its long lines wrap:
	 * the Steps section is on its second page) */
	keys(&t, "?");
	s = wait_for(&t, "heapwalk keys");
	if (strstr(s, "Use the marked rows") == NULL) {
		free(s);
		keys(&t, "PgDn");
		s = wait_for(&t, "Use the marked rows");
	}
	free(s);
	keys(&t, "q");
	s = wait_for(&t, "Step 2");
	free(s);
	keys(&t, "q");
	wait_exit(&t);
	term_stop(&t);
}

START_TEST(test_leak_80x24)
{
	leak_walk(80, 24);
}
END_TEST

START_TEST(test_leak_200x50)
{
	leak_walk(200, 50);
}
END_TEST

/* Rows: g/Home and G/End; marks and Enter: two classes make one step
 * of both; going to the first step with 0; the step list. */
START_TEST(test_marks_and_steps)
{
	struct term t;
	char args[512];

	ensure_dump("coops", "");
	snprintf(args, sizeof args, "%s/coops.hprof", DUMPS);
	term_start(&t, 160, 30, "", args);
	free(wait_for(&t, "Step 1: All objects"));
	/* rows: G the last, g the first (the workload's 100,000 ChainNodes
	 * lead by shallow size), as in vi and less (End and Home alike:
	 * tmux sends them as its own terminal's, not as TERM here says) */
	free(wait_for(&t, "Workload$ChainNode"));
	keys(&t, "G");
	free(wait_without(&t, "q quit", "Workload$ChainNode"));
	keys(&t, "g");
	free(wait_for(&t, "Workload$ChainNode"));
	keys(&t, "f");
	type(&t, "^Workload.(Mixed|Empty)$");
	keys(&t, "Enter");
	char *s = wait_without(&t, "q quit", "filter (regex)");
	has(s, "Workload$Empty");
	has(s, "Workload$Mixed");
	lacks(s, "Workload$ChainNode");
	free(s);
	keys(&t, "Space Space Enter");
	s = wait_for(&t, "Step 2: Instances of 2 classes");
	has(s, "2000 objects"); /* 1000 of each, as the workload made */
	free(s);
	keys(&t, "x");
	free(wait_for(&t, "-e 'instances /^(?:\\QWorkload$Empty\\E|\\QWorkload$Mixed\\E)\\z/'"));
	/* referrers of them, by key: the ArrayList's array */
	keys(&t, "I");
	s = wait_for(&t, "Step 3: Referrers of 2000 objects");
	free(s);
	/* g moves to the first row, and leaves the step as it is */
	keys(&t, "g x");
	free(wait_for(&t, "-e 'instances /^(?:\\QWorkload$Empty\\E|\\QWorkload$Mixed\\E)\\z/ | referrers'"));
	keys(&t, "0");
	free(wait_for(&t, "Step 1: All objects"));
	keys(&t, "3");
	free(wait_for(&t, "Step 3: Referrers"));
	keys(&t, "b");
	s = wait_for(&t, "Steps (Enter: go)");
	has(s, "2 Instances of 2 classes");
	free(s);
	keys(&t, "Up Enter");
	free(wait_for(&t, "Step 2: Instances of 2 classes"));
	/* the use menu offers what applies: class objects, elements and
	 * loaded, but no age (an HPROF dump tells no GC generations) */
	keys(&t, "u");
	s = wait_for(&t, "classes   the class objects of the set's classes");
	has(s, "elements  the elements");
	has(s, "loaded    the instances");
	lacks(s, "age       ");
	free(s);
	keys(&t, "Escape");
	keys(&t, "q");
	wait_exit(&t);
	term_stop(&t);
}
END_TEST

static void batch_set(const char *dump, const char *expr, unsigned long long *count,
		      unsigned long long *bytes);

/* The ':' prompt: a pipeline typed there makes the same steps as -e in
 * batch (the set's count is batch info's, x shows the expression), Tab
 * completes step words and class names, a syntax error is shown under
 * its column with the prompt still open, and what was run is recalled
 * with Up in the next run, from a history file of mode 0600. */
START_TEST(test_command_prompt)
{
	struct term t;
	char args[512], env[600], hist[600];
	unsigned long long count, bytes;
	struct stat st;
	char *in;

	ensure_dump("coops", "");
	snprintf(args, sizeof args, "%s/coops.hprof", DUMPS);
	snprintf(env, sizeof env, "XDG_STATE_HOME=%s/state", hw_tmpdir());
	snprintf(hist, sizeof hist, "%s/state/heapwalk/history", hw_tmpdir());
	unlink(hist);
	term_start(&t, 160, 30, env, args);
	free(wait_for(&t, "Step 1: All objects"));

	/* Tab: a step word, then a class name whose start is unique */
	keys(&t, ":");
	type(&t, "insta");
	keys(&t, "Tab");
	char *s = wait_for(&t, "instanceof  instances");
	free(s);
	type(&t, "s Workload$Sess"); /* "instance" so far */
	keys(&t, "Tab");
	/* two classes start so: both are listed, the word goes as far as they agree */
	s = wait_for(&t, "2: Workload$Session  Workload$SessionListener");
	in = line_of(s, ":instances");
	ck_assert_str_eq(in, ":instances Workload$Session");
	free(in);
	free(s);

	/* a syntax error: under its column, the prompt open */
	type(&t, " | retaned");
	keys(&t, "Enter");
	s = wait_for(&t, "unknown step 'retaned'");
	char *caret = line_of(s, "unknown step");
	in = line_of(s, ":instances Workload$Session | retaned");
	ck_assert_msg(*in != '\0', "the prompt closed: %s", shown(s));
	const char *r = strstr(in, "retaned");
	ck_assert_msg(strchr(caret, '^') - caret == r - in, "the caret is not under 'retaned':\n%s\n%s", in, caret);
	has(caret, "column 30");
	free(caret);
	free(in);
	free(s);

	/* mended: three steps of the history and the classes view */
	for (int i = 0; i < 7; i++)
		keys(&t, "BSpace");
	type(&t, "referrers | referrers | classes");
	keys(&t, "Enter");
	s = wait_for(&t, "Step 4: referrers");
	has(s, "1 All objects > 2 instances Workload$Session > 3 referrers > [4 referrers]");
	has(s, " Classes ");
	batch_set(args, "instances Workload$Session | referrers | referrers", &count, &bytes);
	char want[128];
	/* how many hold a session's holders is the JVM's: one reads "1 object" */
	snprintf(want, sizeof want, "|  %llu object%s", count, count == 1 ? "," : "s");
	has(s, want);
	free(s);
	keys(&t, "x");
	free(wait_for(&t, "-e 'instances Workload$Session | referrers | referrers'"));
	keys(&t, "Escape");
	/* an error of the dump (no such class) is said, the prompt stays */
	keys(&t, ":");
	type(&t, "instances NoSuchClass");
	keys(&t, "Enter");
	s = wait_for(&t, "no class named 'NoSuchClass'");
	has(s, ":instances NoSuchClass");
	free(s);
	keys(&t, "Escape");
	free(wait_without(&t, "q quit", ":instances NoSuchClass"));
	keys(&t, "q");
	wait_exit(&t);
	term_stop(&t);

	ck_assert_int_eq(stat(hist, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0600);
	/* the next run: Up recalls the line that ran, not the ones that failed */
	term_start(&t, 160, 30, env, args);
	free(wait_for(&t, "Step 1: All objects"));
	keys(&t, ":");
	keys(&t, "Up");
	free(wait_for(&t, ":instances Workload$Session | referrers | referrers | classes"));
	keys(&t, "Enter");
	s = wait_for(&t, "Step 4: referrers");
	has(s, want);
	free(s);
	keys(&t, "q");
	wait_exit(&t);
	term_stop(&t);
}
END_TEST

/* The class-loader filter: by loader (L), K on Retain.java's ByteLoader
 * narrows the step to the objects of the classes it defines (Dup, 3
 * instances by construction; the step "loader ID", the same count in
 * batch and by a scan of the classes here), every view shows only them,
 * the next step keeps it, K again drops it. */
START_TEST(test_loader_filter)
{
	struct term t;
	char path[512], cmd[1024], want[256];
	struct heap h;
	struct open_opts o = { .no_cache = 1, .quiet = 1 };
	struct sbuf err;
	int st;

	workload_dump("Retain", "retain", "-Xmx64m", path, sizeof path);
	sbuf_init(&err);
	ck_assert_msg(heap_open(&h, path, &o, NULL, &err) == 0, "%s", err.buf);
	heap_need(&h, HP_NODES, NULL);
	uint64_t loader = 0, count = 0;
	for (node_t v = 1; v < h.n && loader == 0; v++)
		if (h.node_kind[v] == NK_INSTANCE && strcmp(class_name(&h, h.node_class[v]), "Retain$ByteLoader") == 0)
			loader = heap_node_id(&h, v);
	ck_assert(loader != 0);
	for (node_t v = 1; v < h.n; v++)
		count += h.node_class[v] != HW_NONE && h.cls[h.node_class[v]].loader_id == loader;
	ck_assert_uint_eq(count, 3); /* Retain.java: three Dups of the ByteLoader */
	heap_free(&h);
	sbuf_free(&err);
	snprintf(cmd, sizeof cmd, "%s -q -f json %s info -e 'loader 0x%llx'", getenv("HEAPWALK"), path,
		 (unsigned long long)loader);
	char *json = run(cmd, &st);
	ck_assert_msg(st == 0 && strstr(json, "\"set_objects\":3,") != NULL, "%s: %s", cmd, json);
	free(json);

	term_start(&t, 140, 30, "", path);
	free(wait_for(&t, "Step 1: All objects"));
	keys(&t, "L");
	free(wait_for(&t, "by loader"));
	keys(&t, "/");
	type(&t, "ByteLoader");
	keys(&t, "Enter K");
	snprintf(want, sizeof want, "Step 1: All objects (Retain$ByteLoader 0x%llx)  |  3 objects",
		 (unsigned long long)loader);
	free(wait_for(&t, want));
	keys(&t, "Tab"); /* Biggest: only the loader's objects */
	char *s = wait_for(&t, "Retain$Dup");
	lacks(s, "Retain$Local");
	lacks(s, "java.lang.String");
	free(s);
	keys(&t, "R");
	free(wait_for(&t, "Step 2: "));
	keys(&t, "x");
	snprintf(want, sizeof want, "-e 'loader 0x%llx | retained'", (unsigned long long)loader);
	free(wait_for(&t, want));
	keys(&t, "Escape Left BTab K");
	s = wait_for(&t, "every class loader again");
	has(s, "Step 1: All objects  |");
	lacks(s, "Step 1: All objects  |  3 objects");
	free(s);
	keys(&t, "q");
	wait_exit(&t);
	term_stop(&t);
}
END_TEST

/* The class filter finds a name by a regex of it as the dump has it
 * ("\x07" the bell, as --filter takes it) or as the screen shows it
 * ("x1b]0" the escape written out) */
START_TEST(test_filter_raw_or_shown)
{
	static const char *const re[] = { "pwned\\x07,", "Evil\\\\x1b]0" };
	char *path = hw_write_evil();

	for (int i = 0; i < 2; i++) {
		struct term t;
		term_start(&t, 120, 30, "", path);
		free(wait_for(&t, "Step 1: All objects"));
		keys(&t, "f");
		type(&t, re[i]);
		keys(&t, "Enter");
		char *s = wait_without(&t, "q quit", "filter (regex)");
		has(s, "Evil\\x1b]0;pwned\\x07,\"x\"");
		lacks(s, "java.lang.String");
		free(s);
		keys(&t, "q");
		wait_exit(&t);
		term_stop(&t);
		/* and --filter, the same class only */
		char cmd[1024];
		int st;
		snprintf(cmd, sizeof cmd, "%s -q classes -f csv %s --filter '%s'", heapwalk(), path, re[i]);
		s = run(cmd, &st);
		ck_assert_msg(st == 0 && strstr(s, "Evil\\x1b]0;pwned\\x07") != NULL && strchr(strchr(s, '\n') + 1, '\n') != NULL &&
			      strchr(strchr(strchr(s, '\n') + 1, '\n') + 1, '\n') == NULL, "%s: %s", re[i], s);
		free(s);
	}
	free(path);
}
END_TEST

/* A path too deep to read (a list hundreds long): paths to GC roots (r)
 * shows its ends, 200 steps each, and a row for those between; at once,
 * where a path 1.5 M deep took 13 s to draw, Esc unheard */
START_TEST(test_deep_path_cut)
{
	enum { N = 460, FIRST = HW_CHAIN_FIRST };
	struct term t;
	char line[64];

	char *path = hw_write_chain(hw_tmpdir(), "deep-path.hprof", N);
	term_start(&t, 120, 40, "", path);
	free(wait_for(&t, "Step 1: All objects"));
	keys(&t, ":");
	snprintf(line, sizeof line, "object 0x%x", FIRST + 16 * (N - 1));
	type(&t, line);
	keys(&t, "Enter");
	free(wait_for(&t, "Step 2: object"));
	keys(&t, "Tab"); /* Incoming */
	free(wait_for(&t, "object / referrer .field"));
	keys(&t, "r");
	free(wait_for(&t, "path 1: 459 steps from a GC root"));
	keys(&t, "/");
	type(&t, "left out");
	keys(&t, "Enter");
	free(wait_for(&t, "(59 steps left out: heapwalk paths prints them all)"));
	keys(&t, "G");
	free(wait_for(&t, "Link 0x10000  .next")); /* the root's end is there */
	keys(&t, "q");
	wait_exit(&t);
	term_stop(&t);
	free(path);
}
END_TEST

/* Control characters from the dump reach the screen escaped. */
START_TEST(test_escaped_on_screen)
{
	struct term t;
	char *path = hw_write_evil();

	term_start(&t, 120, 30, "", path);
	char *s = wait_for(&t, "Step 1: All objects");
	/* raw, "\x1b]0;pwned\x07" would set the title and vanish */
	has(s, "Evil\\x1b]0;pwned\\x07,\"x\"");
	free(s);
	keys(&t, "f");
	type(&t, "Evil");
	keys(&t, "Enter");
	free(wait_without(&t, "q quit", "filter (regex)"));
	keys(&t, "Enter");
	free(wait_for(&t, "Step 2: Instances of Evil"));
	/* one class's objects: the step opens on their fields */
	free(wait_for(&t, "object / field = value"));
	/* its command line has nothing the screen shows escaped: the
	 * control characters as the regex's \x{..}, so that it runs as it
	 * reads, and selects the class's one object */
	static const char expr[] = "instances /^\\QEvil\\E\\x{1b}\\Q]0;pwned\\E\\x{7}\\Q,\"x\"\\E\\z/";
	keys(&t, "x");
	s = wait_for(&t, "The command that makes this step");
	char *inside = box_text(s), *w = squeeze(expr);
	ck_assert_msg(strstr(inside, w) != NULL && strstr(inside, "\\x1b") == NULL, "the box holds '%s', not '%s'",
		      inside, w);
	free(inside);
	free(w);
	free(s);
	keys(&t, "Escape");
	unsigned long long bn, bb;
	batch_set(path, expr, &bn, &bb);
	ck_assert_uint_eq(bn, 1);
	keys(&t, "+");
	s = wait_for(&t, "who = java.lang.String");
	lacks(s, "who (");  /* a reference: its type is its class */
	has(s, "\"hi\\x1b[2J\\n\\\"q\\\",\\x00end\"");
	free(s);
	keys(&t, "q");
	wait_exit(&t);
	term_stop(&t);
	free(path);
}
END_TEST

/* Merged in of objects only soft and weak references hold (and one a GC
 * root holds too), at 80x24: the SoftReference and WeakReference groups
 * are shown, marked (weak), with as many holders as the heap has; w
 * leaves them out (the roots' rows alone: the GC roots', and the weakly
 * reachable's, no GC root), w again brings them back. */
START_TEST(test_merged_in_weak_key)
{
	struct term t;
	char *path = hw_write_weakheld(), want[32];
	size_t soft = 0;

	for (size_t i = 0; i < 5; i++) /* the soft holders of a t.Buf: the heap's lists */
		for (size_t k = 0; k < 5; k++)
			soft += wk_soft_to[i] == wk_bufs[k];
	term_start(&t, 80, 24, "", path);
	free(wait_for(&t, "Step 1: All objects"));
	keys(&t, "f");
	type(&t, "^t.Buf$");
	keys(&t, "Enter Enter");
	free(wait_for(&t, "Step 2: Instances of t.Buf"));
	keys(&t, "Tab Tab Tab"); /* Outgoing -> Incoming -> Merged out -> Merged in */
	char *s = wait_for(&t, "merged incoming: class");
	char *row = line_of(s, "java.lang.ref.SoftReference  (weak)");
	snprintf(want, sizeof want, " %zu ", soft);
	ck_assert_msg(strstr(row, want) != NULL, "not %zu holders: %s", soft, row);
	free(row);
	has(s, "java.lang.ref.WeakReference  (weak)");
	has(s, "GC roots");
	free(s);
	keys(&t, "w");
	s = wait_for(&t, "merged incoming: class (strong only)");
	lacks(s, "(weak)");
	has(s, "GC roots");
	/* the weakly reachable four: no GC root's, a row of their own */
	row = line_of(s, "no GC root: weakly reachable");
	ck_assert_msg(strstr(row, " 4") != NULL, "not the 4 weakly reachable: %s", row);
	free(row);
	free(s);
	keys(&t, "w");
	s = wait_without(&t, "java.lang.ref.SoftReference  (weak)", "(strong only)");
	has(s, "java.lang.ref.WeakReference  (weak)");
	free(s);
	keys(&t, "q");
	wait_exit(&t);
	term_stop(&t);
	free(path);
}
END_TEST

START_TEST(test_sigterm)
{
	struct term t;
	char *path = hw_write_evil(), cmd[1024];

	term_start(&t, 80, 24, "", path);
	free(wait_for(&t, "Step 1: All objects"));
	keys(&t, "f");
	free(wait_for(&t, "filter (regex)"));
	snprintf(cmd, sizeof cmd, "pkill -TERM -f '^%s %s$'", getenv("HEAPWALK"), path);
	ck_assert_msg(system(cmd) == 0, "%s found no process", cmd);
	ck_assert_int_eq(exit_status(&t), 128 + 15);
	term_stop(&t);
	free(path);
}
END_TEST

/* tmux's modes of the pane are want ("1 0": alternate screen, cursor
 * hidden; "0 1": the shell's screen, cursor shown). */
static void modes_are(struct term *t, const char *want)
{
	char *m = term_modes(t);

	ck_assert_msg(strcmp(m, want) == 0, "terminal modes '%s' (alternate_on cursor_flag), not '%s'", m, want);
	free(m);
}

/* Poll until no heapwalk with the command line "$HEAPWALK args" runs;
 * if one still does, the failure says what state it is in (ps's STAT and
 * WCHAN: stopped, a leak check's tracer, a read) and what the pane shows. */
static void wait_gone(struct term *t, const char *args)
{
	char cmd[1024];

	snprintf(cmd, sizeof cmd, "pgrep -f '^%s %s$' >/dev/null", getenv("HEAPWALK"), args);
	for (double end = now_seconds() + hang_seconds(60); now_seconds() < end;) {
		if (system(cmd) != 0)
			return;
		usleep(100000);
	}
	snprintf(cmd, sizeof cmd, "ps -o pid,ppid,pgid,tpgid,stat,wchan:24,args -p \"$(pgrep -d, -f '^%s %s$')\" 2>&1",
		 getenv("HEAPWALK"), args);
	char *ps = run_out(cmd), *s = screen(t, 0);
	ck_abort_msg("heapwalk %s is still running:\n%s\nthe pane shows:\n%s", args, ps, shown(s));
}

/* The class on the first row of the classes view (below its header). */
static char *first_class(const char *s, const char *header)
{
	char *row = line_after(s, header), *p = row;

	while (*p == ' ')
		p++;
	char *name = strndup(p, strcspn(p, " "));
	free(row);
	return name;
}

/* A sort keeps the cursor on its class, but shows the rows sorted above
 * it when they fit on the pane with it: the cursor on the first row
 * (Workload$ChainNode, the biggest by shallow size), s n puts it 4th by
 * name, under three classes that were out of sight; the pane right
 * after the sort begins with the row g (the first row) shows. */
START_TEST(test_resort_shows_top)
{
	struct term t;
	char args[512];

	ensure_dump("coops", "");
	snprintf(args, sizeof args, "%s/coops.hprof", DUMPS);
	term_start(&t, 120, 30, "", args);
	char *s = wait_for(&t, "class  (sort: shallow");
	char *first = first_class(s, "class  (sort");
	ck_assert_str_eq(first, "Workload$ChainNode");
	free(first);
	free(s);
	keys(&t, "s n");
	s = wait_for(&t, "class  (sort: name");
	first = first_class(s, "class  (sort");
	has(s, "Workload$ChainNode");
	free(s);
	/* g: the cursor's highlight moves (escapes), or the rows do */
	char *before = screen(&t, 1);
	keys(&t, "g");
	for (double end = now_seconds() + hang_seconds(30); now_seconds() < end; usleep(100000)) {
		s = screen(&t, 1);
		int moved = strcmp(s, before) != 0;
		free(s);
		if (moved)
			break;
	}
	free(before);
	s = screen(&t, 0);
	char *top = first_class(s, "class  (sort");
	ck_assert_msg(strcmp(first, top) == 0 && strcmp(top, "Workload$ChainNode") != 0,
		      "after the sort the pane began with %s, not with the first row %s:\n%s", first, top,
		      shown(s));
	free(s);
	free(top);
	free(first);
	keys(&t, "q");
	wait_exit(&t);
	term_stop(&t);
}
END_TEST

/* The Biggest view's top level: each object's share of the whole heap,
 * as biggest's on the command line (its JSON's retained over its
 * heap_bytes, computed here): the first of 100,000 chained nodes holds
 * the rest, about half the heap, where the view said 100.0% (of what
 * the step's top objects retain together: it alone). An object's
 * children are shares of it. */
START_TEST(test_biggest_share_of_heap)
{
	struct term t;
	char args[512], cmd[1024], want[32];
	int st;

	ensure_dump("coops", "");
	snprintf(args, sizeof args, "%s/coops.hprof", DUMPS);
	snprintf(cmd, sizeof cmd, "%s -q -f json biggest -n 1 -e 'instances Workload$ChainNode' %s",
		 getenv("HEAPWALK"), args);
	char *json = run(cmd, &st);
	char *hb = strstr(json, "\"heap_bytes\":"), *rt = strstr(json, "\"retained\":");
	ck_assert_msg(st == 0 && hb != NULL && rt != NULL, "%s: %s", cmd, json);
	double share = 100.0 * (double)strtoull(rt + 11, NULL, 10) / (double)strtoull(hb + 13, NULL, 10);
	ck_assert_msg(share > 10 && share < 90, "%s: %s", cmd, json); /* a share that tells the two apart */
	snprintf(want, sizeof want, " %.1f%%  2.29 MB", share); /* 2,400,000 bytes */
	free(json);
	term_start(&t, 160, 30, "", args);
	free(wait_for(&t, "Step 1: All objects"));
	keys(&t, ":");
	type(&t, "instances Workload$ChainNode");
	keys(&t, "Enter");
	free(wait_for(&t, "Step 2: instances Workload$ChainNode"));
	keys(&t, "BTab"); /* the step opened on the objects' fields; Biggest before */
	char *s = wait_for(&t, "dominator tree");
	char *row = line_after(s, "dominator tree");
	ck_assert_msg(strstr(row, "Workload$ChainNode 0x") != NULL && strstr(row, want) != NULL,
		      "the first row does not show%s:\n%s", want, shown(s));
	free(row);
	free(s);
	/* its child: the next node, a share of its parent: all of it but 24 bytes */
	keys(&t, "+");
	s = wait_for(&t, ".next");
	row = line_of(s, ".next");
	has(row, " 99.9%"); /* 2,399,976 of 2,400,000: shares are cut, not rounded up */
	free(row);
	free(s);
	keys(&t, "q");
	wait_exit(&t);
	term_stop(&t);
}
END_TEST

/* Tabs that do not fit the width are said, not cut without a word (a
 * trial below 80 columns: Time and Inspections were just not there):
 * ">" after the last tab shown while more follow, "<" before the first
 * while some lie before it, and the view's own tab always among them. */
START_TEST(test_tabs_narrow)
{
	struct term t;
	char args[512];

	ensure_dump("coops", "");
	snprintf(args, sizeof args, "%s/coops.hprof", DUMPS);
	term_start(&t, 70, 24, "", args);
	char *s = wait_for(&t, "Step 1: All objects");
	char *tabs = line_of(s, "Classes ");
	size_t n = strlen(tabs);
	ck_assert_msg(n > 2 && strcmp(tabs + n - 2, " >") == 0 && strstr(tabs, "Insp") == NULL, "[%s]", tabs);
	free(tabs);
	free(s);
	keys(&t, "BTab"); /* the last view, Inspections */
	s = wait_for(&t, " < ");
	tabs = line_of(s, " < ");
	ck_assert_msg(strncmp(tabs, " < ", 3) == 0 && strstr(tabs, "Insp") != NULL && strstr(tabs, "Classes") == NULL &&
		      tabs[strlen(tabs) - 1] != '>', "[%s]", tabs);
	free(tabs);
	free(s);
	keys(&t, "Tab"); /* round to Classes: from the first again */
	s = wait_for(&t, "Classes ");
	tabs = line_of(s, "Classes ");
	ck_assert_msg(strstr(tabs, " < ") == NULL && strcmp(tabs + strlen(tabs) - 2, " >") == 0, "[%s]", tabs);
	free(tabs);
	free(s);
	keys(&t, "q");
	wait_exit(&t);
	term_stop(&t);
}
END_TEST

/* A filter that drops the cursor's row puts the cursor on the first
 * row: it stayed at its index, on whatever class came there, and
 * Enter then used a class the user never chose. */
START_TEST(test_filter_cursor)
{
	struct term t;
	char args[512], want[300];

	ensure_dump("coops", "");
	snprintf(args, sizeof args, "%s/coops.hprof", DUMPS);
	term_start(&t, 120, 30, "", args);
	free(wait_for(&t, "Step 1: All objects"));
	/* the sixth class: its name from its step's title */
	keys(&t, "Down Down Down Down Down Enter");
	char *s = wait_for(&t, "Step 2: Instances of ");
	char *title = line_of(s, "Step 2: Instances of ");
	char *name = strstr(title, "Instances of ") + 13;
	name[strcspn(name, " |")] = '\0';
	ck_assert_msg(strncmp(name, "java.util.", 10) != 0, "%s", name); /* the filter drops it */
	free(s);
	keys(&t, "Left");
	free(wait_for(&t, "Step 1: All objects"));
	keys(&t, "f");
	type(&t, "^java\\.util\\.");
	keys(&t, "Enter");
	s = wait_without(&t, "q quit", "filter (regex)");
	char *first = first_class(s, "class  (sort");
	char *seventh = line_of(s, "java.util.");
	for (int k = 0; k < 6 && *seventh; k++) { /* more than six rows: the old index is another's */
		char *next = line_after(s, seventh);
		free(seventh);
		seventh = next;
	}
	ck_assert_msg(strncmp(first, "java.util.", 10) == 0 && strstr(seventh, "java.util.") != NULL, "%s",
		      shown(s));
	free(seventh);
	free(s);
	keys(&t, "Enter");
	snprintf(want, sizeof want, "Step 2: Instances of %s ", first);
	free(wait_for(&t, want));
	free(title);
	free(first);
	keys(&t, "q");
	wait_exit(&t);
	term_stop(&t);
}
END_TEST

/* Tab's list of completions, longer than the line: as many as fit and
 * "… N more", N the rest of the count it starts with (it was cut where
 * the screen ended, nothing said). */
START_TEST(test_completions_cut)
{
	struct term t;
	char args[512];

	ensure_dump("coops", "");
	snprintf(args, sizeof args, "%s/coops.hprof", DUMPS);
	term_start(&t, 100, 24, "", args);
	free(wait_for(&t, "Step 1: All objects"));
	keys(&t, ":");
	type(&t, "instances java.util.");
	keys(&t, "Tab");
	char *s = wait_for(&t, " more");
	char *line = line_of(s, " more");
	unsigned all = 0, rest = 0, names = 0;
	char *dots = strstr(line, "\xe2\x80\xa6 ");
	ck_assert_msg(sscanf(line, "%u: ", &all) == 1 && dots != NULL && sscanf(dots + 4, "%u more", &rest) == 1,
		      "%s", line);
	for (char *p = strchr(line, ':'); p != NULL && p < dots; p = strstr(p + 1, "java.util."))
		names += strncmp(p, "java.util.", 10) == 0;
	ck_assert_msg(names > 1 && names + rest == all && all > 20, "%u shown, %u more, %u in all: %s", names, rest,
		      all, line);
	free(line);
	free(s);
	keys(&t, "Escape");
	keys(&t, "q");
	wait_exit(&t);
	term_stop(&t);
}
END_TEST

/* Job control, in an interactive shell: ^Z (a key, in raw mode) or kill
 * -TSTP stops the browser with the terminal as the shell had it (its own
 * screen, the cursor shown); fg brings the browser's screen back whole,
 * and its keypad mode: Down and Right move, and no letter of their escape
 * sequences reaches the key table (Down unkeyed is ESC [ B: B would load
 * a baseline). */
static void suspend_resume(int by_key)
{
	struct term t;
	char args[512];

	ensure_dump("coops", "");
	snprintf(args, sizeof args, "%s/coops.hprof", DUMPS);
	term_shell(&t, 100, 30);
	shell_heapwalk(&t, args);
	char *s = wait_for(&t, "Step 1: All objects");
	char *first = first_class(s, "class  (sort"), *second = first_class(strstr(s, first), first);
	ck_assert(*first && *second && strcmp(first, second) != 0);
	free(s);
	modes_are(&t, "1 0");
	if (by_key)
		keys(&t, "C-z");
	else
		signal_heapwalk("TSTP", args);
	s = wait_for(&t, "Stopped");
	lacks(s, "Step 1: All objects");
	free(s);
	modes_are(&t, "0 1");
	/* resized while stopped: SIGWINCH went to the shell, not to it */
	tmuxf(&t, "resize-window -t hw -x 90 -y 26");
	type(&t, "fg");
	keys(&t, "Enter");
	s = wait_for(&t, "Step 1: All objects");
	has(s, first); /* the rows are back, not only what changes next */
	const char *crumb = strstr(s, "[1 All objects]");
	ck_assert(crumb != NULL);
	int above = 0;
	for (const char *p = s; p < crumb; p++)
		above += *p == '\n';
	ck_assert_msg(above == 24, "the breadcrumb is on line %d of 26, not above the hint:\n%s", above + 1, shown(s));
	free(s);
	modes_are(&t, "1 0");
	keys(&t, "Down Enter");
	char want[256];
	snprintf(want, sizeof want, "Step 2: Instances of %s", second);
	s = wait_for(&t, want);
	lacks(s, "unbound key");
	lacks(s, "baseline:");
	free(s);
	keys(&t, "Left");
	free(wait_for(&t, "Step 1: All objects"));
	keys(&t, "Right");
	s = wait_for(&t, want);
	lacks(s, "Rules"); /* Right unkeyed is ESC [ C: C opens the rules */
	free(s);
	keys(&t, "q");
	wait_gone(&t, args);
	type(&t, "echo rc=$?");
	keys(&t, "Enter");
	free(wait_for(&t, "rc=0"));
	modes_are(&t, "0 1");
	term_stop(&t);
	free(first);
	free(second);
}

START_TEST(test_suspend_key)
{
	suspend_resume(1);
}
END_TEST

START_TEST(test_suspend_signal)
{
	suspend_resume(0);
}
END_TEST

/* A signal that ends the browser, sent from outside: the terminal is the
 * shell's again (alternate screen off, cursor shown) and the status is
 * 128 + the signal's number. SIGTERM comes with a prompt open (the
 * cursor shown then), the others over the rows. */
START_TEST(test_signals_restore)
{
	static const struct { const char *name; int num; } sigs[] = {
		{ "QUIT", 3 }, { "TERM", 15 }, { "HUP", 1 }, { "INT", 2 }, { "USR1", 10 }, { "ALRM", 14 },
	};
	char *path = hw_write_evil();

	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		struct term t;
		char want[32];

		term_shell(&t, 80, 24);
		shell_heapwalk(&t, path);
		free(wait_for(&t, "Step 1: All objects"));
		if (sigs[i].num == 15) {
			keys(&t, "f");
			free(wait_for(&t, "filter (regex)"));
			modes_are(&t, "1 1");
		} else {
			modes_are(&t, "1 0");
		}
		signal_heapwalk(sigs[i].name, path);
		wait_gone(&t, path);
		type(&t, "echo rc=$?");
		keys(&t, "Enter");
		snprintf(want, sizeof want, "rc=%d", 128 + sigs[i].num);
		char *s = wait_for(&t, want);
		lacks(s, "Step 1: All objects");
		lacks(s, "filter (regex)");
		free(s);
		modes_are(&t, "0 1");
		term_stop(&t);
	}
	free(path);
}
END_TEST

/* The terminal goes away (the tmux server is killed) while a prompt is
 * open: heapwalk leaves (128 + SIGHUP) instead of reading on forever. */
START_TEST(test_terminal_gone)
{
	struct term t;
	char *path = hw_write_evil();

	term_start(&t, 80, 24, "", path);
	free(wait_for(&t, "Step 1: All objects"));
	keys(&t, "f");
	free(wait_for(&t, "filter (regex)"));
	term_stop(&t);
	ck_assert_int_eq(exit_status(&t), 128 + 1);
	free(path);
}
END_TEST

/* Colours come from the palette; NO_COLOR leaves attributes only. */
static int has_color_sgr(const char *s)
{
	for (const char *p = s; (p = strstr(p, "\033[")) != NULL; p += 2) {
		const char *q = p + 2;
		while (*q && *q != 'm' && ((*q >= '0' && *q <= '9') || *q == ';')) {
			int v = atoi(q);
			/* 39 and 49 are the default colours: no colour */
			if (((v >= 30 && v <= 49) || (v >= 90 && v <= 107)) && v != 39 && v != 49)
				return 1;
			while (*q >= '0' && *q <= '9')
				q++;
			if (*q == ';')
				q++;
		}
	}
	return 0;
}

START_TEST(test_colors_and_no_color)
{
	struct term t;
	char *path = hw_write_evil();

	term_start(&t, 80, 24, "", path);
	free(wait_for(&t, "Step 1: All objects"));
	char *s = screen(&t, 1);
	ck_assert_msg(has_color_sgr(s), "no colours on a colour terminal:\n%s", shown(s));
	free(s);
	keys(&t, "q");
	wait_exit(&t);
	term_stop(&t);

	term_start(&t, 80, 24, "NO_COLOR=1", path);
	free(wait_for(&t, "Step 1: All objects"));
	s = screen(&t, 1);
	ck_assert_msg(!has_color_sgr(s), "colours despite NO_COLOR:\n%s", shown(s));
	ck_assert_msg(strstr(s, "\033[7m") != NULL || strstr(s, ";7m") != NULL,
		      "no reverse video for the cursor without colours:\n%s", shown(s));
	free(s);
	keys(&t, "q");
	wait_exit(&t);
	term_stop(&t);
	free(path);
}
END_TEST

/* Crop by display width: CJK takes two cells, combining marks none. */
START_TEST(test_display_width)
{
	int used;

	ck_assert_ptr_nonnull(setlocale(LC_CTYPE, "C.UTF-8"));
	ck_assert_int_eq(text_width("abc"), 3);
	ck_assert_int_eq(text_width("caf\xc3\xa9"), 4);           /* é: one cell */
	ck_assert_int_eq(text_width("\xe4\xb8\xad\xe6\x96\x87"), 4); /* 中文 */
	ck_assert_int_eq(text_width("e\xcc\x81"), 1);                /* e + combining acute */
	/* 中 does not fit in one cell, so nothing of it is taken */
	ck_assert_uint_eq(text_fit("\xe4\xb8\xad\xe6\x96\x87", 3, &used), 3);
	ck_assert_int_eq(used, 2);
	ck_assert_uint_eq(text_fit("\xe4\xb8\xad", 1, &used), 0);
	ck_assert_int_eq(used, 0);
	/* a stray byte counts one cell and is skipped whole */
	ck_assert_uint_eq(text_fit("a\xffz", 2, &used), 2);
	ck_assert_int_eq(used, 2);
	setlocale(LC_CTYPE, "C");
}
END_TEST

/* A type's name said shorter (query/tname.c) over the forms the .NET
 * readers really give (nettrace's "List`1[Func`1[...]]" and
 * "Entry[...][]", gcdump's "Dictionary<...>", the assembly-qualified
 * "[[T, asm],[U, asm]]", arrays "[,]", compiler names "+<>c"), Java's
 * array and nested names; the expected forms written by hand. */
static void fit_is(const char *name, int avail, const char *want)
{
	struct sbuf sb;

	sbuf_init(&sb);
	tname_fit(name, strlen(name), avail, &sb);
	ck_assert_msg(strcmp(sb.buf ? sb.buf : "", want) == 0, "%s in %d: \"%s\", not \"%s\"", name, avail,
		      sb.buf ? sb.buf : "", want);
	ck_assert_int_le(text_width(want), avail);
	sbuf_free(&sb);
}

START_TEST(test_type_name_forms)
{
	static const char *list = "System.Collections.Generic.List`1[System.Func`1[System.Diagnostics.Tracing.EventSource]]";
	static const char *dict = "System.Collections.Generic.Dictionary<System.Guid,"
				  "System.Diagnostics.Tracing.EventSource+OverrideEventProvider>";
	static const char *asmq = "System.Collections.Generic.Dictionary`2[[System.String, System.Private.CoreLib],"
				  "[Workload.CacheEntry, Workload]]";
	static const char *entry = "Entry[System.Int32,System.Diagnostics.Tracing.EventSource+EventMetadata][]";
	struct tname_forms f;

	ck_assert_ptr_nonnull(setlocale(LC_CTYPE, "C.UTF-8"));
	/* nested generic arguments, nettrace's form: every form, in order */
	tname_forms(list, strlen(list), &f);
	ck_assert_uint_eq(f.n, 11);
	ck_assert_str_eq(f.v[0], list);
	ck_assert_str_eq(f.v[1], "S.Collections.Generic.List`1[System.Func`1[System.Diagnostics.Tracing.EventSource]]");
	ck_assert_str_eq(f.v[4], "S.C.G.List`1[S.Func`1[System.Diagnostics.Tracing.EventSource]]");
	ck_assert_str_eq(f.v[f.initials], "S.C.G.List`1[S.Func`1[S.D.T.EventSource]]");
	ck_assert_str_eq(f.v[8], "S.C.G.List`1[Func`1[EventSource]]");
	ck_assert_str_eq(f.v[9], "List`1[Func`1[EventSource]]");
	ck_assert_str_eq(f.v[10], "List`1[\xe2\x80\xa6]");
	tname_forms_free(&f);
	fit_is(list, 200, list);
	fit_is(list, 47, "S.C.G.List`1[S.Func`1[S.D.Tracing.EventSource]]");
	fit_is(list, 46, "S.C.G.List`1[S.Func`1[S.D.T.EventSource]]");
	fit_is(list, 40, "S.C.G.List`1[Func`1[EventSource]]");
	fit_is(list, 30, "List`1[Func`1[EventSource]]");
	fit_is(list, 20, "List`1[Func`1[Even\xe2\x80\xa6]");
	fit_is(list, 10, "List`1[\xe2\x80\xa6]");
	fit_is(list, 6, "List`\xe2\x80\xa6"); /* cut at last, its start kept */
	/* gcdump's angle brackets; an argument's nested type (+) */
	fit_is(dict, 64, "S.C.G.Dictionary<S.Guid,S.D.T.EventSource+OverrideEventProvider>");
	fit_is(dict, 60, "S.C.G.Dictionary<Guid,EventSource+OverrideEventProvider>");
	fit_is(dict, 50, "Dictionary<Guid,EventSource+OverrideEventProvider>");
	fit_is(dict, 30, "Dictionary<Guid,EventSource+\xe2\x80\xa6>");
	tname_forms(dict, strlen(dict), &f);
	ck_assert_str_eq(f.v[f.n - 2], "Dictionary<Guid,\xe2\x80\xa6>");
	ck_assert_str_eq(f.v[f.n - 1], "Dictionary<\xe2\x80\xa6>");
	tname_forms_free(&f);
	/* assembly-qualified arguments */
	fit_is(asmq, 68, "S.C.G.Dictionary`2[[S.String, S.P.CoreLib],[W.CacheEntry, Workload]]");
	fit_is(asmq, 60, "S.C.G.Dictionary`2[[String, CoreLib],[CacheEntry, Workload]]");
	fit_is(asmq, 59, "Dictionary`2[[String, CoreLib],[CacheEntry, Workload]]");
	tname_forms(asmq, strlen(asmq), &f);
	ck_assert_str_eq(f.v[f.n - 2], "Dictionary`2[[String, CoreLib],\xe2\x80\xa6]");
	ck_assert_str_eq(f.v[f.n - 1], "Dictionary`2[\xe2\x80\xa6]");
	tname_forms_free(&f);
	/* arrays: of a generic type, two-dimensional, inside an argument */
	fit_is(entry, 48, "Entry[S.Int32,S.D.T.EventSource+EventMetadata][]");
	fit_is(entry, 40, "Entry[Int32,EventSource+EventMetadata][]");
	fit_is(entry, 23, "Entry[Int32,EventSo\xe2\x80\xa6][]");
	fit_is("System.String[,]", 10, "String[,]");
	fit_is("Table[System.String,System.RuntimeType[]]", 30, "Table[String,RuntimeType[]]");
	/* a compiler's names: their angle brackets are no arguments */
	fit_is("System.Func<Workload.Program+<>c>", 20, "S.Func<Program+<>c>");
	fit_is("Workload.Program+<Main>d__0", 20, "W.Program+<Main>d__0");
	fit_is("Workload.Program+<Main>d__0", 12, "\xe2\x80\xa6+<Main>d__0");
	/* Java: an array's "[[L" kept, a nested class's end kept */
	fit_is("[[Ljava.lang.String;", 12, "[[LString;");
	fit_is("com.sun.tools.javac.tree.JCTree$JCIdent", 30, "c.s.t.j.tree.JCTree$JCIdent");
	fit_is("com.sun.tools.javac.tree.JCTree$JCIdent", 10, "\xe2\x80\xa6" "e$JCIdent");
	/* broken names from a dump: read as far as they go, never past */
	fit_is("a.b.C<d.E", 5, "C<E");
	fit_is("]]>,[<.a.", 40, "]]>,[<.a.");
	fit_is("", 5, "");
	setlocale(LC_CTYPE, "C");
}
END_TEST

/* What the prompt's draw measures of a line of n characters: the end
 * that fits (text_tail) and the caret's column (the width of what comes
 * before it, at most the whole line) cost at most 4n characters, where
 * measuring the rest once per character skipped cost n * n / 2 (a paste
 * of 10 kB then kept it busy for minutes). The tails by hand: n ASCII
 * letters in 78 cells from byte n - 78; 中 (3 bytes, 2 cells) in 77
 * cells: 38 of them, 76 cells. */
START_TEST(test_prompt_measure_linear)
{
	static const size_t sizes[] = { 1000, 8000, 64000 };

	ck_assert_ptr_nonnull(setlocale(LC_CTYPE, "C.UTF-8"));
	for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
		size_t n = sizes[i];
		char *ascii = xmalloc(n + 1), *wide = xmalloc(3 * n + 1);
		memset(ascii, 'a', n);
		ascii[n] = '\0';
		for (size_t k = 0; k < n; k++)
			memcpy(wide + 3 * k, "\xe4\xb8\xad", 3);
		wide[3 * n] = '\0';
		int skip;
		uint64_t before = text_measured();
		size_t at = text_tail(ascii, 78, &skip);
		text_width(ascii);
		uint64_t cost = text_measured() - before;
		ck_assert_msg(cost <= 4 * n, "%zu characters: %llu measured", n, (unsigned long long)cost);
		ck_assert_uint_eq(at, n - 78);
		ck_assert_int_eq(skip, (int)(n - 78));
		before = text_measured();
		at = text_tail(wide, 77, &skip);
		text_width(wide);
		cost = text_measured() - before;
		ck_assert_msg(cost <= 4 * n, "%zu wide characters: %llu measured", n, (unsigned long long)cost);
		ck_assert_uint_eq(at, 3 * (n - 38));
		ck_assert_int_eq(skip, (int)(2 * (n - 38)));
		ck_assert_uint_eq(text_tail("abc", 78, &skip), 0);
		ck_assert_int_eq(skip, 0);
		free(ascii);
		free(wide);
	}
	setlocale(LC_CTYPE, "C");
}
END_TEST

/* Poll the screen until it shows needle, for up to secs seconds: a
 * bound that catches a hang, far above what the work takes. */
static char *wait_long(struct term *t, const char *needle, int secs)
{
	char *s = NULL;

	for (double end = now_seconds() + hang_seconds(secs); now_seconds() < end;) {
		free(s);
		s = screen(t, 0);
		if (strstr(s, needle) != NULL && settled(t, s))
			return s;
		usleep(200000);
	}
	ck_abort_msg("after %d s the screen does not show '%s'; it shows:\n%s", secs, needle, shown(s));
	return s;
}

/* Paste n bytes (tmux's paste buffer, as a terminal pastes) made of
 * `fill` with `mark` at byte at (and `rest` after it). */
static void paste(struct term *t, size_t n, char fill, const char *mark, size_t at, char rest)
{
	char path[600];
	char *text = xmalloc(n);

	memset(text, fill, n);
	memset(text + at, rest, n - at);
	memcpy(text + at - strlen(mark), mark, strlen(mark));
	snprintf(path, sizeof path, "%s/paste-%zu", hw_tmpdir(), n);
	FILE *f = fopen(path, "w");
	ck_assert(f != NULL && fwrite(text, 1, n, f) == n && fclose(f) == 0);
	free(text);
	tmuxf(t, "load-buffer %s", path);
	tmuxf(t, "paste-buffer -t hw");
}

/* A paste into the ':' prompt: 20 kB shows its end at once (no redraw
 * per byte, each draw linear); 70 kB stops at the line's bound, 64 kB:
 * the bytes up to it taken (their last ones, a mark, end the line), the
 * rest not, said on the line above. */
START_TEST(test_prompt_paste)
{
	struct term t;
	char *path = hw_write_evil(), env[600];

	snprintf(env, sizeof env, "XDG_STATE_HOME=%s/state", hw_tmpdir());
	term_start(&t, 100, 24, env, path);
	free(wait_for(&t, "Step 1"));
	keys(&t, ":");
	free(wait_for(&t, "\n:"));
	paste(&t, 20000, 'x', "END-OF-20000", 20000, 'x');
	char *s = wait_long(&t, "xxxxEND-OF-20000\n", 120);
	lacks(s, "the line is cut");
	free(s);
	keys(&t, "C-u");
	free(wait_without(&t, "\n:", "END-OF-20000"));
	paste(&t, 70000, 'a', "LAST-OF-65536", 65536, 'b');
	s = wait_long(&t, "aaaaLAST-OF-65536\n", 120);
	has(s, "the line is cut at 65536 bytes");
	char *line = line_of(s, "LAST-OF-65536");
	lacks(line, "b");
	free(line);
	free(s);
	keys(&t, "Escape");
	free(wait_without(&t, "q quit", "LAST-OF-65536"));
	keys(&t, "q");
	wait_exit(&t);
	term_stop(&t);
	free(path);
}
END_TEST

/* Esc during a computation: the tick sees it, the engine stops early. */
static int ticks;

static void cancel_tick(struct progress *p, uint64_t done)
{
	(void)done;
	ticks++;
	p->cancelled = 1;
}

START_TEST(test_cancel_stops_work)
{
	struct heap h;
	struct open_opts oo = { .quiet = 1 };
	struct progress p;
	struct sbuf err;
	uint64_t full, part;

	ensure_dump("coops", "");
	sbuf_init(&err);
	ck_assert_msg(heap_open(&h, DUMPS "/coops.hprof", &oo, NULL, &err) == 0, "%s", err.buf);
	heap_need(&h, HP_ALL, NULL);
	bits_t *none = xcalloc(bits_words(h.n), sizeof *none);
	/* nothing removed: nothing retained */
	full = analysis_retained_set(&h, none, NULL, NULL, NULL);
	ck_assert_uint_eq(full, 0);
	progress_init(&p, 1);
	p.tick = cancel_tick;
	part = analysis_retained_set(&h, none, NULL, NULL, &p);
	ck_assert_int_eq(ticks, 1);
	ck_assert(progress_cancelled(&p));
	/* it stopped marking: what it did not reach counts as retained */
	ck_assert_uint_gt(part, 0);
	free(none);
	heap_free(&h);
	sbuf_free(&err);
}
END_TEST

/* The man page's key list is the key table's, as --keys=mdoc prints it. */
START_TEST(test_man_keys)
{
	char cmd[1024];
	const char *hw = getenv("HEAPWALK");

	ck_assert(hw != NULL);
	snprintf(cmd, sizeof cmd, "%s --keys=mdoc", hw);
	char *want = run_out(cmd);
	ck_assert_msg(strstr(want, ".It Li \\&Enter\n") != NULL, "%s", want);
	FILE *f = fopen(TEST_SRCDIR "/../man/heapwalk.1", "r");
	ck_assert(f != NULL);
	struct sbuf man;
	char buf[4096];
	size_t n;
	sbuf_init(&man);
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		sbuf_add(&man, buf, n);
	fclose(f);
	const char *begin = strstr(man.buf, ".\\\" BEGIN KEYS\n"), *end = strstr(man.buf, ".\\\" END KEYS");
	ck_assert(begin != NULL && end != NULL);
	begin += strlen(".\\\" BEGIN KEYS\n");
	ck_assert_msg((size_t)(end - begin) == strlen(want) && memcmp(begin, want, strlen(want)) == 0,
		      "man/heapwalk.1's key list is not `heapwalk --keys=mdoc`: run make man-keys");
	sbuf_free(&man);
	free(want);
}
END_TEST

/* Every object row keeps its id at 80x24: the JDK's own strings of
 * binary tables (their values escaped, \x00 after \x00) read only
 * "+ j.l.String", the id and value gone with what did not fit; now the
 * class is shortened, then the value cut, and the id stays. */
START_TEST(test_string_rows_keep_ids)
{
	struct term t;
	char args[512];

	ensure_dump("coops", "");
	snprintf(args, sizeof args, "%s/coops.hprof", DUMPS);
	term_start(&t, 80, 24, "", args);
	free(wait_for(&t, "Step 1: All objects"));
	keys(&t, ":");
	type(&t, "instances java.lang.String | objects");
	keys(&t, "Enter");
	char *s = wait_for(&t, "Step 2:");
	free(s);
	s = wait_for(&t, "String 0x");
	int rows = 0;
	for (char *line = s; line != NULL && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		if (strncmp(line, " + ", 3) != 0 && strncmp(line, "   ", 3) != 0)
			continue;
		char *eol = strchr(line, '\n');
		size_t n = eol != NULL ? (size_t)(eol - line) : strlen(line);
		if (memmem(line, n, "String", 6) == NULL)
			continue;
		rows++;
		ck_assert_msg(memmem(line, n, " 0x", 3) != NULL, "a row without its id: %.*s\n%s", (int)n, line, s);
	}
	ck_assert_int_ge(rows, 10); /* a page of them, the biggest (the binary tables) first */
	free(s);
	keys(&t, "q");
	wait_exit(&t);
	term_stop(&t);
}
END_TEST

/* ? lists every view the tab bar shows (it left out Time), by the
 * tab's own name, and the keys for rows and steps. */
START_TEST(test_help_views)
{
	struct term t;
	char args[512];

	ensure_dump("coops", "");
	snprintf(args, sizeof args, "%s/coops.hprof", DUMPS);
	term_start(&t, 160, 150, "", args);
	char *s = wait_for(&t, "Step 1: All objects");
	/* the tab bar: the line under the step's, names apart by 3 spaces */
	char *bar = strstr(s, "Step 1: All objects");
	bar = bar != NULL ? strchr(bar, '\n') : NULL;
	ck_assert_ptr_nonnull(bar);
	char *eol = strchr(++bar, '\n');
	ck_assert_ptr_nonnull(eol);
	*eol = '\0';
	keys(&t, "?");
	char *h = wait_for(&t, "Views (Tab):");
	const char *views = strstr(h, "Views (Tab):");
	struct sbuf para;
	sbuf_init(&para); /* the paragraph, its lines joined */
	for (const char *c = views; *c; c++)
		sbuf_addc(&para, *c == '\n' ? ' ' : *c);
	int n = 0;
	for (char *tok = bar; *tok;) {
		tok += strspn(tok, " ");
		if (*tok == '\0')
			break;
		char *end = strstr(tok, "   ");
		char name[64];
		size_t len = end != NULL ? (size_t)(end - tok) : strlen(tok);
		snprintf(name, sizeof name, "%.*s", (int)len, tok);
		while (len > 0 && name[len - 1] == ' ')
			name[--len] = '\0';
		ck_assert_msg(strstr(para.buf, name) != NULL, "help does not name the view %s:\n%s", name, para.buf);
		n++;
		tok += end != NULL ? (size_t)(end - tok) : strlen(tok);
	}
	ck_assert_int_ge(n, 10);
	/* rows and steps: g and Home the first row, 0 the first step */
	has(h, "Home, g, T ");
	has(h, "  0  ");
	free(h);
	sbuf_free(&para);
	free(s);
	keys(&t, "q");
	keys(&t, "q");
	wait_exit(&t);
	term_stop(&t);
}
END_TEST

/* A baseline in the browser: the header counts new, old and gone
 * objects; '>' uses the new ones, which are what the workload made after
 * the mark (NewThing 3000, OldThing 1500: see tests/test_agent.c). */
START_TEST(test_baseline_in_browser)
{
	struct term t;
	char dir[600], args[1400], cmd[1600];
	int st;

	agent_session(dir, sizeof dir);
	/* the dumps under a name too long for the top line whatever the
	 * build directory's (a short one, under /tmp, left room for it all) */
	const char *in = DUMPS "/tui-baseline/a-directory-whose-name-is-long-enough-that-its-path-never-fits-the-top-line";
	snprintf(cmd, sizeof cmd, "mkdir -p %s && ln -f %s/before.hprof %s/after.hprof %s/", in, dir, dir, in);
	ck_assert_int_eq(system(cmd), 0);
	snprintf(dir, sizeof dir, "%s", in);
	snprintf(cmd, sizeof cmd, "%s -q -f json --baseline %s/before.hprof %s/after.hprof info",
		 getenv("HEAPWALK"), dir, dir);
	char *json = run(cmd, &st);
	ck_assert_int_eq(st, 0);
	char *p = strstr(json, "\"new_objects\":");
	ck_assert(p != NULL);
	unsigned long long nnew = strtoull(p + 14, NULL, 10);
	p = strstr(json, "\"gone_objects\":");
	ck_assert(p != NULL);
	unsigned long long ngone = strtoull(p + 15, NULL, 10);
	free(json);

	snprintf(args, sizeof args, "--baseline %s/before.hprof %s/after.hprof", dir, dir);
	/* 120 columns: too few for the dump's whole path and the counts, so
	 * the top line gives the file name and keeps the counts */
	term_start(&t, 120, 30, "", args);
	char *s = wait_for(&t, "Step 1: All objects");
	char want[64];
	snprintf(want, sizeof want, "new %llu (", nnew);
	has(s, want);
	snprintf(want, sizeof want, ", gone %llu (", ngone);
	has(s, want);
	has(s, " heapwalk  after.hprof  ");
	free(s);
	keys(&t, "'>'");
	s = wait_for(&t, "Step 2: New objects among");
	snprintf(want, sizeof want, "|  %llu objects", nnew);
	has(s, want);
	char *row = line_of(s, "Marked$NewThing ");
	has(row, " 3000 ");
	free(row);
	row = line_of(s, "Marked$OldThing ");
	has(row, " 1500 ");
	free(row);
	free(s);
	keys(&t, "x");
	s = wait_for(&t, " --baseline ");
	ck_assert_msg(strstr(s, "heapwalk -e new --baseline ") || strstr(s, "heapwalk -e 'new' --baseline "),
		      "x: %s", shown(s));
	free(s);
	keys(&t, "Escape q"); /* the box, then the browser */
	wait_exit(&t);
	term_stop(&t);
}
END_TEST

/* A baseline loaded in the browser (B): two ordinary dumps of
 * tests/java/Matched, whose workload freed 10000 of its 30000 Holders
 * and made 10000 more. The classes view shows that per class; '~' on
 * the Holder row makes the 10000 gone ones a step on the baseline's
 * side, where new and old do not apply; back on the open dump, 'd'
 * gives the retained columns again. */
START_TEST(test_baseline_loaded_later)
{
	struct term t;
	char args[700], path[700];
	const char *dir = matched_dumps_dir();

	snprintf(args, sizeof args, "%s/b.hprof", dir);
	snprintf(path, sizeof path, "%s/a.hprof", dir);
	term_start(&t, 120, 30, "", args);
	char *s = wait_for(&t, "no baseline (B: load one)");
	has(s, "retained");
	free(s);
	keys(&t, "B");
	free(wait_for(&t, "baseline (the earlier dump of this process):"));
	type(&t, path);
	keys(&t, "Enter");
	s = wait_for(&t, "baseline loaded: inferred (");
	has(s, "b.hprof  ");
	has(s, "sort: growth");
	has(s, "new bytes gone bytes");
	free(s);
	/* a class whose 5 objects all went (a row with none now) and one
	 * that only the open dump has */
	keys(&t, "f");
	type(&t, "Matched.(Early|Late)");
	keys(&t, "Enter");
	s = wait_without(&t, "Matched$Early ", "java.lang.String ");
	char *row = line_of(s, "Matched$Early ");
	ck_assert_msg(strstr(row, " 0 ") && strstr(row, " -5 "), "Early row: %s", row);
	free(row);
	row = line_of(s, "Matched$Late ");
	ck_assert_msg(strstr(row, " 7 ") && strstr(row, " +7 "), "Late row: %s", row);
	free(row);
	free(s);
	keys(&t, "f");
	type(&t, "Holder");
	keys(&t, "Enter");
	s = wait_without(&t, "Matched$Holder ", "Matched$Early ");
	row = line_of(s, "Matched$Holder ");
	ck_assert_msg(strstr(row, " 30000 ") && strstr(row, " +10000 ") && strstr(row, " -10000 "),
		      "Holder row: %s", row);
	free(row);
	free(s);
	keys(&t, "'~'");
	s = wait_for(&t, "Step 2: Gone instances of Matched$Holder");
	has(s, "|  10000 objects");
	has(s, "a.hprof  ");
	has(s, "the baseline's side");
	free(s);
	keys(&t, "'>'");
	free(wait_for(&t, "this step is on the baseline's side"));
	/* one gone object: its expression names it among the gone ones (its
	 * address may belong to another object in the open dump) */
	keys(&t, "BTab"); /* the step opened on the objects' fields; Biggest before */
	s = wait_for(&t, "dominator tree");
	/* 10000 alike, none holding much: grouped by class, by itself */
	has(s, "by class: no object holds much");
	has(s, "Matched$Holder  (10000 objects)");
	free(s);
	keys(&t, "+"); /* open the group, take its first */
	keys(&t, "Down");
	keys(&t, "Enter");
	free(wait_for(&t, "Step 3: Objects Matched$Holder"));
	keys(&t, "x");
	free(wait_for(&t, "heapwalk -e 'gone | object 0x"));
	keys(&t, "0");
	s = wait_for(&t, "Step 1: All objects");
	has(s, "b.hprof  ");
	free(s);
	keys(&t, "d");
	s = wait_for(&t, "retained   %ret");
	lacks(s, "gone bytes");
	has(s, "sort: shallow");
	free(s);
	/* d again: the new and gone columns, and the growth sort that the
	 * first d set aside (the trial's: it stayed on shallow) */
	keys(&t, "d");
	s = wait_for(&t, "gone bytes");
	has(s, "sort: growth");
	free(s);
	/* a sort chosen while they are off stands when they come back */
	keys(&t, "d");
	free(wait_for(&t, "retained   %ret"));
	keys(&t, "s");
	keys(&t, "i");
	free(wait_for(&t, "sort: instances"));
	keys(&t, "d");
	s = wait_for(&t, "gone bytes");
	has(s, "sort: instances");
	free(s);
	/* growth reversed: shallow biggest first without the columns, and
	 * growth reversed again with them (it was shallow reversed: the
	 * smallest classes first) */
	keys(&t, "s");
	keys(&t, "g");
	free(wait_for(&t, "sort: growth)"));
	keys(&t, "s");
	keys(&t, "g");
	free(wait_for(&t, "sort: growth, reversed)"));
	keys(&t, "d");
	free(wait_for(&t, "sort: shallow)"));
	keys(&t, "d");
	free(wait_for(&t, "sort: growth, reversed)"));
	keys(&t, "d");
	free(wait_for(&t, "retained   %ret"));
	/* a dump that is not there: said, and the baseline stays */
	keys(&t, "B");
	free(wait_for(&t, "baseline (the earlier dump of this process):"));
	type(&t, "/nonexistent.hprof");
	keys(&t, "Enter");
	s = wait_for(&t, "/nonexistent.hprof: ");
	has(s, "inferred (");
	free(s);
	/* the new objects as a step, then the baseline loaded again: the steps
	 * made with new, old or gone go with the baseline they rest on */
	keys(&t, "'>'");
	free(wait_for(&t, "Step 2: New objects among"));
	keys(&t, "0");
	free(wait_for(&t, "Step 1: All objects"));
	keys(&t, "B");
	free(wait_for(&t, "baseline (the earlier dump of this process):"));
	type(&t, path);
	keys(&t, "Enter");
	s = wait_for(&t, "baseline loaded: inferred (");
	lacks(s, "New objects among");
	free(s);
	keys(&t, "q");
	wait_exit(&t);
	term_stop(&t);
}
END_TEST

/* Two .NET traces, matched: the String objects left unpaired on both
 * sides are alike (the trace has no characters), so the String row's new
 * and gone columns say the objects told apart with "?" after them (as
 * diff's CSV counts them: the column added up to the top line's new
 * when it said "?" alone) and the top line counts the ambiguous ones
 * (what `diff` says: tests/test_calibrate.c). */
START_TEST(test_baseline_ambiguous)
{
	struct term t;
	char args[1400];

	snprintf(args, sizeof args, "--baseline %s/dotnet/workload-1.nettrace %s/dotnet/workload-2.nettrace",
		 TEST_SRCDIR, TEST_SRCDIR);
	term_start(&t, 160, 30, "", args);
	char *s = wait_for(&t, "Step 1: All objects");
	has(s, "inferred (");
	has(s, "; ambiguous ");
	free(s);
	keys(&t, "f");
	type(&t, "^System.(String|Reflection.RuntimeMethodInfo)$");
	keys(&t, "Enter");
	s = wait_without(&t, "System.String ", "System.Object ");
	char *row = line_of(s, "System.String ");
	snprintf(args, sizeof args, "%s -q -f csv diff %s/dotnet/workload-1.nettrace %s/dotnet/workload-2.nettrace | "
		 "awk -F, '$1 == \"System.String\" { print \" +\" $8 \"? \"; print \" \" ($10 > 0 ? \"-\" : \"\") $10 \"? \" }'",
		 heapwalk(), TEST_SRCDIR, TEST_SRCDIR);
	int st;
	char *told = run(args, &st), *nl = strchr(told, '\n');
	ck_assert_msg(st == 0 && nl != NULL && strncmp(told, " +", 2) == 0 && strtoul(told + 2, NULL, 10) > 0, "%s", told);
	*nl = '\0';
	ck_assert_msg(strstr(row, told) != NULL, "String row: %s, not '%s' new", row, told);
	nl[strlen(nl + 1)] = '\0';
	ck_assert_msg(strstr(row, nl + 1) != NULL, "String row: %s, not '%s' gone", row, nl + 1);
	free(told);
	free(row);
	row = line_of(s, "System.Reflection.RuntimeMethodInfo ");
	ck_assert_msg(strchr(row, '?') == NULL && strstr(row, " +270 ") != NULL, "RuntimeMethodInfo row: %s", row);
	free(row);
	/* the use menu's unknown: as many objects as the top line says are
	 * ambiguous; Strings among them, no RuntimeMethodInfo */
	const char *amb = strstr(s, "; ambiguous ");
	ck_assert(amb != NULL);
	unsigned long long n_amb = strtoull(amb + strlen("; ambiguous "), NULL, 10);
	ck_assert_uint_gt(n_amb, 0);
	free(s);
	keys(&t, "u");
	free(wait_for(&t, "unknown   the objects neither new nor old"));
	keys(&t, "u");
	s = wait_for(&t, "Step 2: Unidentified objects among");
	char want[64];
	snprintf(want, sizeof want, "|  %llu objects,", n_amb);
	has(s, want);
	has(s, "System.String ");
	lacks(s, "System.Reflection.RuntimeMethodInfo ");
	free(s);
	keys(&t, "q");
	wait_exit(&t);
	term_stop(&t);
}
END_TEST

/* The Allocations view of a snapshot with allocation traces
 * (tests/alloc-run.sh): the hot spot at Holder's `new int[4]` line,
 * used, is a step of int[]s only, as many as the row says. */
START_TEST(test_allocations_view)
{
	struct term t;
	char args[700], site[96];
	int line = 0, no = 0;
	FILE *f = fopen(TEST_SRCDIR "/java/Matched.java", "r");

	ck_assert(f != NULL);
	while (fgets(args, sizeof args, f) != NULL) {
		no++;
		if (strstr(args, "new int[4]") != NULL)
			line = no;
	}
	fclose(f);
	ck_assert(line > 0);
	snprintf(site, sizeof site, "Matched$Holder.<init>(Matched.java:%d)", line);
	snprintf(args, sizeof args, "%s", alloc_dump());
	term_start(&t, 80, 24, "", args);
	free(wait_for(&t, "Step 1: All objects"));
	keys(&t, "BTab BTab BTab"); /* Inspections is the last tab, Time and Allocations before it */
	char *s = wait_for(&t, "hot spots, callers: ");
	has(s, " Alloc "); /* the tab's short name: 80 columns */
	free(s);
	/* one hot spot left: the int[] site */
	keys(&t, "f");
	char rx[128];
	snprintf(rx, sizeof rx, "Holder\\.<init>\\(Matched\\.java:%d\\)", line);
	type(&t, rx);
	keys(&t, "Enter");
	s = wait_without(&t, site, "Matched.main(");
	char *row = line_of(s, site);
	unsigned long long n = 0;
	ck_assert_msg(sscanf(strstr(row, site) + strlen(site), "%llu", &n) == 1 && n > 0, "row: %s", row);
	free(row);
	free(s);
	keys(&t, "Enter");
	s = wait_for(&t, "> [2 Allocated at Matched$Holder.<init>");
	char want[64];
	snprintf(want, sizeof want, "|  %llu objects", n);
	has(s, want);
	free(s);
	/* int[]s only: the step opened on their fields; Classes is two back */
	free(wait_for(&t, "object / field = value"));
	keys(&t, "BTab BTab");
	s = wait_for(&t, "class  (sort:");
	row = line_of(s, " [I ");
	snprintf(want, sizeof want, " %llu ", n);
	has(row, want);
	free(row);
	lacks(s, "java.lang.");
	lacks(s, "Matched$Holder ");
	free(s);
	/* the step's expression names the site; in batch it selects the same */
	keys(&t, "x");
	char expr[160], got[320];
	snprintf(expr, sizeof expr, "site %s", site);
	s = wait_for(&t, "-e 'site ");
	char *inside = box_text(s), *w = squeeze(expr);
	ck_assert_msg(strstr(inside, w) != NULL, "the box holds '%s', not '%s'", inside, w);
	free(inside);
	free(w);
	free(s);
	unsigned long long bn, bb;
	batch_set(args, expr, &bn, &bb);
	ck_assert_uint_eq(bn, n);
	snprintf(got, sizeof got, "calls %s -> %s", site, site); /* frames it has, a path it has not */
	batch_set(args, got, &bn, &bb);
	ck_assert_uint_eq(bn, 0);
	keys(&t, "Escape q");
	wait_exit(&t);
	term_stop(&t);
}
END_TEST

/* ---- inspections and rules ---- */

/* "set_objects" and "set_bytes" of `heapwalk -e EXPR info` on the dump:
 * the numbers of a set as the batch side computes them. */
static void batch_set(const char *dump, const char *expr, unsigned long long *count,
		      unsigned long long *bytes)
{
	char cmd[1024];
	int st;

	snprintf(cmd, sizeof cmd, "%s -q -f json %s info -e '%s'", getenv("HEAPWALK"), dump, expr);
	char *json = run(cmd, &st);
	ck_assert_msg(st == 0, "%s: %s", cmd, json);
	char *p = strstr(json, "\"set_objects\":"), *q = strstr(json, "\"set_bytes\":");
	ck_assert_msg(p != NULL && q != NULL, "%s: %s", cmd, json);
	*count = strtoull(p + 14, NULL, 10);
	*bytes = strtoull(q + 12, NULL, 10);
	free(json);
}

/* The number a group row starts with ("  3 java.lang.Integer ..."). */
static unsigned group_number(const char *row, const char *label)
{
	const char *p = strstr(row, label);

	ck_assert_msg(p != NULL && p > row, "no group '%s' in: %s", label, row);
	while (p > row && p[-1] == ' ')
		p--;
	while (p > row && p[-1] >= '0' && p[-1] <= '9')
		p--;
	return (unsigned)strtoul(p, NULL, 10);
}

/* The Inspections view on the workload dump: boxed-primitives, whose
 * groups are the boxes by class. The Integer and Long groups hold every
 * Integer and Long of the dump, as `instances` counts them in batch mode;
 * a group used is a step whose expression gives the same objects. */
START_TEST(test_inspections_view)
{
	struct term t;
	char dump[512], want[256], fmt[32];
	unsigned long long nint, bint, nlong, blong, n, b;

	ensure_dump("coops", "");
	snprintf(dump, sizeof dump, "%s/coops.hprof", DUMPS);
	batch_set(dump, "instances java.lang.Integer", &nint, &bint);
	batch_set(dump, "instances java.lang.Long", &nlong, &blong);
	ck_assert(nint >= 1000 + 5000 && nlong >= 1000); /* the workload's, at least */
	term_start(&t, 120, 40, "", dump);
	free(wait_for(&t, "Step 1: All objects"));
	keys(&t, "BTab"); /* the last tab */
	char *s = wait_for(&t, "boxed-primitives");
	has(s, "Waste (");
	has(s, " Inspections"); /* the last tab, whole */
	free(s);
	keys(&t, "/");
	type(&t, "^boxed-primitives");
	keys(&t, "Enter");
	free(wait_for(&t, "boxed-primitives: Enter runs it"));
	keys(&t, "Enter");
	s = wait_for(&t, "boxed-primitives: ");
	has(s, "examined");
	char *row = line_of(s, " java.lang.Integer ");
	snprintf(want, sizeof want, " %llu ", nint);
	has(row, want);
	fmt_bytes(fmt, sizeof fmt, bint);
	snprintf(want, sizeof want, " %s ", fmt);
	has(row, want);
	unsigned k = group_number(row, "java.lang.Integer");
	free(row);
	row = line_of(s, " java.lang.Long ");
	snprintf(want, sizeof want, " %llu ", nlong);
	has(row, want);
	unsigned kl = group_number(row, "java.lang.Long");
	free(row);
	free(s);

	/* the Integer group: a step, and the expression that makes it */
	keys(&t, "/");
	type(&t, "^[0-9]+ java\\.lang\\.Integer");
	keys(&t, "Enter");
	free(wait_without(&t, "q quit", "search:"));
	keys(&t, "Enter");
	/* "group K of N objects" read as one of N groups */
	snprintf(want, sizeof want, "Step 2: boxed-primitives group %u  |  ", k);
	s = wait_for(&t, want);
	snprintf(want, sizeof want, "|  %llu objects", nint);
	has(s, want);
	snprintf(want, sizeof want, "[2 boxed-primitives group %u]", k);
	has(s, want);
	has(s, "object / field = value"); /* one class's objects: their fields */
	free(s);
	keys(&t, "BTab BTab");
	s = wait_for(&t, "class  (sort:");
	row = line_of(s, "java.lang.Integer ");
	snprintf(want, sizeof want, " %llu ", nint);
	has(row, want);
	free(row);
	free(s);
	keys(&t, "x");
	char expr[128];
	snprintf(expr, sizeof expr, "inspection boxed-primitives group %u", k);
	snprintf(want, sizeof want, "heapwalk -e '%s'", expr);
	free(wait_for(&t, want));
	batch_set(dump, expr, &n, &b);
	ck_assert_uint_eq(n, nint);
	ck_assert_uint_eq(b, bint);

	/* back: the result is still there; Enter on the inspection closes
	 * and opens it without running it again */
	keys(&t, "Left");
	s = wait_for(&t, "Step 1: All objects");
	has(s, " java.lang.Integer ");
	free(s);
	keys(&t, "/");
	type(&t, "^boxed-primitives");
	keys(&t, "Enter");
	free(wait_without(&t, "q quit", "search:"));
	keys(&t, "Enter");
	s = wait_without(&t, "boxed-primitives [", " java.lang.Integer ");
	lacks(s, "groups (");  /* no run, so no message of one */
	free(s);
	keys(&t, "Enter");
	s = wait_for(&t, " java.lang.Integer ");
	lacks(s, "groups (");
	free(s);

	/* two groups marked: their union, "group K,L" */
	keys(&t, "/");
	type(&t, "^[0-9]+ java\\.lang\\.Integer");
	keys(&t, "Enter Space");
	keys(&t, "/");
	type(&t, "^[0-9]+ java\\.lang\\.Long");
	keys(&t, "Enter Space Enter");
	s = wait_for(&t, "Step 2: 2 inspection groups  |  ");
	snprintf(want, sizeof want, "|  %llu objects", nint + nlong);
	has(s, want);
	free(s);
	keys(&t, "x");
	snprintf(expr, sizeof expr, "inspection boxed-primitives group %u,%u", k < kl ? k : kl, k < kl ? kl : k);
	snprintf(want, sizeof want, "heapwalk -e '%s'", expr);
	free(wait_for(&t, want));
	batch_set(dump, expr, &n, &b);
	ck_assert_uint_eq(n, nint + nlong);
	ck_assert_uint_eq(b, bint + blong);
	keys(&t, "Escape q"); /* the box, then the browser */
	wait_exit(&t);
	term_stop(&t);
}
END_TEST

/* Two classes of one name, Retain$Dup of the application's loader and
 * of a ByteLoader, listed apart. Using one of them is a step of its
 * objects alone; the expression that makes it names their ids, since
 * "instances Retain$Dup" would take both classes' objects. */
START_TEST(test_use_one_of_same_name)
{
	struct term t;
	char dump[512], cmd[1024], want[64];
	unsigned long long nall, ball, n, b;

	workload_dump("Retain", "retain", "-Xmx64m", dump, sizeof dump);
	batch_set(dump, "instances Retain$Dup", &nall, &ball);
	ck_assert_uint_eq(nall, 5); /* 2 of the application's, 3 of the other */
	term_start(&t, 120, 40, "", dump);
	char *s = wait_for(&t, "Step 1: All objects");
	free(s);
	/* f and s only where they apply: the hint leaves them out elsewhere */
	keys(&t, "Tab");
	s = wait_for(&t, "dominator tree");
	lacks(s, "f filter");
	lacks(s, "s sort");
	free(s);
	keys(&t, "f");
	free(wait_for(&t, "no filter in the Biggest view: / searches it"));
	keys(&t, "BTab");
	s = wait_for(&t, "class  (sort:");
	has(s, "f filter  s sort");
	free(s);
	keys(&t, "f");
	type(&t, "Dup$");
	keys(&t, "Enter");
	free(wait_without(&t, "q quit", "filter (regex)"));
	/* a regex that does not compile: the filter before stays */
	keys(&t, "f");
	type(&t, "Sess(");
	keys(&t, "Enter");
	free(wait_for(&t, "bad regex, filter unchanged: Sess("));
	s = wait_for(&t, "Retain$Dup "); /* the rows of /Dup$/ again */
	lacks(s, "Session");
	char *row = line_of(s, "Retain$Dup ");
	unsigned long long mine = strtoull(strstr(row, "Retain$Dup ") + strlen("Retain$Dup"), NULL, 10);
	ck_assert_msg(mine == 2 || mine == 3, "%s", row);
	free(row);
	free(s);
	keys(&t, "Enter");
	s = wait_for(&t, "Step 2: Instances of Retain$Dup");
	snprintf(want, sizeof want, "|  %llu objects", mine);
	has(s, want);
	free(s);
	tmuxf(&t, "set-option -g set-clipboard on");
	keys(&t, "x");
	free(wait_for(&t, "-e 'object "));
	keys(&t, "c");
	free(wait_for(&t, "copied to the clipboard"));
	snprintf(cmd, sizeof cmd, "%s -L %s show-buffer", tmux(), t.sock);
	char *clip = run_out(cmd);
	char *e = strstr(clip, "-e '"), *end = e != NULL ? strchr(e + 4, '\'') : NULL;
	ck_assert_msg(e != NULL && end != NULL, "%s", clip);
	*end = '\0';
	batch_set(dump, e + 4, &n, &b);
	ck_assert_uint_eq(n, mine);
	ck_assert_uint_lt(b, ball);
	free(clip);
	keys(&t, "q");
	wait_exit(&t);
	term_stop(&t);
}
END_TEST

/* Leak suspects at 80x24 (tests/java/Accum.java): an accumulation's
 * row keeps its class name, the screen's narrow width cutting the
 * words before it, and its group is a step of the class's instances. */
START_TEST(test_accumulated_80x24)
{
	struct term t;
	char dump[512];

	workload_dump("Accum", "accum", "-Xmx256m -XX:+UseSerialGC -XX:SoftRefLRUPolicyMSPerMB=1000000", dump,
		      sizeof dump);
	term_start(&t, 80, 24, "", dump);
	free(wait_for(&t, "Step 1: All objects"));
	keys(&t, "BTab");
	free(wait_for(&t, "boxed-primitives"));
	keys(&t, "/");
	type(&t, "^leak-suspects");
	keys(&t, "Enter");
	free(wait_for(&t, "leak-suspects: Enter runs it"));
	keys(&t, "Enter");
	free(wait_for(&t, "leak-suspects: 2 groups"));
	keys(&t, "Down Down");
	char *s = wait_for(&t, "instances of Accum$Item ");
	has(s, "instances of Accum$Buf ");
	char *row = line_of(s, "Accum$Buf ");
	has(row, " 2000 ");
	free(row);
	free(s);
	keys(&t, "Up Enter");
	s = wait_for(&t, "Step 2: leak-suspects group ");
	has(s, "|  2000 objects");
	free(s);
	keys(&t, "q");
	wait_exit(&t);
	term_stop(&t);
}
END_TEST

/* Inspections with an argument. string-regex needs one (none: said, and
 * nothing runs); its regex, with a '/' in it, is written /.../ in the
 * step's expression. The workload made "user0".."user199": ten match
 * ^user1[0-9]$. largest-arrays takes an optional count (Enter: 20); its
 * first group is the largest array of the dump, found here by a pass
 * over the heap's arrays. */
START_TEST(test_inspection_arguments)
{
	struct term t;
	char dump[512], want[256], fmt[32];
	struct heap h;
	struct open_opts oo = { .quiet = 1 };
	struct sbuf err;
	unsigned long long n, b;

	ensure_dump("coops", "");
	snprintf(dump, sizeof dump, "%s/coops.hprof", DUMPS);
	sbuf_init(&err);
	ck_assert_msg(heap_open(&h, dump, &oo, NULL, &err) == 0, "%s", err.buf);
	heap_need(&h, HP_ALL, NULL);
	uint32_t big = 0;
	for (node_t v = 1; v < h.n; v++)
		if ((h.node_kind[v] == NK_OBJARRAY || h.node_kind[v] == NK_PRIMARRAY) && h.node_shallow[v] > big)
			big = h.node_shallow[v];
	heap_free(&h);
	sbuf_free(&err);

	term_start(&t, 120, 40, "", dump);
	free(wait_for(&t, "Step 1: All objects"));
	keys(&t, "BTab");
	free(wait_for(&t, "string-regex"));
	keys(&t, "/");
	type(&t, "^string-regex");
	keys(&t, "Enter");
	free(wait_for(&t, "string-regex: Enter runs it"));
	keys(&t, "Enter");
	free(wait_for(&t, "string-regex: "));  /* the prompt */
	keys(&t, "Enter");
	free(wait_for(&t, "string-regex needs an argument"));
	keys(&t, "Enter");
	free(wait_for(&t, "string-regex: "));
	keys(&t, "Escape");
	char *s = wait_for(&t, "string-regex: Enter runs it");
	lacks(s, "groups]");
	free(s);
	keys(&t, "Enter");
	free(wait_for(&t, "string-regex: "));
	type(&t, "^user1[0-9]$|a/b");
	keys(&t, "Enter");
	s = wait_for(&t, "[10 groups]");
	has(s, "user10");
	free(s);
	keys(&t, "Down Enter");
	s = wait_for(&t, "Step 2: string-regex group 1  |  ");
	has(s, "|  1 object, ");
	free(s);
	keys(&t, "x");
	free(wait_for(&t, "heapwalk -e 'inspection string-regex /^user1[0-9]$|a\\/b/ group 1'"));
	batch_set(dump, "inspection string-regex /^user1[0-9]$|a\\/b/ group 1", &n, &b);
	ck_assert_uint_eq(n, 1);

	/* the default count */
	keys(&t, "Left");
	free(wait_for(&t, "Step 1: All objects"));
	keys(&t, "/");
	type(&t, "^largest-arrays");
	keys(&t, "Enter");
	free(wait_for(&t, "largest-arrays: Enter runs it"));
	keys(&t, "Enter");
	free(wait_for(&t, "largest-arrays: "));
	keys(&t, "Enter");
	free(wait_for(&t, "largest-arrays [20 groups]"));
	keys(&t, "Down"); /* the first group: on the screen */
	s = wait_for(&t, "largest-arrays: 20 groups, ");
	char *row = line_after(s, "largest-arrays [20 groups]");
	fmt_bytes(fmt, sizeof fmt, big);
	snprintf(want, sizeof want, " %s ", fmt);
	has(row, want);
	has(row, " 1 ");
	free(row);
	free(s);
	/* r asks again: 3 */
	keys(&t, "r");
	free(wait_for(&t, "largest-arrays: "));
	type(&t, "3");
	keys(&t, "Enter");
	free(wait_for(&t, "largest-arrays 3 [3 groups]"));
	/* the groups of a new run are new rows (a mark on an old one does
	 * not carry over): the cursor is on the inspection's row */
	s = wait_for(&t, "largest-arrays 3 [3 groups]");
	row = line_of(s, "largest-arrays 3 [3 groups]");
	ck_assert_msg(strstr(row, "- largest-arrays") != NULL, "not open: %s", row);
	free(row);
	free(s);
	keys(&t, "Down Enter"); /* its first group */
	s = wait_for(&t, "Step 2: largest-arrays group 1  |  ");
	has(s, "|  1 object, ");
	free(s);
	keys(&t, "x");
	free(wait_for(&t, "heapwalk -e 'inspection largest-arrays 3 group 1'"));
	keys(&t, "Escape q");
	wait_exit(&t);
	term_stop(&t);
}
END_TEST

/* The retained size of the biggest java.lang.ref.SoftReference of h. */
static uint64_t biggest_soft(const struct heap *h)
{
	uint64_t m = 0;

	for (node_t v = 1; v < h->n; v++)
		if (h->node_class[v] != HW_NONE &&
		    strcmp(class_name(h, h->node_class[v]), "java.lang.ref.SoftReference") == 0 &&
		    h->retained[v] > m)
			m = h->retained[v];
	return m;
}

/* The rules screen: jdk.rules' group `references` makes referents weak.
 * Turned off, the workload's SoftReference owns its 8 kB array (the
 * array has no other reference), so the biggest SoftReference retains
 * 16 + 8192 bytes more than its own size at least; the figures on and
 * off come from the engine opening the dump with those rules. Turned on
 * again, the first figure is back. q leaves without applying. */
START_TEST(test_rules_screen)
{
	struct term t;
	char dump[512], want[256], on[32], off[32];
	struct heap h;
	struct open_opts oo = { .quiet = 1, .no_cache = 1 };
	struct sbuf err;
	struct ruleset *rs = rules_new();

	ensure_dump("coops", "");
	snprintf(dump, sizeof dump, "%s/coops.hprof", DUMPS);
	sbuf_init(&err);
	ck_assert_msg(rules_load_default(rs, &err) == 0, "%s", err.buf);
	size_t gi = 0;
	while (gi < rs->ngroups && strcmp(rs->groups[gi].name, "references") != 0)
		gi++;
	ck_assert_msg(gi < rs->ngroups, "jdk.rules has no group 'references'");
	size_t ngroups = rs->ngroups, nlit = 0;
	for (size_t i = 0; i < ngroups; i++)
		nlit += !rs->groups[i].enabled;
	/* the group's description and its rules, as the rules file has them */
	char desc[256];
	struct sbuf grules;
	snprintf(desc, sizeof desc, "%s", rs->groups[gi].description);
	sbuf_init(&grules);
	for (size_t i = 0; i < rs->n; i++)
		if (rs->rules[i].group == gi) {
			rule_to_string(rs, &rs->rules[i], &grules);
			sbuf_printf(&grules, "   # line %u\n", rs->rules[i].line);
		}
	ck_assert_msg(*desc && grules.len > 0, "the group 'references' has no description or no rules");
	oo.rules = rs;
	ck_assert_msg(heap_open(&h, dump, &oo, NULL, &err) == 0, "%s", err.buf);
	heap_need(&h, HP_ALL, NULL);
	uint64_t a = biggest_soft(&h);
	ck_assert_int_eq(rules_enable(rs, "references", 0), 0);
	ck_assert_int_eq(heap_apply_rules(&h, rs, NULL), 0);
	uint64_t c = biggest_soft(&h);
	ck_assert_uint_ge(c, 16 + 8192 + 16); /* the array, and the reference itself */
	ck_assert_uint_ge(c, a + 8192);
	heap_free(&h);
	rules_free(rs);
	sbuf_free(&err);
	fmt_bytes(on, sizeof on, a);
	fmt_bytes(off, sizeof off, c);

	term_start(&t, 160, 40, "", dump);
	char hdr[96];
	if (nlit == 0)
		snprintf(hdr, sizeof hdr, "rules: jdk  ");
	else
		snprintf(hdr, sizeof hdr, "rules: jdk (%zu of %zu groups off)", nlit, ngroups);
	char *s = wait_for(&t, "Step 1: All objects");
	has(s, hdr);
	free(s);
	keys(&t, "f");
	type(&t, "^java\\.lang\\.ref\\.SoftReference$");
	keys(&t, "Enter");
	free(wait_without(&t, "q quit", "filter (regex)"));
	keys(&t, "Enter");
	s = wait_for(&t, "Step 2: Instances of java.lang.ref.SoftReference");
	has(s, "object / field = value"); /* one class: the step opens on its objects */
	free(s);
	keys(&t, "BTab");
	s = wait_for(&t, "dominator tree");
	char *row = line_of(s, "java.lang.ref.SoftReference 0x");
	snprintf(want, sizeof want, " %s ", on);
	has(row, want);
	free(row);
	free(s);

	/* the screen, the group off, applied */
	keys(&t, "C");
	s = wait_for(&t, "Rules: Space");
	has(s, "[x] references");
	free(s);
	for (size_t i = 0; i < gi; i++)
		keys(&t, "Down");
	/* v: the group whole, its rules with it; any key back */
	keys(&t, "v");
	s = wait_for(&t, "The rule group, whole");
	has(s, "references (on)");
	has(s, desc);
	for (char *l = grules.buf, *nl; (nl = strchr(l, '\n')) != NULL; l = nl + 1) {
		*nl = '\0';
		has(s, l);
	}
	free(s);
	keys(&t, "Down");
	s = wait_without(&t, "Rules: Space", "The rule group, whole");
	has(s, "[x] references"); /* the key closed the box alone */
	free(s);
	sbuf_free(&grules);
	keys(&t, "Space");
	s = wait_for(&t, "[ ] references");
	has(s, "1 changed, not applied yet");
	free(s);
	keys(&t, "v"); /* the box says so too */
	s = wait_for(&t, "The rule group, whole");
	has(s, "references (off, not applied yet)");
	free(s);
	keys(&t, "Down");
	free(wait_without(&t, "Rules: Space", "The rule group, whole"));
	keys(&t, "Enter");
	snprintf(want, sizeof want, "rules: jdk (%zu of %zu groups off)", nlit + 1, ngroups);
	s = wait_for(&t, "applied: ");
	has(s, want);
	has(s, "Step 2: Instances of java.lang.ref.SoftReference");
	has(s, "e: compute"); /* the step's retained size is unknown again */
	row = line_of(s, "java.lang.ref.SoftReference 0x");
	snprintf(want, sizeof want, " %s ", off);
	has(row, want);
	free(row);
	free(s);

	/* q: nothing applied */
	keys(&t, "C");
	free(wait_for(&t, "Rules: Space"));
	keys(&t, "Space q");
	s = wait_without(&t, "Step 2: Instances", "Rules: Space");
	lacks(s, "applied: ");
	free(s);
	keys(&t, "C");
	s = wait_for(&t, "Rules: Space");
	has(s, "[ ] references");
	has(s, "none changed");
	free(s);

	/* on again: as at first */
	for (size_t i = 0; i < gi; i++)
		keys(&t, "Down");
	keys(&t, "Space Enter");
	s = wait_for(&t, "applied: ");
	has(s, hdr);
	row = line_of(s, "java.lang.ref.SoftReference 0x");
	snprintf(want, sizeof want, " %s ", on);
	has(row, want);
	free(row);
	free(s);
	keys(&t, "q");
	wait_exit(&t);
	term_stop(&t);

	/* a rule as its file writes it, backslashes and quotes as they are
	 * (escaped once for the terminal: not twice) */
	char args[1024];
	snprintf(args, sizeof args, "--rules %s/../rules/jetty.rules %s", TEST_SRCDIR, dump);
	term_start(&t, 160, 40, "", args);
	free(wait_for(&t, "Step 1: All objects"));
	keys(&t, "C");
	free(wait_for(&t, "Rules: Space"));
	keys(&t, "G v"); /* the last group: jetty-tags */
	s = wait_for(&t, "The rule group, whole");
	has(s, "jetty-tags (on)");
	has(s, "tag /^org\\.eclipse\\.jetty\\.(server\\.)?session\\.SessionData$/+ _attributes.values "
	       "\"session attribute\"");
	free(s);
	/* a resize: the box again, over the rules screen, not the browser */
	tmuxf(&t, "resize-window -t hw -x %d -y %d", 100, 44);
	/* drawn anew at 44 rows: the rules screen's hint on the last (the
	 * browser's status line there, were the browser drawn under it) */
	s = NULL;
	for (double t0 = hw_now(); hw_now() - t0 < 30;) {
		free(s);
		s = screen(&t, 0);
		char *last = s + strlen(s);
		while (last > s && (last[-1] == '\n' || last[-1] == ' '))
			last--;
		while (last > s && last[-1] != '\n')
			last--;
		if (count_lines(s) == 44 && strstr(last, "v whole") != NULL)
			break;
		usleep(50000);
	}
	has(s, "v whole  Enter apply");
	has(s, "The rule group, whole");
	has(s, "Rules: Space");
	lacks(s, "Step 1: All objects");
	free(s);
	/* the box closed, the cursor on the last group: a short screen
	 * scrolls the list, a taller one shows it whole again */
	keys(&t, "q");
	free(wait_without(&t, "v whole  Enter apply", "The rule group, whole"));
	tmuxf(&t, "resize-window -t hw -x %d -y %d", 100, 10);
	s = NULL;
	for (double t0 = hw_now(); hw_now() - t0 < 30;) { /* drawn anew at 10 rows */
		free(s);
		s = screen(&t, 0);
		if (count_lines(s) == 10 && strstr(s, "jetty-tags") != NULL && strstr(s, "[x] references") == NULL)
			break;
		usleep(50000);
	}
	has(s, "jetty-tags");
	lacks(s, "[x] references");
	free(s);
	tmuxf(&t, "resize-window -t hw -x %d -y %d", 100, 44);
	s = wait_for(&t, "[x] references"); /* all 16 groups fit again */
	has(s, "jetty-tags");
	free(s);
	keys(&t, "q q"); /* the screen, the browser */
	wait_exit(&t);
	term_stop(&t);
}
END_TEST

Suite *tui_suite(void)
{
	Suite *s = suite_create("tui");
	TCase *tc = tcase_create("terminal");
	TCase *unit = tcase_create("unit");

	tcase_set_timeout(tc, FIXTURE_TIMEOUT);
	tcase_set_timeout(unit, FIXTURE_TIMEOUT);
	tcase_add_test(unit, test_display_width);
	tcase_add_test(unit, test_type_name_forms);
	tcase_add_test(unit, test_prompt_measure_linear);
	tcase_add_test(unit, test_man_keys);
	tcase_add_test(unit, test_cancel_stops_work);
	tcase_add_test(tc, test_leak_80x24);
	tcase_add_test(tc, test_help_views);
	tcase_add_test(tc, test_string_rows_keep_ids);
	tcase_add_test(tc, test_leak_200x50);
	tcase_add_test(tc, test_marks_and_steps);
	tcase_add_test(tc, test_resort_shows_top);
	tcase_add_test(tc, test_biggest_share_of_heap);
	tcase_add_test(tc, test_filter_cursor);
	tcase_add_test(tc, test_tabs_narrow);
	tcase_add_test(tc, test_completions_cut);
	tcase_add_test(tc, test_command_prompt);
	tcase_add_test(tc, test_loader_filter);
	tcase_add_test(tc, test_escaped_on_screen);
	tcase_add_test(tc, test_filter_raw_or_shown);
	tcase_add_test(tc, test_deep_path_cut);
	tcase_add_test(tc, test_colors_and_no_color);
	tcase_add_test(tc, test_sigterm);
	tcase_add_test(tc, test_terminal_gone);
	tcase_add_test(tc, test_suspend_key);
	tcase_add_test(tc, test_suspend_signal);
	tcase_add_test(tc, test_signals_restore);
	tcase_add_test(tc, test_baseline_in_browser);
	tcase_add_test(tc, test_baseline_loaded_later);
	tcase_add_test(tc, test_baseline_ambiguous);
	tcase_add_test(tc, test_allocations_view);
	tcase_add_test(tc, test_inspections_view);
	tcase_add_test(tc, test_accumulated_80x24);
	tcase_add_test(tc, test_use_one_of_same_name);
	tcase_add_test(tc, test_inspection_arguments);
	tcase_add_test(tc, test_rules_screen);
	/* its own case: CK_RUN_CASE=paste runs it alone */
	TCase *paste = tcase_create("paste");
	tcase_set_timeout(paste, FIXTURE_TIMEOUT);
	tcase_add_test(paste, test_prompt_paste);
	suite_add_tcase(s, unit);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, paste);
	/* its own case: CK_RUN_CASE=mergedweak runs it alone */
	TCase *mw = tcase_create("mergedweak");
	tcase_set_timeout(mw, FIXTURE_TIMEOUT);
	tcase_add_test(mw, test_merged_in_weak_key);
	suite_add_tcase(s, mw);
	return s;
}
