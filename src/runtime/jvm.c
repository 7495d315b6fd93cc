/* jvm.c — the JVM runtime's table: its hooks are jvm_coll.c's, but for
 * the kinds of the JDK's reference objects. */
#include "runtime/jvm.h"

#include <ctype.h>
#include <string.h>

#include "runtime/jvm_coll.h"

static void *jvm_open(const struct heap *h)
{
	return jcoll_new(h);
}

static void jvm_close(void *ctx)
{
	jcoll_free(ctx);
}

/* A field is told apart from v's others by its byte offset in the
 * instance data (plus one: never 0). */
static int jvm_field_ref(void *ctx, node_t v, const char *name, node_t *target, uint32_t *slot)
{
	struct jcoll *j = ctx;
	const struct heap *h = jcoll_heap(j);
	uint8_t type;

	if (h->node_kind[v] != NK_INSTANCE)
		return -1;
	int off = jfield_offset(j, h->node_class[v], name, &type);
	if (off < 0 || type != T_OBJECT)
		return -1;
	*target = jfield_ref(h, v, off);
	*slot = (uint32_t)off + 1;
	return 0;
}

static node_t jvm_referent(void *ctx, node_t v, uint32_t *slot)
{
	const struct heap *h = jcoll_heap(ctx);
	const struct hclass *k = &h->cls[h->node_class[v]];

	if (h->node_kind[v] != NK_INSTANCE || k->referent_off == HW_NONE)
		return HW_NONE;
	*slot = k->referent_off + 1;
	return jfield_ref(h, v, (int)k->referent_off);
}

static int64_t jvm_coll_walk(void *ctx, node_t v, unsigned roles, coll_fn fn, void *arg)
{
	return jcoll_walk(ctx, v, roles, fn, arg);
}

static void *jvm_contents_open(const struct heap *h)
{
	return jcontents_new(h);
}

static void jvm_contents_close(void *ctx)
{
	jcontents_free(ctx);
}

static int jvm_contents_is_coll(void *ctx, node_t v)
{
	return jcontents_is_coll(ctx, v);
}

static int64_t jvm_contents_walk(void *ctx, node_t v, coll_fn fn, void *arg)
{
	return jcontents_walk(ctx, v, fn, arg);
}

static int jvm_contents_inside(void *ctx, node_t v, node_t y)
{
	return jcontents_inside(ctx, v, y);
}

static node_t jvm_contents_holder(void *ctx, node_t y, node_t x, unsigned r, uint64_t *xid, enum coll_role *role)
{
	return jcontents_holder(ctx, y, x, r, xid, role);
}

static int jvm_field_offset(void *ctx, uint32_t c, const char *name, uint8_t *type)
{
	return jfield_offset(ctx, c, name, type);
}

/* The JDK's hash tables, and the field of a set (or a copy-on-write
 * set) that holds the collection it is made over. */
static int is_hash(enum coll_kind k)
{
	switch (k) {
	case CK_HASHMAP: case CK_LINKEDHASHMAP: case CK_HASHSET: case CK_LINKEDHASHSET:
	case CK_HASHTABLE: case CK_WEAKHASHMAP: case CK_IDENTITYHASHMAP: case CK_CHM:
		return 1;
	default:
		return 0;
	}
}

static const char *backing_field(enum coll_kind k)
{
	switch (k) {
	case CK_HASHSET: case CK_LINKEDHASHSET: return "map";
	case CK_TREESET: return "m";
	case CK_COWSET: return "al";
	default: return NULL;
	}
}

static void jvm_coll_class(void *ctx, uint32_t c, struct coll_class *out)
{
	enum coll_kind k = jcoll_kind(ctx, c);

	*out = (struct coll_class){ .kind = (unsigned)k, .whole = k != CK_NONE && k != CK_ARRAY && k != CK_WRAPPER,
				    .hashed = is_hash(k), .backing = backing_field(k) };
}

static int jvm_coll_info(void *ctx, node_t v, struct coll_info *ci)
{
	return jcoll_info(ctx, v, ci);
}

/* The JDK's reference classes, the weakest last: a subclass of one
 * holds its referent as it does. */
static const char *const jvm_ref_classes[][2] = {
	{ "java.lang.ref.SoftReference", "soft" },
	{ "java.lang.ref.WeakReference", "weak" },
	{ "java.lang.ref.FinalReference", "finalizer" },
	{ "java.lang.ref.PhantomReference", "phantom" },
};

