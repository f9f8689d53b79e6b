// capabilities(target=None): `tmakit arch --json`'s object (core/describe_capabilities.hpp) as Python
// values ("value": True / False / a number / None for unconfirmed).
#include <string>

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include "bindings.hpp"
#include "py_common.hpp"
#include "tmakit/core/describe_capabilities.hpp"

namespace nb = nanobind;

namespace tmakit::py {
namespace {

nb::object capabilities(const nb::object& target) {
  if (target.is_none()) return to_python(capabilities_json());
  Target t{};
  const std::string name = nb::cast<std::string>(nb::str(target));
  if (!parse_target(name, t))
    usage_error("target '" + name + "': not a target the table holds (sm_90a, sm_100a, sm_103a, sm_120a)");
  return to_python(capabilities_json(&t));
}

}  // namespace

void bind_capabilities(nb::module_& m) {
  m.def("capabilities", &capabilities, nb::arg("target") = nb::none(),
        "What each target (sm_90a, sm_100a, sm_103a, sm_120a) can do for data movement, each capability with "
        "its source: {'targets': [...], 'capabilities': [{'id', 'what', 'source', 'evidence', 'cells': "
        "{target: {'value', 'limit', 'verified_on_hardware'}}}]}; the same as `tmakit arch --json`.");
}

}  // namespace tmakit::py
