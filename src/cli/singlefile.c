/* singlefile.c — a self-contained single-file .NET app (singlefile.h).
 * Such an app's runtime is linked into its executable, so it maps no
 * libcoreclr.so. It is told by two things the kernel vouches for: the
 * executable's bundle marker (what `dotnet publish
 * -p:PublishSingleFile=true` writes into the host: the host finds its
 * bundle by it), and the diagnostics socket the process listens on, by
 * the socket's name and inode as sock_diag reports them in binary
 * (length-delimited: no name can pass for another line), bound to the
 * very path heapwalk connects to, and the inode among the process's own
 * descriptors. */
#include "cli/singlefile.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

/* The host's bundle signature (32 bytes, as the .NET host's sources
 * give it), after the bundle header's offset, 8 bytes little-endian, 0
 * in a host that is no bundle. */
static const uint8_t bundle_sig[32] = {
	0x8b, 0x12, 0x02, 0xb9, 0x6a, 0x61, 0x20, 0x38, 0x72, 0x7b, 0x93, 0x02, 0x14, 0xd7, 0xa0, 0x32,
	0x13, 0xf5, 0xb9, 0xe6, 0xef, 0xae, 0x33, 0x18, 0xee, 0x3b, 0x2d, 0xce, 0x24, 0xb3, 0x6a, 0xae,
};

/* The most of a loaded segment searched for the marker, and of all
 * (the host's data is small; a file that claims more is not searched
 * further). */
#define SEG_MAX (64u << 20)

static uint64_t le64(const uint8_t *b)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | b[i];
	return v;
}

static uint32_t le32(const uint8_t *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/* Does the header at off in fd (size bytes) read as a bundle's: its
 * major version 1 to 64, at least one file embedded? */
static int header_ok(int fd, uint64_t off, off_t size)
{
	uint8_t h[12];

	if (off == 0 || off > (uint64_t)size || (uint64_t)size - off < sizeof h ||
	    pread(fd, h, sizeof h, (off_t)off) != (ssize_t)sizeof h)
		return 0;
	uint32_t major = le32(h);
	int32_t files = (int32_t)le32(h + 8);
	return major >= 1 && major <= 64 && files > 0;
}

/* The marker in fd's bytes [from, from + len): 1 if there, with a
 * header where it points. */
static int marker_in(int fd, off_t from, uint64_t len, off_t size)
{
	enum { CHUNK = 1 << 20, KEEP = 8 + 32 };
	uint8_t *buf = malloc(CHUNK + KEEP);
	size_t have = 0;
	int found = 0;

	if (buf == NULL)
		return 0;
	for (uint64_t done = 0; done < len && !found;) {
		size_t want = len - done < CHUNK ? (size_t)(len - done) : CHUNK;
		ssize_t r = pread(fd, buf + have, want, from + (off_t)done);
		if (r <= 0)
			break;
		done += (uint64_t)r;
		have += (size_t)r;
		for (size_t i = 8; i + 32 <= have && !found; i++)
			if (buf[i] == bundle_sig[0] && memcmp(buf + i, bundle_sig, 32) == 0)
				found = header_ok(fd, le64(buf + i - 8), size);
		if (have > KEEP) { /* a marker across two reads */
			memmove(buf, buf + have - KEEP, KEEP);
			have = KEEP;
		}
	}
	free(buf);
	return found;
}

int sf_bundle(pid_t pid)
{
	char path[64];

	snprintf(path, sizeof path, "/proc/%ld/exe", (long)pid);
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;
	int found = sf_bundle_fd(fd);
	close(fd);
	return found;
}

int sf_bundle_fd(int fd)
{
	Elf64_Ehdr eh;
	struct stat st;
	uint64_t total = 0;
	int found = 0;

	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum > 256)
		return 0;
	/* the marker is a static variable of the host's: in a writable
	 * loaded segment's bytes from the file */
	for (int i = 0; i < eh.e_phnum && !found; i++) {
		Elf64_Phdr ph;
		if (pread(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + (uint64_t)i * sizeof ph)) != (ssize_t)sizeof ph)
			break;
		if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_W) || ph.p_offset >= (uint64_t)st.st_size)
			continue;
		uint64_t len = ph.p_filesz;
		if (len > (uint64_t)st.st_size - ph.p_offset)
			len = (uint64_t)st.st_size - ph.p_offset;
		if (len > SEG_MAX)
			len = SEG_MAX;
		if (total + len > SF_READ_MAX) /* the sum too: at most this much read in all */
			return SF_TOO_BIG;
		total += len;
		found = marker_in(fd, (off_t)ph.p_offset, len, st.st_size);
	}
	return found;
}

/* The inodes of the sockets process pid holds, sorted, in *out (the
 * caller frees): how many, or -1. */
