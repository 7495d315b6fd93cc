/* proc.c — what a process is, read from /proc, before anything touches
 * it (proc.h). A runtime is known by the library it has mapped, never
 * by its name, which any program may take: HotSpot's libjvm.so, the .NET
 * runtime's libcoreclr.so, Node's libnode.so or, for a Node built into
 * its executable, what that file holds; a .NET runtime built into its
 * executable (a single-file app) by that file's bundle marker and the
 * diagnostics socket the kernel says it listens on (singlefile.h). Everything the process says of itself (its
 * executable's path) is escaped before it is shown. */
#include "cli/proc.h"
#include "cli/dotnet.h"
#include "cli/singlefile.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* What /proc/PID/status says. */
struct status {
	long tgid, nspid;
	char state;
	uid_t uid[3]; /* real, effective, saved */
	gid_t gid[3];
	unsigned long long caught, ignored;
};

/* The file into buf (NUL-terminated): its length, or -1 with errno. */
static ssize_t read_small(const char *path, char *buf, size_t n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t len = 0, r;

	if (fd < 0)
		return -1;
	while ((size_t)len < n - 1 && (r = read(fd, buf + len, n - 1 - (size_t)len)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			close(fd);
			errno = e;
			return -1;
		}
		len += r;
	}
	close(fd);
	buf[len] = '\0';
	return len;
}

/* The value of "Key:" in status text, or "" if absent. */
static const char *field(const char *s, const char *key)
{
	size_t n = strlen(key);

	for (const char *l = s; l != NULL; l = strchr(l, '\n')) {
		l += *l == '\n';
		if (strncmp(l, key, n) == 0 && l[n] == ':')
			return l + n + 1 + strspn(l + n + 1, " \t");
	}
	return "";
}

static int read_status(pid_t pid, struct status *st)
{
	char path[64], buf[16384];
	unsigned long u[3] = { 0, 0, 0 }, g[3] = { 0, 0, 0 };

	snprintf(path, sizeof path, "/proc/%ld/status", (long)pid);
	if (read_small(path, buf, sizeof buf) < 0)
		return -1;
	st->tgid = strtol(field(buf, "Tgid"), NULL, 10);
	st->state = field(buf, "State")[0];
	sscanf(field(buf, "Uid"), "%lu %lu %lu", &u[0], &u[1], &u[2]);
	sscanf(field(buf, "Gid"), "%lu %lu %lu", &g[0], &g[1], &g[2]);
	for (int i = 0; i < 3; i++) {
		st->uid[i] = (uid_t)u[i];
		st->gid[i] = (gid_t)g[i];
	}
	st->caught = strtoull(field(buf, "SigCgt"), NULL, 16);
	st->ignored = strtoull(field(buf, "SigIgn"), NULL, 16);
	/* NSpid: the pid in each namespace, the process's own last; HotSpot
	 * names its attach socket by that one */
	const char *ns = field(buf, "NSpid"), *last = ns;
	for (const char *q = ns; *q && *q != '\n'; q++)
		if ((*q == ' ' || *q == '\t') && q[1] >= '0' && q[1] <= '9')
			last = q + 1;
	st->nspid = *ns ? strtol(last, NULL, 10) : (long)pid;
	return 0;
}

/* Field 22 of /proc/PID/stat, counted after the name's closing
 * parenthesis (a name may hold spaces and parentheses): 0 if unread. */
static unsigned long long start_time(pid_t pid)
{
	char path[64], buf[4096];
	unsigned long long v = 0;

	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	if (read_small(path, buf, sizeof buf) < 0 || strrchr(buf, ')') == NULL)
		return 0;
	const char *p = strrchr(buf, ')') + 1;
	for (int f = 3; f < 22 && p != NULL; f++) /* p is at the blank before field f */
		p = strchr(p + 1, ' ');
	if (p != NULL)
		v = strtoull(p + 1, NULL, 10);
	return v;
}

void proc_user(struct sbuf *out, uid_t uid)
{
	struct passwd *pw = getpwuid(uid);

	if (pw != NULL)
		esc_append(out, (const uint8_t *)pw->pw_name, strlen(pw->pw_name), 0);
	else
		sbuf_adds(out, "?");
}

/* What the process runs, escaped: its executable, or [its name] (a
 * kernel thread has no executable). */
