/* check.c — CI gates: rules read, measured on a dump, written as JUnit;
 * see check.h. */
#include "query/check.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/analysis.h"
#include "query/baseline.h"
#include "query/inspect.h"
#include "query/step.h"


static char *trim(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	size_t n = strlen(s);
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		s[--n] = '\0';
	return s;
}

static int is_bytes(const char *measure)
{
	return strcmp(measure, "count") != 0;
}

/* VALUE: [-]digits[.digits][unit]; units in powers of 1024 (bytes only).
 * The bound exactly: *out its floor, *whole whether it is a whole number
 * (27.343749kB is 27999.998976 bytes: floor 27999, not whole). -1 with
 * why set. */
static int parse_value(const char *s, int bytes, int sign_ok, int64_t *out, int *whole, const char **why)
{
	int neg = 0, digits = 0, dot = 0, fdigits = 0;
	uint64_t v = 0; /* every digit, the fraction's too: the bound is v / 10^fdigits units */

	if (*s == '-' && sign_ok) {
		neg = 1;
		s++;
	}
	for (; isdigit((unsigned char)*s) || (*s == '.' && !dot); s++) {
		if (*s == '.') {
			dot = 1;
			continue;
		}
		if (v > (UINT64_MAX - 9) / 10 || fdigits == 19) {
			*why = "a number of fewer digits (at most 19 after the point)";
			return -1;
		}
		v = v * 10 + (uint64_t)(*s - '0');
		fdigits += dot;
		digits++;
	}
	if (digits == 0) {
		if (*s == '-')
			*why = "a count or size of 0 or more (a bound below 0 goes with growth rules)";
		else
			*why = *s == '\0' ? "no number after the comparison" : "a number after the comparison";
		return -1;
	}
	if (!bytes && *s != '\0') { /* "1e9", "10kB": what follows the digits is no count's */
		*why = isalpha((unsigned char)*s) || *s == '.' ? "a plain number: a count takes no unit"
							       : "a number alone after the comparison";
		return -1;
	}
	static const struct { const char *u; unsigned shift; } units[] = {
		{ "", 0 }, { "B", 0 }, { "K", 10 }, { "k", 10 }, { "kB", 10 }, { "KB", 10 },
		{ "M", 20 }, { "MB", 20 }, { "G", 30 }, { "GB", 30 }, { "T", 40 }, { "TB", 40 },
	};
	size_t i;
	for (i = 0; i < sizeof units / sizeof units[0]; i++)
		if (strcmp(s, units[i].u) == 0)
			break;
	if (i == sizeof units / sizeof units[0]) {
		*why = "a number with a unit of bytes (B, kB, MB, GB, TB) or none";
		return -1;
	}
	if (dot && i < 2) {
		*why = "a whole number (a fraction goes with kB, MB, GB or TB)";
		return -1;
	}
	uint64_t den = 1;
	for (int k = 0; k < fdigits; k++)
		den *= 10;
	unsigned __int128 b = (unsigned __int128)v << units[i].shift;
	unsigned __int128 q = b / den;
	int frac = b % den != 0;
	if (q + (unsigned)frac > (unsigned __int128)INT64_MAX) {
		*why = bytes ? "a number below 2^63 bytes" : "a number below 2^63";
		return -1;
	}
	*whole = !frac;
	*out = neg ? -(int64_t)q - frac : (int64_t)q; /* a negative's floor is below it */
	return 0;
}

static int set_measure(const char *m)
{
	return strcmp(m, "count") == 0 || strcmp(m, "shallow") == 0 || strcmp(m, "retained") == 0;
}

