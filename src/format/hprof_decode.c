/* hprof_decode.c — lazy decoding of one record for the views: fields,
 * array elements, String values, how one object refers to another.
 * Records were bounds-checked by the pass that found them, but a node's
 * offset may come from an index cache, checked at load only for the
 * fixed part of its kind's record: so every read of what varies (a
 * record of another tag, field bytes, elements, lists) is checked
 * against the mapping here. */
#include "format/hprof.h"

#include <string.h>

static void read_value(const uint8_t *p, uint8_t type, unsigned ids, struct hvalue *v)
{
	v->type = type;
	v->v.u = 0;
	switch (type) {
	case T_OBJECT: v->v.id = beid(p, ids); break;
	case T_BOOLEAN: case T_BYTE: v->v.i = (int8_t)p[0]; break;
	case T_CHAR: v->v.u = be16(p); break;
	case T_SHORT: v->v.i = (int16_t)be16(p); break;
	case T_INT: v->v.i = (int32_t)be32(p); break;
	case T_LONG: v->v.i = (int64_t)be64(p); break;
	case T_FLOAT: { uint32_t b = be32(p); memcpy(&v->v.f, &b, 4); break; }
	case T_DOUBLE: { uint64_t b = be64(p); memcpy(&v->v.d, &b, 8); break; }
	}
}

const uint8_t *hprof_cd_statics(const uint8_t *r, unsigned ids)
{
	unsigned ncp;
	const uint8_t *q = hprof_list(hprof_cd_pool(r, ids), &ncp);

	for (unsigned i = 0; i < ncp; i++)
		q = hprof_pool_next(q, ids);
	return q;
}

const uint8_t *hprof_cd_fields(const uint8_t *r, unsigned ids)
{
	unsigned nst;
	const uint8_t *q = hprof_list(hprof_cd_statics(r, ids), &nst);

	for (unsigned i = 0; i < nst; i++)
		q = hprof_static_next(q, ids);
	return q;
}

int hprof_nodes_valid(const struct heap *h)
{
	for (node_t v = 1; v < h->n; v++)
		if (!hprof_rec_fits(h, v, hprof_rec_min(h->node_kind[v], h->layout.idsize)))
			return 0;
	return 1;
}

/* Node v's record and its tag, if the fixed part that tag has lies
 * inside the mapping; NULL otherwise. */
static const uint8_t *rec_of(const struct heap *h, node_t v, uint8_t *tag)
{
	unsigned ids = h->layout.idsize;
	const uint8_t *q;

	if (v == 0 || v >= h->n || !hprof_rec_fits(h, v, 1))
		return NULL;
	q = hprof_node_rec(h, v);
	*tag = hprof_rec_tag(q);
	unsigned kind = *tag == HPROF_INSTANCE ? NK_INSTANCE : *tag == HPROF_OBJ_ARRAY ? NK_OBJARRAY
		      : *tag == HPROF_CLASS_DUMP ? NK_CLASS
		      : *tag == HPROF_PRIM_ARRAY || *tag == HPROF_PRIM_ARRAY_NODATA ? NK_PRIMARRAY : NK_ROOT;
	return hprof_rec_fits(h, v, hprof_rec_min(kind, ids)) ? q : NULL;
}

/* A class dump's static fields: the first and how many lie whole inside
 * the mapping (the constant pool before them stepped over with checks). */
static const uint8_t *cd_statics(const struct heap *h, const uint8_t *r, unsigned *nst)
{
	unsigned ids = h->layout.idsize, ncp, n;
	const uint8_t *end = h->map + h->size, *q = hprof_list(hprof_cd_pool(r, ids), &ncp);

	*nst = 0;
	for (unsigned i = 0; i < ncp; i++) {
		if (end - q < 3 || hprof_type_size(q[2], ids) == 0 || (size_t)(end - q) < 3 + hprof_type_size(q[2], ids))
			return NULL;
		q = hprof_pool_next(q, ids);
	}
	if (end - q < 2)
		return NULL;
	q = hprof_list(q, &n);
	const uint8_t *first = q;
	for (; *nst < n; ++*nst) {
		if ((size_t)(end - q) < ids + 1 || hprof_type_size(q[ids], ids) == 0 ||
		    (size_t)(end - q) < ids + 1 + hprof_type_size(q[ids], ids))
			break;
		q = hprof_static_next(q, ids);
	}
	return first;
}

