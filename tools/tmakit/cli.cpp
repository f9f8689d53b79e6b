// The tmakit CLI (see cli.hpp; contract in the README).
#include "cli.hpp"

#include <CLI/CLI.hpp>

#include "cli_app.hpp"
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <istream>
#include <ostream>

#include "cli_parse.hpp"
#include "cmd_layout.hpp"
#include "cmd_plan.hpp"
#include "cmd_smem_store.hpp"
#include "decode_diff.hpp"
#include "tmakit/tensor_map/encode.hpp"
#include "tmakit/tensor_map/jsonl.hpp"

#ifndef TMAKIT_VERSION
#define TMAKIT_VERSION "unknown"
#endif

namespace tmakit::cli {
namespace {

constexpr const char* kUsage =
    "tmakit " TMAKIT_VERSION " - driver-free codec for the CUDA tensor map (CUtensorMap)\n"
    "\n"
    "Usage:\n"
    "  tmakit encode tiled|im2col|im2col-wide [options]  parameters -> the 128-byte descriptor (256 hex chars)\n"
    "  tmakit encode --jsonl FILE|-                      JSON lines in, one result line out per input line\n"
    "  tmakit check tiled|im2col|im2col-wide [options]   every violated rule, or \"ok\"\n"
    "  tmakit decode HEX|@FILE [--json]                  descriptor -> parameters\n"
    "  tmakit diff HEX|@FILE HEX|@FILE [--json]          field-by-field difference of two descriptors\n"
    "  tmakit layout OP ARGS... [--json] [--svg FILE]    CuTe layout algebra (tmakit layout --help)\n"
    "  tmakit plan --gmem G --smem S --tile T [--json]   TMA plan of a tile: descriptor, instructions, bytes\n"
    "  tmakit smem-store --src FRAGMENT --dst LAYOUT     plan a register -> shared-memory store\n"
    "\n"
    "Run 'tmakit <command> [kind] --help' for the options, e.g. 'tmakit encode tiled --help'.\n"
    "Exit status: 0 ok; 1 refused (the driver would return CUDA_ERROR_INVALID_VALUE);\n"
    "             2 bad usage or unreadable input.\n";

// {"bytes":"...","fields":{...}} / {"bytes":"","errors":[...]}
int run_encode(const EncodeRequest& req, std::ostream& out, std::ostream& err) {
  const EncodeResult r = encode(req.params);
  std::string line;
  if (r.ok()) {
    if (req.json) {
      line = "{\"bytes\":\"";
      jsonl::append_hex(r.map, line);
      line += "\",\"fields\":";
      jsonl::append_params(req.params, line);
      line += "}\n";
    } else {
      line = jsonl::to_hex(r.map) + "\n";
    }
    out << line;
    return 0;
  }
  const auto errors = jsonl::describe(req.params, r.violations);
  if (req.json) {
    line = "{\"bytes\":\"\",\"errors\":";
    jsonl::append_errors(errors, line);
    line += "}\n";
    out << line;
  } else {
    for (const auto& e : errors) err << e.message << '\n';
  }
  return 1;
}

// {"result":0|1,"errors":[...]}; plain: "ok" or one violation per line (stdout).
int run_check(const EncodeRequest& req, std::ostream& out) {
  const Violations v = validate(req.params);
  const auto errors = v.empty() ? std::vector<jsonl::Error>{} : jsonl::describe(req.params, v);
  if (req.json) {
    std::string line = v.empty() ? "{\"result\":0,\"errors\":" : "{\"result\":1,\"errors\":";
    jsonl::append_errors(errors, line);
    line += "}\n";
    out << line;
  } else if (v.empty()) {
    out << "ok\n";
  } else {
    for (const auto& e : errors) out << e.message << '\n';
  }
  return v.empty() ? 0 : 1;
}

int run_jsonl(const EncodeRequest& req, std::istream& in, std::ostream& out, std::ostream& err) {
  if (req.jsonl_path == "-") {
    jsonl::process_stream(in, out);
    if (in.bad()) {
      err << "tmakit encode: error reading stdin\n";
      return 2;
    }
    return 0;
  }
  std::error_code ec;
  if (std::filesystem::is_directory(req.jsonl_path, ec)) {
    err << "tmakit encode: cannot read '" << req.jsonl_path << "': is a directory\n";
    return 2;
  }
  std::ifstream f(req.jsonl_path);
  if (!f) {
    err << "tmakit encode: cannot read '" << req.jsonl_path << "'\n";
    return 2;
  }
  jsonl::process_stream(f, out);
  if (f.bad()) {
    err << "tmakit encode: error reading '" << req.jsonl_path << "'\n";
    return 2;
  }
  return 0;
}

// decode HEX / diff HEX HEX
int run_descriptor_command(const std::string& cmd, std::vector<std::string> args, std::istream& in,
                           std::ostream& out, std::ostream& err) {
  const bool is_diff = cmd == "diff";
  const std::string name = "tmakit " + cmd;
  CLI::App app{is_diff ? "Compare two tensor maps field by field." : "Decode a tensor map into its parameters.",
               name};
  std::string a, b;
  DecodeOptions opts;
  app.add_option(is_diff ? "A" : "DESCRIPTOR", a, "256 hex digits, or @FILE / @- (stdin); whitespace and 0x ignored")
      ->required();
  if (is_diff) app.add_option("B", b, "the second descriptor, as A")->required();
  app.add_flag("--json", opts.json, "print JSON");
  if (const int rc = parse_app(app, std::move(args), name, out, err); rc >= 0) return rc;
  std::string ha, hb, why;
  if (!read_hex_arg(a, in, ha, why)) {
    err << name << ": " << (is_diff ? "A" : "DESCRIPTOR") << ": " << why << '\n';
    return 2;
  }
  if (!is_diff) return run_decode(ha, opts, out, err);
  if (!read_hex_arg(b, in, hb, why)) {
    err << name << ": B: " << why << '\n';
    return 2;
  }
  return run_diff(ha, hb, opts, out, err);
}

}  // namespace

int run_cli(const std::vector<std::string>& args, std::istream& in, std::ostream& out, std::ostream& err) {
  if (args.empty()) {
    err << kUsage;
    return 2;
  }
  const std::string& cmd = args[0];
  std::vector<std::string> rest(args.begin() + 1, args.end());
  if (cmd == "-h" || cmd == "--help" || cmd == "help") {
    out << kUsage;
    return 0;
  }
  if (cmd == "--version" || cmd == "version") {
    out << "tmakit " TMAKIT_VERSION "\n";
    return 0;
  }
  if (cmd == "encode" || cmd == "check") {
    const ParseResult pr = parse_encode_args(std::move(rest), cmd == "encode" ? Command::encode : Command::check);
    if (pr.status == ParseResult::Status::help) {
      out << pr.message;
      return 0;
    }
    if (!pr.ok()) {
      err << pr.message << '\n';
      return pr.exit_code();
    }
    if (pr.request.jsonl) return run_jsonl(pr.request, in, out, err);
    return cmd == "encode" ? run_encode(pr.request, out, err) : run_check(pr.request, out);
  }
  if (cmd == "decode" || cmd == "diff") return run_descriptor_command(cmd, std::move(rest), in, out, err);
  if (cmd == "layout") return run_layout(std::move(rest), in, out, err);
  if (cmd == "plan") return run_plan(std::move(rest), in, out, err);
  if (cmd == "smem-store") return run_smem_store(std::move(rest), in, out, err);
  err << "tmakit: unknown command '" << cmd << "'; valid: encode, check, decode, diff, layout, plan, smem-store\n"
      << "Run 'tmakit --help' for usage.\n";
  return 2;
}

}  // namespace tmakit::cli
