/* fakejvm.c — a process that looks like a HotSpot JVM from /proc, for
 * test_proc.c, which builds it at test time: it maps a file named
 * libjvm.so (argv[2], any file) and logs every SIGQUIT it gets to its
 * standard output. In its own mount namespace with a private /tmp (a
 * tmpfs: nothing it makes there outlives it), it may also make and map
 * what HotSpot makes, and answer on an attach socket as the tests want:
 *   fakejvm MODE LIBJVM READY
 *   nojvm    only the library: not a JVM
 *   silent   HotSpot's perf data too, but no attach socket ever
 *   flood    an attach socket that answers status 0 and 2 MiB
 *   ctrl     an attach socket that answers `load` as the agent would,
 *            its status line full of control characters, and `dumpheap`
 *            with a failure whose message is full of them
 *   trunc    an attach socket that answers `dumpheap` as done, but
 *            writes an HPROF file cut short in its first record
 *   dump     an attach socket that answers `dumpheap` as done (the size
 *            stated: $FAKEJVM_STATED, else the file's), having done
 *            what $FAKEJVM_DO says with $FAKEJVM_SRC (a path outside
 *            its /tmp, as heapwalk sees it too):
 *              copy  copied it to the dump's path
 *              swap  replaced the directory heapwalk made for the dump
 *                    by a symbolic link to it (a directory)
 *              link  a symbolic link to it at the dump's path
 *              fifo  a FIFO at the dump's path
 *              litter  no dump, but a file of its own, "litter", in
 *                    the dump's directory
 *              slow  copied it, made $FAKEJVM_MARK, and answers 60 s
 *                    later
 *   renamed  an attach socket that takes `load` of the agent's dump as
 *            an agent frozen in its finish would: it writes FILE.tmp-PID
 *            ("whole\n"), waits until another process opens that file
 *            (heapwalk, watching it: inotify), takes the status file's
 *            lock, renames the file to FILE, and never answers nor lets
 *            go of the lock; with $FAKEJVM_DIRECT, writes FILE itself
 *            at once (no FILE.tmp-PID ever), then takes the lock
 * With $FAKEJVM_UID and $FAKEJVM_GID it runs as that user once its /tmp
 * is mounted (its perf data and socket that user's, as a JVM of
 * another user's). It writes READY (a path outside /tmp) when set up,
 * and exits after 120 s. Exit 3: no private /tmp could be made (the
 * test skips). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static void on_quit(int sig)
{
	(void)sig;
	if (write(1, "QUIT\n", 5) < 0)
		_exit(4);
}

static void *map(const char *path)
{
	int fd = open(path, O_RDONLY);
	void *m = fd < 0 ? MAP_FAILED : mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);

	if (m == MAP_FAILED) {
		perror(path);
		exit(2);
	}
	close(fd);
	return m;
}

/* HotSpot's perf data header, version 2.0, no entries (attach not said
 * to be off), as /tmp/hsperfdata_USER/PID, mapped. */
static void perf_data(void)
{
	char dir[64], path[96];
	uint8_t head[32] = { 0xca, 0xfe, 0xc0, 0xc0, 1, 2, 0, 1 };
	struct passwd *pw = getpwuid(getuid());
	const char *user = pw ? pw->pw_name : "root";

	snprintf(dir, sizeof dir, "/tmp/hsperfdata_%s", user);
	snprintf(path, sizeof path, "%s/%ld", dir, (long)getpid());
	mkdir(dir, 0755);
	head[24] = 32; /* entries at 32, none */
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, head, sizeof head) != sizeof head || ftruncate(fd, 4096) < 0) {
		perror(path);
		exit(2);
	}
	close(fd);
	map(path);
}

