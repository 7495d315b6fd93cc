/* proc.h — what a process is, read from /proc, before anything touches
 * it. Nothing here signals a process, connects to it or writes into it:
 * mark and snapshot speak to a process's runtime only once this has said
 * what it is. */
#ifndef HW_PROC_H
#define HW_PROC_H

#include <sys/types.h>

#include "util.h"

enum proc_kind { PROC_JVM = 1, PROC_DOTNET, PROC_NODE };

struct proc_info {
	pid_t pid;
	enum proc_kind kind;
	uid_t uid;                /* its effective user */
	gid_t gid;                /* and group */
	long nspid;               /* its pid in its own PID namespace (the last of NSpid) */
	unsigned long long start; /* its start in clock ticks after boot (field 22 of /proc/PID/stat) */
	int hotspot;              /* a JVM that maps its HotSpot perf data: it may be sent SIGQUIT */
};

/* Identify process pid (the command line's decimal digits): 0 with *p
 * filled when it is a process of heapwalk's user (of any user when that
 * is root) that runs a HotSpot JVM one can attach to without killing it
 * (libjvm.so mapped; its perf data /tmp/hsperfdata_USER/NSPID mapped,
 * a HotSpot header, and SIGQUIT handled or ignored: p->hotspot; or,
 * without perf data, its attach socket there, which needs no signal),
 * a .NET runtime (libcoreclr.so mapped; or a single-file app: its
 * executable a .NET bundle and its own listening socket the runtime's
 * diagnostics socket, by sock_diag), or Node (libnode.so mapped, or
 * an executable with Node built in); else -1 with one
 * line in err: no such process, a thread, a zombie, another user's, one
 * whose maps may not be read, a JVM that SIGQUIT would kill, what else
 * it runs. */
int proc_identify(const char *pid, struct proc_info *p, struct sbuf *err);
/* Is p still the process identified (the same start time)? 0, or -1
 * with one line in err. Called again just before it is touched. */
int proc_same(const struct proc_info *p, struct sbuf *err);
/* Does p catch signal sig now (a handler installed, SigCgt)? 1 or 0;
 * 0 when its status cannot be read. */
int proc_catches(const struct proc_info *p, int sig);
/* p's state now, as /proc/PID/status's State says it ('R', 'S', 'T' for
 * stopped, 't' for stopped by a tracer, ...); '?' when it cannot be read. */
char proc_state(const struct proc_info *p);
/* Is p stopped (a debugger, SIGSTOP, ^Z)? It then answers nothing and
 * a signal waits in it until it goes on: how, in words ("by a
 * debugger"), or NULL if it is not. */
const char *proc_stopped(const struct proc_info *p);
/* A user's name (escaped; "?" when the system names none), for a message. */
void proc_user(struct sbuf *out, uid_t uid);

/* Open path as process pid sees it: resolved inside its root
 * (/proc/PID/root, whose absolute symbolic links then point into it,
 * not into ours), no magic link of /proc followed, and with
 * no_symlinks none at all; flags as open(2)'s (O_CLOEXEC added).
 * The descriptor, or -1 with errno (ENOSYS: a kernel without openat2,
 * before Linux 5.6, and nothing is opened). */
int proc_root_open(pid_t pid, const char *path, int flags, int no_symlinks);

#endif
