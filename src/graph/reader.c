/* reader.c — the accessors of reader.h: dispatch to the heap's format. */
#include "graph/reader.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "graph/resident.h"

int heap_ids_stable(const struct heap *h)
{
	return h->fmt != NULL && (h->fmt->id_identifies != NULL || ((h->fmt->facts & FF_AGENT_IDS) && h->agent.present));
}

int heap_knows_layout(const struct heap *h)
{
	return h->fmt != NULL && (h->fmt->facts & FF_LAYOUT);
}

int heap_knows_loaders(const struct heap *h)
{
	return h->fmt != NULL && (h->fmt->facts & FF_LOADERS);
}

int heap_knows_supers(const struct heap *h)
{
	return h->fmt != NULL && (h->fmt->facts & FF_SUPERS);
}

int heap_knows_weak_handles(const struct heap *h)
{
	return h->fmt != NULL && (h->fmt->facts & FF_WEAK_HANDLES);
}

int heap_runtime_is(const struct heap *h, const char *runtime)
{
	return h->fmt != NULL && strcmp(h->fmt->runtime, runtime) == 0;
}

const struct runtime_ops *heap_runtime(const struct heap *h)
{
	return h->fmt != NULL ? h->fmt->rt : NULL;
}

const char *coll_role_name(enum coll_role r)
{
	return r == CR_KEY ? "map key" : r == CR_VALUE ? "map value" : "element";
}

int heap_fields(const struct heap *h, node_t v, field_fn fn, void *arg)
{
	return h->fmt != NULL && h->fmt->fields != NULL ? h->fmt->fields(h, v, fn, arg) : -1;
}

int64_t heap_array_length(const struct heap *h, node_t v, uint8_t *elem_type)
{
	return h->fmt != NULL && h->fmt->array_length != NULL ? h->fmt->array_length(h, v, elem_type) : -1;
}

int heap_array_elem(const struct heap *h, node_t v, uint64_t i, struct hvalue *out)
{
	return h->fmt != NULL && h->fmt->array_elem != NULL ? h->fmt->array_elem(h, v, i, out) : -1;
}

int heap_array_data(const struct heap *h, node_t v, struct harray *a)
{
	return h->fmt != NULL && h->fmt->array_data != NULL ? h->fmt->array_data(h, v, a) : -1;
}

const uint8_t *heap_inst_data(const struct heap *h, node_t v, uint32_t *len)
{
	return h->fmt != NULL && h->fmt->inst_data != NULL ? h->fmt->inst_data(h, v, len) : NULL;
}

int heap_string(const struct heap *h, node_t v, struct sbuf *out, size_t max)
{
	return h->fmt != NULL && h->fmt->string_value != NULL ? h->fmt->string_value(h, v, out, max) : -1;
}

int heap_has_strings(const struct heap *h)
{
	return h->fmt != NULL && h->fmt->string_value != NULL;
}

int heap_is_string(const struct heap *h, node_t v)
{
	return h->fmt != NULL && h->fmt->is_string != NULL && v != 0 && v < h->n && h->fmt->is_string(h, v);
}

void heap_edge_label(const struct heap *h, node_t src, node_t dst, struct sbuf *out)
{
	if (src == 0 || src >= h->n || dst >= h->n)
		sbuf_adds(out, "<root>");
	else if (h->fmt != NULL && h->fmt->edge_label != NULL)
		h->fmt->edge_label(h, src, dst, out);
	else
		sbuf_adds(out, "<?>");
}

int heap_may_be_earlier(const struct heap *h, node_t v, uint64_t was)
{
	return h->node_shallow[v] <= was || h->fmt == NULL || h->fmt->may_grow == NULL || h->fmt->may_grow(h, v);
}

int heap_never_grows(const struct heap *h, node_t v)
{
	(void)h, (void)v;
	return 0;
}

int label_is_element(const char *s, size_t n)
{
	if (n >= 3 && s[0] == '[' && s[n - 1] == ']') {
		size_t k = s[1] == '+' ? 2 : 1;
		return n - 1 > k && strspn(s + k, "0123456789") == n - 1 - k;
	}
	return n >= 1 && strspn(s, "0123456789") == n;
}

