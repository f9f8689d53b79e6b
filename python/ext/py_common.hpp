// What the binding files share: JSON <-> Python objects (the library's JSON outputs become dicts
// and lists; keyword arguments become the JSON the library parses), the 128 bytes <-> Python
// bytes, and the two ways a call fails: tmakit.Refused (the library refused: every violation with
// rule, field, value, message and fix, as the CLI prints them) and ValueError (bad usage: notation
// that does not parse, an unknown name: the CLI's exit status 2).
#pragma once

#include <nanobind/nanobind.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tmakit/core/finding.hpp"
#include "tmakit/tensor_map/bytes.hpp"

namespace tmakit::py {

namespace nb = nanobind;

// One violation as tmakit.Violation takes it: a finding's rule id, where (as `field`), message, fix
// and what, with the offending value where its family keeps one.
struct PyViolation {
  std::string rule, field, value, message, fix, what;
};

// A finding's common part (core/finding.hpp), the one way every call hands one to Python.
PyViolation violation_of(const Finding& f, std::string value = {});
// A violation as the dict tmakit.Violation(**d) takes: "rule", "field", "value", "message", "fix",
// "what".
nb::dict violation_dict(const PyViolation& v);
// Raises tmakit.Refused(violations) (defined in tmakit/_errors.py).
[[noreturn]] void refuse(const std::vector<PyViolation>& violations);
// Raises ValueError(message).
[[noreturn]] void usage_error(const std::string& message);

// A JSON value as Python objects: objects -> dict, arrays -> list, numbers -> int/float, ...
nb::object to_python(const nlohmann::json& j);
nb::object to_python(const nlohmann::ordered_json& j);
// Python objects as JSON: dict (str keys), list/tuple, int (and anything with __index__), str.
// Anything else raises TypeError naming `what`: None (never read as "missing"), bool, float (NaN and
// infinities included), a nesting deeper than 8 levels (a list that holds itself); an int beyond
// 64 bits raises tmakit.Refused (input.range).
nlohmann::json from_python(nb::handle h, const std::string& what);

// The 128 bytes of a descriptor from a bytes-like object of exactly 128 bytes (ValueError otherwise).
TensorMapBytes map_from_buffer(nb::handle h, const char* what);
nb::bytes map_to_bytes(const TensorMapBytes& m);

}  // namespace tmakit::py
