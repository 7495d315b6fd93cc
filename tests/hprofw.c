/* hprofw.c — the test HPROF writer, see hprofw.h. */
#include "hprofw.h"

#include "engine/open.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- buffer ---- */

void hw_init(struct hw *w, unsigned ids)
{
	memset(w, 0, sizeof *w);
	sbuf_init(&w->b);
	w->ids = ids;
}

void hw_begin(struct hw *w, const char *version, unsigned ids)
{
	hw_init(w, ids);
	sbuf_add(&w->b, version, strlen(version) + 1);
	hw_u4(w, ids);
	hw_u8(w, 1700000000000ull);
}

void hw_free(struct hw *w)
{
	sbuf_free(&w->b);
	free(w->cls);
	w->cls = NULL;
	w->ncls = w->capcls = 0;
}

size_t hw_pos(const struct hw *w) { return w->b.len; }
void hw_u1(struct hw *w, uint8_t v) { sbuf_addc(&w->b, (char)v); }
void hw_u2(struct hw *w, uint16_t v) { hw_u1(w, (uint8_t)(v >> 8)); hw_u1(w, (uint8_t)v); }
void hw_u4(struct hw *w, uint32_t v) { hw_u2(w, (uint16_t)(v >> 16)); hw_u2(w, (uint16_t)v); }
void hw_u8(struct hw *w, uint64_t v) { hw_u4(w, (uint32_t)(v >> 32)); hw_u4(w, (uint32_t)v); }
void hw_bytes(struct hw *w, const void *p, size_t n) { sbuf_add(&w->b, p, n); }

void hw_truncate(struct hw *w, size_t len)
{
	if (len < w->b.len) {
		w->b.len = len;
		w->b.buf[len] = '\0';
	}
}

void hw_id(struct hw *w, uint64_t v)
{
	if (w->ids == 8)
		hw_u8(w, v);
	else
		hw_u4(w, (uint32_t)v);
}

unsigned hw_type_size(uint8_t type, unsigned ids)
{
	switch (type) {
	case 2: return ids;           /* object */
	case 4: case 8: return 1;     /* boolean, byte */
	case 5: case 9: return 2;     /* char, short */
	case 6: case 10: return 4;    /* float, int */
	case 7: case 11: return 8;    /* double, long */
	default: return 0;
	}
}

/* A value of `type`, at its size; unknown types write nothing. */
static void value(struct hw *w, uint8_t type, uint64_t v)
{
	switch (hw_type_size(type, w->ids)) {
	case 1: hw_u1(w, (uint8_t)v); break;
	case 2: hw_u2(w, (uint16_t)v); break;
	case 4: hw_u4(w, (uint32_t)v); break;
	case 8: hw_u8(w, v); break;
	default: break;
	}
}

/* ---- top-level records ---- */

void hw_rec_begin(struct hw *w, uint8_t tag)
{
	hw_u1(w, tag);
	hw_u4(w, 0); /* microseconds since the header's time */
	w->rec_at = w->b.len;
	hw_u4(w, 0); /* length, patched by hw_rec_end */
}

void hw_rec_end(struct hw *w)
{
	uint32_t len = (uint32_t)(w->b.len - w->rec_at - 4);
	uint8_t *p = (uint8_t *)w->b.buf + w->rec_at;

	p[0] = (uint8_t)(len >> 24);
	p[1] = (uint8_t)(len >> 16);
	p[2] = (uint8_t)(len >> 8);
	p[3] = (uint8_t)len;
}

void hw_utf8(struct hw *w, uint64_t id, const char *s)
{
	hw_rec_begin(w, 0x01);
	hw_id(w, id);
	hw_bytes(w, s, strlen(s));
	hw_rec_end(w);
}

void hw_load_class(struct hw *w, uint32_t serial, uint64_t cid, uint64_t name_id)
{
	hw_rec_begin(w, 0x02);
	hw_u4(w, serial);
	hw_id(w, cid);
	hw_u4(w, 0); /* stack trace serial */
	hw_id(w, name_id);
	hw_rec_end(w);
}

void hw_class_name(struct hw *w, uint32_t serial, uint64_t cid, const char *name)
{
	hw_utf8(w, cid + 1, name);
	hw_load_class(w, serial, cid, cid + 1);
}

void hw_frame(struct hw *w, uint64_t fid, uint64_t method, uint64_t sig, uint64_t source,
	      uint32_t class_serial, int32_t line)
{
	hw_rec_begin(w, 0x04);
	hw_id(w, fid);
	hw_id(w, method);
	hw_id(w, sig);
	hw_id(w, source);
	hw_u4(w, class_serial);
	hw_u4(w, (uint32_t)line);
	hw_rec_end(w);
}

void hw_trace(struct hw *w, uint32_t serial, uint32_t thread_serial, const uint64_t *frames,
	      uint32_t nframes)
{
	hw_rec_begin(w, 0x05);
	hw_u4(w, serial);
	hw_u4(w, thread_serial);
	hw_u4(w, nframes);
	for (uint32_t i = 0; i < nframes; i++)
		hw_id(w, frames[i]);
	hw_rec_end(w);
}

