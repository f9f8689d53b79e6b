// capabilities(target=None): core/capabilities.hpp's table as Python values, the same fields as
// `tmakit arch --json` ("value": True / False / a number / None for unconfirmed).
#include <string>

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include "bindings.hpp"
#include "py_common.hpp"
#include "tmakit/core/capabilities.hpp"

namespace nb = nanobind;

namespace tmakit::py {
namespace {

nb::object value_of(const Capability& c, const CapabilityCell& x) {
  if (x.value == kUnconfirmed) return nb::none();
  if (c.numeric) return nb::int_(x.value);
  return nb::bool_(x.value == kYes);
}

nb::object text_or_none(const char* s) { return s ? nb::object(nb::str(s)) : nb::object(nb::none()); }

nb::dict capabilities(const nb::object& target) {
  const TargetInfo* only = nullptr;
  if (!target.is_none()) {
    Target t{};
    const std::string name = nb::cast<std::string>(nb::str(target));
    if (!parse_target(name, t))
      usage_error("target '" + name + "': not a target the table holds (sm_90a, sm_100a, sm_103a, sm_120a)");
    only = &target_info(t);
  }
  nb::list targets, caps;
  for (const TargetInfo& t : kTargets) {
    if (only && only != &t) continue;
    nb::dict d;
    d["name"] = t.name;
    d["products"] = t.products;
    d["compute_capability"] = t.capability;
    d["run_on_hardware"] = t.run_on_hardware;
    targets.append(d);
  }
  for (const Capability& c : kCapabilities) {
    nb::dict cells;
    for (const TargetInfo& t : kTargets) {
      if (only && only != &t) continue;
      const CapabilityCell& x = cell(c, t.target);
      nb::dict d;
      d["value"] = value_of(c, x);
      d["limit"] = text_or_none(x.limit);
      d["verified_on_hardware"] = x.verified_on_hardware;
      cells[t.name] = d;
    }
    nb::dict d;
    d["id"] = c.id;
    d["what"] = c.what;
    d["source"] = c.source;
    d["evidence"] = text_or_none(c.evidence);
    d["cells"] = cells;
    caps.append(d);
  }
  nb::dict r;
  r["targets"] = targets;
  r["capabilities"] = caps;
  return r;
}

}  // namespace

void bind_capabilities(nb::module_& m) {
  m.def("capabilities", &capabilities, nb::arg("target") = nb::none(),
        "What each target (sm_90a, sm_100a, sm_103a, sm_120a) can do for data movement, each capability with "
        "its source: {'targets': [...], 'capabilities': [{'id', 'what', 'source', 'evidence', 'cells': "
        "{target: {'value', 'limit', 'verified_on_hardware'}}}]}; the same as `tmakit arch --json`.");
}

}  // namespace tmakit::py