/* One rule from line (modified); -1 with why set. */
static int parse_rule(char *line, struct chk_rule *r, const char **why)
{
	char *colon = strrchr(line, ':');

	if (colon == NULL) {
		*why = "no ':' before the measure (SUBJECT : MEASURE OP VALUE)";
		return -1;
	}
	*colon = '\0';
	char *subject = trim(line), *cmp = trim(colon + 1);
	/* MEASURE OP VALUE */
	char *sp = cmp + strcspn(cmp, " \t<>=!");
	if (sp == cmp) {
		*why = "no measure after ':' (count, shallow, retained, or an inspection's figure)";
		return -1;
	}
	char *op = sp;
	while (*op == ' ' || *op == '\t')
		op++;
	size_t ol = strspn(op, "<>=!");
	int k;
	for (k = 0; k < 6; k++)
		if (ol == strlen(check_op_text((enum chk_op)k)) && strncmp(op, check_op_text((enum chk_op)k), ol) == 0)
			break;
	if (k == 6) {
		*why = "no comparison after the measure (<, <=, >, >=, == or !=)";
		return -1;
	}
	r->measure = xstrndup(cmp, (size_t)(sp - cmp));
	r->op = (enum chk_op)k;
	char *val = trim(op + ol);
	/* the subject */
	char *word = subject, *rest = subject + strcspn(subject, " \t");
	if (*rest != '\0')
		*rest++ = '\0';
	rest = trim(rest);
	if (strcmp(word, "set") == 0 || strcmp(word, "growth") == 0) {
		r->kind = word[0] == 's' ? CK_SET : CK_GROWTH;
		if (*rest == '\0') {
			*why = "no steps after set or growth";
			return -1;
		}
		r->steps = xstrdup(rest);
		struct pipeline pl = { 0 };
		struct sbuf err;
		sbuf_init(&err);
		int bad = pipeline_parse(r->steps, &pl, &err) < 0 || pl.view != NULL, bl = 0;
		for (size_t i = 0; !bad && i < pl.n; i++)
			bl |= step_on_baseline(pl.steps[i].op) || pl.steps[i].op == ST_GONE;
		pipeline_free(&pl);
		if (!bad)
			sbuf_free(&err);
		if (bad) {
			/* why they do not parse, as -e says it (a bad regex: PCRE2's words) */
			static char msg[320];
			if (err.len > 0)
				snprintf(msg, sizeof msg, "steps that do not parse: %.280s", err.buf);
			else
				snprintf(msg, sizeof msg, "steps that end in a view (a rule's steps make a set)");
			sbuf_free(&err);
			*why = msg;
			return -1;
		}
		if (bl && r->kind == CK_GROWTH) {
			*why = "growth steps without new, old, gone or unidentified (they run on the baseline too)";
			return -1;
		}
		if (!set_measure(r->measure)) {
			*why = "a measure of count, shallow or retained";
			return -1;
		}
	} else if (strcmp(word, "leaks") == 0) {
		r->kind = CK_LEAKS;
		if (strcmp(rest, "top") == 0)
			r->kind = CK_LEAKS_TOP;
		else if (*rest != '\0') {
			*why = "leaks takes nothing, or top";
			return -1;
		}
		if (!set_measure(r->measure)) {
			*why = "a measure of count, shallow or retained";
			return -1;
		}
	} else if (strcmp(word, "inspection") == 0) {
		r->kind = CK_INSP;
		char *name = rest, *arg = rest + strcspn(rest, " \t");
		if (*arg != '\0')
			*arg++ = '\0';
		arg = trim(arg);
		size_t al = strlen(arg);
		if (al >= 3 && strcmp(arg + al - 3, "top") == 0 && (al == 3 || arg[al - 4] == ' ' || arg[al - 4] == '\t')) {
			r->kind = CK_INSP_TOP;
			arg[al - 3] = '\0';
			arg = trim(arg);
		}
		const struct inspection *in = inspect_find(name);
		if (in == NULL) {
			*why = "no inspection of that name (heapwalk inspect --list)";
			return -1;
		}
		if ((in->arg == NULL && *arg != '\0') || (in->arg_required && *arg == '\0')) {
			*why = in->arg == NULL ? "an inspection that takes no argument" : "an inspection that needs an argument";
			return -1;
		}
		r->insp = xstrdup(name);
		r->insp_arg = *arg != '\0' ? xstrdup(arg) : NULL;
		if (strcmp(r->measure, "count") != 0 && strcmp(r->measure, "shallow") != 0 &&
		    (in->extra_name == NULL || strcmp(r->measure, in->extra_name) != 0)) {
			*why = "a measure of count, shallow or the inspection's own figure (heapwalk inspect --list)";
			return -1;
		}
	} else {
		*why = "a subject of set STEPS, growth STEPS, leaks [top] or inspection NAME [ARG] [top]";
		return -1;
	}
	int bytes = is_bytes(r->measure);
	if (r->insp != NULL && strcmp(r->measure, "shallow") != 0 && strcmp(r->measure, "count") != 0)
		bytes = inspect_find(r->insp)->extra_bytes; /* its own figure: bytes or a count */
	int whole;
	if (parse_value(val, bytes, r->kind == CK_GROWTH, &r->value, &whole, why) < 0)
		return -1;
	if (!whole) { /* a fraction of a byte: the whole bound that decides alike (bytes are whole) */
		switch (r->op) {
		case CK_GT: /* m > t: m > its floor */
		case CK_LE: /* m <= t: m <= its floor */
			break;
		case CK_GE: /* m >= t: m >= its ceiling */
		case CK_LT: /* m < t: m < its ceiling */
			r->value++;
			break;
		default:
			*why = "a whole number of bytes with == or != (this bound has a fraction of a byte)";
			return -1;
		}
	}
	return 0;
}