void hw_heap_begin(struct hw *w) { hw_rec_begin(w, 0x1c); }
void hw_heap_end(struct hw *w) { hw_rec_end(w); }

void hw_dump_end(struct hw *w)
{
	hw_rec_begin(w, 0x2c);
	hw_rec_end(w);
}

/* ---- heap sub-records ---- */

/* HPROF instance bytes of class `cid` and its supers, as dumped so far. */
static uint32_t inst_bytes(const struct hw *w, uint64_t cid)
{
	uint32_t total = 0;

	for (size_t depth = 0; cid != 0 && depth <= w->ncls; depth++) {
		size_t i = 0;
		while (i < w->ncls && w->cls[i].id != cid)
			i++;
		if (i == w->ncls)
			break;
		total += w->cls[i].own_bytes;
		cid = w->cls[i].super;
	}
	return total;
}

static void remember_class(struct hw *w, uint64_t cid, uint64_t super, uint32_t own)
{
	if (w->ncls == w->capcls) {
		w->capcls = w->capcls ? 2 * w->capcls : 16;
		w->cls = xreallocarray(w->cls, w->capcls, sizeof *w->cls);
	}
	w->cls[w->ncls++] = (struct hw_cls){ cid, super, own };
}

void hw_class_dump(struct hw *w, uint64_t cid, uint64_t super, uint64_t loader,
		   const struct hw_field *cp, int ncp, const struct hw_field *statics, int nstatics,
		   const struct hw_field *fields, int nfields)
{
	uint32_t own = 0;

	for (int i = 0; i < nfields; i++)
		own += hw_type_size(fields[i].type, w->ids);
	hw_u1(w, 0x20);
	hw_id(w, cid);
	hw_u4(w, 0); /* stack trace serial */
	hw_id(w, super);
	hw_id(w, loader);
	for (int i = 0; i < 4; i++) /* signers, protection domain, reserved x2 */
		hw_id(w, 0);
	hw_u4(w, own + inst_bytes(w, super));
	hw_u2(w, (uint16_t)ncp);
	for (int i = 0; i < ncp; i++) {
		hw_u2(w, (uint16_t)cp[i].name_id); /* the constant pool index */
		hw_u1(w, cp[i].type);
		value(w, cp[i].type, cp[i].value);
	}
	hw_u2(w, (uint16_t)nstatics);
	for (int i = 0; i < nstatics; i++) {
		hw_id(w, statics[i].name_id);
		hw_u1(w, statics[i].type);
		value(w, statics[i].type, statics[i].value);
	}
	hw_u2(w, (uint16_t)nfields);
	for (int i = 0; i < nfields; i++) {
		hw_id(w, fields[i].name_id);
		hw_u1(w, fields[i].type);
	}
	remember_class(w, cid, super, own);
}

void hw_instance(struct hw *w, uint64_t id, uint64_t cid, const struct hw_field *vals, int n)
{
	uint32_t len = 0;

	for (int i = 0; i < n; i++)
		len += hw_type_size(vals[i].type, w->ids);
	hw_u1(w, 0x21);
	hw_id(w, id);
	hw_u4(w, 0);
	hw_id(w, cid);
	hw_u4(w, len);
	for (int i = 0; i < n; i++)
		value(w, vals[i].type, vals[i].value);
}

void hw_objarray(struct hw *w, uint64_t id, uint64_t acid, const uint64_t *elems, uint32_t n)
{
	hw_u1(w, 0x22);
	hw_id(w, id);
	hw_u4(w, 0);
	hw_u4(w, n);
	hw_id(w, acid);
	for (uint32_t i = 0; i < n; i++)
		hw_id(w, elems[i]);
}

void hw_primarray(struct hw *w, uint64_t id, uint8_t type, uint32_t n, const void *data)
{
	size_t bytes = (size_t)n * hw_type_size(type, w->ids);

	hw_u1(w, 0x23);
	hw_id(w, id);
	hw_u4(w, 0);
	hw_u4(w, n);
	hw_u1(w, type);
	if (data != NULL) {
		hw_bytes(w, data, bytes);
	} else {
		for (size_t i = 0; i < bytes; i++)
			hw_u1(w, 0);
	}
}

void hw_primarray_nodata(struct hw *w, uint64_t id, uint8_t type, uint32_t n)
{
	hw_u1(w, 0xc3);
	hw_id(w, id);
	hw_u4(w, 0);
	hw_u4(w, n);
	hw_u1(w, type);
}

void hw_heap_info(struct hw *w, uint32_t heap_id, uint64_t name_id)
{
	hw_u1(w, 0xfe);
	hw_u4(w, heap_id);
	hw_id(w, name_id);
}

