// Words, JSON and a picture for a store plan (host only; src/smem_store/explain.cpp).
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "tmakit/smem_store/plan.hpp"

namespace tmakit {

// One line each: what was refused (rule id, the slots/numbers) and a concrete fix.
std::string refusal_message(const SmemStorePlan& p, const StoreSource& s, const StoreDestination& d);
std::string refusal_fix(const SmemStorePlan& p, const StoreSource& s, const StoreDestination& d);

// Why st.shared cannot be wider than p.widest_st_bytes (one sentence naming the slots and bytes).
std::string width_reason(const SmemStorePlan& p, const StoreSource& s, const StoreDestination& d);
// Why the chosen plan needs more wavefronts than ideal (the two lanes, addresses, bank and bits).
std::string conflict_reason(const SmemStorePlan& p, const StoreDestination& d);
// The computed fixes (better tcgen05 repetition, better swizzle, ...), one per line; empty if none.
std::string suggested_fixes(const SmemStorePlan& p, const StoreSource& s, const StoreDestination& d);

// The whole report (the CLI's text output).
std::string describe_plan(const SmemStorePlan& p, const StoreSource& s, const StoreDestination& d,
                          const std::string& source_text);
// The report as a JSON object (json_text in tmakit/host/json.hpp writes it as one line).
nlohmann::json plan_json(const SmemStorePlan& p, const StoreSource& s, const StoreDestination& d,
                      const std::string& source_text);
// SVG: warp 0's first instructions, one panel each: 32 bank columns x 128-byte lines, every 4-byte
// word labelled with the lane that writes it; words of a bank that one wavefront group hits more than
// once are drawn red.
std::string plan_svg(const SmemStorePlan& p, const StoreSource& s, const StoreDestination& d, int max_instructions = 4);

}  // namespace tmakit
