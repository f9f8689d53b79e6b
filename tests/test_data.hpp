// Reading the recorded hardware and driver data under tests/data (gzip-compressed text).
#pragma once

#include <zlib.h>

#include <string>
#include <vector>

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

}  // namespace tmakit_test