void hw_root(struct hw *w, uint8_t kind, uint64_t id, uint32_t a, uint32_t b)
{
	hw_u1(w, kind);
	hw_id(w, id);
	switch (kind) {
	case 0x01: hw_id(w, a); break;                       /* JNI global: its ref id */
	case 0x02: case 0x03: case 0x08: case 0x8e:          /* thread, frame or depth */
		hw_u4(w, a);
		hw_u4(w, b);
		break;
	case 0x04: case 0x06: hw_u4(w, a); break;            /* thread */
	default: break;                                      /* the id alone */
	}
}

/* ---- files ---- */

const char *hw_tmpdir(void)
{
	static char dir[512];

	if (dir[0] == '\0') {
		/* the pid and the clock: pids come round again in a long run */
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		snprintf(dir, sizeof dir, "%s/tmp/t%ld-%lx", TEST_BUILDDIR, (long)getpid(),
			 (unsigned long)(ts.tv_sec * 1000000000L + ts.tv_nsec));
		mkdir(TEST_BUILDDIR "/tmp", 0755);
		mkdir(dir, 0755);
	}
	return dir;
}

char *hw_write_in(const struct hw *w, const char *dir, const char *name, size_t len)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "wb");

	if (f == NULL)
		hw_fatal("cannot write %s", path);
	if (len > w->b.len)
		len = w->b.len;
	if (fwrite(w->b.buf, 1, len, f) != len || fclose(f) != 0)
		hw_fatal("cannot write %s", path);
	return path;
}

char *hw_write(const struct hw *w, const char *name, size_t len)
{
	return hw_write_in(w, hw_tmpdir(), name, len);
}

/* ---- the JDK-like class set ---- */

void hw_jdk_names(struct hw *w)
{
	static const struct { uint64_t id; const char *s; } f[] = {
		{ JF_VALUE, "value" }, { JF_HASH, "hash" }, { JF_CODER, "coder" },
		{ JF_HASHZERO, "hashIsZero" }, { JF_REFERENT, "referent" }, { JF_QUEUE, "queue" },
		{ JF_NEXT, "next" }, { JF_DISCOVERED, "discovered" }, { JF_PARENT, "parent" },
	};

	for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
		hw_utf8(w, f[i].id, f[i].s);
	hw_class_name(w, 1, J_OBJECT, "java/lang/Object");
	hw_class_name(w, 2, J_CLASS, "java/lang/Class");
	hw_class_name(w, 3, J_STRING, "java/lang/String");
	hw_class_name(w, 4, J_REFERENCE, "java/lang/ref/Reference");
	hw_class_name(w, 5, J_WEAKREF, "java/lang/ref/WeakReference");
	hw_class_name(w, 6, J_LOADER, "java/lang/ClassLoader");
	hw_class_name(w, 7, J_OBJARR, "[Ljava/lang/Object;");
}

void hw_jdk_classes(struct hw *w)
{
	static const struct hw_field string[] = {
		{ JF_VALUE, T_OBJECT, 0 }, { JF_HASH, T_INT, 0 }, { JF_CODER, T_BYTE, 0 },
		{ JF_HASHZERO, T_BOOLEAN, 0 } };
	static const struct hw_field ref[] = {
		{ JF_REFERENT, T_OBJECT, 0 }, { JF_QUEUE, T_OBJECT, 0 }, { JF_NEXT, T_OBJECT, 0 },
		{ JF_DISCOVERED, T_OBJECT, 0 } };
	static const struct hw_field loader[] = { { JF_PARENT, T_OBJECT, 0 } };

	hw_class_dump(w, J_OBJECT, 0, 0, NULL, 0, NULL, 0, NULL, 0);
	hw_class_dump(w, J_CLASS, J_OBJECT, 0, NULL, 0, NULL, 0, NULL, 0);
	hw_class_dump(w, J_STRING, J_OBJECT, 0, NULL, 0, NULL, 0, string, 4);
	hw_class_dump(w, J_REFERENCE, J_OBJECT, 0, NULL, 0, NULL, 0, ref, 4);
	hw_class_dump(w, J_WEAKREF, J_REFERENCE, 0, NULL, 0, NULL, 0, NULL, 0);
	hw_class_dump(w, J_LOADER, J_OBJECT, 0, NULL, 0, NULL, 0, loader, 1);
	hw_class_dump(w, J_OBJARR, J_OBJECT, 0, NULL, 0, NULL, 0, NULL, 0);
}

void hw_jdk_class_roots(struct hw *w)
{
	static const uint64_t classes[] = { J_OBJECT, J_CLASS, J_STRING, J_REFERENCE, J_WEAKREF, J_LOADER, J_OBJARR };

	for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++)
		hw_root(w, HW_ROOT_STICKY_CLASS, classes[i], 0, 0);
}

void hw_jdk_open(struct hw *w)
{
	hw_begin(w, "JAVA PROFILE 1.0.2", 8);
	hw_jdk_names(w);
	hw_heap_begin(w);
	hw_jdk_classes(w);
	hw_jdk_class_roots(w);
}

