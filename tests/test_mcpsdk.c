/* test_mcpsdk.c — heapwalk mcp driven by a real client: the protocol's
 * official TypeScript SDK (@modelcontextprotocol/sdk from npm, which
 * contrib/setup.sh installs pinned into $HOME/.cache/heapwalk-tests/mcp-npm;
 * HEAPWALK_MCP_NPM names another node_modules) run by tests/mcp/client.mjs:
 * a leak hunt on the JVM dumps of tests/leaks-run.sh and on the V8
 * snapshots of tests/node/leaks.js, each answer against the command
 * line's JSON, the protocol's errors, paths out of the server's
 * directories. Skipped, in one line, without node or the SDK. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jsonck.h"
#include "suites.h"
#include "util.h"

#define MCPDIR TEST_BUILDDIR "/dumps/mcpsdk"

/* The node_modules holding the SDK, or NULL. */
static char *sdk_dir(void)
{
	const char *env = getenv("HEAPWALK_MCP_NPM");
	char *dir = env && *env ? xstrdup(env)
				: xasprintf("%s/.cache/heapwalk-tests/mcp-npm/node_modules", getenv("HOME") ? getenv("HOME") : "");
	char *pkg = xasprintf("%s/@modelcontextprotocol/sdk/package.json", dir);
	int ok = access(pkg, R_OK) == 0;

	free(pkg);
	if (!ok) {
		free(dir);
		return NULL;
	}
	return dir;
}

START_TEST(test_mcpsdk_hunt)
{
	char *sdk = sdk_dir();
	int st;

	if (!have("node") || sdk == NULL) {
		fprintf(stderr, "mcpsdk: %s: the MCP SDK client test is skipped (sh contrib/setup.sh test installs it)\n",
			!have("node") ? "node is not installed" : "no @modelcontextprotocol/sdk in $HEAPWALK_MCP_NPM or "
								  "~/.cache/heapwalk-tests/mcp-npm/node_modules");
		free(sdk);
		return;
	}
	const char *jvm = leaks_jvm_dir();
	/* the V8 snapshots of our own (the leaks suite remakes its own beside) */
	char *out = run("rm -rf " MCPDIR " && mkdir -p " MCPDIR "/v8 " MCPDIR "/scratch && node --expose-gc " TEST_SRCDIR
			"/node/leaks.js " MCPDIR "/v8", &st);
	ck_assert_msg(st == 0, "leaks.js: %s", out);
	free(out);
	char *cmd = xasprintf("node " TEST_SRCDIR "/mcp/client.mjs --heapwalk '%s' --sdk '%s' --jvm '%s' --v8 " MCPDIR
			      "/v8 --scratch " MCPDIR "/scratch 2>&1",
			      heapwalk(), sdk, jvm);
	out = run(cmd, &st);
	/* its last line: the result; the lines of the checks that failed
	 * on stderr, into the suite's log (Check's messages are short) */
	size_t n = strlen(out);
	while (n > 0 && out[n - 1] == '\n')
		out[--n] = '\0';
	char *last = strrchr(out, '\n');
	last = last ? last + 1 : out;
	const char *fail = strstr(out, "FAIL ");
	if (st != 0 || fail != NULL)
		fprintf(stderr, "mcpsdk: client.mjs said (status %d):\n%s\n", st, out);
	struct jv doc;
	char err[256];
	ck_assert_msg(json_parse(last, strlen(last), &doc, err, sizeof err) == 0, "%s: %.1000s", err, last);
	const struct jv *ok = jv_get(&doc, "ok"), *passed = jv_get(&doc, "passed"), *failed = jv_get(&doc, "failed");
	ck_assert_msg(ok != NULL && passed != NULL && failed != NULL, "%.1000s", last);
	ck_assert_msg(failed->u == 0 && ok->t == J_BOOL && ok->b && st == 0 && fail == NULL,
		      "client.mjs (status %d): %llu checks failed, the first: %.1000s", st,
		      (unsigned long long)failed->u, fail ? fail : last);
	/* every check ran: the hunts did not stop short */
	ck_assert_msg(passed->u >= 100, "only %llu checks passed", (unsigned long long)passed->u);
	jv_free(&doc);
	free(out);
	free(cmd);
	free(sdk);
}
END_TEST

Suite *mcpsdk_suite(void)
{
	Suite *s = suite_create("mcpsdk");
	TCase *tc = tcase_create("mcpsdk");

	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_mcpsdk_hunt);
	suite_add_tcase(s, tc);
	return s;
}
