// tmakit check tiled|im2col|im2col-wide [options] [--json]
// tmakit check im2col [options] --conv 'kernel=K.. [stride=S..] [pad=P..] [dilation=D..]'
// Prints "ok" (exit 0) or one violation per line, on stdout (exit 1): check's findings are its
// result, so they go to stdout (docs/cli.md); bad usage goes to stderr (exit 2). With --json
// {"result":0|1,"errors":[...],"ok","exit"[,"error"]}, or the usage error object.
// --conv (im2col only): the convolution the map gathers for, against the map's pixel walk
// (tensor_map/im2col_conv.hpp: im2col.conv_*), after validate()'s rules; a spec that does not parse
// or does not fit the map is bad usage (exit 2).
#include "cmd_check.hpp"

#include <ostream>

#include "commands.hpp"
#include "conv_spec.hpp"
#include "options.hpp"
#include "tmakit/tensor_map/im2col_conv.hpp"
#include "tmakit/tensor_map/jsonl.hpp"
#include "tmakit/tensor_map/names.hpp"
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
  std::string conv;
  const CLI::Option* conv_opt =
      kinds.subcommand(MapKind::im2col)
          ->add_option("--conv", conv,
                       "the convolution the map gathers for: 'kernel=K[,K..] [stride=S..] [pad=P..] [dilation=D..]', "
                       "one value per spatial dim (W first) or one for all; checked against the map's pixel walk "
                       "(im2col.conv_*)")
          ->type_name("SPEC");

  ParseResult r;
  if (!parse_map_command(app, std::move(args), name, r)) return r;
  if (!kinds.given()) return usage_result(name, "a map kind is required: tiled, im2col or im2col-wide");
  r = kinds.request(name, json);
  if (r.ok() && conv_opt->count() > 0) {
    r.request.conv = true;
    r.request.conv_spec = conv;
  }
  return r;
}

namespace {

// The map's walk against the convolution of `spec`: its findings, or the usage report's status.
int conv_findings(const TensorMapParams& p, const std::string& spec, const Reporter& rep,
                  std::vector<Im2colConvFinding>& out) {
  Im2colConv conv;
  std::string why;
  const std::uint32_t spatial = p.rank >= 2 ? p.rank - 2 : 0;
  if (!parse_conv_spec(spec, spatial, conv, why)) return rep.bad_value("--conv", quote_user_text(spec) + ": " + why);
  if (const std::string e = im2col_conv_usage_error(p, conv); !e.empty()) return rep.bad_value("--conv", e);
  out = explain_im2col_conv(p, conv, check_im2col_conv(p, conv));
  return -1;
}

}  // namespace

int run_check(std::vector<std::string> args, std::istream&, std::ostream& out, std::ostream& err) {
  const bool json = wants_json(args);
  const ParseResult r = parse_check_args(std::move(args));
  if (!r.ok()) return report(r, out, err, json);
  const TensorMapParams& p = r.request.params;
  std::vector<Im2colConvFinding> conv;
  if (r.request.conv)
    if (const int rc = conv_findings(p, r.request.conv_spec, Reporter{"tmakit check im2col", json, out, err}, conv); rc >= 0)
      return rc;
  const Violations v = validate(p);
  const auto errors = v.empty() ? std::vector<jsonl::Error>{} : jsonl::describe(p, v);
  const bool ok = v.empty() && conv.empty();
  const int rc = ok ? kExitOk : kExitRefused;
  if (r.request.json) {
    nlohmann::ordered_json all = jsonl::errors_json(errors);
    for (const Im2colConvFinding& f : conv)
      all.push_back(finding_json(f, nlohmann::ordered_json{{"field", f.where}, {"value", ""}}));
    const nlohmann::ordered_json j{{"result", ok ? 0 : 1}, {"errors", all}};
    return Reporter{"tmakit check", true, out, err}.json_result(j, rc, ok);
  }
  if (ok) out << "ok\n";
  for (const auto& e : errors) out << e.message << '\n';
  for (const Im2colConvFinding& f : conv) out << f.message() << '\n';
  return rc;
}

}  // namespace tmakit::cli
