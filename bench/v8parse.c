/* v8parse.c — time v8_parse on one snapshot: its counts, warnings and
 * seconds (for /usr/bin/time -v and by hand; not part of make bench).
 * cc -O2 -I src -D_GNU_SOURCE bench/v8parse.c libheapwalk.a -lpcre2-8 -llz4 -lm */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/v8_json.h"

int main(int argc, char **argv)
{
	struct warnings w = { .quiet = 0 };
	struct sbuf err;
	struct v8_snap s;
	struct stat st;
	int fd;

	if (argc != 2 || (fd = open(argv[1], O_RDONLY)) < 0 || fstat(fd, &st) < 0) {
		fprintf(stderr, "usage: v8parse FILE.heapsnapshot\n");
		return 2;
	}
	const uint8_t *map = st.st_size > 0 ? mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
	if (map == MAP_FAILED)
		return 2;
	sbuf_init(&err);
	double t0 = hw_now();
	int rc = v8_parse(argv[1], map, (uint64_t)st.st_size, 0, -1, &s, NULL, &w, &err);
	double t1 = hw_now();
	if (rc < 0) {
		fprintf(stderr, "%s\n", err.buf);
		return 1;
	}
	printf("%u nodes, %u edges, %u strings, %llu trace nodes, %llu locations: %.3f s, %.0f MB/s, %zu warnings\n",
	       s.nnodes, s.nedges, s.nstr, (unsigned long long)s.n_tt, (unsigned long long)s.n_loc, t1 - t0,
	       (double)st.st_size / 1e6 / (t1 - t0), w.n);
	v8_snap_free(&s);
	warn_free(&w);
	sbuf_free(&err);
	return 0;
}
