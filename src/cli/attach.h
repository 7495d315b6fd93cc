/* attach.h — commands for a running JVM through heapwalk's agent. */
#ifndef HW_ATTACH_H
#define HW_ATTACH_H

#include "cli/proc.h"
#include "util.h"

/* Load the agent into the JVM p (identified as one by proc_identify:
 * nothing else is attached to) with `command` (the agent's
 * options, see contrib/agent/agent.c) and wait for it: 0 with the
 * agent's report in result ("mark 1 watermark=..."), or -1 with a
 * one-line error (also when the JVM has not answered in
 * HEAPWALK_SNAPSHOT_WALL seconds, 1800 by default: the agent, should
 * it still run, then keeps no dump and undoes its mark); -2 with one line, the JVM untouched, when the agent
 * cannot be loaded into it (no library, or the JVM does not see it: a
 * JVM in another mount namespace). */
int agent_run(const struct proc_info *p, const char *command, struct sbuf *result, struct sbuf *err);
/* heapwalk snapshot: a dump with stable ids written to file (which must
 * not exist; the agent writes FILE.tmp-PID and renames it). Also -2, the
 * JVM untouched, when the JVM does not see FILE's directory as we do. */
int agent_snapshot(const struct proc_info *p, const char *file, struct sbuf *result, struct sbuf *err);

#endif
