// A plan in words and as JSON: see tmakit/plan/describe.hpp.
#include "tmakit/plan/describe.hpp"

#include <nlohmann/json.hpp>

#include <string>

#include "tmakit/tensor_map/names.hpp"
#include "tmakit/tensor_map/swizzle_modes.hpp"

namespace tmakit {
namespace {

std::string mode_name(std::int32_t m, const std::vector<std::string>& names) {
  if (m >= 0 && m < static_cast<std::int32_t>(names.size()) && !names[m].empty()) return names[m];
  return "mode" + std::to_string(m);
}

std::string tile_var(std::int32_t m, const std::vector<std::string>& names) { return "t_" + mode_name(m, names); }

// "d" or "d/64" (the TMA dim counts units of 64 elements of d)
std::string dim_name(const TmaPlan& p, std::uint32_t j, const std::vector<std::string>& names) {
  const PlanDim& d = p.dim[j];
  std::string s = mode_name(d.mode, names);
  for (std::int32_t m = 0; m < kMaxTileModes; ++m)
    if ((d.folded >> m) & 1u) s += "+" + mode_name(m, names);
  if (d.offset != 1) s += "/" + std::to_string(d.offset);
  return s;
}

constexpr std::int32_t kNoTile[kMaxTileModes] = {};

}  // namespace

std::string coordinate_formula(const TmaPlan& p, std::uint32_t j, const std::vector<std::string>& names) {
  std::string s;
  for (std::int32_t m = 0; m < p.tile_modes; ++m) {
    const std::int32_t a = p.coef[j][m];
    if (a == 0) continue;
    if (!s.empty()) s += " + ";
    s += (a == 1 ? std::string() : std::to_string(a) + "*") + tile_var(m, names);
  }
  return s.empty() ? "0" : s;
}

std::vector<BulkGroupStep> bulk_group_steps(const TmaPlan& p) {
  if (p.direction == PlanDirection::load) return {};
  const std::string copies = p.direction == PlanDirection::reduce ? "reductions" : "stores";
  return {
      {"before the " + copies, "every thread that wrote the shared tile, then all of them together",
       "fence.proxy.async.shared::cta, then a barrier among the writers",
       "publish_smem_writes() (fence_smem_writes_for_async() + __syncthreads())"},
      {"after the " + copies, "the issuing thread", "cp.async.bulk.commit_group", "commit_group()"},
      {"before the shared tile is written again", "the issuing thread, then the writers synchronize",
       "cp.async.bulk.wait_group.read 0 (N: up to N younger groups may still be reading)",
       "wait_group_read<0>() (or <N>)"},
      {"before the kernel exits", "the issuing thread", "cp.async.bulk.wait_group 0", "wait_group<0>()"},
  };
}

namespace {

// A store or reduction reads its shared tile through the descriptor's swizzle, as a load writes it:
// the tile is the one the shared layout describes, swizzle included (smem_model_tiled_store reads
// the image smem_model_tiled_load writes).
std::string swizzled_source_line(const TmaPlan& p) {
  const SwizzleParams sw = swizzle_for(p.params.swizzle);
  const bool red = p.direction == PlanDirection::reduce;
  return std::string("shared tile: ") + (red ? "cp.reduce.async.bulk.tensor" : "cp.async.bulk.tensor") +
         " reads it through the " + to_name(p.params.swizzle) + " swizzle (Sw<" + std::to_string(sw.bits) + "," +
         std::to_string(sw.base) + "," + std::to_string(sw.shift) +
         "> on byte offsets from the base), as a load writes it: the kernel writes the tile in the shared layout, "
         "swizzle included\n";
}

}  // namespace

std::string describe_plan(const TmaPlan& p, const std::vector<std::string>& names) {
  const TensorMapParams& q = p.params;
  // dim 0 steps one element: "2 B", or "4 bits" / "6 bits" for the packed types in global memory
  const std::uint32_t ebits = element_bits(q.dtype);
  const std::string elem_stride = ebits % 8 == 0 ? std::to_string(ebits / 8) + " B" : std::to_string(ebits) + " bits";
  std::string s;
  if (p.direction == PlanDirection::load) {
    s += "plan: " + std::to_string(p.instructions) + " TMA instruction" + (p.instructions == 1 ? "" : "s") +
         " per tile, " + std::to_string(p.tx_bytes_per_instruction) + " bytes each; expect_tx " +
         std::to_string(p.expect_tx_bytes) + " bytes per stage\n";
  } else {
    const bool red = p.direction == PlanDirection::reduce;
    const char* op = reduce_op_name(p.reduce_op);
    s += "direction: " + std::string(red ? "reduce ." + std::string(op ? op : "?") : "store") +
         " (shared -> global, " + (red ? "cp.reduce.async.bulk.tensor" : "cp.async.bulk.tensor") +
         "; completes by bulk groups, no mbarrier)\n";
    s += "plan: " + std::to_string(p.instructions) + " TMA " + (red ? "reduction" : "store") +
         (p.instructions == 1 ? "" : "s") + " per tile, " + std::to_string(p.tx_bytes_per_instruction) +
         " bytes each (out-of-bounds elements are not written)\n";
  }
  s += "descriptor: tiled " + to_name(q.dtype) + ", rank " + std::to_string(q.rank) + ", swizzle " + to_name(q.swizzle) +
       ", box {";
  for (std::uint32_t j = 0; j < q.rank; ++j) s += (j ? "," : "") + std::to_string(q.box[j]);
  s += "}\n";
  for (std::uint32_t j = 0; j < q.rank; ++j) {
    s += "  dim " + std::to_string(j) + ": " + dim_name(p, j, names) + "  extent " + std::to_string(q.dims[j]) +
         ", stride " + (j == 0 ? elem_stride : std::to_string(q.strides[j - 1]) + " B") + ", box " +
         std::to_string(q.box[j]);
    if (p.dim[j].smem_pitch) s += ", shared pitch " + std::to_string(p.dim[j].smem_pitch) + " elements";
    s += ", x" + std::to_string(j) + " = " + coordinate_formula(p, j, names) + "\n";
  }
  s += "instructions (coordinates added to x0.., shared byte offset from the tile base):\n";
  const std::uint32_t show = p.instructions < 16 ? p.instructions : 16;
  for (std::uint32_t k = 0; k < show; ++k) {
    const PlanInstruction in = p.instruction(k, kNoTile);
    s += "  #" + std::to_string(k) + ": +(";
    for (std::uint32_t j = 0; j < q.rank; ++j) s += (j ? "," : "") + std::to_string(in.coord[j]);
    s += ") -> smem +" + std::to_string(in.smem_offset);
    if (p.multicast_ctas > 1) s += "  [CTA " + std::to_string(k / p.instructions_per_cta) + " of the multicast group]";
    s += "\n";
  }
  if (show < p.instructions) s += "  ... (" + std::to_string(p.instructions - show) + " more)\n";
  s += "shared memory: " + std::to_string(p.smem_bytes) + " bytes per stage, base aligned to " +
       std::to_string(p.smem_alignment) + " bytes\n";
  if (p.direction != PlanDirection::load && q.swizzle != Swizzle::none) s += swizzled_source_line(p);
  if (p.multicast_ctas > 1) {
    const std::uint32_t cta0[3] = {0, 0, 0};
    char mask[16];
    std::snprintf(mask, sizeof mask, "0x%04x", p.multicast_mask(cta0));
    s += "multicast: cluster " + std::to_string(p.cluster[0]) + "x" + std::to_string(p.cluster[1]) + "x" +
         std::to_string(p.cluster[2]) + ", " + std::to_string(p.multicast_ctas) + " CTAs along " +
         "xyz"[p.multicast_dim] + " share the tile; each issues " + std::to_string(p.instructions_per_cta) +
         " instruction(s) (" + std::to_string(std::uint64_t{p.instructions_per_cta} * p.tx_bytes_per_instruction) +
         " bytes) to all of them (mask " + mask + " for the CTA at 0,0,0); each receiving CTA expects " +
         std::to_string(p.expect_tx_bytes) + " bytes\n";
  }
  const std::vector<BulkGroupStep> steps = bulk_group_steps(p);
  if (!steps.empty()) s += "bulk groups (device/tma.cuh):\n";
  for (const BulkGroupStep& b : steps) s += "  " + b.when + ": " + b.who + ": " + b.ptx + "  [" + b.call + "]\n";
  return s;
}

nlohmann::json plan_json(const TmaPlan& p, const std::vector<std::string>& names) {
  using nlohmann::json;
  const TensorMapParams& q = p.params;
  json j;
  json dims = json::array();
  for (std::uint32_t d = 0; d < q.rank; ++d) {
    dims.push_back({{"mode", p.dim[d].mode},
                    {"mode_name", mode_name(p.dim[d].mode, names)},
                    {"unit", p.dim[d].offset},
                    {"extent", q.dims[d]},
                    {"stride_bytes", d == 0 ? element_bits(q.dtype) / 8 : q.strides[d - 1]},
                    {"box", q.box[d]},
                    {"smem_pitch", p.dim[d].smem_pitch},
                    {"coordinate", coordinate_formula(p, d, names)},
                    {"folded_modes", [&] {
                       json f = json::array();
                       for (std::int32_t m = 0; m < kMaxTileModes; ++m)
                         if ((p.dim[d].folded >> m) & 1u) f.push_back(m);
                       return f;
                     }()}});
  }
  json coef = json::array();
  for (std::uint32_t d = 0; d < q.rank; ++d) {
    json row = json::array();
    for (std::int32_t m = 0; m < p.tile_modes; ++m) row.push_back(p.coef[d][m]);
    coef.push_back(row);
  }
  json ins = json::array();
  for (std::uint32_t k = 0; k < p.instructions; ++k) {
    const PlanInstruction in = p.instruction(k, kNoTile);
    json c = json::array();
    for (std::uint32_t d = 0; d < q.rank; ++d) c.push_back(in.coord[d]);
    json e = {{"coord_offset", c}, {"smem_offset", in.smem_offset}};
    if (p.multicast_ctas > 1) e["cta"] = k / p.instructions_per_cta;
    ins.push_back(e);
  }
  j["direction"] = direction_name(p.direction);
  if (p.direction == PlanDirection::reduce) {
    const char* op = reduce_op_name(p.reduce_op);
    j["reduce_op"] = op ? op : "unknown";
  }
  if (p.direction != PlanDirection::load) {
    json steps = json::array();
    for (const BulkGroupStep& b : bulk_group_steps(p))
      steps.push_back({{"when", b.when}, {"who", b.who}, {"ptx", b.ptx}, {"call", b.call}});
    j["bulk_group_steps"] = steps;
  }
  j["dtype"] = to_name(q.dtype);
  j["swizzle"] = to_name(q.swizzle);
  j["rank"] = q.rank;
  j["dims"] = dims;
  j["coef"] = coef;
  j["instructions"] = ins;
  j["tx_bytes_per_instruction"] = p.tx_bytes_per_instruction;
  j["expect_tx_bytes"] = p.expect_tx_bytes;
  j["smem_bytes"] = p.smem_bytes;
  j["smem_alignment"] = p.smem_alignment;
  j["multicast"] = {{"cluster", {p.cluster[0], p.cluster[1], p.cluster[2]}},
                    {"dim", p.multicast_dim},
                    {"ctas", p.multicast_ctas},
                    {"instructions_per_cta", p.instructions_per_cta}};
  return j;
}

}  // namespace tmakit
