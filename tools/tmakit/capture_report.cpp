// `tmakit capture`'s report, text and JSON (capture_report.hpp).
#include "capture_report.hpp"

#include <cstdio>
#include <set>
#include <sstream>

#include "capture_explain.hpp"
#include "tmakit/host/json.hpp"
#include "tmakit/tensor_map/names.hpp"

namespace tmakit::cli {
namespace {

using ojson = nlohmann::ordered_json;

std::string hex(std::uint64_t x) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(x));
  return b;
}

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

std::string quoted_argv(const std::vector<std::string>& argv) {
  std::string s;
  for (const std::string& a : argv) {
    const bool plain = !a.empty() && a.find_first_of(" \t\n'\"\\$`*?;&|<>()") == std::string::npos;
    s += (s.empty() ? "" : " ") + (plain ? a : "'" + a + "'");
  }
  return s;
}

const char* driver_word(DriverVerdict d) {
  switch (d) {
    case DriverVerdict::accepted: return "accepted";
    case DriverVerdict::refused: return "refused";
    case DriverVerdict::failed: return "failed";
    case DriverVerdict::stub: return "stub";
    case DriverVerdict::absent: return "absent";
  }
  return "absent";
}

std::string driver_line(const CaptureRecord& r, const GroupExplanation& e) {
  const std::string code = e.result_name + " (" + std::to_string(r.result) + ")";
  switch (e.driver) {
    case DriverVerdict::accepted: return "driver: " + code + ": encoded the map";
    case DriverVerdict::refused: return "driver: " + code + ": refused the parameters";
    case DriverVerdict::failed: return "driver: " + code + ": failed before judging the parameters";
    case DriverVerdict::stub:
      return "driver: " + code + ": the toolkit's stub answered; no driver judged the parameters";
    case DriverVerdict::absent: break;
  }
  return "driver: none (no libcuda.so.1): the call was recorded and answered " + code;
}

// tmakit's verdict, its refusals, and whether the driver's verdict is the same.
void verdict_lines(const CaptureRecord& r, const GroupExplanation& e, std::ostream& os) {
  if (!r.params_known) {
    os << "    tmakit: this map was never seen encoded and the call left no bytes: nothing to check\n";
    return;
  }
  const std::string arch = to_name(r.params.arch);
  os << "    tmakit: " << (e.valid ? "accepts" : "refuses") << " (" << arch << ")"
     << (e.agreement == Agreement::agree && !r.kernel_parameter ? ", as the driver does" : "")
     << (e.valid ? "\n" : ":\n");
  for (const jsonl::Error& x : e.errors) os << "      " << x.message << '\n';
  if (e.agreement == Agreement::driver_accepts_tmakit_refuses)
    os << "    DISAGREE: the driver accepted what tmakit refuses for " << arch
       << (r.params.arch == Arch::sm_90 ? "" : " (tmakit's rules there are unverified on hardware)") << '\n';
  if (e.agreement == Agreement::driver_refuses_tmakit_accepts)
    os << "    DISAGREE: the driver refused what tmakit accepts for " << arch
       << (r.params.arch == Arch::sm_90 ? "" : " (was the map made for another GPU? --arch)") << '\n';
}

void bytes_lines(const CaptureRecord& r, const GroupExplanation& e, std::ostream& os) {
  const std::string source = std::string(e.bytes_source);
  if (source == "none") {
    os << "    bytes: none (neither the driver nor tmakit encoded these parameters)\n";
    return;
  }
  const std::string received = r.kernel_parameter ? "as the kernel received them" : "the driver's";
  const std::string what = source == "tmakit" ? "tmakit's encoding"
                           : !e.bytes_compared ? received
                           : e.differences.empty() ? received + ", identical to tmakit's encoding"
                                                   : received + "; tmakit's encoding differs";
  os << "    bytes (" << what << "): " << jsonl::to_hex(e.bytes) << '\n';
  if (e.bytes_compared && !e.differences.empty()) {
    std::istringstream lines(diff_text(e.encoded, e.bytes));
    for (std::string l; std::getline(lines, l);) os << "      tmakit -> driver: " << l << '\n';
  }
}

