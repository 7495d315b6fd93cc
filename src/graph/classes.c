/* classes.c — class resolution and the names table, see classes.h. */
#include "graph/classes.h"

#include "format/hprof_record.h"

#include <stdlib.h>
#include <string.h>

static uint64_t fnv(const char *s, size_t n)
{
	uint64_t x = 1469598103934665603ull;

	for (size_t i = 0; i < n; i++)
		x = (x ^ (uint8_t)s[i]) * 1099511628211ull;
	return x;
}

static void names_rehash(struct classtab *t)
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
		size_t j = fnv(s, strlen(s)) & (cap - 1);
		while (nh[j] != HW_NONE)
			j = (j + 1) & (cap - 1);
		nh[j] = off;
	}
	free(t->hash);
	t->hash = nh;
	t->hash_cap = cap;
}

uint32_t names_intern(struct classtab *t, const char *s, size_t len)
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
	size_t j = fnv(s, len) & (t->hash_cap - 1);
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

static int cmp_str(const void *a, const void *b)
{
	uint64_t x = ((const struct raw_str *)a)->id, y = ((const struct raw_str *)b)->id;

	return x < y ? -1 : x > y;
}

static int cmp_lc(const void *a, const void *b)
{
	uint64_t x = ((const struct raw_lc *)a)->cid, y = ((const struct raw_lc *)b)->cid;

	return x < y ? -1 : x > y;
}

static int cmp_cls(const void *a, const void *b)
{
	uint64_t x = ((const struct hclass *)a)->id, y = ((const struct hclass *)b)->id;

	return x < y ? -1 : x > y;
}

const uint8_t *scan_string(const struct heap *h, const struct scan *s, uint64_t id, uint32_t *len)
{
	size_t lo = lower_bound_u64s(s->str, s->nstr, sizeof *s->str, id);

	if (lo == s->nstr || s->str[lo].id != id)
		return NULL;
	*len = s->str[lo].len;
	return h->map + s->str[lo].off;
}

static const struct raw_lc *find_lc(const struct scan *s, uint64_t cid)
{
	size_t lo = lower_bound_u64s(s->lc, s->nlc, sizeof *s->lc, cid);

	return lo < s->nlc && s->lc[lo].cid == cid ? &s->lc[lo] : NULL;
}

/* External name as jcmd prints it: '/' becomes '.', and a hidden
 * class's "+0x..." suffix becomes "/0x...". */
uint32_t classes_intern_name(struct classtab *t, const uint8_t *p, uint32_t n)
{
	char *buf = xmalloc((size_t)n + 1);

	for (uint32_t i = 0; i < n; i++)
		buf[i] = p[i] == '/' ? '.' : (char)p[i];
	char *plus = memchr(buf, '+', n);
	if (plus != NULL && plus + 2 < buf + n && plus[1] == '0' && plus[2] == 'x')
		*plus = '/';
	uint32_t off = names_intern(t, buf, n);
	free(buf);
	return off;
}

static uint32_t new_class(struct classtab *t)
{
	struct heap *h = t->h;

	if (h->ncls == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 1024;
		h->cls = xreallocarray(h->cls, t->cap, sizeof *h->cls);
	}
	memset(&h->cls[h->ncls], 0, sizeof h->cls[0]);
	h->cls[h->ncls].node = HW_NONE;
	h->cls[h->ncls].super = HW_NONE;
	h->cls[h->ncls].referent_off = HW_NONE;
	return h->ncls++;
}

/* One CLASS_DUMP at `off` (sub-tag byte); its length was checked by the
 * reader's pass. */
