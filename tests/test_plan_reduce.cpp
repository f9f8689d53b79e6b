// Reduce plans of swizzled shared tiles: the kernel writes each tile element where the user's
// shared layout says (swizzle included), the plan's reductions read that image through the
// descriptor's swizzle, and under the host model (smem_model_tiled_store, the model the GPU suite
// checks reductions against) every element of the tile is combined into its own global element,
// byte for byte, and nothing else changes. The same image read through an unswizzled descriptor
// combines other elements (the field report in docs/field_failures.md). The CLI and the descriptor check
// name the swizzle a reduction reads with.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "cli_run.hpp"
#include "tmakit/layout/notation.hpp"
#include "tmakit/plan/check_descriptor.hpp"
#include "tmakit/plan/describe.hpp"
#include "tmakit/plan/make_problem.hpp"
#include "tmakit/plan/notation.hpp"
#include "tmakit/tensor_map/encode.hpp"
#include "tmakit/tensor_map/smem_model.hpp"
#include "tmakit/tensor_map/swizzle_modes.hpp"

namespace {

using namespace tmakit;

ReduceOp g_op = ReduceOp::add;  // what combine() applies (SmemModelCombine is a plain function)

template <class T>
T apply(T a, T b) {
  switch (g_op) {
    case ReduceOp::add: return static_cast<T>(a + b);
    case ReduceOp::min: return std::min(a, b);
    case ReduceOp::max: return std::max(a, b);
    default: return a;
  }
}

template <class T>
void combine_as(unsigned char* dst, const unsigned char* src) {
  T a, b;
  std::memcpy(&a, dst, sizeof a);
  std::memcpy(&b, src, sizeof b);
  a = apply(a, b);
  std::memcpy(dst, &a, sizeof a);
}

void combine(const TensorMapParams& p, unsigned char* dst, const unsigned char* src) {
  if (p.dtype == DataType::float32) combine_as<float>(dst, src);
  else combine_as<std::int32_t>(dst, src);
}

// Element i of the tile / the tensor as 4 bytes: small integers, exact in float too.
void put(DataType t, unsigned char* at, std::int64_t v) {
  if (t == DataType::float32) {
    const float f = static_cast<float>(v);
    std::memcpy(at, &f, 4);
  } else {
    const auto i = static_cast<std::int32_t>(v);
    std::memcpy(at, &i, 4);
  }
}

struct Case {
  const char* gmem;
  const char* smem;
  const char* tile;
  Swizzle swizzle;
  std::uint32_t instructions;
  std::uint32_t box_pieces = 1;  // PlanOptions::box_pieces: copies the box is cut into
};

// The global buffer after tile `t`'s reductions under the model, and what it must be: every tile
// element's value (written at the shared layout's byte) combined into its global element.
void expect_tile_reduces_its_elements(const Case& c, ReduceOp op, const std::int32_t* t) {
  g_op = op;
  const GlobalTensor g = parse_global_tensor(c.gmem).value;
  const SwizzledLayout s = parse_swizzled_layout(c.smem).value;
  PlanOptions o;
  o.direction = PlanDirection::reduce;
  o.reduce_op = op;
  o.box_pieces = c.box_pieces;
  const PlanResult r = plan_tile(g, s, parse_tile_extents(c.tile).value, o);
  ASSERT_TRUE(r.ok());
  const TmaPlan& plan = r.plan;
  ASSERT_EQ(plan.params.swizzle, c.swizzle);
  ASSERT_EQ(plan.instructions, c.instructions);
  const Layout gf = g.layout.flatten();
  const std::int64_t cos = gf.cosize();
  std::vector<unsigned char> initial(static_cast<std::size_t>(cos) * 4);
  for (std::int64_t i = 0; i < cos; ++i) put(g.dtype, &initial[static_cast<std::size_t>(i) * 4], (i * 7) % 1000 - 500);
  std::vector<unsigned char> image(plan.smem_bytes, 0), want = initial;
  const std::int64_t n = s.layout.size();
  for (std::int64_t idx = 0; idx < n; ++idx) {
    const std::int64_t value = (idx * 13) % 2001 - 1000;
    put(g.dtype, &image[s.byte_offset(idx, 4)], value);
    // Tile mode m is global mode m; the tile's origin is t[m] * tile extent.
    std::int64_t rest = idx, goff = 0;
    bool in = true;
    for (int m = 0; m < gf.num_leaves(); ++m) {
      const std::int64_t size = s.layout.mode(m).size();
      const std::int64_t x = std::int64_t{t[m]} * size + rest % size;
      rest /= size;
      in = in && x < gf.shape_at(m);
      goff += x * gf.stride_at(m);
    }
    if (!in) continue;  // a reduction skips elements past the tensor
    unsigned char v[4];
    put(g.dtype, v, value);
    combine(plan.params, &want[static_cast<std::size_t>(goff) * 4], v);
  }
  ASSERT_NE(want, initial) << "the tile combines nothing: a test defect";
  const auto run = [&](const TensorMapParams& q) {
    std::vector<unsigned char> got = initial;
    for (std::uint32_t k = 0; k < plan.instructions; ++k) {
      const PlanInstruction in = plan.instruction(k, t);
      const std::span<const unsigned char> src(image.data() + in.smem_offset, image.size() - in.smem_offset);
      EXPECT_TRUE(smem_model_tiled_store(q, got, in.coord, src, combine));
    }
    return got;
  };
  TensorMapParams q = plan.params;
  q.address = 0;
  EXPECT_TRUE(run(q) == want) << "the reduction does not combine the tile the kernel wrote";
  q.swizzle = Swizzle::none;  // the image read as if unswizzled: other elements land in each place
  EXPECT_FALSE(run(q) == want);
}

const Case kCases[] = {
    {"f32 (256,96):(96,1)", "Sw<3,4,3> o (64,32):(32,1)", "M=64,N=32", Swizzle::b128, 1},
    {"f32 (256,96):(96,1)", "Sw<2,4,3> o (64,16):(16,1)", "M=64,N=16", Swizzle::b64, 1},
    {"f32 (256,96):(96,1)", "Sw<1,4,3> o (64,8):(8,1)", "M=64,N=8", Swizzle::b32, 1},
    // 64 columns kept as two 32-column halves of 128-byte rows: one rank-3 box (N and N/32)
    {"f32 (200,128):(128,1)", "Sw<3,4,3> o (64,(32,2)):(32,(1,2048))", "M=64,N=64", Swizzle::b128, 1},
    // the box cut into two reductions of 32 rows, the second from shared offset 4096
    {"f32 (256,96):(96,1)", "Sw<3,4,3> o (64,32):(32,1)", "M=64,N=32", Swizzle::b128, 2, 2},
    {"s32 (256,96):(96,1)", "Sw<3,4,3> o (64,32):(32,1)", "M=64,N=32", Swizzle::b128, 1},
};

TEST(PlanReduce, SwizzledTilesReduceEveryElementIntoItsOwnPlace) {
  for (const Case& c : kCases) {
    for (const ReduceOp op : {ReduceOp::add, ReduceOp::min, ReduceOp::max}) {
      SCOPED_TRACE(std::string(c.gmem) + " | " + c.smem + " ." + reduce_op_name(op));
      if (op != ReduceOp::add && std::string(c.gmem).rfind("f32", 0) == 0) continue;  // PTX: no f32 min/max
      // The first tile, an inner one and the last (of (200,128): rows 192..255 hang off the tensor).
      const Layout gf = parse_global_tensor(c.gmem).value.layout.flatten();
      const Layout sl = parse_swizzled_layout(c.smem).value.layout;
      std::int32_t first[kMaxTileModes] = {}, inner[kMaxTileModes] = {}, last[kMaxTileModes] = {};
      for (int m = 0; m < 2; ++m) {
        last[m] = static_cast<std::int32_t>((gf.shape_at(m) + sl.mode(m).size() - 1) / sl.mode(m).size() - 1);
        inner[m] = last[m] > 0 ? 1 : 0;
      }
      expect_tile_reduces_its_elements(c, op, first);
      expect_tile_reduces_its_elements(c, op, inner);
      expect_tile_reduces_its_elements(c, op, last);
    }
  }
}

TEST(PlanReduce, TheDescriptionNamesTheSwizzleTheReductionReadsWith) {
  PlanOptions o;
  o.direction = PlanDirection::reduce;
  const GlobalTensor g = parse_global_tensor("f32 (256,96):(96,1)").value;
  const PlanResult r = plan_tile(g, parse_swizzled_layout("Sw<3,4,3> o (64,32):(32,1)").value,
                                 parse_tile_extents("M=64,N=32").value, o);
  ASSERT_TRUE(r.ok());
  const std::string d = describe_plan(r.plan);
  EXPECT_NE(d.find("shared tile: cp.reduce.async.bulk.tensor reads it through the 128B swizzle (Sw<3,4,3> on byte "
                   "offsets from the base)"),
            std::string::npos)
      << d;
  const PlanResult u = plan_tile(g, parse_swizzled_layout("(64,32):(32,1)").value, parse_tile_extents("M=64,N=32").value, o);
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(describe_plan(u.plan).find("shared tile:"), std::string::npos);  // nothing to say without swizzle
  const PlanResult l = plan_tile(g, parse_swizzled_layout("Sw<3,4,3> o (64,32):(32,1)").value,
                                 parse_tile_extents("M=64,N=32").value);
  EXPECT_EQ(describe_plan(l.plan).find("shared tile:"), std::string::npos);  // a load: the consumer's business
}

// An unswizzled descriptor against the plan of the swizzled tile the kernel writes: check.swizzle,
// in a reduction's words.
TEST(PlanReduce, AnUnswizzledDescriptorIsNamedInAReductionsWords) {
  PlanOptions o;
  o.direction = PlanDirection::reduce;
  const PlanResult r = plan_tile(parse_global_tensor("f32 (256,96):(96,1)").value,
                                 parse_swizzled_layout("Sw<3,4,3> o (64,32):(32,1)").value,
                                 parse_tile_extents("M=64,N=32").value, o);
  ASSERT_TRUE(r.ok());
  TensorMapParams plain = r.plan.params;
  plain.swizzle = Swizzle::none;
  const PlanCheck c = check_against_plan(encode(plain).map, r.plan);
  ASSERT_FALSE(c.ok());
  ASSERT_FALSE(c.findings.empty());
  EXPECT_EQ(c.findings[0].rule, PlanCheckRule::swizzle);
  EXPECT_NE(c.findings[0].message().find("other elements are combined into each global position"), std::string::npos)
      << c.findings[0].message();
  EXPECT_FALSE(c.hangs);  // no mbarrier
}

const char* kReduceArgs = "--gmem 'f32 (256,96):(96,1)' --smem 'Sw<3,4,3> o (64,32):(32,1)' --tile M=64,N=32";

TEST(PlanReduceCli, CheckPlanTakesTheDirection) {
  const tmakit_test::CliRun ok = tmakit_test::run_binary(std::string("check-plan ") + kReduceArgs + " --reduce add");
  EXPECT_EQ(ok.rc, 0) << ok.out << ok.err;
  const tmakit_test::CliRun plain = tmakit_test::run_binary(
      std::string("check-plan ") + kReduceArgs +
      " --reduce add \"$(" + TMAKIT_CLI_BINARY + " encode tiled --dtype f32 --dims 96,256 --strides 384 --box 32,64)\"");
  EXPECT_EQ(plain.rc, 1);
  EXPECT_EQ(plain.out.rfind("error [check.swizzle] swizzle: plan 128B, descriptor NONE: the copy reads the shared tile", 0), 0u)
      << plain.out;
  const tmakit_test::CliRun armed = tmakit_test::run_binary(std::string("check-plan ") + kReduceArgs + " --reduce add --armed-bytes 8192");
  EXPECT_EQ(armed.rc, 2);
  EXPECT_NE(armed.err.find("--armed-bytes with --store or --reduce"), std::string::npos) << armed.err;
  const tmakit_test::CliRun bad = tmakit_test::run_binary(std::string("check-plan ") + kReduceArgs + " --reduce inc");
  EXPECT_EQ(bad.rc, 1);
  EXPECT_NE(bad.err.find("error [plan.reduce_dtype] cp.reduce.async.bulk.tensor.inc does not take f32"), std::string::npos)
      << bad.err;
  const tmakit_test::CliRun both = tmakit_test::run_binary(std::string("check-plan ") + kReduceArgs + " --store --reduce add");
  EXPECT_EQ(both.rc, 2);
}

}  // namespace
