/* keys.h — every request the browser understands, in one X-macro list
 * (the enum, the help screen and the man page's key list all come from
 * it), and the default bindings as data. */
#ifndef HW_KEYS_H
#define HW_KEYS_H

#include <stddef.h>

/* REQ(id, section, help) */
#define REQ_LIST(REQ) \
	REQ(UP,          "Moving",  "Move up one row") \
	REQ(DOWN,        "Moving",  "Move down one row") \
	REQ(PAGE_UP,     "Moving",  "Move up one page") \
	REQ(PAGE_DOWN,   "Moving",  "Move down one page") \
	REQ(TOP,         "Moving",  "Go to the first row") \
	REQ(BOTTOM,      "Moving",  "Go to the last row") \
	REQ(EXPAND,      "Moving",  "Expand the row (references, children, fields); inspections: run") \
	REQ(COLLAPSE,    "Moving",  "Collapse the row, or go to its parent row") \
	REQ(NEXT_VIEW,   "Views",   "Next view") \
	REQ(PREV_VIEW,   "Views",   "Previous view") \
	REQ(GROUP,       "Views",   "Biggest: group by class; merged: by class or by field; allocations: hot spots or call tree") \
	REQ(NULLS,       "Views",   "Outgoing: show or hide null fields") \
	REQ(WEAK,        "Views",   "Incoming and paths: include weak references or not; Merged in: hide or show the weak and soft holders and those not owning (shown, marked (weak) and (not owning), by default)") \
	REQ(PATHS,       "Views",   "Incoming: paths to GC roots of the cursor's object, or back; inspections: run again") \
	REQ(LIFELINES,   "Views",   "Incoming: lifelines of the cursor's object (its short paths to GC roots or owned objects, grouped by class and field, counted), or back") \
	REQ(REVERSE,     "Views",   "Dominating: GC roots to objects (the dominator tree from the top down), or back") \
	REQ(RULES,       "Views",   "Rules: turn groups of reference-classifier rules on or off, recompute") \
	REQ(USE,         "Steps",   "Use the marked rows, or the cursor row: a new step") \
	REQ(MARK,        "Steps",   "Mark or unmark the row (multiple selection)") \
	REQ(USE_MENU,    "Steps",   "Use menu: retained, referrers, referents, dominated, top, class objects, elements, loaded, new, old, gone, age (a GC generation), unknown (neither new nor old)") \
	REQ(USE_RETAINED,"Steps",   "Use the objects the current set retains") \
	REQ(USE_REFERRERS,"Steps",  "Use the objects referring to the set") \
	REQ(USE_REFERENTS,"Steps",  "Use the objects the set refers to") \
	REQ(USE_DOMINATED,"Steps",  "Use the objects the set dominates directly") \
	REQ(USE_REACHED, "Steps",   "Merged views: use the set's objects reached through the row") \
	REQ(USE_NEW,     "Steps",   "Use the set's objects created since the baseline or mark") \
	REQ(USE_OLD,     "Steps",   "Use the set's objects that existed at the baseline or mark") \
	REQ(USE_GONE,    "Steps",   "Use the baseline's objects that are gone: a step on its side") \
	REQ(BASELINE,    "Steps",   "Load a baseline: the earlier dump to compare with (a Mono .mlpd: FILE:N, or :N for heapshot N of this file)") \
	REQ(HEAPSHOT,    "Steps",   "Mono .mlpd: open another heapshot of the file (the steps start anew)") \
	REQ(BACK,        "Steps",   "Back to the previous step") \
	REQ(FORWARD,     "Steps",   "Forward to the next step") \
	REQ(FIRST_STEP,  "Steps",   "Go to the first step (as 1 does; g and Home go to the first row)") \
	REQ(STEP_LIST,   "Steps",   "Pick any step of the history") \
	REQ(JUMP,        "Steps",   "Jump to that step of the breadcrumb") \
	REQ(EXPR,        "Steps",   "The command that makes this step, whole: then c copies it (OSC 52), w appends it to a file") \
	REQ(COMMAND,     "Steps",   "Prompt for steps and a view as -e takes them, applied to this step (Tab completes, Up/Down: history)") \
	REQ(ROOT,        "Steps",   "The cursor's object as the analysis root: analyse only what it reaches, as if it were the only GC root (step root)") \
	REQ(IGNORE,      "Steps",   "Leave out the cursor row's reference (a referrer, a path's row, a field) and analyse again (step ignore)") \
	REQ(FOCUS,       "Steps",   "The analysis root and the references left out: Enter undoes one") \
	REQ(RETAINED,    "Steps",   "Compute the exact retained size of the current set") \
	REQ(DEEP,        "Steps",   "Compute the deep size of the current set: everything it reaches, itself included") \
	REQ(BETWEEN,     "Steps",   "Path between the two marked objects (or the marked one and the cursor's): asks which way, makes it a step") \
	REQ(EXACT,       "Classes", "Exact retained size of the marked classes, or of the visible rows") \
	REQ(PACKAGES,    "Classes", "Toggle the package tree") \
	REQ(LOADERS,     "Classes", "Toggle grouping by class loader") \
	REQ(LOADER_ONLY, "Classes", "By loader: every view of this step shows only the cursor's loader's objects, and the steps made from it (again: off)") \
	REQ(DELTA,       "Classes", "With a baseline: new and gone columns, or retained ones") \
	REQ(UNREACHABLE, "Classes", "The histogram of the unreachable objects, the dump's garbage: every view of this step shows only them; again: only the live ones (Eclipse MAT's histogram); a third time: all") \
	REQ(SEARCH,      "Finding", "Search the rows (PCRE2)") \
	REQ(SEARCH_NEXT, "Finding", "Next match") \
	REQ(SEARCH_PREV, "Finding", "Previous match") \
	REQ(FILTER,      "Finding", "Filter the rows by a PCRE2 regex as you type (Classes, Allocations, Time, Leaks, Inspections); the cursor keeps its row, or goes to the first if the filter drops it") \
	REQ(SORT,        "Finding", "Classes: sort by the key pressed next: n, i, s, r (g: growth); again: reverse; the cursor keeps its class, the first rows shown when they fit") \
	REQ(ROW,         "Other",   "The cursor row whole in a box: its label, which a narrow screen cuts, and every column's value, by its title where it has one") \
	REQ(HELP,        "Other",   "This help") \
	REQ(EXPORT,      "Other",   "Write this step to a file to show elsewhere: r the HTML report (treemap, sunburst, dominator tree, classes), g a GraphViz graph of its objects; the path is shown") \
	REQ(REDRAW,      "Other",   "Redraw the screen") \
	REQ(SUSPEND,     "Other",   "Suspend to the shell (as kill -TSTP); fg resumes") \
	REQ(QUIT,        "Other",   "Quit")

#define REQ_ENUM(id, sec, help) REQ_##id,
enum request { REQ_NONE, REQ_LIST(REQ_ENUM) REQ_COUNT };
#undef REQ_ENUM

struct binding {
	int key;            /* ncurses key code or character */
	enum request req;
	const char *name;   /* as the help screen and the man page spell it */
};

extern const struct binding bindings[];
extern const size_t nbindings;

enum request key_request(int key);
/* The requests' help lines with their keys, for the help screen (one
 * entry per line, section headers included) or as mdoc for the man
 * page. Appends to out. */
struct sbuf;
void keys_help(struct sbuf *out);
void keys_mdoc(struct sbuf *out);

#endif
