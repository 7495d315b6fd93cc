/* fixtures.c — the dumps and programs that suites make at test time and
 * share: the JVM workloads' dumps, the agent's sessions, the .NET
 * workload. Each is made once per build directory, by whichever suite
 * asks first, under a lock of its own: suites running at once (make -j
 * check) wait for the one making it instead of making it again or
 * reading it half written. Those no build of heapwalk goes into (the
 * JVM workloads' dumps, the .NET workload's build) are made once for
 * every build whose tests name the same HEAPWALK_TEST_SHARED directory,
 * and copied (fixture_shared). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "suites.h"
#include "util.h"

#define DUMPS TEST_BUILDDIR "/dumps"
#define LOCKS DUMPS "/.fixtures"

/* Is the stamp there and no older than each of the files named? A file
 * that cannot be read (a missing agent) makes it stale. */
static int fresh(const char *stamp, va_list ap)
{
	struct stat s, d;
	const char *dep;

	if (stat(stamp, &s) != 0)
		return 0;
	while ((dep = va_arg(ap, const char *)) != NULL)
		if (stat(dep, &d) != 0 || d.st_mtime > s.st_mtime)
			return 0;
	return 1;
}

/* The command a stamp says made its fixture ("" for none, or a stamp
 * written before stamps held it), in buf. */
static void stamp_cmd(const char *stamp, char *buf, size_t n)
{
	FILE *f = fopen(stamp, "r");
	size_t got = f != NULL ? fread(buf, 1, n - 1, f) : 0;

	buf[got] = '\0';
	if (f != NULL)
		fclose(f);
}

/* Fixture `key`, made by the shell command cmd from the files after it
 * (NULL ends them): under an exclusive flock(2) of LOCKS/KEY.lock, unless
 * its stamp LOCKS/KEY.done is newer than them all, cmd runs and, on
 * success, the stamp is written, holding `what` (the command that makes
 * it here, whether or not through a shared directory: the same fixture
 * either way); the test fails when cmd does, and when the stamp holds
 * another: two suites that asked for one fixture made two ways would
 * each get the one the first suite to run made (a dump of another
 * workload: a test that passed or failed by the order the suites ran
 * in). The stamp goes first: a run killed halfway (a timeout) is made
 * again. The lock is closed on exec and dies with the process that
 * holds it. */
static void vfixture(const char *key, const char *what, const char *cmd, va_list deps)
{
	char lock[512], stamp[512];
	va_list ap;

	ck_assert_msg(system("mkdir -p " LOCKS) == 0, "cannot make " LOCKS);
	snprintf(lock, sizeof lock, LOCKS "/%s.lock", key);
	snprintf(stamp, sizeof stamp, LOCKS "/%s.done", key);
	int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	ck_assert_msg(fd >= 0, "%s: %s", lock, strerror(errno));
	double t0 = now_seconds();
	while (flock(fd, LOCK_EX) != 0)
		ck_assert_msg(errno == EINTR, "flock %s: %s", lock, strerror(errno));
	double t1 = now_seconds();
	va_copy(ap, deps);
	int ok = fresh(stamp, ap);
	va_end(ap);
	if (ok) {
		char made[4096];
		stamp_cmd(stamp, made, sizeof made);
		ck_assert_msg(made[0] == '\0' || strcmp(made, what) == 0,
			      "fixture %s: asked for as \"%s\", made before as \"%s\"", key, what, made);
		ok = made[0] != '\0'; /* a stamp without its command: made again, to hold it */
	}
	if (!ok) {
		unlink(stamp);
		ck_assert_msg(system(cmd) == 0, "%s failed", cmd);
		FILE *f = fopen(stamp, "w");
		ck_assert_msg(f != NULL && fputs(what, f) >= 0 && fclose(f) == 0, "cannot write %s", stamp);
		fprintf(stderr, "fixture %s: made in %.1f s\n", key, now_seconds() - t1);
	}
	if (t1 - t0 >= 1) /* another suite was making it */
		fprintf(stderr, "fixture %s: waited %.1f s for it\n", key, t1 - t0);
	close(fd); /* and the lock with it */
}

