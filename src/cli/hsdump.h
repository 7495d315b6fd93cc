/* hsdump.h — heapwalk snapshot of a JVM by HotSpot's own heap dumper
 * (the attach mechanism's `dumpheap`), without heapwalk's agent: for a
 * JVM the agent cannot be loaded into (another mount namespace, no agent
 * library) or when asked (snapshot --plain). */
#ifndef HW_HSDUMP_H
#define HW_HSDUMP_H

#include "cli/proc.h"
#include "util.h"

/* Write an HPROF dump of the JVM p (live objects, after a full GC; gzip
 * at level gz 1..9, 0: plain) to file, which must not exist. The JVM
 * writes it into a directory of ours in its own /tmp (resolved inside its
 * root: a JVM in a container writes into the container, whose links lead
 * nowhere else; the directory and the dump reached by descriptors only);
 * it is copied from there into file.tmp-PID beside file, as the JVM's
 * user when heapwalk is root, and removed from the JVM's /tmp, on a
 * signal too; the copy is opened as a heap before it is linked to file.
 * HotSpot's answer is awaited up to HEAPWALK_SNAPSHOT_WALL. 0 with one
 * line in result, or -1 with one line in err and nothing left under file
 * or in the JVM's /tmp (else the line says so). */
int hs_dumpheap(const struct proc_info *p, const char *file, int gz, struct sbuf *result, struct sbuf *err);

/* Does the JVM p see the file at path as we do (the same file at the
 * same path in its root and mount namespace)? 1 or 0. The agent's
 * library, and a file the agent is to write, must be. */
int hs_sees_as_we_do(const struct proc_info *p, const char *path);

#endif
