// Where a tensor copy's shared tile starts, checked against what the copy and the tile's consumer
// need (the field reports of swizzled tiles placed off their swizzle repeat:
// docs/field_failures.md).
//
// Two facts, both stated once elsewhere and only read here (tensor_map/derived.hpp):
//  * a tensor copy's shared address (load destination, store / reduce source) must be a multiple
//    of 128 bytes (PTX ISA, cp.async.bulk.tensor; a 16- but not 128-byte aligned destination faults
//    with "misaligned address" on the H100): tma_smem_alignment();
//  * a swizzled copy takes its pattern from the shared ADDRESS bits (layout/swizzle.hpp: 128B
//    swizzle XORs address bits 7-9 into bits 4-6), so a tile that does not start on a whole repeat
//    of the pattern (the descriptor's smemAlignment: 256 B for 32B, 512 B for 64B, 1024 B for 128B)
//    is written with the rows of the pattern shifted. Nothing faults: a consumer that assumes the
//    tile starts a repeat (a WGMMA descriptor with base offset 0, ldmatrix addresses computed from
//    the layout's own offsets) reads other elements than it expects.
//
//   check_smem_base(address, swizzle): the tile of a copy with this swizzle starting at `address`.
//   smem.base_align128 (error): not a multiple of 128 bytes; smem.base_align (error): swizzled, and
//   not a multiple of the swizzle's repeat. A plan's own alignment (TmaPlan::smem_alignment) is the
//   larger of the two, from the same function (plan/check_descriptor.hpp checks against it).
//
// Ids are stable: tests, the CLI's JSON and users' scripts match on them. Append only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tmakit/core/config.hpp"
#include "tmakit/core/diagnostics.hpp"
#include "tmakit/core/finding.hpp"
#include "tmakit/tensor_map/derived.hpp"

namespace tmakit {

enum class SmemBaseRule : std::uint8_t {
  align128 = 0,    // smem.base_align128: not 128-byte aligned; the tensor copy faults
  swizzle_repeat,  // smem.base_align: a swizzled tile off its swizzle repeat; another pattern, silently
};

// Both rules have the one fix: align the buffer to what the tile needs.
inline constexpr const char* kSmemBaseFix =
    "align the shared buffer to the tile's alignment N (the descriptor's smemAlignment, at least 128; a plan's "
    "smem_alignment): __align__(N) / alignas(N) on the shared array, an N-byte aligned offset into dynamic shared "
    "memory, or an allocator's byte alignment (CuTe DSL: SmemAllocator.allocate_tensor(..., byte_alignment=N))";

TMAKIT_HD constexpr RuleTable<SmemBaseRule, 2> rule_table(SmemBaseRule) {
  return {{
      {SmemBaseRule::align128, "smem.base_align128", "shared tile address",
       "a tensor copy's shared-memory address must be a multiple of 128 bytes", Severity::error,
       kSmemBaseFix},
      {SmemBaseRule::swizzle_repeat, "smem.base_align", "shared tile address",
       "a swizzled tile must start on a whole repeat of its swizzle pattern (the descriptor's smemAlignment), or TMA "
       "writes it with the pattern's rows shifted",
       Severity::error,
       kSmemBaseFix},
  }};
}
static_assert(rule_table_well_formed(rule_table(SmemBaseRule{})), "one row per rule in enum order, with unique ids");
static_assert(rule_count<SmemBaseRule> == static_cast<int>(SmemBaseRule::swizzle_repeat) + 1,
              "a row for every enum value");

// A tile of a copy with `swizzle` starting at `address`: what it needs and how far past it starts.
struct SmemBaseCheck {
  std::uint64_t address = 0;
  Swizzle swizzle = Swizzle::none;
  std::uint32_t needed = 128;  // tma_smem_alignment(swizzle): the alignment the tile needs
  std::uint32_t repeat = 0;    // the swizzle's repeat (smem_alignment()); 0 without swizzle
  std::uint32_t past128 = 0;   // address % 128
  std::uint32_t past_repeat = 0;  // address % repeat (0 without swizzle)
  TMAKIT_HD constexpr bool ok() const { return past128 == 0 && past_repeat == 0; }
};

TMAKIT_HD constexpr SmemBaseCheck check_smem_base(std::uint64_t address, Swizzle s) {
  SmemBaseCheck c;
  c.address = address;
  c.swizzle = s;
  c.needed = static_cast<std::uint32_t>(tma_smem_alignment(s));
  c.repeat = s == Swizzle::none ? 0 : static_cast<std::uint32_t>(smem_alignment(s));
  c.past128 = static_cast<std::uint32_t>(address % 128);
  c.past_repeat = c.repeat ? static_cast<std::uint32_t>(address % c.repeat) : 0;
  return c;
}

// One finding in words (src/tensor_map/smem_base.cpp), every one at once: align128 first (the
// fault), then swizzle_repeat. In the library's one shape (core/finding.hpp), with the numbers of a
// descriptor check's finding (plan/check_descriptor.hpp) so that both lists print and serialize
// alike:
//   where  "shared tile address"
//   what   "shared tile address: needed <expected>, got <actual>: <effect>"
//   fix    the rule's fix, with N the needed alignment
struct SmemBaseFinding : Finding {
  SmemBaseRule rule = SmemBaseRule::align128;
  std::string expected;  // "a multiple of 1024 B"
  std::string actual;    // "0x7f80 (128-byte aligned)"
  std::string effect;    // what the copy does with the tile there
};
std::vector<SmemBaseFinding> explain_smem_base(const SmemBaseCheck& c);

}  // namespace tmakit
