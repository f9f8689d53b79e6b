// libFuzzer target: one JSON line -> tmakit::jsonl::process_line, and the whole input as a stream
// -> process_stream (see docs/fuzzing.md).
//
// Input: the line (cut at the first newline, as process_stream's getline would; the newline is
// not passed on). Checks:
//   - process_line appends exactly one line: a non-empty text ending in '\n' with no other '\n';
//   - that line is a JSON object nlohmann parses (strict UTF-8), with "result" 0 or 1 equal to
//     process_line's return value, "bytes" a string and "errors" an array;
//   - result 0: "bytes" is 256 lowercase hex characters and "errors" is empty;
//     result 1: "bytes" is empty and "errors" is non-empty, each error an object with string
//     "rule", "field", "value" and "message" (rule non-empty);
//   - process_stream over the whole input (every line; it encodes through encode_many) writes
//     exactly what process_line writes for each non-blank line, in order.
#include <nlohmann/json.hpp>

#include <sstream>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "tmakit/tensor_map/jsonl.hpp"

namespace {
void check(bool ok) {
  if (!ok) __builtin_trap();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view line(reinterpret_cast<const char*>(data), size);
  if (const auto nl = line.find('\n'); nl != std::string_view::npos) line = line.substr(0, nl);

  std::string out = "prefix\n";  // process_line appends; what was there must stay
  const bool accepted = tmakit::jsonl::process_line(line, out);
  check(out.compare(0, 7, "prefix\n") == 0);
  const std::string_view produced = std::string_view(out).substr(7);
  check(!produced.empty() && produced.back() == '\n');
  check(produced.find('\n') == produced.size() - 1);

  const auto j = nlohmann::json::parse(produced, nullptr, /*allow_exceptions=*/false);
  check(j.is_object());
  check(j.contains("result") && j["result"].is_number_unsigned());
  const auto result = j["result"].get<std::uint64_t>();
  check(result == 0 || result == 1);
  check((result == 0) == accepted);
  check(j.contains("bytes") && j["bytes"].is_string());
  check(j.contains("errors") && j["errors"].is_array());
  const auto& bytes = j["bytes"].get_ref<const std::string&>();
  if (result == 0) {
    check(bytes.size() == 256);
    for (char c : bytes) check((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'));
    check(j["errors"].empty());
  } else {
    check(bytes.empty());
    check(!j["errors"].empty());
    for (const auto& e : j["errors"]) {
      check(e.is_object());
      for (const char* k : {"rule", "field", "value", "message"}) check(e.contains(k) && e[k].is_string());
      check(!e["rule"].get_ref<const std::string&>().empty());
    }
  }

  const std::string whole(reinterpret_cast<const char*>(data), size);
  std::istringstream lines(whole), stream_in(whole);
  std::string expected, one;
  while (std::getline(lines, one))
    if (one.find_first_not_of(" \t\r\n") != std::string::npos) tmakit::jsonl::process_line(one, expected);
  std::ostringstream streamed;
  tmakit::jsonl::process_stream(stream_in, streamed);
  check(streamed.str() == expected);
  return 0;
}
