/* hprof_layout.c — HotSpot object sizes, see hprof_layout.h. */
#include "format/hprof_layout.h"

#include "graph/idindex.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define CONTENDED_PAD 128 /* -XX:ContendedPaddingWidth default */
#define MAX_HOLES 64
#define OOP_BIT 0x100 /* marks a reference in the size lists */
#define MAX_INJECTED 8 /* the longest types string of injected[] */

/* Fields the JVM adds that HPROF does not show (OpenJDK 17,
 * javaClasses.hpp "injected fields"), as extra fields of that class. */
static const struct injected {
	const char *cls;
	const char *types; /* one hw_type letter per field: J long, L oop, I int, S short, Z boolean */
} injected[] = {
	{ "java.lang.ClassLoader", "J" },                 /* loader_data */
	{ "java.lang.Module", "J" },                      /* module_entry */
	{ "java.lang.invoke.MemberName", "J" },           /* vmindex */
	{ "java.lang.invoke.ResolvedMethodName", "JL" },  /* vmtarget, vmholder */
	{ "java.lang.invoke.MethodHandleNatives$CallSiteContext", "JJ" },
	{ "java.lang.StackFrameInfo", "S" },              /* version */
	{ "java.lang.InternalError", "Z" },               /* during_unsafe_access */
	{ "java.lang.Class", "JJIILLL" },                 /* klass, array_klass, oop_size... */
};

/* @Contended in the JDK's own classes, OpenJDK 11, 17, 21 and 25 (the
 * annotation is internal: other classes can use it only under
 * -XX:-RestrictContended, and then the address gaps tell their sizes).
 * The instance size in HPROF's CLASS_DUMP is only the sum of the
 * field values as written (references at id size): the dump shows
 * padding only in the address gaps, and only where instances are many
 * enough (correct_by_gaps). Where the same class was annotated
 * differently across versions, a field it has only in the versions
 * meant (`marker`) picks the entry; the first match wins. */
static const struct contended {
	const char *cls;
	const char *marker; /* a field of the class itself; NULL: any version */
	int whole;          /* the class is annotated: padding before its fields */
	const char *group;  /* one named field group, space-separated; NULL: none */
} contended[] = {
	/* 11 and 17 ("tlr"); in 21 and 25 the fields are plain, and
	 * priority is in Thread$FieldHolder */
	{ "java.lang.Thread", "priority", 0,
	  "threadLocalRandomSeed threadLocalRandomProbe threadLocalRandomSecondarySeed" },
	/* "fjpctl": ctl in all; parallelism is a field in 21 and 25 only */
	{ "java.util.concurrent.ForkJoinPool", NULL, 0, "ctl parallelism" },
	{ "java.util.concurrent.ForkJoinPool$WorkQueue", "pool", 1, NULL },    /* 11 */
	{ "java.util.concurrent.ForkJoinPool$WorkQueue", "parking", 0,         /* 25 */
	  "top phase stackPred source nsteals parking" },
	{ "java.util.concurrent.ForkJoinPool$WorkQueue", "access", 0,          /* 21 */
	  "top access phase source nsteals" },
	{ "java.util.concurrent.ForkJoinPool$WorkQueue", NULL, 0, "top source nsteals" }, /* 17 */
	{ "java.util.concurrent.SubmissionPublisher$BufferedSubscription", NULL, 1, "demand waiting" },
	{ "java.util.concurrent.ConcurrentHashMap$CounterCell", NULL, 1, NULL },
	{ "java.util.concurrent.atomic.Striped64$Cell", NULL, 1, NULL },
	{ "java.util.concurrent.Exchanger$Node", "bound", 1, NULL },           /* 11-21 */
	{ "java.util.concurrent.Exchanger$Slot", NULL, 1, NULL },              /* 25 */
};

static uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

static unsigned field_size(const struct jvm_layout *L, uint8_t type)
{
	switch (type) {
	case T_OBJECT: return L->ref_size;
	case T_BOOLEAN: case T_BYTE: return 1;
	case T_CHAR: case T_SHORT: return 2;
	case T_FLOAT: case T_INT: return 4;
	case T_DOUBLE: case T_LONG: return 8;
	default: return 0;
	}
}

uint64_t layout_array_size(const struct jvm_layout *L, uint8_t elem, uint64_t len)
{
	return align_up(L->array_header + len * field_size(L, elem), L->align);
}

/* Free space while laying out one class: holes below `end` (the end of
 * the last field), then all space from `end` on. */
