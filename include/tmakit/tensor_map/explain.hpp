// explain(): the violations validate() found, in words, each with a concrete fix computed from the
// actual values (host only; link tmakit::host).
//
//   for (const Diagnostic& d : explain(p, validate(p))) std::cerr << d.message() << '\n';
//   error [strides.align16] globalStrides[0] = 2056: must be a multiple of 16 bytes; fix: pad the row
//   pitch to 2064 bytes
#pragma once

#include <string>
#include <vector>

#include "tmakit/tensor_map/params.hpp"
#include "tmakit/tensor_map/rules.hpp"

namespace tmakit {

struct Diagnostic {
  std::string rule_id;  // stable id, e.g. "strides.align16" (rule_id(Rule))
  std::string field;    // cuda.h parameter name with index: "globalStrides[0]", "tensorRank"
  std::string value;    // the offending value as text: "2056", "0x7f0000000008", "BFLOAT16", "{64, 32, 58}"
  std::string rule;     // the rule in words: "must be a multiple of 16 bytes"
  std::string fix;      // a concrete fix computed from the values: "pad the row pitch to 2064 bytes"

  // One line: "error [<rule_id>] <field> = <value>: <rule>; fix: <fix>".
  std::string message() const;
};

// One Diagnostic per violation, in the order validate() reported them. When the violation list was
// truncated, a last Diagnostic with rule_id "violations.truncated" says so.
std::vector<Diagnostic> explain(const TensorMapParams& p, const Violations& v);

}  // namespace tmakit
