/* jcoll.c — the JDK's classes from the inside, see jcoll.h. */
#include "graph/jcoll.h"