/* v's kind when t is its referent (a rule may make other fields weak). */
static const char *jvm_weak_kind(const struct heap *h, node_t v, node_t t)
{
	uint32_t c = h->node_class[v];

	if (h->node_kind[v] != NK_INSTANCE || h->cls[c].referent_off == HW_NONE ||
	    jfield_ref(h, v, (int)h->cls[c].referent_off) != t)
		return NULL;
	for (uint32_t d = 0; c != HW_NONE && d < h->ncls; c = h->cls[c].super, d++)
		for (size_t k = 0; k < sizeof jvm_ref_classes / sizeof *jvm_ref_classes; k++)
			if (strcmp(class_name(h, c), jvm_ref_classes[k][0]) == 0)
				return jvm_ref_classes[k][1];
	return NULL;
}

/* Values: a field that holds another one holds another object. */
static const char *const jvm_values[] = {
	"java.lang.String", "java.lang.Integer", "java.lang.Long", "java.lang.Short",
	"java.lang.Byte", "java.lang.Character", "java.lang.Boolean", "java.lang.Float",
	"java.lang.Double", "java.math.BigInteger", "java.math.BigDecimal", NULL,
};

struct salt { uint64_t v; int found; };

static void salt_field(void *arg, const char *name, const struct hvalue *val)
{
	struct salt *s = arg;

	if (!s->found && strcmp(name, "SALT32L") == 0 && val->type == T_LONG) {
		s->v = val->v.u;
		s->found = 1;
	}
}

/* The JDK (9 on) draws java.util.ImmutableCollections.SALT32L from the
 * clock once a run, when the class is first used, which a JVM does as
 * it starts; 0 until then, which tells nothing (a later dump of the run
 * has it). A class of that name loaded by another loader is not it. */
static int jvm_run_key(const struct heap *h, uint64_t *key, struct sbuf *words)
{
	if (h->fmt == NULL || h->fmt->fields == NULL)
		return 0;
	for (uint32_t c = 0; c < h->ncls; c++) {
		const struct hclass *k = &h->cls[c];
		if (k->node == HW_NONE || k->node == 0 || k->node >= h->n || k->loader_id != 0 ||
		    strcmp(class_name(h, c), "java.util.ImmutableCollections") != 0)
			continue;
		struct salt s = { 0, 0 };
		h->fmt->fields(h, k->node, salt_field, &s);
		if (!s.found || s.v == 0)
			return 0;
		*key = s.v;
		sbuf_printf(words, "the JVM run that drew java.util.ImmutableCollections.SALT32L %#llx",
			    (unsigned long long)s.v);
		return 1;
	}
	return 0;
}

/* A hidden class (a lambda's, a method handle's) is named by its
 * defining class's name, "/0x" and the address HotSpot made it at,
 * which differs from run to run: "Lam$$Lambda$1/0x00007f1814000a08" is
 * matched by "Lam$$Lambda$1/0x", which no class that is not hidden can
 * be named (a '/' is no part of a Java class's name). */
static size_t jvm_class_key_len(const char *name)
{
	const char *slash = strrchr(name, '/');

	if (slash == NULL || slash == name || slash[1] != '0' || slash[2] != 'x' || slash[3] == '\0')
		return 0;
	for (const char *p = slash + 3; *p; p++)
		if (!isxdigit((unsigned char)*p))
			return 0;
	return (size_t)(slash - name) + 3;
}

const struct runtime_ops jvm_runtime = {
	.name = "jvm",
	.open = jvm_open,
	.close = jvm_close,
	.field_ref = jvm_field_ref,
	.referent = jvm_referent,
	.coll_walk = jvm_coll_walk,
	.contents_open = jvm_contents_open,
	.contents_close = jvm_contents_close,
	.contents_is_coll = jvm_contents_is_coll,
	.contents_walk = jvm_contents_walk,
	.contents_inside = jvm_contents_inside,
	.contents_holder = jvm_contents_holder,
	.value_classes = jvm_values,
	.field_offset = jvm_field_offset,
	.field_raw = jfield_raw,
	.coll_class = jvm_coll_class,
	.coll_info = jvm_coll_info,
	.weak_kind = jvm_weak_kind,
	.run_key = jvm_run_key,
	.class_key_len = jvm_class_key_len,
};