static void read_class_dump(struct classtab *t, uint64_t off, uint64_t *super_id)
{
	struct heap *h = t->h;
	unsigned ids = h->layout.idsize;
	const uint8_t *r = h->map + off;
	uint32_t c = new_class(t);
	struct hclass *k = &h->cls[c];

	k->id = hprof_rec_id(r, ids);
	*super_id = hprof_cd_link(r, ids, CD_SUPER);
	k->loader_id = hprof_cd_link(r, ids, CD_LOADER);
	unsigned nst, nf;
	const uint8_t *st = hprof_list(hprof_cd_statics(r, ids), &nst);
	const uint8_t *q = hprof_list(hprof_cd_fields(r, ids), &nf);
	k->nfields = (uint16_t)nf;
	k->nstatics = (uint16_t)nst;
	k->field_first = h->nfields;
	while (h->nfields + k->nfields + nst >= t->fields_cap) {
		t->fields_cap = t->fields_cap ? t->fields_cap * 2 : 4096;
		h->fields = xreallocarray(h->fields, t->fields_cap, sizeof *h->fields);
	}
	/* names come later (name_fields), once the strings are sorted;
	 * inst_bytes holds the class's own bytes until inst_sizes() */
	for (unsigned i = 0; i < k->nfields; i++, q = hprof_field_next(q, ids)) {
		uint8_t type = hprof_entry_type(q, ids);
		h->fields[h->nfields++] = (struct hfield){ .name = 0, .off = k->inst_bytes, .type = type };
		k->inst_bytes += hprof_type_size(type, ids);
	}
	for (unsigned i = 0; i < nst; i++, st = hprof_static_next(st, ids))
		h->fields[h->nfields++] = (struct hfield){ .name = 0, .type = hprof_entry_type(st, ids) };
}

static uint32_t field_name(struct classtab *t, const struct scan *s, uint64_t id)
{
	uint32_t len;
	const uint8_t *p = scan_string(t->h, s, id, &len);

	return p ? names_intern(t, (const char *)p, len) : names_intern(t, "<?>", 3);
}

/* Field names: a second walk, now that strings are sorted. */
static void name_fields(struct classtab *t, const struct scan *s, uint32_t c, uint64_t off)
{
	struct heap *h = t->h;
	unsigned ids = h->layout.idsize;
	unsigned nst, nf;
	const uint8_t *st = hprof_list(hprof_cd_statics(h->map + off, ids), &nst);
	const uint8_t *q = hprof_list(hprof_cd_fields(h->map + off, ids), &nf);
	struct hclass *k = &h->cls[c];

	for (unsigned i = 0; i < k->nfields; i++, q = hprof_field_next(q, ids))
		h->fields[k->field_first + i].name = field_name(t, s, hprof_entry_name(q, ids));
	for (unsigned i = 0; i < nst; i++, st = hprof_static_next(st, ids))
		h->fields[k->field_first + k->nfields + i].name = field_name(t, s, hprof_entry_name(st, ids));
}

static uint8_t array_elem(const char *name)
{
	switch (name[1]) {
	case 'Z': return T_BOOLEAN;
	case 'C': return T_CHAR;
	case 'F': return T_FLOAT;
	case 'D': return T_DOUBLE;
	case 'B': return T_BYTE;
	case 'S': return T_SHORT;
	case 'I': return T_INT;
	case 'J': return T_LONG;
	default: return T_OBJECT;
	}
}

static int chain_has(const struct heap *h, uint32_t c, const char *name)
{
	for (uint32_t d = 0; c != HW_NONE && d < h->ncls; c = h->cls[c].super, d++)
		if (strcmp(class_name(h, c), name) == 0)
			return 1;
	return 0;
}

/* Instance data bytes incl. supers: the classes' own bytes (as
 * read_class_dump left them) summed along each chain of supers. */
static void inst_sizes(struct heap *h)
{
	uint32_t *own = xmalloc(((size_t)h->ncls + 1) * sizeof *own);

	for (uint32_t c = 0; c < h->ncls; c++)
		own[c] = h->cls[c].inst_bytes;
	for (uint32_t c = 0; c < h->ncls; c++) {
		uint32_t sum = 0;
		for (uint32_t d = c, depth = 0; d != HW_NONE && depth < h->ncls; d = h->cls[d].super, depth++)
			sum += own[d];
		h->cls[c].inst_bytes = sum;
	}
	free(own);
}

/* Byte offsets of reference fields in instance data: this class's
 * fields, then its super's, as HPROF stores them. */
