/* attach.c — heapwalk mark PID and heapwalk snapshot PID FILE: load the
 * agent (contrib/agent) into a running JVM with the attach mechanism's
 * `load` (hsattach.h), which runs the command and returns when it is
 * done; the agent writes one status line to a file we name. */
#include "cli/attach.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/hsattach.h"
#include "cli/hsdump.h"
#include "config.h"

/* The agent library: $HEAPWALK_AGENT, the build tree beside this
 * program, or the installed one. */
static int agent_path(char *out, size_t n, struct sbuf *err)
{
	const char *env = getenv("HEAPWALK_AGENT");
	char exe[PATH_MAX];
	ssize_t len;

	if (env != NULL && *env != '\0') {
		if (access(env, R_OK) != 0) {
			sbuf_printf(err, "HEAPWALK_AGENT=%s: %s", env, strerror(errno));
			return -1;
		}
		snprintf(out, n, "%s", env);
		return 0;
	}
	len = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (len > 0) {
		exe[len] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash != NULL && (size_t)(slash - exe) + 40 < n) {
			*slash = '\0';
			memcpy(out, exe, (size_t)(slash - exe));
			strcpy(out + (slash - exe), "/contrib/agent/libheapwalk-agent.so");
			if (access(out, R_OK) == 0)
				return 0;
		}
	}
	snprintf(out, n, "%s/libheapwalk-agent.so", PKGLIBDIR);
	if (access(out, R_OK) == 0)
		return 0;
	sbuf_printf(err, "the agent library is not installed (%s): build heapwalk with a JDK "
		    "(configure --with-jdk=DIR), or set HEAPWALK_AGENT", out);
	return -1;
}

/* A comma, which the agent's option list would take apart. */
static int unsafe_path(const char *s)
{
	return strchr(s, ',') != NULL;
}

/* What the JVM answered to `load` when the agent wrote no status: JDK 9
 * and later answer status 0 and "return code: N", N being what
 * Agent_OnAttach returned; a library that could not be loaded has a
 * nonzero status and says why. */
static void load_failure(long pid, int status, const char *out, const char *file, struct sbuf *err)
{
	const char *rc = "return code: ";

	if (status == 0 && strncmp(out, rc, strlen(rc)) == 0 && atoi(out + strlen(rc)) == 0) {
		sbuf_printf(err, "PID %ld: the agent ran but wrote no status to ", pid);
		esc_append(err, (const uint8_t *)file, strlen(file), 0);
		sbuf_adds(err, " (may the JVM's user write there?)");
	} else if (status == 0 && strncmp(out, rc, strlen(rc)) == 0)
		sbuf_printf(err, "PID %ld: the agent failed to start (Agent_OnAttach returned %d)", pid,
			    atoi(out + strlen(rc)));
	else {
		sbuf_printf(err, "PID %ld: the JVM did not load the agent (attach status %d): ", pid, status);
		hs_first_line(out, err);
	}
}

/* The agent's status line, at most one, from the file we made: read
 * by our own descriptor, whatever was put at its name since. */
static void read_status(int fd, char *line, size_t n)
{
	ssize_t r;

	while ((r = pread(fd, line, n - 1, 0)) < 0 && errno == EINTR)
		;
	line[r > 0 ? r : 0] = '\0';
	line[strcspn(line, "\n")] = '\0';
}

/* The agent's answer awaited this long at most, as HotSpot's own dump's
 * (HEAPWALK_SNAPSHOT_WALL). */
#define AGENT_WALL_S 1800

/* The agent's run given up on (no answer in time, or the JVM gone or
 * stopped meanwhile): under the lock on the status file fd, which the
 * agent takes to end its run (contrib/agent/agent.c: finish), the file
 * name removed from its /tmp (tmp), and the dump's partial file g's (if
 * a dump); an agent still running then finds its caller gone and keeps
 * nothing, and one not yet begun does nothing. GIVEN_UP then; DONE if
 * the agent had finished before the lock was ours (its "ok" line in the
 * file: its answer came just late; nothing removed). The lock is the
 * agent's for as long as a rename and a line take: a few tries over a
 * second; failing them the files are removed all the same, but should
 * the dump's file as last seen (g) be at its final name (final) by
 * then, the agent renamed it whole and was stopped before its line:
 * RENAMED, the file kept. */
enum { GIVEN_UP, DONE, RENAMED };
static int give_up(int fd, int tmp, const char *name, const struct hs_growth *g, const char *final)
{
	char line[8];
	int locked = 0, how = GIVEN_UP;

	for (int i = 0; i < 20 && !(locked = flock(fd, LOCK_EX | LOCK_NB) == 0); i++)
		usleep(50000);
	read_status(fd, line, sizeof line);
	if (locked && strncmp(line, "ok", 2) == 0)
		how = DONE;
	else if (g != NULL && final != NULL && hs_growth_is(g, final))
		how = RENAMED;
	if (how != DONE) {
		unlinkat(tmp, name, 0);
		if (g != NULL && how == GIVEN_UP)
			unlinkat(g->dir, g->name, 0);
	}
	if (locked)
		flock(fd, LOCK_UN);
	return how;
}

