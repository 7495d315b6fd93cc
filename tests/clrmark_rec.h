/* clrmark_rec.h — the recorded .NET mark of tests/dotnet (its README):
 * the mark's heap, the recorder's stream and the snapshot. */
#ifndef HW_TEST_CLRMARK_REC_H
#define HW_TEST_CLRMARK_REC_H

#include <stddef.h>

struct rec_files { char *mark, *rec, *snap; size_t nmark, nrec, nsnap; };

/* The three recorded files read (rec_free frees them). */
void rec_load(struct rec_files *f);
void rec_free(struct rec_files *f);
/* The replay of the recorded mark, its stream rec[0..nrec) (NULL: none),
 * written as the mark file of a copy of the snapshot at dump: what it
 * said (caller frees). */
char *replay_to(const struct rec_files *f, const char *rec, size_t nrec, const char *dump);

#endif
