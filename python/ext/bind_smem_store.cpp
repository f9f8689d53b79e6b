// smem_store(): `tmakit smem-store` from Python. The report is the library's (plan_json,
// describe_plan, plan_svg); a refusal raises tmakit.Refused with the rule, refusal_message() and
// refusal_fix().
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <nlohmann/json.hpp>
#include <string>

#include "bindings.hpp"
#include "py_common.hpp"
#include "tmakit/host/usage_rules.hpp"
#include "tmakit/smem_store/explain.hpp"
#include "tmakit/smem_store/plan.hpp"
#include "tmakit/smem_store/spec.hpp"

namespace tmakit::py {

void bind_smem_store(nb::module_& m) {
  m.def(
      "smem_store",
      [](const std::string& src, const std::string& dst, std::uint64_t base, bool elements, bool stmatrix) {
        const ParsedSource ps = parse_store_source(src);
        if (!ps.ok) usage_error("src: " + ps.error);
        const StoreSource& s = ps.value.source;
        const ParsedDestination pd = parse_store_destination(dst, s.rows(), s.cols(), ps.value.elem_bytes, base, elements);
        if (!pd.ok) usage_error("dst: " + pd.error);
        if (!pd.elements_no_effect.empty())  // `tmakit smem-store --elements`'s usage.conflict
          refuse({{rule_id(UsageRule::conflict), "elements", "", "error [usage.conflict] elements=True changes nothing: " +
                   pd.elements_no_effect, "leave elements out", "elements=True changes nothing: " + pd.elements_no_effect}});
        const StoreDestination& d = pd.value;
        SmemStoreOptions opts;
        opts.allow_stmatrix = stmatrix;
        const SmemStorePlan p = plan_smem_store(s, d, opts);
        if (!p.ok) refuse({{rule_id(p.refusal.rule), "", "", refusal_message(p, s, d), refusal_fix(p, s, d), ""}});
        nb::dict out = nb::borrow<nb::dict>(to_python(plan_json(p, s, d, src)));
        out["text"] = describe_plan(p, s, d, src);
        out["svg"] = plan_svg(p, s, d);
        return out;
      },
      nb::arg("src"), nb::arg("dst"), nb::arg("base") = 0, nb::arg("elements") = false, nb::arg("stmatrix") = true,
      "`tmakit smem-store --json`'s object plus 'text' and 'svg'; raises tmakit.Refused when no store fits");
}

}  // namespace tmakit::py