/* Static fields' names follow the class's instance fields in
 * heap->fields (classes.c keeps them). */
int hprof_fields(const struct heap *h, node_t v, field_fn fn, void *arg)
{
	unsigned ids = h->layout.idsize;
	const uint8_t *q;
	uint8_t tag;
	int n = 0;

	if ((q = rec_of(h, v, &tag)) == NULL)
		return -1;
	if (tag == HPROF_INSTANCE) {
		uint32_t nbytes = 0;
		const uint8_t *data = hprof_inst_data(h, v, &nbytes); /* cut at the mapping's end */
		uint32_t c = h->node_class[v];
		if (data == NULL)
			return -1;
		for (uint32_t d = c, depth = 0; d != HW_NONE && depth < h->ncls; d = h->cls[d].super, depth++)
			for (unsigned i = 0; i < h->cls[d].nfields; i++) {
				const struct hfield *f = &h->fields[h->cls[d].field_first + i];
				uint32_t off = class_field_base(h, c, d) + f->off;
				struct hvalue val;
				if ((uint64_t)off + hprof_type_size(f->type, ids) > nbytes)
					return n;
				read_value(data + off, f->type, ids, &val);
				fn(arg, heap_str(h, f->name), &val);
				n++;
			}
		return n;
	}
	if (tag == HPROF_CLASS_DUMP) {
		unsigned nst;
		const uint8_t *s = cd_statics(h, q, &nst);
		uint32_t c = heap_class_of_node(h, v); /* the class this node describes; views only */
		for (unsigned i = 0; i < nst; i++) {
			struct hvalue val;
			const char *name = "?";
			if (c != HW_NONE && i < h->cls[c].nstatics)
				name = heap_str(h, h->fields[h->cls[c].field_first + h->cls[c].nfields + i].name);
			read_value(hprof_static_value(s, ids), hprof_entry_type(s, ids), ids, &val);
			fn(arg, name, &val);
			s = hprof_static_next(s, ids);
			n++;
		}
		return n;
	}
	return -1;
}

int64_t hprof_array_length(const struct heap *h, node_t v, uint8_t *elem_type)
{
	unsigned ids = h->layout.idsize;
	const uint8_t *q;
	uint8_t tag;

	if ((q = rec_of(h, v, &tag)) == NULL)
		return -1;
	switch (tag) {
	case HPROF_OBJ_ARRAY:
		*elem_type = T_OBJECT;
		return hprof_arr_len(q, ids);
	case HPROF_PRIM_ARRAY: case HPROF_PRIM_ARRAY_NODATA:
		*elem_type = hprof_primarr_type(q, ids);
		return hprof_arr_len(q, ids);
	default:
		return -1;
	}
}

int hprof_array_elem(const struct heap *h, node_t v, uint64_t i, struct hvalue *out)
{
	struct harray a;

	/* the elements checked to lie inside the mapping */
	if (hprof_array_data(h, v, &a) < 0 || a.data == NULL || i >= a.len)
		return -1;
	read_value(a.data + i * a.esize, a.type, h->layout.idsize, out);
	return 0;
}

struct strfind { const char *want; struct hvalue val; int found; };

static void find_field(void *arg, const char *name, const struct hvalue *val)
{
	struct strfind *f = arg;

	if (!f->found && strcmp(name, f->want) == 0) {
		f->val = *val;
		f->found = 1;
	}
}

/* JDK 9+ compact strings: byte[] value, coder 0 = Latin-1, 1 = UTF-16
 * (big-endian in the dump? no: the JVM's native order, little-endian
 * on x86, which the dump copies as bytes). JDK 8: char[] value. */
