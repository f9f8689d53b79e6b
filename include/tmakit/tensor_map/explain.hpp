// explain(): the violations validate() found, in words, each with a concrete fix computed from the
// actual values (host only; link tmakit::host).
//
//   for (const Diagnostic& d : explain(p, validate(p))) std::cerr << d.message() << '\n';
//   error [strides.align16] globalStrides[0] = 2056: must be a multiple of 16 bytes; fix: pad the row
//   pitch to 2064 bytes
#pragma once

#include <string>
#include <vector>

#include "tmakit/core/finding.hpp"
#include "tmakit/tensor_map/params.hpp"
#include "tmakit/tensor_map/rules.hpp"

namespace tmakit {

// One violation in the library's one shape (core/finding.hpp) with its two words kept apart:
//   where  the cuda.h parameter name with index: "globalStrides[0]", "tensorRank"
//   what   "<where> = <value>: <rule>"
//   fix    a concrete fix computed from the values: "pad the row pitch to 2064 bytes"
// message(): "error [<rule_id>] <where> = <value>: <rule>; fix: <fix>".
struct Diagnostic : Finding {
  std::string value;  // the offending value as text: "2056", "0x7f0000000008", "BFLOAT16", "{64, 32, 58}"
  std::string rule;   // the rule in words: "must be a multiple of 16 bytes"
};

// A Diagnostic from its words: `what` is "<field> = <value>: <rule>" (no " = <value>" without a
// value, no "<field>" without a field). An error.
Diagnostic make_diagnostic(std::string rule_id, std::string field, std::string value, std::string rule, std::string fix);

// One Diagnostic per violation, in the order validate() reported them. When the violation list was
// truncated, a last Diagnostic with rule_id "violations.truncated" says so.
std::vector<Diagnostic> explain(const TensorMapParams& p, const Violations& v);

}  // namespace tmakit