struct load { const char *lib, *command; struct hs_growth *g; const char *final; double wall_s; };

/* The load, as whoever may act in the JVM's /tmp (the JVM's own user:
 * see agent_run): the status file made there (its /tmp resolved inside
 * its root, the file by name in it, O_EXCL: a JVM in another mount
 * namespace has its own /tmp, whose links must not lead into ours), the
 * agent loaded, its line read back and the file removed, a signal
 * meanwhile too. 0 with the agent's "ok" text in out, or -1 with one
 * line in err. */
static int load_here(const struct proc_info *p, void *arg, struct sbuf *out, struct sbuf *err)
{
	const struct load *l = arg;
	char name[32], opts[PATH_MAX * 2 + 64], line[2048];
	struct sbuf ans;
	int fd = -1, rc, st = 0, tries = 0;
	int tmp = hs_jvm_tmp(p, err);

	if (tmp < 0)
		return -1;
	do {
		hs_fresh_name(name, sizeof name, "heapwalk-status-");
		fd = openat(tmp, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	} while (fd < 0 && errno == EEXIST && ++tries < 100);
	if (fd < 0) {
		sbuf_printf(err, "PID %ld: cannot make /tmp/%s in its /tmp: %s", (long)p->pid, name, strerror(errno));
		close(tmp);
		return -1;
	}
	int guarded = tmp_guard_at(tmp, name, 0) == 0;
	struct stat fst;
	if (fstat(fd, &fst) < 0)
		memset(&fst, 0, sizeof fst); /* not ours then, for the agent: it does nothing */
	/* the file's device and inode: the agent writes into this file only,
	 * not another put at its name once it is removed */
	snprintf(opts, sizeof opts, "status:%llu:%llu:/tmp/%s,%s", (unsigned long long)fst.st_dev,
		 (unsigned long long)fst.st_ino, name, l->command);
	const char *args[3] = { l->lib, "true", opts };
	sbuf_init(&ans);
	rc = hs_attach_shown(p, l->wall_s, l->g, "load", args, &st, &ans, err);
	int how = rc < 0 ? give_up(fd, tmp, name, l->g, l->final) : GIVEN_UP;
	if (how == DONE) {
		sbuf_reset(err); /* done as the wait ended: its line is there */
		rc = 0;
	} else if (how == RENAMED) { /* whole, renamed past the wall: its line not seen */
		sbuf_reset(err);
		hs_growth_end(l->g, 0);
		sbuf_adds(out, "dump ");
		esc_append(out, (const uint8_t *)l->command + 5, strlen(l->command + 5), 0);
		sbuf_printf(out, " finished past the wall (%.0f s, HEAPWALK_SNAPSHOT_WALL): written whole; "
			    "the agent's counts not read", l->wall_s);
		rc = 1;
	} else if (rc == HS_LATE) {
		int dump = strncmp(l->command, "dump:", 5) == 0;
		struct stat fin;
		sbuf_reset(err);
		hs_growth_end(l->g, 0);
		sbuf_printf(err, "PID %ld did not finish heapwalk's agent's %s in %.0f s (HEAPWALK_SNAPSHOT_WALL): "
			    "given up; ", (long)p->pid, dump ? "dump" : "mark", l->wall_s);
		if (dump && l->g != NULL && fstatat(l->g->dir, l->final, &fin, AT_SYMLINK_NOFOLLOW) == 0) {
			/* there, but not the file seen as FILE.tmp-PID: not vouched for */
			esc_append(err, (const uint8_t *)l->command + 5, strlen(l->command + 5), 0);
			sbuf_adds(err, " is there, but heapwalk never saw it written: not known to be whole");
		} else
			sbuf_adds(err, dump ? "nothing written (should the JVM still be writing it, the agent removes its "
					      "file when done)"
					    : "no mark made (should the JVM still make it, the agent undoes it when done)");
	}
	if (rc == 0) {
		read_status(fd, line, sizeof line);
		if (l->g != NULL && strncmp(line, "ok", 2) == 0) { /* renamed once whole */
			l->g->name = l->final;
			hs_growth_end(l->g, 1);
		}
		if (strncmp(line, "ok", 2) == 0) {
			const char *t = line[2] == ' ' ? line + 3 : line + 2;
			esc_append(out, (const uint8_t *)t, strlen(t), 0);
		} else if (strncmp(line, "error: ", 7) == 0) {
			sbuf_printf(err, "process %ld: the agent says: ", (long)p->pid);
			esc_append(err, (const uint8_t *)line + 7, strlen(line + 7), 0);
			rc = -1;
		} else {
			char shown[64];
			snprintf(shown, sizeof shown, "/tmp/%s", name);
			load_failure((long)p->pid, st, ans.buf ? ans.buf : "", shown, err);
			rc = -1;
		}
	}
	if (rc == 1)
		rc = 0;
	hs_growth_end(l->g, 0); /* a line left open ended, for the error's */
	hs_growth_close(l->g);
	unlinkat(tmp, name, 0);
	if (guarded)
		tmp_unguard_at(tmp, name);
	close(fd);
	close(tmp);
	sbuf_free(&ans);
	return rc;
}

/* agent_run, g's file (NULL: none) shown while the agent writes it, to
 * be renamed final. */
static int run(const struct proc_info *p, const char *command, struct hs_growth *g, const char *final,
	       struct sbuf *result, struct sbuf *err)
{
	char lib[PATH_MAX];

	if (p->kind != PROC_JVM)
		abort(); /* a bug: only a JVM is attached to */
	if (agent_path(lib, sizeof lib, err) < 0)
		return -2;
	/* a JVM in another mount namespace (a container) has its own files:
	 * the library must be the same file at the same path there */
	if (!hs_sees_as_we_do(p, lib)) {
		sbuf_printf(err, "PID %ld does not see heapwalk's agent ", (long)p->pid);
		esc_append(err, (const uint8_t *)lib, strlen(lib), 0);
		sbuf_adds(err, " as heapwalk does (another mount namespace: a container?), so it cannot load it");
		return -2;
	}
	struct load l = { lib, command, g, final, 0 };
	if (seconds_env("HEAPWALK_SNAPSHOT_WALL", AGENT_WALL_S, &l.wall_s, err) < 0)
		return -1;
	/* root and another user's JVM: that user's /tmp is theirs to plant
	 * symlinks in, so the status file is made, read and removed by a
	 * child of the JVM's uid and gid, and the agent writes it as them */
	if (geteuid() == 0 && p->uid != 0)
		return hs_as_user(p, load_here, &l, result, err);
	return load_here(p, &l, result, err);
}

int agent_run(const struct proc_info *p, const char *command, struct sbuf *result, struct sbuf *err)
{
	return run(p, command, NULL, NULL, result, err);
}

int agent_snapshot(const struct proc_info *p, const char *file, struct sbuf *result, struct sbuf *err)
{
	char abs[PATH_MAX], dir[PATH_MAX], cmd[PATH_MAX + 16];
	struct stat st;

	if (stat(file, &st) == 0) {
		sbuf_printf(err, "%s: exists; heapwalk snapshot does not overwrite", file);
		return -1;
	}
	/* the JVM has its own working directory: give it an absolute path */
	snprintf(dir, sizeof dir, "%s", file);
	char *slash = strrchr(dir, '/');
	const char *base = file;
	if (slash == dir) {
		dir[1] = '\0';
		base = file + 1;
	} else if (slash != NULL) {
		*slash = '\0';
		base = slash + 1;
	} else {
		snprintf(dir, sizeof dir, ".");
	}
	if (*base == '\0' || realpath(dir, abs) == NULL) {
		sbuf_printf(err, "%s: %s", file, *base ? strerror(errno) : "not a file name");
		return -1;
	}
	/* the agent writes the file as the JVM names it: its directory must
	 * be the one the user means */
	if (!hs_sees_as_we_do(p, abs)) {
		sbuf_printf(err, "PID %ld does not see the directory of ", (long)p->pid);
		esc_append(err, (const uint8_t *)file, strlen(file), 0);
		sbuf_adds(err, " as heapwalk does (another mount namespace: a container?), so its agent cannot write there");
		return -2;
	}
	if (strlen(abs) + strlen(base) + 2 > sizeof abs) {
		sbuf_printf(err, "%s: file name too long", file);
		return -1;
	}
	/* the file the agent writes, FILE.tmp-PID (its pid as it knows it),
	 * looked at in FILE's directory meanwhile */
	struct hs_growth g = { .pid = p->pid, .dir = open(abs, O_PATH | O_DIRECTORY | O_CLOEXEC), .held = -1, .uid = p->uid };
	char *tmp = xasprintf("%s.tmp-%ld", base, p->nspid);
	g.name = tmp;
	strcat(abs, strcmp(abs, "/") == 0 ? "" : "/");
	strcat(abs, base);
	int rc = -2;
	if (unsafe_path(abs))
		sbuf_printf(err, "%s: the agent's options cannot carry a file name with a comma", abs);
	else {
		snprintf(cmd, sizeof cmd, "dump:%s", abs);
		rc = run(p, cmd, g.dir >= 0 ? &g : NULL, base, result, err);
	}
	if (g.dir >= 0)
		close(g.dir);
	free(tmp);
	return rc;
}
