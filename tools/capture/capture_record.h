// One JSON line per call the capture library intercepted, in the schema of `tmakit encode --jsonl`
// (kind, dtype, rank, address, dims, strides, box, elem_strides, lower, upper, channels, pixels,
// interleave, swizzle, l2, oob, mode, arch) plus what only the call knows: which function, how the
// program reached it ("via"), the driver's result, whether a driver function ran at all, where
// the map was written ("map"), the process, and the 128 bytes written. `tmakit capture` reads
// these lines; `tmakit encode --jsonl` re-encodes them as they are.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "capture_driver.h"

enum CaptureKind { kCaptureTiled, kCaptureIm2col, kCaptureIm2colWide, kCaptureReplaceAddress };

typedef struct CaptureCall {
  const char* call;  // "cuTensorMapEncodeTiled", ...
  const char* via;   // "linked", "dlsym", "cuGetProcAddress", "cuGetProcAddress_v2"
  int result;        // what the program got back
  int driver;        // 1 when a driver function produced `result`
  enum CaptureKind kind;
  const void* map;   // the CUtensorMap the program passed
  const void* address;
  int dtype;
  uint32_t rank;
  const uint64_t* dims;
  const uint64_t* strides;  // rank - 1 of them
  const uint32_t* box;      // tiled only
  const uint32_t* elem_strides;
  const int* lower;         // im2col: rank - 2 corners; im2col-wide: one (W)
  const int* upper;
  uint32_t channels, pixels;
  int interleave, swizzle, l2, oob, mode;
} CaptureCall;

// Appends the line to the file TMAKIT_CAPTURE names (stderr when unset or empty) with a single
// write(2) on an O_APPEND descriptor, so that the lines of several threads and processes sharing
// the file never interleave.
CAPTURE_HIDDEN void capture_record(const CaptureCall* c);
// Appends one finished line (with its newline) the same way: the kernel-parameter records
// (capture_launch.h) are written through it.
CAPTURE_HIDDEN void capture_write_line(const char* text, size_t n);

// TMAKIT_CAPTURE_TRACE=FILE: appends "<how> <name>" for every name a program looks up through dlsym
// or cuGetProcAddress(_v2), whatever it is: which driver functions a library reaches by name, and so
// whether it could reach the encoders this library sees. Nothing without the variable.
void capture_trace_lookup(const char* how, const char* name);
