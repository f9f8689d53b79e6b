// JSON text of the host library and the CLI (host only; nlohmann_json is a public dependency of
// tmakit::host). Every JSON object tmakit prints is built as an nlohmann object and written by
// json_text.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "tmakit/core/finding.hpp"

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

// A finding (core/finding.hpp) as the JSON object every command writes it as: "rule", then the
// family's own keys from `extras` in their order ("field", "value", "expected", "cta", ...), then
// "message", "fix", "where" and "what". A "message" or "fix" given in `extras` takes the common
// one's place (cluster-stage puts the copy's name before the line).
template <class Json = nlohmann::ordered_json>
Json finding_json(const Finding& f, const Json& extras = Json::object()) {
  Json j;
  j["rule"] = f.rule_id;
  for (auto it = extras.begin(); it != extras.end(); ++it) j[it.key()] = it.value();
  if (!j.contains("message")) j["message"] = f.message();
  if (!j.contains("fix")) j["fix"] = f.fix;
  j["where"] = f.where;
  j["what"] = f.what;
  return j;
}

}  // namespace tmakit