uint32_t heap_alloc_trace(const struct heap *h, node_t v)
{
	return h->fmt != NULL && h->fmt->alloc_trace != NULL && v != 0 && v < h->n
		? h->fmt->alloc_trace(h, v) : 0;
}

const char *heap_alloc_hint(const struct heap *h)
{
	return h->fmt != NULL && h->fmt->alloc_hint != NULL ? h->fmt->alloc_hint
							     : "this format has none";
}

const struct alloc_times *heap_alloc_times(struct heap *h)
{
	if (h->atimes != NULL)
		return h->atimes;
	h->atimes = xcalloc(1, sizeof *h->atimes);
	h->atimes->origin = "start";
	if (h->fmt != NULL && h->fmt->alloc_times != NULL && h->fmt->alloc_times(h, h->atimes) < 0) {
		alloc_times_free(h->atimes);
		memset(h->atimes, 0, sizeof *h->atimes);
		h->atimes->origin = "start";
	}
	return h->atimes;
}

const char *heap_time_hint(const struct heap *h)
{
	return h->fmt != NULL && h->fmt->time_hint != NULL ? h->fmt->time_hint
		: "this format records none";
}

void alloc_times_free(struct alloc_times *t)
{
	if (t != NULL) {
		free(t->node);
		free(t->ms);
	}
}

/* The reader's own kind native, of a record of that kind; NULL for a
 * pseudo kind or one past the reader's table. */
static const struct root_native *native_of(const struct heap *h, unsigned kind, unsigned native)
{
	if (kind >= RK_WEAK_ONLY || h->fmt == NULL || native >= h->fmt->nroot_natives)
		return NULL;
	return &h->fmt->root_natives[native];
}

const struct root_native *heap_root_native(const struct heap *h, const struct root *r)
{
	return native_of(h, r->kind, r->native);
}

void heap_root_kind(const struct heap *h, unsigned kind, unsigned native, struct sbuf *out)
{
	const struct root_native *n = native_of(h, kind, native);
	const char *name = root_kind_name(kind);

	sbuf_adds(out, name);
	if (n != NULL && strcmp(n->name, name) != 0) /* the reader's name says more */
		sbuf_printf(out, ": %s", n->name);
}

int heap_root_has_thread(const struct heap *h, const struct root *r)
{
	const struct root_native *n = heap_root_native(h, r);

	return n != NULL && n->thread;
}

void heap_root_detail(const struct heap *h, const struct root *r, struct sbuf *out)
{
	if (h->fmt != NULL && h->fmt->root_detail != NULL)
		h->fmt->root_detail(h, r, out);
}

const char *heap_gen_name(const struct heap *h, unsigned g)
{
	return h->node_gen != NULL && h->fmt != NULL && h->fmt->gen_name != NULL && g < HW_MAX_GENS
		? h->fmt->gen_name(g) : NULL;
}

int heap_gen_find(const struct heap *h, const char *s)
{
	const char *name;

	for (unsigned g = 0; (name = heap_gen_name(h, g)) != NULL; g++) {
		size_t n = strlen(name);
		/* "gen2" also as "2" */
		if (strcasecmp(s, name) == 0 || (n > 3 && strncasecmp(name, "gen", 3) == 0 &&
						   strcasecmp(s, name + 3) == 0))
			return (int)g;
	}
	return -1;
}

void heap_gen_none(const struct heap *h, struct sbuf *out)
{
	sbuf_adds(out, "this dump tells no GC generations (");
	if (h->fmt != NULL && h->fmt->gen_told != NULL)
		sbuf_adds(out, h->fmt->gen_told);
	else
		sbuf_printf(out, "no %s dump does", h->fmt != NULL ? h->fmt->title : "such");
	sbuf_addc(out, ')');
}

void heap_refs_changing(struct heap *h)
{
	if (h->fmt == NULL || h->fmt->refs_change == NULL)
		return;
	heap_load(h, HP_OUT | HP_WEAK, NULL);
	h->fmt->refs_change(h);
}
