/* hsattach.h — HotSpot's attach mechanism spoken by heapwalk itself: no
 * JDK tool (jcmd) is needed, only the JVM. */
#ifndef HW_HSATTACH_H
#define HW_HSATTACH_H

#include "cli/proc.h"
#include "util.h"

/* How long a JVM has to open its attach socket once asked. */
#define HS_ATTACH_WAIT_S 10

/* Run the attach command cmd ("load", "properties", ...) with up to three
 * arguments (NULL: none) in the JVM p, which proc_identify said is one:
 * its socket /tmp/.java_pidNSPID in p's own root is used when there,
 * else p is asked to open it (the .attach_pid file and SIGQUIT, sent
 * only to p while it is still the process identified and handles
 * SIGQUIT). As root against another user's JVM the conversation runs in
 * a child of that user's uid and gid, whom HotSpot accepts. 0 with the
 * JVM's status for the command (0: done) in *status and its output
 * appended to out (the caller's, to free), or -1 with one line in err. */
int hs_attach(const struct proc_info *p, const char *cmd, const char *const args[3], int *status, struct sbuf *out,
	      struct sbuf *err);

#endif