static void rule_free(struct chk_rule *r)
{
	free(r->text);
	free(r->steps);
	free(r->insp);
	free(r->insp_arg);
	free(r->measure);
	free(r->error);
	free(r->note);
}

int check_parse(const char *file, const char *text, size_t len, struct chk_rules *rs, struct sbuf *err)
{
	size_t at = 0;
	unsigned line = 0;

	memset(rs, 0, sizeof *rs);
	while (at < len) {
		size_t e = at;
		while (e < len && text[e] != '\n')
			e++;
		line++;
		const char *why = NULL;
		struct chk_rule r = { .file = file, .line = line };
		char *l = NULL;
		if (memchr(text + at, '\0', e - at) != NULL) {
			why = "a NUL byte: not a rules file";
		} else {
			l = xstrndup(text + at, e - at);
			for (char *hash = l; (hash = strchr(hash, '#')) != NULL; hash++)
				if (hash == l || hash[-1] == ' ' || hash[-1] == '\t') { /* a '#' inside a word is the rule's */
					*hash = '\0';
					break;
				}
			char *s = trim(l);
			if (*s != '\0') {
				r.text = xstrdup(s);
				if (parse_rule(s, &r, &why) == 0) {
					if (rs->n == rs->cap) {
						rs->cap = rs->cap ? 2 * rs->cap : 16;
						rs->r = xreallocarray(rs->r, rs->cap, sizeof *rs->r);
					}
					rs->r[rs->n++] = r;
					r.text = NULL;
				}
			}
		}
		free(l);
		at = e + 1;
		if (why != NULL) {
			char *ef = esc_str(file);
			sbuf_printf(err, "%s:%u: %s", ef, line, why);
			free(ef);
			rule_free(&r);
			check_free(rs);
			return -1;
		}
	}
	return 0;
}

/* ---- measuring ---- */

static uint64_t insp_figure(const struct chk_rule *r, uint64_t count, uint64_t shallow, uint64_t extra)
{
	return strcmp(r->measure, "count") == 0 ? count : strcmp(r->measure, "shallow") == 0 ? shallow : extra;
}

/* Does err say that the steps name a class the dump has none of? */
static int class_absent(const struct sbuf *err)
{
	return strncmp(err->buf, "no class named '", 16) == 0 || strncmp(err->buf, "no class matches /", 18) == 0;
}

/* The objects of set that h's baseline cannot identify. */
static uint64_t unidentified_in(const struct heap *h, const struct objset *set)
{
	const struct objset *u = &h->baseline->unknown;
	uint64_t n = 0;

	if (set->bits == NULL || u->bits == NULL)
		return set->bits == NULL ? u->count : 0;
	for (size_t i = 0; i < bits_words(h->n); i++)
		n += (uint64_t)__builtin_popcountll(set->bits[i] & u->bits[i]);
	return n;
}

