/* clrmark_rec.h — the recorded .NET mark of tests/dotnet (its README):
 * the mark's heap, the recorder's stream and the snapshot. */
#ifndef HW_TEST_CLRMARK_REC_H
#define HW_TEST_CLRMARK_REC_H

#include <stddef.h>

#include <stdint.h>

/* the files, and the GCs of the mark and of the snapshot (README) */
struct rec_files { char *mark, *rec, *snap; size_t nmark, nrec, nsnap; uint32_t mark_gc, gc; };

/* The three recorded files read (rec_free frees them). */
void rec_load(struct rec_files *f);
/* The same of the recording with background GCs; server: the server
 * GC's. */
void rec_load_bgc(struct rec_files *f, int server);
void rec_free(struct rec_files *f);
/* The replay of the recorded mark, its stream rec[0..nrec) (NULL: none),
 * written as the mark file of a copy of the snapshot at dump: what it
 * said (caller frees). */
char *replay_to(const struct rec_files *f, const char *rec, size_t nrec, const char *dump);

#endif
