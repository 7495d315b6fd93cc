/* export.c — the current step written to a file to show elsewhere (W):
 * the HTML report (its treemap, sunburst, tree, histogram) or a GraphViz
 * graph of its objects. Over SSH there is no browser: the file is
 * written in the working directory (else $TMPDIR or /tmp) and its path
 * shown, for the user to copy. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "query/dot.h"
#include "query/html.h"
#include "tui/frame.h"

#define STR_(x) #x
#define STR(x) STR_(x)

/* "heapwalk-NAME-stepN.EXT": the dump's base name without its
 * extensions, kept to characters any shell and file system take. */
static char *file_name(const struct tui *t, const char *ext)
{
	const char *base = strrchr(t->dump, '/') ? strrchr(t->dump, '/') + 1 : t->dump;
	size_t n = strcspn(base, ".");
	struct sbuf sb;

	sbuf_init(&sb);
	sbuf_adds(&sb, "heapwalk-");
	for (size_t i = 0; i < n && i < 64; i++) {
		char c = base[i];
		sbuf_addc(&sb, (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
				       c == '-' || c == '_' ? c : '_');
	}
	sbuf_printf(&sb, "-step%zu.%s", t->cur + 1, ext);
	return sbuf_detach(&sb);
}

/* out as NAME in the working directory, or in the temporary one where
 * that cannot be written; the path written (caller frees), or NULL with
 * err set (why the working directory would not do). */
static char *write_somewhere(const struct tui *t, const char *name, const struct sbuf *out, struct sbuf *err)
{
	const char *keep[] = { t->dump, t->baseline, NULL };
	const char *tmp = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char cwd[PATH_MAX];
	char *path = NULL;
	struct sbuf again;

	if (getcwd(cwd, sizeof cwd) != NULL) {
		path = xasprintf("%s/%s", strcmp(cwd, "/") == 0 ? "" : cwd, name);
		if (write_file(path, out->buf, out->len, keep, 0, err) == 0)
			return path;
		free(path);
	} else
		sbuf_adds(err, "the working directory is gone");
	path = xasprintf("%s/%s", tmp, name);
	sbuf_init(&again);
	/* a place others can read: the report holds the dump's strings */
	if (write_file(path, out->buf, out->len, keep, 0600, &again) < 0) {
		free(path);
		path = NULL;
	}
	sbuf_free(&again);
	return path;
}

void export_step(struct tui *t)
{
	struct hstep *s = cur_step(t);
	struct sbuf out, err, shown;
	int k = tui_ask(t, "write this step to a file: r the HTML report (treemap, sunburst, tree, classes), "
			   "g a graph of its objects (GraphViz dot)  Esc: nothing");
	char *name = NULL, *path = NULL;
	int rc;

	if (k != 'r' && k != 'g') {
		if (k >= 0)
			tui_message(t, 1, "r writes the report, g the graph: nothing written");
		return;
	}
	sbuf_init(&out);
	sbuf_init(&err);
	tui_work_begin(t, k == 'r' ? "report" : "graph");
	if (k == 'r') {
		struct html_opts o;
		html_opts_default(&o);
		o.expr = s->expr;
		o.progress = &t->prog;
		rc = report_html(s->h, &s->set, &o, &out, &err);
	} else
		rc = graph_dot(s->h, &s->set, 1, GRAPH_MAX_NODES, 0, &out, &err);
	if (tui_work_end(t) < 0 || rc < 0) {
		if (rc < 0 && err.len > 0)
			tui_message(t, 1, "%s", err.buf);
		sbuf_free(&out);
		sbuf_free(&err);
		return;
	}
	name = file_name(t, k == 'r' ? "html" : "dot");
	path = write_somewhere(t, name, &out, &err);
	sbuf_init(&shown);
	if (path == NULL) {
		tui_typed(&shown, name);
		tui_message(t, 1, "%s: %s", shown.buf, err.buf);
	} else {
		char size[32];
		fmt_bytes(size, sizeof size, out.len);
		tui_typed(&shown, path);
		tui_message(t, 0, "wrote %s (%s)%s", shown.buf, size,
			    k == 'r' ? ": open it in a browser"
			    : rc == 1 ? ", cut at " STR(GRAPH_MAX_NODES) " objects: dot -Tsvg renders it"
			    : ": dot -Tsvg renders it");
	}
	sbuf_free(&shown);
	free(path);
	free(name);
	sbuf_free(&out);
	sbuf_free(&err);
}
