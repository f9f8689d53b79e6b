// An im2col map's pixel walk against the convolution it gathers for (tensor_map/im2col_conv.hpp):
// the rules report exactly the maps whose walk parts from the convolution's windows (every start of
// random convolutions walked with the load model's step), the corners the fix names gather the
// convolution's im2col matrix byte for byte (smem_model_im2col_load against a direct gather), and
// the CLI (check im2col --conv) and its usage errors.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cli_run.hpp"
#include "tmakit/tensor_map/bit_fields.hpp"
#include "tmakit/tensor_map/im2col_conv.hpp"
#include "tmakit/tensor_map/smem_model_im2col.hpp"

namespace {

using namespace tmakit;

// An fp32 NHWC-style im2col map (C, W[, H], N), channels C, `pixels` per column, corners and
// element strides as given.
TensorMapParams map_of(std::uint32_t rank, std::uint64_t c, std::uint64_t w, std::uint64_t h, std::uint64_t n,
                       std::uint32_t pixels) {
  TensorMapParams p;
  p.kind = MapKind::im2col;
  p.dtype = DataType::float32;
  p.rank = rank;
  p.dims[0] = c;
  p.dims[1] = w;
  if (rank == 4) p.dims[2] = h;
  p.dims[rank - 1] = n;
  std::uint64_t pitch = c * 4;
  for (std::uint32_t i = 1; i < rank; ++i) {
    p.strides[i - 1] = pitch;
    pitch *= p.dims[i];
  }
  p.channels = static_cast<std::uint32_t>(c);
  p.pixels = pixels;
  return p;
}

// The convolution's window origin of output pixel k (spatial dims, then the batch).
void conv_origin(const TensorMapParams& p, const Im2colConv& c, std::int64_t k, std::int64_t* out) {
  const std::uint32_t nsp = p.rank - 2;
  for (std::uint32_t i = 0; i < nsp; ++i) {
    const std::int64_t o = im2col_conv_dim(p, c, i).outputs;
    out[i] = c.stride[i] * (k % o) - c.pad[i];
    k /= o;
  }
  out[nsp] = k;
}

// Whether some column of the map (any start at a window origin of the convolution, up to
// pixelsPerColumn pixels) gathers another window than the convolution, walked with the load
// model's step.
bool some_column_parts(const TensorMapParams& p, const Im2colConv& c) {
  const std::uint32_t nsp = p.rank - 2;
  std::int64_t per_image = 1;
  for (std::uint32_t i = 0; i < nsp; ++i) per_image *= im2col_conv_dim(p, c, i).outputs;
  for (std::int64_t m0 = 0; m0 < per_image; ++m0) {
    std::int64_t pos[kMaxRank] = {}, want[kMaxRank] = {};
    conv_origin(p, c, m0, want);
    for (std::uint32_t i = 0; i < nsp; ++i) pos[i + 1] = want[i];
    pos[p.rank - 1] = want[nsp];
    for (std::int64_t k = 0; k < p.pixels; ++k) {
      conv_origin(p, c, m0 + k, want);
      for (std::uint32_t i = 0; i < nsp; ++i)
        if (pos[i + 1] != want[i]) return true;
      if (pos[p.rank - 1] != want[nsp]) return true;
      im2col_walk_step(p, pos);
    }
  }
  return false;
}

std::vector<std::string> ids(const std::vector<Im2colConvIssue>& v) {
  std::vector<std::string> out;
  for (const Im2colConvIssue& x : v) out.push_back(rule_id(x.rule));
  return out;
}

TEST(Im2colConv, OutputsAndNeededCornersAreTheConvolutions) {
  TensorMapParams p = map_of(4, 8, 16, 16, 2, 64);
  Im2colConv c;
  c.spatial = 2;
  c.kernel[0] = c.kernel[1] = 3;
  const Im2colConvDim d = im2col_conv_dim(p, c, 0);
  EXPECT_EQ(d.outputs, 14);  // 16 - 3 + 1
  EXPECT_EQ(d.lower_needed, 0);
  EXPECT_EQ(d.upper_needed, -2);
  EXPECT_EQ(d.walked, 16);  // corners 0, 0: the whole row
  c.stride[0] = 2, c.pad[0] = 1, c.dilation[0] = 2;
  const Im2colConvDim e = im2col_conv_dim(p, c, 0);
  EXPECT_EQ(e.outputs, 7);  // floor((16 + 2 - 4 - 1) / 2) + 1
  EXPECT_EQ(e.lower_needed, -1);
  EXPECT_EQ(e.upper_needed, -3);
}

// The field report: corners -P, -P with P = 0 walk a whole input row where the output is shorter.
TEST(Im2colConv, TheReportedCornersAreRefusedAndTheFixWalksTheConvolution) {
  TensorMapParams p = map_of(4, 64, 16, 16, 2, 128);
  Im2colConv c;
  std::string why;
  ASSERT_TRUE(make_im2col_conv(2, {3}, {}, {}, {}, c, why)) << why;
  ASSERT_EQ(im2col_conv_usage_error(p, c), "");
  EXPECT_EQ(ids(check_im2col_conv(p, c)), (std::vector<std::string>{"im2col.conv_extent", "im2col.conv_extent"}));
  EXPECT_TRUE(some_column_parts(p, c));
  const std::vector<Im2colConvFinding> f = explain_im2col_conv(p, c, check_im2col_conv(p, c));
  ASSERT_EQ(f.size(), 2u);
  EXPECT_NE(f[0].message().find("gathers output pixel 14 (ow 0, oh 1, n 0) from the window at w 14, h 0, n 0 where the "
                              "convolution's is at w 0, h 1, n 0"),
            std::string::npos)
      << f[0].message();
  EXPECT_NE(f[0].fix.find("pixelBoxUpperCorner[0] = padding - dilation * (kernel - 1) = -2"), std::string::npos) << f[0].fix;
  p.upper[0] = p.upper[1] = -2;  // the fix
  EXPECT_TRUE(check_im2col_conv(p, c).empty());
  EXPECT_FALSE(some_column_parts(p, c));
  p.pixels = 1;  // one window per load: nothing walks
  p.upper[0] = 5;
  EXPECT_TRUE(check_im2col_conv(p, c).empty());
}

// Random convolutions and maps, right and wrong: a rule is reported exactly when some column of
// the map parts from the convolution.
TEST(Im2colConv, RulesReportExactlyTheMapsWhoseWalkParts) {
  std::mt19937 rng(2426);
  const auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int checked = 0, refused = 0;
  for (int t = 0; t < 3000; ++t) {
    const std::uint32_t rank = pick(3, 4);
    TensorMapParams p = map_of(rank, 4, pick(1, 12), pick(1, 6), pick(1, 3), static_cast<std::uint32_t>(pick(2, 40)));
    Im2colConv c;
    c.spatial = rank - 2;
    for (std::uint32_t i = 0; i < c.spatial; ++i) {
      c.kernel[i] = pick(1, 4), c.stride[i] = pick(1, 3), c.pad[i] = pick(0, 2), c.dilation[i] = pick(1, 2);
    }
    if (!im2col_conv_usage_error(p, c).empty()) continue;  // no output
    for (std::uint32_t i = 0; i < c.spatial; ++i) {
      const Im2colConvDim d = im2col_conv_dim(p, c, i);
      // Mostly the convolution's own settings, now and then one off.
      p.lower[i] = static_cast<std::int32_t>(d.lower_needed + (pick(0, 5) == 0 ? pick(-1, 1) : 0));
      p.upper[i] = static_cast<std::int32_t>(d.upper_needed + pick(0, static_cast<int>(c.stride[i]) - 1) +
                                             (pick(0, 4) == 0 ? pick(-2, 2) : 0));
      p.elem_strides[i + 1] = static_cast<std::uint32_t>(pick(0, 5) == 0 ? pick(1, 3) : c.stride[i]);
      const auto x = static_cast<std::int32_t>(p.dims[i + 1]);
      if (x - 1 + p.upper[i] < p.lower[i]) p.upper[i] = p.lower[i] - x + 1;  // keep the box non-empty
    }
    p.elem_strides[rank - 1] = pick(0, 8) == 0 ? 2 : 1;
    const std::vector<Im2colConvIssue> issues = check_im2col_conv(p, c);
    SCOPED_TRACE("trial " + std::to_string(t));
    ASSERT_EQ(issues.empty(), !some_column_parts(p, c)) << (issues.empty() ? "" : rule_id(issues[0].rule));
    ++checked;
    refused += !issues.empty();
  }
  EXPECT_GT(checked, 2000);
  EXPECT_GT(refused, 300);
  EXPECT_LT(refused, checked - 300);
}

// The corners the fix names, through the load model: every column, from every output pixel, holds
// the rows of the convolution's im2col matrix (zero padding outside the input), byte for byte.
TEST(Im2colConv, TheConvolutionsCornersGatherItsIm2colMatrix) {
  const std::int64_t C = 4, W = 7, H = 5, N = 2, K = 3, S = 2, P = 1, D = 1;
  TensorMapParams p = map_of(4, C, W, H, N, 5);
  Im2colConv c;
  std::string why;
  ASSERT_TRUE(make_im2col_conv(2, {K}, {S}, {P}, {D}, c, why)) << why;
  for (std::uint32_t i = 0; i < 2; ++i) {
    const Im2colConvDim d = im2col_conv_dim(p, c, i);
    p.lower[i] = static_cast<std::int32_t>(d.lower_needed);
    p.upper[i] = static_cast<std::int32_t>(d.upper_needed);
    p.elem_strides[i + 1] = static_cast<std::uint32_t>(S);
  }
  ASSERT_TRUE(check_im2col_conv(p, c).empty());
  std::vector<unsigned char> global(static_cast<std::size_t>(C * W * H * N * 4));
  for (std::size_t k = 0; k < global.size() / 4; ++k) {
    const std::uint32_t v = static_cast<std::uint32_t>(k + 1);
    std::memcpy(&global[k * 4], &v, 4);
  }
  const std::int64_t OW = im2col_conv_dim(p, c, 0).outputs, OH = im2col_conv_dim(p, c, 1).outputs;
  for (std::int64_t m0 = 0; m0 < OW * OH * N; ++m0)
    for (std::int64_t kh = 0; kh < K; ++kh)
      for (std::int64_t kw = 0; kw < K; ++kw) {
        std::int64_t o[3];
        conv_origin(p, c, m0, o);
        const std::int32_t start[4] = {0, static_cast<std::int32_t>(o[0]), static_cast<std::int32_t>(o[1]),
                                       static_cast<std::int32_t>(o[2])};
        const std::uint16_t offsets[2] = {static_cast<std::uint16_t>(kw * D), static_cast<std::uint16_t>(kh * D)};
        std::vector<unsigned char> image;
        ASSERT_TRUE(smem_model_im2col_load(p, global, start, offsets, image));
        for (std::int64_t k = 0; k < p.pixels; ++k) {
          std::int64_t w[3];
          conv_origin(p, c, m0 + k, w);
          const std::int64_t x = w[0] + kw * D, y = w[1] + kh * D, n = w[2];
          for (std::int64_t ch = 0; ch < C; ++ch) {
            std::uint32_t want = 0, got = 0;
            if (x >= 0 && x < W && y >= 0 && y < H && n < N) want = static_cast<std::uint32_t>(((n * H + y) * W + x) * C + ch + 1);
            std::memcpy(&got, &image[static_cast<std::size_t>((k * C + ch) * 4)], 4);
            ASSERT_EQ(got, want) << "output pixel " << m0 + k << " (column from " << m0 << "), kernel (" << kh << ","
                                 << kw << "), channel " << ch;
          }
        }
      }
}

TEST(Im2colConv, ConvolutionsNoMapOfTheRankWalks) {
  // rank 5: corners of 5 bits, -16..15; padding 20 needs -20.
  TensorMapParams p;
  p.kind = MapKind::im2col;
  p.dtype = DataType::float32;
  p.rank = 5;
  for (int i = 0; i < 5; ++i) p.dims[i] = 8;
  p.channels = 8;
  p.pixels = 64;
  Im2colConv c;
  std::string why;
  ASSERT_TRUE(make_im2col_conv(3, {3}, {1, 1, 9}, {20, 0, 0}, {}, c, why)) << why;
  ASSERT_EQ(im2col_conv_usage_error(p, c), "");
  const std::vector<Im2colConvIssue> v = check_im2col_conv(p, c);
  ASSERT_GE(v.size(), 2u);
  EXPECT_EQ(v[0].rule, Im2colConvRule::range);  // W: the padding
  EXPECT_EQ(v[0].a, -20);
  const std::vector<Im2colConvFinding> f = explain_im2col_conv(p, c, v);
  EXPECT_NE(f[0].message().find("a rank-5 map holds corners -16..15"), std::string::npos) << f[0].message();
  EXPECT_NE(f[0].fix.find("loop over the output rows in the kernel"), std::string::npos) << f[0].fix;
  bool stride_range = false;
  for (const Im2colConvFinding& x : f)
    stride_range = stride_range || (x.rule == Im2colConvRule::range && x.fix.find("a stride above 8") != std::string::npos);
  EXPECT_TRUE(stride_range);  // D: stride 9
}

TEST(Im2colConv, UsageErrors) {
  TensorMapParams p = map_of(4, 8, 16, 16, 2, 64);
  Im2colConv c;
  std::string why;
  EXPECT_FALSE(make_im2col_conv(2, {}, {}, {}, {}, c, why));
  EXPECT_NE(why.find("kernel: required"), std::string::npos) << why;
  EXPECT_FALSE(make_im2col_conv(2, {3, 3, 3}, {}, {}, {}, c, why));
  EXPECT_NE(why.find("kernel: 3 values for 2 spatial dims"), std::string::npos) << why;
  ASSERT_TRUE(make_im2col_conv(2, {3, 5}, {1}, {0}, {1}, c, why));
  EXPECT_EQ(c.kernel[1], 5);
  ASSERT_TRUE(make_im2col_conv(2, {17}, {}, {}, {}, c, why));
  EXPECT_NE(im2col_conv_usage_error(p, c).find("W: the convolution has no output"), std::string::npos);
  ASSERT_TRUE(make_im2col_conv(2, {3}, {0}, {}, {}, c, why));
  EXPECT_NE(im2col_conv_usage_error(p, c).find("must be 1..2^20"), std::string::npos);
  ASSERT_TRUE(make_im2col_conv(2, {3}, {}, {}, {}, c, why));
  p.kind = MapKind::tiled;
  EXPECT_NE(im2col_conv_usage_error(p, c).find("not an im2col map"), std::string::npos);
}

const char* kReportedMap =
    "check im2col --dtype f16 --dims 64,16,16,2 --strides 128,2048,32768 --lower 0,0 --channels 64 --pixels 128";

TEST(Im2colConvCli, CheckTakesTheConvolution) {
  const tmakit_test::CliRun bad = tmakit_test::run_binary(std::string(kReportedMap) + " --upper 0,0 --conv kernel=3");
  EXPECT_EQ(bad.rc, 1);
  EXPECT_EQ(bad.out.rfind("error [im2col.conv_extent] W: pixelBoxUpperCorner[0]: the walk visits 16 window origins", 0), 0u)
      << bad.out;
  const tmakit_test::CliRun ok = tmakit_test::run_binary(std::string(kReportedMap) + " --upper -2,-2 --conv 'kernel=3,3 pad=0'");
  EXPECT_EQ(ok.rc, 0) << ok.out << ok.err;
  EXPECT_EQ(ok.out, "ok\n");
  const tmakit_test::CliRun j = tmakit_test::run_binary(std::string(kReportedMap) + " --upper 0,0 --conv kernel=3 --json");
  EXPECT_EQ(j.rc, 1);
  EXPECT_NE(j.out.find("\"rule\":\"im2col.conv_extent\""), std::string::npos) << j.out;
  for (const char* spec : {"kernel=3 stride=1 stride=2", "kernel=3,3,3", "size=3", "kernel=x", "stride=2"}) {
    SCOPED_TRACE(spec);
    const tmakit_test::CliRun u = tmakit_test::run_binary(std::string(kReportedMap) + " --upper 0,0 --conv '" + spec + "'");
    EXPECT_EQ(u.rc, 2);
    EXPECT_NE(u.err.find("--conv"), std::string::npos) << u.err;
  }
  // --conv belongs to im2col maps only.
  const tmakit_test::CliRun tiled =
      tmakit_test::run_binary("check tiled --dtype bf16 --dims 64,64 --strides 128 --box 64,64 --conv kernel=3");
  EXPECT_EQ(tiled.rc, 2);
}

}  // namespace