static void fixture(const char *key, const char *cmd, ...)
{
	va_list ap;

	va_start(ap, cmd);
	vfixture(key, cmd, cmd, ap);
	va_end(ap);
}

/* A fixture that no build of heapwalk goes into (a JVM workload's dump,
 * the .NET workload's build). Without HEAPWALK_TEST_SHARED, fixture(key,
 * own, files...). With it (contrib/setup.sh sets it for its -Werror and
 * sanitizer builds), tests/shared-fixture.sh makes it once for every
 * build that names that directory: the shell command make makes it in
 * $out (a directory of its own there, named by key and a hash of make,
 * of the files and of what version prints: the runtime's version), and
 * copy copies it from $out into this build's dumps. make, copy and
 * version hold no single quote. */
static void fixture_shared(const char *key, const char *own, const char *version, const char *make,
			   const char *copy, ...)
{
	const char *shared = getenv("HEAPWALK_TEST_SHARED");
	char cmd[4096];
	const char *dep;
	va_list ap;

	if (shared == NULL || *shared == '\0') {
		va_start(ap, copy);
		vfixture(key, own, own, ap);
		va_end(ap);
		return;
	}
	ck_assert(strchr(make, '\'') == NULL && strchr(copy, '\'') == NULL && strchr(version, '\'') == NULL);
	size_t n = (size_t)snprintf(cmd, sizeof cmd, "sh " TEST_SRCDIR "/shared-fixture.sh %s '%s' '%s' '%s'", key,
				    version, make, copy);
	va_start(ap, copy);
	while ((dep = va_arg(ap, const char *)) != NULL && n < sizeof cmd)
		n += (size_t)snprintf(cmd + n, sizeof cmd - n, " %s", dep);
	va_end(ap);
	ck_assert_msg(n < sizeof cmd, "fixture %s: its command is too long", key);
	va_start(ap, copy);
	vfixture(key, own, cmd, ap);
	va_end(ap);
}

/* the runtimes' versions, in a shared fixture's hash */
#define JAVA_VERSION "\"$JAVA\" -version"
#define DOTNET_VERSION "dotnet --version"

static void need_java(void)
{
	ck_assert_msg(getenv("JAVA") && *getenv("JAVA"), "JAVA is not set: the JDK is a test dependency");
}

static const char *need_agent(void)
{
	const char *agent = getenv("HEAPWALK_AGENT");

	ck_assert_msg(agent && *agent, "HEAPWALK_AGENT is not set: configure found no JDK headers");
	return agent;
}

void workload_dump(const char *workload, const char *name, const char *jvmopts, char *path, size_t n)
{
	char src[512], cmd[1024], make[1024], copy[1024], key[128];

	snprintf(path, n, DUMPS "/%s.hprof", name);
	snprintf(src, sizeof src, TEST_SRCDIR "/java/%s.java", workload);
	snprintf(key, sizeof key, "dump-%s", name);
	need_java();
	snprintf(cmd, sizeof cmd, "WORKLOAD=%s DUMP_NAME=%s sh " TEST_SRCDIR "/gen-dump.sh " DUMPS " %s >/dev/null",
		 workload, name, jvmopts);
	/* shared: made in one directory for every workload (its classes
	 * compiled once), then moved to its own: NAME.hprof, .histo, .log */
	snprintf(make, sizeof make, "WORKLOAD=%s DUMP_NAME=%s sh " TEST_SRCDIR "/gen-dump.sh \"$HEAPWALK_TEST_SHARED/jvm\" "
		 "%s >/dev/null && mv \"$HEAPWALK_TEST_SHARED/jvm/%s\".hprof \"$HEAPWALK_TEST_SHARED/jvm/%s\".histo "
		 "\"$HEAPWALK_TEST_SHARED/jvm/%s\".log \"$out\"/", workload, name, jvmopts, name, name, name);
	snprintf(copy, sizeof copy, "mkdir -p " DUMPS " && cp -p \"$out\"/* " DUMPS "/");
	fixture_shared(key, cmd, JAVA_VERSION, make, copy, src, TEST_SRCDIR "/gen-dump.sh", (char *)NULL);
}