static void what_it_is(pid_t pid, struct sbuf *out)
{
	char path[64], buf[4096];
	ssize_t n;

	snprintf(path, sizeof path, "/proc/%ld/exe", (long)pid);
	n = readlink(path, buf, sizeof buf);
	if (n > 0) {
		esc_append(out, (const uint8_t *)buf, (size_t)n, 0);
		return;
	}
	snprintf(path, sizeof path, "/proc/%ld/comm", (long)pid);
	n = read_small(path, buf, sizeof buf);
	while (n > 0 && buf[n - 1] == '\n')
		n--;
	sbuf_addc(out, '[');
	esc_append(out, (const uint8_t *)buf, n > 0 ? (size_t)n : 0, 0);
	sbuf_addc(out, ']');
}

enum { MAP_JVM = 1, MAP_J9 = 2, MAP_CORECLR = 4, MAP_PERF = 8, MAP_PERF_GONE = 16, MAP_NODE = 32 };

/* A maps line's file: its device, inode and path (NULL if anonymous). */
struct mapped_file { unsigned maj, min; unsigned long long ino; const char *path; };

static int map_file(const char *line, struct mapped_file *m)
{
	m->path = strchr(line, '/');
	return m->path != NULL && sscanf(line, "%*s %*s %*s %x:%x %llu", &m->maj, &m->min, &m->ino) == 3;
}

int proc_root_open(pid_t pid, const char *path, int flags, int no_symlinks)
{
	char root[64];
	int e;

	snprintf(root, sizeof root, "/proc/%ld/root", (long)pid);
	int rfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rfd < 0)
		return -1;
	struct open_how how = {
		.flags = (unsigned long long)(flags | O_CLOEXEC),
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS | (no_symlinks ? RESOLVE_NO_SYMLINKS : 0),
	};
	while (*path == '/')
		path++;
#ifdef SYS_openat2
	int fd = (int)syscall(SYS_openat2, rfd, *path ? path : ".", &how, sizeof how);
#else
	int fd = -1;
	errno = ENOSYS;
#endif
	e = errno;
	close(rfd);
	errno = e;
	return fd;
}

/* The mapped file of a maps line as the process sees it, opened for
 * reading if it is the very file mapped (a regular file, the device and
 * inode the line says): inside the process's root, no symbolic link
 * followed, first without opening it (O_PATH: no device is opened, no
 * FIFO waited on), then again through our own descriptor. -1 if not. */
static int open_mapped(pid_t pid, const struct mapped_file *m, size_t len)
{
	char path[4200];
	struct stat sb;

	if (len >= sizeof path)
		return -1;
	snprintf(path, sizeof path, "%.*s", (int)len, m->path);
	int pfd = proc_root_open(pid, path, O_PATH | O_NOFOLLOW, 1);
	if (pfd < 0)
		return -1;
	int fd = -1;
	if (fstat(pfd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_ino == m->ino && major(sb.st_dev) == m->maj &&
	    minor(sb.st_dev) == m->min) {
		snprintf(path, sizeof path, "/proc/self/fd/%d", pfd);
		fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	}
	close(pfd);
	return fd;
}

/* Is the line's file HotSpot's performance data of this JVM,
 * /tmp/hsperfdata_USER/NSPID as the JVM names it? HotSpot maps that
 * file for as long as it runs (perfMemory_linux.cpp), so a process that
 * maps one whose header is HotSpot's and that is the very file mapped
 * (its device and inode), owned by the process's user, is a HotSpot JVM,
 * whatever else may map a file named libjvm.so. A /tmp cleaner may have
 * removed the file since: its line then ends " (deleted)", and the
 * mapping is still the very file. 1 if so, 0 if not, 2 for a removed
 * file of that name that map_files would not open (heapwalk without
 * CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE): not told. */
static int perf_data(pid_t pid, const struct status *st, const char *line)
{
	static const char gone[] = " (deleted)";
	struct mapped_file m;
	char want[32], path[4200];
	uint8_t head[8];
	struct stat sb;

	if (!map_file(line, &m))
		return 0;
	size_t len = strcspn(m.path, "\n"), g = sizeof gone - 1;
	int deleted = len > g && memcmp(m.path + len - g, gone, g) == 0;
	len -= deleted ? g : 0;
	const char *end = m.path + len, *base = end;
	while (base > m.path && base[-1] != '/')
		base--;
	snprintf(want, sizeof want, "%ld", st->nspid);
	if (base == m.path || (size_t)(end - base) != strlen(want) || memcmp(base, want, strlen(want)) != 0)
		return 0;
	const char *dir = base - 1;
	while (dir > m.path && dir[-1] != '/')
		dir--;
	if (strncmp(dir, "hsperfdata_", 11) != 0)
		return 0;
	/* the very file mapped, by /proc/PID/map_files (it needs
	 * CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE: root in a container may
	 * have neither); else the file as the JVM sees it, resolved inside
	 * its root with no link followed, if it is the very file mapped (a
	 * removed one cannot be) */
	snprintf(path, sizeof path, "/proc/%ld/map_files/%.*s", (long)pid, (int)strcspn(line, " "), line);
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 && !deleted)
		fd = open_mapped(pid, &m, len);
	if (fd < 0)
		return deleted ? 2 : 0;
	int ok = fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_uid == st->uid[1] && sb.st_ino == m.ino &&
		 major(sb.st_dev) == m.maj && minor(sb.st_dev) == m.min && read(fd, head, sizeof head) == 8 &&
		 memcmp(head, "\xca\xfe\xc0\xc0", 4) == 0 && head[4] <= 1 && head[5] == 2;
	close(fd);
	return ok;
}

