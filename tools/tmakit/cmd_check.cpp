// tmakit check tiled|im2col|im2col-wide [options] [--json]
// Prints "ok" (exit 0) or one violation per line, on stdout (exit 1): check's findings are its
// result, so they go to stdout (docs/cli.md); bad usage goes to stderr (exit 2). With --json
// {"result":0|1,"errors":[...],"ok","exit"[,"error"]}, or the usage error object.
#include "cmd_check.hpp"

#include <ostream>

#include "commands.hpp"
#include "options.hpp"
#include "tmakit/tensor_map/jsonl.hpp"
#include "tmakit/tensor_map/validate.hpp"

namespace tmakit::cli {

ParseResult parse_check_args(std::vector<std::string> args) {
  const std::string name = "tmakit check";
  CLI::App app{"Check tensor-map parameters: print every violated rule, or \"ok\".", name};
  app.require_subcommand(0, 1);
  bool json = false;
  add_json_flag(app, json);
  MapKinds kinds;
  kinds.add_to(app, json);

  ParseResult r;
  if (!parse_map_command(app, std::move(args), name, r)) return r;
  if (!kinds.given()) return usage_result(name, "a map kind is required: tiled, im2col or im2col-wide");
  return kinds.request(name, json);
}

int run_check(std::vector<std::string> args, std::istream&, std::ostream& out, std::ostream& err) {
  const bool json = wants_json(args);
  const ParseResult r = parse_check_args(std::move(args));
  if (!r.ok()) return report(r, out, err, json);
  const TensorMapParams& p = r.request.params;
  const Violations v = validate(p);
  const auto errors = v.empty() ? std::vector<jsonl::Error>{} : jsonl::describe(p, v);
  if (r.request.json) {
    const nlohmann::ordered_json j{{"result", v.empty() ? 0 : 1}, {"errors", jsonl::errors_json(errors)}};
    return Reporter{"tmakit check", true, out, err}.json_result(j, v.empty() ? kExitOk : kExitRefused, v.empty());
  } else if (v.empty()) {
    out << "ok\n";
  } else {
    for (const auto& e : errors) out << e.message << '\n';
  }
  return v.empty() ? kExitOk : kExitRefused;
}

}  // namespace tmakit::cli
