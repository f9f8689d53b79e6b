// The convolution an im2col map is meant to gather for, checked against the map's pixel walk (the
// field reports of im2col loads whose output width differs from the input's: docs/field_failures.md).
//
// An im2col load walks pixelsPerColumn window origins (smem_model_im2col.hpp, read off an H100):
// W first by elementStrides[1] from the start coordinate up to the bounding box's high corner
// (globalDim - 1 + pixelBoxUpperCorner), then back to its low corner (pixelBoxLowerCorner) with H
// one step on, and so on; past the last spatial dim the batch steps by elementStrides[rank-1]. A
// convolution with kernel K, stride S, padding P and dilation D in a spatial dim of extent X has
// O = floor((X + 2P - D(K-1) - 1) / S) + 1 outputs there, and output o reads the window whose origin
// is S*o - P. So the walk visits the convolution's window origins in output order, from whichever
// of them a column starts at, exactly when in every spatial dim
//   elementStrides = S (where O > 1), pixelBoxLowerCorner = -P, and
//   floor((X - 1 + upper + P) / elementStrides) + 1 = O,
// i.e. pixelBoxUpperCorner in [P - D(K-1), P - D(K-1) + S - 1], and the batch's elementStrides is
// 1 (tests/test_im2col_conv.cpp walks every start of random convolutions: the rules below report
// exactly when some column parts from them). Otherwise the walk wraps a row early or late or steps
// by another stride: from the first output pixel where it parts from the convolution, every pixel
// of the column is gathered from the wrong window, silently. (Corners of -P alone walk the whole
// input row, W origins, where the output has fewer: the field report.)
//
// Rules (ids stable, append only), per spatial dim (W, H, D; the batch for conv_stride):
//   im2col.conv_stride  elementStrides of the dim != the convolution's stride where it has more than
//                       one output (the batch's != 1)
//   im2col.conv_lower   pixelBoxLowerCorner != -P
//   im2col.conv_extent  the walk's origins per row != the convolution's outputs (the upper corner)
//   im2col.conv_range   the corners or stride the convolution needs do not fit an im2col map of
//                       this rank (corner fields of 16, 8 or 5 bits; elementStrides 1..8): no map
//                       walks it, and the loop over output rows belongs to the kernel
// A map of pixelsPerColumn 1 never steps: no rule applies (each load gathers one window, wherever
// the kernel starts it). The check needs a non-interleaved im2col map of rank 3..5 with spatial
// extents 1..2^32 and a convolution of one kernel / stride / padding / dilation per spatial dim
// that has an output (im2col_conv_usage_error() says what is missing; the CLI's exit 2). The map
// itself need not be valid: validate() reports its own rules beside these.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tmakit/core/config.hpp"
#include "tmakit/core/diagnostics.hpp"
#include "tmakit/core/finding.hpp"
#include "tmakit/tensor_map/params.hpp"

