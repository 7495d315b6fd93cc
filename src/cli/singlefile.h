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
/* sf_bundle of the open file fd; SF_TOO_BIG when the writable loaded
 * segments pass SF_READ_MAX bytes in all (each is read up to 64 MiB)
 * before the marker is found: not read further. */
int sf_bundle_fd(int fd);
#define SF_READ_MAX (256u << 20)
enum { SF_TOO_BIG = 2 };

/* Does process pid hold, among its descriptors (/proc/PID/fd), a
 * listening UNIX stream socket bound to exactly path (as the process
 * names it: dotnet.h's dotnet_socket_bound), as the kernel's sock_diag
 * netlink interface reports it (in heapwalk's network namespace)?
 * SF_LISTENS if so; else SF_ELSEWHERE if one it holds is bound to
 * another path of the same last component (inherited or received),
 * SF_NETNS if it holds none such and is in another network namespace
 * (whose sockets sock_diag does not show us), or SF_NONE. */
enum { SF_NONE, SF_LISTENS, SF_ELSEWHERE, SF_NETNS };
int sf_listens(pid_t pid, const char *path);

#endif
