// `tmakit plan --gmem SPEC --smem LAYOUT --tile TILER [--cluster X,Y[,Z] --multicast-mode x|y|z]
//               [--arch A] [--l2 L] [--oob O] [--box-pieces N] [--store | --reduce OP]
//               [--json]`
// Prints the plan (descriptor dims, coordinates per tile, instructions, bytes, alignment) and the
// encoded descriptor (hex and decoded fields); on refusal every violated rule (exit 1). --store /
// --reduce OP plan the same boxes from shared to global memory and add the bulk-group steps; both
// at once, or an unknown OP, is bad usage (exit 2); multicast or an OOB fill with them is the
// planner's refusal (plan.store_multicast, plan.store_oob_fill: exit 1). --json:
// {"result":0,"gmem","smem","plan":{...},"descriptor":{"bytes","decoded"},"ok","exit"} or
// {"result":1,"errors":[...],"ok":false,"exit":1,"error"}; bad usage is JSON too (options.hpp).
#include <ostream>

#include "commands.hpp"
#include "options.hpp"
#include "plan_direction.hpp"
#include "plan_operands.hpp"
#include "plan_refusal.hpp"
#include "tmakit/cluster/shape.hpp"
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


int run_plan(std::vector<std::string> args, std::istream&, std::ostream& out, std::ostream& err) {
  const Reporter rep{"tmakit plan", wants_json(args), out, err};
  CLI::App app{"Plan the TMA copies of a tile: descriptor, instructions per tile, bytes to expect.", rep.command};
  std::string gmem, smem, tile, cluster = "1,1,1", mc = "none", arch = "sm_90", l2 = "none", oob = "none";
  std::string box_pieces_text = "1";
  bool json = false;
  DirectionOptions direction;
  app.add_option("--gmem", gmem, "global tensor: '<dtype> <layout> [align=N] [addr=A]', e.g. 'bf16 (4096,4096):(4096,1)'")
      ->required();
  app.add_option("--smem", smem, "shared tile layout, swizzle in BYTE units, e.g. 'Sw<3,4,3> o (128,64):(64,1)'")
      ->required();
  app.add_option("--tile", tile, "tile extent per global mode, '[name=]N' or '_' (whole mode), e.g. 'M=128,K=64'")
      ->required();
  CLI::Option* cluster_opt = app.add_option("--cluster", cluster, "cluster shape X[,Y[,Z]], 1..16 CTAs each (default 1,1,1)");
  CLI::Option* mc_opt = app.add_option(
      "--multicast-mode", mc, "cluster dimension whose CTAs share the tile: none|x|y|z (any case; needs --cluster)");
  app.add_option("--arch", arch, "sm_90 (default), sm_100, sm_120");
  app.add_option("--l2", l2, "L2 promotion of the descriptor (default none)");
  app.add_option("--oob", oob, "out-of-bounds fill (default none)");
  app.add_option("--box-pieces", box_pieces_text,
                 "cut the box into N equal copies along its outermost dimension (default 1: the fewest copies)");
  add_direction_options(app, direction);
  add_json_flag(app, json);
  constexpr const char* kFooter = "\nSee docs/plan.md for the notation and examples.\n";
  if (const int rc = parse_app(app, std::move(args), rep, kFooter); rc >= 0) return rc;
  PlanOperands operands;
  if (const int rc = parse_plan_operands(gmem, smem, tile, rep, operands); rc >= 0) return rc;
  const auto& [g, s, t] = operands;
  PlanOptions o;
  std::string why;
  if (!parse_cluster(cluster, o.cluster, why)) return rep.bad_value("--cluster", quote_user_text(cluster) + ": " + why);
  const int mode = parse_choice(mc, {"none", "x", "y", "z"});
  if (mode < 0) return rep.bad_value("--multicast-mode", quote_user_text(mc) + ": expected none, x, y or z (any case)");
  o.multicast_dim = mode - 1;
  if (mc_opt->count() > 0 && o.multicast_dim >= 0 && cluster_opt->count() == 0)
    return rep.usage(UsageRule::conflict,
                     "--multicast-mode " + mc + " needs --cluster: without it the cluster is one CTA, with no other CTA "
                     "to share the tile (give e.g. --cluster 2,1)",
                     "--multicast-mode");
  if (!parse_name(arch, o.arch, &why)) return rep.bad_value("--arch", why);
  if (!parse_name(l2, o.l2, &why)) return rep.bad_value("--l2", why);
  if (!parse_name(oob, o.oob, &why)) return rep.bad_value("--oob", why);
  if (!parse_number(box_pieces_text, o.box_pieces, why) || o.box_pieces == 0)
    return rep.bad_value("--box-pieces", why.empty() ? quote_user_text(box_pieces_text) + ": at least 1" : why);
  if (const int rc = parse_direction(direction, rep, o); rc >= 0) return rc;

  const PlanResult r = plan_tile(g.value, s.value, t.value, o);
  if (!r.ok()) return report_plan_refusal(r, t.names, rep, err, json);
  const EncodeResult enc = encode(r.plan.params);
  if (!enc.ok()) {  // the planner validated it: a planner bug
    err << rep.command << ": internal error: the planned descriptor does not encode\n";
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
    return rep.json_result(j, kExitOk, true);
  }
  out << "gmem: " << to_string(g.value) << "\nsmem: " << to_string(s.value) << '\n';
  out << describe_plan(r.plan, t.names);
  out << "descriptor: " << hex << '\n';
  out << decode_text(enc.map);
  return kExitOk;
}

}  // namespace tmakit::cli
