// Text and JSON of the capability table (see tmakit/core/describe_capabilities.hpp).
#include "tmakit/core/describe_capabilities.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <sstream>

namespace tmakit {
namespace {

std::string cell_text(const Capability& c, const CapabilityCell& x) {
  if (x.value == kUnconfirmed) return "?";
  if (c.numeric) return std::to_string(x.value);
  return x.value == kYes ? "yes" : "no";
}

// `s` after a space, padded to `width` columns (trimmed() takes the row's trailing blanks off).
void column(std::string& row, const std::string& s, int width) {
  char cell[64];
  std::snprintf(cell, sizeof cell, " %-*s", width, s.c_str());
  row += cell;
}

std::string trimmed(std::string s) {
  s.erase(s.find_last_not_of(' ') + 1);
  return s;
}

nlohmann::ordered_json value_json(const Capability& c, const CapabilityCell& x) {
  if (x.value == kUnconfirmed) return nullptr;
  if (c.numeric) return x.value;
  return x.value == kYes;
}

nlohmann::ordered_json text_or_null(const char* s) { return s ? nlohmann::ordered_json(s) : nlohmann::ordered_json(nullptr); }

}  // namespace

std::string capabilities_table_text() {
  std::ostringstream out;
  std::string head = "capability";
  head.resize(26, ' ');
  for (const TargetInfo& t : kTargets) column(head, t.name, 8);
  out << trimmed(head) << '\n';
  for (const Capability& c : kCapabilities) {
    std::string row = c.id;
    row.resize(26, ' ');
    for (const TargetInfo& t : kTargets) {
      const CapabilityCell& x = cell(c, t.target);
      column(row, cell_text(c, x) + (x.verified_on_hardware ? "*" : "") + (x.limit ? "!" : ""), 8);
    }
    out << trimmed(row) << '\n';
  }
  out << "*: checked by tmakit on that target's hardware; !: with a limit or a note; ?: no NVIDIA document states it\n"
         "(tmakit arch TARGET: each cell's limit and source)\n";
  return out.str();
}

std::string capabilities_target_text(Target target) {
  const TargetInfo& t = target_info(target);
  std::ostringstream out;
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
  return out.str();
}

nlohmann::ordered_json capabilities_json(const Target* only) {
  nlohmann::ordered_json targets = nlohmann::ordered_json::array(), caps = nlohmann::ordered_json::array();
  for (const TargetInfo& t : kTargets)
    if (!only || *only == t.target)
      targets.push_back({{"name", t.name}, {"products", t.products}, {"compute_capability", t.capability},
                         {"run_on_hardware", t.run_on_hardware}});
  for (const Capability& c : kCapabilities) {
    nlohmann::ordered_json cells = nlohmann::ordered_json::object();
    for (const TargetInfo& t : kTargets) {
      if (only && *only != t.target) continue;
      const CapabilityCell& x = cell(c, t.target);
      cells[t.name] = {{"value", value_json(c, x)}, {"limit", text_or_null(x.limit)},
                       {"verified_on_hardware", x.verified_on_hardware}};
    }
    caps.push_back({{"id", c.id}, {"what", c.what}, {"source", c.source}, {"evidence", text_or_null(c.evidence)},
                    {"cells", cells}});
  }
  return {{"targets", targets}, {"capabilities", caps}};
}

}  // namespace tmakit
