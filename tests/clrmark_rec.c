/* clrmark_rec.c — the recorded .NET mark (tests/dotnet/mark-*.nettrace)
 * replayed into a snapshot's mark file, for the clrmark and calibrate
 * suites. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "clrmark_rec.h"
#include "format/clr_mark.h"
#include "suites.h"
#include "util.h"

#define DN TEST_SRCDIR "/dotnet"
#define MDIR TEST_BUILDDIR "/dumps/clrmark"

void rec_load(struct rec_files *f)
{
	f->mark = file_bytes(DN "/mark-heap.nettrace", &f->nmark);
	f->rec = file_bytes(DN "/mark-rec.nettrace", &f->nrec);
	f->snap = file_bytes(DN "/mark-snap.nettrace", &f->nsnap);
	f->mark_gc = 2, f->gc = 7; /* the GCs: README */
}

void rec_load_bgc(struct rec_files *f, int server)
{
	f->mark = file_bytes(server ? DN "/mark-sbgc-heap.nettrace" : DN "/mark-bgc-heap.nettrace", &f->nmark);
	f->rec = file_bytes(server ? DN "/mark-sbgc-rec.nettrace" : DN "/mark-bgc-rec.nettrace", &f->nrec);
	f->snap = file_bytes(server ? DN "/mark-sbgc-snap.nettrace" : DN "/mark-bgc-snap.nettrace", &f->nsnap);
	f->mark_gc = server ? 13 : 1753, f->gc = server ? 25 : 1768;
}

void rec_free(struct rec_files *f)
{
	free(f->mark);
	free(f->rec);
	free(f->snap);
}

/* The replay of the recorded mark, its stream rec[0..nrec) (NULL: none),
 * written as the mark file of a copy of the snapshot at dump: what it
 * said. */
char *replay_to(const struct rec_files *f, const char *rec, size_t nrec, const char *dump)
{
	struct clr_mark_in in = { (const uint8_t *)f->mark, f->nmark, (const uint8_t *)rec, nrec,
				  (const uint8_t *)f->snap, f->nsnap, f->mark_gc, f->gc, NULL };
	struct sbuf out, said, err;
	char path[512];

	sbuf_init(&out);
	sbuf_init(&said);
	sbuf_init(&err);
	ck_assert_msg(clr_mark_replay(&in, &out, &said, &err) == 0, "%s", err.buf);
	ck_assert_int_eq(system("mkdir -p " MDIR), 0);
	FILE *o = fopen(dump, "wb");
	ck_assert_ptr_nonnull(o);
	ck_assert_uint_eq(fwrite(f->snap, 1, f->nsnap, o), f->nsnap);
	fclose(o);
	snprintf(path, sizeof path, "%s.hwmark", dump);
	o = fopen(path, "wb");
	ck_assert_ptr_nonnull(o);
	ck_assert_uint_eq(fwrite(out.buf, 1, out.len, o), out.len);
	fclose(o);
	sbuf_free(&out);
	sbuf_free(&err);
	return sbuf_detach(&said);
}

void clrmark_recorded(const char *dump)
{
	struct rec_files f;

	rec_load(&f);
	free(replay_to(&f, f.rec, f.nrec, dump));
	rec_free(&f);
}