/* Does a maps line map a file whose base name is lib? A file replaced
 * since (a JDK upgraded under a running JVM) reads "... (deleted)".
 * With versioned, lib.N... too (libnode.so.115). */
static int maps_lib(const char *line, const char *lib, int versioned)
{
	const char *slash = strrchr(line, '/');
	size_t n = strlen(lib);

	if (slash == NULL || strncmp(slash + 1, lib, n) != 0)
		return 0;
	const char *rest = slash + 1 + n;
	if (versioned && rest[0] == '.' && rest[1] >= '0' && rest[1] <= '9')
		rest += strspn(rest, ".0123456789");
	return strcmp(rest, "\n") == 0 || strcmp(rest, " (deleted)\n") == 0;
}

/* The runtimes' libraries the process has mapped (MAP_*, and MAP_PERF
 * for HotSpot's performance data), or -1 with errno. */
static int mapped(pid_t pid, const struct status *st)
{
	char path[64];
	char *line = NULL;
	size_t cap = 0;
	int libs = 0;

	snprintf(path, sizeof path, "/proc/%ld/maps", (long)pid);
	FILE *f = fopen(path, "re");
	if (f == NULL)
		return -1;
	while (getline(&line, &cap, f) > 0) {
		libs |= maps_lib(line, "libjvm.so", 0) ? MAP_JVM : 0;
		libs |= maps_lib(line, "libj9vm29.so", 0) ? MAP_J9 : 0;
		libs |= maps_lib(line, "libcoreclr.so", 0) ? MAP_CORECLR : 0;
		libs |= maps_lib(line, "libnode.so", 1) ? MAP_NODE : 0;
		int perf = !(libs & MAP_PERF) && strstr(line, "/hsperfdata_") ? perf_data(pid, st, line) : 0;
		libs |= perf == 1 ? MAP_PERF : perf == 2 ? MAP_PERF_GONE : 0;
	}
	free(line);
	fclose(f);
	return libs;
}

/* Is the file the process runs on a FUSE mount (its mapping's device
 * in /proc/PID/maps, that device's file system in mountinfo)? Its
 * daemon may be stalled, and then opening or reading it never returns:
 * not opened. Told from /proc alone, which no daemon answers. */
static int exe_on_fuse(pid_t pid)
{
	char path[64], exe[4096], *line = NULL;
	size_t cap = 0;
	unsigned maj = 0, min = 0;
	int found = 0, fuse = 0;

	snprintf(path, sizeof path, "/proc/%ld/exe", (long)pid);
	ssize_t n = readlink(path, exe, sizeof exe - 1);
	if (n <= 0)
		return 0;
	exe[n] = '\0';
	snprintf(path, sizeof path, "/proc/%ld/maps", (long)pid);
	FILE *f = fopen(path, "re");
	while (f != NULL && !found && getline(&line, &cap, f) > 0) {
		int at = 0;
		if (sscanf(line, "%*s %*s %*s %x:%x %*u %n", &maj, &min, &at) == 2 && at > 0 &&
		    strncmp(line + at, exe, (size_t)n) == 0 && (line[at + n] == '\n' || line[at + n] == ' '))
			found = 1;
	}
	if (f != NULL)
		fclose(f);
	snprintf(path, sizeof path, "/proc/%ld/mountinfo", (long)pid);
	f = found ? fopen(path, "re") : NULL;
	while (f != NULL && !fuse && getline(&line, &cap, f) > 0) {
		unsigned a, b;
		const char *dash = strstr(line, " - ");
		if (sscanf(line, "%*u %*u %u:%u", &a, &b) == 2 && a == maj && b == min && dash != NULL)
			fuse = strncmp(dash + 3, "fuse", 4) == 0;
	}
	if (f != NULL)
		fclose(f);
	free(line);
	return fuse;
}

