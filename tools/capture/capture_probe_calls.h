// The calls capture_probe makes, one per way of reaching an encoder: each encodes its map and
// prints "<way> <tag> <result>" (see capture_probe.c). The tags are what capture_test.py matches
// the records by: globalDim[1] of the tiled maps, globalDim[3] (N) of the im2col ones, and the new
// address's low bits for cuTensorMapReplaceAddress.
#pragma once

#include <stdint.h>

#include "encoder_types.h"

typedef int (*runtime_fn)(const char*, void**, unsigned long long, int*);
typedef int (*runtime_by_version_fn)(const char*, void**, unsigned int, unsigned long long, int*);

enum {
  kTagLinked = 1001,
  kTagDlsymDefault = 1002,
  kTagDlsymHandle = 1003,
  kTagProcAddrV1 = 1004,
  kTagProcAddrV2 = 1005,
  kTagProcAddrChain = 1006,
  kTagLinkedProcAddr = 1007,
  kTagRuntime = 1008,  // cudaGetDriverEntryPoint; ByVersion: kTagRuntime + 1
  kTagIm2col = 2001,
  kTagWide = 3001,
  kTagReplace = 0x400,  // the replacement address: the data's base + this
  kTagLaunch = 4001,
};

// tmakit encode tiled --dtype bf16 --dims 4096,TAG --strides 8192 --box 64,128 --swizzle 128B
void probe_tiled(const char* way, int tag, tiled_fn f);
// tmakit encode im2col --dtype bf16 --dims 64,32,32,TAG --strides 128,4096,131072 --lower -1,-1
//   --upper 1,1 --channels 64 --pixels 128 --swizzle 128B
void probe_im2col(const char* way, int tag, im2col_fn f);
// cuGetProcAddress (v1) / _v2 asked for cuTensorMapEncodeTiled, then probe_tiled.
void probe_lookup_v1(const char* way, int tag, procaddr_v1_fn lookup);
void probe_lookup_v2(const char* way, int tag, procaddr_v2_fn lookup);
// _v2 asked for "cuGetProcAddress" (CUDA 12.0: the _v2 lookup), which is then asked for the encoder.
void probe_lookup_chain(const char* way, int tag, procaddr_v2_fn lookup);
// _v2 asked for cuTensorMapEncodeIm2colWide: the im2col map above, W corners -1 / 1, mode W128.
void probe_im2col_wide(const char* way, int tag, procaddr_v2_fn lookup);
// The last map encoded (the im2col-wide one), its address replaced by the data's base + tag.
void probe_replace(const char* way, int tag, replace_fn f);
// _v2 asked for cuLaunchKernel, which launches no kernel (a null function) with a parameter buffer
// holding a known map 64 bytes in: the capture records the map a kernel would have received.
void probe_launch(const char* way, int tag, procaddr_v2_fn lookup);
// cudaGetDriverEntryPoint and ...ByVersion(12000) asked for cuTensorMapEncodeTiled (tags tag, tag + 1).
void probe_runtime(const char* way, int tag, runtime_fn lookup, runtime_by_version_fn by_version);
