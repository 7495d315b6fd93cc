/* dotnet_mark.h — heapwalk mark for a .NET process: the heap at the mark
 * and a recorder of the GC's moves from then on, kept in a private
 * directory of the process; the snapshot that follows ends the recorder
 * and writes FILE.hwmark, the objects of its dump that existed at the
 * mark (format/clr_mark.h). */
#ifndef HW_DOTNET_MARK_H
#define HW_DOTNET_MARK_H

#include <time.h>

#include "cli/proc.h"
#include "util.h"

/* Would p's runtime refuse a request before it is sent (stopped, so
 * that it would answer nothing)? -1 with one line in err, or 0. */
int dotnet_refuses(const struct proc_info *p, struct sbuf *err);

/* Mark the .NET process p (proc_identify): start the recorder (a
 * detached heapwalk process holding an EventPipe session open), then
 * take the mark's heap dump, into keep if not NULL (which must not
 * exist; the snapshot reads it there, a baseline for it), else into the
 * private directory. A mark again replaces the earlier one. 0 with one
 * line in result, or -1 with one line in err. */
int dotnet_mark(const struct proc_info *p, const char *keep, struct sbuf *result, struct sbuf *err);

/* heapwalk snapshot PID FILE for a .NET process: the dump into FILE
 * (dotnet_snapshot); when p has a mark, its recorder ended and FILE's
 * mark file written beside FILE (what it says appended to result). 0,
 * or -1 with err. */
int dotnet_take(const struct proc_info *p, const char *file, int *exact, struct sbuf *result, struct sbuf *err);
/* (*exact, when not NULL: 1 when the mark file was written and its
 * replay is exact, 0 when written but not exact, -1 when none was.) */

/* Has the .NET process p a mark that its next snapshot ends? 1 with the
 * path of the mark's heap appended to heap when it was kept outside the
 * private directory (mark PID FILE, heapwalk PID), and the time the mark
 * was made in *at (0 if not known), else 0. */
int dotnet_marked(const struct proc_info *p, struct sbuf *heap, time_t *at);

#endif
