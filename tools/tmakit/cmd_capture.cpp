// tmakit capture [--json] [--report FILE] [--out FILE] [--lib PATH] [--arch A] [--] CMD [ARGS...]
// tmakit capture --from FILE|- [--json] [--report FILE] [--arch A]
// Runs CMD with libtmakit_capture.so preloaded (capture_process.hpp), its stdin, stdout, stderr and
// exit status its own, then reports every tensor map it had the driver encode (capture_report.hpp):
// grouped by configuration, the driver's result next to tmakit's verdict, the notes, the bytes. The
// report goes to stderr (the program's stdout stays its own), or to --report FILE ('-': stdout).
// Exit status: CMD's (128 + N when signal N ended it; 127 / 126 when it could not be run); 2 for bad
// usage or a capture library that cannot be found, before anything runs.
// --from FILE reads records written earlier (LD_PRELOAD=... TMAKIT_CAPTURE=FILE, or --out) and
// reports them on stdout; exit 0 once read.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <optional>

#include "capture_process.hpp"
#include "capture_records.hpp"
#include "capture_report.hpp"
#include "commands.hpp"
#include "options.hpp"
#include "tmakit/tensor_map/names.hpp"

namespace tmakit::cli {
namespace {

struct CaptureOptions {
  bool json = false, from_given = false;
  std::string out, lib, report, arch, from;
  std::vector<std::string> command;  // CMD [ARGS...]
};

constexpr const char* kHelpFooter =
    "\nThe report goes to stderr (the program's stdout stays its own) or to --report FILE ('-': stdout);\n"
    "--from's goes to stdout. Exit status: CMD's (128 + N when signal N ended it; 127/126 when it could\n"
    "not be run); 2 for bad usage or when the capture library cannot be found. docs/cli.md, capture.\n";

// tmakit's options end at "--" or at the first word that is neither an option nor an option's value:
// CMD and its arguments follow, untouched (a CMD option such as --json is CMD's).
void split_command(const std::vector<std::string>& args, std::vector<std::string>& options,
                   std::vector<std::string>& command) {
  static const char* const kTakesValue[] = {"--out", "--lib", "--report", "--arch", "--from"};
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") {
      command.assign(args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
      return;
    }
    if (a.empty() || a[0] != '-') {
      command.assign(args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
      return;
    }
    options.push_back(a);
    for (const char* v : kTakesValue)
      if (a == v && i + 1 < args.size()) options.push_back(args[++i]);
  }
}

// Options that contradict each other or would do nothing; "" when none.
std::pair<std::string, std::string> conflict(const CLI::App& app, const CaptureOptions& o) {
  const bool from = app.count("--from") > 0;
  if (from && !o.command.empty()) return {"--from", "--from reads records written earlier: it runs no command"};
  if (from && app.count("--out") > 0) return {"--out", "--out keeps the records of a command run; --from reads them"};
  if (from && app.count("--lib") > 0)
    return {"--lib", "--lib names the library preloaded into a command; --from runs none"};
  if (!from && o.command.empty())
    return {"", "a command to run is required: tmakit capture [options] -- CMD [ARGS...] (or --from FILE)"};
  return {"", ""};
}

int parse(std::vector<std::string> args, const Reporter& rep, CaptureOptions& o, std::optional<Arch>& arch) {
  CLI::App app{"tmakit capture [OPTIONS] [--] CMD [ARGS...]: run CMD with every tensor map it has the driver\n"
               "encode recorded, then explain each one.",
               rep.command};
  std::vector<std::string> options;
  split_command(args, options, o.command);
  app.add_flag("--json", o.json, "the report as one JSON document (where the report goes: see --report)");
  app.add_option("--report", o.report, "write the report to FILE ('-': stdout); default: stderr")->type_name("FILE");
  app.add_option("--out", o.out, "keep the records in FILE (JSON lines: each call, its arguments as encode reads them)")
      ->type_name("FILE");
  app.add_option("--lib", o.lib, "the capture library (default: $TMAKIT_CAPTURE_LIB, next to tmakit, its lib/)")
      ->type_name("PATH");
  app.add_option("--arch", o.arch, "validate for this target (default: the GPU each record names, else sm_90)")
      ->type_name("ARCH");
  app.add_option("--from", o.from, "report the records in FILE ('-': stdin) instead of running a command")
      ->type_name("FILE");
  if (const int rc = parse_app(app, std::move(options), rep, kHelpFooter); rc >= 0) return rc;
  o.from_given = app.count("--from") > 0;
  if (o.from_given && o.from.empty()) return rep.bad_value("--from", "an empty file name");
  if (const auto [option, what] = conflict(app, o); !what.empty())
    return rep.usage(option.empty() ? UsageRule::syntax : UsageRule::conflict, what, option, true);
  if (app.count("--arch") > 0) {
    Arch a{};
    std::string why;
    if (!parse_name(o.arch, a, &why)) return rep.bad_value("--arch", why);
    arch = a;
  }
  return -1;
}

// Where the report goes: the stream given, or FILE opened before anything runs.
struct ReportSink {
  std::ofstream file;
  std::ostream* stream = nullptr;
};

bool open_sink(const std::string& path, std::ostream& fallback, std::ostream& out, ReportSink& s, std::string& why) {
  if (path.empty()) {
    s.stream = &fallback;
    return true;
  }
  if (path == "-") {
    s.stream = &out;
    return true;
  }
  s.file.open(path, std::ios::trunc);
  if (!s.file) {
    why = "cannot write " + quote_user_text(path);
    return false;
  }
  s.stream = &s.file;
  return true;
}

void write_report(std::ostream& os, const CaptureOptions& o, const CaptureLog& log, const CaptureRun& run, int exit) {
  if (!o.json) {
    os << capture_report_text(log, run);
  } else {
    Reporter{"tmakit capture", true, os, os}.json_result(capture_report_json(log, run), exit, true);
  }
  os.flush();
}

int report_from(const CaptureOptions& o, std::optional<Arch> arch, std::istream& in, const Reporter& rep,
                std::ostream& sink) {
  CaptureReader reader(arch);
  if (o.from == "-") {
    reader.read(in);
  } else {
    std::ifstream f;
    std::string why;
    if (!open_input(o.from, f, why)) return rep.usage(UsageRule::input, "--from: " + why, "--from");
    reader.read(f);
  }
  write_report(sink, o, reader.log(), CaptureRun{{}, 0, 0, o.from == "-" ? "stdin" : o.from}, kExitOk);
  return kExitOk;
}

// The records file: --out (emptied first, kept), or a temporary file (removed after the report).
bool records_file(const CaptureOptions& o, std::string& path, std::string& why) {
  if (!o.out.empty()) {
    path = o.out;
    std::ofstream f(path, std::ios::trunc);
    if (!f) why = "--out: cannot write " + quote_user_text(path);
    return static_cast<bool>(f);
  }
  const char* tmp = std::getenv("TMPDIR");
  std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/tmakit-capture-XXXXXX.jsonl";
  const int fd = mkstemps(templ.data(), 6);
  if (fd < 0) {
    why = "cannot create a temporary records file in " + templ.substr(0, templ.rfind('/')) +
          " (set TMPDIR, or --out FILE)";
    return false;
  }
  close(fd);
  path = templ;
  return true;
}

int run_command(const CaptureOptions& o, std::optional<Arch> arch, const Reporter& rep, std::ostream& sink) {
  std::string why, records;
  const std::string library = find_capture_library(o.lib, why);
  if (library.empty()) return rep.usage(UsageRule::input, why, o.lib.empty() ? "" : "--lib");
  if (!records_file(o, records, why)) return rep.usage(UsageRule::input, why, o.out.empty() ? "" : "--out");
  rep.out.flush();
  rep.err.flush();
  const ChildOutcome child = run_with_capture(o.command, library, records);
  CaptureReader reader(arch);
  if (std::ifstream f(records); f) reader.read(f);
  if (o.out.empty()) std::remove(records.c_str());
  if (!child.started) {
    if (!o.json) {
      sink << "tmakit capture: " << child.error << '\n';
      return child.exit_status;
    }
    const nlohmann::ordered_json error{{"rule", "capture.exec"}, {"message", child.error}};
    return Reporter{"tmakit capture", true, sink, sink}.json_result(
        nlohmann::ordered_json{{"command", "tmakit capture"}, {"error", error}}, child.exit_status, false);
  }
  write_report(sink, o, reader.log(), CaptureRun{o.command, child.exit_status, child.signal, o.out}, child.exit_status);
  return child.exit_status;
}

}  // namespace

int run_capture(std::vector<std::string> args, std::istream& in, std::ostream& out, std::ostream& err) {
  std::vector<std::string> options, command;
  split_command(args, options, command);
  const Reporter rep{"tmakit capture", wants_json(options), out, err};
  CaptureOptions o;
  std::optional<Arch> arch;
  if (const int rc = parse(std::move(args), rep, o, arch); rc >= 0) return rc;
  const bool from = o.from_given;
  ReportSink sink;
  std::string why;
  if (!open_sink(o.report, from ? out : err, out, sink, why))
    return rep.usage(UsageRule::input, "--report: " + why, "--report");
  return from ? report_from(o, arch, in, rep, *sink.stream) : run_command(o, arch, rep, *sink.stream);
}

}  // namespace tmakit::cli
