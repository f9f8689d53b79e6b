// tmakit encode tiled|im2col|im2col-wide [options] [--json] | tmakit encode --jsonl FILE|-
// Prints the descriptor as 256 hex characters, or {"bytes":"...","fields":{...},"ok","exit"} with
// --json; on refusal every violation on stderr, or {"bytes":"","errors":[...],"ok":false,"exit":1,
// "error"} with --json (exit 1). With --jsonl, one result line per non-blank input line
// (tmakit/tensor_map/jsonl.hpp); exit 0 once the input is read, whatever the lines hold.
#include "cmd_encode.hpp"

#include <fstream>
#include <istream>
#include <ostream>

#include "cmd_check.hpp"
#include "commands.hpp"
#include "options.hpp"
#include "tmakit/tensor_map/encode.hpp"
#include "tmakit/tensor_map/jsonl.hpp"
#include "tmakit/tensor_map/names.hpp"

namespace tmakit::cli {
namespace {

int encode_params(const EncodeRequest& req, const Reporter& rep) {
  std::ostream& out = rep.out;
  std::ostream& err = rep.err;
  const EncodeResult r = encode(req.params);
  if (r.ok()) {
    if (req.json) {
      return rep.json_result(
          nlohmann::ordered_json{{"bytes", jsonl::to_hex(r.map)}, {"fields", jsonl::params_json(req.params)}}, kExitOk,
          true);
    } else {
      out << jsonl::to_hex(r.map) << '\n';
    }
    return kExitOk;
  }
  const auto errors = jsonl::describe(req.params, r.violations);
  if (req.json) {
    return rep.json_result(nlohmann::ordered_json{{"bytes", ""}, {"errors", jsonl::errors_json(errors)}}, kExitRefused,
                           false);
  } else {
    for (const auto& e : errors) err << e.message << '\n';
  }
  return kExitRefused;
}

int encode_jsonl(const std::string& path, std::istream& in, const Reporter& rep) {
  const auto input_error = [&](const std::string& why) { return rep.usage(UsageRule::input, "--jsonl: " + why, "--jsonl"); };
  const auto finish = [&](const jsonl::StreamStats& s, const std::istream& from, const std::string& name) {
    if (s.too_long > 0)
      return input_error(name + ": line " + std::to_string(s.too_long) + " is longer than " +
                         std::to_string(jsonl::kMaxLineBytes) + " bytes (a line of the schema is a few hundred); "
                         "the lines before it were encoded");
    return from.bad() ? input_error("error reading " + name) : kExitOk;
  };
  if (path == "-") return finish(jsonl::process_stream(in, rep.out), in, "stdin");
  std::ifstream f;
  std::string why;
  if (!open_input(path, f, why)) return input_error(why);
  return finish(jsonl::process_stream(f, rep.out), f, quote_user_text(path));
}

}  // namespace

ParseResult parse_encode_args(std::vector<std::string> args, Command command) {
  if (command == Command::check) return parse_check_args(std::move(args));
  const std::string name = "tmakit encode";
  CLI::App app{"Encode tensor-map parameters into the 128-byte CUtensorMap (memory order, hex).", name};
  app.require_subcommand(0, 1);
  bool json = false;
  std::string jsonl_path;
  add_json_flag(app, json);
  CLI::Option* jsonl_opt =
      app.add_option("--jsonl", jsonl_path, "encode JSON lines from FILE ('-' = stdin); one result line per input line")
          ->type_name("FILE");
  MapKinds kinds;
  kinds.add_to(app, json);

  ParseResult r;
  if (!parse_map_command(app, std::move(args), name, r)) return r;
  const CLI::App* kind = kinds.given();
  if (jsonl_opt->count() > 0) {
    if (kind) return usage_result(name, "--jsonl takes no map kind (" + kind->get_name() + ")", UsageRule::conflict, "--jsonl");
    r.status = ParseResult::Status::ok;
    r.request.jsonl = true;
    r.request.jsonl_path = jsonl_path;
    r.request.json = json;
    return r;
  }
  if (!kind) return usage_result(name, "a map kind is required: tiled, im2col or im2col-wide (or --jsonl FILE)");
  return kinds.request(name, json);
}

int run_encode(std::vector<std::string> args, std::istream& in, std::ostream& out, std::ostream& err) {
  const bool json = wants_json(args);
  const ParseResult r = parse_encode_args(std::move(args));
  if (!r.ok()) return report(r, out, err, json);
  const Reporter rep{"tmakit encode", json, out, err};
  if (r.request.jsonl) return encode_jsonl(r.request.jsonl_path, in, rep);
  return encode_params(r.request, rep);
}

}  // namespace tmakit::cli
