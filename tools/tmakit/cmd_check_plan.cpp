// tmakit check-plan --gmem G --smem S --tile T [DESCRIPTOR] [--armed-bytes N] [--copies N]
//                   [--smem-base ADDR] [--store | --reduce OP] [--arch A] [--json]
// A descriptor made elsewhere (hex, @FILE or @-; without one, the plan's own) checked against the
// plan for the same tensor, shared layout and tile, and the kernel's barrier count (--armed-bytes:
// what it arms per stage; --copies: the copies that deliver into one CTA per stage) against the
// bytes those copies deliver (check_against_plan, plan/check_descriptor.hpp). --smem-base: the
// shared address the tile starts at, against the plan's alignment and swizzle (smem.base_align128,
// smem.base_align). --store / --reduce OP: against the store or reduce plan of the tile (as `plan`
// takes them); no barrier counts then (--armed-bytes, --copies with them: usage.conflict). Prints
// "ok" (exit 0) or every finding with its rule id and fix, on stdout (exit 1), as `check` does: the
// findings are the result. A plan the planner refuses: its rules on stderr (exit 1). --json:
// {"result":0|1,"copy_bytes","stage_bytes","armed_bytes","plan_expect_tx","hangs","errors":[...],
// "notes":[...],"ok","exit"[,"error"]}. Bad usage, an unreadable descriptor: exit 2.
#include <ostream>

#include "commands.hpp"
#include "options.hpp"
#include "plan_direction.hpp"
#include "plan_operands.hpp"
#include "plan_refusal.hpp"
#include "tmakit/layout/notation.hpp"
#include "tmakit/plan/check_descriptor.hpp"
#include "tmakit/plan/make_problem.hpp"
#include "tmakit/plan/notation.hpp"
#include "tmakit/tensor_map/encode.hpp"
#include "tmakit/tensor_map/names.hpp"

namespace tmakit::cli {

namespace {

// A finding with the numbers both kinds keep: the field, the plan's value and the actual one, the
// descriptor's differing bytes, the effect.
nlohmann::ordered_json check_json(const Finding& f, const std::string& expected, const std::string& actual,
                                  const std::vector<int>& bytes, const std::string& effect) {
  return finding_json(f, nlohmann::ordered_json{{"field", f.where}, {"expected", expected}, {"actual", actual},
                                                {"bytes", bytes}, {"effect", effect}});
}

int print_check(const PlanCheck& c, const Reporter& rep, bool json) {
  const int rc = c.ok() ? kExitOk : kExitRefused;
  if (json) {
    nlohmann::ordered_json errors = nlohmann::ordered_json::array(), notes = nlohmann::ordered_json::array();
    for (const PlanCheckFinding& f : c.findings)
      (f.is_error() ? errors : notes).push_back(check_json(f, f.expected, f.actual, f.byte_offsets, f.effect));
    for (const SmemBaseFinding& f : c.smem_base) errors.push_back(check_json(f, f.expected, f.actual, {}, f.effect));
    const nlohmann::ordered_json j{{"result", c.ok() ? 0 : 1},      {"copy_bytes", c.copy_bytes},
                                   {"stage_bytes", c.stage_bytes},  {"armed_bytes", c.armed_bytes},
                                   {"plan_expect_tx", c.plan_expect_tx}, {"hangs", c.hangs},
                                   {"errors", errors},              {"notes", notes}};
    return rep.json_result(j, rc, c.ok());
  }
  if (c.findings.empty() && c.smem_base.empty()) rep.out << "ok\n";
  for (const PlanCheckFinding& f : c.findings) rep.out << f.message() << '\n';
  for (const SmemBaseFinding& f : c.smem_base) rep.out << f.message() << '\n';
  return rc;
}

}  // namespace

int run_check_plan(std::vector<std::string> args, std::istream& in, std::ostream& out, std::ostream& err) {
  const Reporter rep{"tmakit check-plan", wants_json(args), out, err};
  CLI::App app{"Check a descriptor and the kernel's barrier count against the plan of the tile.", rep.command};
  std::string gmem, smem, tile, descriptor, arch = "sm_90", armed_text = "0", copies_text = "0", smem_base_text;
  bool json = false;
  DirectionOptions direction;
  app.add_option("DESCRIPTOR", descriptor,
                 "256 hex digits, or @FILE / @- (stdin); whitespace and 0x ignored (default: the plan's own)");
  app.add_option("--gmem", gmem, "global tensor, as `tmakit plan --gmem`")->required();
  app.add_option("--smem", smem, "shared tile layout, as `tmakit plan --smem`")->required();
  app.add_option("--tile", tile, "tile extent per global mode, as `tmakit plan --tile`")->required();
  CLI::Option* armed_opt = app.add_option("--armed-bytes", armed_text,
                                          "what the kernel arms its barrier with per stage (expect_tx; default: not checked)");
  CLI::Option* copies_opt =
      app.add_option("--copies", copies_text, "copies that deliver into one CTA per stage (default: the plan's instructions)");
  CLI::Option* smem_base_opt =
      app.add_option("--smem-base", smem_base_text,
                     "the shared address the tile starts at (decimal or 0x hex): checked against the plan's alignment "
                     "and swizzle (smem.base_align128, smem.base_align)")
          ->type_name("ADDR");
  add_direction_options(app, direction);
  app.add_option("--arch", arch, "sm_90 (default), sm_100, sm_120");
  add_json_flag(app, json);
  if (const int rc = parse_app(app, std::move(args), rep, "\nSee docs/field_failures.md for examples.\n"); rc >= 0)
    return rc;
  PlanOperands operands;
  if (const int rc = parse_plan_operands(gmem, smem, tile, rep, operands); rc >= 0) return rc;
  const auto& [g, s, t] = operands;
  PlanCheckOptions co;
  std::string why;
  if (!parse_number(armed_text, co.armed_bytes, why)) return rep.bad_value("--armed-bytes", why);
  if (!parse_number(copies_text, co.copies, why)) return rep.bad_value("--copies", why);
  if (smem_base_opt->count() > 0) {
    std::uint64_t base = 0;
    if (!parse_number(smem_base_text, base, why)) return rep.bad_value("--smem-base", why);
    co.smem_base = base;
  }
  PlanOptions o;
  if (!parse_name(arch, o.arch, &why)) return rep.bad_value("--arch", why);
  if (const int rc = parse_direction(direction, rep, o); rc >= 0) return rc;
  if (direction.given() && (armed_opt->count() > 0 || copies_opt->count() > 0))
    return rep.usage(UsageRule::conflict,
                     std::string(armed_opt->count() > 0 ? "--armed-bytes" : "--copies") +
                         " with --store or --reduce: stores and reductions complete by bulk groups and arm no "
                         "mbarrier (drop it)",
                     armed_opt->count() > 0 ? "--armed-bytes" : "--copies");

  const PlanResult r = plan_tile(g.value, s.value, t.value, o);
  if (!r.ok()) return report_plan_refusal(r, t.names, rep, err, json);  // no plan to check against
  TensorMapBytes m = encode(r.plan.params).map;
  if (!descriptor.empty())
    if (int rc = 0; !read_descriptor_arg(descriptor, "DESCRIPTOR", in, rep, m, rc)) return rc;
  return print_check(check_against_plan(m, r.plan, co), rep, json);
}

}  // namespace tmakit::cli
