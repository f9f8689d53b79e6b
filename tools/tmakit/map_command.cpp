// The command line of a tensor map's parameters (map_command.hpp).
#include "map_command.hpp"

#include <cstdio>

#include "tmakit/tensor_map/names.hpp"

namespace tmakit::cli {
namespace {

template <class T>
std::string list(const T* v, std::uint32_t n) {
  std::string s;
  for (std::uint32_t i = 0; i < n; ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s;
}

std::string hex(std::uint64_t x) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(x));
  return b;
}

const char* kind_word(MapKind k) {
  return k == MapKind::im2col ? "im2col" : k == MapKind::im2col_wide ? "im2col-wide" : "tiled";
}

// --box for tiled maps; the corners, channels and pixels (and mode) for the im2col kinds.
std::string kind_options(const TensorMapParams& p, std::uint32_t r) {
  if (p.kind == MapKind::tiled) return " --box " + list(p.box, r);
  const std::uint32_t corners = p.kind == MapKind::im2col_wide ? 1 : (r > 2 ? r - 2 : 0);
  std::string s = " --lower " + list(p.lower, corners) + " --upper " + list(p.upper, corners) +
                  " --channels " + std::to_string(p.channels) + " --pixels " + std::to_string(p.pixels);
  if (p.kind == MapKind::im2col_wide) s += " --mode " + to_name(p.wide_mode);
  return s;
}

}  // namespace

std::string map_command(const TensorMapParams& p, const std::string& verb) {
  const std::uint32_t r = p.rank <= kMaxRank ? p.rank : kMaxRank;
  std::string s = "tmakit " + verb + " " + kind_word(p.kind) + " --dtype " + short_dtype_name(p.dtype) +
                  " --dims " + list(p.dims, r);
  if (r > 1) s += " --strides " + list(p.strides, r - 1);
  s += kind_options(p, r);
  bool unit_strides = true;
  for (std::uint32_t i = 0; i < r; ++i) unit_strides = unit_strides && p.elem_strides[i] == 1;
  if (!unit_strides) s += " --elem-strides " + list(p.elem_strides, r);
  if (p.interleave != Interleave::none) s += " --interleave " + to_name(p.interleave);
  if (p.swizzle != Swizzle::none) s += " --swizzle " + to_name(p.swizzle);
  if (p.l2 != L2Promotion::none) s += " --l2 " + to_name(p.l2);
  if (p.oob != OobFill::none) s += " --oob " + to_name(p.oob);
  if (p.address != 0) s += " --address " + hex(p.address);
  if (p.arch != Arch::sm_90) s += " --arch " + to_name(p.arch);
  return s;
}

}  // namespace tmakit::cli
