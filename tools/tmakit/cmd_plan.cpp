// `tmakit plan --gmem SPEC --smem LAYOUT --tile TILER [--cluster X,Y[,Z] --multicast-mode x|y|z]
//               [--arch A] [--l2 L] [--oob O] [--store | --reduce OP] [--json]`
// Prints the plan (descriptor dims, coordinates per tile, instructions, bytes, alignment) and the
// encoded descriptor (hex and decoded fields); on refusal every violated rule (exit 1). --store /
// --reduce OP plan the same boxes from shared to global memory and add the bulk-group steps; both
// at once, or an unknown OP, is bad usage (exit 2); multicast or an OOB fill with them is the
// planner's refusal (plan.store_multicast, plan.store_oob_fill: exit 1). --json:
// {"result":0,"gmem","smem","plan":{...},"descriptor":{"bytes","decoded"}} or {"result":1,"errors":[...]}.
#include <ostream>

#include "commands.hpp"
#include "options.hpp"
#include "tmakit/layout/notation.hpp"
#include "tmakit/plan/describe.hpp"
#include "tmakit/plan/explain.hpp"
#include "tmakit/plan/make_problem.hpp"
#include "tmakit/plan/notation.hpp"
#include "tmakit/tensor_map/describe.hpp"
#include "tmakit/tensor_map/encode.hpp"
#include "tmakit/tensor_map/jsonl.hpp"
#include "tmakit/tensor_map/names.hpp"

namespace tmakit::cli {

namespace {

bool parse_cluster(const std::string& s, std::uint32_t out[3], std::string& why) {
  out[0] = out[1] = out[2] = 1;
  std::size_t pos = 0;
  int n = 0;
  while (pos <= s.size()) {
    const std::size_t c = s.find(',', pos);
    const std::string item = s.substr(pos, c == std::string::npos ? std::string::npos : c - pos);
    std::uint64_t v = 0;
    if (n >= 3 || !parse_u64(item, v) || v > 0xffff) {  // the planner checks the cluster shape itself
      why = "expected 1 to 3 comma-separated CTA counts, e.g. 2,1";
      return false;
    }
    out[n++] = static_cast<std::uint32_t>(v);
    if (c == std::string::npos) break;
    pos = c + 1;
  }
  return true;
}

}  // namespace

int run_plan(std::vector<std::string> args, std::istream&, std::ostream& out, std::ostream& err) {
  const std::string name = "tmakit plan";
  CLI::App app{"Plan the TMA copies of a tile: descriptor, instructions per tile, bytes to expect.", name};
  std::string gmem, smem, tile, cluster = "1,1,1", mc = "none", arch = "sm_90", l2 = "none", oob = "none";
  std::string reduce;
  bool json = false, store = false;
  app.add_option("--gmem", gmem, "global tensor: '<dtype> <layout> [align=N] [addr=A]', e.g. 'bf16 (4096,4096):(4096,1)'")
      ->required();
  app.add_option("--smem", smem, "shared tile layout, swizzle in BYTE units, e.g. 'Sw<3,4,3> o (128,64):(64,1)'")
      ->required();
  app.add_option("--tile", tile, "tile extent per global mode, '[name=]N' or '_' (whole mode), e.g. 'M=128,K=64'")
      ->required();
  app.add_option("--cluster", cluster, "cluster shape X[,Y[,Z]] (default 1,1,1)");
  app.add_option("--multicast-mode", mc, "cluster dimension whose CTAs share the tile: none|x|y|z (default none)");
  app.add_option("--arch", arch, "sm_90 (default), sm_100, sm_120");
  app.add_option("--l2", l2, "L2 promotion of the descriptor (default none)");
  app.add_option("--oob", oob, "out-of-bounds fill (default none)");
  app.add_flag("--store", store, "plan TMA stores (shared -> global) instead of loads");
  CLI::Option* reduce_opt = app.add_option("--reduce", reduce,
                 "plan TMA reductions into global memory with OP: add|min|max|inc|dec|and|or|xor (any case)");
  add_json_flag(app, json);
  constexpr const char* kFooter = "\nSee docs/plan.md for the notation and examples.\n";
  if (const int rc = parse_app(app, std::move(args), name, out, err, kFooter); rc >= 0) return rc;
  const auto usage = [&](const std::string& what) { return value_error(err, name, what); };
  const ParsedGlobalTensor g = parse_global_tensor(gmem);
  if (!g.ok) return usage("--gmem: " + g.error);
  const Parsed<SwizzledLayout> s = parse_swizzled_layout(smem);
  if (!s.ok) return usage("--smem: " + s.error.message);
  const ParsedTileExtents t = parse_tile_extents(tile);
  if (!t.ok) return usage("--tile: " + t.error);
  PlanOptions o;
  std::string why;
  if (!parse_cluster(cluster, o.cluster, why)) return usage("--cluster '" + cluster + "': " + why);
  if (mc == "none") o.multicast_dim = -1;
  else if (mc == "x") o.multicast_dim = 0;
  else if (mc == "y") o.multicast_dim = 1;
  else if (mc == "z") o.multicast_dim = 2;
  else return usage("--multicast-mode '" + mc + "': expected none, x, y or z");
  if (!parse_name(arch, o.arch, &why)) return usage("--arch: " + why);
  if (!parse_name(l2, o.l2, &why)) return usage("--l2: " + why);
  if (!parse_name(oob, o.oob, &why)) return usage("--oob: " + why);
  const bool reducing = reduce_opt->count() > 0;
  if (store && reducing) return usage("--store and --reduce: choose one (a reduction is a store that combines)");
  if (store) o.direction = PlanDirection::store;
  if (reducing) {
    if (!parse_reduce_op(reduce.data(), static_cast<std::uint32_t>(reduce.size()), o.reduce_op))
      return usage("--reduce '" + reduce + "': expected add, min, max, inc, dec, and, or or xor");
    o.direction = PlanDirection::reduce;
  }

  const PlanResult r = plan_tile(g.value, s.value, t.value, o);
  if (!r.ok()) {
    const auto ds = explain_plan(r.issues, r.problem, t.names);
    if (json) {
      nlohmann::json e = nlohmann::json::array();
      for (const auto& d : ds)
        e.push_back({{"rule", d.rule_id}, {"where", d.where}, {"message", d.message()}, {"fix", d.fix}});
      print_json(out, nlohmann::json{{"result", 1}, {"errors", e}});
    } else {
      for (const auto& d : ds) err << d.message() << '\n';
    }
    return kExitRefused;
  }
  const EncodeResult enc = encode(r.plan.params);
  if (!enc.ok()) {  // the planner validated it: a planner bug
    err << name << ": internal error: the planned descriptor does not encode\n";
    return kExitRefused;
  }
  const std::string hex = jsonl::to_hex(enc.map);
  if (json) {
    nlohmann::json j;
    j["result"] = 0;
    j["gmem"] = to_string(g.value);
    j["smem"] = to_string(s.value);
    j["plan"] = plan_json(r.plan, t.names);
    j["descriptor"] = {{"bytes", hex}, {"decoded", nlohmann::json(decode_json(enc.map))}};  // keys sorted, as in j
    print_json(out, j);
    return kExitOk;
  }
  out << "gmem: " << to_string(g.value) << "\nsmem: " << to_string(s.value) << '\n';
  out << describe_plan(r.plan, t.names);
  out << "descriptor: " << hex << '\n';
  out << decode_text(enc.map);
  return kExitOk;
}

}  // namespace tmakit::cli