static int listener(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int s = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(sa.sun_path, sizeof sa.sun_path, "/tmp/.java_pid%ld", (long)getpid());
	if (s < 0 || bind(s, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(s, 4) < 0) {
		perror("socket");
		exit(2);
	}
	return s;
}

static void say(int c, const char *s, size_t n)
{
	while (n > 0) {
		ssize_t w = write(c, s, n);
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

/* The request's five NUL-ended strings: version, command, 3 arguments. */
static int request(int c, char *buf, size_t n, const char *part[5])
{
	size_t len = 0;
	int nuls = 0;

	while (nuls < 5 && len < n) {
		ssize_t r = read(c, buf + len, n - len);
		if (r <= 0)
			return -1;
		for (ssize_t i = 0; i < r; i++)
			nuls += buf[len + (size_t)i] == '\0';
		len += (size_t)r;
	}
	for (int i = 0, at = 0; i < 5; i++) {
		part[i] = buf + at;
		at += (int)strlen(buf + at) + 1;
	}
	return nuls >= 5 ? 0 : -1;
}

/* src copied to dst, made O_EXCL (as HotSpot makes its dump); its size,
 * -1 if it could not be. */
static long long copy(const char *src, const char *dst)
{
	char buf[65536];
	long long n = 0;
	ssize_t r;
	int in = open(src, O_RDONLY), out = open(dst, O_WRONLY | O_CREAT | O_EXCL, 0600);

	while (in >= 0 && out >= 0 && (r = read(in, buf, sizeof buf)) > 0) {
		say(out, buf, (size_t)r);
		n += r;
	}
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return in >= 0 && out >= 0 ? n : -1;
}

/* `dumpheap` in mode dump, at path (the request's first argument). */
static void dump(int c, const char *path)
{
	const char *what = getenv("FAKEJVM_DO"), *src = getenv("FAKEJVM_SRC"), *stated = getenv("FAKEJVM_STATED");
	char dir[256], msg[256];
	long long n = 0;

	if (what == NULL || src == NULL)
		return;
	snprintf(dir, sizeof dir, "%s", path);
	if (strrchr(dir, '/') != NULL)
		*strrchr(dir, '/') = '\0';
	if (strcmp(what, "copy") == 0 || strcmp(what, "slow") == 0)
		n = copy(src, path);
	else if (strcmp(what, "swap") == 0)
		n = rmdir(dir) == 0 && symlink(src, dir) == 0 ? 0 : -1;
	else if (strcmp(what, "link") == 0)
		n = symlink(src, path) == 0 ? 0 : -1;
	else if (strcmp(what, "fifo") == 0)
		n = mkfifo(path, 0600) == 0 ? 0 : -1;
	else if (strcmp(what, "litter") == 0) {
		char litter[300];
		snprintf(litter, sizeof litter, "%s/litter", dir);
		n = copy(src, litter) < 0 ? -1 : 0;
	}
	if (n < 0) {
		say(c, "0\nfakejvm: could not do it\n", strlen("0\nfakejvm: could not do it\n"));
		return;
	}
	if (strcmp(what, "slow") == 0) {
		close(open(getenv("FAKEJVM_MARK"), O_WRONLY | O_CREAT, 0644));
		sleep(60);
	}
	snprintf(msg, sizeof msg, "0\nDumping heap to %s ...\nHeap dump file created [%lld bytes in 0.001 secs]\n",
		 path, stated ? atoll(stated) : n);
	say(c, msg, strlen(msg));
}

/* `load` in mode renamed, its options o (status:DEV:INO:/tmp/NAME,
 * dump:FILE): see the top. Returns only if the options are not so. */
static void renamed(const char *o)
{
	char status[256], tmp[4200], dir[4200];
	const char *f = strncmp(o, "status:", 7) == 0 ? strchr(o, '/') : NULL;
	const char *d = f != NULL ? strstr(f, ",dump:") : NULL;

	if (d == NULL || (size_t)(d - f) >= sizeof status || strlen(d + 6) + 32 >= sizeof tmp)
		return;
	snprintf(status, sizeof status, "%.*s", (int)(d - f), f);
	snprintf(tmp, sizeof tmp, "%s.tmp-%ld", d + 6, (long)getpid());
	snprintf(dir, sizeof dir, "%s", d + 6);
	*strrchr(dir, '/') = '\0';
	int direct = getenv("FAKEJVM_DIRECT") != NULL;
	int fd = open(direct ? d + 6 : tmp, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0)
		return;
	say(fd, "whole\n", 6);
	close(fd);
	int in = direct ? -1 : inotify_init1(IN_CLOEXEC);
	if (!direct && (in < 0 || inotify_add_watch(in, dir, IN_OPEN) < 0))
		return;
	const char *leaf = strrchr(tmp, '/') + 1;
	for (int seen = direct; !seen;) {
		char ev[4096] __attribute__((aligned(8)));
		ssize_t r = read(in, ev, sizeof ev);
		if (r <= 0)
			return;
		for (char *q = ev; q < ev + r; q += sizeof(struct inotify_event) + ((struct inotify_event *)q)->len) {
			struct inotify_event *e = (struct inotify_event *)q;
			seen |= e->len > 0 && strcmp(e->name, leaf) == 0;
		}
	}
	int sfd = open(status, O_WRONLY | O_NOFOLLOW | O_NONBLOCK);
	if (sfd < 0 || flock(sfd, LOCK_EX) < 0 || (!direct && rename(tmp, d + 6) < 0))
		return;
	for (;;)
		pause();
}

static void serve(int s, const char *mode)
{
	static char big[1 << 16];
	char buf[8192];
	const char *part[5];

	memset(big, 'x', sizeof big);
	for (;;) {
		int c = accept(s, NULL, NULL);
		if (c < 0)
			continue;
		if (request(c, buf, sizeof buf, part) < 0) {
			close(c);
			continue;
		}
		if (strcmp(mode, "flood") == 0) {
			say(c, "0\n", 2);
			for (int i = 0; i < 32; i++) /* 2 MiB */
				say(c, big, sizeof big);
		} else if (strcmp(part[1], "load") == 0 && strcmp(mode, "renamed") == 0) {
			renamed(part[4]);
		} else if (strcmp(part[1], "load") == 0) {
			/* the agent's options: status:DEV:INO:FILE,COMMAND */
			char file[256];
			const char *o = part[4];
			const char *f = strncmp(o, "status:", 7) == 0 ? strchr(o, '/') : NULL;
			if (f != NULL && strcspn(f, ",") < sizeof file) {
				snprintf(file, sizeof file, "%.*s", (int)strcspn(f, ","), f);
				int fd = open(file, O_WRONLY | O_TRUNC);
				const char line[] = "error: bad\033[2J\033]0;owned\007 news\rhere\n";
				if (fd >= 0) {
					say(fd, line, sizeof line - 1);
					close(fd);
				}
			}
			say(c, "0\nreturn code: 0\n", 17);
		} else if (strcmp(part[1], "dumpheap") == 0 && strcmp(mode, "trunc") == 0) {
			/* the header, then a UTF8 record that claims 1000 bytes */
			static const char head[] = "JAVA PROFILE 1.0.2\0\0\0\0\x08\0\0\0\0\0\0\0\0"
						   "\x01\0\0\0\0\0\0\x03\xe8" "abc";
			int fd = open(part[2], O_WRONLY | O_CREAT | O_EXCL, 0600);
			if (fd >= 0) {
				say(fd, head, sizeof head - 1);
				close(fd);
			}
			const char msg[] = "0\nDumping heap to it ...\nHeap dump file created [42 bytes in 0.001 secs]\n";
			say(c, msg, sizeof msg - 1);
		} else if (strcmp(part[1], "dumpheap") == 0 && strcmp(mode, "dump") == 0) {
			dump(c, part[2]);
		} else if (strcmp(part[1], "dumpheap") == 0) {
			const char msg[] = "0\nDumping heap to somewhere ...\nno room\033[2J\033]0;owned\007 left\n";
			say(c, msg, sizeof msg - 1);
		}
		close(c);
	}
}

int main(int argc, char **argv)
{
	if (argc != 4)
		return 1;
	const char *mode = argv[1];
	signal(SIGQUIT, on_quit);
	signal(SIGPIPE, SIG_IGN); /* a peer that hangs up on a flood */
	setvbuf(stdout, NULL, _IONBF, 0);
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("tmpfs", "/tmp", "tmpfs", 0, "mode=1777") < 0)
		return 3;
	if (getenv("FAKEJVM_UID") && (setgroups(0, NULL) < 0 || setgid((gid_t)atol(getenv("FAKEJVM_GID"))) < 0 ||
				      setuid((uid_t)atol(getenv("FAKEJVM_UID"))) < 0 ||
				      prctl(PR_SET_DUMPABLE, 1) < 0)) /* as a JVM exec'd as that user is */
		return 2;
	map(argv[2]);
	int s = -1;
	if (strcmp(mode, "nojvm") != 0)
		perf_data();
	if (strcmp(mode, "flood") == 0 || strcmp(mode, "ctrl") == 0 || strcmp(mode, "trunc") == 0 ||
	    strcmp(mode, "dump") == 0 || strcmp(mode, "renamed") == 0)
		s = listener();
	int fd = open(argv[3], O_WRONLY | O_CREAT, 0644);
	if (fd < 0)
		return 2;
	close(fd);
	alarm(120);
	if (s >= 0)
		serve(s, mode);
	for (;;)
		pause();
}
