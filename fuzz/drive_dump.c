/* drive_dump.c — the fuzzers' bodies for dumps (drive.h): the input is
 * written as a file of the private directory, opened as heapwalk opens
 * a dump (without the index cache) and run through every view and
 * inspection (views.c). */
#include "drive.h"

#include <stdlib.h>

#include "engine/open.h"
#include "format/v8_json.h"
#include "views.h"

/* The bytes as a file `name` of the directory, opened as heapwalk opens
 * a dump (no cache) and run through every view. */
static void open_all_views(const char *name, const uint8_t *data, size_t len)
{
	char *path = xasprintf("%s/%s", fuzz_dir(), name);
	struct heap h;

	fuzz_put_file(path, data, len);
	if (fuzz_open(&h, path, 1) == 0) {
		fz_all_views(&h);
		heap_free(&h);
	}
	free(path);
}

int fuzz_dump(const uint8_t *data, size_t len)
{
	open_all_views("in.hprof", data, len);
	return 0;
}

/* A V8 heap snapshot, parsed from the input's own bytes (so that a read
 * past them is caught), then read as a front end would: each node's
 * name, the edges of each node by the edge counts, every string
 * decoded. An index out of its range is a finding (abort). */
int fuzz_v8(const uint8_t *data, size_t len)
{
	struct warnings w = { .quiet = 1 };
	struct v8_snap s;
	struct sbuf err, out;

	(void)v8_probe(data, len);
	sbuf_init(&err);
	sbuf_init(&out);
	if (v8_parse("fuzz.heapsnapshot", data, len, 0, &s, NULL, &w, &err) == 0) {
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
		open_all_views("in.heapsnapshot", data, len);
	}
	warn_free(&w);
	sbuf_free(&err);
	sbuf_free(&out);
	return 0;
}