/* Does the step keep some of its set's objects, no others? */
static int keeps_members(enum step_op op)
{
	switch (op) {
	case ST_INSTANCES: case ST_INSTANCEOF: case ST_NEW: case ST_OLD: case ST_GENERATION: case ST_UNIDENTIFIED:
	case ST_LIVE: case ST_UNREACHABLE: case ST_LOADER:
		return 1;
	default:
		return 0;
	}
}

/* The rule's measure of the set its steps select in h: 0, or -1 and
 * err; with note, a class the dump has none of selects none (and *note
 * says so). loose: new and old take the objects the baseline cannot
 * identify too, *kept counts those they kept and *left those of them in
 * the set after the steps that filter it (keeps_members) from new or old
 * on; *after (NULL: none) the first step after those, which the caller
 * frees. */
static int measure_steps(const struct chk_rule *r, struct heap *h, struct progress *p, int loose, uint64_t *out,
			 char **note, struct sbuf *err, uint64_t *kept, uint64_t *left, char **after)
{
	int filtering = 0; /* from new or old on, every step a filter so far */

	struct pipeline pl = { 0 };
	struct objset set;

	if (pipeline_parse(r->steps, &pl, err) < 0)
		return -1;
	for (size_t i = 0; i < pl.n; i++)
		pl.steps[i].loose = loose;
	objset_all(h, &set);
	if (kept != NULL)
		*kept = 0;
	if (left != NULL)
		*left = 0;
	if (after != NULL)
		*after = NULL;
	for (size_t i = 0; i < pl.n; i++) {
		if (step_apply(h, &pl.steps[i], &set, p, err) == 0) {
			if (loose && kept != NULL && (pl.steps[i].op == ST_NEW || pl.steps[i].op == ST_OLD)) {
				*kept += unidentified_in(h, &set);
				filtering = 1;
			} else if (filtering && !keeps_members(pl.steps[i].op)) {
				filtering = 0;
				if (after != NULL && *after == NULL) {
					struct sbuf sb;
					sbuf_init(&sb);
					step_to_string(&pl.steps[i], &sb);
					*after = sbuf_detach(&sb);
				}
			}
			if (filtering && left != NULL)
				*left = unidentified_in(h, &set);
			continue;
		}
		/* a class the dump has none of: none of it (a .NET, V8
		 * or Mono dump has only the classes of the objects in
		 * it; a JVM's, the classes loaded); but a name a class
		 * is an edit or two from is a misspelling until shown
		 * otherwise (a regex names it exactly) */
		if (note != NULL && class_absent(err) && strstr(err->buf, ": did you mean ") == NULL) {
			free(*note);
			*note = xmalloc(err->len + 32);
			snprintf(*note, err->len + 32, "measured on no objects: %s", err->buf);
			sbuf_reset(err);
			objset_free(&set);
			objset_empty(h, &set);
			continue;
		}
		pipeline_free(&pl);
		objset_free(&set);
		return -1;
	}
	pipeline_free(&pl);
	if (strcmp(r->measure, "count") == 0)
		*out = set.count;
	else if (strcmp(r->measure, "shallow") == 0)
		*out = set.shallow;
	else
		*out = analysis_retained_set(h, set.bits, NULL, NULL, p);
	objset_free(&set);
	return 0;
}

/* Does the step give a set (and so a measure) at least as big from a
 * bigger set? Then the new or old objects among some the baseline
 * cannot identify give a figure between those of none and all of them. */
static int grows_with_set(enum step_op op)
{
	switch (op) {
	case ST_ALL: case ST_INSTANCES: case ST_INSTANCEOF: case ST_RETAINED: case ST_REFERRERS:
	case ST_REFERENTS: case ST_DOMINATED: case ST_OBJECT: case ST_NEW: case ST_OLD: case ST_CLASSOBJ:
	case ST_ELEMENTS: case ST_GENERATION: case ST_REACHABLE: case ST_ALLOCATED: case ST_SITE:
	case ST_CALLS: case ST_UNIDENTIFIED: case ST_LIVE: case ST_UNREACHABLE: case ST_LOADER: case ST_LOADED:
	case ST_PATH:
		return 1;
	default:
		return 0;
	}
}

