// libFuzzer target: the whole tmakit CLI in-process (tmakit::cli::run_cli), see docs/fuzzing.md.
//
// Input layout:
//   byte 0, bits 0..2   the words put in front of argv:
//                         0 encode tiled     1 encode im2col     2 encode im2col-wide
//                         3 check tiled      4 check im2col      5 check im2col-wide
//                         6 decode           7 diff
//   byte 0, bit 5       set: no prefix at all (argv[0] is the command: help, version, encode --jsonl, ...;
//                       `capture` only with --from: a capture that would start a command is skipped)
//   byte 0, bits 3..4   what stdin holds: 0 nothing, 1 a valid descriptor (hex), 2 two JSON lines,
//                       3 the last argv word (taken out of argv)
//   bytes 1..           argv words, separated by NUL or newline (empty words kept)
// Every '/' in a word becomes '_', so "@FILE" and "--jsonl FILE" can only name files in the current
// directory (fuzz/run.sh runs the fuzzer in a work directory): no /dev/zero, no /dev/stdin.
//
// Checks: run_cli returns (no exception escapes, no sanitizer report, no hang: run with -timeout),
// its exit status is 0, 1 or 2, and what it wrote is terminal-safe (tools/tmakit/output.hpp):
// well-formed UTF-8 with no C0 control but tab and newline and no C1 control.
#include <cstddef>
#include <algorithm>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "fuzz_words.hpp"

namespace {

// Well-formed UTF-8 (no overlong, surrogate or past-U+10FFFF form), no C0 control but tab and
// newline, no C1 control (U+0080-U+009F).
bool terminal_safe(const std::string& s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    if (b < 0x80) {
      if (b < 0x20 && b != '\n' && b != '\t') return false;
      ++i;
      continue;
    }
    const int n = b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    const auto b1 = static_cast<unsigned char>(s[i + 1]);
    const unsigned char lo = b == 0xe0 ? 0xa0 : b == 0xf0 ? 0x90 : 0x80, hi = b == 0xed ? 0x9f : b == 0xf4 ? 0x8f : 0xbf;
    if (b1 < lo || b1 > hi) return false;
    for (int k = 2; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80) return false;
    if (b == 0xc2 && b1 <= 0x9f) return false;  // C1
    i += n;
  }
  return true;
}

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
  // `capture` starts the command it is given: never from a fuzzer (its report is fuzzed through
  // `capture --from -`, which runs nothing).
  if (!args.empty() && args[0] == "capture" &&
      std::find(args.begin(), args.end(), std::string("--from")) == args.end())
    return 0;

  std::istringstream in(stdin_text);
  std::ostringstream out, err;
  const int rc = tmakit::cli::run_cli(args, in, out, err);
  if (rc != 0 && rc != 1 && rc != 2) __builtin_trap();
  if (!terminal_safe(out.str()) || !terminal_safe(err.str())) __builtin_trap();
  return 0;
}
