// The tmakit CLI (see cli.hpp; contract in the README): --help, --version, and the commands by
// name (commands.hpp).
#include "cli.hpp"

#include <ostream>

#include "commands.hpp"
#include "options.hpp"
#include "tmakit/tensor_map/names.hpp"

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
    "       [--store | --reduce OP]                      ... of its stores / reductions (shared -> global)\n"
    "  tmakit smem-store --src FRAGMENT --dst LAYOUT     plan a register -> shared-memory store\n"
    "       [--base N] [--instruction INSN] [--json]     ... starting inside a swizzle repeat; next to a forced instruction\n"
    "\n"
    "Run 'tmakit <command> [kind] --help' for the options, e.g. 'tmakit encode tiled --help'.\n"
    "Exit status: 0 ok; 1 refused (the driver would return CUDA_ERROR_INVALID_VALUE);\n"
    "             2 bad usage or unreadable input.\n"
    "Errors go to stderr, once ('check' prints its findings, its result, on stdout); with --json every\n"
    "outcome, errors included, is one JSON object on stdout with \"ok\", \"exit\" and, when not ok, \"error\".\n";

struct CommandEntry {
  const char* name;
  CommandFn run;
};
constexpr CommandEntry kCommands[] = {
    {"encode", run_encode}, {"check", run_check}, {"decode", run_decode},         {"diff", run_diff},
    {"layout", run_layout}, {"plan", run_plan},   {"smem-store", run_smem_store},
};

}  // namespace

int run_cli(const std::vector<std::string>& args, std::istream& in, std::ostream& out, std::ostream& err) {
  if (args.empty()) {
    err << kUsage;
    return kExitUsage;
  }
  const std::string& cmd = args[0];
  if (cmd == "-h" || cmd == "--help" || cmd == "help") {
    out << kUsage;
    return kExitOk;
  }
  if (cmd == "--version" || cmd == "version") {
    out << "tmakit " TMAKIT_VERSION "\n";
    return kExitOk;
  }
  for (const CommandEntry& c : kCommands)
    if (cmd == c.name) return c.run(std::vector<std::string>(args.begin() + 1, args.end()), in, out, err);
  std::string valid;
  for (const CommandEntry& c : kCommands) valid += std::string(valid.empty() ? "" : ", ") + c.name;
  return Reporter{"tmakit", wants_json(args), out, err}.usage(
      UsageRule::syntax, "unknown command " + quote_user_text(cmd) + "; valid: " + valid, "", true);
}

}  // namespace tmakit::cli
