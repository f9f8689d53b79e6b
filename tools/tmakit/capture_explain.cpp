// One captured configuration explained (capture_explain.hpp).
#include "capture_explain.hpp"

#include "map_command.hpp"
#include "tmakit/tensor_map/encode.hpp"
#include "tmakit/tensor_map/validate.hpp"

namespace tmakit::cli {
namespace {

DriverVerdict driver_verdict(const CaptureRecord& r) {
  if (!r.driver) return DriverVerdict::absent;
  if (r.result == 0) return DriverVerdict::accepted;
  if (r.result == 1) return DriverVerdict::refused;
  if (r.result == 34) return DriverVerdict::stub;
  return DriverVerdict::failed;
}

Agreement agreement(DriverVerdict d, bool valid) {
  if (d == DriverVerdict::accepted) return valid ? Agreement::agree : Agreement::driver_accepts_tmakit_refuses;
  if (d == DriverVerdict::refused) return valid ? Agreement::driver_refuses_tmakit_accepts : Agreement::agree;
  return Agreement::no_driver_verdict;
}

// The bytes to show: the driver's where it encoded the map (compared with tmakit's encoding of the
// same parameters), else tmakit's encoding where tmakit accepts them.
void choose_bytes(const CaptureGroup& g, GroupExplanation& e) {
  const CaptureRecord& r = g.first;
  if (e.valid) e.encoded = encode(r.params).map;
  if (e.driver == DriverVerdict::accepted) {
    e.bytes = r.bytes;
    e.bytes_source = "driver";
    if (e.valid && r.params_known) {
      e.bytes_compared = true;
      e.differences = diff(e.encoded, r.bytes);
    }
  } else if (e.valid) {
    e.bytes = e.encoded;
    e.bytes_source = "tmakit";
  }
}

}  // namespace

std::string cuda_result_name(int result) {
  struct Name {
    int value;
    const char* name;
  };
  static constexpr Name kNames[] = {
      {0, "CUDA_SUCCESS"},          {1, "CUDA_ERROR_INVALID_VALUE"},   {3, "CUDA_ERROR_NOT_INITIALIZED"},
      {4, "CUDA_ERROR_DEINITIALIZED"}, {34, "CUDA_ERROR_STUB_LIBRARY"}, {100, "CUDA_ERROR_NO_DEVICE"},
      {201, "CUDA_ERROR_INVALID_CONTEXT"}, {500, "CUDA_ERROR_NOT_FOUND"}, {801, "CUDA_ERROR_NOT_SUPPORTED"},
      {999, "CUDA_ERROR_UNKNOWN"},
  };
  for (const Name& n : kNames)
    if (n.value == result) return n.name;
  return "CUresult " + std::to_string(result);
}

GroupExplanation explain_group(const CaptureGroup& g) {
  const CaptureRecord& r = g.first;
  GroupExplanation e;
  e.driver = driver_verdict(r);
  e.result_name = cuda_result_name(r.result);
  if (r.params_known) {
    const Violations v = validate(r.params);
    e.valid = v.empty();
    if (!e.valid) e.errors = jsonl::describe(r.params, v);
    e.agreement = agreement(e.driver, e.valid);
    e.notes = map_notes(r.params);
    e.command = map_command(r.params, "check");
  }
  choose_bytes(g, e);
  e.storage = explain_map_storage(check_map_storage(g.worst_map));
  return e;
}

}  // namespace tmakit::cli
