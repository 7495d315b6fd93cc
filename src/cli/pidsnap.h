/* pidsnap.h — heapwalk PID: a snapshot of a live process into the
 * user's private cache directory (or a file named), the snapshot before
 * it of the same process its baseline: two runs are a leak hunt. */
#ifndef HW_PIDSNAP_H
#define HW_PIDSNAP_H

#include "cli/proc.h"
#include "util.h"

/* Snapshots kept per process: the new one, its baseline and one more. */
#define PIDSNAP_KEEP 3

struct pidsnap {
	char *file;     /* the new snapshot (owned) */
	char *baseline; /* the snapshot to compare it with (owned); NULL: none, or its mark file's */
	char *says;     /* one line: which snapshot the baseline is, or why none (owned) */
	int kept;       /* file is in the process's directory of the cache (no -o) */
};

/* Does `heapwalk ARG` (the browser's form, no command) name a process?
 * ARG is decimal digits alone and no file of that name is there (a file
 * wins: ./1234 always names one). */
int pidsnap_is_pid(const char *arg);

/* Snapshot process p (proc_identify) into out, or, out NULL, into
 * p's directory of the private cache directory, pid-PID-START (made
 * 0700 and checked as the cache's, its maker recorded: this boot, this
 * PID namespace; locked for the whole take, a second run waiting for
 * the first), where the newest snapshot before that opens whole is the
 * baseline (a damaged one is passed over, with a line on stderr) and the
 * PIDSNAP_KEEP newest stay; the directories of processes that have
 * exited are removed there first, those a heapwalk of this boot and PID
 * namespace made alone. A JVM of another user is refused without -o
 * (its runtime writes the file, as that user). Progress and the
 * target's pause on stderr unless quiet. 0 with *r filled
 * (pidsnap_free), or -1 with one line in err. */
int pidsnap_take(const struct proc_info *p, const char *out, int quiet, struct pidsnap *r, struct sbuf *err);
void pidsnap_free(struct pidsnap *r);

#endif
