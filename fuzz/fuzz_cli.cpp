// libFuzzer target: the whole tmakit CLI in-process (tmakit::cli::run_cli), see docs/fuzzing.md.
//
// Input layout:
//   byte 0, bits 0..2   the words put in front of argv:
//                         0 encode tiled     1 encode im2col     2 encode im2col-wide
//                         3 check tiled      4 check im2col      5 check im2col-wide
//                         6 decode           7 diff
//   byte 0, bit 5       set: no prefix at all (argv[0] is the command: help, version, encode --jsonl, ...)
//   byte 0, bits 3..4   what stdin holds: 0 nothing, 1 a valid descriptor (hex), 2 two JSON lines,
//                       3 the last argv word (taken out of argv)
//   bytes 1..           argv words, separated by NUL or newline (empty words kept)
// Every '/' in a word becomes '_', so "@FILE" and "--jsonl FILE" can only name files in the current
// directory (fuzz/run.sh runs the fuzzer in a work directory): no /dev/zero, no /dev/stdin.
//
// Checks: run_cli returns (no exception escapes, no sanitizer report, no hang: run with -timeout)
// and its exit status is 0, 1 or 2.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "fuzz_words.hpp"

namespace {

const char* const kPrefixes[8][2] = {
    {"encode", "tiled"}, {"encode", "im2col"}, {"encode", "im2col-wide"},
    {"check", "tiled"},  {"check", "im2col"},  {"check", "im2col-wide"},
    {"decode", nullptr}, {"diff", nullptr},
};

// A valid tiled BF16 map, and two JSON lines (one accepted, one refused).
constexpr const char* kDescriptorHex =
    "00000000007f0000106500000002000000000000000000000000000000000000"
    "ff0f0000ff0f00000000000000000000000000000000003f7f00000000000000"
    "0040000000000000000400000000000000000000000000000000000000000000"
    "0000000000000000000000000000000000000000000000000000000000000000";
constexpr const char* kJsonLines =
    "{\"kind\":\"tiled\",\"dtype\":\"BFLOAT16\",\"dims\":[4096,4096],\"strides\":[8192],\"box\":[64,128]}\n"
    "{\"kind\":\"tiled\",\"dtype\":9,\"dims\":[4096,4096],\"strides\":[8190],\"box\":[64,128]}\n";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::uint8_t sel = data[0];
  std::vector<std::string> words = fuzz_words(data, size, true);

  std::string stdin_text;
  switch ((sel >> 3) & 3) {
    case 0: break;
    case 1: stdin_text = kDescriptorHex; break;
    case 2: stdin_text = kJsonLines; break;
    default:
      if (!words.empty()) {
        stdin_text = words.back();
        words.pop_back();
      }
  }

  std::vector<std::string> args;
  if (!(sel & 0x20)) {
    for (const char* w : kPrefixes[sel & 7])
      if (w) args.emplace_back(w);
  }
  args.insert(args.end(), words.begin(), words.end());

  std::istringstream in(stdin_text);
  std::ostringstream out, err;
  const int rc = tmakit::cli::run_cli(args, in, out, err);
  if (rc != 0 && rc != 1 && rc != 2) __builtin_trap();
  return 0;
}