/* The rule's steps take new or old objects of h against a baseline that
 * leaves some unidentified: how many there are (0: the steps' figure is
 * exact as far as the identity goes); *grows when every step from the
 * first new or old on grows with its set (those before it are the same
 * either way), *filters when each of them keeps some of its set's
 * objects (the set the steps end with then holds those of the
 * unidentified that count). */
static uint64_t loose_objects(const struct chk_rule *r, const struct heap *h, int *grows, int *filters,
			      const char **word)
{
	struct pipeline pl = { 0 };
	struct sbuf err;
	int newold = 0;

	*grows = 1;
	*filters = 1;
	if (h->baseline == NULL || h->baseline->unknown.bits == NULL || h->baseline->unknown.count == 0)
		return 0;
	sbuf_init(&err);
	if (pipeline_parse(r->steps, &pl, &err) == 0)
		for (size_t i = 0; i < pl.n; i++) {
			newold |= pl.steps[i].op == ST_NEW ? 1 : pl.steps[i].op == ST_OLD ? 2 : 0;
			if (newold) {
				*grows &= grows_with_set(pl.steps[i].op);
				*filters &= keeps_members(pl.steps[i].op);
			}
		}
	pipeline_free(&pl);
	sbuf_free(&err);
	*word = newold == 1 ? "new" : newold == 2 ? "old" : "new or old";
	return newold ? h->baseline->unknown.count : 0;
}

static int holds(enum chk_op op, int64_t got, int64_t want)
{
	switch (op) {
	case CK_LT: return got < want;
	case CK_LE: return got <= want;
	case CK_GT: return got > want;
	case CK_GE: return got >= want;
	case CK_EQ: return got == want;
	default: return got != want;
	}
}

/* A leaks rule where some objects the action made could not be
 * followed (lv->fate_unknown): the count lies between what was found
 * and that plus those, the shallow bytes between what was found and
 * the bytes of all the objects made that are not known gone, the
 * retained size between what was found and the retained size of the
 * leaks found and every object that may be one (retained sizes grow
 * with the set); the rule is measured when it holds, or fails, over
 * the whole range; 0 with err set when the range does not tell. */
static int range_holds(struct chk_rule *r, const struct leaks_view *lv, uint64_t now, struct sbuf *err)
{
	int count = strcmp(r->measure, "count") == 0, shallow = strcmp(r->measure, "shallow") == 0;
	uint64_t bound = shallow ? lv->fate_unknown_bytes : lv->fate_unknown_retained;
	uint64_t most = count ? now + lv->fate_unknown : now > bound ? now : bound;
	int64_t lo = (int64_t)now, hi = (int64_t)most;

	if (lo == hi || (r->op == CK_EQ || r->op == CK_NE ? r->value < lo || r->value > hi /* not = in it */
							  : holds(r->op, lo, r->value) == holds(r->op, hi, r->value))) {
		if (lo != hi) { /* decided over a range: as a set rule's, said */
			free(r->note);
			r->note = xasprintf("%llu of the objects the action made could not be followed to the final "
					    "dump: the leaks' %s is between %lld and %lld, and the rule %s over all of it",
					    (unsigned long long)lv->fate_unknown, r->measure, (long long)lo, (long long)hi,
					    holds(r->op, lo, r->value) ? "holds" : "fails");
		}
		return 1;
	}
	sbuf_printf(err, "cannot tell: %llu of the objects the action made could not be followed to the final "
		    "dump (their identity is not exact), so that the leaks' %s is between %llu and %llu",
		    (unsigned long long)lv->fate_unknown, r->measure, (unsigned long long)now,
		    (unsigned long long)most);
	return 0;
}

/* A leaks rule measured where objects of the final dump were left out,
 * unidentified (V8's natives, lookalikes): said in its note, for those
 * may be leaks too, which no figure of the rule counts (the leaks view
 * says how many: unidentified_left_out). */
