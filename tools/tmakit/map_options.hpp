// The tensor-map parameters on the command line, shared by `tmakit encode` and `tmakit check`: the
// map kinds tiled, im2col and im2col-wide (CLI11 subcommands) with their options, and their
// conversion into TensorMapParams. Numbers are decimal or 0x hex; lists are comma-separated.
// Never exits, never prints; every failure is a ParseResult.
#pragma once

#include <CLI/CLI.hpp>
#include <iosfwd>
#include <string>
#include <vector>

#include "tmakit/host/usage_rules.hpp"
#include "tmakit/tensor_map/params.hpp"

namespace tmakit::cli {

struct EncodeRequest {
  TensorMapParams params{};  // rank = number of --dims values (may exceed kMaxRank: validate refuses it)
  bool json = false;         // --json
  bool jsonl = false;        // encode --jsonl FILE
  std::string jsonl_path;    // "-" = stdin
  bool conv = false;         // check im2col --conv SPEC given
  std::string conv_spec;     // its text (conv_spec.hpp reads it once the rank is known)
};

struct ParseResult {
  enum class Status { ok, help, usage_error };
  Status status = Status::usage_error;
  EncodeRequest request{};
  std::string message;  // help text (Status::help) or the usage error (Status::usage_error)
  // A usage error's parts: the command ("tmakit encode tiled"), what is wrong (naming the option),
  // the option ("" when none is to blame), the rule, and whether the "--help" hint applies.
  std::string command, what, option;
  UsageRule rule = UsageRule::syntax;
  bool help_hint = true;

  bool ok() const { return status == Status::ok; }
  // 0 for ok and help, 2 for a usage error (the CLI's exit status for bad usage).
  int exit_code() const { return status == Status::usage_error ? 2 : 0; }
};

// A usage error of `cmd`: message "<cmd>: <what>\nRun '<cmd> --help' for usage." (no final newline).
ParseResult usage_result(const std::string& cmd, const std::string& what, UsageRule rule = UsageRule::syntax,
                         const std::string& option = "");

// Reports a result that is not ok: help on `out` (exit 0), or the usage error (exit 2) as text on
// `err` or, with json, one JSON object on `out` (Reporter::usage).
int report(const ParseResult& r, std::ostream& out, std::ostream& err, bool json);

// The option values of the three map kinds as given; MapKinds::request converts them (with
// messages naming the option) after CLI11 has parsed.
class MapKinds {
 public:
  // Adds the subcommands tiled, im2col and im2col-wide to `app`; each has its own --json, bound
  // to `json` like the command's.
  void add_to(CLI::App& app, bool& json);

  // The map kind given on the command line, or nullptr.
  const CLI::App* given() const;

  // The subcommand of `kind` (after add_to), for options only one command takes.
  CLI::App* subcommand(MapKind kind) const { return kinds_[static_cast<int>(kind)]; }

  // The parameters of the kind given (given() != nullptr), or a usage error that names
  // "<name> <kind>" and the option.
  ParseResult request(const std::string& name, bool json) const;

  struct Raw {
    std::string dtype, dims, strides, box, elem_strides, interleave = "NONE", swizzle = "NONE", l2 = "NONE",
                                                          oob = "NONE", address = "0", arch = "sm_90";
    std::string lower, upper, channels, pixels, mode;
    CLI::Option* strides_opt = nullptr;
    CLI::Option* elem_strides_opt = nullptr;
    CLI::Option* lower_opt = nullptr;
    CLI::Option* upper_opt = nullptr;
  };

 private:
  Raw raw_[3];  // per map kind, in MapKind order (option pointers differ per subcommand)
  CLI::App* kinds_[3] = {};
};

// Runs the CLI11 parse step of a map command (parse_app). Returns true when the command should go
// on; otherwise false with `r` set to the help text or the usage error.
bool parse_map_command(CLI::App& app, std::vector<std::string> args, const std::string& name, ParseResult& r);

}  // namespace tmakit::cli
