/* run.h — one command on dumps already open, as the command line runs
 * it and heapwalk mcp does: the baseline settled (another dump, or the
 * dump's own mark), then the steps applied to the set (gone's on the
 * baseline's side) and the command's row run. Nothing is printed: the
 * output goes to out, an error's one line (a file it is about named,
 * escaped) to err, what standard error would say to note. */
#ifndef HW_RUN_H
#define HW_RUN_H

#include "query/cmd.h"
#include "query/step.h"

/* h's baseline into bl and h->baseline: old compared with h when old is
 * not NULL, else the dump's mark where the steps or the command want
 * one. 0, or -1 with err. */
int run_baseline(struct heap *h, struct heap *old, const struct pipeline *pl, const struct cmd_entry *e,
		 struct baseline *bl, struct progress *p, struct sbuf *note, struct sbuf *err);

/* The focus steps fpl, then pl's, on h (or on old after a first step
 * gone), then e on the set left: its output appended to out. set is
 * the caller's to free (objset_free) either way. 0, or -1 with err. */
int run_steps(struct heap *h, struct heap *old, struct baseline *bl, const struct pipeline *fpl,
	      const struct pipeline *pl, const struct cmd_entry *e, struct cmd_opts *o, struct objset *set,
	      struct progress *p, struct sbuf *out, struct sbuf *note, struct sbuf *err);

/* "FILE: msg", FILE escaped, appended to err. */
void run_path_error(struct sbuf *err, const char *path, const char *msg);

#endif
