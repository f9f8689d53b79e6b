// tmakit check-gather DESCRIPTOR --op gather4|scatter4 --arch TARGET [--dst cta|cluster|multicast]
//                     [--armed-bytes N] [--copies N] [--json]
// A descriptor (hex, @FILE or @-) used by Blackwell's TMA row gather or scatter on a target
// (check_gather4, tensor_map/gather4.hpp): the target's support for the form, the map's rank, box rows,
// kind and interleave, the tile mode's own rules on that target, and the bytes the kernel arms its
// barrier with (--armed-bytes, for --copies gather4 copies per phase) against the 4 rows x boxDim[0]
// one copy delivers. Prints what the copy moves (exit 0), or every finding with its rule id and fix on
// stdout (exit 1), as `check` and `check-plan` do: the findings are the result. --json:
// gather4_json's object with "ok" and "exit". Bad usage, an unreadable descriptor: exit 2.
#include <ostream>

#include "commands.hpp"
#include "options.hpp"
#include "tmakit/tensor_map/decode.hpp"
#include "tmakit/tensor_map/gather4_explain.hpp"
#include "tmakit/tensor_map/names.hpp"

namespace tmakit::cli {
namespace {

// Why scatter4 takes no --dst: parse_gather4_form's words.
std::string why_no_dst() {
  Gather4Form f{};
  std::string why;
  parse_gather4_form("scatter4", "cta", f, why);
  return why;
}

}  // namespace

int run_check_gather(std::vector<std::string> args, std::istream& in, std::ostream& out, std::ostream& err) {
  const Reporter rep{"tmakit check-gather", wants_json(args), out, err};
  CLI::App app{"Check a descriptor for Blackwell's TMA row gather (gather4) or scatter (scatter4) on a target.",
               rep.command};
  std::string descriptor, op, arch, dst, armed_text, copies_text = "1";
  bool json = false;
  app.add_option("DESCRIPTOR", descriptor, "256 hex digits, or @FILE / @- (stdin); whitespace and 0x ignored")
      ->required();
  app.add_option("--op", op, "gather4 (a load into shared memory) or scatter4 (a store from it)")->required();
  app.add_option("--arch", arch, "the target: sm_90a, sm_100a, sm_103a or sm_120a (also sm_100, 100, 10.0)")
      ->required();
  app.add_option("--dst", dst,
                 "gather4's destination: cta (.shared::cta, default), cluster (.shared::cluster) or multicast "
                 "(.shared::cluster with .multicast::cluster)");
  app.add_option("--armed-bytes", armed_text, "what the kernel arms the copies' barrier with per phase (expect_tx)");
  app.add_option("--copies", copies_text, "gather4 copies that complete on that barrier per phase (default 1)");
  add_json_flag(app, json);
  if (const int rc = parse_app(app, std::move(args), rep, "\nSee docs/field_failures.md for examples.\n"); rc >= 0)
    return rc;

  Gather4Request r;
  std::string why;
  if (!parse_gather4_form(op, "", r.form, why)) return rep.bad_value("--op", why);
  if (app.count("--dst") > 0) {
    if (dst.empty()) return rep.bad_value("--dst", "empty value: give cta, cluster or multicast");
    if (!is_gather(r.form)) return rep.usage(UsageRule::conflict, "--dst: " + why_no_dst(), "--dst");
    if (!parse_gather4_form(op, dst, r.form, why)) return rep.bad_value("--dst", why);
  }
  if (!parse_target(arch, r.target))
    return rep.bad_value("--arch", quote_user_text(arch) + " is not a target the capability table holds (sm_90a, "
                                                           "sm_100a, sm_103a, sm_120a)");
  if (app.count("--armed-bytes") > 0) {
    if (!parse_number(armed_text, r.armed_bytes, why)) return rep.bad_value("--armed-bytes", why);
    r.armed = true;
  }
  if (app.count("--copies") > 0) {
    if (!is_gather(r.form))
      return rep.usage(UsageRule::conflict, "--copies: scatter4 completes on no barrier: there are no copies per phase to count",
                       "--copies");
    if (!parse_number(copies_text, r.copies, why)) return rep.bad_value("--copies", why);
    if (r.copies == 0) return rep.bad_value("--copies", "0 copies deliver nothing: give 1 or more");
  }
  TensorMapBytes m;
  if (int rc = 0; !read_descriptor_arg(descriptor, "DESCRIPTOR", in, rep, m, rc)) return rc;

  const TensorMapParams p = decode(m).params;
  const Gather4Check c = check_gather4(p, r);
  const int rc = c.ok() ? kExitOk : kExitRefused;
  if (json) {
    nlohmann::ordered_json j = gather4_json(p, r, c);
    j.erase("text");
    return rep.json_result(j, rc, c.ok());
  }
  if (c.ok()) out << describe_gather4(p, r, c);
  for (const Diagnostic& d : explain_gather4(p, r, c)) out << d.message() << '\n';
  return rc;
}

}  // namespace tmakit::cli
