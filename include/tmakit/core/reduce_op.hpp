// The reduction operations of TMA's shared -> global reductions (cp.reduce.async.bulk.tensor), their
// names, and which element types each one takes. Host and device: the planner checks a reduce
// plan's type with it (plan.reduce_dtype), device/tma.cuh's reduce<ReduceOp> issues it.
#pragma once

#include <cstdint>

#include "tmakit/core/config.hpp"
#include "tmakit/core/dtype.hpp"

namespace tmakit {

// Order is stable (plans and the CLI's JSON carry the value): never reorder, add at the end.
enum class ReduceOp : std::uint32_t { add = 0, min, max, inc, dec, and_, or_, xor_ };
inline constexpr std::uint32_t kReduceOpCount = 8;

TMAKIT_HD constexpr bool is_valid(ReduceOp op) { return static_cast<std::uint32_t>(op) < kReduceOpCount; }

// The PTX spelling without the dot ("add", "and", ...); nullptr for a value outside the enum.
TMAKIT_HD constexpr const char* reduce_op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::add: return "add";
    case ReduceOp::min: return "min";
    case ReduceOp::max: return "max";
    case ReduceOp::inc: return "inc";
    case ReduceOp::dec: return "dec";
    case ReduceOp::and_: return "and";
    case ReduceOp::or_: return "or";
    case ReduceOp::xor_: return "xor";
  }
  return nullptr;
}

// Reads a PTX op name ("add", "ADD", "And", ...: case-insensitive) into `out`; false for any other
// text. The CLI's --reduce and the Python package's plan(reduce=...) take it.
TMAKIT_HD constexpr bool parse_reduce_op(const char* text, std::uint32_t length, ReduceOp& out) {
  for (std::uint32_t o = 0; o < kReduceOpCount; ++o) {
    const char* name = reduce_op_name(static_cast<ReduceOp>(o));
    std::uint32_t i = 0;
    for (; i < length && name[i] != 0; ++i) {
      const char c = text[i] >= 'A' && text[i] <= 'Z' ? static_cast<char>(text[i] - 'A' + 'a') : text[i];
      if (c != name[i]) break;
    }
    if (i == length && name[i] == 0) {
      out = static_cast<ReduceOp>(o);
      return true;
    }
  }
  return false;
}

// Whether cp.reduce.async.bulk.tensor performs `op` on elements of type `t`. The table is the PTX
// ISA's (section "cp.reduce.async.bulk.tensor", table of supported types per .redOp; PTX ISA 8.0
// and later):
//   .add            .u32 .s32 .u64 .f32 .f16 .bf16          (no .s64, no .f64)
//   .min .max       .u32 .s32 .u64 .s64 .f16 .bf16          (no floating type wider than 16 bits)
//   .inc .dec       .u32
//   .and .or .xor   .b32 .b64                               (here: the 32- and 64-bit integer types)
// The element type is the tensor map's. The map types the table does not name (u8, u16, f64 and
// the FTZ / TF32 variants of f32) are refused for every op: the ISA promises nothing for them.
TMAKIT_HD constexpr bool reduce_op_allows(ReduceOp op, DataType t) {
  const bool u32 = t == DataType::uint32, s32 = t == DataType::int32;
  const bool u64 = t == DataType::uint64, s64 = t == DataType::int64;
  const bool f16 = t == DataType::float16, bf16 = t == DataType::bfloat16;
  switch (op) {
    case ReduceOp::add: return u32 || s32 || u64 || t == DataType::float32 || f16 || bf16;
    case ReduceOp::min:
    case ReduceOp::max: return u32 || s32 || u64 || s64 || f16 || bf16;
    case ReduceOp::inc:
    case ReduceOp::dec: return u32;
    case ReduceOp::and_:
    case ReduceOp::or_:
    case ReduceOp::xor_: return u32 || s32 || u64 || s64;
  }
  return false;
}

// Bit o set: reduce_op_allows(ReduceOp(o), t).
TMAKIT_HD constexpr std::uint32_t reduce_ops_allowed(DataType t) {
  std::uint32_t m = 0;
  for (std::uint32_t o = 0; o < kReduceOpCount; ++o)
    if (reduce_op_allows(static_cast<ReduceOp>(o), t)) m |= 1u << o;
  return m;
}

}  // namespace tmakit
