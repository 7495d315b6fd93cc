/* dotnet.h — a running .NET process's heap over its diagnostics socket:
 * an EventPipe session whose runtime provider keywords make the runtime
 * run one induced, blocking full GC and report the heap during it, the
 * stream written to a file (nettrace). No .NET tool is needed. */
#ifndef HW_DOTNET_H
#define HW_DOTNET_H

#include <sys/types.h>

#include "util.h"

/* The diagnostics socket of process pid ($TMPDIR, the target's own
 * TMPDIR when its environment can be read, else /tmp), the newest if
 * several: 0 with its path in out, or -1 (no such socket: not a .NET
 * process, or not one of ours to see). */
int dotnet_socket(pid_t pid, struct sbuf *out);

/* Collect the heap of process pid into file (which must not exist: the
 * stream goes to FILE.tmp-PID, renamed when complete). 0 with a line of
 * figures in result ("objects ... bytes ... s"), or -1 with one line in
 * err. */
int dotnet_snapshot(pid_t pid, const char *file, struct sbuf *result, struct sbuf *err);

#endif