void ensure_dump(const char *name, const char *jvmopts)
{
	char path[512];

	workload_dump("Workload", name, jvmopts, path, sizeof path);
}

/* DUMPS/agent-NAME: one JVM session of agent-run.sh. */
static void agent_run(const char *name, const char *mode, const char *jvmopts, char *dir, size_t n)
{
	char cmd[2048], key[64];
	const char *agent = need_agent();

	snprintf(dir, n, DUMPS "/agent-%s", name);
	snprintf(key, sizeof key, "agent-%s", name);
	snprintf(cmd, sizeof cmd, "sh " TEST_SRCDIR "/agent-run.sh %s %s %s", dir, mode, jvmopts);
	fixture(key, cmd, TEST_SRCDIR "/java/Marked.java", agent, (char *)NULL);
}

void agent_session(char *dir, size_t n)
{
	agent_run("attach", "attach", "", dir, n);
}

void agent_start_session(char *dir, size_t n)
{
	agent_run("start", "start", "-XX:+UseSerialGC -XX:-UseCompressedOops", dir, n);
}

#define LEAKS DUMPS "/leaks"

const char *leaks_jvm_dir(void)
{
	const char *agent = need_agent();

	need_java();
	fixture("leaks", "sh " TEST_SRCDIR "/leaks-run.sh " LEAKS, TEST_SRCDIR "/java/Leaky.java", TEST_SRCDIR "/leaks-run.sh", agent,
		(char *)NULL);
	return LEAKS;
}

#define ALLOC DUMPS "/alloc"

const char *alloc_dump(void)
{
	const char *agent = need_agent();

	fixture("alloc", "sh " TEST_SRCDIR "/alloc-run.sh " ALLOC, TEST_SRCDIR "/java/Matched.java", agent,
		(char *)NULL);
	return ALLOC "/s.hprof";
}

#define MATCH DUMPS "/match"

const char *matched_dumps_dir(void)
{
	need_java();
	fixture_shared("match", "sh " TEST_SRCDIR "/match-run.sh " MATCH, JAVA_VERSION,
		       "sh " TEST_SRCDIR "/match-run.sh \"$out/d\"", "rm -rf " MATCH " && cp -Rp \"$out/d\" " MATCH,
		       TEST_SRCDIR "/java/Matched.java", TEST_SRCDIR "/match-run.sh", TEST_SRCDIR "/jvm-lib.sh",
		       (char *)NULL);
	return MATCH;
}

#define MUTATED DUMPS "/mutated"

const char *mutated_dumps_dir(void)
{
	const char *agent = need_agent();

	need_java();
	fixture("mutated", "sh " TEST_SRCDIR "/mutated-run.sh " MUTATED, TEST_SRCDIR "/java/Mutated.java",
		TEST_SRCDIR "/mutated-run.sh", TEST_SRCDIR "/jvm-lib.sh", agent, (char *)NULL);
	return MUTATED;
}

#define REFS DUMPS "/refs"

const char *refs_dump(void)
{
	need_java();
	fixture_shared("refs", "sh " TEST_SRCDIR "/refs-run.sh " REFS, JAVA_VERSION,
		       "sh " TEST_SRCDIR "/refs-run.sh \"$out/d\"", "rm -rf " REFS " && cp -Rp \"$out/d\" " REFS,
		       TEST_SRCDIR "/java/Refs.java", TEST_SRCDIR "/refs-run.sh", TEST_SRCDIR "/jvm-lib.sh", (char *)NULL);
	return REFS "/refs.hprof";
}

