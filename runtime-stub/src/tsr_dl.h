/* A vendor API the stub dlopens is one X-macro table of its symbols,
 * X(symbol, return type, (parameter types)), in the vendor's header
 * (tsr_cuda.h, tsr_hip.h, tsr_xrt.h). From that one list come the struct of
 * function pointers (members named as the symbols), the NUL-separated name
 * table dlsym reads, and the count, so the three can never disagree. */
#ifndef TSR_DL_H
#define TSR_DL_H

#include <stddef.h>

#define TSR_DL_MEMBER(symbol, ret, params) ret(*symbol) params;
#define TSR_DL_NAME(symbol, ret, params) #symbol "\0"
#define TSR_DL_COUNT(symbol, ret, params) +1

/* Resolves `count` symbols named in `names` (NUL-separated, in table order)
 * into `table` (a struct of `count` function pointers); the first
 * `required` must be there, the rest are NULL when missing. Returns NULL,
 * or the first missing required name (`table` then partly filled). */
const char* tsr_dl_resolve(void* library, const char* names, int count, int required, void* table);

#endif /* TSR_DL_H */