char *hw_jdk_close(struct hw *w, const char *name)
{
	hw_heap_end(w);
	hw_dump_end(w);
	char *path = hw_write(w, name, SIZE_MAX);
	hw_free(w);
	return path;
}

void hw_jdk_string(struct hw *w, uint64_t id, uint64_t value_id)
{
	const struct hw_field v[] = {
		{ 0, T_OBJECT, value_id }, { 0, T_INT, 0 }, { 0, T_BYTE, 0 }, { 0, T_BOOLEAN, 0 } };

	hw_instance(w, id, J_STRING, v, 4);
}

void hw_jdk_weakref(struct hw *w, uint64_t id, uint64_t referent)
{
	/* WeakReference has no fields of its own: Reference's follow */
	const struct hw_field v[] = {
		{ 0, T_OBJECT, referent }, { 0, T_OBJECT, 0 }, { 0, T_OBJECT, 0 }, { 0, T_OBJECT, 0 } };

	hw_instance(w, id, J_WEAKREF, v, 4);
}

void hw_jdk_loader(struct hw *w, uint64_t id, uint64_t parent)
{
	const struct hw_field v[] = { { 0, T_OBJECT, parent } };

	hw_instance(w, id, J_LOADER, v, 1);
}

/* ---- weak and soft holders ---- */
const uint64_t wk_soft[5] = { 0x4011, 0x4013, 0x4015, 0x4017, 0x4019 };
const uint64_t wk_soft_to[5] = { 0x4101, 0x4103, 0x4105, 0x4109, WK_O1 };
const uint64_t wk_weak[1] = { 0x4021 }, wk_weak_to[1] = { 0x4107 };
const uint64_t wk_bufs[5] = { 0x4101, 0x4103, 0x4105, 0x4107, 0x4109 }; /* B1..B4, B6 */

char *hw_write_weakheld(void)
{
	static const struct hw_field holder[] = { { WKF_BUF, T_OBJECT, 0 } };
	struct hw w;

	hw_begin(&w, "JAVA PROFILE 1.0.2", 8);
	hw_jdk_names(&w);
	hw_utf8(&w, WKF_BUF, "buf");
	hw_class_name(&w, 30, WK_SOFT, "java/lang/ref/SoftReference");
	hw_class_name(&w, 31, WK_BUF, "t/Buf");
	hw_class_name(&w, 32, WK_OTHER, "t/Other");
	hw_class_name(&w, 33, WK_HOLDER, "t/Holder");
	hw_heap_begin(&w);
	hw_jdk_classes(&w);
	hw_class_dump(&w, WK_SOFT, J_REFERENCE, 0, NULL, 0, NULL, 0, NULL, 0);
	hw_class_dump(&w, WK_BUF, J_OBJECT, 0, NULL, 0, NULL, 0, NULL, 0);
	hw_class_dump(&w, WK_OTHER, J_OBJECT, 0, NULL, 0, NULL, 0, NULL, 0);
	hw_class_dump(&w, WK_HOLDER, J_OBJECT, 0, NULL, 0, NULL, 0, holder, 1);
	hw_root(&w, HW_ROOT_JNI_GLOBAL, WK_R, 1, 0);
	hw_root(&w, HW_ROOT_JNI_GLOBAL, WK_B6, 2, 0);
	uint64_t elems[7];
	size_t ne = 0;
	for (size_t i = 0; i < 5; i++) {
		/* SoftReference's own fields: none written here, Reference's follow */
		const struct hw_field v[] = { { 0, T_OBJECT, wk_soft_to[i] }, { 0, T_OBJECT, 0 }, { 0, T_OBJECT, 0 },
					      { 0, T_OBJECT, 0 } };
		hw_instance(&w, wk_soft[i], WK_SOFT, v, 4);
		elems[ne++] = wk_soft[i];
	}
	hw_jdk_weakref(&w, wk_weak[0], wk_weak_to[0]);
	elems[ne++] = wk_weak[0];
	const struct hw_field hv[] = { { 0, T_OBJECT, WK_O1 } };
	hw_instance(&w, WK_H, WK_HOLDER, hv, 1);
	elems[ne++] = WK_H;
	hw_objarray(&w, WK_R, J_OBJARR, elems, (uint32_t)ne);
	for (size_t i = 0; i < 5; i++)
		hw_instance(&w, wk_bufs[i], WK_BUF, NULL, 0);
	hw_instance(&w, WK_O1, WK_OTHER, NULL, 0);
	hw_heap_end(&w);
	hw_dump_end(&w);
	char *path = hw_write(&w, "weakheld.hprof", SIZE_MAX);
	hw_free(&w);
	return path;
}

