/* singlefile.h — a self-contained single-file .NET app, told from what
 * the kernel says of it: the .NET host's bundle marker in its
 * executable, and the runtime's diagnostics socket among its own
 * listening sockets (sock_diag, never /proc/net/unix's text). Nothing
 * here connects to, signals or writes into the process. */
#ifndef HW_SINGLEFILE_H
#define HW_SINGLEFILE_H

#include <sys/types.h>

/* Is the executable process pid runs (/proc/PID/exe: the very file
 * mapped, however renamed or replaced since) a .NET single-file bundle:
 * an ELF whose writable loaded data holds the host's bundle marker (its
 * 32-byte signature after a nonzero
 * 64-bit offset of the bundle's header, which lies inside the file and
 * reads as one)? 1 or 0. */
int sf_bundle(pid_t pid);

/* Does process pid hold, among its descriptors (/proc/PID/fd), a
 * listening UNIX stream socket bound to a path whose last component is
 * name, as the kernel's sock_diag netlink interface reports it (in
 * heapwalk's network namespace)? 1 or 0. */
int sf_listens(pid_t pid, const char *name);

#endif
