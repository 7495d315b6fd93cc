/* mkseeds.c — write the synthetic seeds: DIR/hprof/<shape>.hprof for
 * each shape of dumps.c, truncated copies of the sample (a header only,
 * a record cut short), and DIR/cache/NAME.hwi, the real index caches of
 * the dumps the cache fuzzer opens, one of each format. fuzz/seeds.sh adds the rest. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "drive.h"
#include "dumps.h"

static void write_shapes(const char *dir)
{
	size_t n;
	const struct fz_shape *s = fz_shapes(&n);

	for (size_t i = 0; i < n; i++) {
		struct hw w;
		s[i].make(&w);
		free(hw_write_in(&w, dir, s[i].name, SIZE_MAX));
		if (i == 0) { /* the sample, cut: after the header, inside a record */
			free(hw_write_in(&w, dir, "header-only.hprof", 31));
			free(hw_write_in(&w, dir, "cut.hprof", hw_pos(&w) / 2));
		}
		hw_free(&w);
	}
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: mkseeds DIR\n");
		return 1;
	}
	char *hprof = xasprintf("%s/hprof", argv[1]), *cache = xasprintf("%s/cache", argv[1]);
	mkdir(argv[1], 0755);
	mkdir(hprof, 0755);
	mkdir(cache, 0755);
	write_shapes(hprof);
	static const char *const names[FUZZ_CACHE_DUMPS] = { "rich", "nettrace", "gcdump", "mlpd", "v8" };
	for (int k = 0; k < FUZZ_CACHE_DUMPS; k++) {
		size_t len;
		uint8_t *seed = fuzz_cache_seed(k, &len);
		char *path = xasprintf("%s/%s.hwi", cache, names[k]);
		FILE *f = fopen(path, "wb");
		if (f == NULL || fwrite(seed, 1, len, f) != len || fclose(f) != 0)
			hw_fatal("cannot write %s", path);
		free(path);
		free(seed);
	}
	free(hprof);
	free(cache);
	return 0;
}
