// Why the register -> shared-memory store planner refuses a request: the rules, each with a stable
// id (one table row each). A plan holds one refusal (SmemStoreRefusal, tmakit/smem_store/plan.hpp);
// its words and fix, with the slots and numbers, come from refusal_message() / refusal_fix()
// (tmakit/smem_store/explain.hpp, host only).
//
// Ids are stable: tests, the CLI's JSON and users' scripts match on them. Append only.
#pragma once

#include <cstdint>

#include "tmakit/core/config.hpp"
#include "tmakit/core/diagnostics.hpp"

namespace tmakit {

enum class SmemStoreRule : std::uint16_t {
  ok = 0,
  source_not_tv_map,     // tv layout is not rank 2 (thread, value): n0 = its rank
  source_threads,        // thread count not a multiple of 32 in 32..1024: n0 = threads
  source_shape,          // a fragment model's parameters are invalid: n0 = n, n1 = rep
  source_out_of_tile,    // slot a maps outside the rows x cols tile: n0 = rows, n1 = cols
  source_not_injective,  // slots a and b hold the same element
  tile_mismatch,         // source tile n0 x n1 != destination tile n2 x n3
  dest_elem_bytes,       // element bytes n0 not in {1,2,4,8} or not dividing the swizzle chunk n1
  dest_base_alignment,   // base offset n0 not a multiple of the element size n1
  dest_swizzle_units,    // swizzle chunk n0 B < the n1-byte runs each thread holds: element-unit swizzle?
  dest_swizzle_unsupported,  // a swizzle mode without a model (128B_ATOM_32B_FLIP_8B)
  capacity,              // more than kMaxValues values, 1024 threads, or a tile over 65536 elements
  dest_not_injective,    // slots a and b are written to the same byte address
  dest_size,             // the destination reaches byte n1 (base offset included; n0 < 0: a negative
                         // element offset), beyond the n2 bytes of shared memory
  dest_swizzle_mode,     // the byte swizzle Sw<n0,n1,n2> is none of TMA's / WGMMA's / UMMA's modes
  forced_op,             // the instruction asked for (SmemStoreOptions::force) cannot store the fragment:
                         // n0 = its bytes per lane, n1 = 1 for stmatrix, n2 = 1 when it is no candidate
};

// `text` says in one line what the request does wrong (`ok`: a note, no refusal); `part` is
// "source" (the register fragment) or "destination" (the shared-memory tile).
TMAKIT_HD constexpr RuleTable<SmemStoreRule, 16> rule_table(SmemStoreRule) {
  return {{
      {SmemStoreRule::ok, "smem_store.ok", "", "no refusal", Severity::note},
      {SmemStoreRule::source_not_tv_map, "smem_store.source.not_tv_map", "source",
       "the thread-value layout is not rank 2 (thread, value)"},
      {SmemStoreRule::source_threads, "smem_store.source.threads", "source",
       "a thread count that is not a multiple of 32 in 32..1024"},
      {SmemStoreRule::source_shape, "smem_store.source.shape", "source", "a fragment model with invalid parameters"},
      {SmemStoreRule::source_out_of_tile, "smem_store.source.out_of_tile", "source",
       "a register slot maps outside the tile"},
      {SmemStoreRule::source_not_injective, "smem_store.source.not_injective", "source",
       "two register slots hold the same element"},
      {SmemStoreRule::tile_mismatch, "smem_store.tile_mismatch", "destination",
       "the source and destination tiles differ in shape"},
      {SmemStoreRule::dest_elem_bytes, "smem_store.dest.elem_bytes", "destination",
       "an element size not in {1, 2, 4, 8}, or not dividing the swizzle chunk"},
      {SmemStoreRule::dest_base_alignment, "smem_store.dest.base_alignment", "destination",
       "a base offset that is not a multiple of the element size"},
      {SmemStoreRule::dest_swizzle_units, "smem_store.dest.swizzle_units", "destination",
       "a swizzle chunk smaller than the runs each thread holds (an element-unit swizzle?)"},
      {SmemStoreRule::dest_swizzle_unsupported, "smem_store.dest.swizzle_unsupported", "destination",
       "a swizzle mode without a model (128B_ATOM_32B_FLIP_8B)"},
      {SmemStoreRule::capacity, "smem_store.capacity", "source",
       "more values, threads or tile elements than the planner holds"},
      {SmemStoreRule::dest_not_injective, "smem_store.dest.not_injective", "destination",
       "two register slots are written to the same byte address"},
      {SmemStoreRule::dest_size, "smem_store.dest.size", "destination",
       "a destination that reaches beyond the shared memory one block can have"},
      {SmemStoreRule::dest_swizzle_mode, "smem_store.dest.swizzle_mode", "destination",
       "a byte swizzle that is none of TMA's, WGMMA's or UMMA's modes (an element-unit swizzle given as bytes?)"},
      {SmemStoreRule::forced_op, "smem_store.forced_op", "source",
       "the store instruction asked for cannot store the fragment into the destination"},
  }};
}
static_assert(rule_table_well_formed(rule_table(SmemStoreRule{})), "one row per rule in enum order, with unique ids");
static_assert(rule_count<SmemStoreRule> == static_cast<int>(SmemStoreRule::forced_op) + 1,
              "a row for every enum value");

}  // namespace tmakit