#define NODE_EXE_MIN (8u << 20)   /* bytes: a Node with V8 built in is tens of MB */
#define NODE_EXE_MAX (1u << 30)
#define SCAN_CHUNK (4u << 20)

/* Is the process's executable a Node binary with Node built in (as
 * nodejs.org's, statically)? Not its name, which a renamed program
 * takes: what the file holds, both of the inspector's line that answers
 * SIGUSR1 and N-API's table that Node exports to its addons, and not
 * Deno's cache variable, DENO_DIR (Deno has both of the others). Only
 * a file of a plausible size, not on FUSE, read in chunks until all is
 * known. */
static int node_binary(pid_t pid)
{
	static const char *const marks[] = { "Debugger listening on ", "napi_create_reference", "DENO_DIR" };
	enum { NMARKS = 3, OVERLAP = 64 };
	char path[64];
	struct stat st;
	int seen[NMARKS] = { 0 };

	if (exe_on_fuse(pid))
		return 0;
	snprintf(path, sizeof path, "/proc/%ld/exe", (long)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < (off_t)NODE_EXE_MIN ||
	    st.st_size > (off_t)NODE_EXE_MAX) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	char *buf = xmalloc(SCAN_CHUNK + OVERLAP);
	size_t keep = 0;
	off_t off = 0;
	ssize_t r;
	/* to the end: DENO_DIR may come after the other two */
	while ((r = pread(fd, buf + keep, SCAN_CHUNK, off)) > 0) {
		size_t len = keep + (size_t)r;
		for (int i = 0; i < NMARKS; i++)
			seen[i] |= memmem(buf, len, marks[i], strlen(marks[i])) != NULL;
		if (seen[2])
			break;
		keep = len < OVERLAP ? len : OVERLAP;
		memmove(buf, buf + len - keep, keep);
		off += r;
	}
	free(buf);
	close(fd);
	return seen[0] && seen[1] && !seen[2];
}

/* Is the JVM's attach socket /tmp/.java_pidNSPID there (in its root, its
 * links resolved inside it)? */
static int has_socket(pid_t pid, const struct status *st)
{
	char sock[64];
	struct stat sb;

	snprintf(sock, sizeof sock, "/tmp/.java_pid%ld", st->nspid);
	int fd = proc_root_open(pid, sock, O_PATH | O_NOFOLLOW, 0);
	int is = fd >= 0 && fstat(fd, &sb) == 0 && S_ISSOCK(sb.st_mode);
	if (fd >= 0)
		close(fd);
	return is;
}

/* One attaches through the JVM's socket /tmp/.java_pidNSPID; when that
 * is not there one sends SIGQUIT, which HotSpot takes as the request to
 * make it, and which kills a JVM that does not handle it (-Xrs, or one
 * still starting). */
static int attach_safe(pid_t pid, const struct status *st)
{
	unsigned long long quit = 1ull << (SIGQUIT - 1);

	return ((st->caught | st->ignored) & quit) || has_socket(pid, st);
}

static long parse_pid(const char *s)
{
	long v = 0;

	if (*s == '\0' || strlen(s) > 9)
		return -1;
	for (const char *q = s; *q; q++) {
		if (*q < '0' || *q > '9')
			return -1;
		v = v * 10 + (*q - '0');
	}
	return v > 0 ? v : -1;
}

/* Another user's: heapwalk's user is not root and not each of the
 * process's users (as the kernel asks before it lets one process read
 * another). */
static int foreign(const struct status *st)
{
	uid_t me = geteuid();

	return me != 0 && (st->uid[0] != me || st->uid[1] != me || st->uid[2] != me);
}

