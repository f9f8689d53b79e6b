// The words of a tensor map's storage check (tensor_map/storage.hpp).
#include "tmakit/tensor_map/storage.hpp"

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "tmakit/tensor_map/names.hpp"

namespace tmakit {

std::vector<MapStorageFinding> explain_map_storage(const MapStorageCheck& c) {
  std::vector<MapStorageFinding> out;
  const std::string at = "the tensor map at " + hex_text(c.address);
  const auto add = [&out](MapStorageRule rule, std::string what) {
    MapStorageFinding f;
    static_cast<Finding&>(f) = make_finding(rule, rule_info(rule).part, std::move(what));
    f.rule = rule;
    out.push_back(std::move(f));
  };
  if (!c.ok()) {
    add(MapStorageRule::align64, at + " starts " + std::to_string(c.past64) +
                                     " bytes past a 64-byte boundary: a TMA instruction that reads it from memory "
                                     "faults with 'misaligned address' (CUDA 13's cuda.h declares CUtensorMap "
                                     "128-byte aligned)");
  } else if (c.abi_note()) {
    add(MapStorageRule::abi128, at + " is 64- but not 128-byte aligned: the hardware takes it, but CUDA 13 headers "
                                     "declare CUtensorMap alignas(128), and a launcher that checks &map % "
                                     "alignof(CUtensorMap) refuses it (Triton: 'CUtensorMap must be aligned to 128B, "
                                     "but got (&map) mod 128 = 64')");
  }
  return out;
}

}  // namespace tmakit
