// check_gather(descriptor, op, arch, dst, armed_bytes, copies): a descriptor for Blackwell's TMA row
// gather / scatter on a target (check_gather4, tensor_map/gather4.hpp), as `tmakit check-gather`:
// its JSON object as a dict, raising tmakit.Refused with every finding (gather4.* / scatter4.* and
// the tile mode's ids) when one is an error, ValueError for an op, dst or target it does not know.
#include <optional>
#include <string>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include "bindings.hpp"
#include "py_common.hpp"
#include "tmakit/tensor_map/decode.hpp"
#include "tmakit/tensor_map/gather4_explain.hpp"

namespace nb = nanobind;

namespace tmakit::py {
namespace {

nb::object check_gather(nb::handle descriptor, const std::string& op, const std::string& arch,
                        const std::optional<std::string>& dst, std::optional<std::uint64_t> armed_bytes,
                        std::optional<std::uint32_t> copies) {
  Gather4Request r;
  std::string why;
  if (dst && dst->empty()) usage_error("dst: empty: give 'cta', 'cluster' or 'multicast'");
  if (!parse_gather4_form(op, dst.value_or(""), r.form, why)) usage_error((dst ? "op / dst: " : "op: ") + why);
  if (!parse_target(arch, r.target))
    usage_error("arch '" + arch + "': not a target the capability table holds (sm_90a, sm_100a, sm_103a, sm_120a)");
  if (armed_bytes) {
    r.armed = true;
    r.armed_bytes = *armed_bytes;
  }
  if (copies) {
    if (!is_gather(r.form)) usage_error("copies: scatter4 completes on no barrier: there are no copies per phase to count");
    if (*copies == 0) usage_error("copies: 0 copies deliver nothing: give 1 or more");
    r.copies = *copies;
  }
  const TensorMapParams p = decode(map_from_buffer(descriptor, "check_gather")).params;
  const Gather4Check c = check_gather4(p, r);
  const nlohmann::ordered_json j = gather4_json(p, r, c);
  if (!c.ok()) {
    std::vector<PyViolation> v;
    for (const auto& e : j["errors"])
      v.push_back({e["rule"].get<std::string>(), e["field"].get<std::string>(), e["value"].get<std::string>(),
                   e["message"].get<std::string>(), e["fix"].get<std::string>(), e["what"].get<std::string>()});
    refuse(v);
  }
  return to_python(j);
}

}  // namespace

void bind_gather4(nb::module_& m) {
  m.def("check_gather", &check_gather, nb::arg("descriptor"), nb::arg("op"), nb::arg("arch"), nb::arg("dst").none(),
        nb::arg("armed_bytes").none(), nb::arg("copies").none(),
        "A descriptor for Blackwell's TMA row gather (op 'gather4') or scatter ('scatter4') on target `arch`: "
        "`tmakit check-gather --json`'s object (plus 'text'); raises tmakit.Refused with every finding.");
}

}  // namespace tmakit::py