/* A self-contained single-file .NET app: its runtime linked into its
 * executable, no libcoreclr.so mapped. Known by both of what the kernel
 * says of it: its executable (the file mapped) is a .NET bundle, and
 * the process itself holds the listening socket its runtime names for
 * it, dotnet-diagnostic-NSPID-START-socket (its own pid and start time:
 * no other process's name), bound to the very path heapwalk connects to
 * (its TMPDIR's: dotnet_socket_bound), as sock_diag reports it
 * (singlefile.h). 1 if so; 0 if not; -1 with one line in err when its
 * executable is a bundle (or too big to tell) and why it is not known
 * for one can be said. */
static int single_file(pid_t pid, const struct status *st, unsigned long long start, struct sbuf *err)
{
	struct sbuf path, why;
	int bundle = sf_bundle(pid), rc = -1;

	if (bundle == 0)
		return 0;
	if (bundle == SF_TOO_BIG) {
		sbuf_printf(err, "PID %ld is not a JVM, .NET or Node process (it is ", (long)pid);
		what_it_is(pid, err);
		sbuf_printf(err, "): its executable's writable data passes %u MiB, not read further for a .NET "
			    "single-file bundle's marker", SF_READ_MAX >> 20);
		return -1;
	}
	sbuf_init(&path);
	sbuf_init(&why);
	if (dotnet_socket_bound(pid, st->nspid, start, &path, &why) < 0) {
		sbuf_printf(err, "%s (its executable is a .NET single-file bundle)", why.buf);
		goto out;
	}
	int how = sf_listens(pid, path.buf);
	if (how == SF_LISTENS) {
		rc = 1;
		goto out;
	}
	sbuf_printf(err, "PID %ld's executable is a .NET single-file bundle, but ", (long)pid);
	if (how == SF_NETNS)
		sbuf_adds(err, "it is in another network namespace, whose sockets sock_diag does not show: its "
			       "diagnostics socket cannot be told for its own (run heapwalk in that namespace)");
	else {
		sbuf_adds(err, how == SF_ELSEWHERE ? "the socket it holds by its diagnostics socket's name is bound "
						     "elsewhere (inherited or received: not its runtime's), not to "
						   : "it holds no listening socket bound to ");
		esc_append(err, (const uint8_t *)path.buf, path.len, 0);
		sbuf_adds(err, how == SF_ELSEWHERE ? ": not known for a .NET process"
						   : " (its diagnostics off: DOTNET_EnableDiagnostics=0?): not known "
						     "for a .NET process");
	}
out:
	sbuf_free(&path);
	sbuf_free(&why);
	return rc;
}

/* The runtime the process's maps show (or, for a single-file .NET
 * app, its executable and its socket), or -1 with err. */
static int runtime_of(pid_t pid, const struct status *st, unsigned long long start, int *hotspot, struct sbuf *err)
{
	int libs = mapped(pid, st);

	if (libs < 0) {
		if (errno == ENOENT || errno == ESRCH)
			sbuf_printf(err, "no process %ld", (long)pid);
		else
			sbuf_printf(err, "PID %ld: cannot read /proc/%ld/maps (%s): what it runs cannot be told, "
				    "so it is left alone", (long)pid, (long)pid, strerror(errno));
		return -1;
	}
	if (libs & MAP_CORECLR)
		return PROC_DOTNET;
	if (libs & MAP_J9) {
		sbuf_printf(err, "PID %ld is an OpenJ9 JVM: heapwalk's agent attaches to HotSpot JVMs", (long)pid);
		return -1;
	}
	*hotspot = (libs & MAP_JVM) && (libs & MAP_PERF);
	if ((libs & MAP_JVM) && attach_safe(pid, st) && !*hotspot && !has_socket(pid, st)) {
		/* the directory as HotSpot names it: by its user's name */
		struct sbuf who;
		sbuf_init(&who);
		proc_user(&who, st->uid[1]);
		if (libs & MAP_PERF_GONE)
			sbuf_printf(err, "PID %ld maps a libjvm.so and performance data removed since "
				    "(/tmp/hsperfdata_%s/%ld (deleted): a /tmp cleaner?), which only CAP_SYS_ADMIN or "
				    "CAP_CHECKPOINT_RESTORE may open to check, and has no attach socket open: not known "
				    "for a JVM, not signalled (-XX:+StartAttachListener opens the socket)", (long)pid,
				    who.buf, st->nspid);
		else
			sbuf_printf(err, "PID %ld maps a libjvm.so but no HotSpot performance data "
				    "(/tmp/hsperfdata_%s/%ld; none with -XX:-UsePerfData or -XX:+PerfDisableSharedMem) "
				    "and has no attach socket open: not known for a JVM, not signalled "
				    "(-XX:+StartAttachListener opens the socket)", (long)pid, who.buf, st->nspid);
		sbuf_free(&who);
		return -1;
	}
	if (libs & MAP_JVM) {
		if (attach_safe(pid, st))
			return PROC_JVM;
		sbuf_printf(err, "PID %ld is a JVM that neither handles SIGQUIT nor listens for an attach (-Xrs?): "
			    "the SIGQUIT that asks it to would kill it", (long)pid);
		return -1;
	}
	if (libs & MAP_NODE)
		return PROC_NODE;
	struct sbuf sf;
	sbuf_init(&sf);
	int dotnet = single_file(pid, st, start, &sf);
	if (dotnet > 0 || node_binary(pid)) {
		sbuf_free(&sf);
		return dotnet > 0 ? PROC_DOTNET : PROC_NODE;
	}
	if (dotnet < 0) {
		sbuf_adds(err, sf.buf);
		sbuf_free(&sf);
		return -1;
	}
	sbuf_free(&sf);
	sbuf_printf(err, "PID %ld is not a JVM, .NET or Node process (it is ", (long)pid);
	what_it_is(pid, err);
	sbuf_addc(err, ')');
	return -1;
}

