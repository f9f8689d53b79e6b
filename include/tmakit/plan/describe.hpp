// A plan in words and as JSON (host only; src/plan/describe.cpp). Used by `tmakit plan`.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "tmakit/plan/tma_plan.hpp"

namespace tmakit {

// "x0 = 64*t[1]" style: the coordinate of TMA dim j as a function of the tile coordinate.
std::string coordinate_formula(const TmaPlan& p, std::uint32_t j, const std::vector<std::string>& names = {});

// What a store or reduce plan's issuing kernel must do around the copies, in order: `when`, `who`,
// the PTX (`ptx`) and tmakit's call (`call`, device/tma.cuh). Empty for a load plan (it completes
// on an mbarrier armed with expect_tx_bytes). The steps:
//   before the stores     every thread that wrote the tile fences its writes for the async proxy
//                         (fence.proxy.async.shared::cta), then the writers synchronize
//   after the stores      the issuing thread commits them as one bulk group
//   before the shared tile is written again
//                         the issuing thread waits until the group has read shared memory
//                         (wait_group_read<0>, or <N> with N younger groups allowed in flight),
//                         then the writers synchronize
//   before the kernel exits
//                         the issuing thread waits for the writes themselves (wait_group<0>)
struct BulkGroupStep {
  std::string when, who, ptx, call;
};
std::vector<BulkGroupStep> bulk_group_steps(const TmaPlan& p);

// Several lines: descriptor dims (which mode, extent, stride, box), instructions (coordinates,
// shared offset), bytes, alignment, multicast shares; for a store or reduce plan the direction and
// the bulk-group steps.
std::string describe_plan(const TmaPlan& p, const std::vector<std::string>& names = {});

// {"direction":"load","dims":[...],"instructions":[...],"expect_tx_bytes":...,...}; a store or
// reduce plan adds "reduce_op" (reductions) and "bulk_group_steps":[{"when","who","ptx","call"}...]: one JSON object (json_text in
// tmakit/host/json.hpp writes it as one line).
nlohmann::json plan_json(const TmaPlan& p, const std::vector<std::string>& names = {});

}  // namespace tmakit
