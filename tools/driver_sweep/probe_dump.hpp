// Shared by interleave_probe.cu and im2col_probe.cu: prints a shared-memory dump of 32-bit words as
// runs, after " written_words N :" (N = up to the last word that is not the 0xA5A5A5A5 fill):
// "a+n=g" words a..a+n-1 hold global words g..g+n-1 (stored as index + 1), "aZn" n zero words,
// "a?n" n untouched words. tests/test_data.hpp parse_word_runs() reads it back.
#pragma once

#include <cstdint>
#include <cstdio>
#include <vector>

inline void print_word_runs(const std::vector<std::uint32_t>& dump) {
  constexpr std::uint32_t kFill = 0xA5A5A5A5u;
  int last = static_cast<int>(dump.size()) - 1;
  while (last >= 0 && dump[last] == kFill) --last;
  std::printf(" written_words %d :", last + 1);
  for (int i = 0; i <= last;) {
    int j = i + 1;
    if (dump[i] == kFill) {
      while (j <= last && dump[j] == kFill) ++j;
      std::printf(" %d?%d", i, j - i);
    } else if (dump[i] == 0) {
      while (j <= last && dump[j] == 0) ++j;
      std::printf(" %dZ%d", i, j - i);
    } else {
      while (j <= last && dump[j] == dump[j - 1] + 1) ++j;
      std::printf(" %d+%d=%u", i, j - i, dump[i] - 1);
    }
    i = j;
  }
  std::printf("\n");
  std::fflush(stdout);
}
