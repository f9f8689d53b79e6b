// Which SIMD forms of the fast path (encode_fast.hpp) this build of the host library compiles:
// on x86-64, the SSE2 form (encode_fast_sse2.hpp; every x86-64 CPU runs it) and, with g++ or clang,
// the AVX-512 form and its block form (encode_fast_avx512.hpp, encode_fast_block.hpp), which run
// on CPUs with AVX-512 F, VL, BW, DQ and VBMI. encode_host.cpp picks one per process; every form
// gives the same results. Build the library with TMAKIT_ENCODE_FAST_AVX512 defined as 0 to leave
// the AVX-512 forms out, with TMAKIT_ENCODE_FAST_SSE2 defined as 0 to run the portable form there
// too. Host code only (a private header of tmakit::host).
#pragma once

#if !defined(TMAKIT_ENCODE_FAST_SSE2)
#define TMAKIT_ENCODE_FAST_SSE2 1
#endif
#if TMAKIT_ENCODE_FAST_SSE2 && (defined(__SSE2__) || defined(_M_X64))
#define TMAKIT_ENCODE_FAST_USES_SSE2 1
#include <emmintrin.h>
#else
#define TMAKIT_ENCODE_FAST_USES_SSE2 0
#endif

#if !defined(TMAKIT_ENCODE_FAST_AVX512)
#define TMAKIT_ENCODE_FAST_AVX512 1
#endif
#if TMAKIT_ENCODE_FAST_USES_SSE2 && TMAKIT_ENCODE_FAST_AVX512 && (defined(__GNUC__) || defined(__clang__)) && \
    defined(__x86_64__)
#define TMAKIT_ENCODE_FAST_USES_AVX512 1
#include <immintrin.h>
// The AVX-512 functions carry this target attribute; the files that hold them are compiled with
// the library's own flags, so that nothing else in them (inline functions of other headers, which
// the linker may merge with other files' copies) uses AVX-512 instructions.
#define TMAKIT_ENCODE_AVX512_TARGET __attribute__((target("avx512f,avx512vl,avx512bw,avx512vbmi,avx512dq")))
#else
#define TMAKIT_ENCODE_FAST_USES_AVX512 0
#endif
