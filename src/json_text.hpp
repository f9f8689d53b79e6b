// JSON text on one line, for output that can echo what the user typed.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace tmakit {

// j.dump(), except that a string that is not valid UTF-8 (a command-line argument echoed back can
// be any bytes) has each bad byte replaced by U+FFFD: plain dump() throws, and `tmakit layout size
// $'\xff(' --json` died of the uncaught exception (found by fuzz_cli; tests/test_layout_cli.cpp,
// LayoutCli.JsonEchoesArgumentsThatAreNotUtf8).
// Json: nlohmann::json or nlohmann::ordered_json (keys stay in their order).
template <class Json>
std::string json_text(const Json& j) {
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace tmakit