int hprof_string_value(const struct heap *h, node_t v, struct sbuf *out, size_t max)
{
	struct strfind f = { "value", { 0 }, 0 }, coder = { "coder", { 0 }, 0 };
	uint8_t t;

	if (v == 0 || v >= h->n || strcmp(class_name(h, h->node_class[v]), "java.lang.String") != 0)
		return -1;
	hprof_fields(h, v, find_field, &f);
	hprof_fields(h, v, find_field, &coder);
	node_t a = f.found ? heap_find_id(h, f.val.v.id) : HW_NONE;
	struct harray arr;
	if (a == HW_NONE || hprof_array_data(h, a, &arr) < 0 || arr.data == NULL || arr.type == T_OBJECT)
		return -1;
	t = arr.type;
	int64_t len = (int64_t)arr.len;
	const uint8_t *d = arr.data;
	size_t start = out->len;
	int utf16 = t == T_CHAR || (coder.found && coder.val.v.i == 1);
	uint64_t n = t == T_CHAR ? (uint64_t)len : utf16 ? (uint64_t)len / 2 : (uint64_t)len;
	unsigned hi = 0; /* a high surrogate waiting for its low one */
	uint32_t cp[2];
	for (uint64_t i = 0; i < n; i++) {
		if (out->len - start >= max) {
			sbuf_adds(out, "...");
			return 0;
		}
		unsigned u = t == T_CHAR ? be16(d + 2 * i) : utf16 ? (unsigned)d[2 * i] | (unsigned)d[2 * i + 1] << 8 : d[i];
		for (int k = 0, m = utf16_join(&hi, u, cp); k < m; k++)
			sbuf_add_utf8(out, cp[k]);
	}
	if (utf16_flush(&hi, cp))
		sbuf_add_utf8(out, cp[0]);
	return 0;
}

struct labelfind { const struct heap *h; uint64_t want; struct sbuf *out; int found; };

static void label_field(void *arg, const char *name, const struct hvalue *val)
{
	struct labelfind *l = arg;

	if (!l->found && val->type == T_OBJECT && val->v.id == l->want) {
		sbuf_adds(l->out, name);
		l->found = 1;
	}
}

void hprof_edge_label(const struct heap *h, node_t src, node_t dst, struct sbuf *out)
{
	unsigned ids = h->layout.idsize;
	struct labelfind l = { h, heap_node_id(h, dst), out, 0 };
	const uint8_t *q;
	uint8_t tag = 0;

	if (src == 0 || src >= h->n || dst >= h->n) {
		sbuf_adds(out, "<root>");
		return;
	}
	q = rec_of(h, src, &tag);
	if (q == NULL) {
		tag = 0; /* a record cut off: nothing to name it by */
	} else if (tag == HPROF_INSTANCE) {
		const struct hclass *k = &h->cls[h->node_class[src]];
		hprof_fields(h, src, label_field, &l);
		if (!l.found && k->node == dst) {
			sbuf_adds(out, "<class>");
			l.found = 1;
		}
	} else if (tag == HPROF_OBJ_ARRAY) {
		struct harray a = { 0 };
		if (hprof_array_data(h, src, &a) < 0)
			a.len = 0;
		const uint8_t *e = a.data;
		for (uint32_t i = 0; i < a.len && !l.found; i++)
			if (beid(e + (uint64_t)i * ids, ids) == l.want) {
				sbuf_printf(out, "[%u]", i);
				l.found = 1;
			}
	} else if (tag == HPROF_CLASS_DUMP) {
		static const char *what[] = { NULL, "<super>", "<loader>", "<signers>", "<protection domain>" };
		static const char prefix[] = "static ";
		for (unsigned i = CD_SUPER; i <= CD_PROTECTION_DOMAIN && !l.found; i++)
			if (hprof_cd_link(q, ids, i) == l.want) {
				sbuf_adds(out, what[i]);
				l.found = 1;
			}
		if (!l.found) {
			size_t at = out->len;
			sbuf_adds(out, prefix);
			hprof_fields(h, src, label_field, &l);
			if (!l.found) /* no static either: take the prefix back */
				out->buf[out->len = at] = '\0';
		}
		if (!l.found) {
			sbuf_adds(out, "<constant pool>");
			l.found = 1;
		}
	}
	if (!l.found)
		sbuf_adds(out, h->cls[h->node_class[src]].node == dst ? "<class>" : "<?>");
}
