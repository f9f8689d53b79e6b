// What the fuzz targets share: the argv words of a fuzz input (fuzz_cli, fuzz_layout, fuzz_plan,
// fuzz_smem_store), and the invariant checks' helpers. The words: the bytes after the selector byte, split on
// NUL or newline (empty words kept). With `slash_to_underscore`, every '/' becomes '_', so a word can
// only name a file in the current directory (the fuzzers run in a work directory).
#pragma once

#include <cstddef>
#include <cstdlib>
#include <cstdint>
#include <string>
#include <vector>

inline std::vector<std::string> fuzz_words(const std::uint8_t* data, std::size_t size, bool slash_to_underscore) {
  std::vector<std::string> words;
  if (size <= 1) return words;
  std::string cur;
  for (std::size_t i = 1; i < size; ++i) {
    const char c = static_cast<char>(data[i]);
    if (c == '\0' || c == '\n') {
      words.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(slash_to_underscore && c == '/' ? '_' : c);
    }
  }
  words.push_back(cur);
  return words;
}

// An invariant of the fuzz target: abort (libFuzzer reports the input) when it does not hold.
inline void require(bool ok) {
  if (!ok) std::abort();
}

// Whether any of the words would be an option on the command line (tmakit's parse step refuses it
// as a value).
inline bool option_word(const std::vector<std::string>& w) {
  for (const std::string& x : w)
    if (x.size() > 2 && x[0] == '-' && x[1] == '-') return true;
  return false;
}
