// Text forms of the planner's inputs (host only; src/plan/notation.cpp).
//
//   global tensor: `<dtype> <layout> [align=<bytes>] [addr=<address>]`, e.g.
//                  `bf16 (4096,4096):(4096,1)`, `f16 (64,8,1024,128):(128,8192,65536*,1) align=256`
//                  dtype: any tmakit type name (bf16, f16, f32, u8, ...); layout in CuTe notation with
//                  ELEMENT strides, hierarchical modes flattened; align: known base alignment
//                  (default 16); addr: the base address (default 0 = fill in later).
//   tiler:         one entry per global mode, comma-separated, optionally in parentheses:
//                  `[name=]extent`, extent `_` (or `*`) = the whole mode; e.g. `M=128,K=64`,
//                  `seq=64,h=1,d=_`. Names are used in plans and refusals ("tile mode 0 (M)").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tmakit/plan/global_tensor.hpp"

namespace tmakit {

struct ParsedGlobalTensor {
  GlobalTensor value{};
  bool ok = false;
  std::string error;
};
ParsedGlobalTensor parse_global_tensor(std::string_view text);

struct ParsedTileExtents {
  TileExtents value{};
  std::vector<std::string> names;  // one per entry ("" when unnamed)
  bool ok = false;
  std::string error;
};
ParsedTileExtents parse_tile_extents(std::string_view text);

// "bf16 (4096,4096):(4096,1) align=16" (addr= when nonzero)
std::string to_string(const GlobalTensor& g);

}  // namespace tmakit