/* ---- accumulations ---- */
const uint64_t ab_buf[5] = { 0x6101, 0x6103, 0x6105, 0x6107, 0x6109 };
const uint64_t ab_soft[4] = { 0x6201, 0x6203, 0x6205, 0x6207 }, ab_weak = 0x6209;
const uint64_t ai_item[6] = { 0x6301, 0x6303, 0x6305, 0x6307, 0x6309, 0x630b };
const uint64_t ai_owner[6] = { 0x6401, 0x6403, 0x6405, 0x6407, 0x6409, 0x640b };

/* An instance of a class with one reference field, to a new primitive
 * array of n elements of type t (its id: id + 0x1000). */
static void hw_with_array(struct hw *w, uint64_t id, uint64_t cid, uint8_t t, uint32_t n)
{
	const struct hw_field v[] = { { 0, T_OBJECT, id + 0x1000 } };

	hw_instance(w, id, cid, v, 1);
	hw_primarray(w, id + 0x1000, t, n, NULL);
}

static void hw_one_field_class(struct hw *w, uint64_t cid, uint64_t fname)
{
	const struct hw_field f[] = { { fname, T_OBJECT, 0 } };

	hw_class_dump(w, cid, J_OBJECT, 0, NULL, 0, NULL, 0, f, 1);
}

char *hw_write_accum(void)
{
	struct hw w;
	uint64_t r1[5], cells[4];

	hw_begin(&w, "JAVA PROFILE 1.0.2", 8);
	hw_jdk_names(&w);
	hw_utf8(&w, ACF_DATA, "data");
	hw_utf8(&w, ACF_PAYLOAD, "payload");
	hw_utf8(&w, ACF_ITEM, "item");
	hw_utf8(&w, ACF_CELLS, "cells");
	hw_utf8(&w, ACF_BLOB, "blob");
	hw_class_name(&w, 40, AC_SOFTREF, "java/lang/ref/SoftReference");
	hw_class_name(&w, 41, AC_BUF, "t/Buf");
	hw_class_name(&w, 42, AC_ITEM, "t/Item");
	hw_class_name(&w, 43, AC_OWNER, "t/Owner");
	hw_class_name(&w, 44, AC_BAG, "t/Bag");
	hw_class_name(&w, 45, AC_CELL, "t/Cell");
	hw_heap_begin(&w);
	hw_jdk_classes(&w);
	hw_class_dump(&w, AC_SOFTREF, J_REFERENCE, 0, NULL, 0, NULL, 0, NULL, 0);
	hw_one_field_class(&w, AC_BUF, ACF_DATA);
	hw_one_field_class(&w, AC_ITEM, ACF_PAYLOAD);
	hw_one_field_class(&w, AC_OWNER, ACF_ITEM);
	const struct hw_field bagf[] = { { ACF_CELLS, T_OBJECT, 0 }, { ACF_BLOB, T_OBJECT, 0 } };
	hw_class_dump(&w, AC_BAG, J_OBJECT, 0, NULL, 0, NULL, 0, bagf, 2);
	hw_one_field_class(&w, AC_CELL, ACF_PAYLOAD);
	hw_root(&w, HW_ROOT_JNI_GLOBAL, AC_R1, 1, 0);
	hw_root(&w, HW_ROOT_JNI_GLOBAL, AC_R2, 2, 0);
	hw_root(&w, HW_ROOT_JNI_GLOBAL, AC_R3, 3, 0);
	hw_root(&w, HW_ROOT_JNI_GLOBAL, AC_BAGOBJ, 4, 0);
	hw_root(&w, HW_ROOT_JNI_GLOBAL, ai_item[0], 5, 0);
	for (size_t i = 0; i < 5; i++)
		hw_with_array(&w, ab_buf[i], AC_BUF, T_BYTE, 1000);
	for (size_t i = 0; i < 4; i++) {
		/* SoftReference's own fields: none; Reference's follow */
		const struct hw_field v[] = { { 0, T_OBJECT, ab_buf[i] }, { 0, T_OBJECT, 0 }, { 0, T_OBJECT, 0 },
					      { 0, T_OBJECT, 0 } };
		hw_instance(&w, ab_soft[i], AC_SOFTREF, v, 4);
		r1[i] = ab_soft[i];
	}
	hw_jdk_weakref(&w, ab_weak, ab_buf[4]);
	r1[4] = ab_weak;
	hw_objarray(&w, AC_R1, J_OBJARR, r1, 5);
	for (size_t i = 0; i < 6; i++) {
		const struct hw_field v[] = { { 0, T_OBJECT, ai_item[i] } };
		hw_with_array(&w, ai_item[i], AC_ITEM, T_LONG, 60);
		hw_instance(&w, ai_owner[i], AC_OWNER, v, 1);
	}
	hw_objarray(&w, AC_R2, J_OBJARR, ai_owner, 6);
	hw_objarray(&w, AC_R3, J_OBJARR, ai_item, 6);
	for (size_t i = 0; i < 4; i++) {
		cells[i] = 0x6501 + 2 * i;
		hw_with_array(&w, cells[i], AC_CELL, T_LONG, 100);
	}
	hw_objarray(&w, AC_CELLS, J_OBJARR, cells, 4);
	const struct hw_field bag[] = { { 0, T_OBJECT, AC_BLOB }, { 0, T_OBJECT, AC_CELLS } };
	hw_instance(&w, AC_BAGOBJ, AC_BAG, bag, 2);
	hw_primarray(&w, AC_BLOB, T_BYTE, 12000, NULL);
	hw_heap_end(&w);
	hw_dump_end(&w);
	char *path = hw_write(&w, "accum.hprof", SIZE_MAX);
	hw_free(&w);
	return path;
}