// Where the program had the map written (host memory, mostly): what it means for a kernel that reads
// the map from there. The full finding is in the JSON report.
void storage_line(const CaptureGroup& g, const MapStorageFinding& f, std::ostream& os) {
  const bool off64 = f.rule == MapStorageRule::align64;
  os << "    written at " << hex(g.worst_map) << " (" << (off64 ? g.maps_off64 : g.maps_off128) << " of " << g.count
     << (off64 ? " calls off a 64-byte boundary): [" : " calls 64- but not 128-byte aligned): [") << rule_id(f.rule)
     << "] "
     << (off64 ? "a TMA instruction reading the map there faults; fine once copied into a __grid_constant__ "
                 "parameter or a 128-byte aligned buffer"
               : "below CUDA 13's alignof(CUtensorMap) = 128: launchers that check it refuse the map")
     << '\n';
}

// Where a kernel received the map: the parameter and the byte offset in the parameter buffer.
std::string received_at(const CaptureRecord& r) {
  return (r.param >= 0 ? "parameter " + std::to_string(r.param) : std::string("the parameter buffer")) + ", byte " +
         std::to_string(r.offset);
}

void group_text(std::size_t index, const CaptureGroup& g, bool show_pids, std::ostream& os) {
  const CaptureRecord& r = g.first;
  const GroupExplanation e = explain_group(g);
  if (r.kernel_parameter)
    os << '[' << index << "] a tensor map kernels received x" << g.count << ", first "
       << (r.kernel == "?" ? std::string("a kernel the driver did not name") : r.kernel) << " ("
       << received_at(r) << ")" << (g.vias.size() > 1 ? ", also " + join(std::vector<std::string>(g.vias.begin() + 1, g.vias.end()), ", ") : "");
  else
    os << '[' << index << "] " << r.call << " x" << g.count << ", via " << join(g.vias, ", ");
  if (show_pids) {
    std::vector<std::string> pids;
    for (long long p : g.pids) pids.push_back(std::to_string(p));
    os << " (pid " << join(pids, ", ") << ")";
  }
  os << '\n';
  if (!e.command.empty()) os << "    " << e.command << '\n';
  if (g.address_count > 1) {
    std::vector<std::string> a;
    for (std::uint64_t x : g.addresses) a.push_back(hex(x));
    os << "    " << g.address_count << " tensor addresses: " << join(a, ", ")
       << (g.address_count > a.size() ? ", ..." : "") << '\n';
  }
  if (r.kernel_parameter)
    os << "    made without an encode call the capture saw; received at launch (the launch returned "
       << cuda_result_name(r.launch_result) << ")\n";
  else
    os << "    " << driver_line(r, e) << '\n';
  verdict_lines(r, e, os);
  for (const MapNote& n : e.notes) os << "    " << n.message() << '\n';
  if (!r.kernel_parameter && !e.storage.empty() && std::string(e.bytes_source) != "none")
    storage_line(g, e.storage.front(), os);
  bytes_lines(r, e, os);
}

ojson messages_json(const std::vector<MapNote>& notes) {
  ojson a = ojson::array();
  for (const MapNote& n : notes) a.push_back(finding_json(n));
  return a;
}