static void note_left_out(struct chk_rule *r, const struct leaks_view *lv)
{
	if (lv->unidentified == 0)
		return;
	char *was = r->note;
	r->note = xasprintf("%s%s%llu objects of the final dump that no comparison could identify are not counted "
			    "as leaks (see heapwalk leaks): the rule measures the leaks among the others",
			    was != NULL ? was : "", was != NULL ? "; " : "", (unsigned long long)lv->unidentified);
	free(was);
}

/* One rule measured: 0 (now, then: its figures), or -1 with err */
static int measure_rule(struct chk_rule *r, struct heap *h, struct heap *old, const struct leaks_view *lv,
			struct progress *p, uint64_t *now, uint64_t *then, struct sbuf *err)
{
	int rc = 0;

	switch (r->kind) {
	case CK_SET: {
		int grows, filters;
		const char *word = NULL;
		char *scratch = NULL;
		uint64_t most = 0, kept = 0, left = 0;
		rc = measure_steps(r, h, p, 0, now, &r->note, err, NULL, NULL, NULL);
		if (rc < 0 || loose_objects(r, h, &grows, &filters, &word) == 0)
			break;
		/* a class absent is none of it on both sides: its note once */
		char *after = NULL;
		rc = measure_steps(r, h, p, 1, &most, &scratch, err, &kept, &left, &after);
		free(scratch);
		if (rc < 0 || kept == 0) { /* no such object reached the set: the same steps, exact */
			free(after);
			break;
		}
		/* new or old against a baseline that cannot identify all of
		 * them: the figure lies between the two (when the steps grow
		 * with their set), and the rule is measured if it holds or
		 * fails over the whole of it */
		int64_t lo = (int64_t)(*now < most ? *now : most), hi = (int64_t)(*now < most ? most : *now);
		if (grows && lo == hi) /* the same either way, and between: exact */
			break;
		/* which they are: the set's, when the steps after new or old
		 * filter it; else those new or old took (the set's are others) */
		char *which = filters || after == NULL
			? xasprintf("%llu objects of the set", (unsigned long long)left)
			: xasprintf("%llu objects the steps select before '%s'", (unsigned long long)left, after);
		free(after);
		if (grows && (r->op == CK_EQ || r->op == CK_NE ? r->value < lo || r->value > hi
							       : holds(r->op, lo, r->value) == holds(r->op, hi, r->value))) {
			free(r->note);
			r->note = xasprintf("%s the baseline cannot identify (see heapwalk diff) may be %s or not: the %s "
					    "is between %lld and %lld either way, and the rule %s over all of it", which,
					    word, r->measure, (long long)lo, (long long)hi,
					    holds(r->op, lo, r->value) ? "holds" : "fails");
			free(which);
			break;
		}
		if (grows)
			sbuf_printf(err, "cannot tell: %s the baseline cannot identify (see heapwalk diff) may be %s or not, "
				    "so that the %s is between %lld and %lld", which, word, r->measure, (long long)lo,
				    (long long)hi);
		else
			sbuf_printf(err, "cannot tell: %llu objects the baseline cannot identify (see heapwalk diff), "
				    "taken by %s or not, and a step after it does not grow with its set: the %s is "
				    "%llu with none of them taken so, %llu with all, and need not lie between with some",
				    (unsigned long long)kept, word, r->measure, (unsigned long long)*now,
				    (unsigned long long)most);
		free(which);
		rc = -1;
		break;
	}
	case CK_GROWTH:
		if (old == NULL) {
			sbuf_adds(err, "no baseline: a growth rule needs --baseline OLD");
			rc = -1;
			break;
		}
		rc = measure_steps(r, h, p, 0, now, &r->note, err, NULL, NULL, NULL);
		if (rc == 0 && (rc = measure_steps(r, old, p, 0, then, NULL, err, NULL, NULL, NULL)) < 0) {
			/* a class, or a frame, new after the baseline: none there */
			if (class_absent(err) || strncmp(err->buf, "site: no frame '", 16) == 0 ||
			    strncmp(err->buf, "calls: no frame '", 17) == 0) {
				rc = 0;
				*then = 0;
			} else {
				sbuf_adds(err, " (in the baseline)");
			}
		}
		break;
	case CK_LEAKS:
	case CK_LEAKS_TOP:
		if (lv == NULL) {
			sbuf_adds(err, "no leaks: a leaks rule needs --baseline BASE and --target TARGET");
			rc = -1;
			break;
		}
		if (r->kind == CK_LEAKS_TOP) {
			if (lv->n > 0)
				*now = strcmp(r->measure, "count") == 0 ? lv->cl[0].count
				      : strcmp(r->measure, "shallow") == 0 ? lv->cl[0].shallow : lv->cl[0].retained;
			if (lv->fate_unknown > 0 && !range_holds(r, lv, *now, err))
				rc = -1;
			else
				note_left_out(r, lv);
			break;
		}
		*now = strcmp(r->measure, "count") == 0 ? lv->leaked
		      : strcmp(r->measure, "shallow") == 0 ? lv->leaked_bytes : lv->retained;
		if (lv->fate_unknown > 0 && !range_holds(r, lv, *now, err))
			rc = -1;
		else
			note_left_out(r, lv);
		break;
	case CK_INSP:
	case CK_INSP_TOP: {
		const struct inspection *in = inspect_find(r->insp);
		struct insp_result res;
		struct objset all;
		objset_all(h, &all);
		rc = inspect_run(h, in, r->insp_arg, &all, &res, p, err);
		objset_free(&all);
		if (rc == 0) {
			if (r->kind == CK_INSP)
				*now = insp_figure(r, res.total.count, res.total.shallow, res.total.extra);
			else if (res.n > 0)
				*now = insp_figure(r, res.g[0].count, res.g[0].shallow, res.g[0].extra);
			insp_result_free(&res);
		}
		break;
	}
	}
	return rc;
}

