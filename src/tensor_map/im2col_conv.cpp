// An im2col map's walk against the convolution it gathers for (tensor_map/im2col_conv.hpp).
#include "tmakit/tensor_map/im2col_conv.hpp"

#include <cstdlib>
#include <string>
#include <vector>

#include "tmakit/tensor_map/bit_fields.hpp"
#include "tmakit/tensor_map/smem_model_im2col.hpp"

namespace tmakit {
namespace {

constexpr const char* kDimNames[3] = {"W", "H", "D"};
constexpr const char* kCoordNames[3] = {"w", "h", "d"};

std::string str(std::int64_t v) { return std::to_string(v); }

// "W 16, kernel 3, stride 1, padding 0, dilation 1"
std::string conv_words(const TensorMapParams& p, const Im2colConv& c, std::uint32_t i) {
  return std::string(kDimNames[i]) + " " + std::to_string(p.dims[i + 1]) + ", kernel " + str(c.kernel[i]) + ", stride " +
         str(c.stride[i]) + ", padding " + str(c.pad[i]) + ", dilation " + str(c.dilation[i]);
}

// Where the load model's walk, started at output pixel 0's window, first gathers another window
// than the convolution: the output pixel and both origins (spatial dims, then the batch).
struct Divergence {
  bool found = false;
  std::int64_t pixel = 0;
  std::int64_t out[kMaxRank] = {};     // output coordinates (ow, oh, od, n)
  std::int64_t walk[kMaxRank] = {};    // the walk's window origin (w, h, d, n)
  std::int64_t conv[kMaxRank] = {};    // the convolution's
};

Divergence first_divergence(const TensorMapParams& p, const Im2colConv& c) {
  Divergence d;
  const std::uint32_t nsp = p.rank - 2;
  // Two images' outputs show every way a row or an image boundary can go wrong; at most 2^20 steps.
  constexpr std::int64_t kMaxSteps = std::int64_t{1} << 20;
  std::int64_t outputs[3] = {1, 1, 1}, limit = 2;
  for (std::uint32_t i = 0; i < nsp; ++i) {
    outputs[i] = im2col_conv_dim(p, c, i).outputs;
    limit = outputs[i] > kMaxSteps / limit ? kMaxSteps : limit * outputs[i];
  }
  std::int64_t pos[kMaxRank] = {};
  for (std::uint32_t i = 0; i < nsp; ++i) pos[i + 1] = -c.pad[i];
  for (std::int64_t k = 0; k < limit; ++k) {
    std::int64_t rest = k;
    bool same = true;
    for (std::uint32_t i = 0; i < nsp; ++i) {
      d.out[i] = rest % outputs[i];
      rest /= outputs[i];
      d.conv[i] = c.stride[i] * d.out[i] - c.pad[i];
      d.walk[i] = pos[i + 1];
      same = same && d.walk[i] == d.conv[i];
    }
    d.out[nsp] = d.conv[nsp] = rest;
    d.walk[nsp] = pos[p.rank - 1];
    if (!same || d.walk[nsp] != d.conv[nsp]) {
      d.found = true;
      d.pixel = k;
      return d;
    }
    im2col_walk_step(p, pos);
  }
  return d;
}

// "w 14, h 0, n 0"
std::string origin_words(const std::int64_t* v, std::uint32_t nsp) {
  std::string s;
  for (std::uint32_t i = 0; i < nsp; ++i) s += std::string(kCoordNames[i]) + " " + str(v[i]) + ", ";
  return s + "n " + str(v[nsp]);
}

std::string divergence_words(const TensorMapParams& p, const Im2colConv& c) {
  const Divergence d = first_divergence(p, c);
  if (!d.found) return "";
  const std::uint32_t nsp = p.rank - 2;
  std::string out;
  for (std::uint32_t i = 0; i < nsp; ++i) out += std::string("o") + kCoordNames[i] + " " + str(d.out[i]) + ", ";
  out += "n " + str(d.out[nsp]);
  return "; the load model's walk (smem_model_im2col.hpp), started at output pixel 0, gathers output pixel " +
         str(d.pixel) + " (" + out + ") from the window at " + origin_words(d.walk, nsp) +
         " where the convolution's is at " + origin_words(d.conv, nsp) + ", and every later pixel of that column "
         "from a wrong window too";
}

Im2colConvFinding finding(Im2colConvRule rule, std::string field, std::string effect, std::string fix) {
  Im2colConvFinding f;
  f.rule = rule;
  f.rule_id = rule_id(rule);
  f.where = std::move(field);
  f.effect = std::move(effect);
  f.fix = std::move(fix);
  f.what = what_at(f.where, f.effect);
  return f;
}

Im2colConvFinding range_finding(const TensorMapParams& p, const Im2colConv& c, const Im2colConvIssue& x) {
  const auto i = static_cast<std::uint32_t>(x.dim);
  const std::int32_t lim = tmap_fields::corner_limit(p.rank);
  std::string effect = "the convolution (" + conv_words(p, c, i) + ") needs pixelBoxLowerCorner[" + str(i) + "] = " +
                       str(x.a) + ", pixelBoxUpperCorner[" + str(i) + "] = " + str(x.b) + " and elementStrides[" +
                       str(i + 1) + "] = " + str(x.c) + "; a rank-" + std::to_string(p.rank) + " map holds corners " +
                       str(-lim) + ".." + str(lim - 1) + " and elementStrides 1..8: no im2col map walks its " +
                       std::to_string(im2col_conv_dim(p, c, i).outputs) + " outputs per row";
  std::string fix =
      x.c > 8 ? "a stride above 8 is no traversal stride: issue one load per output pixel (pixelsPerColumn 1) at its "
                "window origin, or gather with tiled loads"
              : "loop over the output rows in the kernel: one load per row of at most " +
                    std::to_string(im2col_conv_dim(p, c, i).outputs) +
                    " pixels (pixelsPerColumn <= the output width), so that no column wraps; where the padding lies "
                    "outside the corners a map holds, gather with tiled loads instead (their out-of-bounds fill "
                    "supplies the padding)";
  return finding(Im2colConvRule::range, std::string(kDimNames[i]) + ": convolution", std::move(effect), std::move(fix));
}

Im2colConvFinding walk_finding(const TensorMapParams& p, const Im2colConv& c, const Im2colConvIssue& x) {
  if (x.rule == Im2colConvRule::stride && x.dim < 0)
    return finding(x.rule, "batch: elementStrides[" + std::to_string(p.rank - 1) + "]",
                   "the walk steps the batch by " + str(x.a) +
                       " after an image's last window: its columns skip images the convolution's output runs through",
                   "elementStrides[" + std::to_string(p.rank - 1) + "] = 1");
  const auto i = static_cast<std::uint32_t>(x.dim);
  const std::string dim = kDimNames[i], coord = kCoordNames[i];
  const Im2colConvDim d = im2col_conv_dim(p, c, i);
  switch (x.rule) {
    case Im2colConvRule::stride:
      return finding(x.rule, dim + ": elementStrides[" + str(i + 1) + "]",
                     "the walk steps " + dim + " by " + str(x.a) + ", the convolution's windows are " + str(x.b) +
                         " apart (" + conv_words(p, c, i) + ")",
                     "elementStrides[" + str(i + 1) + "] = " + str(x.b));
    case Im2colConvRule::lower:
      return finding(x.rule, dim + ": pixelBoxLowerCorner[" + str(i) + "]",
                     "after a wrap the walk restarts " + dim + " at " + coord + " = " + str(x.a) +
                         ", the convolution's first window is at " + coord + " = " + str(x.b) + " (-padding; " +
                         conv_words(p, c, i) + ")",
                     "pixelBoxLowerCorner[" + str(i) + "] = " + str(x.b));
    default: {
      const std::int64_t hi = d.extent - 1 + p.upper[i];
      return finding(x.rule, dim + ": pixelBoxUpperCorner[" + str(i) + "]",
                     "the walk visits " + str(x.a) + " window origins along " + dim + " (" + coord + " = " +
                         str(p.lower[i]) + " .. globalDim[" + str(i + 1) + "] - 1 + pixelBoxUpperCorner[" + str(i) +
                         "] = " + str(hi) + ", step " + str(p.elem_strides[i + 1]) + "), the convolution has " +
                         str(x.b) + " outputs (" + conv_words(p, c, i) + "): the walk wraps " +
                         str(std::llabs(x.a - x.b)) + (x.a > x.b ? " origins late" : " origins early"),
                     "pixelBoxUpperCorner[" + str(i) + "] = padding - dilation * (kernel - 1) = " + str(x.c) +
                         (c.stride[i] > 1 ? " (any of " + str(x.c) + ".." + str(x.c + c.stride[i] - 1) + " walks " +
                                                str(x.b) + ")"
                                          : std::string()) +
                         ", with pixelBoxLowerCorner[" + str(i) + "] = " + str(d.lower_needed) +
                         " and elementStrides[" + str(i + 1) + "] = " + str(c.stride[i]));
    }
  }
}

}  // namespace

bool make_im2col_conv(std::uint32_t spatial, const std::vector<std::int64_t>& kernel,
                      const std::vector<std::int64_t>& stride, const std::vector<std::int64_t>& pad,
                      const std::vector<std::int64_t>& dilation, Im2colConv& out, std::string& why) {
  out = Im2colConv{};
  out.spatial = spatial;
  struct List {
    const char* name;
    const std::vector<std::int64_t>* values;
    std::int64_t* dst;
  };
  const List lists[] = {{"kernel", &kernel, out.kernel}, {"stride", &stride, out.stride},
                        {"pad", &pad, out.pad}, {"dilation", &dilation, out.dilation}};
  if (kernel.empty()) {
    why = "kernel: required (one size per spatial dim, W first, or one for all)";
    return false;
  }
  for (const List& l : lists) {
    const std::size_t n = l.values->size();
    if (n > 1 && n != spatial) {
      why = std::string(l.name) + ": " + std::to_string(n) + " values for " + std::to_string(spatial) +
            " spatial dims (give one per spatial dim, W first, or one for all)";
      return false;
    }
    for (std::uint32_t i = 0; i < spatial && i < 3 && n > 0; ++i) l.dst[i] = (*l.values)[n == 1 ? 0 : i];
  }
  return true;
}

std::string im2col_conv_usage_error(const TensorMapParams& p, const Im2colConv& c) {
  if (p.kind != MapKind::im2col) return "not an im2col map (only an im2col map walks a pixel box)";
  if (p.rank < 3 || p.rank > kMaxRank) return "an im2col map has rank 3, 4 or 5, not " + std::to_string(p.rank);
  if (p.interleave != Interleave::none) return "an interleaved im2col map: its walk is not modelled";
  const std::uint32_t nsp = p.rank - 2;
  if (c.spatial != nsp)
    return "the convolution gives " + std::to_string(c.spatial) + " spatial dims, the rank-" + std::to_string(p.rank) +
           " map has " + std::to_string(nsp) + " (W" + (nsp > 1 ? ", H" : "") + (nsp > 2 ? ", D" : "") + ")";
  for (std::uint32_t i = 0; i < nsp; ++i) {
    const std::string dim = kDimNames[i];
    if (p.dims[i + 1] < 1 || p.dims[i + 1] > (std::uint64_t{1} << 32))
      return dim + ": globalDim[" + std::to_string(i + 1) + "] = " + std::to_string(p.dims[i + 1]) + " is not 1..2^32";
    const auto bad = [](std::int64_t v, std::int64_t lo) { return v < lo || v > kMaxConvValue; };
    if (bad(c.kernel[i], 1) || bad(c.stride[i], 1) || bad(c.dilation[i], 1) || bad(c.pad[i], 0))
      return dim + ": kernel, stride and dilation must be 1..2^20 and padding 0..2^20";
    if (im2col_conv_dim(p, c, i).outputs < 1)
      return dim + ": the convolution has no output (" + conv_words(p, c, i) +
             ": extent + 2 * padding < dilation * (kernel - 1) + 1)";
  }
  return "";
}

std::vector<Im2colConvIssue> check_im2col_conv(const TensorMapParams& p, const Im2colConv& c) {
  std::vector<Im2colConvIssue> out;
  if (p.pixels <= 1) return out;  // the walk never steps
  const std::int32_t lim = tmap_fields::corner_limit(p.rank);
  const auto fits = [lim](std::int64_t v) { return v >= -lim && v < lim; };
  for (std::uint32_t i = 0; i + 2 < p.rank; ++i) {
    const Im2colConvDim d = im2col_conv_dim(p, c, i);
    const auto dim = static_cast<std::int32_t>(i);
    if (!fits(d.lower_needed) || !fits(d.upper_needed) || c.stride[i] > 8) {
      out.push_back({Im2colConvRule::range, dim, d.lower_needed, d.upper_needed, c.stride[i]});
      continue;
    }
    // With one output in this dim the walk never steps it within a row: any stride that walks one
    // origin gathers the convolution's windows (the extent rule sees one that walks more).
    if (p.elem_strides[i + 1] != c.stride[i] && d.outputs > 1)
      out.push_back({Im2colConvRule::stride, dim, p.elem_strides[i + 1], c.stride[i], 0});
    if (p.lower[i] != d.lower_needed) out.push_back({Im2colConvRule::lower, dim, p.lower[i], d.lower_needed, 0});
    if (d.walked != d.outputs) out.push_back({Im2colConvRule::extent, dim, d.walked, d.outputs, d.upper_needed});
  }
  if (p.elem_strides[p.rank - 1] != 1) out.push_back({Im2colConvRule::stride, -1, p.elem_strides[p.rank - 1], 1, 0});
  return out;
}

std::vector<Im2colConvFinding> explain_im2col_conv(const TensorMapParams& p, const Im2colConv& c,
                                                   const std::vector<Im2colConvIssue>& issues) {
  std::vector<Im2colConvFinding> out;
  bool told = false;  // the walk's first wrong window, on the first finding about the walk
  for (const Im2colConvIssue& x : issues) {
    if (x.rule == Im2colConvRule::range) {
      out.push_back(range_finding(p, c, x));
      continue;
    }
    Im2colConvFinding f = walk_finding(p, c, x);
    if (!told) {
      told = true;
      f.effect += divergence_words(p, c);
      f.what = what_at(f.where, f.effect);
    }
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace tmakit