const char *locals_dump(void)
{
	static char path[512];

	workload_dump("Locals", "locals", "-Xmx64m", path, sizeof path);
	return path;
}

#define GZDIR DUMPS "/gz"

const char *gz_dumps(void)
{
	need_java();
	fixture_shared("gz", "sh " TEST_SRCDIR "/gz-dump.sh " GZDIR, JAVA_VERSION,
		       "sh " TEST_SRCDIR "/gz-dump.sh \"$out/d\"", "rm -rf " GZDIR " && cp -Rp \"$out/d\" " GZDIR,
		       TEST_SRCDIR "/java/Workload.java", TEST_SRCDIR "/gz-dump.sh", TEST_SRCDIR "/jvm-lib.sh",
		       (char *)NULL);
	return GZDIR;
}

#define DNDIR DUMPS "/dotnet"

int dotnet_workload(void)
{
	if (!have("dotnet")) {
		fprintf(stderr, "dotnet is not installed: the live .NET tests are skipped "
				"(the recorded traces in tests/dotnet are read all the same)\n");
		return 0;
	}
	fixture_shared("dotnet", "rm -rf " DNDIR " && mkdir -p " DNDIR "/src && cp " TEST_SRCDIR "/dotnet/Program.cs "
		       TEST_SRCDIR "/dotnet/Workload.csproj " DNDIR "/src/ && cd " DNDIR "/src && "
		       "DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 dotnet build -c Release -o ../out "
		       "> ../build.log 2>&1", DOTNET_VERSION,
		       "mkdir -p \"$out/d/src\" && cp " TEST_SRCDIR "/dotnet/Program.cs " TEST_SRCDIR "/dotnet/Workload.csproj "
		       "\"$out/d/src/\" && cd \"$out/d/src\" && DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 "
		       "dotnet build -c Release -o ../out > ../build.log 2>&1",
		       "rm -rf " DNDIR " && cp -Rp \"$out/d\" " DNDIR, TEST_SRCDIR "/dotnet/Program.cs",
		       TEST_SRCDIR "/dotnet/Workload.csproj", (char *)NULL);
	return 1;
}

#define DN8DIR DUMPS "/dotnet8"
/* The workload for .NET 8 (a runtime before .NET 9, whose diagnostics
 * server knows no CollectTracing4; still common), published with its
 * runtime (self-contained, from NuGet's runtime pack: no .NET 8 need be
 * installed): DN8DIR/out/Workload; 0 (said) when it cannot be. */
#define DN8_MAKE(d)                                                                                                 \
	"mkdir -p " d "/src && cp " TEST_SRCDIR "/dotnet/Program.cs " TEST_SRCDIR "/dotnet/Workload.csproj " d       \
	"/src/ && cd " d "/src && export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 && dotnet restore -r "     \
	"linux-x64 -p:TargetFramework=net8.0 > ../build.log 2>&1 && dotnet publish --no-restore -c Release -r "   \
	"linux-x64 --self-contained -p:TargetFramework=net8.0 -o ../out >> ../build.log 2>&1 || rm -rf " d "/out"

int dotnet8_workload(void)
{
	if (!have("dotnet")) {
		fprintf(stderr, "dotnet is not installed: the live .NET 8 test is skipped\n");
		return 0;
	}
	fixture_shared("dotnet8", "rm -rf " DN8DIR " && " DN8_MAKE(DN8DIR), DOTNET_VERSION, DN8_MAKE("\"$out/d\""),
		       "rm -rf " DN8DIR " && cp -Rp \"$out/d\" " DN8DIR, TEST_SRCDIR "/dotnet/Program.cs",
		       TEST_SRCDIR "/dotnet/Workload.csproj", (char *)NULL);
	if (access(DN8DIR "/out/Workload", X_OK) != 0) {
		fprintf(stderr, "the .NET workload could not be published for .NET 8 (see " DN8DIR
				"/build.log; its runtime pack comes from NuGet): the live .NET 8 test is skipped\n");
		return 0;
	}
	return 1;
}
