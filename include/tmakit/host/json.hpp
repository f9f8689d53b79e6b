// JSON text of the host library and the CLI (host only; nlohmann_json is a public dependency of
// tmakit::host). Every JSON object tmakit prints is built as an nlohmann object and written by
// json_text.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace tmakit {

// j.dump() on one line, except that a string that is not valid UTF-8 (a command-line argument or
// an input line echoed back can be any bytes) has each bad sequence replaced by U+FFFD: plain
// dump() throws on it (`tmakit layout size $'\xff(' --json`, found by fuzz/fuzz_cli.cpp).
// Json: nlohmann::json or nlohmann::ordered_json (keys stay in their order).
template <class Json>
std::string json_text(const Json& j) {
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// The same text appended to `out` (no string of its own: for writers of many lines).
template <class Json>
void append_json_text(const Json& j, std::string& out) {
  nlohmann::detail::serializer<Json> s(nlohmann::detail::output_adapter<char, std::string>(out), ' ',
                                       Json::error_handler_t::replace);
  s.dump(j, false, false, 0);
}

}  // namespace tmakit
