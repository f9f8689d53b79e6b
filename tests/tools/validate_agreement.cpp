// validate_agreement: replays driver decisions (JSON lines written by tools/driver_sweep) through
// tmakit::validate() and reports how often they agree, with the first disagreements by category.
//
//   validate_agreement [--arch sm_90] [--examples N] [--quiet] [--rules] FILE.jsonl...
//
// Each input line holds the parameters (kind, dtype, rank, address, dims, strides, box,
// elem_strides, interleave, swizzle, l2, oob; im2col: lower, upper, channels, pixels; im2col_wide:
// mode) plus "result", the CUresult the driver returned (0 = accepted). Arrays may be longer than
// rank; entries past tmakit's 5 are ignored (rank 6 is refused anyway). A self-contained parser on
// purpose: it must not share code with the JSON-lines front end it helps to check.
//
// --rules adds, per rule id, the lines validate reports it on and the refused lines on which it is
// the only violation (the evidence that the driver enforces it).
// Output: per file the number of lines, the driver's result codes, the agreement, and for each
// disagreement category ("driver refused, validate accepts" / "driver accepted, validate refuses:
// <rule ids>") its count and first examples. Exit status 0 when every line agrees, 1 otherwise,
// 2 on a usage or I/O error.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tmakit/tensor_map/params.hpp"
#include "tmakit/tensor_map/rules.hpp"
#include "tmakit/tensor_map/validate.hpp"

using nlohmann::json;
using namespace tmakit;

namespace {

template <class T, std::size_t N>
void read_array(const json& j, const char* key, T (&out)[N]) {
  if (!j.contains(key)) return;
  const json& a = j[key];
  if (!a.is_array()) {
    out[0] = a.get<T>();
    return;
  }
  std::size_t i = 0;
  for (; i < a.size() && i < N; ++i) out[i] = a[i].get<T>();
  for (; i < N; ++i) out[i] = T{};  // driver_sweep zero-fills short arrays
}

TensorMapParams to_params(const json& j, Arch arch) {
  TensorMapParams p;
  p.arch = arch;
  const std::string kind = j.value("kind", "tiled");
  p.kind = kind == "tiled" ? MapKind::tiled : kind == "im2col" ? MapKind::im2col
         : kind == "im2col_wide" ? MapKind::im2col_wide : MapKind(99);
  p.dtype = DataType(j.value("dtype", 0u));
  p.rank = j.value("rank", 0u);
  p.address = j.value("address", std::uint64_t{0});
  read_array(j, "dims", p.dims);
  read_array(j, "strides", p.strides);
  read_array(j, "box", p.box);
  read_array(j, "elem_strides", p.elem_strides);
  p.interleave = Interleave(j.value("interleave", 0u));
  p.swizzle = Swizzle(j.value("swizzle", 0u));
  p.l2 = L2Promotion(j.value("l2", 0u));
  p.oob = OobFill(j.value("oob", 0u));
  read_array(j, "lower", p.lower);
  read_array(j, "upper", p.upper);
  p.channels = j.value("channels", 0u);
  p.pixels = j.value("pixels", 0u);
  p.wide_mode = Im2colWideMode(j.value("mode", 0u));
  return p;
}

struct Category {
  std::size_t count = 0;
  std::vector<std::string> examples;
};

}  // namespace

int main(int argc, char** argv) {
  Arch arch = Arch::sm_90;
  std::size_t max_examples = 3;
  bool quiet = false;
  bool show_rules = false;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--arch" && i + 1 < argc) {
      const std::string s = argv[++i];
      arch = s == "sm_100" ? Arch::sm_100 : s == "sm_120" ? Arch::sm_120 : Arch::sm_90;
    } else if (a == "--examples" && i + 1 < argc) {
      max_examples = std::stoul(argv[++i]);
    } else if (a == "--quiet") {
      quiet = true;
    } else if (a == "--rules") {
      show_rules = true;
    } else if (!a.empty() && a[0] == '-') {
      std::cerr << "usage: validate_agreement [--arch sm_90|sm_100|sm_120] [--examples N] [--quiet] [--rules] FILE.jsonl...\n";
      return 2;
    } else {
      files.push_back(a);
    }
  }
  if (files.empty()) {
    std::cerr << "usage: validate_agreement [--arch sm_90|sm_100|sm_120] [--examples N] [--quiet] [--rules] FILE.jsonl...\n";
    return 2;
  }
  bool all_agree = true;
  std::size_t total = 0, total_agree = 0;
  for (const std::string& path : files) {
    std::ifstream in(path);
    if (!in) {
      std::cerr << "validate_agreement: cannot open " << path << "\n";
      return 2;
    }
    std::map<int, std::size_t> results;           // driver CUresult -> count
    // rule id -> {lines where validate reports it, refused lines where it is the only violation}
    std::map<std::string, std::pair<std::size_t, std::size_t>> rule_hits;
    std::map<std::string, Category> disagreements;
    std::size_t lines = 0, agree = 0, accepted = 0;
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty()) continue;
      json j;
      try {
        j = json::parse(line);
      } catch (const std::exception& e) {
        std::cerr << path << ":" << lines + 1 << ": bad JSON: " << e.what() << "\n";
        return 2;
      }
      ++lines;
      const int result = j.value("result", -1);
      ++results[result];
      const Violations v = validate(to_params(j, arch));
      const bool ours = v.empty();
      const bool theirs = result == 0;
      accepted += theirs;
      for (const auto& item : v) ++rule_hits[rule_id(item.rule)].first;
      if (v.count == 1 && !theirs) ++rule_hits[rule_id(v.items[0].rule)].second;
      if (ours == theirs) {
        ++agree;
        continue;
      }
      std::string key;
      if (ours) {
        key = "driver refused (" + std::to_string(result) + "), validate accepts [" + j.value("kind", "?") + "]";
      } else {
        key = "driver accepted, validate refuses [" + j.value("kind", "?") + "]:";
        for (const auto& item : v) key += std::string(" ") + rule_id(item.rule);
      }
      Category& c = disagreements[key];
      ++c.count;
      if (c.examples.size() < max_examples) {
        json e = j;
        e.erase("bytes");
        e.erase("unwritten");
        c.examples.push_back(e.dump());
      }
    }
    total += lines;
    total_agree += agree;
    all_agree = all_agree && agree == lines;
    std::printf("%s: %zu lines, driver accepted %zu; results:", path.c_str(), lines, accepted);
    for (const auto& [code, n] : results) std::printf(" %d:%zu", code, n);
    std::printf("; agreement %zu/%zu (%.4f%%)\n", agree, lines, lines ? 100.0 * double(agree) / double(lines) : 100.0);
    if (show_rules) {
      for (const auto& [id, n] : rule_hits)
        std::printf("  rule %-38s reported on %7zu lines, sole violation of %6zu refused lines\n", id.c_str(), n.first,
                    n.second);
    }
    if (!quiet) {
      std::vector<std::pair<std::size_t, std::string>> sorted;
      for (const auto& [k, c] : disagreements) sorted.emplace_back(c.count, k);
      std::sort(sorted.rbegin(), sorted.rend());
      for (const auto& [n, k] : sorted) {
        std::printf("  %zu x %s\n", n, k.c_str());
        for (const std::string& e : disagreements[k].examples) std::printf("      %s\n", e.c_str());
      }
    }
  }
  if (files.size() > 1)
    std::printf("total: agreement %zu/%zu (%.4f%%)\n", total_agree, total, total ? 100.0 * double(total_agree) / double(total) : 100.0);
  return all_agree ? 0 : 1;
}