/* ---- the sample heap ---- */

void hw_sample_classes(struct hw *w)
{
	static const char *statics[] = { "sb", "sz", "sc", "ss", "si", "sj", "sf", "sd", "so" };

	hw_utf8(w, F_NEXT, "next");
	hw_utf8(w, F_OTHER, "other");
	hw_utf8(w, F_VAL, "val");
	hw_utf8(w, F_REFERENT, "referent");
	hw_utf8(w, F_QUEUE, "queue");
	hw_utf8(w, F_DISC, "discovered");
	for (int i = 0; i < 9; i++)
		hw_utf8(w, F_STATIC + 2 * (uint64_t)i, statics[i]);
	hw_class_name(w, 1, S_OBJ, "java/lang/Object");
	hw_class_name(w, 2, S_NODE, "Node");
	hw_class_name(w, 3, S_REF, "java/lang/ref/Reference");
	hw_class_name(w, 4, S_WEAK, "java/lang/ref/WeakReference");
	hw_class_name(w, 5, S_BARR, "[B");
	hw_class_name(w, 6, S_HOLDER, "Holder");
}

static void sample_class_dumps(struct hw *w)
{
	static const struct hw_field node[] = { { F_NEXT, 2, 0 }, { F_OTHER, 2, 0 }, { F_VAL, 10, 0 } };
	static const struct hw_field ref[] = {
		{ F_REFERENT, 2, 0 }, { F_QUEUE, 2, 0 }, { F_NEXT, 2, 0 }, { F_DISC, 2, 0 } };
	/* statics of every type; the object one holds S */
	static const struct hw_field st[] = {
		{ F_STATIC, 8, 0x7f }, { F_STATIC + 2, 4, 1 }, { F_STATIC + 4, 5, 0x263a },
		{ F_STATIC + 6, 9, 0xffff }, { F_STATIC + 8, 10, 42 }, { F_STATIC + 10, 11, 1ull << 40 },
		{ F_STATIC + 12, 6, 0x3f800000 }, { F_STATIC + 14, 7, 0x4000000000000000ull },
		{ F_STATIC + 16, 2, S_S },
	};
	static const struct hw_field cp[] = { { 3, 10, 7 }, { 5, 2, 0 } }; /* an int and a null */

	hw_class_dump(w, S_OBJ, 0, 0, NULL, 0, NULL, 0, NULL, 0);
	hw_class_dump(w, S_NODE, S_OBJ, 0, NULL, 0, NULL, 0, node, 3);
	hw_class_dump(w, S_REF, S_OBJ, 0, NULL, 0, NULL, 0, ref, 4);
	hw_class_dump(w, S_WEAK, S_REF, 0, NULL, 0, NULL, 0, NULL, 0);
	hw_class_dump(w, S_BARR, S_OBJ, 0, NULL, 0, NULL, 0, NULL, 0);
	hw_class_dump(w, S_HOLDER, S_OBJ, 0, cp, 2, st, 9, NULL, 0);
}

static void node(struct hw *w, uint64_t id, uint64_t next, uint64_t other, uint32_t val)
{
	const struct hw_field v[] = { { 0, 2, next }, { 0, 2, other }, { 0, 10, val } };

	hw_instance(w, id, S_NODE, v, 3);
}

void hw_sample(struct hw *w, const char *version, unsigned ids, struct hw_sample *s)
{
	hw_begin(w, version, ids);
	hw_sample_classes(w);
	s->seg = hw_pos(w);
	hw_heap_begin(w);
	sample_class_dumps(w);
	hw_root(w, 0x01, S_A, 0x77, 0);
	hw_root(w, 0xff, S_W, 0, 0);
	for (uint64_t c = S_OBJ; c <= S_HOLDER; c += 0x10)
		hw_root(w, 0x05, c, 0, 0);
	s->a_at = hw_pos(w);
	node(w, S_A, S_B, S_C, 1);
	s->after_a = hw_pos(w);
	node(w, S_B, S_D, 0, 2);
	node(w, S_C, S_D, 0, 3);
	node(w, S_D, S_X, 0, 4);
	hw_primarray(w, S_X, 8, 100, NULL);
	const struct hw_field wr[] = { { 0, 2, S_E }, { 0, 2, 0 }, { 0, 2, 0 }, { 0, 2, 0 } };
	hw_instance(w, S_W, S_WEAK, wr, 4);
	node(w, S_E, 0, 0, 5);
	node(w, S_U, S_A, 0, 6);
	node(w, S_S, 0, 0, 7);
	hw_heap_end(w);
	hw_dump_end(w);
}

