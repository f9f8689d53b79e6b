// The tmakit CLI (see cli.hpp; contract in the README): --help, --version, and the commands by
// name (commands.hpp).
#include "cli.hpp"

#include <ostream>

#include "commands.hpp"
#include "options.hpp"
#include "output.hpp"
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
    "  tmakit check-plan --gmem G --smem S --tile T      a descriptor and the barrier's count against the plan\n"
    "       [HEX|@FILE] [--armed-bytes N] [--copies N]   ... every finding with its check.* rule, or \"ok\"\n"
    "  tmakit check-gather HEX|@FILE --arch T            a descriptor for Blackwell's TMA row gather / scatter\n"
    "       --op gather4|scatter4 [--dst D]              ... on target T: every gather4.* / scatter4.* finding,\n"
    "       [--armed-bytes N] [--copies N]               ... or what one copy moves and its expect_tx\n"
    "  tmakit decode HEX|@FILE [--json]                  descriptor -> parameters\n"
    "  tmakit diff HEX|@FILE HEX|@FILE [--json]          field-by-field difference of two descriptors\n"
    "  tmakit layout OP ARGS... [--json] [--svg FILE]    CuTe layout algebra (tmakit layout --help)\n"
    "  tmakit plan --gmem G --smem S --tile T [--json]   TMA plan of a tile: descriptor, instructions, bytes\n"
    "       [--store | --reduce OP]                      ... of its stores / reductions (shared -> global)\n"
    "  tmakit smem-store --src FRAGMENT --dst LAYOUT     plan a register -> shared-memory store\n"
    "       [--base N] [--instruction INSN] [--json]     ... starting inside a swizzle repeat; next to a forced instruction\n"
    "  tmakit cluster-stage --cluster X,Y [--json]       one stage's copies added up per CTA: bytes to arm, senders\n"
    "       [--multicast SPEC]... [--dsmem SPEC]...      ... (tmakit cluster-stage --help for the SPECs)\n"
    "  tmakit capture [--json] [--report FILE] -- CMD    run CMD; explain every tensor map it has the driver encode\n"
    "       [--out FILE] [--lib PATH] [--from FILE]      ... (report on stderr; exit status: CMD's)\n"
    "  tmakit arch [TARGET] [--json]                     what sm_90a / sm_100a / sm_103a / sm_120a can do, with sources\n"
    "\n"
    "Run 'tmakit <command> [kind] --help' for the options, e.g. 'tmakit encode tiled --help'.\n"
    "Exit status: 0 ok; 1 refused (the driver would return CUDA_ERROR_INVALID_VALUE);\n"
    "             2 bad usage or unreadable input.\n"
    "Errors go to stderr, once ('check', 'check-plan' and 'check-gather' print their findings, their result, on stdout); with --json every\n"
    "outcome, errors included, is one JSON object on stdout with \"ok\", \"exit\" and, when not ok, \"error\".\n";

struct CommandEntry {
  const char* name;
  CommandFn run;
};
constexpr CommandEntry kCommands[] = {
    {"encode", run_encode}, {"check", run_check}, {"decode", run_decode},         {"diff", run_diff},
    {"layout", run_layout}, {"plan", run_plan},   {"smem-store", run_smem_store}, {"check-plan", run_check_plan},
    {"cluster-stage", run_cluster_stage}, {"capture", run_capture}, {"arch", run_arch},
    {"check-gather", run_check_gather},
};

// help / version: the whole command line is the word and at most --json.
bool only_json_after(const std::vector<std::string>& args) {
  for (std::size_t i = 1; i < args.size(); ++i)
    if (args[i] != "--json" || i > 1) return false;
  return true;
}

int run_help_or_version(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const bool help = args[0] == "-h" || args[0] == "--help" || args[0] == "help";
  const Reporter rep{"tmakit", wants_json(args), out, err};
  if (!only_json_after(args))
    return rep.usage(UsageRule::syntax,
                     quote_user_text(args[0]) + " takes no arguments but --json (for a command's options: tmakit <command> --help)",
                     "", false);
  if (help) return rep.help(kUsage);
  if (rep.json) return rep.json_result(nlohmann::ordered_json{{"command", "tmakit"}, {"version", TMAKIT_VERSION}}, kExitOk, true);
  out << "tmakit " TMAKIT_VERSION "\n";
  return kExitOk;
}

std::string did_you_mean_text(const std::string& near) { return near.empty() ? "" : " (did you mean " + near + "?)"; }

int dispatch(const std::vector<std::string>& args, std::istream& in, std::ostream& out, std::ostream& err) {
  if (args.empty()) {
    err << kUsage;
    return kExitUsage;
  }
  const std::string& cmd = args[0];
  if (cmd == "-h" || cmd == "--help" || cmd == "help" || cmd == "--version" || cmd == "version")
    return run_help_or_version(args, out, err);
  for (const CommandEntry& c : kCommands)
    if (cmd == c.name) return c.run(std::vector<std::string>(args.begin() + 1, args.end()), in, out, err);
  std::string valid;
  std::vector<std::string> names;
  for (const CommandEntry& c : kCommands) {
    valid += std::string(valid.empty() ? "" : ", ") + c.name;
    names.push_back(c.name);
  }
  return Reporter{"tmakit", wants_json(args), out, err}.usage(
      UsageRule::syntax, "unknown command " + quote_user_text(cmd) + did_you_mean_text(nearest_name(cmd, names)) +
                             "; valid: " + valid, "", true);
}

}  // namespace

int run_cli(const std::vector<std::string>& args, std::istream& in, std::ostream& out, std::ostream& err) {
  EscapedStream o(out), e(err);
  const int rc = dispatch(args, in, o.stream(), e.stream());
  if (o.failed()) {
    e.stream() << "tmakit: cannot write to stdout (a full disk or a closed descriptor?): the output is lost\n";
    e.failed();
    return kExitUsage;
  }
  return e.failed() && rc == kExitOk ? kExitUsage : rc;
}

}  // namespace tmakit::cli
