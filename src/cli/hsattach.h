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

/* Run fn(p, arg, out, err) as the JVM p's user: in a child that has
 * dropped to p's uid and gid (heapwalk is root, p another user's), so
 * that nothing it makes, reads or removes in p's directories (reached
 * through /proc/PID/root, where p's user may plant symlinks) is done
 * with root's rights. fn returns 0 with its answer in out, or -1 with
 * one line in err; so does this. */
typedef int (*hs_user_fn)(const struct proc_info *p, void *arg, struct sbuf *out, struct sbuf *err);
int hs_as_user(const struct proc_info *p, hs_user_fn fn, void *arg, struct sbuf *out, struct sbuf *err);

#endif
