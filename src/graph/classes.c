/* classes.c — the names table, fields by name or offset, JVM names of
 * array classes: see classes.h. */
#include "graph/classes.h"

#include <stdlib.h>
#include <string.h>

static void names_rehash(struct nametab *t)
{
	struct heap *h = t->h;
	size_t cap = t->hash_cap ? t->hash_cap * 2 : 4096;
	uint32_t *nh = xmalloc(cap * sizeof *nh);

	memset(nh, 0xff, cap * sizeof *nh);
	for (size_t i = 0; i < t->hash_cap; i++) {
		uint32_t off = t->hash[i];
		if (off == HW_NONE)
			continue;
		const char *s = h->names + off;
		size_t j = hw_fnv(s, strlen(s)) & (cap - 1);
		while (nh[j] != HW_NONE)
			j = (j + 1) & (cap - 1);
		nh[j] = off;
	}
	free(t->hash);
	t->hash = nh;
	t->hash_cap = cap;
}

uint32_t names_intern(struct nametab *t, const char *s, size_t len)
{
	struct heap *h = t->h;

	if (memchr(s, 0, len) != NULL) {
		/* names are C strings: a NUL (invalid in modified UTF-8, so a
		 * crafted dump) is kept as Java's own C0 80, shown \x00 */
		struct sbuf sb;
		sbuf_init(&sb);
		for (size_t i = 0; i < len; i++)
			if (s[i] == '\0')
				sbuf_add(&sb, "\xc0\x80", 2);
			else
				sbuf_addc(&sb, s[i]);
		uint32_t off = names_intern(t, sb.buf, sb.len);
		sbuf_free(&sb);
		return off;
	}
	if (t->hash == NULL || t->hash_used * 2 >= t->hash_cap)
		names_rehash(t);
	size_t j = hw_fnv(s, len) & (t->hash_cap - 1);
	for (; t->hash[j] != HW_NONE; j = (j + 1) & (t->hash_cap - 1)) {
		const char *q = h->names + t->hash[j];
		if (strncmp(q, s, len) == 0 && q[len] == '\0')
			return t->hash[j];
	}
	if (h->names_len + len + 1 > t->names_cap) {
		while (h->names_len + len + 1 > t->names_cap)
			t->names_cap = t->names_cap ? t->names_cap * 2 : 65536;
		h->names = xrealloc(h->names, t->names_cap);
	}
	uint32_t off = h->names_len;
	memcpy(h->names + off, s, len);
	h->names[off + len] = '\0';
	h->names_len += (uint32_t)len + 1;
	t->hash[j] = off;
	t->hash_used++;
	return off;
}

const struct hfield *class_field(const struct heap *h, uint32_t c, const char *name, uint32_t *off)
{
	for (uint32_t d = c, depth = 0; d < h->ncls && depth < h->ncls; d = h->cls[d].super, depth++)
		for (unsigned i = 0; i < h->cls[d].nfields; i++) {
			const struct hfield *f = &h->fields[h->cls[d].field_first + i];
			if (strcmp(heap_str(h, f->name), name) == 0) {
				*off = class_field_base(h, c, d) + f->off;
				return f;
			}
		}
	return NULL;
}

const struct hfield *class_field_at(const struct heap *h, uint32_t c, uint32_t off)
{
	for (uint32_t d = c, depth = 0; d < h->ncls && depth < h->ncls; d = h->cls[d].super, depth++)
		for (unsigned i = 0; i < h->cls[d].nfields; i++) {
			const struct hfield *f = &h->fields[h->cls[d].field_first + i];
			if (class_field_base(h, c, d) + f->off == off)
				return f;
		}
	return NULL;
}

void names_free(struct nametab *t)
{
	free(t->hash);
	t->hash = NULL;
}

uint32_t class_by_name(struct heap *h, struct class_names *cn, uint32_t name, uint64_t id)
{
	if (name >= cn->n) {
		uint32_t m = h->names_len + 1;
		cn->of = xreallocarray(cn->of, m, sizeof *cn->of);
		memset(cn->of + cn->n, 0xff, (size_t)(m - cn->n) * sizeof *cn->of);
		cn->n = m;
	}
	if (cn->of[name] == HW_NONE) {
		VEC_GROW(h->cls, h->ncls, cn->cls_cap);
		cn->of[name] = h->ncls++;
		h->cls[cn->of[name]] = (struct hclass){ .id = id, .node = HW_NONE, .name = name, .super = HW_NONE,
							.referent_off = HW_NONE };
	}
	return cn->of[name];
}

void class_names_free(struct class_names *cn)
{
	free(cn->of);
	memset(cn, 0, sizeof *cn);
}

char *class_internal_name(const char *name)
{
	static const struct { const char *java; char code; } prim[] = {
		{ "boolean", 'Z' }, { "byte", 'B' }, { "char", 'C' }, { "short", 'S' },
		{ "int", 'I' }, { "long", 'J' }, { "float", 'F' }, { "double", 'D' },
	};
	size_t len = strlen(name), dims = 0;
	struct sbuf sb;

	while (len >= 2 && name[len - 2] == '[' && name[len - 1] == ']') {
		len -= 2;
		dims++;
	}
	if (dims == 0 || len == 0)
		return xstrdup(name);
	sbuf_init(&sb);
	for (size_t i = 0; i < dims; i++)
		sbuf_addc(&sb, '[');
	for (size_t i = 0; i < sizeof prim / sizeof *prim; i++)
		if (strlen(prim[i].java) == len && strncmp(name, prim[i].java, len) == 0) {
			sbuf_addc(&sb, prim[i].code);
			return sbuf_detach(&sb);
		}
	sbuf_addc(&sb, 'L');
	sbuf_add(&sb, name, len);
	sbuf_addc(&sb, ';');
	return sbuf_detach(&sb);
}

uint32_t heap_class_of_node(const struct heap *h, node_t v)
{
	if (h->cls_node == NULL || h->cls_node_of != h->ncls) {
		/* the heap's own table, made when first asked: a view holds
		 * the heap as const, and classes are only ever added */
		struct heap *m = (struct heap *)h;
		uint32_t k = 0;
		m->cls_node = xreallocarray(m->cls_node, (size_t)h->ncls + 1, sizeof *m->cls_node);
		for (uint32_t c = 0; c < h->ncls; c++)
			if (h->cls[c].node != HW_NONE)
				m->cls_node[k++] = (uint64_t)h->cls[c].node << 32 | c;
		sort_u64(m->cls_node, k);
		m->ncls_node = k;
		m->cls_node_of = h->ncls;
	}
	size_t i = lower_bound_u64(h->cls_node, h->ncls_node, (uint64_t)v << 32); /* the first of node v */
	return i < h->ncls_node && h->cls_node[i] >> 32 == v ? (uint32_t)h->cls_node[i] : HW_NONE;
}

static int any_qual(const struct heap *h)
{
	for (uint32_t c = 0; c < h->ncls; c++)
		if (h->cls[c].qual != 0)
			return 1;
	return 0;
}

int classes_qualified(const struct heap *a, const struct heap *b)
{
	return any_qual(a) && any_qual(b);
}
