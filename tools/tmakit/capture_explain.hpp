// One captured configuration explained: the driver's result next to tmakit's verdict on the same
// parameters (validate + explain, as `tmakit check`), the driver's bytes against tmakit's encoding
// (diff, as `tmakit diff`), the notes on the map (tensor_map/notes.hpp) and on where the program had
// it written (tensor_map/storage.hpp, as `tmakit decode --stored-at`), and the 128 bytes to hand to
// `tmakit decode`.
#pragma once

#include <string>
#include <vector>

#include "capture_records.hpp"
#include "tmakit/tensor_map/describe.hpp"
#include "tmakit/tensor_map/jsonl.hpp"
#include "tmakit/tensor_map/notes.hpp"
#include "tmakit/tensor_map/storage.hpp"

namespace tmakit::cli {

// What the driver's result says.
enum class DriverVerdict {
  accepted,  // CUDA_SUCCESS: it encoded the map
  refused,   // CUDA_ERROR_INVALID_VALUE: it judged the parameters and refused them
  failed,    // another error: it did not get as far as the parameters (no context, deinitialized...)
  stub,      // CUDA_ERROR_STUB_LIBRARY: the toolkit's stub answered; no driver judged anything
  absent,    // no libcuda.so.1: the call was recorded and answered 999
};

// Whether the driver's verdict and tmakit's are the same.
enum class Agreement { agree, driver_accepts_tmakit_refuses, driver_refuses_tmakit_accepts, no_driver_verdict };

struct GroupExplanation {
  DriverVerdict driver = DriverVerdict::absent;
  std::string result_name;            // "CUDA_SUCCESS", "CUDA_ERROR_INVALID_VALUE", ... or "CUresult 12"
  bool valid = false;                 // tmakit's validate() accepts the parameters
  std::vector<jsonl::Error> errors;   // tmakit's refusals, as `tmakit check` words them
  Agreement agreement = Agreement::no_driver_verdict;
  TensorMapBytes bytes{};             // the driver's (accepted), else tmakit's encoding (valid), else zeros
  const char* bytes_source = "none";  // "driver", "tmakit" or "none"
  TensorMapBytes encoded{};           // tmakit's encoding of the parameters (valid only)
  bool bytes_compared = false;        // the driver's bytes were compared with tmakit's encoding
  std::vector<FieldDifference> differences;  // tmakit's encoding -> the driver's bytes
  std::vector<MapNote> notes;         // on the accepted map
  std::vector<MapStorageFinding> storage;    // on the least aligned place a map of the group was written
  std::string command;                // `tmakit check ...` with the first record's parameters
};

GroupExplanation explain_group(const CaptureGroup& g);

// "CUDA_ERROR_INVALID_VALUE" for 1, ..., "CUresult 12" for a value not named here.
std::string cuda_result_name(int result);

}  // namespace tmakit::cli