static void ref_offsets(struct classtab *t, uint32_t c)
{
	struct heap *h = t->h;
	struct hclass *k = &h->cls[c];

	k->ref_first = h->nrefoffs;
	for (uint32_t d = c, depth = 0; d != HW_NONE && depth < h->ncls; d = h->cls[d].super, depth++) {
		const struct hclass *e = &h->cls[d];
		int is_ref = strcmp(class_name(h, d), "java.lang.ref.Reference") == 0;
		for (unsigned i = 0; i < e->nfields; i++) {
			const struct hfield *f = &h->fields[e->field_first + i];
			uint32_t off = class_field_base(h, c, d) + f->off;
			if (f->type != T_OBJECT)
				continue;
			if (is_ref && strcmp(heap_str(h, f->name), "referent") == 0) {
				k->referent_off = off;
				continue;
			}
			if (h->nrefoffs == t->refoffs_cap) {
				t->refoffs_cap = t->refoffs_cap ? t->refoffs_cap * 2 : 4096;
				h->refoffs = xreallocarray(h->refoffs, t->refoffs_cap, sizeof *h->refoffs);
			}
			h->refoffs[h->nrefoffs++] = off;
		}
	}
	k->nrefs = h->nrefoffs - k->ref_first;
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

static void link_supers(struct classtab *t, const struct scan *s, const uint64_t *super_id)
{
	struct heap *h = t->h;

	for (uint32_t c = 0; c < t->nreal; c++) {
		if (super_id[c] == 0)
			continue;
		uint32_t lo = (uint32_t)lower_bound_u64s(h->cls, t->nreal, sizeof *h->cls, super_id[c]);
		if (lo < t->nreal && h->cls[lo].id == super_id[c] && lo != c)
			h->cls[c].super = lo;
		else
			warn_add(&h->warn, "%s: offset %llu: class %s has superclass id 0x%llx, "
				 "which has no class dump", h->path,
				 (unsigned long long)s->cd[h->cls[c].ref_first], class_name(h, c),
				 (unsigned long long)super_id[c]);
	}
	/* a cycle of supers (corrupt dump) would make every walk endless */
	for (uint32_t c = 0; c < t->nreal; c++) {
		uint32_t slow = c, fast = c;
		while (fast != HW_NONE && h->cls[fast].super != HW_NONE) {
			fast = h->cls[h->cls[fast].super].super;
			slow = h->cls[slow].super;
			if (fast == slow) {
				warn_add(&h->warn, "%s: offset %llu: class %s: superclass cycle; cut",
					 h->path, (unsigned long long)s->cd[h->cls[c].ref_first],
					 class_name(h, c));
				h->cls[c].super = HW_NONE;
				break;
			}
		}
	}
}

static void set_flags(struct classtab *t)
{
	struct heap *h = t->h;

	for (uint32_t c = 0; c < h->ncls; c++) {
		struct hclass *k = &h->cls[c];
		const char *name = class_name(h, c);
		if (name[0] == '[') {
			k->flags |= HC_ARRAY;
			k->elem_type = array_elem(name);
		}
		if (chain_has(h, c, "java.lang.ref.Reference"))
			k->flags |= HC_REFERENCE;
		if (chain_has(h, c, "java.lang.ClassLoader"))
			k->flags |= HC_LOADER;
		if (strcmp(name, "java.lang.Class") == 0)
			t->java_lang_class = c;
	}
}

static uint32_t synthetic(struct classtab *t, const char *name, uint64_t id)
{
	uint32_t c = new_class(t);

	t->h->cls[c].name = names_intern(t, name, strlen(name));
	t->h->cls[c].id = id;
	t->h->cls[c].flags = HC_SYNTHETIC | (name[0] == '[' ? HC_ARRAY : 0);
	t->h->cls[c].elem_type = name[0] == '[' ? array_elem(name) : 0;
	t->h->cls[c].ref_first = t->h->nrefoffs;
	return c;
}

static void prim_classes(struct classtab *t)
{
	static const char *pname[12] = {
		[T_BOOLEAN] = "[Z", [T_CHAR] = "[C", [T_FLOAT] = "[F", [T_DOUBLE] = "[D",
		[T_BYTE] = "[B", [T_SHORT] = "[S", [T_INT] = "[I", [T_LONG] = "[J",
	};
	struct heap *h = t->h;

	for (int e = 0; e < 12; e++) {
		t->prim[e] = HW_NONE;
		if (pname[e] == NULL)
			continue;
		for (uint32_t c = 0; c < t->nreal; c++)
			if (strcmp(class_name(h, c), pname[e]) == 0) {
				t->prim[e] = c;
				break;
			}
		if (t->prim[e] == HW_NONE)
			t->prim[e] = synthetic(t, pname[e], 0);
	}
	if (t->java_lang_class == HW_NONE)
		t->java_lang_class = synthetic(t, "java.lang.Class", 0);
}

void classes_build(struct classtab *t, struct heap *h, struct scan *s)
{
	*t = (struct classtab){ .h = h, .java_lang_class = HW_NONE, .last_cls = HW_NONE };
	hw_qsort(s->str, s->nstr, sizeof *s->str, cmp_str);
	hw_qsort(s->lc, s->nlc, sizeof *s->lc, cmp_lc);
	uint64_t *super_id = xmalloc((s->ncd + 1) * sizeof *super_id);
	for (size_t i = 0; i < s->ncd; i++)
		read_class_dump(t, s->cd[i], &super_id[i]);
	/* sort classes by id, carrying super ids and record offsets along */
	for (uint32_t c = 0; c < h->ncls; c++)
		h->cls[c].ref_first = c; /* for now: the record's position in s->cd */
	hw_qsort(h->cls, h->ncls, sizeof *h->cls, cmp_cls);
	uint64_t *sid = xmalloc((s->ncd + 1) * sizeof *sid);
	uint32_t keep = 0;
	for (uint32_t c = 0; c < h->ncls; c++) {
		uint32_t orig = h->cls[c].ref_first;
		if (keep > 0 && h->cls[keep - 1].id == h->cls[c].id) {
			warn_add(&h->warn, "%s: offset %llu: duplicate class dump for id 0x%llx; first kept",
				 h->path, (unsigned long long)s->cd[orig], (unsigned long long)h->cls[c].id);
			continue;
		}
		h->cls[keep] = h->cls[c];
		h->cls[keep].ref_first = orig;
		sid[keep++] = super_id[orig];
	}
	h->ncls = t->nreal = keep;
	for (uint32_t c = 0; c < t->nreal; c++) {
		struct hclass *k = &h->cls[c];
		uint64_t off = s->cd[k->ref_first];
		const struct raw_lc *lc = find_lc(s, k->id);
		uint32_t len;
		const uint8_t *p = lc ? scan_string(h, s, lc->name, &len) : NULL;
		k->node = heap_find_id(h, k->id);
		if (p != NULL) {
			k->name = classes_intern_name(t, p, len);
		} else {
			char buf[48];
			snprintf(buf, sizeof buf, "<class 0x%llx>", (unsigned long long)k->id);
			k->name = names_intern(t, buf, strlen(buf));
		}
		name_fields(t, s, c, off);
	}
	link_supers(t, s, sid);
	free(super_id);
	free(sid);
	set_flags(t);
	prim_classes(t);
	inst_sizes(h);
	for (uint32_t c = 0; c < h->ncls; c++)
		ref_offsets(t, c);
}

uint32_t classes_find(struct classtab *t, uint64_t id, int is_array, uint64_t at)
{
	struct heap *h = t->h;

	if (id == t->last_id && t->last_cls != HW_NONE)
		return t->last_cls;
	uint32_t lo = (uint32_t)lower_bound_u64s(h->cls, t->nreal, sizeof *h->cls, id);
	if (lo == t->nreal || h->cls[lo].id != id) {
		for (lo = t->nreal; lo < h->ncls; lo++) /* made up before? */
			if (h->cls[lo].id == id && (h->cls[lo].flags & HC_SYNTHETIC) && id != 0)
				break;
		if (lo == h->ncls) {
			char buf[64];
			warn_add(&h->warn, "%s: offset %llu: object of class id 0x%llx, which has no "
				 "class dump; its fields cannot be read", h->path,
				 (unsigned long long)at, (unsigned long long)id);
			snprintf(buf, sizeof buf, is_array ? "[L<unknown 0x%llx>;" : "<unknown class 0x%llx>",
				 (unsigned long long)id);
			lo = synthetic(t, buf, id);
		}
	}
	t->last_id = id;
	t->last_cls = lo;
	return lo;
}

void classes_free(struct classtab *t)
{
	free(t->hash);
	t->hash = NULL;
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
