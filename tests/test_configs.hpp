// Baseline tensor-map configurations shared by the host tests. Each one the H200 driver accepted
// (tests/data/driver_sm90.jsonl.gz has tiled_bf16(): the onefactor sweep's baseline).
#pragma once

#include <cstdint>

#include "tmakit/tensor_map/params.hpp"

namespace tmakit::test {

inline constexpr std::uint64_t kAddr = 0x7f0000000000;  // a typical 256-byte-aligned device pointer

// bf16 [7][100][64], box {64, 32, 2}, swizzle 128B, L2 128B.
constexpr TensorMapParams tiled_bf16() {
  TensorMapParams p;
  p.kind = MapKind::tiled;
  p.dtype = DataType::bfloat16;
  p.rank = 3;
  p.address = kAddr;
  p.dims[0] = 64, p.dims[1] = 100, p.dims[2] = 7;
  p.strides[0] = 128, p.strides[1] = 12800;
  p.box[0] = 64, p.box[1] = 32, p.box[2] = 2;
  p.swizzle = Swizzle::b128;
  p.l2 = L2Promotion::b128;
  return p;
}

// NHWC bf16 [8][30][30][64]: C = 64, W = 30, H = 30, N = 8.
constexpr TensorMapParams im2col_bf16() {
  TensorMapParams p;
  p.kind = MapKind::im2col;
  p.dtype = DataType::bfloat16;
  p.rank = 4;
  p.address = kAddr;
  p.dims[0] = 64, p.dims[1] = 30, p.dims[2] = 30, p.dims[3] = 8;
  p.strides[0] = 128, p.strides[1] = 3840, p.strides[2] = 115200;
  p.lower[0] = -1, p.lower[1] = -1;
  p.upper[0] = 1, p.upper[1] = 1;
  p.channels = 64;
  p.pixels = 128;
  p.swizzle = Swizzle::b128;
  p.l2 = L2Promotion::b128;
  return p;
}

// Wrong in as many ways as possible at once (sm_100 target): more violations than a
// ViolationList holds, to test truncation.
constexpr TensorMapParams everything_wrong() {
  TensorMapParams p = im2col_bf16();
  p.arch = Arch::sm_100;
  p.rank = 5;
  p.address = 8;
  p.dtype = DataType::u6x16_align16b;
  p.interleave = Interleave::b16;
  p.swizzle = Swizzle::b64;
  p.oob = OobFill::nan_request_zero_fma;
  p.l2 = L2Promotion(7);
  p.channels = 0;
  p.pixels = 0;
  for (int i = 0; i < 5; ++i) p.dims[i] = 0, p.elem_strides[i] = 0;
  for (int i = 0; i < 4; ++i) p.strides[i] = (std::uint64_t{1} << 41) + 8;
  return p;
}

// bf16 4096 x 4096, box 64 x 128 (16 KiB per copy), swizzle 128B: the cluster-stage tests' operand.
constexpr TensorMapParams box_16k() {
  TensorMapParams p;
  p.dtype = DataType::bfloat16;
  p.rank = 2;
  p.dims[0] = p.dims[1] = 4096;
  p.strides[0] = 8192;
  p.box[0] = 64;
  p.box[1] = 128;
  p.swizzle = Swizzle::b128;
  return p;
}

}  // namespace tmakit::test
