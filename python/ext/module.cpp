// tmakit._tmakit: the host library from Python. The package tmakit (python/tmakit) wraps it.
#include "bindings.hpp"

#ifndef TMAKIT_VERSION
#define TMAKIT_VERSION "unknown"
#endif

NB_MODULE(_tmakit, m) {
  m.doc() = "tmakit's host library: the tensor-map codec, the TMA planner, layouts, store and cluster plans";
  m.attr("__version__") = TMAKIT_VERSION;
  tmakit::py::bind_tensor_map(m);
  tmakit::py::bind_plan(m);
  tmakit::py::bind_layout(m);
  tmakit::py::bind_smem_store(m);
  tmakit::py::bind_cluster(m);
  tmakit::py::bind_capabilities(m);
  tmakit::py::bind_gather4(m);
}
