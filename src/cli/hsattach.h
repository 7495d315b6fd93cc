/* hsattach.h — HotSpot's attach mechanism spoken by heapwalk itself: no
 * JDK tool (jcmd) is needed, only the JVM. */
#ifndef HW_HSATTACH_H
#define HW_HSATTACH_H

#include <sys/types.h>

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
/* What hs_attach_within and hs_attach_shown return when the JVM did not
 * answer in wall_s seconds (with a line in err): the request was sent,
 * and the JVM may still run it. */
#define HS_LATE (-3)
/* hs_attach, the answer waited for wall_s seconds at most (0: as long as
 * the JVM runs and is not stopped); HS_LATE past it. */
int hs_attach_within(const struct proc_info *p, double wall_s, const char *cmd, const char *const args[3], int *status,
		     struct sbuf *out, struct sbuf *err);

/* What the JVM writes while its answer is awaited: the file name in the
 * directory dir (a descriptor), its size shown on stderr's one line as
 * it grows, a few times a second, when hs_progress is on. The JVM is
 * not touched for it: the file is only looked at. */
struct hs_growth {
	pid_t pid;
	int dir;
	const char *name;
	double t0, shown; /* when asked; when last shown */
	int drawn;        /* a line without its newline on stderr */
	/* the file as last seen at each poll (progress shown or not), held
	 * open so that its inode is not another's later (-1: not seen; set
	 * -1 when made); its device and inode */
	int held;
	dev_t dev;
	ino_t ino;
	uid_t uid; /* the JVM's user: a file of another's is never its dump */
};
/* Progress on (on, and stderr a terminal) or off, for the dumps after. */
void hs_progress(int on);
/* hs_attach_within, g's file shown meanwhile (g NULL: hs_attach_within);
 * g's line is the process's that talks: call it as the JVM's user
 * already (hs_as_user) when heapwalk is root and the JVM another's. */
int hs_attach_shown(const struct proc_info *p, double wall_s, struct hs_growth *g, const char *cmd,
		    const char *const args[3], int *status, struct sbuf *out, struct sbuf *err);
/* After the answer: with ok, g's file (its name now in g->name: the
 * agent renames its file once whole) shown a last time, its line ended;
 * else only the line ended, for an error's line. */
void hs_growth_end(struct hs_growth *g, int ok);
/* g's file no longer held (g NULL: nothing). */
void hs_growth_close(struct hs_growth *g);
/* 1 if g's file, as last seen, is now the file name in g's directory
 * (renamed there, not followed if a link), else 0. */
int hs_growth_is(const struct hs_growth *g, const char *name);

/* Would the JVM p refuse an attach before anything is asked of it:
 * stopped, or its attach mechanism off (its perf data says so, and no
 * socket is open)? -1 with the line open_socket would give in err, or 0
 * (the attach may still fail, saying why). Nothing is sent to p. */
int hs_refuses(const struct proc_info *p, struct sbuf *err);

/* The JVM p's /tmp, resolved inside its root (its absolute symbolic
 * links lead into it, not into ours): a descriptor (O_RDONLY,
 * O_DIRECTORY; the caller's to close), or -1 with one line in err, also
 * on a kernel without openat2(2). */
int hs_jvm_tmp(const struct proc_info *p, struct sbuf *err);
/* prefix and 8 random letters or digits, in out (n bytes): a name no
 * one can guess, to make with O_EXCL or mkdirat. */
void hs_fresh_name(char *out, size_t n, const char *prefix);

/* Run fn(p, arg, out, err) as the JVM p's user: in a child that has
 * dropped to p's uid and gid (heapwalk is root, p another user's), so
 * that nothing it makes, reads or removes in p's directories (where p's
 * user may plant links) is done with root's rights. fn returns 0 with its answer in out, or a
 * negative status (-1, HS_LATE) with one line in err; so does this. Should heapwalk die meanwhile, the
 * child is sent SIGTERM (its guarded files are removed). */
typedef int (*hs_user_fn)(const struct proc_info *p, void *arg, struct sbuf *out, struct sbuf *err);
int hs_as_user(const struct proc_info *p, hs_user_fn fn, void *arg, struct sbuf *out, struct sbuf *err);

/* The first line of s (a JVM's answer, an agent's line) added to out,
 * escaped, its trailing blanks dropped; "no message" if empty. */
void hs_first_line(const char *s, struct sbuf *out);

#endif
