/* view_classes_group.c — the classes view's groupings: the package tree
 * (p) and the classes by defining loader (L). A group's retained size is
 * asked for (E): a sum of its classes' lower bounds bounds nothing. */
#include <stdlib.h>
#include <string.h>

#include "tui/view_classes.h"

/* Where a class name's namespace can end: before its type arguments
 * or array brackets (.NET's "Entry[System.Int32,System.String][]",
 * "List`1[Workload.Key]": the dots inside name other types) */
static size_t ns_end(const char *name)
{
	return strcspn(name, "[<`( ,");
}

/* The package of a class at `depth` segments: "java.util." for depth 2;
 * NULL when the name has fewer dots (the class sits at that level). */
static char *pkg_prefix(const char *name, int depth)
{
	const char *p = name, *end = name + ns_end(name);

	if (name[0] == '[') /* arrays: a package of their own */
		return depth == 1 ? xstrdup("[") : NULL;
	for (int i = 0; i < depth; i++) {
		p = memchr(p, '.', (size_t)(end - p));
		if (p == NULL)
			return NULL;
		p++;
	}
	return xstrndup(name, (size_t)(p - name));
}

static int prefix_depth(const char *prefix)
{
	int d = 0;

	if (strcmp(prefix, "[") == 0)
		return 1;
	for (const char *p = prefix; *p; p++)
		d += *p == '.';
	return d;
}

static uint64_t prefix_key(const char *p)
{
	uint64_t x = 1469598103934665603ull;

	for (; *p; p++)
		x = (x ^ (uint8_t)*p) * 1099511628211ull;
	return x | 1; /* never 0 */
}

static uint64_t loader_key(uint64_t id) { return (id * 0x9e3779b97f4a7c15ull) | 1; }

int group_has(struct tui *t, const struct row *r, uint32_t c)
{
	const struct rowdata *d = r->data;

	if (r->kind == VR_PKG)
		return strncmp(class_name(t->h, c), d->prefix, strlen(d->prefix)) == 0;
	if (r->kind == VR_LOADER)
		return t->h->cls[c].loader_id == d->loader;
	return 0;
}

/* A group row's totals over the visible classes that sel() takes. */
static void group_row(struct tui *t, struct tview *v, struct row *r, uint64_t key)
{
	struct classes_data *cd = v->data;
	uint64_t cnt = 0, sh = 0, ncls = 0, ret = 0;
	struct cls_delta d = { 0 };

	for (size_t j = 0; j < cd->n; j++)
		if (group_has(t, r, cd->rows[j].cls) && class_visible(t, v, cd->rows[j].cls)) {
			cnt += cd->rows[j].count;
			sh += cd->rows[j].shallow;
			add_delta(&d, cd, cd->rows[j].cls);
			ncls++;
		}
	int known = group_exact_get(cd, key, &ret);
	class_vals(v, r, cnt, sh, ret, known, known, cd->d ? &d : NULL);
	r->key = key;
	r->open = 0;
	r->num[0] = cnt;
	r->num[1] = ncls;
}

/* Rows under a prefix ("" at the top): subpackages, then classes. */
void package_level(struct tui *t, struct tview *v, const char *prefix, struct rowvec *out)
{
	struct classes_data *cd = v->data;
	int depth = *prefix ? prefix_depth(prefix) + 1 : 1;
	size_t np = strlen(prefix);
	char **seen = NULL;
	size_t nseen = 0;

	for (size_t i = 0; i < cd->n; i++) {
		const char *name = class_name(t->h, cd->rows[i].cls);
		if (strncmp(name, prefix, np) != 0 || !class_visible(t, v, cd->rows[i].cls))
			continue;
		char *p = NULL;
		if (strcmp(prefix, "[") != 0 && (np > 0 || name[0] == '[' || memchr(name, '.', ns_end(name)) != NULL))
			p = pkg_prefix(name, depth);
		if (p == NULL) { /* the class sits at this level */
			class_row_make(t, v, out, &cd->rows[i]);
			continue;
		}
		size_t k = 0;
		while (k < nseen && strcmp(seen[k], p) != 0)
			k++;
		if (k < nseen) {
			free(p);
			continue;
		}
		seen = xreallocarray(seen, nseen + 1, sizeof *seen);
		seen[nseen++] = p;
		struct row *r = rowvec_add(out);
		struct sbuf l;
		sbuf_init(&l);
		tv_add_esc(&l, p);
		sbuf_adds(&l, "*");
		r->kind = VR_PKG;
		tv_rowdata(r)->prefix = xstrdup(p);
		group_row(t, v, r, prefix_key(p));
		/* "com.sun.tools.*": its packages abbreviate like a class's */
		row_set_named(r, l.buf, 0, l.len > 1 ? l.len - 1 : 0);
		sbuf_free(&l);
	}
	for (size_t k = 0; k < nseen; k++)
		free(seen[k]);
	free(seen);
}

void loader_level(struct tui *t, struct tview *v, struct rowvec *out)
{
	struct classes_data *cd = v->data;
	uint64_t *ids = NULL;
	size_t n = 0;

	for (size_t i = 0; i < cd->n; i++) {
		if (!class_visible(t, v, cd->rows[i].cls))
			continue;
		uint64_t l = t->h->cls[cd->rows[i].cls].loader_id;
		size_t k = 0;
		while (k < n && ids[k] != l)
			k++;
		if (k < n)
			continue;
		ids = xreallocarray(ids, n + 1, sizeof *ids);
		ids[n++] = l;
	}
	for (size_t k = 0; k < n; k++) {
		struct row *r = rowvec_add(out);
		struct sbuf l;
		struct span nm = { 0, 0 };
		node_t ln = ids[k] ? heap_find_id(t->h, ids[k]) : HW_NONE;
		r->kind = VR_LOADER;
		r->node = ln;
		tv_rowdata(r)->loader = ids[k];
		group_row(t, v, r, loader_key(ids[k]));
		sbuf_init(&l);
		if (ids[k] == 0)
			sbuf_adds(&l, "<bootstrap loader>");
		else if (ln != HW_NONE)
			tv_object_text(t->h, ln, &l, &nm);
		else
			sbuf_printf(&l, "loader 0x%llx", (unsigned long long)ids[k]);
		/* classes with instances in the step's set (the class-loaders
		 * inspection counts every class the loader defined) */
		sbuf_printf(&l, "  (%llu classes with instances)", (unsigned long long)r->num[1]);
		row_set_named(r, l.buf, nm.off, nm.len);
		sbuf_free(&l);
	}
	free(ids);
}

void loader_classes(struct tui *t, struct tview *v, uint64_t loader, struct rowvec *out)
{
	struct classes_data *cd = v->data;

	for (size_t k = 0; k < cd->n; k++)
		if (t->h->cls[cd->rows[k].cls].loader_id == loader && class_visible(t, v, cd->rows[k].cls))
			class_row_make(t, v, out, &cd->rows[k]);
}