struct lay {
	uint32_t hole_off[MAX_HOLES], hole_len[MAX_HOLES];
	int nholes;
	uint32_t end;
	int tail_pad; /* @Contended: padding after the last field */
};

static void add_hole(struct lay *y, uint32_t off, uint32_t len)
{
	if (len == 0 || y->nholes == MAX_HOLES)
		return;
	y->hole_off[y->nholes] = off;
	y->hole_len[y->nholes++] = len;
}

/* HotSpot's choice: the smallest hole that holds `size` at its natural
 * alignment (the highest such hole on a tie), else the end. After a
 * @Contended padding nothing goes into holes, not even new ones. */
static void place(struct lay *y, uint32_t size, int append)
{
	int best = -1;

	for (int i = 0; i < y->nholes && !append; i++) {
		uint32_t o = y->hole_off[i];
		uint32_t adj = (uint32_t)align_up(o, size) - o;
		if (y->hole_len[i] < size + adj)
			continue;
		if (best < 0 || y->hole_len[i] < y->hole_len[best] ||
		    (y->hole_len[i] == y->hole_len[best] && o > y->hole_off[best]))
			best = i;
	}
	if (best < 0) {
		uint32_t a = (uint32_t)align_up(y->end, size);
		add_hole(y, y->end, a - y->end);
		y->end = a + size;
		return;
	}
	uint32_t o = y->hole_off[best], len = y->hole_len[best];
	uint32_t a = (uint32_t)align_up(o, size);
	y->hole_off[best] = y->hole_off[--y->nholes];
	y->hole_len[best] = y->hole_len[y->nholes];
	add_hole(y, o, a - o);
	add_hole(y, a + size, o + len - a - size);
}

