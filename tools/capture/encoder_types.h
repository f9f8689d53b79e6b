// The driver's tensor-map entry points as function-pointer types (cuda.h's signatures with plain
// C types, so that neither the capture library nor the probe needs cuda.h), and the two
// generations of cuGetProcAddress that hand them out.
#pragma once

#include <stdint.h>

typedef int (*tiled_fn)(void*, int, uint32_t, void*, const uint64_t*, const uint64_t*, const uint32_t*,
                        const uint32_t*, int, int, int, int);
typedef int (*im2col_fn)(void*, int, uint32_t, void*, const uint64_t*, const uint64_t*, const int*, const int*,
                         uint32_t, uint32_t, const uint32_t*, int, int, int, int);
typedef int (*wide_fn)(void*, int, uint32_t, void*, const uint64_t*, const uint64_t*, int, int, uint32_t, uint32_t,
                       const uint32_t*, int, int, int, int, int);
typedef int (*replace_fn)(void*, void*);
typedef int (*procaddr_v1_fn)(const char*, void**, int, uint64_t);
typedef int (*procaddr_v2_fn)(const char*, void**, int, uint64_t, void*);
