/* between.c — the path between two objects, see between.h. */
#include "query/between.h"

#include <string.h>

#include "query/pattern.h"
#include "query/views.h"

int between_ids(const struct heap *h, const char *from, const char *to, unsigned flags,
		struct between *b, struct progress *p, struct sbuf *err)
{
	node_t a, z;

	memset(b, 0, sizeof *b);
	if ((a = object_by_id(h, from, strlen(from), err)) == HW_NONE ||
	    (z = object_by_id(h, to, strlen(to), err)) == HW_NONE)
		return -1;
	return between_nodes(h, a, z, flags, b, p, err);
}

int between_nodes(const struct heap *h, node_t from, node_t to, unsigned flags, struct between *b,
		  struct progress *p, struct sbuf *err)
{
	memset(b, 0, sizeof *b);
	b->from = from;
	b->to = to;
	b->flags = flags;
	int rc = reach_path(h, from, to, flags, &b->path, p);
	if (rc < 0) {
		sbuf_adds(err, "cancelled");
		return -1;
	}
	b->found = rc;
	return 0;
}

void between_free(struct between *b)
{
	reach_path_free(&b->path);
}

void between_none(const struct heap *h, const struct between *b, struct sbuf *out)
{
	char a[32], z[32];
	int weak = (b->flags & REACH_WEAK) != 0, either = (b->flags & REACH_UNDIRECTED) != 0;

	node_id_text(h, b->from, a, sizeof a);
	node_id_text(h, b->to, z, sizeof z);
	sbuf_printf(out, "no path from %s to %s %s %sreferences", a, z, either ? "over" : "along",
		    weak ? "strong and weak " : "strong ");
	if (either)
		sbuf_adds(out, " either way");
	if (!weak || !either) /* what else could find one: the step's word, the option */
		sbuf_printf(out, " (%s%s%s)", weak ? "" : "weak ones too: weak, --weak",
			    !weak && !either ? "; " : "", either ? "" : "either way: undirected, --undirected");
}

void between_expr(const struct heap *h, const struct between *b, struct sbuf *out)
{
	char a[32], z[32];

	node_id_text(h, b->from, a, sizeof a);
	node_id_text(h, b->to, z, sizeof z);
	sbuf_printf(out, "path %s %s%s%s", a, z, b->flags & REACH_UNDIRECTED ? " undirected" : "",
		    b->flags & REACH_WEAK ? " weak" : "");
}
