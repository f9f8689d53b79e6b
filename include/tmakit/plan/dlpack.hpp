// DLPack input: a DLTensor (the ABI of dlpack.h, v0.8 and v1.x: the struct and enum layouts below
// are written from the DLPack specification, not copied; DLPack itself need not be installed)
// turned into a GlobalTensor. Mode i is DLPack dimension i (row-major order as DLPack lists them,
// so the last mode is usually the contiguous one); strides are in elements (null: compact
// row-major). The base is data + byte_offset; its alignment is the largest power of two dividing it
// (capped at 1024; a null base is taken as 1024-aligned: the address is filled in later).
#pragma once

#include <cstdint>

#include "tmakit/core/dtype.hpp"
#include "tmakit/plan/global_tensor.hpp"
#include "tmakit/plan/rules.hpp"

namespace tmakit::dlpack {

// ABI-compatible with dlpack.h (C structs of fixed-width members).
enum DLDeviceType : std::int32_t { kDLCPU = 1, kDLCUDA = 2, kDLCUDAHost = 3, kDLCUDAManaged = 13 };
struct DLDevice {
  DLDeviceType device_type;
  std::int32_t device_id;
};
enum DLDataTypeCode : std::uint8_t {
  kDLInt = 0,
  kDLUInt = 1,
  kDLFloat = 2,
  kDLOpaqueHandle = 3,
  kDLBfloat = 4,
  kDLComplex = 5,
  kDLBool = 6,
  // DLPack 1.1 float8 / float4 codes
  kDLFloat8_e3m4 = 7,
  kDLFloat8_e4m3 = 8,
  kDLFloat8_e4m3b11fnuz = 9,
  kDLFloat8_e4m3fn = 10,
  kDLFloat8_e4m3fnuz = 11,
  kDLFloat8_e5m2 = 12,
  kDLFloat8_e5m2fnuz = 13,
  kDLFloat8_e8m0fnu = 14,
};
struct DLDataType {
  std::uint8_t code;
  std::uint8_t bits;
  std::uint16_t lanes;
};
struct DLTensor {
  void* data;
  DLDevice device;
  std::int32_t ndim;
  DLDataType dtype;
  std::int64_t* shape;
  std::int64_t* strides;  // elements; may be null (compact row-major)
  std::uint64_t byte_offset;
};
static_assert(sizeof(DLDataType) == 4 && sizeof(DLDevice) == 8, "DLPack ABI");
static_assert(sizeof(DLTensor) == 48, "DLPack ABI: DLTensor is 48 bytes on 64-bit targets");

// The TMA element type holding one DLPack element of this type (types TMA does not interpret --
// float8, bool, int8 -- are copied as bytes of the same width). False when none fits.
constexpr bool tma_dtype_of(DLDataType t, DataType& out) {
  if (t.lanes != 1) return false;
  switch (t.code) {
    case kDLFloat:
      if (t.bits == 16) { out = DataType::float16; return true; }
      if (t.bits == 32) { out = DataType::float32; return true; }
      if (t.bits == 64) { out = DataType::float64; return true; }
      if (t.bits == 8) { out = DataType::uint8; return true; }
      return false;
    case kDLBfloat:
      if (t.bits == 16) { out = DataType::bfloat16; return true; }
      return false;
    case kDLInt:
      if (t.bits == 8) { out = DataType::uint8; return true; }
      if (t.bits == 16) { out = DataType::uint16; return true; }
      if (t.bits == 32) { out = DataType::int32; return true; }
      if (t.bits == 64) { out = DataType::int64; return true; }
      return false;
    case kDLUInt: case kDLBool:
      if (t.bits == 8) { out = DataType::uint8; return true; }
      if (t.bits == 16) { out = DataType::uint16; return true; }
      if (t.bits == 32) { out = DataType::uint32; return true; }
      if (t.bits == 64) { out = DataType::uint64; return true; }
      return false;
    case kDLFloat8_e3m4: case kDLFloat8_e4m3: case kDLFloat8_e4m3b11fnuz: case kDLFloat8_e4m3fn:
    case kDLFloat8_e4m3fnuz: case kDLFloat8_e5m2: case kDLFloat8_e5m2fnuz: case kDLFloat8_e8m0fnu:
      if (t.bits == 8) { out = DataType::uint8; return true; }
      return false;
    default: return false;
  }
}

struct FromDlpackResult {
  GlobalTensor tensor{};
  PlanIssues issues{};
  bool ok() const { return issues.empty(); }
};

inline FromDlpackResult from_dlpack(const DLTensor& t) {
  FromDlpackResult r;
  if (!tma_dtype_of(t.dtype, r.tensor.dtype))
    r.issues.add(PlanIssue{.rule = PlanRule::gmem_dtype, .value = -1 - static_cast<std::int64_t>(t.dtype.code),
                           .bits = t.dtype.bits, .count = t.dtype.lanes});
  if (t.ndim < 1 || t.ndim > kMaxTileModes || t.shape == nullptr) {
    r.issues.add(PlanIssue{.rule = PlanRule::gmem_rank, .value = t.ndim, .limit = kMaxTileModes});
    return r;
  }
  IntTuple shape = IntTuple::tuple(), stride = IntTuple::tuple();
  std::int64_t compact = 1;
  std::int64_t strides[kMaxTileModes] = {};
  for (int i = t.ndim - 1; i >= 0; --i) {
    strides[i] = t.strides ? t.strides[i] : compact;
    compact *= t.shape[i];
  }
  for (int i = 0; i < t.ndim; ++i) {
    shape.append(IntTuple(t.shape[i]));
    stride.append(IntTuple(strides[i]));
  }
  r.tensor.layout = Layout(shape, stride);
  r.tensor.address = reinterpret_cast<std::uint64_t>(t.data) + t.byte_offset;
  r.tensor.base_alignment = known_alignment(r.tensor.address);
  return r;
}

}  // namespace tmakit::dlpack
