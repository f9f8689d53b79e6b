// The one shape of every diagnostic in words (host only): a rule id, where it applies, what is
// wrong with the numbers, and a fix. Every explain_* / check_* function that puts a finding into
// words hands back a Finding, or a family's type derived from it that adds its typed numbers
// (PlanCheckFinding's expected and actual values, a descriptor Diagnostic's value, ...), and every
// one prints as the same line:
//
//   error [<rule_id>] <what>; fix: <fix>      ("note [...]" for a note; no "; fix: ..." without a fix)
//
// `what` is the whole statement and names the place itself, as the words need it ("globalStrides[0]
// = 2056: must be a multiple of 16 bytes", "tile mode 0 (M) is contiguous in shared memory but
// ..."); `where` is that place alone, for grouping and matching ("globalStrides[0]", "tile mode 0
// (M)", "CTA 1"; "" for the input as a whole). The CLI's JSON and the Python package give all five
// (rule, where, what, message, fix).
#pragma once

#include <string>
#include <utility>

#include "tmakit/core/diagnostics.hpp"

namespace tmakit {

struct Finding {
  Severity severity = Severity::error;
  std::string rule_id;  // stable: the rule's id in its family's table ("strides.align16", "plan.inner_contiguous")
  std::string where;    // the place it concerns: a parameter, a tile mode, a CTA, an address; "" for the whole input
  std::string what;     // what is wrong, with the numbers, as one statement that names the place
  std::string fix;      // a concrete fix; "" for a note that needs none

  bool is_error() const { return severity == Severity::error; }
  // "error [<rule_id>] <what>; fix: <fix>"; "note [...]" for a note, no "; fix: ..." where fix is "".
  std::string message() const {
    std::string s = severity == Severity::note ? "note [" : "error [";
    s += rule_id;
    s += "] ";
    s += what;
    if (!fix.empty()) s.append("; fix: ").append(fix);
    return s;
  }
};

// A finding of rule r: its id and severity from the family's table; the rule's own text where
// `what` is empty, the table's fix where `fix` is empty.
template <RuleEnum Rule>
Finding make_finding(Rule r, std::string where, std::string what, std::string fix = {}) {
  const RuleInfo<Rule> info = rule_info(r);
  Finding f;
  f.severity = info.severity;
  f.rule_id = info.id;
  f.where = std::move(where);
  f.what = what.empty() ? std::string(info.text) : std::move(what);
  f.fix = fix.empty() ? std::string(info.fix) : std::move(fix);
  return f;
}

// "<where>: <rest>", or rest alone where `where` is empty: the `what` of a finding whose words
// start with its place.
inline std::string what_at(const std::string& where, const std::string& rest) {
  return where.empty() ? rest : where + ": " + rest;
}

}  // namespace tmakit
