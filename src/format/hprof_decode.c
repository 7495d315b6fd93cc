/* hprof_decode.c — lazy decoding of one record for the views: fields,
 * array elements, String values, how one object refers to another.
 * Records were bounds-checked by the pass that found them. */
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

/* Static fields' names follow the class's instance fields in
 * heap->fields (classes.c keeps them). */
int hprof_fields(const struct heap *h, node_t v, field_fn fn, void *arg)
{
	unsigned ids = h->layout.idsize;
	const uint8_t *q;
	int n = 0;

	if (v == 0 || v >= h->n)
		return -1;
	q = hprof_node_rec(h, v);
	if (hprof_rec_tag(q) == HPROF_INSTANCE) {
		uint32_t nbytes = hprof_inst_nbytes(q, ids);
		const uint8_t *data = hprof_inst_fields(q, ids);
		uint32_t c = h->node_class[v];
		for (uint32_t d = c, depth = 0; d != HW_NONE && depth < h->ncls; d = h->cls[d].super, depth++)
			for (unsigned i = 0; i < h->cls[d].nfields; i++) {
				const struct hfield *f = &h->fields[h->cls[d].field_first + i];
				uint32_t off = class_field_base(h, c, d) + f->off;
				struct hvalue val;
				if (off + hprof_type_size(f->type, ids) > nbytes)
					return n;
				read_value(data + off, f->type, ids, &val);
				fn(arg, heap_str(h, f->name), &val);
				n++;
			}
		return n;
	}
	if (hprof_rec_tag(q) == HPROF_CLASS_DUMP) {
		unsigned nst;
		const uint8_t *s = hprof_list(hprof_cd_statics(q, ids), &nst);
		uint32_t c = HW_NONE; /* the class this node describes; views only */
		for (uint32_t k = 0; k < h->ncls && c == HW_NONE; k++)
			if (h->cls[k].node == v)
				c = k;
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

	if (v == 0 || v >= h->n)
		return -1;
	q = hprof_node_rec(h, v);
	switch (hprof_rec_tag(q)) {
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
	uint8_t t;
	int64_t len = hprof_array_length(h, v, &t);
	const uint8_t *q = h->map + (v < h->n ? h->node_off[v] : 0);
	unsigned ids = h->layout.idsize;

	if (len < 0 || i >= (uint64_t)len || hprof_rec_tag(q) == HPROF_PRIM_ARRAY_NODATA)
		return -1;
	if (hprof_rec_tag(q) == HPROF_OBJ_ARRAY)
		read_value(hprof_objarr_elems(q, ids) + i * ids, T_OBJECT, ids, out);
	else
		read_value(hprof_primarr_elems(q, ids) + i * hprof_type_size(t, ids), t, ids, out);
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

static void put_utf8(struct sbuf *out, uint32_t cp)
{
	char b[4];

	if (cp < 0x80) {
		sbuf_addc(out, (char)cp);
	} else if (cp < 0x800) {
		b[0] = (char)(0xc0 | cp >> 6); b[1] = (char)(0x80 | (cp & 0x3f));
		sbuf_add(out, b, 2);
	} else if (cp < 0x10000) {
		b[0] = (char)(0xe0 | cp >> 12); b[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		b[2] = (char)(0x80 | (cp & 0x3f));
		sbuf_add(out, b, 3);
	} else {
		b[0] = (char)(0xf0 | cp >> 18); b[1] = (char)(0x80 | (cp >> 12 & 0x3f));
		b[2] = (char)(0x80 | (cp >> 6 & 0x3f)); b[3] = (char)(0x80 | (cp & 0x3f));
		sbuf_add(out, b, 4);
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
	int64_t len = a != HW_NONE ? hprof_array_length(h, a, &t) : -1;
	if (len < 0)
		return -1;
	const uint8_t *q = hprof_node_rec(h, a);
	if (hprof_rec_tag(q) != HPROF_PRIM_ARRAY)
		return -1;
	const uint8_t *d = hprof_primarr_elems(q, h->layout.idsize);
	size_t start = out->len;
	int utf16 = t == T_CHAR || (coder.found && coder.val.v.i == 1);
	uint64_t n = t == T_CHAR ? (uint64_t)len : utf16 ? (uint64_t)len / 2 : (uint64_t)len;
	for (uint64_t i = 0; i < n; i++) {
		if (out->len - start >= max) {
			sbuf_adds(out, "...");
			break;
		}
		uint32_t cp;
		if (t == T_CHAR)
			cp = be16(d + 2 * i);
		else if (utf16)
			cp = (uint32_t)d[2 * i] | (uint32_t)d[2 * i + 1] << 8;
		else
			cp = d[i];
		if (cp >= 0xd800 && cp < 0xdc00 && i + 1 < n) { /* surrogate pair */
			uint32_t lo = t == T_CHAR ? be16(d + 2 * i + 2)
				      : (uint32_t)d[2 * i + 2] | (uint32_t)d[2 * i + 3] << 8;
			if (lo >= 0xdc00 && lo < 0xe000) {
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				i++;
			}
		}
		if (cp >= 0xd800 && cp < 0xe000)
			cp = 0xfffd; /* a lone surrogate */
		put_utf8(out, cp);
	}
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

	if (src == 0 || src >= h->n || dst >= h->n) {
		sbuf_adds(out, "<root>");
		return;
	}
	q = hprof_node_rec(h, src);
	if (hprof_rec_tag(q) == HPROF_INSTANCE) {
		const struct hclass *k = &h->cls[h->node_class[src]];
		hprof_fields(h, src, label_field, &l);
		if (!l.found && k->node == dst) {
			sbuf_adds(out, "<class>");
			l.found = 1;
		}
	} else if (hprof_rec_tag(q) == HPROF_OBJ_ARRAY) {
		uint32_t len = hprof_arr_len(q, ids);
		const uint8_t *e = hprof_objarr_elems(q, ids);
		for (uint32_t i = 0; i < len && !l.found; i++)
			if (beid(e + (uint64_t)i * ids, ids) == l.want) {
				sbuf_printf(out, "[%u]", i);
				l.found = 1;
			}
	} else if (hprof_rec_tag(q) == HPROF_CLASS_DUMP) {
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
