// libFuzzer target: the TMA planner, its notations (global tensor, tiler) and `tmakit plan`, see
// docs/fuzzing.md.
//
// Input layout:
//   byte 0      options: bits 0..1 the direction (load, store, reduce add, load), bits 2..3 the cluster
//               (1; 2 along x with multicast x; 2 x 2 without multicast; 16 x 16), bits 4..5 box pieces - 1
//   bytes 1..   --gmem, --smem and --tile, separated by NUL or newline (as the CLI takes them)
// The words are parsed as the CLI parses them (parse_global_tensor, parse_swizzled_layout,
// parse_tile_extents) and planned (plan_tile); then the same request goes through
// `tmakit plan ... --json` in-process (run_cli).
//
// Checks on top of the sanitizers (ASan, UBSan with -fno-sanitize-recover, no uncaught exception,
// no hang):
//   - run_cli exits 0 for a plan, 1 for a refusal, 2 when a word or the cluster does not parse or a
//     word starts with "--" (the CLI reads it as an option);
//   - a refusal has a rule id and words for every issue (explain_plan);
//   - a plan's descriptor encodes; its copies cover the tile exactly once: the shared byte ranges
//     of its instructions ([smem_offset, smem_offset + bytes per instruction) at tile coordinate 0)
//     are disjoint and lie inside smem_bytes, and a load without multicast expects exactly their sum;
//   - the instructions of a tile move with the tile coordinate by the plan's coefficients: the
//     coordinates at tile coordinate 1 (every mode) minus those at 0 are the same for every
//     instruction (the loops add offsets that do not depend on the tile).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cli.hpp"
#include "fuzz_words.hpp"
#include "tmakit/layout/notation.hpp"
#include "tmakit/plan/explain.hpp"
#include "tmakit/plan/make_problem.hpp"
#include "tmakit/plan/notation.hpp"
#include "tmakit/tensor_map/encode.hpp"

using namespace tmakit;

namespace {

struct Request {
  std::vector<std::string> args;
  PlanOptions options;
  bool cluster_parses = true;  // the CLI's --cluster takes at most 16 CTAs in all
};

Request request_of(std::uint8_t flags, const std::vector<std::string>& w) {
  Request r;
  r.args = {"plan", "--gmem", w[0], "--smem", w[1], "--tile", w[2], "--json"};
  switch (flags & 3) {
    case 1: r.options.direction = PlanDirection::store; r.args.push_back("--store"); break;
    case 2: r.options.direction = PlanDirection::reduce; r.args.insert(r.args.end(), {"--reduce", "add"}); break;
    default: break;
  }
  switch ((flags >> 2) & 3) {
    case 1:
      r.options.cluster[0] = 2;
      r.options.multicast_dim = 0;
      r.args.insert(r.args.end(), {"--cluster", "2", "--multicast-mode", "x"});
      break;
    case 2:
      r.options.cluster[0] = r.options.cluster[1] = 2;
      r.args.insert(r.args.end(), {"--cluster", "2,2"});
      break;
    case 3:
      r.options.cluster[0] = r.options.cluster[1] = 16;
      r.args.insert(r.args.end(), {"--cluster", "16,16"});
      r.cluster_parses = false;
      break;
    default: break;
  }
  r.options.box_pieces = 1u + ((flags >> 4) & 3u);
  if (r.options.box_pieces > 1) r.args.insert(r.args.end(), {"--box-pieces", std::to_string(r.options.box_pieces)});
  return r;
}

void check_plan(const TmaPlan& p) {
  require(encode(p.params).ok());
  require(p.instructions >= 1 && p.tile_modes >= 1 && p.tile_modes <= kMaxTileModes);
  const std::int32_t zero[kMaxTileModes] = {}, one[kMaxTileModes] = {1, 1, 1, 1, 1, 1, 1, 1};
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;
  std::int64_t step[kMaxRank] = {};
  const std::uint32_t n = std::min<std::uint32_t>(p.instructions, 4096);
  for (std::uint32_t k = 0; k < n; ++k) {
    const PlanInstruction a = p.instruction(k, zero), b = p.instruction(k, one);
    for (std::uint32_t j = 0; j < p.params.rank; ++j) {
      const std::int64_t d = std::int64_t{b.coord[j]} - a.coord[j];
      if (k == 0) step[j] = d;
      require(d == step[j]);
    }
    ranges.emplace_back(a.smem_offset, std::uint64_t{a.smem_offset} + p.tx_bytes_per_instruction);
  }
  std::sort(ranges.begin(), ranges.end());
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    require(ranges[i].second <= p.smem_bytes);
    if (i > 0) require(ranges[i - 1].second <= ranges[i].first);
  }
  if (p.direction == PlanDirection::load && p.multicast_dim < 0 && n == p.instructions)
    require(std::uint64_t{p.expect_tx_bytes} == std::uint64_t{p.instructions} * p.tx_bytes_per_instruction);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const std::vector<std::string> w = fuzz_words(data, size, true);
  if (w.size() != 3) return 0;
  const Request q = request_of(data[0], w);
  std::istringstream in;
  std::ostringstream out, err;
  const int rc = cli::run_cli(q.args, in, out, err);
  require(rc == 0 || rc == 1 || rc == 2);

  const ParsedGlobalTensor g = parse_global_tensor(w[0]);
  const Parsed<SwizzledLayout> s = parse_swizzled_layout(w[1]);
  const ParsedTileExtents t = parse_tile_extents(w[2]);
  if (!g.ok || !s.ok || !t.ok) return 0;
  const PlanResult r = plan_tile(g.value, s.value, t.value, q.options);
  if (option_word(w)) {  // the CLI reads a word that starts with "--" as an option: bad usage there
    require(rc == 2);
    return 0;
  }
  if (q.cluster_parses) require(rc == (r.ok() ? 0 : 1));
  else require(rc == 2 && !r.ok());  // 256 CTAs: bad usage in the CLI, plan.cluster in the library
  if (!r.ok()) {
    for (const PlanDiagnostic& d : explain_plan(r.issues, r.problem, t.names)) require(!d.rule_id.empty() && !d.message().empty());
    return 0;
  }
  check_plan(r.plan);
  return 0;
}
