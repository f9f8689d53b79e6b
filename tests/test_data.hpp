// Reading the recorded hardware and driver data under tests/data (gzip-compressed text).
#pragma once

#include <zlib.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tmakit/tensor_map/params.hpp"

#ifndef TMAKIT_TEST_DATA_DIR
#error "TMAKIT_TEST_DATA_DIR must name tests/data"
#endif

namespace tmakit_test {

// The lines of a gzip file (empty when it cannot be opened).
inline std::vector<std::string> read_gz_lines(const std::string& path) {
  std::vector<std::string> lines;
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) return lines;
  std::string cur;
  char buf[1 << 16];
  int n;
  while ((n = gzread(f, buf, sizeof buf)) > 0) {
    for (int i = 0; i < n; ++i) {
      if (buf[i] == '\n') {
        lines.push_back(cur);
        cur.clear();
      } else {
        cur.push_back(buf[i]);
      }
    }
  }
  if (!cur.empty()) lines.push_back(cur);
  gzclose(f);
  return lines;
}

inline std::string data_path(const char* name) { return std::string(TMAKIT_TEST_DATA_DIR) + "/" + name; }

// The probes' shared-memory dumps (tools/driver_sweep/*_probe.cu): runs of 32-bit words written as
// "a+n=g" (words a..a+n-1 hold global words g..g+n-1, stored as value + 1), "aZn" (n zero words) and
// "a?n" (untouched: not returned). Returns shared word index -> stored value (global word + 1, or 0).
inline std::map<std::uint32_t, std::uint32_t> parse_word_runs(const std::string& runs) {
  std::map<std::uint32_t, std::uint32_t> words;
  std::istringstream in(runs);
  std::string tok;
  while (in >> tok) {
    unsigned a = 0, n = 0, g = 0;
    if (std::sscanf(tok.c_str(), "%u+%u=%u", &a, &n, &g) == 3) {
      for (unsigned k = 0; k < n; ++k) words[a + k] = g + k + 1;
    } else if (tok.find('Z') != std::string::npos && std::sscanf(tok.c_str(), "%uZ%u", &a, &n) == 2) {
      for (unsigned k = 0; k < n; ++k) words[a + k] = 0;
    }
  }
  return words;
}

// The probes' global memory: 32-bit word k holds k + 1 (so 0 means fill), `bytes` rounded to words.
inline std::vector<unsigned char> word_index_image(std::uint64_t bytes) {
  std::vector<unsigned char> g(bytes / 4 * 4);
  for (std::size_t w = 0; w < g.size() / 4; ++w) {
    const auto v = static_cast<std::uint32_t>(w + 1);
    std::memcpy(&g[4 * w], &v, 4);
  }
  return g;
}

// A shared-memory image as word index -> value, leaving out words equal to `untouched`.
inline std::map<std::uint32_t, std::uint32_t> image_words(const std::vector<unsigned char>& smem,
                                                          std::uint32_t untouched) {
  std::map<std::uint32_t, std::uint32_t> out;
  for (std::size_t w = 0; w < smem.size() / 4; ++w) {
    std::uint32_t v;
    std::memcpy(&v, &smem[4 * w], 4);
    if (v != untouched) out[static_cast<std::uint32_t>(w)] = v;
  }
  return out;
}

// What the probes pre-fill shared memory with (tools/driver_sweep/probe_common.cuh kFill).
inline constexpr std::uint32_t kProbeFill = 0xA5A5A5A5u;

// One line of a probe recording: "case <args> -> enc <CUresult>[ KERNEL_ERROR ...| written_words N : runs]".
struct ProbeLine {
  std::string args;  // the case's input line
  bool encoded = false;
  bool kernel_error = false;
  std::map<std::uint32_t, std::uint32_t> words;  // parse_word_runs of the dump (encoded, no error)
};
inline bool parse_probe_line(const std::string& line, ProbeLine& out) {
  if (line.rfind("case ", 0) != 0) return false;
  const auto arrow = line.find(" -> enc ");
  if (arrow == std::string::npos) return false;
  out.args = line.substr(5, arrow - 5);
  out.encoded = line.compare(arrow + 8, 2, "0 ") == 0;
  out.kernel_error = line.find("KERNEL_ERROR") != std::string::npos;
  out.words.clear();
  const auto colon = line.find(" : ");
  if (out.encoded && !out.kernel_error && colon != std::string::npos) out.words = parse_word_runs(line.substr(colon + 3));
  return true;
}

// The probes' global memory for map p (word k = k + 1), covering every element of the tensor
// (dim 0 in units of `dim0_unit_bytes`) plus a margin.
inline std::vector<unsigned char> probe_global_image(const tmakit::TensorMapParams& p, std::uint64_t dim0_unit_bytes) {
  std::uint64_t extent = dim0_unit_bytes * p.dims[0];
  for (std::uint32_t i = 1; i < p.rank; ++i) extent += p.strides[i - 1] * (p.dims[i] - 1);
  return word_index_image(extent + 4096);
}

}  // namespace tmakit_test
