// The rules of Blackwell's TMA row gather and scatter (cp.async.bulk.tensor .tile::gather4 /
// .tile::scatter4), one table row each: a stable id, the input it concerns, the rule in one line and
// a fix that needs no values (explain_gather4 in gather4_explain.hpp adds the numbers). The checks
// are in gather4.hpp, with the source of every rule.
//
// The map rules (gather4.mode, gather4.rank, gather4.box_rows, gather4.interleave) hold for both
// modes: the PTX ISA states them once for ".tile::scatter4 and .tile::gather4 modes", and one id
// names each for both. The target and completion rules differ per mode, and so do their ids.
//
// Ids are stable: tests, the CLI's JSON and users' scripts match on them. Append only; never
// renumber or rename.
#pragma once

#include <cstdint>

#include "tmakit/core/config.hpp"
#include "tmakit/core/diagnostics.hpp"

namespace tmakit {

enum class Gather4Rule : std::uint32_t {
  gather4_arch = 0,     // gather4.arch: gather4 for a target without it (sm_90a)
  cluster_destination,  // gather4.cluster_destination: gather4 into .shared::cluster / multicast where only .shared::cta is
  scatter4_arch,        // scatter4.arch: scatter4 for a target without it (sm_90a, sm_120a)
  mode,                 // gather4.mode: the map is not a tiled map
  rank,                 // gather4.rank: the map's rank is not 2
  box_rows,             // gather4.box_rows: boxDim[1] is not 1
  interleave,           // gather4.interleave: the map is interleaved
  armed_bytes,          // gather4.armed_bytes: the barrier is armed with other than 4 rows x boxDim[0] per copy
  scatter4_armed,       // scatter4.armed_bytes: a barrier armed for scatter4, which completes on none
};

// `text` follows "<input> = <value>: " in a message; `fix` is the remedy without the numbers.
TMAKIT_HD constexpr RuleTable<Gather4Rule, 9> rule_table(Gather4Rule) {
  return {{
      {Gather4Rule::gather4_arch, "gather4.arch", "target",
       "has no .tile::gather4: the PTX ISA gives it to sm_100 and higher (.shared::cta destination) and to "
       "sm_100a / sm_100f (.shared::cluster)",
       Severity::error,
       "target sm_100a, sm_103a or sm_120a, or load the four rows with four tiled copies of the same map (one "
       "row each)"},
      {Gather4Rule::cluster_destination, "gather4.cluster_destination", "destination",
       "the .shared::cluster forms of .tile::gather4 (and .multicast::cluster) need sm_100a / sm_100f",
       Severity::error,
       "issue the .shared::cta form into the CTA's own shared memory, with its own barrier; without multicast "
       "each CTA gathers its rows itself"},
      {Gather4Rule::scatter4_arch, "scatter4.arch", "target",
       "has no .tile::scatter4: the PTX ISA gives it to sm_100a, sm_101a (sm_110a) and the sm_100f / sm_110f "
       "families only",
       Severity::error,
       "target sm_100a or sm_103a, or store the four rows with four tiled stores of the same map (one row "
       "each) or with st.global"},
      {Gather4Rule::mode, "gather4.mode", "kind",
       "must be tiled: .tile::gather4 and .tile::scatter4 are tile modes, they read a tiled map's boxDim",
       Severity::error, "encode the map with cuTensorMapEncodeTiled: rank 2, boxDim {elements per row, 1}"},
      {Gather4Rule::rank, "gather4.rank", "tensorRank",
       "must be 2: .tile::gather4 and .tile::scatter4 work on 2D tensors only (the instruction is .2d, its "
       "coordinates {col, row0, row1, row2, row3})",
       Severity::error,
       "encode the tensor as rows: rank 2, globalDim {elements per row, rows}, globalStrides {row pitch}"},
      {Gather4Rule::box_rows, "gather4.box_rows", "boxDim",
       "must be 1: each of the four rows is its own bounding box, one row high; the instruction's four row "
       "coordinates pick the rows",
       Severity::error, "encode boxDim {elements per row, 1}"},
      {Gather4Rule::interleave, "gather4.interleave", "interleave",
       "must be NONE: the interleave layout is not supported for .tile::gather4 and .tile::scatter4",
       Severity::error, "encode the map with CU_TENSOR_MAP_INTERLEAVE_NONE"},
      {Gather4Rule::armed_bytes, "gather4.armed_bytes", "armed bytes",
       "a gather4 copy delivers 4 rows of boxDim[0] elements, not the map's box (one row)", Severity::error,
       "arm copies x 4 x boxDim[0] x element bytes per phase (tmakit check-gather prints it)"},
      {Gather4Rule::scatter4_armed, "scatter4.armed_bytes", "armed bytes",
       "scatter4 completes through the bulk async-group, on no mbarrier: nothing completes bytes armed for "
       "it",
       Severity::error,
       "arm no barrier for scatter4: cp.async.bulk.commit_group after the copies, cp.async.bulk.wait_group.read "
       "0 before the shared rows are written again"},
  }};
}
static_assert(rule_table_well_formed(rule_table(Gather4Rule{})), "one row per rule in enum order, with unique ids");
static_assert(rule_count<Gather4Rule> == static_cast<int>(Gather4Rule::scatter4_armed) + 1,
              "a row for every enum value");

// One finding: the rule, the value found and the value expected (0 where meaningless; the target
// rules hold the Target, gather4.armed_bytes the armed and the delivered bytes).
struct Gather4Finding {
  Gather4Rule rule = Gather4Rule::gather4_arch;
  std::int64_t value = 0;
  std::int64_t expected = 0;
};

// Every finding of one check: core's list (fixed capacity, no allocation, constexpr).
using Gather4Findings = ViolationList<Gather4Rule, 16, Gather4Finding>;

}  // namespace tmakit