static int in_list(const char *list, const char *name)
{
	size_t n = strlen(name);

	if (n == 0) /* strstr finds "" everywhere, and p would never move */
		return 0;
	for (const char *p = list; (p = strstr(p, name)) != NULL; p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return 1;
	return 0;
}

static uint8_t letter_type(char c)
{
	switch (c) {
	case 'J': return T_LONG;
	case 'I': return T_INT;
	case 'S': return T_SHORT;
	case 'Z': return T_BOOLEAN;
	default: return T_OBJECT;
	}
}

static int has_field(const struct heap *h, uint32_t c, const char *name)
{
	const struct hclass *k = &h->cls[c];

	for (unsigned i = 0; i < k->nfields; i++)
		if (strcmp(heap_str(h, h->fields[k->field_first + i].name), name) == 0)
			return 1;
	return 0;
}

/* The table's entry for class c, or NULL. */
static const struct contended *find_contended(const struct heap *h, uint32_t c)
{
	const char *name = class_name(h, c);

	for (size_t i = 0; i < sizeof contended / sizeof contended[0]; i++)
		if (strcmp(name, contended[i].cls) == 0 &&
		    (contended[i].marker == NULL || has_field(h, c, contended[i].marker)))
			return &contended[i];
	return NULL;
}

/* Sizes of one class's own fields (plus injected ones), split into
 * the regular set and the contended group `group` (NULL: none). */
static void own_fields(const struct heap *h, uint32_t c, const struct jvm_layout *L,
		       const char *group, unsigned *reg, int *nreg, unsigned *grp, int *ngrp)
{
	const struct hclass *k = &h->cls[c];
	const char *name = class_name(h, c);

	*nreg = *ngrp = 0;
	for (unsigned i = 0; i < k->nfields; i++) {
		const struct hfield *f = &h->fields[k->field_first + i];
		unsigned sz = field_size(L, f->type) | (f->type == T_OBJECT ? OOP_BIT : 0);
		if (group != NULL && in_list(group, heap_str(h, f->name)))
			grp[(*ngrp)++] = sz;
		else
			reg[(*nreg)++] = sz;
	}
	for (size_t i = 0; i < sizeof injected / sizeof injected[0]; i++)
		if (strcmp(name, injected[i].cls) == 0)
			for (const char *t = injected[i].types; *t; t++)
				reg[(*nreg)++] = field_size(L, letter_type(*t)) |
						 (*t == 'L' ? OOP_BIT : 0);
}

/* Primitives by size descending, then references, each where place() puts it. */
static void place_all(struct lay *y, const unsigned *sz, int n, int append)
{
	for (unsigned s = 8; s >= 1; s /= 2)
		for (int i = 0; i < n; i++)
			if (sz[i] == s)
				place(y, s, append);
	for (int i = 0; i < n; i++)
		if (sz[i] & OOP_BIT)
			place(y, sz[i] & ~OOP_BIT, append);
}

/* Lay out class c on top of its super's layout; returns whether c or a
 * super has @Contended anywhere (HotSpot's has_contended_annotations,
 * which a subclass inherits): then the fields of a subclass go after a
 * padding that follows c's last field, never into c's gaps. */
static int lay_class(const struct heap *h, uint32_t c, const struct jvm_layout *L,
		     struct lay *y, int depth)
{
	const struct hclass *k = &h->cls[c];
	const struct contended *e = find_contended(h, c);
	int nreg, ngrp, whole = e != NULL && e->whole;
	int inherited = 0;

	if (k->super != HW_NONE && depth < 64) {
		inherited = lay_class(h, k->super, L, y, depth + 1);
		if (inherited) {
			y->nholes = 0;
			y->end += CONTENDED_PAD;
		}
	} else {
		y->nholes = 0;
		y->end = L->header;
	}
	y->tail_pad = 0;
	/* sized by the class's own field count (read from the dump) plus the
	 * longest injected list: no fixed array a crafted class can overrun */
	size_t cap = (size_t)k->nfields + MAX_INJECTED;
	unsigned *reg = xmalloc(cap * sizeof *reg), *grp = xmalloc(cap * sizeof *grp);
	own_fields(h, c, L, e ? e->group : NULL, reg, &nreg, grp, &ngrp);
	if (whole) { /* fields only after a padding at the end */
		y->nholes = 0;
		y->end += CONTENDED_PAD;
	}
	place_all(y, reg, nreg, whole);
	if (ngrp > 0) {
		y->nholes = 0;
		y->end += CONTENDED_PAD;
		place_all(y, grp, ngrp, 1);
	}
	y->tail_pad = whole || ngrp > 0;
	free(reg);
	free(grp);
	return inherited || whole || ngrp > 0;
}

static uint32_t instance_size(const struct heap *h, uint32_t c, const struct jvm_layout *L)
{
	struct lay y;

	lay_class(h, c, L, &y, 0);
	return (uint32_t)align_up(y.end + (y.tail_pad ? CONTENDED_PAD : 0), L->align);
}

/* A java.lang.Class mirror: the Class instance, then the statics. */
static uint32_t mirror_size(const struct heap *h, uint32_t c, uint32_t class_inst,
			    const struct jvm_layout *L)
{
	const struct hclass *k = &h->cls[c];
	uint64_t statics = 0;

	for (unsigned i = 0; i < k->nstatics; i++) /* kept after the instance fields */
		statics += field_size(L, h->fields[k->field_first + k->nfields + i].type);
	return (uint32_t)align_up(class_inst + statics, L->align);
}

/* Candidate layouts for the identifier size. */
static int candidates(unsigned idsize, unsigned align, struct jvm_layout *out)
{
	struct jvm_layout base = { .idsize = idsize, .align = align };
	int n = 0;

	if (idsize == 4) {
		out[n] = base;
		out[n].ref_size = 4; out[n].header = 8; out[n].array_header = 12;
		return 1;
	}
	static const unsigned v[4][5] = {
		/* ref, header, array header, coops, ccp; the JDK default first */
		{ 4, 12, 16, 1, 1 }, { 8, 12, 16, 0, 1 }, { 8, 16, 24, 0, 0 }, { 4, 16, 24, 1, 0 },
	};
	for (int i = 0; i < 4; i++) {
		out[n] = base;
		out[n].ref_size = v[i][0];
		out[n].header = v[i][1];
		out[n].array_header = v[i][2];
		out[n].compressed_oops = (int)v[i][3];
		out[n].compressed_class_ptrs = (int)v[i][4];
		n++;
	}
	return n;
}

static unsigned id_alignment(const struct heap *h)
{
	uint64_t any = 0;
	struct idwalk w = { h, 0 };

	for (node_t i = 1; i < h->n; i++)
		any |= idwalk_id(&w, i);
	if (any == 0)
		return 0;
	uint64_t low = any & (~any + 1);
	return low >= 8 && low <= 256 ? (unsigned)low : 0;
}

/* Model size of node i under L, with per-class sizes in csize[]. */
static uint64_t node_size(const struct heap *h, node_t i, const struct jvm_layout *L,
			  const uint32_t *csize)
{
	const struct hclass *k = &h->cls[h->node_class[i]];

	switch (h->node_kind[i]) {
	case NK_INSTANCE: return csize[h->node_class[i]];
	case NK_OBJARRAY: return layout_array_size(L, T_OBJECT, h->node_shallow[i]);
	case NK_PRIMARRAY: return layout_array_size(L, k->elem_type, h->node_shallow[i]);
	default: return 0; /* class mirrors: sizes are estimates, not evidence */
	}
}

static void class_sizes(const struct heap *h, const struct jvm_layout *L, uint32_t *csize)
{
	for (uint32_t c = 0; c < h->ncls; c++)
		csize[c] = instance_size(h, c, L);
}

/* Score a candidate on the address gaps: objects smaller than the model
 * (impossible) and objects exactly as large. */
static void score(const struct heap *h, const struct jvm_layout *L, const uint32_t *csize,
		  uint64_t *bad, uint64_t *exact, uint64_t *checked)
{
	struct idwalk w = { h, 0 };
	uint64_t next = h->n > 1 ? idwalk_id(&w, 1) : 0;

	*bad = *exact = *checked = 0;
	for (node_t i = 1; i + 1 < h->n; i++) {
		uint64_t id = next;
		next = idwalk_id(&w, i + 1);
		uint64_t s = node_size(h, i, L, csize);
		if (s == 0)
			continue;
		uint64_t gap = next - id;
		(*checked)++;
		*bad += gap < s;
		*exact += gap == s;
	}
}

static void pick_layout(struct heap *h, uint32_t *csize)
{
	struct jvm_layout cand[4];
	unsigned align = id_alignment(h);
	int nc = candidates(h->layout.idsize, align ? align : 8, cand);
	int best = 0;
	uint64_t best_bad = UINT64_MAX, best_exact = 0, best_checked = 0;

	if (h->agent.present && h->agent.ref) { /* the JVM said */
		const struct agent_info *a = &h->agent;
		h->layout = cand[0];
		h->layout.ref_size = a->ref;
		h->layout.header = a->header;
		h->layout.array_header = a->array_header;
		h->layout.align = a->align;
		h->layout.compressed_oops = a->ref == 4;
		h->layout.compressed_class_ptrs = a->header == 12;
		h->layout.detected = 2;
		class_sizes(h, &h->layout, csize);
		return;
	}
	if (align == 0 || h->n < 64 || nc == 1) { /* ids are not addresses: assume */
		h->layout = cand[0];
		class_sizes(h, &h->layout, csize);
		return;
	}
	for (int c = 0; c < nc; c++) {
		uint64_t bad, exact, checked;
		class_sizes(h, &cand[c], csize);
		score(h, &cand[c], csize, &bad, &exact, &checked);
		if (bad < best_bad || (bad == best_bad && exact > best_exact)) {
			best = c;
			best_bad = bad;
			best_exact = exact;
			best_checked = checked;
		}
	}
	h->layout = cand[best];
	h->layout.checked = best_checked;
	h->layout.exact = best_exact;
	h->layout.detected = best_exact * 2 > best_checked;
	class_sizes(h, &h->layout, csize);
}

/* Classes whose instances' address gaps all exceed the model (fields or
 * padding the dump does not show, such as @Contended in a class the
 * table does not know) or undercut it: take the smallest gap. A gap is
 * the object's size unless free space follows it (the end of a region),
 * so it counts as the size when four instances show it, or two or
 * three that all show the same gap. */
static void correct_by_gaps(struct heap *h, uint32_t *csize)
{
	uint32_t *mingap = xmalloc((size_t)h->ncls * sizeof *mingap);
	uint32_t *maxgap = xcalloc(h->ncls, sizeof *maxgap);
	uint32_t *seen = xcalloc(h->ncls, sizeof *seen);

	struct idwalk w = { h, 0 };
	uint64_t next = h->n > 1 ? idwalk_id(&w, 1) : 0;

	memset(mingap, 0xff, (size_t)h->ncls * sizeof *mingap);
	for (node_t i = 1; i + 1 < h->n; i++) {
		uint64_t id = next;
		next = idwalk_id(&w, i + 1);
		if (h->node_kind[i] != NK_INSTANCE)
			continue;
		uint32_t c = h->node_class[i];
		uint32_t gap = next - id > UINT32_MAX ? UINT32_MAX : (uint32_t)(next - id);
		if (gap < mingap[c])
			mingap[c] = gap;
		if (gap > maxgap[c])
			maxgap[c] = gap;
		seen[c]++;
	}
	for (uint32_t c = 0; c < h->ncls; c++) {
		/* four instances all followed by a gap is no accident in a
		 * compacted heap, nor are two followed by the same one; one
		 * could be the end of a region */
		if (seen[c] < 2 || (seen[c] < 4 && mingap[c] != maxgap[c]) || mingap[c] == csize[c])
			continue;
		if (mingap[c] > csize[c] && mingap[c] - csize[c] > 4096)
			continue; /* a sparse heap, not hidden fields */
		csize[c] = mingap[c];
		h->cls[c].flags |= HC_ESTIMATED;
	}
	free(mingap);
	free(maxgap);
	free(seen);
}

/* The agent's "heapwalk-sizes/1 ID:SIZE:MIRROR ..." (hex class id, the
 * JVM's instance size, the size of the class's java.lang.Class object):
 * exact where the field model is not (hidden fields). */
static void agent_sizes(struct heap *h, uint32_t *csize, uint32_t *msize)
{
	const char *p = (const char *)h->map + h->agent.sizes_off;
	const char *end = p + h->agent.sizes_len;

	while (p < end) {
		while (p < end && *p == ' ')
			p++;
		unsigned long long v[3] = { 0, 0, 0 };
		int k = 0;
		for (; p < end && *p != ' '; p++) {
			if (*p == ':') {
				if (++k > 2)
					break;
				continue;
			}
			int dig = *p >= '0' && *p <= '9' ? *p - '0' :
				  k == 0 && *p >= 'a' && *p <= 'f' ? *p - 'a' + 10 : -1;
			if (dig < 0 || v[k] > (ULLONG_MAX >> 4))
				break;
			v[k] = v[k] * (k == 0 ? 16 : 10) + (unsigned)dig;
		}
		while (p < end && *p != ' ') /* a malformed word is skipped */
			p++;
		if (k != 2)
			continue;
		node_t n = heap_find_id(h, v[0]);
		if (n == HW_NONE || h->node_kind[n] != NK_CLASS)
			continue;
		uint32_t c = h->node_shallow[n]; /* the class it describes */
		if (v[1] > 0 && v[1] < UINT32_MAX && !(h->cls[c].flags & (HC_ARRAY | HC_SYNTHETIC)))
			csize[c] = (uint32_t)v[1];
		if (v[2] > 0 && v[2] < UINT32_MAX)
			msize[c] = (uint32_t)v[2];
	}
}

void layout_apply(struct heap *h)
{
	uint32_t *csize = xmalloc(((size_t)h->ncls + 1) * sizeof *csize);
	uint32_t class_cls = HW_NONE;

	uint32_t *msize = NULL;

	pick_layout(h, csize);
	if (h->layout.detected == 1)
		correct_by_gaps(h, csize);
	if (h->layout.detected == 2 && h->agent.sizes_off) {
		msize = xcalloc(h->ncls + 1, sizeof *msize);
		agent_sizes(h, csize, msize);
	}
	for (uint32_t c = 0; c < h->ncls; c++) {
		h->cls[c].shallow = csize[c];
		if (strcmp(class_name(h, c), "java.lang.Class") == 0)
			class_cls = c;
	}
	if (class_cls != HW_NONE && !msize) /* mirrors: Class fields plus statics, roughly */
		h->cls[class_cls].flags |= HC_ESTIMATED;
	uint32_t class_inst = class_cls != HW_NONE ? csize[class_cls] : (uint32_t)align_up(h->layout.header + 64, 8);
	for (uint32_t c = 0; c < h->ncls; c++)
		h->cls[c].mirror_size = msize && msize[c] ? msize[c] : mirror_size(h, c, class_inst, &h->layout);
	free(msize);
	h->total_shallow = 0;
	for (node_t i = 1; i < h->n; i++) {
		uint32_t c = h->node_class[i];
		uint64_t s;
		if (h->node_kind[i] == NK_CLASS)
			s = h->cls[h->node_shallow[i]].mirror_size;
		else
			s = node_size(h, i, &h->layout, csize);
		h->node_shallow[i] = s > UINT32_MAX ? UINT32_MAX : (uint32_t)s;
		h->cls[c].count++;
		h->cls[c].shallow_total += s;
		h->total_shallow += s;
	}
	free(csize);
}
