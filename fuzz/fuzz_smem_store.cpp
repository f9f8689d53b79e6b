// libFuzzer target: the register -> shared-memory store planner and `tmakit smem-store`, see
// docs/fuzzing.md.
//
// Input layout:
//   byte 0      options: bit 0 --elements, bit 1 --no-stmatrix, bits 2..7 the base offset / 2
//   bytes 1..   the source and the destination, separated by NUL or newline (as the CLI takes them)
// The words are parsed as the CLI parses them (parse_store_source, parse_store_destination) and
// planned (plan_smem_store); then the same request goes through `tmakit smem-store ... --json`
// in-process (run_cli).
//
// Checks on top of the sanitizers (ASan, UBSan with -fno-sanitize-recover, no uncaught exception,
// no hang):
//   - a refusal has a rule and words; run_cli exits 1 for it, 0 for a plan, 2 when a word does not
//     parse or an option changes nothing (--elements without a swizzle, --no-stmatrix on 4-byte elements);
//   - a plan stores every slot once: instructions x values per instruction = values, and the
//     register order is a permutation of the values;
//   - recomputed without the planner's tables (StoreSource::coord, StoreDestination::byte_address):
//     every slot's element lies inside the tile, no element is held twice, no two slots share a byte
//     address, and every address lies in shared memory; when there are as many slots as elements,
//     the plan writes every element of the tile exactly once;
//   - st.shared plans: the values of one instruction are consecutive in memory for every thread and
//     the vector is aligned to its size.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "fuzz_words.hpp"
#include "tmakit/smem_store/explain.hpp"
#include "tmakit/smem_store/plan.hpp"
#include "tmakit/smem_store/spec.hpp"

using namespace tmakit;

namespace {

void check_refusal(const SmemStorePlan& p, const StoreSource& s, const StoreDestination& d) {
  require(p.refusal.rule != SmemStoreRule::ok);
  require(!refusal_message(p, s, d).empty());
  require(!refusal_fix(p, s, d).empty());
}

// The slot -> element -> address map, recomputed from the models themselves.
void check_plan(const SmemStorePlan& p, const StoreSource& s, const StoreDestination& d) {
  const int T = p.threads, V = p.values, E = p.elem_bytes, n = p.values_per_instruction;
  require(n >= 1 && p.instructions * n == V);
  std::vector<bool> in_order(static_cast<std::size_t>(V), false);
  for (int i = 0; i < V; ++i) {
    const int v = p.order[i];
    require(v >= 0 && v < V && !in_order[static_cast<std::size_t>(v)]);
    in_order[static_cast<std::size_t>(v)] = true;
  }
  const std::int64_t R = s.rows(), C = s.cols();
  std::vector<bool> held(static_cast<std::size_t>(R * C), false);
  std::set<std::uint64_t> addresses;
  for (int t = 0; t < T; ++t)
    for (int v = 0; v < V; ++v) {
      const TileCoord c = s.coord(t, v);
      require(c.row >= 0 && c.row < R && c.col >= 0 && c.col < C);
      const std::size_t e = static_cast<std::size_t>(c.row + R * c.col);
      require(!held[e]);
      held[e] = true;
      const std::uint64_t a = d.byte_address(c.row, c.col);
      require(a < smem_store_detail::kMaxDestBytes);
      require(addresses.insert(a).second);
    }
  if (p.op.kind != StoreOpKind::st_shared) return;
  for (int t = 0; t < T; ++t)
    for (int i = 0; i < p.instructions; ++i) {
      const TileCoord c0 = s.coord(t, p.order[i * n]);
      const std::uint64_t a0 = d.byte_address(c0.row, c0.col);
      require(a0 % static_cast<std::uint64_t>(n * E) == 0);
      for (int j = 1; j < n; ++j) {
        const TileCoord c = s.coord(t, p.order[i * n + j]);
        require(d.byte_address(c.row, c.col) == a0 + static_cast<std::uint64_t>(j * E));
      }
    }
}

int run_cli_json(const std::vector<std::string>& args) {
  std::istringstream in;
  std::ostringstream out, err;
  const int rc = cli::run_cli(args, in, out, err);
  require(rc == 0 || rc == 1 || rc == 2);
  return rc;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const std::vector<std::string> w = fuzz_words(data, size, true);
  if (w.size() != 2) return 0;
  const bool elements = data[0] & 1, no_stmatrix = data[0] & 2;
  const std::uint64_t base = static_cast<std::uint64_t>(data[0] >> 2) * 2;
  std::vector<std::string> args = {"smem-store", "--src", w[0], "--dst", w[1], "--base", std::to_string(base), "--json"};
  if (elements) args.push_back("--elements");
  if (no_stmatrix) args.push_back("--no-stmatrix");
  const int rc = run_cli_json(args);

  const ParsedSource ps = parse_store_source(w[0]);
  if (!ps.ok) return 0;  // the CLI: bad usage (checked above)
  const StoreSource& s = ps.value.source;
  const ParsedDestination pd = parse_store_destination(w[1], s.rows(), s.cols(), ps.value.elem_bytes, base, elements);
  if (!pd.ok || !pd.elements_no_effect.empty()) return 0;
  if (no_stmatrix && ps.value.elem_bytes != 2) {  // an option that changes nothing: bad usage
    require(rc == 2);
    return 0;
  }
  SmemStoreOptions opts;
  opts.allow_stmatrix = !no_stmatrix;
  const auto p = std::make_unique<SmemStorePlan>(plan_smem_store(s, pd.value, opts));
  if (option_word(w)) {  // the CLI reads a word that starts with "--" as an option: bad usage there
    require(rc == 2);
    return 0;
  }
  require(rc == (p->ok ? 0 : 1));
  if (p->ok) check_plan(*p, s, pd.value);
  else check_refusal(*p, s, pd.value);
  return 0;
}
