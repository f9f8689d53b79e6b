// The rules the kernels' launchers refuse arguments by (kernels/*_sm90: the GEMM, attention, the
// all-gather fused into the GEMM), one table row each with its stable id, in the form of every
// other rule family (tmakit/core/diagnostics.hpp), and refusal(): the one line a launcher reports
// a refusal as. The collectives and the all-gather GEMM also refuse by the peer rules
// (tmakit/peer/rules.hpp: peer.*, collective.*, gather.*), and every launcher passes the planner's
// refusals of an operand on under its name ("A: error [gmem.stride_align] ...").
//
// Ids are stable: tests, the Python benchmarks and users' scripts match on them. Never renumber or
// rename; add new rules at the end.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "tmakit/core/config.hpp"
#include "tmakit/core/diagnostics.hpp"
#include "tmakit/core/finding.hpp"

namespace tmakit::kernels {

enum class KernelRule : std::uint32_t {
  cuda = 0,                      // kernel.cuda: a CUDA runtime call of the launcher failed
  gemm_dtype,                    // gemm.dtype: an element type other than bf16 or f16 (C, D; A, B unless FP8)
  gemm_extent,                   // gemm.extent: m, n, k or batch below 1
  gemm_null,                     // gemm.null: an operand without a device pointer
  gemm_cluster_m,                // gemm.cluster_m: a cluster size other than 0, 1 or 2
  gemm_split_lead,               // gemm.split_lead: a split lead below -1
  gemm_splits,                   // gemm.splits: a split count below 0, or too many work units
  gemm_pingpong,                 // gemm.pingpong: a ping-pong choice out of range or at odds with the others
  gemm_tile_n,                   // gemm.tile_n: a tile width that is not built
  gemm_swapped,                  // gemm.swapped: a swapped choice out of range or at odds with tile_n
  gemm_d_order,                  // gemm.d_order: a column-major C or D
  gemm_tiles,                    // gemm.tiles: more than 2^31 - 1 output tiles
  gemm_plan_shape,               // gemm.plan_shape: a plan unlike the compiled copy program (kernel defect)
  attention_dtype,               // attention.dtype: an element type other than bf16 or f16
  attention_head_dim,            // attention.head_dim: a head dim that is not built
  attention_heads_kv,            // attention.heads_kv: K / V heads that do not divide the query heads
  attention_extent,              // attention.extent: batch, heads or seqlen out of range
  attention_null,                // attention.null: a tensor without a device pointer
  attention_scale,               // attention.scale: a negative or non-finite scale
  attention_p_source,            // attention.p_source: not a PSource
  attention_grid_form,           // attention.grid_form: not a GridForm
  attention_max_ctas,            // attention.max_ctas: a negative limit, or one without the persistent form
  attention_grid,                // attention.grid: past the launch grid's limits
  attention_cu_seqlens,          // attention.cu_seqlens: packed sequences' offsets that cannot be used
  attention_packed_base,         // attention.packed_base: a packed tensor below its TMA window (kernel defect)
  attention_occupancy,           // attention.occupancy: no CTA of the kernel fits an SM
  attention_plan_shape,          // attention.plan_shape: a plan unlike the compiled copy program (kernel defect)
  allgather_gemm_window,         // allgather_gemm.window: A without a registered window
  allgather_gemm_null,           // allgather_gemm.null: B or D without a device pointer
  allgather_gemm_withhold_rank,  // allgather_gemm.withhold_rank: a planted fault naming no peer rank
  allgather_gemm_internal,       // allgather_gemm.internal: the GEMM's and the gather's row blocks differ (defect)
  gemm_fp8_inputs,               // gemm.fp8_inputs: one operand FP8 and the other not, or an input type out of range
  gemm_fp8_order,                // gemm.fp8_order: an FP8 operand that is not K-major
  gemm_block_scales,             // gemm.block_scales: block scales that cannot be used as given
  gemm_tile_m,                   // gemm.tile_m: a tile height that is not built, or at odds with the other choices
};

// `part` names the argument the rule concerns, `text` what the arguments do wrong in one line, and
// `fix` a remedy that needs no values (a launcher computes a sharper one where it has them).
TMAKIT_HD constexpr RuleTable<KernelRule, 35> rule_table(KernelRule) {
  constexpr const char* kDefect =
      "none on the caller's side (the kernel's compiled shapes must cover every fixed-shape plan of its layouts): "
      "report it with the kernel's arguments";
  return {{
      {KernelRule::cuda, "kernel.cuda", "CUDA runtime",
       "a CUDA runtime call of the launcher (device query, allocation, attribute, launch) failed", Severity::error,
       "the line names the call and its error (status.cuda holds the code): check that a GPU is present, its free "
       "memory, and earlier asynchronous errors"},
      {KernelRule::gemm_dtype, "gemm.dtype", "GemmArgs::dtype", "an element type other than bf16 or f16 (of C and D, and of A and B unless they are FP8; bf16 with FP8 inputs)",
       Severity::error, "give DataType::bfloat16 or DataType::float16"},
      {KernelRule::gemm_extent, "gemm.extent", "GemmArgs", "m, n, k or batch below 1", Severity::error,
       "give m, n, k and batch of at least 1"},
      {KernelRule::gemm_null, "gemm.null", "GemmArgs", "A, B or D (or C when beta != 0) without a device pointer",
       Severity::error, "pass device pointers for A, B and D, and for C when beta != 0"},
      {KernelRule::gemm_cluster_m, "gemm.cluster_m", "GemmArgs::cluster_m",
       "a cluster size other than 0 (automatic), 1 or 2", Severity::error, "give cluster_m 0, 1 or 2"},
      {KernelRule::gemm_split_lead, "gemm.split_lead", "GemmArgs::split_lead", "a split lead below -1",
       Severity::error, "give -1 (automatic), 0 (equal slices) or a number of K blocks"},
      {KernelRule::gemm_splits, "gemm.splits", "GemmArgs::splits",
       "a split count below 0, or more than 2^31 - 1 work units (cluster tiles x slices)", Severity::error,
       "give 0 (automatic), 1 (no split) or the number of K slices; fewer slices, or several GEMMs, past 2^31 - 1 "
       "work units"},
      {KernelRule::gemm_pingpong, "gemm.pingpong", "GemmArgs::pingpong",
       "a ping-pong choice other than -1, 0 or 1, or ping-pong tiles asked for with another width than 192 "
       "columns, swapped tiles or split K",
       Severity::error,
       "leave pingpong 0, or give ping-pong tiles (pingpong 1 or tile_n 192) without swapped or split K"},
      {KernelRule::gemm_tile_n, "gemm.tile_n", "GemmArgs::tile_n",
       "a tile width other than 0 (automatic), 64, 128, 192 (ping-pong tiles) or 256", Severity::error,
       "give tile_n 0, 64, 128, 192 or 256"},
      {KernelRule::gemm_swapped, "gemm.swapped", "GemmArgs::swapped",
       "a swapped choice other than -1, 0 or 1, or swapped tiles with another width than 64 columns",
       Severity::error, "give swapped -1, 0 or 1; with swapped 1, tile_n 0 or 64"},
      {KernelRule::gemm_d_order, "gemm.d_order", "GemmArgs::c, GemmArgs::d", "a column-major C or D",
       Severity::error, "make C and D row-major (a column-major D is D^T = B^T A^T: swap the operands)"},
      {KernelRule::gemm_tiles, "gemm.tiles", "GemmArgs", "more than 2^31 - 1 output tiles", Severity::error,
       "split the problem into several GEMMs (fewer batches or rows each)"},
      {KernelRule::gemm_plan_shape, "gemm.plan_shape", "kernel",
       "a plan of the caller's operand differs from the copy program the kernel was compiled from (a defect of the "
       "kernel's tables)",
       Severity::error, kDefect},
      {KernelRule::attention_dtype, "attention.dtype", "AttentionArgs::dtype",
       "an element type other than bf16 or f16", Severity::error, "give DataType::bfloat16 or DataType::float16"},
      {KernelRule::attention_head_dim, "attention.head_dim", "AttentionArgs::head_dim",
       "a head dim that is not built (64, 96, 128 and 256 are)", Severity::error,
       "give head_dim 64, 96, 128 or 256 (pad a head dim up to the next one built)"},
      {KernelRule::attention_heads_kv, "attention.heads_kv", "AttentionArgs::heads_kv",
       "K / V heads that are negative or do not divide the query heads (grouped-query attention)", Severity::error,
       "give 0 (as many as the query heads) or a divisor of heads"},
      {KernelRule::attention_extent, "attention.extent", "AttentionArgs",
       "batch or heads below 1, or seqlen below 1 (with cu_seqlens: below 0)", Severity::error,
       "give batch, heads and seqlen of at least 1 (with cu_seqlens, seqlen 0 or a bound on every sequence)"},
      {KernelRule::attention_null, "attention.null", "AttentionArgs", "Q, K, V, O or LSE without a device pointer",
       Severity::error, "pass device pointers for Q, K, V, O and LSE"},
      {KernelRule::attention_scale, "attention.scale", "AttentionArgs::scale",
       "a scale that is negative, infinite or NaN", Severity::error,
       "give a finite scale > 0, or 0 for 1 / sqrt(head_dim)"},
      {KernelRule::attention_p_source, "attention.p_source", "AttentionArgs::p_source",
       "a P path other than PSource::automatic, smem or registers", Severity::error,
       "give PSource::automatic, smem or registers"},
      {KernelRule::attention_grid_form, "attention.grid_form", "AttentionArgs::grid",
       "a grid form other than GridForm::automatic, per_tile or persistent", Severity::error,
       "give GridForm::automatic, per_tile or persistent"},
      {KernelRule::attention_max_ctas, "attention.max_ctas", "AttentionArgs::max_ctas",
       "a negative CTA limit, or a limit without the persistent form", Severity::error,
       "give 0 (as many as fit at once), or a limit of at least 1 with grid = GridForm::persistent"},
      {KernelRule::attention_grid, "attention.grid", "AttentionArgs",
       "more than 65535 batches or heads, 2^31 - 1 query rows or 2^31 - 1 tiles (the launch grid's limits)",
       Severity::error, "split the batches or heads over several calls"},
      {KernelRule::attention_cu_seqlens, "attention.cu_seqlens", "AttentionArgs::cu_seqlens",
       "packed sequences' offsets that are missing, not in device memory, not 0 first, decreasing, apart by more "
       "than seqlen, or past 2^31 - 2 rows in all",
       Severity::error,
       "cu_seqlens holds batch + 1 int32 row offsets in device memory: 0, then each sequence's end, non-decreasing"},
      {KernelRule::attention_packed_base, "attention.packed_base", "Q, K, V, O",
       "a packed tensor's address below the window of the longest sequence that TMA addresses it through",
       Severity::error, "none on the caller's side: report it with the addresses"},
      {KernelRule::attention_occupancy, "attention.occupancy", "kernel",
       "no CTA of the kernel (its threads and shared memory) fits an SM of the device", Severity::error,
       "run on an sm_90 GPU (228 KiB of shared memory per SM) with no other limit on the kernel's shared memory"},
      {KernelRule::attention_plan_shape, "attention.plan_shape", "kernel",
       "a plan of the caller's tensor differs from the copy program the kernel was compiled from (a defect of the "
       "kernel's tables)",
       Severity::error, kDefect},
      {KernelRule::allgather_gemm_window, "allgather_gemm.window", "AllGatherGemmArgs::a",
       "A without a registered window", Severity::error,
       "allocate A's window with Communicator::alloc_window and pass it"},
      {KernelRule::allgather_gemm_null, "allgather_gemm.null", "AllGatherGemmArgs", "B or D without a device pointer",
       Severity::error, "pass device pointers for B and D"},
      {KernelRule::allgather_gemm_withhold_rank, "allgather_gemm.withhold_rank", "AllGatherGemmArgs::withhold_rank",
       "a planted fault that names no peer rank (this rank, or one outside the world)", Severity::error,
       "give -1 (no fault) or another rank of the world"},
      {KernelRule::allgather_gemm_internal, "allgather_gemm.internal", "kernel",
       "the GEMM's row tiles are not the row gather's row blocks (a defect of the launcher)", Severity::error,
       "none on the caller's side: report it with the arguments"},
      {KernelRule::gemm_fp8_inputs, "gemm.fp8_inputs", "GemmArgs::a_type, GemmArgs::b_type",
       "one operand FP8 and the other of dtype, an input type other than same, e4m3 or e5m2, or an FP8 pair that "
       "is not built (A e4m3 with B e4m3 or e5m2 are)",
       Severity::error,
       "give a_type e4m3 and b_type e4m3 or e5m2, or leave both Input::same"},
      {KernelRule::gemm_fp8_order, "gemm.fp8_order", "GemmArgs::a, GemmArgs::b",
       "an FP8 operand that is not K-major (WGMMA reads one-byte operands K-major only)", Severity::error,
       "give A row-major and B column-major (transpose an operand stored the other way before the GEMM)"},
      {KernelRule::gemm_block_scales, "gemm.block_scales", "GemmArgs::a_scales, GemmArgs::b_scales",
       "block scales without FP8 inputs, one of the two alone, beside per-tensor scales or fast accumulation, with "
       "batches or swapped tiles, or a leading dimension the scales do not fit",
       Severity::error,
       "give FP8 inputs both a_scales (a_scales_ld >= m, a multiple of 4) and b_scales (b_scales_ld >= ceil(k / 128)), "
       "without scale_a, scale_b or fast_accumulation, batch 1"},
      {KernelRule::gemm_tile_m, "gemm.tile_m", "GemmArgs::tile_m",
       "a tile height other than 0 (automatic), 64 or 128, or 64-row tiles without promoted FP8 or with another "
       "width than 64 columns, clusters of two, swapped or ping-pong tiles",
       Severity::error, "give tile_m 0 or 128; 64 only with promoted FP8 inputs, tile_n 0 or 64, cluster_m 0 or 1"},
  }};
}
static_assert(rule_table_well_formed(rule_table(KernelRule{})), "one row per rule in enum order, with unique ids");
static_assert(rule_count<KernelRule> == static_cast<int>(KernelRule::gemm_tile_m) + 1,
              "a row for every enum value");

// One refusal in the library's one diagnostic shape (tmakit/core/finding.hpp), "error [<id>] <what>;
// fix: <fix>" (as the planner's and the peer rules' lines): `what` says it with the caller's values
// (the rule's text where empty), `fix` is one computed from them (the table's where empty). Any
// family whose table keeps its fixes: the collectives refuse by the peer rules through it. Host only.
template <RuleEnum Rule>
std::string refusal(Rule r, std::string_view what = {}, std::string_view fix = {}) {
  return make_finding(r, "", std::string(what), std::string(fix)).message();
}

// The fix of peer.plan where the plan was accepted but the driver refused to encode its descriptor.
inline constexpr const char* kUnencodedFix =
    "none on the caller's side (the planner accepted the plan; the driver refused its descriptor): report it with "
    "the arguments";

}  // namespace tmakit::kernels
