// Host-side rendering of the capability table (core/capabilities.hpp): the text `tmakit arch` prints
// and the JSON object that `tmakit arch --json` and Python's tmakit.capabilities() give.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "tmakit/core/capabilities.hpp"

namespace tmakit {

// One row per capability, one column per target; '*' marks a cell checked on hardware, '!' one
// with a limit or a note, '?' one no NVIDIA document states.
std::string capabilities_table_text();
// One target's cells, each with its limit, its source and, where it ran, the test that did.
std::string capabilities_target_text(Target t);
// {"targets": [{"name", "products", "compute_capability", "run_on_hardware"}], "capabilities": [{"id",
// "what", "source", "evidence", "cells": {TARGET: {"value", "limit", "verified_on_hardware"}}}]}, "value"
// true / false / a number / null (unconfirmed); `only`: that target's column alone.
nlohmann::ordered_json capabilities_json(const Target* only = nullptr);

}  // namespace tmakit
