/* hprof_layout.h — shallow sizes as HotSpot lays objects out: header, field
 * packing (JDK 15+ field layout: superclass first, largest fields
 * first into the first hole that fits, then references), alignment,
 * compressed oops and class pointers. HPROF stores every reference at
 * full id size, so the layout is inferred from the dump: object ids are
 * addresses, and after the full GC before a dump live objects are
 * contiguous, so the gap to the next object is the object's size.
 * (The instance size in a CLASS_DUMP is no help: HotSpot writes the sum
 * of the field values as dumped, without header, gaps or padding.) */
#ifndef HW_HPROF_LAYOUT_H
#define HW_HPROF_LAYOUT_H

#include "graph/heap.h"

/* JVM size of an array of `len` elements of `elem` (enum hw_type). */
uint64_t layout_array_size(const struct jvm_layout *L, uint8_t elem, uint64_t len);

/* Picks h->layout from the address gaps of the nodes (node_kind,
 * node_class set; node_shallow holding array lengths for arrays and the
 * described class index for class nodes), sets every class's shallow
 * and mirror_size, corrects classes whose instances prove another size
 * (marked HC_ESTIMATED), then turns node_shallow into sizes and fills
 * the per-class count and shallow_total. */
void layout_apply(struct heap *h);

#endif