size_t check_eval(struct chk_rules *rs, struct heap *h, struct heap *old, const struct leaks_view *lv,
		  struct progress *p)
{
	size_t failed = 0;
	struct sbuf err;

	sbuf_init(&err);
	for (size_t i = 0; i < rs->n; i++) {
		struct chk_rule *r = &rs->r[i];
		uint64_t now = 0, then = 0;
		int rc = 0;
		sbuf_reset(&err);
		free(r->error); /* measured again */
		r->error = NULL;
		free(r->note);
		r->note = NULL;
		if (rs->unfit != NULL) { /* a figure of part of a heap: no verdict either way */
			sbuf_adds(&err, rs->unfit);
			rc = -1;
		} else {
			rc = measure_rule(r, h, old, lv, p, &now, &then, &err);
		}
		if (rc < 0) {
			r->error = sbuf_detach(&err);
			r->ok = 0;
			failed++;
			continue;
		}
		r->got = (int64_t)now - (int64_t)then;
		r->ok = holds(r->op, r->got, r->value);
		failed += !r->ok;
	}
	sbuf_free(&err);
	return failed;
}

/* ---- JUnit ---- */

/* Escaped for the terminal's sake (control bytes, bad UTF-8 as \xHH;
 * escaped: text escaped once already, an error's words: not again),
 * then for XML. */
static void xml_esc(struct sbuf *out, const char *s, int escaped)
{
	struct sbuf e;

	sbuf_init(&e);
	if (escaped)
		esc_append_again(&e, (const uint8_t *)s, strlen(s));
	else
		esc_append(&e, (const uint8_t *)s, strlen(s), 0);
	for (size_t i = 0; i < e.len; i++) {
		const uint8_t *u = (const uint8_t *)e.buf + i;
		/* U+FDD0..FDEF, U+FFFE, U+FFFF: valid UTF-8, no XML character */
		if (i + 2 < e.len && u[0] == 0xef && ((u[1] == 0xb7 && u[2] >= 0x90 && u[2] <= 0xaf) ||
						      (u[1] == 0xbf && (u[2] == 0xbe || u[2] == 0xbf)))) {
			sbuf_printf(out, "\\u{%X}", (unsigned)((u[0] & 0x0f) << 12 | (u[1] & 0x3f) << 6 | (u[2] & 0x3f)));
			i += 2;
			continue;
		}
		switch (e.buf[i]) {
		case '&': sbuf_adds(out, "&amp;"); break;
		case '<': sbuf_adds(out, "&lt;"); break;
		case '>': sbuf_adds(out, "&gt;"); break;
		case '"': sbuf_adds(out, "&quot;"); break;
		case '\'': sbuf_adds(out, "&apos;"); break;
		default: sbuf_addc(out, e.buf[i]);
		}
	}
	sbuf_free(&e);
}

