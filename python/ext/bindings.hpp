// The parts of the extension module tmakit._tmakit, one binding file each (module.cpp calls them).
#pragma once

#include <nanobind/nanobind.h>

namespace tmakit::py {

void bind_tensor_map(nanobind::module_& m);  // bind_tensor_map.cpp: encode, validate, decode, diff
void bind_plan(nanobind::module_& m);        // bind_plan.cpp: the TMA planner, check_against_plan
void bind_layout(nanobind::module_& m);      // bind_layout.cpp: Layout and its algebra
void bind_smem_store(nanobind::module_& m);  // bind_smem_store.cpp: register -> shared stores
void bind_cluster(nanobind::module_& m);     // bind_cluster.cpp: multicast and DSMEM plans
void bind_capabilities(nanobind::module_& m);  // bind_capabilities.cpp: what each target can do
void bind_gather4(nanobind::module_& m);       // bind_gather4.cpp: Blackwell's TMA row gather / scatter

}  // namespace tmakit::py
