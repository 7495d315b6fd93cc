/* view.h — what the views (view_*.c) share: row kinds, the node lists
 * rows carry, texts made the same way in every view, and their ops
 * tables. Views reach the frame only through tui.h. */
#ifndef HW_VIEW_H
#define HW_VIEW_H

#include "tui/tui.h"

#define PAGE 500          /* objects (or groups) listed at once in a large set */
#define EXPR_MAX_IDS 1000 /* a longer selection gets no -e expression */

/* Row kinds (struct row.kind). VR_: not to be read as GC root kinds. */
enum row_kind {
	VR_OBJ = 1, VR_CLASS, VR_PKG, VR_LOADER, VR_FOLD, VR_GROUP, VR_MORE, VR_FIELD,
	VR_ELEM_MORE, VR_ROOT, VR_PATH, VR_INFO, VR_GONECLS, VR_ALLOC, VR_CAT, VR_INSP, VR_IGROUP,
	VR_TIME
};

/* What a row stands for beyond its node: a node list (folded and group
 * rows), a name prefix (packages), a merged group. Owned by the row. */
struct rowdata {
	node_t *nodes;
	size_t n;
	node_t *reached;
	size_t nreached;
	char *prefix;
	uint64_t loader;    /* loader rows; gone-only class rows: the baseline's class */
	char *field;        /* merged groups: the field, by field; raw dump text */
	int coll;           /* merged groups: the field names a collection's role */
	int weak;           /* merged groups: weak holders */
};

/* The row's rowdata, made on first use; freed by tv_rowdata_free (a
 * view's row_free). */
struct rowdata *tv_rowdata(struct row *r);
void tv_rowdata_free(struct row *r);

/* ---- texts (appended, escaped) ---- */
struct span {
	size_t off, len;    /* a class name's bytes in a label */
};
void tv_add_esc(struct sbuf *sb, const char *s);
void tv_add_bytes(struct sbuf *sb, uint64_t b);
double tv_pct(uint64_t a, uint64_t of);
/* "java.util.HashMap 0x7ff0012a8" and a String's value; *name (if not
 * NULL) where the class name is in sb */
void tv_object_text(const struct heap *h, node_t v, struct sbuf *sb, struct span *name);
/* The class's name, escaped; *name (if not NULL) where it is in sb. */
void tv_class_text(const struct heap *h, uint32_t c, struct sbuf *sb, struct span *name);

/* ---- rows ---- */
/* Does v have something the outgoing view can list (fields, elements)? */
int tv_has_children_out(const struct heap *h, node_t v);
/* An object's row: label, shallow and retained size (val[0], val[1]),
 * for the columns tv_object_cols. */
struct row *tv_object_row(const struct heap *h, struct rowvec *out, node_t v);
extern const struct column tv_object_cols[2];
enum page_kind { PAGE_OUT, PAGE_IN, PAGE_IN_WEAK };
/* The step's objects from the from-th, a page at a time, biggest
 * retained first, expandable as the kind of view lists them; a "more"
 * row (VR_MORE, num[0] = the next index) when there are more. */
void tv_object_page(struct tui *t, struct tview *v, size_t from, struct rowvec *out, enum page_kind k);
/* The data tv_object_page keeps in v->data: a view's data_free. */
void tv_page_free(void *data);

/* ---- steps ---- */
/* "instances NAME", the name as a regex when it has to be; appends. */
void tv_instances_expr(struct sbuf *ex, const char *name);
/* Class indices (uint32_t) by name, then index; ctx: the heap. */
int cmp_cls_name(const void *a, const void *b, void *ctx);
/* 1 if no class outside m[] (a byte per class, nonzero: chosen) has
 * the name of a class in it: "instances NAME" then names just these. */
int tv_names_unique(const struct heap *h, const uint8_t *m);
/* A PCRE2 literal: \Q...\E, a \E or / inside split out; appends. */
void tv_rx_literal(struct sbuf *sb, const char *s);
/* A canonical "object ID,..." step for the nodes, or NULL if too many
 * (or none). Caller frees. */
char *tv_ids_expr(const struct heap *h, const node_t *a, size_t n);
/* The nodes of the marked rows (or the cursor row), or their reached
 * nodes, as a new step titled after `what`; -1 (message set) if none. */
int tv_use_nodes(struct tui *t, struct tview *v, int reached, struct use *u, const char *what);

extern const struct view_ops classes_ops, biggest_ops, outgoing_ops, incoming_ops, merged_out_ops,
	merged_in_ops, merged_dom_ops, leaks_ops, alloc_ops, insp_ops, time_ops;

#endif