ojson group_json(const CaptureGroup& g) {
  const CaptureRecord& r = g.first;
  const GroupExplanation e = explain_group(g);
  ojson storage_findings = ojson::array();
  for (const MapStorageFinding& f : e.storage)
    storage_findings.push_back(finding_json(f));
  std::vector<std::string> addresses;
  for (std::uint64_t x : g.addresses) addresses.push_back(hex(x));
  const char* agreement = e.agreement == Agreement::agree                           ? "agree"
                          : e.agreement == Agreement::driver_accepts_tmakit_refuses ? "driver accepts, tmakit refuses"
                          : e.agreement == Agreement::driver_refuses_tmakit_accepts ? "driver refuses, tmakit accepts"
                                                                                    : "no driver verdict";
  ojson j{{"call", r.call}, {"count", g.count}, {"via", g.vias}, {"pids", g.pids}, {"line", r.line}};
  j["source"] = r.kernel_parameter ? "kernel_parameter" : "encode";
  if (r.kernel_parameter)
    j["kernel"] = {{"name", r.kernel}, {"param", r.param}, {"offset", r.offset}, {"launch_result", r.launch_result}};
  j["params_known"] = r.params_known;
  j["params"] = r.params_known ? jsonl::params_json(r.params) : ojson(nullptr);
  j["command"] = e.command;
  j["addresses"] = {{"distinct", g.address_count}, {"first", addresses}};
  j["driver"] = {{"result", r.result}, {"name", e.result_name}, {"verdict", driver_word(e.driver)}};
  j["tmakit"] = {{"ok", e.valid}, {"arch", to_name(r.params.arch)}, {"errors", jsonl::errors_json(e.errors)}};
  j["agreement"] = agreement;
  j["bytes"] = jsonl::to_hex(e.bytes);
  j["bytes_source"] = e.bytes_source;
  j["bytes_match_tmakit"] = e.bytes_compared ? ojson(e.differences.empty()) : ojson(nullptr);
  j["differences"] = e.bytes_compared ? diff_json(e.encoded, e.bytes)["differences"] : ojson::array();
  j["notes"] = messages_json(e.notes);
  j["storage"] = {{"address", hex(g.worst_map)}, {"off64", g.maps_off64}, {"off128", g.maps_off128},
                  {"findings", storage_findings}};
  return j;
}

struct Tally {
  std::size_t refused = 0, disagreements = 0, no_verdict = 0;
  std::set<long long> pids;
};

Tally tally(const CaptureLog& log) {
  Tally t;
  for (const CaptureGroup& g : log.groups) {
    const GroupExplanation e = explain_group(g);
    t.refused += g.first.params_known && !e.valid;
    t.disagreements += e.agreement == Agreement::driver_accepts_tmakit_refuses ||
                       e.agreement == Agreement::driver_refuses_tmakit_accepts;
    t.no_verdict += e.agreement == Agreement::no_driver_verdict;
    t.pids.insert(g.pids.begin(), g.pids.end());
  }
  return t;
}

std::string headline(const CaptureLog& log, const CaptureRun& run, const Tally& t) {
  std::string s = "tmakit capture: ";
  if (!run.argv.empty()) {
    s += quoted_argv(run.argv) + " exited with status " + std::to_string(run.exit_status);
    if (run.signal) s += " (signal " + std::to_string(run.signal) + ")";
    s += "; ";
  } else {
    s += run.records_file + ": ";
  }
  s += std::to_string(log.records) + (log.records == 1 ? " call" : " calls") + " recorded in " +
       std::to_string(log.groups.size()) + (log.groups.size() == 1 ? " configuration" : " configurations");
  if (t.pids.size() > 1) s += ", from " + std::to_string(t.pids.size()) + " processes";
  return s + '\n';
}

// The kernels that received a map in their parameters (a kernel_parameter group names one).
std::set<std::string> kernels_with_maps(const CaptureLog& log) {
  std::set<std::string> names;
  for (const CaptureGroup& g : log.groups)
    if (g.first.kernel_parameter) names.insert(g.first.kernel);
  return names;
}

// The kernels launched through the driver, split by whether their parameters held a map.
void launches_text(const CaptureLog& log, std::ostream& os) {
  if (log.kernels_launched.empty()) return;
  constexpr std::size_t kListed = 12;
  const std::set<std::string> with = kernels_with_maps(log);
  std::size_t unplaced = 0;
  std::vector<const KernelLaunched*> without;
  for (const KernelLaunched& k : log.kernels_launched) {
    unplaced += k.parameters == "kernelParams, not placed";
    if (!with.count(k.name)) without.push_back(&k);
  }
  os << '\n' << log.kernels_launched.size() << " kernel(s) launched through the driver";
  if (unplaced > 0) os << " (" << unplaced << " whose parameters the driver could not place: not searched)";
  os << ":\n";
  if (!with.empty()) {
    os << "  received a tensor map in their parameters:\n";
    for (const std::string& name : with) os << "    " << name << '\n';
  }
  if (!without.empty()) {
    os << "  received none in their parameters";
    if (without.size() > kListed) os << " (the first " << kListed << " of " << without.size() << ")";
    os << ":\n";
    for (std::size_t i = 0; i < without.size() && i < kListed; ++i)
      os << "    " << without[i]->name << " (" << without[i]->parameters << ", " << without[i]->param_bytes
         << " bytes)\n";
  }
}

