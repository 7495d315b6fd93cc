/* jsonv_names.h — src/cli/jsonv.h's names, renamed, for the programs
 * that also link the tests' own JSON checker (tests/jsonck.c), whose
 * struct jv, jv_free and jv_get are others of the same names: the
 * runner and the fuzzers. Included before cli/jsonv.h (jsonv_fz.c and
 * mcp_fz.c compile jsonv.c and mcp.c so). */
#ifndef HW_FUZZ_JSONV_NAMES_H
#define HW_FUZZ_JSONV_NAMES_H
#define jv mjv
#define jv_type mjv_type
#define jv_parse mjv_parse
#define jv_free mjv_free
#define jv_get mjv_get
#define jv_str mjv_str
#define jv_int mjv_int
#define jv_write mjv_write
#define jv_write_str mjv_write_str
#define jv_set_str mjv_set_str
#define jv_set_num mjv_set_num
#define jv_put mjv_put
#define jv_push mjv_push
#endif
