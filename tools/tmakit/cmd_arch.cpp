// tmakit arch [TARGET] [--json]
// What each target can do for data movement (core/capabilities.hpp), each answer with its source.
// No TARGET: the table, one row per capability and one column per target. TARGET (sm_90a, sm_100a,
// sm_103a, sm_120a; also sm_90 / 90 / 9.0): that target's cells with what each leaves out, the
// source and, for sm_90a, what ran on hardware. Exit 0; 2 for a target the table does not hold.
// JSON: {"targets": [{"name", "products", "compute_capability", "run_on_hardware"}], "capabilities":
// [{"id", "what", "source", "evidence", "cells": {TARGET: {"value", "limit", "verified_on_hardware"}}}]}
// with "value" true / false / a number / null (unconfirmed).
#include <cstdio>
#include <ostream>
#include <string>

#include "commands.hpp"
#include "options.hpp"
#include "tmakit/core/capabilities.hpp"
#include "tmakit/tensor_map/names.hpp"

namespace tmakit::cli {
namespace {

std::string cell_text(const Capability& c, const CapabilityCell& x) {
  if (x.value == kUnconfirmed) return "?";
  if (c.numeric) return std::to_string(x.value);
  return x.value == kYes ? "yes" : "no";
}

void print_table(std::ostream& out) {
  char line[160];
  std::snprintf(line, sizeof line, "%-26s", "capability");
  std::string head = line;
  for (const TargetInfo& t : kTargets) {
    std::snprintf(line, sizeof line, " %-8s", t.name);
    head += line;
  }
  head.erase(head.find_last_not_of(' ') + 1);
  out << head << '\n';
  for (const Capability& c : kCapabilities) {
    std::snprintf(line, sizeof line, "%-26s", c.id);
    std::string row = line;
    for (const TargetInfo& t : kTargets) {
      const CapabilityCell& x = cell(c, t.target);
      const std::string v = cell_text(c, x) + (x.verified_on_hardware ? "*" : "") + (x.limit ? "!" : "");
      std::snprintf(line, sizeof line, " %-8s", v.c_str());
      row += line;
    }
    row.erase(row.find_last_not_of(' ') + 1);
    out << row << '\n';
  }
  out << "*: checked by tmakit on that target's hardware; !: with a limit or a note; ?: no NVIDIA document states it\n"
         "(tmakit arch TARGET: each cell's limit and source)\n";
}

void print_target(std::ostream& out, const TargetInfo& t) {
  out << t.name << ": " << t.products << ", compute capability " << t.capability << "; "
      << (t.run_on_hardware ? "tmakit's GPU suite runs here (cells marked 'verified on hardware')"
                            : "unverified on hardware: no GPU of this kind has run tmakit, every cell is from the documents")
      << '\n';
  for (const Capability& c : kCapabilities) {
    const CapabilityCell& x = cell(c, t.target);
    out << c.id << ", " << c.what << ": " << (x.value == kUnconfirmed ? "unconfirmed" : cell_text(c, x));
    if (x.limit) out << "; " << x.limit;
    if (x.verified_on_hardware) out << "; verified on hardware: " << c.evidence;
    out << "\n  source: " << c.source << '\n';
  }
}

nlohmann::ordered_json value_json(const Capability& c, const CapabilityCell& x) {
  if (x.value == kUnconfirmed) return nullptr;
  if (c.numeric) return x.value;
  return x.value == kYes;
}

nlohmann::ordered_json arch_json(const TargetInfo* only) {
  nlohmann::ordered_json targets = nlohmann::ordered_json::array(), caps = nlohmann::ordered_json::array();
  for (const TargetInfo& t : kTargets)
    if (!only || only == &t)
      targets.push_back({{"name", t.name}, {"products", t.products}, {"compute_capability", t.capability},
                         {"run_on_hardware", t.run_on_hardware}});
  for (const Capability& c : kCapabilities) {
    nlohmann::ordered_json cells = nlohmann::ordered_json::object();
    for (const TargetInfo& t : kTargets) {
      if (only && only != &t) continue;
      const CapabilityCell& x = cell(c, t.target);
      cells[t.name] = {{"value", value_json(c, x)},
                       {"limit", x.limit ? nlohmann::ordered_json(x.limit) : nlohmann::ordered_json(nullptr)},
                       {"verified_on_hardware", x.verified_on_hardware}};
    }
    caps.push_back({{"id", c.id}, {"what", c.what}, {"source", c.source},
                    {"evidence", c.evidence ? nlohmann::ordered_json(c.evidence) : nlohmann::ordered_json(nullptr)},
                    {"cells", cells}});
  }
  return {{"targets", targets}, {"capabilities", caps}};
}

}  // namespace

int run_arch(std::vector<std::string> args, std::istream&, std::ostream& out, std::ostream& err) {
  const Reporter rep{"tmakit arch", wants_json(args), out, err};
  CLI::App app{"What each target architecture can do for data movement, with the source of each answer.", rep.command};
  std::string target_arg;
  bool json = false;
  app.add_option("TARGET", target_arg, "sm_90a, sm_100a, sm_103a or sm_120a (also sm_90, 90, 9.0); none: the table");
  add_json_flag(app, json);
  if (const int rc = parse_app(app, std::move(args), rep); rc >= 0) return rc;
  const TargetInfo* only = nullptr;
  if (app.count("TARGET") > 0) {
    Target t{};
    if (!parse_target(target_arg, t))
      return rep.bad_value("TARGET", quote_user_text(target_arg) + " is not a target the table holds (sm_90a, sm_100a, sm_103a, sm_120a)");
    only = &target_info(t);
  }
  if (json) return rep.json_result(arch_json(only), kExitOk, true);
  if (only) print_target(out, *only);
  else print_table(out);
  return kExitOk;
}

}  // namespace tmakit::cli