ojson launches_json(const CaptureLog& log) {
  const std::set<std::string> with = kernels_with_maps(log);
  ojson out = ojson::array();
  for (const KernelLaunched& k : log.kernels_launched)
    out.push_back({{"name", k.name},
                   {"handles", k.handles},
                   {"parameters", k.parameters},
                   {"param_bytes", k.param_bytes},
                   {"received_map", with.count(k.name) > 0}});
  return out;
}

}  // namespace

std::string capture_report_text(const CaptureLog& log, const CaptureRun& run) {
  const Tally t = tally(log);
  std::ostringstream os;
  os << headline(log, run, t);
  if (!run.argv.empty() && !run.records_file.empty()) os << "records kept in " << run.records_file << '\n';
  if (log.records == 0 && log.kernels_launched.empty())
    os << "no tensor map was encoded through the driver or received by a kernel launched through it (is the "
          "program's CUDA reached through libcuda.so.1?)\n";
  else if (log.records == 0)
    os << "no tensor map was encoded through the driver, and none of the " << log.kernels_launched.size()
       << " kernel(s) launched through it received one in its parameters (the list below)\n";
  for (std::size_t i = 0; i < log.groups.size(); ++i) {
    os << '\n';
    group_text(i + 1, log.groups[i], t.pids.size() > 1, os);
  }
  if (log.unreadable_count > 0) {
    os << '\n' << log.unreadable_count << " unreadable line(s) in the records:\n";
    for (const auto& [line, why] : log.unreadable) os << "  line " << line << ": " << why << '\n';
  }
  if (!log.groups.empty())
    os << "\nsummary: " << log.groups.size() << " configuration(s); tmakit refuses " << t.refused
       << "; driver and tmakit disagree on " << t.disagreements << "; " << t.no_verdict
       << " without a driver's verdict. Bytes: tmakit decode HEX, tmakit diff HEX HEX\n";
  if (log.kernel_windows_not_maps > 0)
    os << log.kernel_windows_not_maps << " kernel-parameter window(s) of 128 bytes were no tensor map (not a map "
       << "tmakit decodes and re-encodes to the same bytes): skipped\n";
  launches_text(log, os);
  return os.str();
}

ojson capture_report_json(const CaptureLog& log, const CaptureRun& run) {
  const Tally t = tally(log);
  ojson groups = ojson::array();
  for (const CaptureGroup& g : log.groups) groups.push_back(group_json(g));
  ojson unreadable = ojson::array();
  for (const auto& [line, why] : log.unreadable) unreadable.push_back({{"line", line}, {"error", why}});
  ojson j{{"command", "tmakit capture"}};
  j["argv"] = run.argv.empty() ? ojson(nullptr) : ojson(run.argv);
  j["status"] = run.argv.empty() ? ojson(nullptr) : ojson(run.exit_status);
  j["signal"] = run.signal ? ojson(run.signal) : ojson(nullptr);
  j["records_file"] = run.records_file.empty() ? ojson(nullptr) : ojson(run.records_file);
  j["records"] = log.records;
  j["configurations"] = log.groups.size();
  j["refused"] = t.refused;
  j["disagreements"] = t.disagreements;
  j["no_driver_verdict"] = t.no_verdict;
  j["kernel_windows_not_maps"] = log.kernel_windows_not_maps;
  j["kernels_launched"] = launches_json(log);
  j["groups"] = groups;
  j["unreadable"] = {{"count", log.unreadable_count}, {"lines", unreadable}};
  return j;
}

}  // namespace tmakit::cli