static int cmp_ino(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

static long held_sockets(pid_t pid, unsigned long long **out)
{
	char path[64], link[64];
	struct dirent *e;
	long n = 0, cap = 0;
	unsigned long long *v = NULL;

	snprintf(path, sizeof path, "/proc/%ld/fd", (long)pid);
	DIR *d = opendir(path);
	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL && n < 1000000) {
		unsigned long long ino;
		char end;
		ssize_t len = e->d_name[0] != '.' ? readlinkat(dirfd(d), e->d_name, link, sizeof link - 1) : -1;
		if (len <= 0)
			continue;
		link[len] = '\0';
		if (sscanf(link, "socket:[%llu%c", &ino, &end) != 2 || end != ']')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			unsigned long long *w = realloc(v, (size_t)cap * sizeof *v);
			if (w == NULL)
				break;
			v = w;
		}
		v[n++] = ino;
	}
	closedir(d);
	if (n > 0)
		qsort(v, (size_t)n, sizeof *v, cmp_ino);
	*out = v;
	return n;
}

/* The message m (a unix_diag_msg and its attributes): a listening
 * stream socket of an inode in held (n, sorted), bound to a path (not
 * an abstract name, which begins with a NUL, and with no NUL in it but
 * the one that ends it: bind counts it): SF_LISTENS if the path is
 * exactly path, SF_ELSEWHERE if only its last component is path's,
 * else SF_NONE. */
static int matches(const struct nlmsghdr *m, const char *path, const unsigned long long *held, long n)
{
	const struct unix_diag_msg *u = NLMSG_DATA(m);
	size_t len = m->nlmsg_len;

	if (len < NLMSG_LENGTH(sizeof *u) || u->udiag_family != AF_UNIX || u->udiag_type != SOCK_STREAM ||
	    u->udiag_state != 10 /* TCP_LISTEN */)
		return SF_NONE;
	unsigned long long ino = u->udiag_ino;
	if (bsearch(&ino, held, (size_t)n, sizeof *held, cmp_ino) == NULL)
		return SF_NONE;
	size_t alen = len - NLMSG_LENGTH(sizeof *u);
	for (const struct rtattr *a = (const struct rtattr *)((const char *)u + NLMSG_ALIGN(sizeof *u)); RTA_OK(a, alen);
	     a = RTA_NEXT(a, alen)) {
		if (a->rta_type != UNIX_DIAG_NAME)
			continue;
		const char *s = RTA_DATA(a);
		size_t sl = RTA_PAYLOAD(a), pl = strlen(path);
		if (sl > 0 && s[sl - 1] == '\0')
			sl--;
		if (sl == 0 || s[0] == '\0' || memchr(s, '\0', sl) != NULL)
			return SF_NONE;
		if (sl == pl && memcmp(s, path, pl) == 0)
			return SF_LISTENS;
		const char *leaf = strrchr(path, '/');
		size_t ll = leaf != NULL ? strlen(leaf) : 0;
		return leaf != NULL && sl > ll && memcmp(s + sl - ll, leaf, ll) == 0 ? SF_ELSEWHERE : SF_NONE;
	}
	return SF_NONE;
}

/* Is process pid in a network namespace other than ours? */
static int other_netns(pid_t pid)
{
	char path[64];
	struct stat ours, its;

	snprintf(path, sizeof path, "/proc/%ld/ns/net", (long)pid);
	return stat("/proc/self/ns/net", &ours) == 0 && stat(path, &its) == 0 &&
	       (ours.st_dev != its.st_dev || ours.st_ino != its.st_ino);
}

int sf_listens(pid_t pid, const char *path)
{
	unsigned long long *held = NULL;
	long n = held_sockets(pid, &held);
	int how = SF_NONE;

	if (n > 0) {
		int s = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
		struct {
			struct nlmsghdr h;
			struct unix_diag_req r;
		} req = {
			.h = { .nlmsg_len = sizeof req, .nlmsg_type = SOCK_DIAG_BY_FAMILY,
			       .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP },
			.r = { .sdiag_family = AF_UNIX, .udiag_states = 1u << 10 /* TCP_LISTEN */,
			       .udiag_show = UDIAG_SHOW_NAME },
		};
		struct sockaddr_nl k = { .nl_family = AF_NETLINK };
		if (s >= 0 && sendto(s, &req, sizeof req, 0, (struct sockaddr *)&k, sizeof k) == (ssize_t)sizeof req) {
			long buf[32768 / sizeof(long)]; /* aligned for the headers */
			for (int done = 0; !done;) {
				ssize_t r = recv(s, buf, sizeof buf, 0);
				if (r < 0 && errno == EINTR)
					continue;
				if (r <= 0)
					break;
				size_t left = (size_t)r;
				for (const struct nlmsghdr *m = (const struct nlmsghdr *)buf; NLMSG_OK(m, left);
				     m = NLMSG_NEXT(m, left)) {
					if (m->nlmsg_type == NLMSG_DONE || m->nlmsg_type == NLMSG_ERROR) {
						done = 1;
						break;
					}
					if (m->nlmsg_type == SOCK_DIAG_BY_FAMILY && how != SF_LISTENS) {
						int h = matches(m, path, held, n);
						if (h != SF_NONE)
							how = h;
					}
				}
			}
		}
		if (s >= 0)
			close(s);
	}
	free(held);
	/* sock_diag reports the sockets of our network namespace only */
	if (how == SF_NONE && other_netns(pid))
		how = SF_NETNS;
	return how;
}
