/* attach.c — heapwalk mark PID and heapwalk snapshot PID FILE: load the
 * agent (contrib/agent) into a running JVM with `jcmd PID
 * JVMTI.agent_load`, which runs the command and returns when it is done;
 * the agent writes one status line to a file we name. */
#include "cli/attach.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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

/* Run argv, its standard output and error into *out; its exit status
 * (127 with no output: it could not be run), or -1 if no process. */
static int run_capture(char *const argv[], struct sbuf *out)
{
	int fd[2], st;
	pid_t pid;
	char buf[4096];
	ssize_t r;

	if (pipe(fd) < 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return -1;
	}
	if (pid == 0) {
		int nul = open("/dev/null", O_RDONLY);
		if (nul >= 0)
			dup2(nul, 0);
		dup2(fd[1], 1);
		dup2(fd[1], 2);
		close(fd[0]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(fd[1]);
	while ((r = read(fd[0], buf, sizeof buf)) > 0 || (r < 0 && errno == EINTR))
		if (r > 0)
			sbuf_add(out, buf, (size_t)r);
	close(fd[0]);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* jcmd's complaint for a one-line error: the first line that is not its
 * "PID:" heading nor a stack frame ("java.io.IOException: No such
 * process", "...AttachNotSupportedException: Unable to open socket..."). */
static void complaint(const char *s, const char *pid, struct sbuf *out)
{
	size_t plen = strlen(pid);

	for (const char *line = s; *line;) {
		const char *end = strchr(line, '\n');
		size_t n = end ? (size_t)(end - line) : strlen(line);
		while (n > 0 && (line[n - 1] == '\r' || line[n - 1] == ' '))
			n--;
		int heading = n == plen + 1 && strncmp(line, pid, plen) == 0 && line[plen] == ':';
		if (n > 0 && !heading && line[0] != '\t' && line[0] != ' ') {
			esc_append(out, (const uint8_t *)line, n, 0);
			return;
		}
		if (end == NULL)
			break;
		line = end + 1;
	}
	sbuf_adds(out, "no message");
}

/* Characters jcmd's argument parser or the agent's option list would
 * take apart. */
static int unsafe_path(const char *s)
{
	return strpbrk(s, ", \t\n\"'=") != NULL;
}

int agent_run(const struct proc_info *p, const char *command, struct sbuf *result, struct sbuf *err)
{
	char lib[PATH_MAX], status[PATH_MAX], opts[PATH_MAX * 2 + 64], pid[24];
	const char *jcmd = getenv("JCMD");
	const char *tmp = getenv("TMPDIR");
	struct sbuf out;
	int fd, rc;

	if (p->kind != PROC_JVM)
		abort(); /* a bug: jcmd would signal whatever it is */
	snprintf(pid, sizeof pid, "%ld", (long)p->pid);
	if (agent_path(lib, sizeof lib, err) < 0)
		return -1;
	if (unsafe_path(lib)) {
		sbuf_printf(err, "%s: the agent's path holds a character jcmd cannot pass (comma, space, quote, '=')", lib);
		return -1;
	}
	if (jcmd == NULL || *jcmd == '\0')
		jcmd = "jcmd";
	snprintf(status, sizeof status, "%s/heapwalk-status-XXXXXX", tmp && *tmp && !unsafe_path(tmp) ? tmp : "/tmp");
	fd = mkstemp(status);
	if (fd < 0) {
		sbuf_printf(err, "%s: %s", status, strerror(errno));
		return -1;
	}
	close(fd);
	snprintf(opts, sizeof opts, "status:%s,%s", status, command);
	char *argv[] = { (char *)jcmd, (char *)pid, "JVMTI.agent_load", lib, opts, NULL };
	sbuf_init(&out);
	/* the identification is as old as the agent's path lookup and the
	 * status file: the process is checked again just before jcmd, which
	 * signals what has no attach socket */
	if (proc_same(p, err) < 0) {
		unlink(status);
		sbuf_free(&out);
		return -1;
	}
	rc = run_capture(argv, &out);
	if (rc == -1 || (rc == 127 && out.len == 0)) {
		sbuf_printf(err, "cannot run %s: install a JDK (Debian: openjdk-17-jdk-headless) or set JCMD", jcmd);
		rc = -1;
	} else {
		FILE *f = fopen(status, "r");
		char line[2048] = "";
		if (f != NULL) {
			if (fgets(line, sizeof line, f) == NULL)
				line[0] = '\0';
			fclose(f);
		}
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, "ok", 2) == 0) {
			sbuf_adds(result, line[2] == ' ' ? line + 3 : line + 2);
			rc = 0;
		} else if (strncmp(line, "error: ", 7) == 0) {
			sbuf_printf(err, "process %s: the agent says: ", pid);
			esc_append(err, (const uint8_t *)line + 7, strlen(line + 7), 0);
			rc = -1;
		} else {
			/* jcmd's own complaint: no such process, attach refused, ... */
			sbuf_printf(err, "process %s: jcmd JVMTI.agent_load failed (exit %d): ", pid, rc);
			complaint(out.buf ? out.buf : "", pid, err);
			rc = -1;
		}
	}
	unlink(status);
	sbuf_free(&out);
	return rc;
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
	if (strlen(abs) + strlen(base) + 2 > sizeof abs) {
		sbuf_printf(err, "%s: file name too long", file);
		return -1;
	}
	strcat(abs, strcmp(abs, "/") == 0 ? "" : "/");
	strcat(abs, base);
	if (unsafe_path(abs)) {
		sbuf_printf(err, "%s: jcmd cannot pass a file name with a comma, space, quote or '='", abs);
		return -1;
	}
	snprintf(cmd, sizeof cmd, "dump:%s", abs);
	return agent_run(p, cmd, result, err);
}
