/* dotnet.h — a running .NET process's heap over its diagnostics socket:
 * an EventPipe session whose runtime provider keywords make the runtime
 * run one induced, blocking full GC and report the heap during it, the
 * stream written to a file (nettrace). No .NET tool is needed. */
#ifndef HW_DOTNET_H
#define HW_DOTNET_H

#include <stdint.h>

#include "cli/proc.h"
#include "util.h"

/* The diagnostics socket of the .NET process p, as its runtime names
 * it: dotnet-diagnostic-PID-KEY-socket in the runtime's TMPDIR (the one
 * the process started with, else /tmp), KEY the process's start time
 * (field 22 of /proc/PID/stat). It must be a socket (not a link to one)
 * owned by the process's user: 0 with its path in out, or -1 with one
 * line in err. (Who serves it is checked when it is connected to.) */
int dotnet_socket(const struct proc_info *p, struct sbuf *out, struct sbuf *err);
/* The path that socket is bound to as the process names it (its TMPDIR
 * and the name; dotnet_socket reaches it through /proc/PID/root when
 * the process is in another mount namespace), for the process pid of
 * pid nspid in its own PID namespace and start time start, added to
 * out: 0, or -1 with one line in err (environ unreadable, or TMPDIR not
 * an absolute path). */
int dotnet_socket_bound(pid_t pid, long nspid, unsigned long long start, struct sbuf *out, struct sbuf *err);

/* Collect the heap of the .NET process p (proc_identify) into file
 * (which must not exist: the stream goes to FILE.tmp-PID, renamed when
 * complete). 0 with a line of figures in result ("objects ... bytes ...
 * s"), or -1 with one line in err. */
int dotnet_snapshot(const struct proc_info *p, const char *file, uint32_t *gc, struct sbuf *result, struct sbuf *err);
/* (The dump's GC, its count, in *gc when gc is not NULL.) */

/* Show the stream's bytes on stderr (a terminal) while a snapshot is
 * written: heapwalk PID's, not the scripts' snapshot PID FILE. */
void dotnet_progress(int on);
/* The last snapshot's GC, as long as the runtime timed it from its
 * GCStart to its GCEnd event (the managed threads stay stopped
 * meanwhile), in ms; -1 if not known (none, or it failed). */
double dotnet_pause_ms(void);

/* A connection to the runtime of process pid at path (dotnet_socket):
 * the socket, or -1 with err. */
int dotnet_connect(const char *path, pid_t pid, struct sbuf *err);
/* Start an EventPipe session of the runtime provider on s (nettrace; with
 * a rundown, the runtime names what is loaded, the modules among it,
 * when the session stops: rundown 0 none, DOTNET_RUNDOWN_ALL the
 * runtime's default rundown (CollectTracing2), else the rundown's
 * keywords (CollectTracing4, .NET 9 on)): 0 with its id (the stream
 * follows on s), or -1 with err and the runtime's HRESULT in *hr (0 when
 * it sent none; a runtime without CollectTracing4 closes s). */
#define DOTNET_RUNDOWN_ALL UINT64_MAX
int dotnet_collect(int s, uint64_t keywords, uint32_t level, uint32_t buffer_mb, uint64_t rundown, uint64_t *id,
		   uint32_t *hr, struct sbuf *err);
/* End session id of the runtime at path (StopTracing); errors ignored:
 * the session ends with the process anyway. dotnet_stop waits for the
 * reply, which a session with rundown sends only once the rundown is in
 * its stream: its reader sends (dotnet_stop_send: the socket, or -1),
 * reads the stream to its end, then takes the reply (dotnet_stop_end,
 * which closes the socket). */
void dotnet_stop(const char *path, pid_t pid, uint64_t id);
int dotnet_stop_send(const char *path, pid_t pid, uint64_t id);
void dotnet_stop_end(int s);

#endif