void hw_open_sample(struct heap *h, const char *name)
{
	struct hw w;
	struct hw_sample s;
	struct open_opts o = { .no_cache = 1, .quiet = 1 };
	struct progress p;
	struct sbuf err;

	hw_sample(&w, "JAVA PROFILE 1.0.2", 8, &s);
	char *path = hw_write(&w, name, SIZE_MAX);
	progress_init(&p, 1);
	sbuf_init(&err);
	if (heap_open(h, path, &o, &p, &err) != 0)
		hw_fatal("%s: %s", path, err.buf);
	heap_need(h, HP_ALL, &p);
	sbuf_free(&err);
	free(path);
	hw_free(&w);
}

enum { EVIL = 0x8001, EV1 = 0x8101, STR = 0x8103, BYTES = 0x8105, F_WHO = 0x8201 };

void hw_evil(struct hw *w)
{
	static const char text[] = "hi\x1b[2J\n\"q\",\0end";
	const struct hw_field fields[] = { { F_WHO, T_OBJECT, 0 } };
	const struct hw_field vals[] = { { 0, T_OBJECT, STR } };

	hw_begin(w, "JAVA PROFILE 1.0.2", 8);
	hw_jdk_names(w);
	hw_utf8(w, F_WHO, "who");
	hw_class_name(w, 20, EVIL, "Evil\x1b]0;pwned\x07,\"x\"");
	hw_heap_begin(w);
	hw_jdk_classes(w);
	hw_class_dump(w, EVIL, J_OBJECT, 0, NULL, 0, NULL, 0, fields, 1);
	hw_root(w, 0x01, EV1, 0, 0);
	hw_instance(w, EV1, EVIL, vals, 1);
	hw_jdk_string(w, STR, BYTES);
	hw_primarray(w, BYTES, T_BYTE, sizeof text - 1, text);
	hw_heap_end(w);
	hw_dump_end(w);
}

char *hw_write_evil(void)
{
	struct hw w;

	hw_evil(&w);
	char *path = hw_write(&w, "evil.hprof", SIZE_MAX);
	hw_free(&w);
	return path;
}

/* ---- random graphs ---- */

uint32_t hw_rnd(uint32_t *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return *seed >> 16;
}

uint64_t hw_graph_id(uint32_t i) { return HWG_OBJ + 2 * (uint64_t)i; }

/* A reference slot: null in nullpct of the cases, else any object (the
 * one that holds it too). */
static int graph_slot(uint32_t *seed, uint32_t n, unsigned nullpct)
{
	return hw_rnd(seed) % 100 < nullpct ? -1 : (int)(hw_rnd(seed) % n);
}

void hw_graph_random(struct hw_graph *g, uint32_t *seed, uint32_t n, uint32_t ncls,
		     const struct hw_shape *s)
{
	unsigned nullpct = s->null_min + hw_rnd(seed) % s->null_span;
	uint32_t nroots = 1 + hw_rnd(seed) % s->roots;

	if (n < 2 || n > HWG_MAX || ncls < 1 || ncls > HWG_MAX || (s->each && ncls < n))
		hw_fatal("hw_graph_random: %u objects of %u classes", n, ncls);
	memset(g, 0, sizeof *g);
	g->n = n;
	g->ncls = ncls;
	g->class_roots = s->class_roots;
	for (uint32_t k = 0; k < ncls; k++)
		g->nfields[k] = (uint8_t)(k % HWG_FIELDS + 1);
	for (uint32_t r = 0; r < nroots; r++)
		g->root[hw_rnd(seed) % n] = 1;
	for (uint32_t i = 0; i < n; i++) {
		unsigned kind = hw_rnd(seed) % 100;
		if (kind < s->weaks) {
			g->kind[i] = HWG_WEAK;
			g->nref[i] = 1;
			g->ref[i][0] = graph_slot(seed, n, nullpct / 2);
			continue;
		}
		if (kind < s->weaks + s->arrays) {
			g->kind[i] = HWG_ARRAY;
			g->nref[i] = hw_rnd(seed) % HWG_REFS;
		} else {
			g->kind[i] = HWG_INSTANCE;
			g->cls[i] = s->each ? i : hw_rnd(seed) % ncls;
			g->nref[i] = g->nfields[g->cls[i]];
		}
		for (uint32_t j = 0; j < g->nref[i]; j++)
			g->ref[i][j] = graph_slot(seed, n, nullpct);
	}
}

static uint64_t graph_cls(uint32_t k) { return HWG_CLS + 0x10 * (uint64_t)k; }

