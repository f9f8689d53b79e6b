// tmakit arch [TARGET] [--json]
// What each target can do for data movement (core/capabilities.hpp), each answer with its source.
// No TARGET: the table, one row per capability and one column per target. TARGET (sm_90a, sm_100a,
// sm_103a, sm_120a; also sm_90 / 90 / 9.0): that target's cells with what each leaves out, the
// source and, for sm_90a, what ran on hardware. Exit 0; 2 for a target the table does not hold. The
// text and the JSON object are the host library's (core/describe_capabilities.hpp).
#include <ostream>
#include <string>

#include "commands.hpp"
#include "options.hpp"
#include "tmakit/core/describe_capabilities.hpp"
#include "tmakit/tensor_map/names.hpp"

namespace tmakit::cli {

int run_arch(std::vector<std::string> args, std::istream&, std::ostream& out, std::ostream& err) {
  const Reporter rep{"tmakit arch", wants_json(args), out, err};
  CLI::App app{"What each target architecture can do for data movement, with the source of each answer.", rep.command};
  std::string target_arg;
  bool json = false;
  app.add_option("TARGET", target_arg, "sm_90a, sm_100a, sm_103a or sm_120a (also sm_90, 90, 9.0); none: the table");
  add_json_flag(app, json);
  if (const int rc = parse_app(app, std::move(args), rep); rc >= 0) return rc;
  Target t{};
  const bool one = app.count("TARGET") > 0;
  if (one && !parse_target(target_arg, t))
    return rep.bad_value("TARGET", quote_user_text(target_arg) + " is not a target the table holds (sm_90a, sm_100a, sm_103a, sm_120a)");
  if (json) return rep.json_result(capabilities_json(one ? &t : nullptr), kExitOk, true);
  out << (one ? capabilities_target_text(t) : capabilities_table_text());
  return kExitOk;
}

}  // namespace tmakit::cli
