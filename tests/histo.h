/* histo.h — a JVM's class histogram and heapwalk's classes in CSV, as
 * rows of class, instances, bytes (one class name of several loaders
 * added up). */
#ifndef HW_TEST_HISTO_H
#define HW_TEST_HISTO_H

#include <stddef.h>

struct hrow { char *name; unsigned long long count, bytes; };
struct hist { struct hrow *r; size_t n; };

/* The rows of a `jcmd GC.class_histogram` file added to h. */
void read_histo(const char *path, struct hist *h);
/* The rows of `heapwalk classes -f csv` output added to h (csv is cut up). */
void parse_csv(char *csv, struct hist *h);
/* The instances (bytes: the bytes) of class name in h; 0 if absent. */
unsigned long long hist_find(const struct hist *h, const char *name, int bytes);
void free_hist(struct hist *h);

#endif
