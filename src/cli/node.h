/* node.h — a running Node process's heap through its inspector: the one
 * already listening, or one opened with SIGUSR1 (Node's own request to
 * open it) and closed again afterwards; the DevTools protocol's
 * HeapProfiler.takeHeapSnapshot spoken over heapwalk's own WebSocket
 * client, its chunks written to the file (a V8 heap snapshot). */
#ifndef HW_NODE_H
#define HW_NODE_H

#include "cli/proc.h"
#include "util.h"

/* Write the heap of the Node process p (proc_identify) to file, which
 * must not exist (the chunks go to FILE.tmp-PID, linked into place when
 * the snapshot's command has answered). Progress on stderr when
 * progress is set. 0 with a line of figures in result, or -1 with one
 * line in err. */
int node_snapshot(const struct proc_info *p, const char *file, int progress, struct sbuf *result, struct sbuf *err);

#endif
