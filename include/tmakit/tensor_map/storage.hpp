// Where a tensor map is stored, checked against what reads it (the CUDA 13 alignment reports of the
// field: docs/field_failures.md). Measured on an H100 with driver 580.159.04 (docs/lab/format.md,
// 2026-12-06 10:28): cuTensorMapEncodeTiled writes its map at any host alignment, and a TMA
// instruction that reads a map from global memory takes it 64-byte aligned and faults with
// "misaligned address" at 32 bytes past a 64-byte boundary. CUDA 13's cuda.h declares CUtensorMap
// alignas(128) (12.x: 64): that is the type's alignment, which launchers check (Triton's "CUtensorMap
// must be aligned to 128B") and below which an alignas on a CUtensorMap declaration is ill-formed
// (clang refuses it), not the hardware's.
//
//   check_map_storage(address): 64 bytes past nothing: fine; 64- but not 128-byte aligned: a note
//   (map.storage_abi); not 64-byte aligned: an error (map.storage_align).
//
// Ids are stable: tests, the CLI's JSON and users' scripts match on them. Append only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tmakit/core/config.hpp"
#include "tmakit/core/diagnostics.hpp"
#include "tmakit/core/finding.hpp"

namespace tmakit {

enum class MapStorageRule : std::uint8_t {
  align64 = 0,  // map.storage_align: not 64-byte aligned; a TMA instruction reading it faults
  abi128,       // map.storage_abi: 64- but not 128-byte aligned; below CUDA 13's alignof(CUtensorMap)
};

TMAKIT_HD constexpr RuleTable<MapStorageRule, 2> rule_table(MapStorageRule) {
  return {{
      {MapStorageRule::align64, "map.storage_align", "tensor map address",
       "a tensor map that a TMA instruction reads from memory must be 64-byte aligned", Severity::error,
       "store the map at a multiple of 128 bytes: alignas(alignof(CUtensorMap)), a cudaMalloc'd buffer, or a "
       "__grid_constant__ CUtensorMap kernel parameter"},
      {MapStorageRule::abi128, "map.storage_abi", "tensor map address",
       "CUDA 13 headers declare CUtensorMap 128-byte aligned; the hardware takes a 64-byte aligned map, launchers "
       "that check alignof(CUtensorMap) refuse it",
       Severity::note, ""},
  }};
}
static_assert(rule_table_well_formed(rule_table(MapStorageRule{})), "one row per rule in enum order, with unique ids");
static_assert(rule_count<MapStorageRule> == static_cast<int>(MapStorageRule::abi128) + 1, "a row for every enum value");

// A map stored at `address`: how far past a 64- and a 128-byte boundary it starts.
struct MapStorageCheck {
  std::uint64_t address = 0;
  std::uint32_t past64 = 0, past128 = 0;
  TMAKIT_HD constexpr bool ok() const { return past64 == 0; }         // no error
  TMAKIT_HD constexpr bool abi_note() const { return ok() && past128 != 0; }
};
TMAKIT_HD constexpr MapStorageCheck check_map_storage(std::uint64_t address) {
  return {address, static_cast<std::uint32_t>(address % 64), static_cast<std::uint32_t>(address % 128)};
}

// The check in words (src/tensor_map/storage.cpp), every finding at once, in the library's one shape
// (core/finding.hpp): where "tensor map address"; message() "error [map.storage_align] the tensor
// map at 0x...; fix: ..." or "note [map.storage_abi] ..." (no fix).
struct MapStorageFinding : Finding {
  MapStorageRule rule = MapStorageRule::align64;
};
std::vector<MapStorageFinding> explain_map_storage(const MapStorageCheck& c);

}  // namespace tmakit