static void graph_classes(struct hw *w, const struct hw_graph *g)
{
	struct hw_field f[HWG_FIELDS];

	for (uint32_t k = 0; k < g->ncls; k++) {
		for (unsigned j = 0; j < g->nfields[k]; j++)
			f[j] = (struct hw_field){ HWG_FIELD + 2 * (uint64_t)j, T_OBJECT, 0 };
		hw_class_dump(w, graph_cls(k), J_OBJECT, 0, NULL, 0, NULL, 0, f, g->nfields[k]);
	}
	if (g->class_roots != HWG_CROOTS_NONE)
		for (uint64_t c = J_OBJECT; c <= J_OBJARR; c += 0x10)
			hw_root(w, HW_ROOT_STICKY_CLASS, c, 0, 0);
	for (uint32_t k = 0; g->class_roots == HWG_CROOTS_ALL && k < g->ncls; k++)
		hw_root(w, HW_ROOT_STICKY_CLASS, graph_cls(k), 0, 0);
}

static void graph_object(struct hw *w, const struct hw_graph *g, uint32_t i)
{
	uint64_t to[HWG_REFS];
	struct hw_field f[HWG_FIELDS];

	for (uint32_t j = 0; j < g->nref[i]; j++) {
		to[j] = g->ref[i][j] < 0 ? 0 : hw_graph_id((uint32_t)g->ref[i][j]);
		if (j < HWG_FIELDS)
			f[j] = (struct hw_field){ 0, T_OBJECT, to[j] };
	}
	if (g->kind[i] == HWG_WEAK)
		hw_jdk_weakref(w, hw_graph_id(i), to[0]);
	else if (g->kind[i] == HWG_ARRAY)
		hw_objarray(w, hw_graph_id(i), J_OBJARR, to, g->nref[i]);
	else
		hw_instance(w, hw_graph_id(i), graph_cls(g->cls[i]), f, (int)g->nref[i]);
}

void hw_graph_dump(struct hw *w, const struct hw_graph *g)
{
	char name[32];

	hw_begin(w, "JAVA PROFILE 1.0.2", 8);
	hw_jdk_names(w);
	for (int j = 0; j < HWG_FIELDS; j++) {
		snprintf(name, sizeof name, "f%d", j);
		hw_utf8(w, HWG_FIELD + 2 * (uint64_t)j, name);
	}
	for (uint32_t k = 0; k < g->ncls; k++) {
		snprintf(name, sizeof name, "t/C%u", k);
		hw_class_name(w, 8 + k, graph_cls(k), name);
	}
	hw_heap_begin(w);
	hw_jdk_classes(w);
	graph_classes(w, g);
	for (uint32_t i = 0; i < g->n; i++)
		if (g->root[i])
			hw_root(w, HW_ROOT_UNKNOWN, hw_graph_id(i), 0, 0);
	for (uint32_t i = 0; i < g->n; i++)
		graph_object(w, g, i);
	hw_heap_end(w);
	hw_dump_end(w);
}

void hw_open_graph(struct heap *h, struct hw_graph *g, const char *name)
{
	struct hw w;
	struct open_opts o = { .no_cache = 1, .quiet = 1 };
	struct sbuf err;

	hw_graph_dump(&w, g);
	char *path = hw_write(&w, name, SIZE_MAX);
	hw_free(&w);
	sbuf_init(&err);
	if (heap_open(h, path, &o, NULL, &err) != 0)
		hw_fatal("%s: %s", path, err.buf);
	heap_need(h, HP_ALL, NULL);
	for (uint32_t i = 0; i < g->n; i++)
		if ((g->node[i] = heap_find_id(h, hw_graph_id(i))) == HW_NONE)
			hw_fatal("%s: object %u (0x%llx) not in the heap", path, i,
				 (unsigned long long)hw_graph_id(i));
	sbuf_free(&err);
	free(path);
}

char *hw_write_chain(const char *dir, const char *name, unsigned n)
{
	enum { CLS = 0x5001, CNAME = 0x5003, FNEXT = 0x5005 };
	struct hw w;
	struct hw_field f = { FNEXT, T_OBJECT, 0 };

	hw_begin(&w, "JAVA PROFILE 1.0.2", 8);
	hw_jdk_names(&w);
	hw_utf8(&w, FNEXT, "next");
	hw_utf8(&w, CNAME, "Link");
	hw_load_class(&w, 8, CLS, CNAME);
	hw_heap_begin(&w);
	hw_jdk_classes(&w);
	hw_class_dump(&w, CLS, J_OBJECT, 0, NULL, 0, NULL, 0, &f, 1);
	hw_root(&w, HW_ROOT_UNKNOWN, HW_CHAIN_FIRST, 0, 0);
	for (unsigned i = 0; i < n; i++) { /* the first -> ... -> the last, by next */
		f.value = i + 1 < n ? HW_CHAIN_FIRST + 16 * (i + 1) : 0;
		hw_instance(&w, HW_CHAIN_FIRST + 16 * i, CLS, &f, 1);
	}
	hw_heap_end(&w);
	hw_dump_end(&w);
	char *path = hw_write_in(&w, dir, name, SIZE_MAX);
	hw_free(&w);
	return path;
}
