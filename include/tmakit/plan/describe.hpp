// A plan in words and as JSON (host only; src/plan/describe.cpp). Used by `tmakit plan`.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "tmakit/plan/tma_plan.hpp"

namespace tmakit {

// "x0 = 64*t[1]" style: the coordinate of TMA dim j as a function of the tile coordinate.
std::string coordinate_formula(const TmaPlan& p, std::uint32_t j, const std::vector<std::string>& names = {});

// Several lines: descriptor dims (which mode, extent, stride, box), instructions (coordinates,
// shared offset), bytes, alignment, multicast shares.
std::string describe_plan(const TmaPlan& p, const std::vector<std::string>& names = {});

// {"dims":[...],"instructions":[...],"expect_tx_bytes":...,...}: one JSON object (json_text in
// tmakit/host/json.hpp writes it as one line).
nlohmann::json plan_json(const TmaPlan& p, const std::vector<std::string>& names = {});

}  // namespace tmakit