static void xml_text(struct sbuf *out, const char *s)
{
	xml_esc(out, s, 0);
}

/* A rule's note as the test case's output */
static void junit_note(struct sbuf *out, const struct chk_rule *r)
{
	if (r->note == NULL)
		return;
	sbuf_adds(out, "      <system-out>");
	xml_esc(out, r->note, 1);
	sbuf_adds(out, "</system-out>\n");
}

void check_junit(const struct chk_rules *rs, const char *dump, struct sbuf *out)
{
	size_t failures = 0, errors = 0;

	for (size_t i = 0; i < rs->n; i++) {
		errors += rs->r[i].error != NULL;
		failures += rs->r[i].error == NULL && !rs->r[i].ok;
	}
	sbuf_adds(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	sbuf_printf(out, "<testsuites name=\"heapwalk check\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\">\n",
		    rs->n, failures, errors);
	sbuf_adds(out, "  <testsuite name=\"");
	xml_text(out, dump);
	sbuf_printf(out, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\">\n", rs->n, failures, errors);
	for (size_t i = 0; i < rs->n; i++) {
		const struct chk_rule *r = &rs->r[i];
		sbuf_adds(out, "    <testcase classname=\"heapwalk.check.");
		xml_text(out, r->file);
		sbuf_printf(out, "\" name=\"line %u: ", r->line);
		xml_esc(out, r->text, 1); /* the user's words as written, control characters escaped */
		sbuf_adds(out, "\" file=\"");
		xml_text(out, r->file);
		sbuf_printf(out, "\" line=\"%u\"", r->line);
		if (r->error != NULL) {
			sbuf_adds(out, ">\n      <error message=\"");
			xml_esc(out, r->error, 1);
			sbuf_adds(out, "\" type=\"unmeasured\"/>\n    </testcase>\n");
		} else if (!r->ok) {
			char msg[96];
			snprintf(msg, sizeof msg, "measured %lld, not %s %lld", (long long)r->got, check_op_text(r->op),
				 (long long)r->value);
			sbuf_adds(out, ">\n      <failure message=\"");
			xml_text(out, msg);
			sbuf_adds(out, "\" type=\"threshold\"/>\n");
			junit_note(out, r);
			sbuf_adds(out, "    </testcase>\n");
		} else if (r->note != NULL) {
			sbuf_adds(out, ">\n");
			junit_note(out, r);
			sbuf_adds(out, "    </testcase>\n");
		} else {
			sbuf_adds(out, "/>\n");
		}
	}
	sbuf_adds(out, "  </testsuite>\n</testsuites>\n");
}

void check_junit_error(const char *dump, const char *rules, struct sbuf *out)
{
	sbuf_adds(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	sbuf_adds(out, "<testsuites name=\"heapwalk check\" tests=\"1\" failures=\"0\" errors=\"1\">\n");
	sbuf_adds(out, "  <testsuite name=\"");
	xml_text(out, dump);
	sbuf_adds(out, "\" tests=\"1\" failures=\"0\" errors=\"1\">\n");
	sbuf_adds(out, "    <testcase classname=\"heapwalk.check\" name=\"the rules of ");
	xml_text(out, rules);
	sbuf_adds(out, "\">\n      <error message=\"heapwalk check ended with an error before it measured the rules "
		       "(exit status 2); its standard error says what\" type=\"not run\"/>\n    </testcase>\n");
	sbuf_adds(out, "  </testsuite>\n</testsuites>\n");
}

void check_free(struct chk_rules *rs)
{
	for (size_t i = 0; i < rs->n; i++)
		rule_free(&rs->r[i]);
	free(rs->r);
	free(rs->unfit);
	memset(rs, 0, sizeof *rs);
}