int proc_identify(const char *arg, struct proc_info *p, struct sbuf *err)
{
	long pid = parse_pid(arg);
	struct status st;

	if (pid < 0) {
		sbuf_adds(err, "'");
		esc_append(err, (const uint8_t *)arg, strlen(arg), 0);
		sbuf_adds(err, "' is not a process id");
		return -1;
	}
	/* its start, before and after everything else is read: the same
	 * process throughout, not one that took a dead one's number */
	unsigned long long before = start_time((pid_t)pid);
	if (read_status((pid_t)pid, &st) < 0) {
		if (errno == ENOENT || errno == ESRCH)
			sbuf_printf(err, "no process %ld", pid);
		else
			sbuf_printf(err, "PID %ld: cannot read /proc/%ld/status (%s)", pid, pid, strerror(errno));
		return -1;
	}
	/* /proc answers for a thread's id too; the process is its group */
	if (st.tgid != pid) {
		sbuf_printf(err, "%ld is a thread of process %ld, not a process", pid, st.tgid);
		return -1;
	}
	if (st.state == 'Z' || st.state == 'X') {
		sbuf_printf(err, "PID %ld has exited (a zombie its parent has not reaped)", pid);
		return -1;
	}
	if (foreign(&st)) {
		sbuf_printf(err, "PID %ld is a process of another user (", pid);
		proc_user(err, st.uid[1]);
		sbuf_printf(err, ", uid %ld), not of ", (long)st.uid[1]);
		proc_user(err, geteuid());
		sbuf_printf(err, " (uid %ld)", (long)geteuid());
		return -1;
	}
	int hotspot = 0;
	int kind = runtime_of((pid_t)pid, &st, before, &hotspot, err);
	if (kind < 0)
		return -1;
	p->hotspot = hotspot;
	p->pid = (pid_t)pid;
	p->kind = (enum proc_kind)kind;
	p->uid = st.uid[1];
	p->gid = st.gid[1];
	p->nspid = st.nspid;
	p->start = before;
	return proc_same(p, err);
}

int proc_same(const struct proc_info *p, struct sbuf *err)
{
	unsigned long long now = start_time(p->pid);

	if (now != 0 && now == p->start)
		return 0;
	sbuf_printf(err, "PID %ld is no longer the process identified (it exited, or its number was taken "
			 "again): not touched", (long)p->pid);
	return -1;
}

int proc_catches(const struct proc_info *p, int sig)
{
	struct status st;

	if (read_status(p->pid, &st) < 0)
		return 0;
	return (st.caught >> (sig - 1)) & 1;
}

char proc_state(const struct proc_info *p)
{
	struct status st;

	if (read_status(p->pid, &st) < 0 || st.state == '\0')
		return '?';
	return st.state;
}

const char *proc_stopped(const struct proc_info *p)
{
	char s = proc_state(p);

	return s == 't' ? "by a debugger" : s == 'T' ? "SIGSTOP, or ^Z" : NULL;
}