namespace tmakit {

enum class Im2colConvRule : std::uint8_t {
  stride = 0,  // im2col.conv_stride
  lower,       // im2col.conv_lower
  extent,      // im2col.conv_extent
  range,       // im2col.conv_range
};

TMAKIT_HD constexpr RuleTable<Im2colConvRule, 4> rule_table(Im2colConvRule) {
  return {{
      {Im2colConvRule::stride, "im2col.conv_stride", "elementStrides",
       "the walk steps a spatial dim by another stride than the convolution's (or the batch by other than 1)",
       Severity::error, "set elementStrides of each spatial dim to the convolution's stride, and of the batch to 1"},
      {Im2colConvRule::lower, "im2col.conv_lower", "pixelBoxLowerCorner",
       "after a wrap the walk restarts a row at another origin than the convolution's first window (-padding)",
       Severity::error, "set pixelBoxLowerCorner to -padding in each spatial dim"},
      {Im2colConvRule::extent, "im2col.conv_extent", "pixelBoxUpperCorner",
       "the walk visits another number of window origins per row than the convolution has outputs, so it wraps "
       "early or late and every later pixel of the column comes from the wrong window",
       Severity::error, "set pixelBoxUpperCorner to padding - dilation * (kernel - 1) in each spatial dim"},
      {Im2colConvRule::range, "im2col.conv_range", "convolution",
       "the corners or the stride the convolution needs do not fit an im2col map of this rank: no map walks it",
       Severity::error,
       "loop over the output rows in the kernel: one load per row (pixelsPerColumn at most the output width), so "
       "that no column wraps, or gather with tiled loads"},
  }};
}
static_assert(rule_table_well_formed(rule_table(Im2colConvRule{})), "one row per rule in enum order, with unique ids");
static_assert(rule_count<Im2colConvRule> == static_cast<int>(Im2colConvRule::range) + 1, "a row for every enum value");

// The convolution, one entry per spatial dim in the map's order (W, H, D: dims 1..rank-2).
struct Im2colConv {
  std::uint32_t spatial = 0;  // entries given; must be the map's rank - 2
  std::int64_t kernel[3] = {1, 1, 1};
  std::int64_t stride[3] = {1, 1, 1};
  std::int64_t pad[3] = {0, 0, 0};
  std::int64_t dilation[3] = {1, 1, 1};
};

// The largest kernel, stride, padding or dilation the check takes (keeps its arithmetic in range).
inline constexpr std::int64_t kMaxConvValue = std::int64_t{1} << 20;

// What spatial dim i (0 = W) of the convolution needs from the map, and what the map walks.
struct Im2colConvDim {
  std::int64_t extent = 0;           // X: globalDim[i + 1]
  std::int64_t outputs = 0;          // O = floor((X + 2P - D(K-1) - 1) / S) + 1
  std::int64_t lower_needed = 0;     // -P
  std::int64_t upper_needed = 0;     // P - D(K-1) (the smallest upper corner that walks O origins)
  std::int64_t walked = 0;           // origins the map's walk visits per row: floor((hi - lo) / es) + 1, 0 if hi < lo
};

// Precondition: im2col_conv_usage_error(p, c) == "" (strides >= 1, extents in range).
TMAKIT_HD constexpr Im2colConvDim im2col_conv_dim(const TensorMapParams& p, const Im2colConv& c, std::uint32_t i) {
  Im2colConvDim d;
  d.extent = static_cast<std::int64_t>(p.dims[i + 1]);
  const std::int64_t span = c.dilation[i] * (c.kernel[i] - 1);
  d.outputs = (d.extent + 2 * c.pad[i] - span - 1) / c.stride[i] + 1;
  d.lower_needed = -c.pad[i];
  d.upper_needed = c.pad[i] - span;
  const std::int64_t lo = p.lower[i], hi = d.extent - 1 + p.upper[i];
  const std::int64_t es = p.elem_strides[i + 1] ? p.elem_strides[i + 1] : 1;
  d.walked = hi < lo ? 0 : (hi - lo) / es + 1;
  return d;
}

// One refusal: the rule, the spatial dim (0 = W; -1: the batch) and the numbers its words use
// (stride: a = the map's elementStrides, b = the stride needed; lower: a = the map's corner,
// b = -P; extent: a = origins walked per row, b = outputs, c = the upper corner needed; range:
// a = the lower corner needed, b = the upper corner needed, c = the stride).
struct Im2colConvIssue {
  Im2colConvRule rule = Im2colConvRule::stride;
  std::int32_t dim = 0;
  std::int64_t a = 0, b = 0, c = 0;
};

// The convolution from lists, as the CLI's --conv and Python give it: each list holds one value per
// spatial dim (W first) or one value for all of them; an empty list takes the default (stride 1,
// padding 0, dilation 1; the kernel has none). False with `why` naming the list otherwise.
bool make_im2col_conv(std::uint32_t spatial, const std::vector<std::int64_t>& kernel,
                      const std::vector<std::int64_t>& stride, const std::vector<std::int64_t>& pad,
                      const std::vector<std::int64_t>& dilation, Im2colConv& out, std::string& why);

// "" when the map and the convolution can be checked, else what is wrong with them (bad usage).
std::string im2col_conv_usage_error(const TensorMapParams& p, const Im2colConv& c);

// Every refusal of a checkable pair (im2col_conv_usage_error() == ""), dims in order W, H, D, then
// the batch; for a dim whose needs do not fit the map (range), that rule alone.
std::vector<Im2colConvIssue> check_im2col_conv(const TensorMapParams& p, const Im2colConv& c);

// One finding in words (src/tensor_map/im2col_conv.cpp). The first walk finding also tells, from
// the load model's walk (im2col_walk_step), the first output pixel whose window the map gets wrong.
// In the library's one shape (core/finding.hpp): where "W: elementStrides[1]", "batch:
// elementStrides[3]", ...; what "<where>: <effect>"; fix the value(s) to set, or the kernel loop.
// message(): "error [im2col.conv_extent] W: pixelBoxUpperCorner[0]: ...; fix: ...".
struct Im2colConvFinding : Finding {
  Im2colConvRule rule = Im2colConvRule::stride;
  std::string effect;  // what the walk does, with the numbers
};
std::vector<Im2colConvFinding> explain_im2col_conv(const TensorMapParams& p, const Im2colConv& c,
                                                   const std::vector<Im2colConvIssue>& issues);

}  // namespace tmakit
