/* jvm.h — the JVM runtime's knowledge (graph/reader.h's struct
 * runtime_ops) for the formats that read JVM heaps: fields by name and
 * the JDK's collections (jvm_coll.h). */
#ifndef HW_JVM_H
#define HW_JVM_H

#include "graph/reader.h"

extern const struct runtime_ops jvm_runtime;

#endif
