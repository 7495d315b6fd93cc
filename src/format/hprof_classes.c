/* hprof_classes.c — class resolution during the HPROF build:
 * CLASS_DUMP records to struct hclass, see hprof_classes.h. */
#include "format/hprof_classes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/hprof_record.h"

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
	uint32_t off = names_intern(&t->nt, buf, n);
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

	return p ? names_intern(&t->nt, (const char *)p, len) : names_intern(&t->nt, "<?>", 3);
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

	t->h->cls[c].name = names_intern(&t->nt, name, strlen(name));
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
	*t = (struct classtab){ .h = h, .nt = { .h = h }, .java_lang_class = HW_NONE, .last_cls = HW_NONE };
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
			k->name = names_intern(&t->nt, buf, strlen(buf));
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
	names_free(&t->nt);
}

