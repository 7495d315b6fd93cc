/* hprof_decode.c — lazy decoding of one record for the views: fields,
 * array elements, String values, how one object refers to another.
 * Records were bounds-checked by the pass that found them. */
#include "format/hprof.h"

#include <string.h>

enum { SUB_CLASS_DUMP = 0x20, SUB_INSTANCE = 0x21, SUB_OBJ_ARRAY = 0x22,
       SUB_PRIM_ARRAY = 0x23, SUB_PRIM_ARRAY_NODATA = 0xc3 };

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

const uint8_t *hprof_cd_statics(const uint8_t *q, unsigned ids)
{
	q += 7 * ids + 8; /* ids, serial, instance size */
	unsigned ncp = be16(q);
	q += 2;
	for (unsigned i = 0; i < ncp; i++)
		q += 3 + hprof_type_size(q[2], ids);
	return q;
}

const uint8_t *hprof_cd_fields(const uint8_t *q, unsigned ids)
{
	q = hprof_cd_statics(q, ids);
	unsigned nst = be16(q);
	q += 2;
	for (unsigned i = 0; i < nst; i++)
		q += ids + 1 + hprof_type_size(q[ids], ids);
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
	q = h->map + h->node_off[v];
	if (q[0] == SUB_INSTANCE) {
		uint32_t nbytes = be32(q + 1 + 2 * ids + 4);
		const uint8_t *data = q + 1 + 2 * ids + 8;
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
	if (q[0] == SUB_CLASS_DUMP) {
		const uint8_t *s = hprof_cd_statics(q + 1, ids);
		unsigned nst = be16(s);
		uint32_t c = HW_NONE; /* the class this node describes; views only */
		for (uint32_t k = 0; k < h->ncls && c == HW_NONE; k++)
			if (h->cls[k].node == v)
				c = k;
		s += 2;
		for (unsigned i = 0; i < nst; i++) {
			struct hvalue val;
			const char *name = "?";
			if (c != HW_NONE && i < h->cls[c].nstatics)
				name = heap_str(h, h->fields[h->cls[c].field_first + h->cls[c].nfields + i].name);
			read_value(s + ids + 1, s[ids], ids, &val);
			fn(arg, name, &val);
			s += ids + 1 + hprof_type_size(s[ids], ids);
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
	q = h->map + h->node_off[v];
	if (q[0] == SUB_OBJ_ARRAY) {
		*elem_type = T_OBJECT;
		return be32(q + 1 + ids + 4);
	}
	if (q[0] == SUB_PRIM_ARRAY || q[0] == SUB_PRIM_ARRAY_NODATA) {
		*elem_type = q[1 + ids + 8];
		return be32(q + 1 + ids + 4);
	}
	return -1;
}

int hprof_array_elem(const struct heap *h, node_t v, uint64_t i, struct hvalue *out)
{
	unsigned ids = h->layout.idsize;
	uint8_t t;
	int64_t len = hprof_array_length(h, v, &t);
	const uint8_t *q = h->map + (v < h->n ? h->node_off[v] : 0);

	if (len < 0 || i >= (uint64_t)len || q[0] == SUB_PRIM_ARRAY_NODATA)
		return -1;
	if (q[0] == SUB_OBJ_ARRAY)
		read_value(q + 1 + 2 * ids + 8 + i * ids, T_OBJECT, ids, out);
	else
		read_value(q + 1 + ids + 9 + i * hprof_type_size(t, ids), t, ids, out);
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
	const uint8_t *q = h->map + h->node_off[a];
	if (q[0] != SUB_PRIM_ARRAY)
		return -1;
	const uint8_t *d = q + 1 + h->layout.idsize + 9;
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
	q = h->map + h->node_off[src];
	if (q[0] == SUB_INSTANCE) {
		const struct hclass *k = &h->cls[h->node_class[src]];
		hprof_fields(h, src, label_field, &l);
		if (!l.found && k->node == dst) {
			sbuf_adds(out, "<class>");
			l.found = 1;
		}
	} else if (q[0] == SUB_OBJ_ARRAY) {
		uint32_t len = be32(q + 1 + ids + 4);
		const uint8_t *e = q + 1 + 2 * ids + 8;
		for (uint32_t i = 0; i < len && !l.found; i++)
			if (beid(e + (uint64_t)i * ids, ids) == l.want) {
				sbuf_printf(out, "[%u]", i);
				l.found = 1;
			}
	} else if (q[0] == SUB_CLASS_DUMP) {
		static const char *what[] = { NULL, "<super>", "<loader>", "<signers>", "<protection domain>" };
		for (unsigned i = 1; i <= 4 && !l.found; i++)
			if (beid(q + 1 + i * ids + 4, ids) == l.want) {
				sbuf_adds(out, what[i]);
				l.found = 1;
			}
		if (!l.found) {
			sbuf_adds(out, "static ");
			size_t at = out->len;
			hprof_fields(h, src, label_field, &l);
			if (!l.found)
				out->buf[out->len = at - 7] = '\0';
		}
		if (!l.found) {
			sbuf_adds(out, "<constant pool>");
			l.found = 1;
		}
	}
	if (!l.found)
		sbuf_adds(out, h->cls[h->node_class[src]].node == dst ? "<class>" : "<?>");
}
