/* drive_dump.c — the fuzzers' bodies for dumps (drive.h): an input of
 * the body's format is written as a file of the private directory,
 * opened as heapwalk opens a dump (without the index cache) and run
 * through every view and inspection (views.c). Any other input is
 * refused by the engine's own probe (format_find) before anything is
 * written, so that each fuzzer's time goes to its reader. */
#include "drive.h"

#include <stdlib.h>
#include <string.h>

#include "engine/open.h"
#include "format/clr.h"
#include "format/hprof.h"
#include "format/mlpd.h"
#include "format/v8_json.h"
#include "views.h"

/* heap_open's promise (open.h): a failure is one line, and it names the
 * file (a path of the private directory). */
static void check_error(const struct sbuf *err)
{
	char *dir = esc_str(fuzz_dir());

	if (err->len == 0 || strchr(err->buf, '\n') != NULL || strncmp(err->buf, dir, strlen(dir)) != 0)
		fuzz_finding("the open failed without one line naming the file: '%s'", err->buf ? err->buf : "");
	free(dir);
}

/* The bytes as a file `name` of the directory, opened as heapwalk opens
 * a dump (no cache; heapshot snap of a file of several, 0 the last) and
 * run through every view. The heap's number of heapshots, 0 if it did
 * not open. */
static uint32_t open_all_views(const char *name, const uint8_t *data, size_t len, unsigned snap)
{
	char *path = xasprintf("%s/%s", fuzz_dir(), name);
	struct open_opts o = { .no_cache = 1, .quiet = 1, .snapshot = snap };
	struct progress p;
	struct sbuf err;
	struct heap h;
	uint32_t nsnaps = 0;

	progress_init(&p, 1);
	sbuf_init(&err);
	if (data != NULL)
		fuzz_put_file(path, data, len);
	if (heap_open(&h, path, &o, &p, &err) == 0) {
		fz_all_views(&h);
		nsnaps = h.nsnaps;
		heap_free(&h);
	} else {
		check_error(&err);
	}
	sbuf_free(&err);
	free(path);
	return nsnaps;
}

/* An input of format f, or -1 (refused: not written, not opened). */
static int one_format(const struct format_ops *f, const char *name, const uint8_t *data, size_t len)
{
	if (format_find(data, len) != f)
		return -1;
	open_all_views(name, data, len, 0);
	return 0;
}

int fuzz_hprof(const uint8_t *data, size_t len)
{
	return one_format(&hprof_format, "in.hprof", data, len);
}

int fuzz_nettrace(const uint8_t *data, size_t len)
{
	return one_format(&clr_format, "in.nettrace", data, len);
}

int fuzz_gcdump(const uint8_t *data, size_t len)
{
	return one_format(&gcdump_format, "in.gcdump", data, len);
}

/* The last heapshot (heapwalk's default), then the first: the reader
 * picks a heapshot in both ways. */
int fuzz_mlpd(const uint8_t *data, size_t len)
{
	if (format_find(data, len) != &mlpd_format)
		return -1;
	if (open_all_views("in.mlpd", data, len, 0) > 1)
		open_all_views("in.mlpd", NULL, 0, 1); /* the file is there already */
	return 0;
}

/* A V8 heap snapshot, parsed from the input's own bytes (so that a read
 * past them is caught), then read as a front end would: each node's
 * name, the edges of each node by the edge counts, every string
 * decoded. An index out of its range is a finding (abort). Refused:
 * what is not a JSON object. */
int fuzz_v8(const uint8_t *data, size_t len)
{
	struct warnings w = { .quiet = 1 };
	struct v8_snap s;
	struct sbuf err, out;

	/* a JSON object: the parser takes the keys in any order; the engine
	 * opens it when its first key is one of the snapshot's own (v8_probe) */
	if (len == 0 || data[0] != '{')
		return -1;
	sbuf_init(&err);
	sbuf_init(&out);
	if (v8_parse("fuzz.heapsnapshot", data, len, 0, -1, &s, NULL, &w, &err) == 0) {
		uint64_t e = 0;
		for (uint32_t i = 0; i < s.nnodes; e += s.nedges_of[i], i++)
			if (s.nname[i] != HW_NONE) {
				if (s.nname[i] >= s.nstr)
					abort();
				sbuf_reset(&out);
				v8_string(data, len, s.str_off[s.nname[i]], &out, 64);
			}
		if (e != s.nedges)
			abort();
		for (uint32_t i = 0; i < s.nedges; i++)
			if (s.eto[i] != HW_NONE && s.eto[i] >= s.nnodes)
				abort();
		for (uint32_t i = 0; i < s.nstr; i++) {
			sbuf_reset(&out);
			v8_string(data, len, s.str_off[i], &out, 64);
		}
		v8_snap_free(&s);
		/* what the JSON reader took, through the heap and every view */
		open_all_views("in.heapsnapshot", data, len, 0);
	}
	warn_free(&w);
	sbuf_free(&err);
	sbuf_free(&out);
	return 0;
}
