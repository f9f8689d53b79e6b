// The TMA planner (include/tmakit/plan): plans for K/V tiles, GEMM A/B tiles (K-major and MN-major,
// every swizzle), rank-3..5 tensors, boxes over 256, multicast; every plan is executed through the
// host model of TMA (smem_model.hpp, matched to an H200) and every element of the tile must land at
// the place the user's shared layout names. And every refusal: its rule id and its numbers.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "plan_test_util.hpp"
#include "tmakit/layout/notation.hpp"
#include "tmakit/plan/copy_shape.hpp"
#include "tmakit/plan/describe.hpp"
#include "tmakit/plan/dlpack.hpp"
#include "tmakit/plan/explain.hpp"
#include "tmakit/plan/make_problem.hpp"
#include "tmakit/plan/notation.hpp"
#include "tmakit/tensor_map/encode.hpp"
#include "tmakit/tensor_map/names.hpp"
#include "tmakit/smem_store/destination.hpp"

using namespace tmakit;

namespace {

struct Inputs {
  GlobalTensor g;
  SwizzledLayout s;
  TileExtents t;
  std::vector<std::string> names;
};

Inputs parse(const std::string& gmem, const std::string& smem, const std::string& tile) {
  Inputs in;
  const auto g = parse_global_tensor(gmem);
  const auto s = parse_swizzled_layout(smem);
  const auto t = parse_tile_extents(tile);
  EXPECT_TRUE(g.ok) << gmem << ": " << g.error;
  EXPECT_TRUE(s.ok) << smem << ": " << s.error.message;
  EXPECT_TRUE(t.ok) << tile << ": " << t.error;
  in.g = g.value;
  in.s = s.value;
  in.t = t.value;
  in.names = t.names;
  return in;
}

// Plans, then runs the plan for several tile coordinates (first, second, last along every mode)
// through the TMA model and checks every element's bytes and place.
TmaPlan plan_and_check(const Inputs& in, const PlanOptions& o = {});
TmaPlan plan_and_check(const std::string& gmem, const std::string& smem, const std::string& tile,
                       const PlanOptions& o = {}) {
  SCOPED_TRACE(gmem + " | " + smem + " | " + tile);
  return plan_and_check(parse(gmem, smem, tile), o);
}
TmaPlan plan_and_check(const Inputs& in, const PlanOptions& o) {
  const PlanResult r = plan_tile(in.g, in.s, in.t, o);
  const TileProblem& pb = r.problem;
  if (!r.ok()) {
    std::string all;
    for (const auto& d : explain_plan(r.issues, pb, in.names)) all += d.message() + "\n";
    ADD_FAILURE() << "refused:\n" << all;
    return {};
  }
  const TmaPlan& p = r.plan;
  EXPECT_TRUE(is_valid(p.params));
  EXPECT_TRUE(encode(p.params).ok());
  // bytes: the tile's elements, once
  const std::uint64_t eb = element_bits(in.g.dtype) / 8;
  EXPECT_EQ(p.expect_tx_bytes, static_cast<std::uint64_t>(in.s.size()) * eb);
  EXPECT_EQ(p.expect_tx_bytes, std::uint64_t{p.instructions} * transaction_bytes(p.params));
  EXPECT_EQ(p.smem_alignment, tma_smem_alignment(p.params.swizzle));
  EXPECT_GE(p.smem_alignment, in.s.base_alignment());
  const auto global = tmakit_test::make_global(in.g);
  const std::int32_t gm = pb.modes;
  std::vector<std::vector<std::int32_t>> coords(3, std::vector<std::int32_t>(kMaxTileModes, 0));
  for (std::int32_t m = 0; m < gm; ++m) {
    const std::int64_t tiles = (pb.extent[m] + pb.tile[m] - 1) / pb.tile[m];
    coords[1][m] = tiles > 1 ? 1 : 0;
    coords[2][m] = static_cast<std::int32_t>(tiles - 1);
  }
  for (const auto& t : coords) {
    const auto im = tmakit_test::model_plan_image(p, global, t.data());
    const std::string why = tmakit_test::check_image(im, in.g, in.s, pb.tile, t.data(), global);
    EXPECT_EQ(why, "") << "tile coordinate " << ::testing::PrintToString(t) << "\n" << describe_plan(p, in.names);
  }
  return p;
}

std::vector<PlanDiagnostic> refusals(const std::string& gmem, const std::string& smem, const std::string& tile,
                                     const PlanOptions& o = {}) {
  const Inputs in = parse(gmem, smem, tile);
  const PlanResult r = plan_tile(in.g, in.s, in.t, o);
  EXPECT_FALSE(r.ok()) << "planned although a refusal was expected:\n" << describe_plan(r.plan, in.names);
  return explain_plan(r.issues, r.problem, in.names);
}

const PlanDiagnostic* find(const std::vector<PlanDiagnostic>& ds, const std::string& id) {
  for (const auto& d : ds)
    if (d.rule_id == id) return &d;
  return nullptr;
}

void expect_refusal(const std::vector<PlanDiagnostic>& ds, const std::string& id,
                    const std::vector<std::string>& needles) {
  const PlanDiagnostic* d = find(ds, id);
  std::string all;
  for (const auto& x : ds) all += x.message() + "\n";
  ASSERT_NE(d, nullptr) << "no " << id << " among:\n" << all;
  const std::string m = d->message();
  EXPECT_EQ(m.rfind("error [" + id + "] ", 0), 0u) << m;
  EXPECT_NE(m.find("; fix: "), std::string::npos) << m;
  for (const auto& n : needles) EXPECT_NE(m.find(n), std::string::npos) << "'" << n << "' missing from: " << m;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// K/V tiles of row-major (seq, d) tensors.

TEST(Plan, KvTilesEveryHeadDimAndRowCount) {
  for (int d : {64, 96, 128, 256})
    for (int rows : {64, 128}) {
      const std::string g = "bf16 (512," + std::to_string(d) + "):(" + std::to_string(d) + ",1)";
      const std::string tile = "seq=" + std::to_string(rows) + ",d=_";
      const std::string r = std::to_string(rows), ds = std::to_string(d);
      std::vector<std::string> smems;
      if (d % 64 == 0) {
        smems.push_back("Sw<3,4,3> o (" + r + "," + ds + "):(" + ds + ",1)");  // row-major, 128B
        smems.push_back("Sw<3,4,3> o (" + r + ",(64," + std::to_string(d / 64) + ")):(64,(1," +
                        std::to_string(rows * 64) + "))");  // CuTe's tile_to_shape of the 128B atom
      }
      if (d % 32 == 0)
        smems.push_back("Sw<2,4,3> o (" + r + ",(32," + std::to_string(d / 32) + ")):(32,(1," +
                        std::to_string(rows * 32) + "))");
      if (d <= 256) smems.push_back("(" + r + "," + ds + "):(" + ds + ",1)");  // no swizzle
      for (const auto& s : smems) {
        const TmaPlan p = plan_and_check(g, s, tile);
        EXPECT_EQ(p.instructions, 1u) << g << " " << s;
        EXPECT_EQ(p.expect_tx_bytes, static_cast<std::uint32_t>(rows * d * 2));
        // the row-major 128B layout of d = 128/256 needs d cut into TMA dims of 64: rank 3
        if (s.rfind("Sw<3", 0) == 0 && d > 64) {
          EXPECT_EQ(p.params.rank, 3u);
        }
      }
    }
}

TEST(Plan, KvHeadDim96RowMajorWith128BSwizzleIsRefusedWithTheSpanAndAFix) {
  const auto ds = refusals("bf16 (512,96):(96,1)", "Sw<3,4,3> o (64,96):(96,1)", "seq=64,d=96");
  expect_refusal(ds, "plan.inner_span",
                 {"tile mode 1 (d)", "96 elements (192 bytes)", "128-byte swizzle span (64 elements)",
                  "Sw<2,4,3> (64B) with the contiguous mode cut as (32,3)"});
}

// ---------------------------------------------------------------------------------------------
// GEMM tiles: A (M,K) and B (N,K), K-major and MN-major, every swizzle, several types.

namespace {
struct GemmSmem {
  const char* swz;  // prefix
  int span;         // bytes (0: none)
};
constexpr GemmSmem kSwizzles[] = {{"", 0}, {"Sw<1,4,3> o ", 32}, {"Sw<2,4,3> o ", 64}, {"Sw<3,4,3> o ", 128}};

std::string kmajor_smem(const GemmSmem& sw, int mn, int k, int eb) {
  const int e = sw.span ? sw.span / eb : k;  // elements per swizzle row
  if (e >= k) return std::string(sw.swz) + "(" + std::to_string(mn) + "," + std::to_string(k) + "):(" + std::to_string(k) + ",1)";
  return std::string(sw.swz) + "(" + std::to_string(mn) + ",(" + std::to_string(e) + "," + std::to_string(k / e) + ")):(" +
         std::to_string(e) + ",(1," + std::to_string(mn * e) + "))";
}
std::string mnmajor_smem(const GemmSmem& sw, int mn, int k, int eb) {
  const int e = sw.span ? sw.span / eb : mn;
  if (e >= mn) return std::string(sw.swz) + "(" + std::to_string(mn) + "," + std::to_string(k) + "):(1," + std::to_string(mn) + ")";
  return std::string(sw.swz) + "((" + std::to_string(e) + "," + std::to_string(mn / e) + ")," + std::to_string(k) + "):((1," +
         std::to_string(e * k) + ")," + std::to_string(e) + ")";
}
}  // namespace

TEST(Plan, GemmTilesKMajorAndMnMajorEverySwizzle) {
  struct T { const char* dtype; int eb; int mn; int k; const char* name; };
  for (const T& t : {T{"bf16", 2, 128, 64, "M"}, T{"f16", 2, 64, 64, "N"}, T{"f32", 4, 128, 32, "M"}, T{"u8", 1, 128, 128, "N"}})
    for (const GemmSmem& sw : kSwizzles) {
      const std::string tile = std::string(t.name) + "=" + std::to_string(t.mn) + ",K=" + std::to_string(t.k);
      // K-major: (MN, K):(K, 1) in global memory
      const std::string gk = std::string(t.dtype) + " (384,320):(320,1)";
      const TmaPlan pk = plan_and_check(gk, kmajor_smem(sw, t.mn, t.k, t.eb), tile);
      EXPECT_EQ(pk.instructions, 1u) << gk << " " << kmajor_smem(sw, t.mn, t.k, t.eb);
      EXPECT_EQ(pk.params.swizzle, static_cast<Swizzle>(sw.span == 0 ? 0 : sw.span == 32 ? 1 : sw.span == 64 ? 2 : 3));
      // MN-major: (MN, K):(1, MN)
      const std::string gm = std::string(t.dtype) + " (384,320):(1,384)";
      const TmaPlan pm = plan_and_check(gm, mnmajor_smem(sw, t.mn, t.k, t.eb), tile);
      EXPECT_EQ(pm.instructions, 1u) << gm << " " << mnmajor_smem(sw, t.mn, t.k, t.eb);
    }
}

TEST(Plan, GemmAKMajorIsTheTwoDimensionalBox) {
  const TmaPlan p = plan_and_check("bf16 (4096,4096):(4096,1)", "Sw<3,4,3> o (128,64):(64,1)", "M=128,K=64");
  ASSERT_EQ(p.params.rank, 2u);
  EXPECT_EQ(p.params.box[0], 64u);
  EXPECT_EQ(p.params.box[1], 128u);
  EXPECT_EQ(p.params.strides[0], 8192u);
  EXPECT_EQ(p.params.swizzle, Swizzle::b128);
  EXPECT_EQ(p.expect_tx_bytes, 16384u);
  EXPECT_EQ(p.smem_alignment, 1024u);
  const std::int32_t t[kMaxTileModes] = {3, 5};  // (t_M, t_K)
  const PlanInstruction in = p.instruction(0, t);
  EXPECT_EQ(in.coord[0], 5 * 64);
  EXPECT_EQ(in.coord[1], 3 * 128);
  EXPECT_EQ(in.smem_offset, 0u);
}

TEST(Plan, TheCheckerCatchesAWrongPlan) {
  // the checker used by every case above must see a plan that puts data at the wrong place
  const Inputs in = parse("bf16 (512,128):(128,1)", "Sw<3,4,3> o (64,(64,2)):(64,(1,4096))", "seq=64,d=_");
  PlanResult r = plan_tile(in.g, in.s, in.t);
  ASSERT_TRUE(r.ok());
  const auto global = tmakit_test::make_global(in.g);
  const std::int32_t t[kMaxTileModes] = {1, 0};
  auto check = [&](const TmaPlan& p) {
    return tmakit_test::check_image(tmakit_test::model_plan_image(p, global, t), in.g, in.s, r.problem.tile, t, global);
  };
  EXPECT_EQ(check(r.plan), "");
  TmaPlan wrong_swizzle = r.plan;
  wrong_swizzle.params.swizzle = Swizzle::b64;
  EXPECT_NE(check(wrong_swizzle), "");
  TmaPlan wrong_coord = r.plan;
  wrong_coord.coef[r.plan.params.rank - 1][0] += 1;
  EXPECT_NE(check(wrong_coord), "");
  TmaPlan half = r.plan;
  half.params.box[half.params.rank - 1] /= 2;
  EXPECT_NE(check(half), "");
}

// ---------------------------------------------------------------------------------------------
// Rank 3 to 5 and the "fewer instructions" choice.

TEST(Plan, Rank3HeadsTensor) {
  const TmaPlan p = plan_and_check("bf16 (256,8,64):(512,64,1)", "Sw<3,4,3> o (64,64):(64,1)", "seq=64,h=1,d=_");
  EXPECT_EQ(p.params.rank, 3u);
  EXPECT_EQ(p.instructions, 1u);
  EXPECT_EQ(p.params.box[2], 1u);  // the head index is a box-1 dimension
}

TEST(Plan, Rank4TensorCutsHeadDimIntoAFifthDimension) {
  // (seq, heads, batch, d), d = 128 under the 128B swizzle: one rank-5 box beats two rank-4 boxes
  const TmaPlan p = plan_and_check("bf16 (256,4,2,128):(512,128,131072,1)", "Sw<3,4,3> o (64,(64,2)):(64,(1,4096))",
                                   "seq=64,h=1,b=1,d=_");
  EXPECT_EQ(p.params.rank, 5u);
  EXPECT_EQ(p.instructions, 1u);
}

TEST(Plan, Rank5TensorFallsBackToTwoInstructionsWhenACutWouldNeedRank6) {
  const TmaPlan p = plan_and_check("bf16 (128,2,2,2,128):(1024,128,256,512,1)",
                                   "Sw<3,4,3> o (64,(64,2)):(64,(1,4096))", "seq=64,a=1,b=1,c=1,d=_");
  EXPECT_EQ(p.params.rank, 5u);
  EXPECT_EQ(p.instructions, 2u);
  EXPECT_EQ(p.params.box[0], 64u);
  const std::int32_t t[kMaxTileModes] = {1, 1, 0, 1, 0};
  const PlanInstruction i1 = p.instruction(1, t);
  EXPECT_EQ(i1.coord[0], 64);        // second half of d
  EXPECT_EQ(i1.smem_offset, 8192u);  // 64 x 64 bf16 further on
}

TEST(Plan, Rank5WithEveryModeTiled) {
  const TmaPlan p = plan_and_check("f32 (4,3,6,8,32):(32,128,384,2304,1)", "(2,3,2,4,32):(32,64,192,384,1)",
                                   "a=2,b=3,c=2,e=4,d=_");
  EXPECT_EQ(p.params.rank, 5u);
  EXPECT_EQ(p.instructions, 1u);
}

TEST(Plan, SixModeTensorFoldsItsIndexModesIntoOneDimension) {
  // (seq, d, h, b, x, y): h, b, x, y continue each other in memory; 6 TMA dimensions would be
  // needed, so they fold into one (coordinate t_h + 2 t_b + 4 t_x + 8 t_y)
  const TmaPlan p = plan_and_check("bf16 (256,64,2,2,2,2):(64,1,16384,32768,65536,131072)",
                                   "Sw<3,4,3> o (64,64):(64,1)", "s=64,d=_,h=1,b=1,x=1,y=1");
  EXPECT_EQ(p.params.rank, 3u);
  EXPECT_EQ(p.instructions, 1u);
  EXPECT_EQ(p.params.dims[2], 16u);
  EXPECT_EQ(p.dim[2].folded, (1u << 3) | (1u << 4) | (1u << 5));
  EXPECT_EQ(coordinate_formula(p, 2, {"s", "d", "h", "b", "x", "y"}), "t_h + 2*t_b + 4*t_x + 8*t_y");
  // a 5-mode tensor that fits is left unfolded
  const TmaPlan q = plan_and_check("bf16 (256,4,2,128):(512,128,131072,1)", "Sw<3,4,3> o (64,64):(64,1)",
                                   "seq=64,h=1,b=1,d=64");
  EXPECT_EQ(q.params.rank, 4u);
  EXPECT_EQ(q.dim[0].folded | q.dim[1].folded | q.dim[2].folded | q.dim[3].folded, 0u);
}

// ---------------------------------------------------------------------------------------------
// Boxes over 256.

TEST(Plan, InnerRowOver256IsCutIntoAHigherRankBox) {
  const TmaPlan p = plan_and_check("u8 (128,512):(512,1)", "(64,512):(512,1)", "seq=64,d=_");
  EXPECT_EQ(p.instructions, 1u);
  ASSERT_EQ(p.params.rank, 3u);
  EXPECT_EQ(p.params.box[0], 256u);
  EXPECT_EQ(p.params.box[1], 2u);
}

TEST(Plan, RowsOver256BecomeAThirdDimension) {
  const TmaPlan p = plan_and_check("f32 (1024,32):(32,1)", "(512,32):(32,1)", "seq=512,d=_");
  EXPECT_EQ(p.instructions, 1u);
  ASSERT_EQ(p.params.rank, 3u);
  EXPECT_EQ(p.params.box[1], 256u);
  EXPECT_EQ(p.params.box[2], 2u);
}

TEST(Plan, RowsOver256WithAnIndivisibleExtentBecomeTwoInstructions) {
  // 1000 rows are not a whole number of 256-row pieces: no cut; two boxes, the last tile hangs off
  const TmaPlan p = plan_and_check("f32 (1000,32):(32,1)", "(512,32):(32,1)", "seq=512,d=_");
  EXPECT_EQ(p.instructions, 2u);
  EXPECT_EQ(p.params.rank, 2u);
  EXPECT_EQ(p.params.box[1], 256u);
}

TEST(Plan, PaddedSharedRowsBecomeOneInstructionPerRow) {
  const TmaPlan p = plan_and_check("bf16 (512,64):(64,1)", "(8,64):(128,1)", "r=8,d=_");
  EXPECT_EQ(p.instructions, 8u);
  EXPECT_EQ(p.loop[0].smem_step, 256u);
  EXPECT_EQ(p.smem_alignment, 128u);
}

// ---------------------------------------------------------------------------------------------
// Multicast.

TEST(Plan, MulticastSplitsTheTileOverTheClusterAndEveryCtaExpectsAllOfIt) {
  PlanOptions o;
  o.cluster[0] = 2;
  o.cluster[1] = 2;
  o.multicast_dim = 0;
  const TmaPlan p = plan_and_check("bf16 (4096,4096):(4096,1)", "Sw<3,4,3> o (128,64):(64,1)", "M=128,K=64", o);
  EXPECT_EQ(p.multicast_ctas, 2u);
  EXPECT_EQ(p.instructions, 2u);
  EXPECT_EQ(p.instructions_per_cta, 1u);
  EXPECT_EQ(p.expect_tx_bytes, 16384u);
  EXPECT_EQ(p.tx_bytes_per_instruction, 8192u);
  const std::uint32_t c00[3] = {0, 0, 0}, c01[3] = {1, 1, 0};
  EXPECT_EQ(p.multicast_mask(c00), 0x3);
  EXPECT_EQ(p.multicast_mask(c01), 0xc);  // ranks 2, 3 (y = 1)
  // the two shares together are the tile; each alone is half of it
  const Inputs in = parse("bf16 (4096,4096):(4096,1)", "Sw<3,4,3> o (128,64):(64,1)", "M=128,K=64");
  const auto global = tmakit_test::make_global(in.g);
  const std::int32_t t[kMaxTileModes] = {2, 1};
  const auto a = tmakit_test::model_plan_image(p, global, t, 0, 1);
  const auto b = tmakit_test::model_plan_image(p, global, t, 1, 1);
  std::uint64_t na = 0, nb = 0, both = 0;
  for (std::size_t i = 0; i < a.written.size(); ++i) {
    na += a.written[i];
    nb += b.written[i];
    both += a.written[i] & b.written[i];
  }
  EXPECT_EQ(na, 8192u);
  EXPECT_EQ(nb, 8192u);
  EXPECT_EQ(both, 0u);
}

TEST(Plan, MulticastOverYWithFourCtas) {
  PlanOptions o;
  o.cluster[0] = 1;
  o.cluster[1] = 4;
  o.multicast_dim = 1;
  const TmaPlan p = plan_and_check("bf16 (1024,512):(1,1024)", "Sw<3,4,3> o ((64,2),64):((1,4096),64)", "N=128,K=64", o);
  EXPECT_EQ(p.multicast_ctas, 4u);
  EXPECT_EQ(p.instructions % 4, 0u);
  EXPECT_EQ(p.instructions_per_cta * 4, p.instructions);
  const std::uint32_t c[3] = {0, 2, 0};
  EXPECT_EQ(p.multicast_mask(c), 0xf);
}

// ---------------------------------------------------------------------------------------------
// Inputs: DLPack, constexpr plans, notation.

TEST(Plan, FromDlpackTensor) {
  std::int64_t shape[3] = {2, 512, 128};
  dlpack::DLTensor t{};
  t.data = reinterpret_cast<void*>(std::uintptr_t{0x7f0000010000});
  t.device = {dlpack::kDLCUDA, 0};
  t.ndim = 3;
  t.dtype = {dlpack::kDLBfloat, 16, 1};
  t.shape = shape;
  t.strides = nullptr;  // compact row-major
  t.byte_offset = 512;
  const auto r = dlpack::from_dlpack(t);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.tensor.dtype, DataType::bfloat16);
  EXPECT_EQ(r.tensor.address, 0x7f0000010200u);
  EXPECT_EQ(r.tensor.base_alignment, 512u);
  EXPECT_EQ(to_string(r.tensor.layout), "(2,512,128):(65536,128,1)");
  const auto s = parse_swizzled_layout("Sw<3,4,3> o (64,(64,2)):(64,(1,4096))");
  ASSERT_TRUE(s.ok);
  TileExtents tl;
  tl.modes = 3;
  tl.extent[0] = 1;
  tl.extent[1] = 64;
  tl.extent[2] = 0;
  const PlanResult p = plan_tile(r.tensor, s.value, tl);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p.plan.params.address, 0x7f0000010200u);
  EXPECT_EQ(p.plan.instructions, 1u);

  dlpack::DLTensor bad = t;
  bad.dtype = {dlpack::kDLComplex, 64, 1};
  const auto rb = dlpack::from_dlpack(bad);
  ASSERT_FALSE(rb.ok());
  const auto ds = explain_plan(rb.issues, {});
  ASSERT_EQ(ds.size(), 1u);
  EXPECT_EQ(ds[0].rule_id, "gmem.dtype");
  EXPECT_NE(ds[0].message().find("code 5, 64 bits, 1 lanes"), std::string::npos) << ds[0].message();
}

namespace {
// A plan made at compile time: a row-major (rows, cols):(ld, 1) tensor, tiles of tile_rows x
// tile_cols in the shared layout sw o (tile_rows, tile_cols):(pitch, 1).
constexpr PlanResult plan_2d(DataType type, std::int64_t rows, std::int64_t cols, std::int64_t ld, SwizzleParams sw,
                             std::int64_t tile_rows, std::int64_t tile_cols, std::int64_t pitch, Arch arch) {
  GlobalTensor g;
  g.dtype = type;
  g.layout = make_layout(IntTuple::make(rows, cols), IntTuple::make(ld, 1));
  SwizzledLayout s;
  s.swizzle = sw;
  s.layout = make_layout(IntTuple::make(tile_rows, tile_cols), IntTuple::make(pitch, 1));
  TileExtents t;
  t.modes = 2;
  t.extent[0] = tile_rows;
  t.extent[1] = tile_cols;
  PlanOptions o;
  o.arch = arch;
  return plan_tile(g, s, t, o);
}
constexpr PlanResult kConstexprPlan = plan_2d(DataType::bfloat16, 4096, 4096, 4096, {3, 4, 3}, 128, 64, 64, Arch::sm_90);
static_assert(kConstexprPlan.ok());
static_assert(kConstexprPlan.plan.instructions == 1);
static_assert(kConstexprPlan.plan.expect_tx_bytes == 128 * 64 * 2);
static_assert(kConstexprPlan.plan.params.box[0] == 64 && kConstexprPlan.plan.params.box[1] == 128);
static_assert(encode(kConstexprPlan.plan.params).ok());
}  // namespace

TEST(Plan, ConstexprPlanEqualsTheRuntimePlan) {
  const Inputs in = parse("bf16 (4096,4096):(4096,1)", "Sw<3,4,3> o (128,64):(64,1)", "128,64");
  const PlanResult r = plan_tile(in.g, in.s, in.t);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(encode(r.plan.params).map == encode(kConstexprPlan.plan.params).map);  // all 128 bytes
  EXPECT_EQ(r.plan.expect_tx_bytes, kConstexprPlan.plan.expect_tx_bytes);
}

TEST(Plan, NotationRoundTripsAndRefusesGarbage) {
  const auto g = parse_global_tensor("f16 (64,(8,16)):(128,(1,8)) align=256 addr=0x1000");
  ASSERT_TRUE(g.ok) << g.error;
  EXPECT_EQ(g.value.base_alignment, 256u);
  EXPECT_EQ(g.value.address, 0x1000u);
  EXPECT_EQ(to_string(g.value), "f16 (64,(8,16)):(128,(1,8)) align=256 addr=0x1000");
  EXPECT_FALSE(parse_global_tensor("bf16").ok);
  EXPECT_NE(parse_global_tensor("bf17 (4,4):(4,1)").error.find("dtype 'bf17'"), std::string::npos);
  EXPECT_FALSE(parse_global_tensor("bf16 (4,4):(4,1) align=x").ok);
  const auto t = parse_tile_extents("(M=128, K=_, 1)");
  ASSERT_TRUE(t.ok) << t.error;
  EXPECT_EQ(t.value.modes, 3);
  EXPECT_EQ(t.value.extent[1], 0);
  EXPECT_EQ(t.names, (std::vector<std::string>{"M", "K", ""}));
  EXPECT_FALSE(parse_tile_extents("M=0").ok);
  EXPECT_FALSE(parse_tile_extents("=4").ok);
  EXPECT_FALSE(parse_tile_extents("").ok);
}

// ---------------------------------------------------------------------------------------------
// Refusals: rule ids and numbers.

TEST(PlanRefusal, InnerModeStridedInGlobalMemory) {
  const auto ds = refusals("bf16 (4096,4096):(4096,1)", "Sw<3,4,3> o (128,64):(1,128)", "tile_M=128,tile_K=64");
  expect_refusal(ds, "plan.inner_contiguous",
                 {"tile mode 0 (tile_M) is contiguous in shared memory but has global stride 4096",
                  "TMA's innermost box dimension must be contiguous in global memory",
                  "make tile mode 1 (tile_K) the innermost shared mode", "Sw<3,4,3> o (128,64):(64,1)",
                  "group (tile_M, tile_K)"});
}

TEST(PlanRefusal, InnerBoxBytes) {
  const auto ds = refusals("bf16 (512,4):(4,1)", "(64,4):(4,1)", "seq=64,d=_");
  expect_refusal(ds, "plan.inner_bytes", {"tile mode 1 (d)", "4 elements = 8 bytes", "multiple of 8 elements"});
}

TEST(PlanRefusal, GlobalStrideNotSixteenBytes) {
  const auto ds = refusals("bf16 (512,1028):(1028,1)", "(64,64):(64,1)", "rows=64,cols=64");
  expect_refusal(ds, "gmem.stride_align", {"tile mode 0 (rows)", "stride 1028 elements", "2056 bytes",
                                           "pad rows's stride to 1032 elements (2064 bytes)"});
}

// A padded stride must itself be legal: TMA strides are below 2^40 bytes. The padding was computed
// in int64 without a bound (stride 2^62 - 1 bf16: "pad ... to 4611686018427387904 elements
// (-9223372036854775808 bytes)"), and a padded stride of 2^41 bytes was offered as the fix.
TEST(PlanRefusal, StridePaddingStaysBelowTheLargestTmaStride) {
  for (const char* gmem : {"bf16 (8,2):(1,4611686018427387903)", "bf16 (8,2):(1,1099511627775)"}) {
    SCOPED_TRACE(gmem);
    const auto ds = refusals(gmem, "(8):(1)", "8,1");
    expect_refusal(ds, "gmem.stride_align",
                   {"TMA strides must be multiples of 16 bytes", "below 2^40 bytes",
                    "at most 549755813880 elements"});
    const PlanDiagnostic* d = find(ds, "gmem.stride_align");
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->fix.find("pad "), std::string::npos) << d->fix;
    EXPECT_EQ(d->message().find('-'), std::string::npos) << d->message();
  }
  // the largest legal padded stride is still offered: 2^39 - 9 bf16 -> 2^39 - 8 (2^40 - 16 bytes)
  expect_refusal(refusals("bf16 (8,2):(1,549755813879)", "(8):(1)", "8,1"), "gmem.stride_align",
                 {"pad mode 1's stride to 549755813880 elements (1099511627760 bytes)"});
}

// A TMA dimension's stride in bytes (stride x element size, x the coordinates a cut dimension steps)
// was computed in int64 without a bound: f64 stride 2^61 + 2 wrapped to a 16-byte stride and was
// planned (a descriptor reading the wrong rows), f32 stride 2^62 - 1 was shown as "-4 bytes". A
// stride that is a multiple of 16 bytes but at or above 2^40 bytes is gmem.stride_range (it was
// plan.descriptor's strides.below_2_40, which cannot show a byte count past int64), with the largest
// legal stride as the fix.
TEST(PlanRefusal, GlobalStrideBytesDoNotWrap) {
  expect_refusal(refusals("f64 (2,2):(1,2305843009213693954)", "(2,2):(1,2)", "_,_"), "gmem.stride_range",
                 {"tile mode 1 has global stride 2305843009213693954 elements (more than 9223372036854775807 bytes)",
                  "TMA strides must be below 2^40 bytes", "at most 137438953470 elements (1099511627760 bytes"});
  // a cut mode: the outer piece's dimension steps 2 coordinates of stride 2^62
  expect_refusal(refusals("bf16 (8,16):(1,4611686018427387904)", "(8,(2,8)):(1,(8,16))", "_,_"), "gmem.stride_range",
                 {"stride 4611686018427387904 elements", "more than 9223372036854775807 bytes", "at most "});
  const auto ds = refusals("f32 (8,2):(1,4611686018427387903)", "(8):(1)", "_,1");
  expect_refusal(ds, "gmem.stride_align", {"(more than 9223372036854775807 bytes)", "at most 274877906940 elements"});
  for (const auto& d : ds) EXPECT_EQ(d.message().find("-4 bytes"), std::string::npos) << d.message();
  expect_refusal(refusals("f32 (8,2):(1,1099511627776)", "(8,2):(1,8)", "_,_"), "gmem.stride_range",
                 {"(4398046511104 bytes)", "at most 274877906940 elements (1099511627760 bytes; a multiple of 4 elements)"});
  // the largest legal stride is planned (2^40 - 16 bytes)
  const Inputs in = parse("f32 (8,2):(1,274877906940)", "(8,2):(1,8)", "_,_");
  const PlanResult r = plan_tile(in.g, in.s, in.t);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.plan.params.strides[0], (std::uint64_t{1} << 40) - 16);
}

// Pieces longer than 256 are cut, and each cut piece steps by the extents below it: a contiguous
// bf16 run of 2^62 elements became loops whose shared steps (up to 2^57 bytes) overflowed the running
// total of covered bytes in build() (signed overflow, UBSan at planner.hpp:288), and a piece of 2^30
// at shared stride 2^40 was cut into a piece of stride 2^64 (wrapped to 0 in split_leaf). Such a tile
// spans more than any shared memory: plan.smem_capacity, with the span (here past int64), before
// any byte arithmetic. The first was reported as plan.rank (the 8 dimensions of the cut) instead, the
// second as smem.overlap of "tile mode 1 (shared stride 0)".
TEST(PlanRefusal, SharedSpanOfCutPiecesDoesNotWrap) {
  struct Case {
    const char *gmem, *smem, *tile;
  };
  for (const Case& c : {Case{"bf16 (4611686018427387904,1):(1,4611686018427387904)", "(4611686018427387904):(1)", "_,1"},
                        Case{"bf16 (8,1073741824):(1,8)", "(8,1073741824):(1,1099511627776)", "_,_"}}) {
    SCOPED_TRACE(c.smem);
    const auto ds = refusals(c.gmem, c.smem, c.tile);
    expect_refusal(ds, "plan.smem_capacity", {"the tile spans more than 9223372036854775807 bytes", "233472 per block"});
    for (const auto& d : ds) EXPECT_EQ(d.message().find('-'), std::string::npos) << d.message();
  }
  expect_refusal(refusals("bf16 (1099511627776,1):(1,1099511627776)", "(1099511627776):(1)", "_,1"),
                 "plan.smem_capacity", {"the tile spans 2199023255552 bytes"});
}

TEST(PlanRefusal, ElementUnitSwizzleIsNamed) {
  const auto ds = refusals("bf16 (512,64):(64,1)", "Sw<3,3,3> o (64,64):(64,1)", "64,_");
  expect_refusal(ds, "smem.swizzle", {"Sw<3,3,3>", "BYTE units", "Sw<3,4,3> in bytes"});
}

TEST(PlanRefusal, NoContiguousSharedModeAndOverlap) {
  expect_refusal(refusals("bf16 (512,64):(64,1)", "(64,64):(128,2)", "s=64,d=_"), "smem.no_contiguous",
                 {"smallest is 2", "tile mode 1 (d)", "(64,64):(64,1)"});
  expect_refusal(refusals("bf16 (512,64):(64,1)", "(64,64):(1,1)", "s=64,d=_"), "smem.overlap",
                 {"shared stride 1"});
  expect_refusal(refusals("bf16 (512,64):(64,1)", "(64,64):(0,1)", "s=64,d=_"), "smem.overlap",
                 {"tile mode 0 (s) has shared stride 0", "(64,64):(64,1)"});
}

TEST(PlanRefusal, SharedModesDoNotMatchTheTile) {
  expect_refusal(refusals("bf16 (512,64):(64,1)", "(8,8,64):(512,64,1)", "s=64,d=_"), "smem.rank",
                 {"3 top-level modes", "2 global modes (s, d)"});
  expect_refusal(refusals("bf16 (512,64):(64,1)", "(32,64):(64,1)", "s=64,d=_"), "smem.mode_size",
                 {"shared mode 0 has 32 elements", "tile mode 0 (s) spans 64"});
  expect_refusal(refusals("bf16 (512,64):(64,1)", "(64,64):(64,1)", "64"), "tile.rank",
                 {"1 entries", "2 modes"});
}

// The compact shared layout a fix suggests is computed without wrapping: tile extents of 8 x 2^31 x
// 2^31 x 2^31 need a stride of 2^65 for the last mode, which once printed as 0 ("(1,8,17179869184,0)");
// no layout of such a tile can be written in the notation (2^62 at most), so the fix says so.
TEST(PlanRefusal, SuggestedSharedLayoutDoesNotWrap) {
  const auto ds = refusals("bf16 (8,1,1,1):(1,8,8,8)", "(8):(1)", "8,2147483648,2147483648,2147483648");
  expect_refusal(ds, "smem.rank", {"4 global modes", "no shared layout of this tile can be written",
                                   "use a smaller tile"});
  const PlanDiagnostic* d = find(ds, "smem.rank");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->fix.find(",0)"), std::string::npos) << d->fix;
  EXPECT_EQ(d->fix.find("e.g."), std::string::npos) << d->fix;
  // a tile of 2^62 elements, the most the notation takes, still gets its layout
  expect_refusal(refusals("bf16 (8,1,1):(1,8,8)", "(8):(1)", "8,268435456,2147483648"), "smem.rank",
                 {"e.g. (8,268435456,2147483648):(1,8,2147483648)"});
}

TEST(PlanRefusal, GlobalTensorProblemsAllAtOnce) {
  const auto ds = refusals("bf16 (512,64):(-64,1) align=8", "(64,64):(64,1)", "s=64,d=_");
  expect_refusal(ds, "gmem.negative_stride", {"tile mode 0 (s)", "-64"});
  expect_refusal(ds, "gmem.base_align", {"alignment 8 bytes"});
}

// offset= is a view's storage offset: the base moves that many elements past the allocation that
// align= / addr= describe, keeps the alignment both have, and reads back from to_string.
TEST(Plan, ViewOffsetMovesTheBaseAndRoundTrips) {
  const auto g = parse_global_tensor("bf16 (1024,64):(64,1) align=256 addr=0x1000 offset=3");
  ASSERT_TRUE(g.ok) << g.error;
  EXPECT_EQ(g.value.address, 0x1006u);
  EXPECT_EQ(g.value.base_alignment, 2u);
  EXPECT_EQ(g.value.view_offset, 3);
  EXPECT_EQ(to_string(g.value), "bf16 (1024,64):(64,1) align=2 addr=0x1000 offset=3");
  const auto back = parse_global_tensor(to_string(g.value));
  ASSERT_TRUE(back.ok) << back.error;
  EXPECT_EQ(back.value.address, g.value.address);
  EXPECT_EQ(back.value.base_alignment, g.value.base_alignment);
  // a known address decides: 8 bytes past an address 8 bytes off 16 lands on 16
  const auto lands = parse_global_tensor("bf16 (1024,64):(64,1) addr=0x1008 offset=4");
  ASSERT_TRUE(lands.ok) << lands.error;
  EXPECT_EQ(lands.value.address, 0x1010u);
  EXPECT_EQ(lands.value.base_alignment, 16u);
  const auto whole = parse_global_tensor("fp32 (1024,64):(64,1) offset=4");  // 16 bytes: still aligned
  ASSERT_TRUE(whole.ok) << whole.error;
  EXPECT_EQ(whole.value.base_alignment, 16u);
  EXPECT_NE(parse_global_tensor("bf16 (4,4):(4,1) offset=1 offset=2").error.find("given twice"), std::string::npos);
  EXPECT_NE(parse_global_tensor("bf16 (4,4):(4,1) offset=-1").error.find("expected a number"), std::string::npos);
}

// A view 1 element into a 16-byte allocation (x[1:], pytorch #184563): gmem.base_align names the
// offset and the fixes that keep the allocation's alignment; an aligned view's offset is not blamed.
TEST(PlanRefusal, BaseAlignNamesTheViewOffset) {
  const auto ds = refusals("bf16 (1024,64):(64,1) offset=1", "(64,64):(64,1)", "s=64,d=_");
  expect_refusal(ds, "gmem.base_align", {"known alignment 2 bytes", "a view that starts 1 element (2 bytes) past",
                                         "add the view's offset to the copy's coordinates", "multiple of 8 elements"});
  const auto f32 = refusals("fp32 (1024,64):(64,1) offset=6", "(64,64):(64,1)", "s=64,d=_");
  expect_refusal(f32, "gmem.base_align", {"6 elements (24 bytes)", "multiple of 4 elements"});
  const auto alloc = refusals("bf16 (1024,64):(64,1) align=8 offset=8", "(64,64):(64,1)", "s=64,d=_");
  expect_refusal(alloc, "gmem.base_align", {"known alignment 8 bytes"});
  for (const auto& d : alloc) EXPECT_EQ(d.message().find("a view"), std::string::npos) << d.message();
}

// Addresses and alignments are unsigned: addr=align=2^64 - 1 was reported as "address -1, known
// alignment -1 bytes", and the descriptor's address.below_2_57 as "value -1".
TEST(PlanRefusal, AddressesAreShownUnsigned) {
  const auto ds = refusals("bf16 (512,64):(64,1) align=18446744073709551615 addr=18446744073709551615",
                           "(64,64):(64,1)", "s=64,d=_");
  expect_refusal(ds, "gmem.base_align", {"address 18446744073709551615, known alignment 18446744073709551615 bytes"});
  expect_refusal(ds, "plan.descriptor", {"[address.below_2_57]", "value 18446744073709551615"});
  for (const auto& d : ds)
    for (const char* wrapped : {"address -1", "alignment -1", "value -1"})
      EXPECT_EQ(d.message().find(wrapped), std::string::npos) << d.message();
}

TEST(PlanRefusal, TileExtentAndTooManyModes) {
  const Inputs in = parse("bf16 (512,64):(64,1)", "(64,64):(64,1)", "64,64");
  TileExtents t = in.t;
  t.extent[1] = -3;
  const PlanResult r = plan_tile(in.g, in.s, t);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.issues.contains(PlanRule::tile_extent));
  EXPECT_EQ(r.issues.items[0].value, -3);
  const Inputs many = parse("u8 (2,2,2,2,2,2,2,2,16):(16,32,64,128,256,512,1024,2048,1)", "16:1", "16");
  const PlanResult rm = plan_tile(many.g, many.s, many.t);
  ASSERT_FALSE(rm.ok());
  const auto ds = explain_plan(rm.issues, {});
  expect_refusal(ds, "gmem.rank", {"9 modes", "at most 8"});
}

TEST(PlanRefusal, ContiguousRunWithNoDivisor) {
  const auto ds = refusals("u8 (64,257):(272,1)", "(64,257):(257,1)", "r=64,c=_");
  expect_refusal(ds, "plan.box_split", {"tile mode 1 (c)", "257 elements", "at most 256"});
}

// A contiguous run of 2^62 - 1 f64 is 2^65 - 8 bytes: the message once printed "(-8 bytes)" (signed
// overflow in the explanation).
TEST(PlanRefusal, ContiguousRunBytesDoNotWrap) {
  const auto ds = refusals("f64 (4611686018427387903):(1)", "Sw<3,4,3> o (4611686018427387903):(1)", "_");
  expect_refusal(ds, "plan.inner_span",
                 {"contiguous for 4611686018427387903 elements (more than 9223372036854775807 bytes)",
                  "make mode 0's extent a multiple of 16"});
  const PlanDiagnostic* d = find(ds, "plan.inner_span");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->message().find("(-"), std::string::npos) << d->message();  // no negative byte count
  // a run whose bytes fit is still counted exactly, and the narrower swizzle still found
  expect_refusal(refusals("bf16 (512,96):(96,1)", "Sw<3,4,3> o (64,96):(96,1)", "64,_"), "plan.inner_span",
                 {"contiguous for 96 elements (192 bytes)", "Sw<2,4,3> (64B) with the contiguous mode cut as (32,3)"});
}

// plan.factor_divides pads the global extent to a multiple of the inner pieces only where the cut
// dimension stays within TMA's 2^32: 2^62 - 1 was "padded to 4611686018427387904" (its outer TMA
// dimension then 2^59), and a hand-written extent of 2^63 - 1 wrapped the padding negative.
TEST(PlanRefusal, FactorPaddingIsALegalExtent) {
  expect_refusal(refusals("bf16 (8589934593):(1)", "((8,2)):((1,16))", "16"), "plan.factor_divides",
                 {"pad mode 0's global extent to 8589934600"});  // 8589934600 / 8 = 1073741825 <= 2^32
  const auto ds = refusals("bf16 (4611686018427387903):(1)", "((8,2)):((1,16))", "16");
  expect_refusal(ds, "plan.factor_divides", {"global extent 4611686018427387903 to be a multiple of 8",
                                             "576460752303423488 elements, more than 2^32"});
  const PlanDiagnostic* d = find(ds, "plan.factor_divides");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->fix.find("pad "), std::string::npos) << d->fix;

  const Inputs in = parse("bf16 (1001):(1)", "((8,2)):((1,16))", "16");
  ProblemResult pr = make_tile_problem(in.g, in.s, in.t);
  ASSERT_TRUE(pr.ok());
  pr.problem.extent[0] = INT64_MAX;
  const PlanResult r = plan_tma(pr.problem);
  ASSERT_FALSE(r.ok());
  const auto dh = explain_plan(r.issues, r.problem, in.names);
  expect_refusal(dh, "plan.factor_divides", {"global extent 9223372036854775807 to be a multiple of 8",
                                             "1152921504606846976 elements, more than 2^32"});
  const PlanDiagnostic* h = find(dh, "plan.factor_divides");
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->fix.find('-'), std::string::npos) << h->fix;
}

TEST(PlanRefusal, BoxSplitNamesTheSixteenByteCondition) {
  // 300 has divisors <= 256 (150, 100, ...), but none whose bf16 rows are a multiple of 16 bytes
  const auto ds = refusals("bf16 (64,300):(304,1)", "(64,300):(300,1)", "r=64,c=_");
  expect_refusal(ds, "plan.box_split",
                 {"300 elements", "no divisor in 2..256 whose rows are a multiple of 16 bytes to cut it by"});
  // an outer piece has no such condition: 257 rows, no divisor at all
  const auto dr = refusals("u8 (1024,16):(16,1)", "(257,16):(16,1)", "r=257,c=_");
  expect_refusal(dr, "plan.box_split", {"tile mode 0 (r)", "257 elements", "no divisor in 2..256 to cut it by"});
}

TEST(PlanRefusal, InstructionsThatWouldOverwriteEachOther) {
  // rows of 128 bf16 (256 bytes) placed 64 elements (128 bytes) apart: each instruction would
  // overwrite half of the one before (the planner used to plan 4 instructions at +0/+128/+256/+384)
  const auto ds = refusals("bf16 (512,128):(128,1)", "(4,128):(64,1)", "r=4,d=_");
  expect_refusal(ds, "smem.overlap",
                 {"tile mode 0 (r) (shared stride 64)", "start 128 bytes apart", "already cover 256 bytes",
                  "overwrite 128 bytes", "shared stride of at least 128 elements", "(4,128):(128,1)"});
  // nested loops: the outer step must clear the inner loop's instructions too (3 x 256 + 128)
  const auto dn = refusals("bf16 (512,64,4):(64,1,32768)", "(4,64,2):(128,1,384)", "r=4,d=_,h=2");
  expect_refusal(dn, "smem.overlap", {"tile mode 2 (h)", "start 768 bytes apart", "already cover 896 bytes"});
  // a gap between instructions is fine, and so are nested loops that just clear each other
  EXPECT_EQ(plan_and_check("bf16 (512,128):(128,1)", "(4,128):(192,1)", "r=4,d=_").instructions, 4u);
  EXPECT_EQ(plan_and_check("bf16 (512,64,4):(64,1,32768)", "(4,64,2):(128,1,448)", "r=4,d=_,h=2").instructions, 8u);
}

TEST(PlanRefusal, SharedStridesBeyondSharedMemoryDoNotWrap) {
  // 2^31 elements of bf16 = 2^32 bytes: a 32-bit step wrapped to 0 (both instructions at +0)
  const auto ds = refusals("bf16 (512,64):(64,1)", "(2,64):(2147483648,1)", "r=2,d=_");
  expect_refusal(ds, "plan.smem_capacity", {"4294967424 bytes"});
  EXPECT_EQ(find(ds, "smem.overlap"), nullptr);
  // far beyond: refused before any byte arithmetic
  const auto df = refusals("bf16 (512,64):(64,1)", "(2,64):(1125899906842624,1)", "r=2,d=_");
  expect_refusal(df, "plan.smem_capacity", {"one step of tile mode 0 (r) moves at least 2251799813685248 bytes"});
}

TEST(PlanRefusal, OneCauseIsReportedOnce) {
  // a misaligned base: gmem.base_align, not also the descriptor's address.align16
  const auto da = refusals("bf16 (512,64):(64,1) addr=0x8", "(64,64):(64,1)", "r=64,d=_");
  expect_refusal(da, "gmem.base_align", {"address 8"});
  EXPECT_EQ(da.size(), 1u) << da.back().message();
  // a box beyond shared memory: plan.smem_capacity, not also the descriptor's box.smem_footprint
  const auto ds = refusals("f32 (4096,1024):(1024,1)", "(256,1024):(1024,1)", "r=256,c=_");
  EXPECT_NE(find(ds, "plan.smem_capacity"), nullptr);
  EXPECT_EQ(find(ds, "plan.descriptor"), nullptr) << find(ds, "plan.descriptor")->message();
}

TEST(PlanRefusal, HandWrittenProblemsAreChecked) {
  // plan_tma trusts no invariant of make_tile_problem: each mode's pieces step by the extents
  // before them and multiply to its tile extent
  const Inputs in = parse("bf16 (512,64):(64,1)", "(64,64):(64,1)", "s=64,d=_");
  const ProblemResult pr = make_tile_problem(in.g, in.s, in.t);
  ASSERT_TRUE(pr.ok());
  ASSERT_TRUE(plan_tma(pr.problem).ok());
  TileProblem wide = pr.problem;
  wide.tile[0] = 128;  // the pieces still cover 64 rows
  const PlanResult rw = plan_tma(wide);
  ASSERT_FALSE(rw.ok());
  expect_refusal(explain_plan(rw.issues, rw.problem, in.names), "smem.mode_size",
                 {"pieces of tile mode 0 (s) multiply to 64 elements but it spans 128"});
  TileProblem unpieced = pr.problem;
  unpieced.extent[0] = 64;
  unpieced.tile[0] = 4;  // a mode with no pieces (dropped below) but a tile extent of 4
  unpieced.leaf[0] = unpieced.leaf[1];
  unpieced.leaves = 1;
  EXPECT_TRUE(plan_tma(unpieced).issues.contains(PlanRule::smem_mode_size));
  TileProblem skewed = pr.problem;
  skewed.leaf[0] = TileLeaf{8, 64, 0, 1, 0};
  skewed.leaf[2] = TileLeaf{8, 512, 0, 4, 1};  // should step 8 rows
  skewed.leaves = 3;
  const PlanResult rs = plan_tma(skewed);
  ASSERT_FALSE(rs.ok());
  expect_refusal(explain_plan(rs.issues, rs.problem, in.names), "smem.mode_size",
                 {"steps 4 coordinates of s", "span 8", "offset to 8"});
}

TEST(PlanRefusal, MoreThanFiveTmaDimensions) {
  // four index modes that do not continue each other in memory: no folding possible
  const auto ds = refusals("bf16 (2,2,2,2,64,64):(8192,32768,131072,524288,64,1)", "(64,64):(64,1)", "1,1,1,1,64,64");
  expect_refusal(ds, "plan.rank", {"needs 6 TMA dimensions", "at most 5"});
}

TEST(PlanRefusal, PaddedRowsBreakTheDestinationAlignment) {
  const auto ds = refusals("bf16 (512,64):(64,1)", "Sw<3,4,3> o (8,64):(72,1)", "r=8,d=_");
  expect_refusal(ds, "plan.smem_offset_align", {"tile mode 0 (r)", "144 bytes apart", "aligned to 1024 bytes"});
  // without a swizzle: 128 bytes (144 faulted with "misaligned address" on an H100)
  const auto dn = refusals("bf16 (512,64):(64,1)", "(8,64):(72,1)", "r=8,d=_");
  expect_refusal(dn, "plan.smem_offset_align", {"144 bytes apart", "aligned to 128 bytes", "multiple of 64 elements"});
}

TEST(PlanRefusal, StageTooLargeForTheBarrierAndSharedMemory) {
  const auto ds = refusals("f32 (4096,1024):(1024,1)", "(256,1024):(1024,1)", "r=256,c=_");
  expect_refusal(ds, "plan.expect_tx", {"1048576 bytes", "at most 1048575"});
  expect_refusal(ds, "plan.smem_capacity", {"1048576 bytes"});
}

TEST(Plan, BoxPiecesCutsTheBoxIntoEqualCopiesThatStillLandEveryElement) {
  // The many-copy form of a GEMM B tile (256 x 64 bf16, 128B swizzle): one 32 KiB box, or 2 / 4 / 8
  // copies of 128 / 64 / 32 rows, each landing one contiguous quarter (etc.) of the stage.
  const std::string g = "bf16 (8192,8192):(8192,1)", s = "Sw<3,4,3> o (256,64):(64,1)", t = "N=256,K=64";
  for (std::uint32_t pieces : {1u, 2u, 4u, 8u}) {
    SCOPED_TRACE(pieces);
    PlanOptions o;
    o.box_pieces = pieces;
    const TmaPlan p = plan_and_check(g, s, t, o);
    EXPECT_EQ(p.instructions, pieces);
    EXPECT_EQ(p.params.box[1], 256u / pieces);
    EXPECT_EQ(p.tx_bytes_per_instruction, 32768u / pieces);
    EXPECT_EQ(p.expect_tx_bytes, 32768u);
  }
  // With multicast over two CTAs the pieces divide over them: 4 pieces, 2 issued by each.
  PlanOptions o;
  o.box_pieces = 4;
  o.cluster[0] = 2;
  o.multicast_dim = 0;
  const TmaPlan p = plan_and_check(g, s, t, o);
  EXPECT_EQ(p.instructions, 4u);
  EXPECT_EQ(p.instructions_per_cta, 2u);
  EXPECT_EQ(p.expect_tx_bytes, 32768u);
  // A count that does not cut the box into aligned equal parts is refused, naming both numbers.
  PlanOptions bad;
  bad.box_pieces = 3;
  expect_refusal(refusals(g, s, t, bad), "plan.box_pieces", {"256 elements", "into 3 equal copies"});
  bad.box_pieces = 512;  // slices of half a row: below the 1024-byte swizzle alignment
  expect_refusal(refusals(g, s, t, bad), "plan.box_pieces", {"into 512 equal copies"});
}

TEST(Plan, OriginIsLinearSoAWalkAlongOneModeOnlyAdds) {
  // instruction(k, t) == instruction_at(k, origin(t0).plus(origin(step), n)) for t = t0 + n * step:
  // what a kernel walking a plan along one tile mode relies on. MN-major (rank 4, several coefficients per dim),
  // a cut box (loops) and a 3-mode tensor.
  struct Case {
    std::string g, s, t;
    std::uint32_t pieces;
  };
  const Case cases[] = {
      {"bf16 (8192,8192):(8192,1)", "Sw<3,4,3> o (256,64):(64,1)", "N=256,K=64", 4},
      {"bf16 (4096,4096):(1,4096)", "Sw<3,4,3> o ((64,2),(8,8)):((1,4096),(64,512))", "M=128,K=64", 1},
      {"f32 (3,512,96):(49152,96,1)", "(128,32):(32,1)", "b=1,r=128,d=32", 1},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.g + " | " + c.s);
    const Inputs in = parse(c.g, c.s, c.t);
    PlanOptions o;
    o.box_pieces = c.pieces;
    const PlanResult r = plan_tile(in.g, in.s, in.t, o);
    ASSERT_TRUE(r.ok()) << describe_plan(r.plan, in.names);
    const TmaPlan& p = r.plan;
    const int km = p.tile_modes - (p.tile_modes == 3 ? 2 : 1);  // walk the K / d mode
    std::int32_t t0[kMaxTileModes] = {}, step[kMaxTileModes] = {};
    t0[0] = p.tile_modes == 3 ? 2 : 3;
    step[km] = 1;
    const PlanOrigin o0 = p.origin(t0), os = p.origin(step);
    for (std::int32_t n = 0; n < 3; ++n) {
      std::int32_t t[kMaxTileModes] = {};
      for (int m = 0; m < kMaxTileModes; ++m) t[m] = t0[m] + n * step[m];
      for (std::uint32_t k = 0; k < p.instructions; ++k) {
        const PlanInstruction a = p.instruction(k, t), b = p.instruction_at(k, o0.plus(os, n));
        EXPECT_EQ(a.smem_offset, b.smem_offset);
        for (std::uint32_t d = 0; d < kMaxRank; ++d) EXPECT_EQ(a.coord[d], b.coord[d]) << "dim " << d << " step " << n;
      }
    }
  }
}

TEST(PlanRefusal, MulticastThatCannotBeSplitAndBadClusters) {
  PlanOptions o;
  o.cluster[0] = 2;
  o.multicast_dim = 0;
  expect_refusal(refusals("bf16 (512,64):(64,1)", "(3,64):(64,1)", "r=3,d=_", o), "plan.multicast",
                 {"1 instructions", "over the 2 CTAs"});
  PlanOptions big;
  big.cluster[0] = 4;
  big.cluster[1] = 4;
  big.cluster[2] = 2;
  big.multicast_dim = 0;
  expect_refusal(refusals("bf16 (512,64):(64,1)", "(64,64):(64,1)", "r=64,d=_", big), "plan.cluster",
                 {"cluster of 32 CTAs"});
  // Without multicast too: a shape that cannot be launched was planned as if it could.
  for (const std::array<std::uint32_t, 3> shape : {std::array<std::uint32_t, 3>{16, 16, 1}, {0, 1, 1}, {1, 1, 0}}) {
    PlanOptions plain;
    for (int i = 0; i < 3; ++i) plain.cluster[i] = shape[i];
    expect_refusal(refusals("bf16 (512,64):(64,1)", "(64,64):(64,1)", "r=64,d=_", plain), "plan.cluster",
                   {"cluster of " + std::to_string(shape[0] * shape[1] * shape[2]) + " CTAs:", "at least 1 in each"});
  }
}

TEST(PlanRefusal, RuleIdsAreStableAndDistinct) {
  std::vector<std::string> ids;
  for (int i = 0; i < rule_count<PlanRule>; ++i) ids.push_back(rule_id(static_cast<PlanRule>(i)));
  EXPECT_EQ(ids[0], "gmem.dtype");
  EXPECT_EQ(ids[static_cast<int>(PlanRule::inner_contiguous)], "plan.inner_contiguous");
  EXPECT_EQ(ids[static_cast<int>(PlanRule::leaf_capacity)], "plan.capacity");
  EXPECT_EQ(ids[static_cast<int>(PlanRule::gmem_stride_range)], "gmem.stride_range");
  EXPECT_EQ(ids[static_cast<int>(PlanRule::store_multicast)], "plan.store_multicast");
  EXPECT_EQ(ids[static_cast<int>(PlanRule::store_oob_fill)], "plan.store_oob_fill");
  EXPECT_EQ(ids[static_cast<int>(PlanRule::reduce_dtype)], "plan.reduce_dtype");
  EXPECT_EQ(ids[static_cast<int>(PlanRule::gmem_dtype_arch)], "gmem.dtype_arch");
  EXPECT_EQ(ids[static_cast<int>(PlanRule::box_pieces)], "plan.box_pieces");
  EXPECT_EQ(ids.back(), "plan.coord_range");  // the last rule
  for (std::size_t i = 0; i < ids.size(); ++i)
    for (std::size_t k = i + 1; k < ids.size(); ++k) EXPECT_NE(ids[i], ids[k]);
}

// ---------------------------------------------------------------------------------------------
// Stores and reductions: the same boxes, coordinates and shared offsets as the load plan of the
// same tile, no mbarrier bytes, and the bulk-group steps in the description.

namespace {

PlanOptions store_options(PlanDirection d, ReduceOp op = ReduceOp::add) {
  PlanOptions o;
  o.direction = d;
  o.reduce_op = op;
  return o;
}

void expect_same_copies(const TmaPlan& load, const TmaPlan& st) {
  ASSERT_EQ(load.instructions, st.instructions);
  ASSERT_EQ(load.params.rank, st.params.rank);
  EXPECT_EQ(std::memcmp(&load.params, &st.params, sizeof load.params), 0) << "descriptors differ";
  EXPECT_EQ(load.tile_modes, st.tile_modes);
  EXPECT_EQ(load.smem_bytes, st.smem_bytes);
  EXPECT_EQ(load.smem_alignment, st.smem_alignment);
  EXPECT_EQ(load.tx_bytes_per_instruction, st.tx_bytes_per_instruction);
  const std::int32_t t[kMaxTileModes] = {1, 2, 1, 1, 1, 1, 1, 1};
  for (std::uint32_t k = 0; k < load.instructions; ++k) {
    const PlanInstruction a = load.instruction(k, t), b = st.instruction(k, t);
    EXPECT_EQ(a.smem_offset, b.smem_offset) << k;
    for (std::uint32_t j = 0; j < load.params.rank; ++j) EXPECT_EQ(a.coord[j], b.coord[j]) << k << " dim " << j;
  }
}

}  // namespace

TEST(PlanStore, StorePlanIssuesTheLoadPlansBoxes) {
  const std::vector<std::array<std::string, 3>> cases = {
      {"bf16 (384,320):(320,1)", "Sw<3,4,3> o (128,64):(64,1)", "M=128,K=64"},
      {"bf16 (384,320):(1,384)", "Sw<3,4,3> o ((64,2),64):((1,4096),64)", "N=128,K=64"},
      {"bf16 (512,64):(64,1)", "(8,64):(128,1)", "r=8,d=_"},
      {"bf16 (256,8,64):(512,64,1)", "Sw<3,4,3> o (64,64):(64,1)", "seq=64,h=1,d=_"},
      {"f32 (1000,32):(32,1)", "(512,32):(32,1)", "seq=512,d=_"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c[0] + " | " + c[1]);
    const Inputs in = parse(c[0], c[1], c[2]);
    const PlanResult load = plan_tile(in.g, in.s, in.t);
    const PlanResult st = plan_tile(in.g, in.s, in.t, store_options(PlanDirection::store));
    ASSERT_TRUE(load.ok() && st.ok());
    EXPECT_EQ(load.plan.direction, PlanDirection::load);
    EXPECT_EQ(st.plan.direction, PlanDirection::store);
    EXPECT_EQ(st.plan.expect_tx_bytes, 0u);  // no mbarrier
    expect_same_copies(load.plan, st.plan);
    if (in.g.dtype == DataType::float32) {
      const PlanResult red = plan_tile(in.g, in.s, in.t, store_options(PlanDirection::reduce, ReduceOp::add));
      ASSERT_TRUE(red.ok());
      EXPECT_EQ(red.plan.direction, PlanDirection::reduce);
      EXPECT_EQ(red.plan.reduce_op, ReduceOp::add);
      expect_same_copies(load.plan, red.plan);
    }
  }
}

TEST(PlanStore, DescriptionNamesTheDirectionAndTheBulkGroupSteps) {
  const Inputs in = parse("bf16 (384,320):(320,1)", "Sw<3,4,3> o (128,64):(64,1)", "M=128,K=64");
  const PlanResult load = plan_tile(in.g, in.s, in.t);
  EXPECT_TRUE(bulk_group_steps(load.plan).empty());
  EXPECT_EQ(describe_plan(load.plan).find("bulk groups"), std::string::npos);
  const PlanResult st = plan_tile(in.g, in.s, in.t, store_options(PlanDirection::store));
  const std::string d = describe_plan(st.plan, in.names);
  EXPECT_NE(d.find("direction: store (shared -> global"), std::string::npos) << d;
  EXPECT_NE(d.find("plan: 1 TMA store per tile, 16384 bytes each"), std::string::npos) << d;
  const std::vector<BulkGroupStep> steps = bulk_group_steps(st.plan);
  ASSERT_EQ(steps.size(), 4u);
  EXPECT_NE(steps[0].ptx.find("fence.proxy.async.shared::cta"), std::string::npos);
  EXPECT_EQ(steps[1].call, "commit_group()");
  EXPECT_NE(steps[2].call.find("wait_group_read<0>"), std::string::npos);
  EXPECT_EQ(steps[3].call, "wait_group<0>()");
  for (const auto& b : steps) EXPECT_NE(d.find(b.ptx), std::string::npos) << b.ptx;
  const PlanResult red = plan_tile(in.g, in.s, in.t, store_options(PlanDirection::reduce, ReduceOp::max));
  ASSERT_TRUE(red.ok());
  const std::string r = describe_plan(red.plan, in.names);
  EXPECT_NE(r.find("direction: reduce .max (shared -> global, cp.reduce.async.bulk.tensor"), std::string::npos) << r;
  EXPECT_NE(r.find("before the reductions"), std::string::npos) << r;
}

TEST(PlanStore, ConstexprStorePlan) {
  constexpr PlanResult r = [] {
    GlobalTensor g;
    g.dtype = DataType::float32;
    g.layout = make_layout(IntTuple::make(256, 64), IntTuple::make(64, 1));
    SwizzledLayout s;
    s.layout = make_layout(IntTuple::make(32, 64), IntTuple::make(64, 1));
    TileExtents t;
    t.modes = 2;
    t.extent[0] = 32;
    t.extent[1] = 0;
    PlanOptions o;
    o.direction = PlanDirection::reduce;
    o.reduce_op = ReduceOp::add;
    return plan_tile(g, s, t, o);
  }();
  static_assert(r.ok() && r.plan.direction == PlanDirection::reduce && r.plan.reduce_op == ReduceOp::add);
  EXPECT_EQ(r.plan.instructions, 1u);
}

TEST(PlanStoreRefusal, StoreWithMulticast) {
  PlanOptions o = store_options(PlanDirection::store);
  o.cluster[0] = 2;
  o.multicast_dim = 0;
  expect_refusal(refusals("bf16 (384,320):(320,1)", "Sw<3,4,3> o (128,64):(64,1)", "M=128,K=64", o),
                 "plan.store_multicast", {"a store cannot multicast", "drop --multicast-mode"});
  o.direction = PlanDirection::reduce;
  expect_refusal(refusals("f32 (384,320):(320,1)", "(128,32):(32,1)", "M=128,K=32", o), "plan.store_multicast",
                 {"a reduction cannot multicast"});
}

TEST(PlanStoreRefusal, StoreWithOobFill) {
  PlanOptions o = store_options(PlanDirection::store);
  o.oob = OobFill::nan_request_zero_fma;
  expect_refusal(refusals("bf16 (384,320):(320,1)", "Sw<3,4,3> o (128,64):(64,1)", "M=128,K=64", o),
                 "plan.store_oob_fill", {"takes no out-of-bounds fill", "--oob none"});
}

// Every refusal at once: multicast, the fill and the type of one reduction.
TEST(PlanStoreRefusal, AllStoreRefusalsAtOnce) {
  PlanOptions o = store_options(PlanDirection::reduce, ReduceOp::inc);
  o.cluster[0] = 2;
  o.multicast_dim = 0;
  o.oob = OobFill::nan_request_zero_fma;
  const auto ds = refusals("f32 (384,320):(320,1)", "(128,32):(32,1)", "M=128,K=32", o);
  EXPECT_NE(find(ds, "plan.store_multicast"), nullptr);
  EXPECT_NE(find(ds, "plan.store_oob_fill"), nullptr);
  expect_refusal(ds, "plan.reduce_dtype", {".inc does not take f32", "f32 takes .add"});
}

// The PTX ISA's table (core/reduce_op.hpp), checked through the planner for every op and type.
TEST(PlanStoreRefusal, ReduceOpMustTakeTheElementType) {
  struct Row {
    DataType t;
    const char* gmem;
    const char* smem;
    std::vector<ReduceOp> ok;
  };
  using O = ReduceOp;
  const std::vector<Row> rows = {
      {DataType::float32, "f32 (256,64):(64,1)", "(32,64):(64,1)", {O::add}},
      {DataType::float64, "f64 (256,64):(64,1)", "(32,64):(64,1)", {}},
      {DataType::float16, "f16 (256,64):(64,1)", "(32,64):(64,1)", {O::add, O::min, O::max}},
      {DataType::bfloat16, "bf16 (256,64):(64,1)", "(32,64):(64,1)", {O::add, O::min, O::max}},
      {DataType::uint32, "u32 (256,64):(64,1)", "(32,64):(64,1)", {O::add, O::min, O::max, O::inc, O::dec, O::and_, O::or_, O::xor_}},
      {DataType::int32, "s32 (256,64):(64,1)", "(32,64):(64,1)", {O::add, O::min, O::max, O::and_, O::or_, O::xor_}},
      {DataType::uint64, "u64 (256,64):(64,1)", "(32,64):(64,1)", {O::add, O::min, O::max, O::and_, O::or_, O::xor_}},
      {DataType::int64, "s64 (256,64):(64,1)", "(32,64):(64,1)", {O::min, O::max, O::and_, O::or_, O::xor_}},
      {DataType::uint8, "u8 (256,64):(64,1)", "(32,64):(64,1)", {}},
      {DataType::uint16, "u16 (256,64):(64,1)", "(32,64):(64,1)", {}},
  };
  for (const Row& row : rows) {
    for (std::uint32_t o = 0; o < kReduceOpCount; ++o) {
      const auto op = static_cast<ReduceOp>(o);
      const bool legal = std::find(row.ok.begin(), row.ok.end(), op) != row.ok.end();
      SCOPED_TRACE(std::string(row.gmem) + " ." + reduce_op_name(op));
      EXPECT_EQ(reduce_op_allows(op, row.t), legal);
      const Inputs in = parse(row.gmem, row.smem, "r=32,c=_");
      const PlanResult r = plan_tile(in.g, in.s, in.t, store_options(PlanDirection::reduce, op));
      if (legal) {
        EXPECT_TRUE(r.ok());
        continue;
      }
      const auto ds = explain_plan(r.issues, r.problem, in.names);
      expect_refusal(ds, "plan.reduce_dtype",
                     {std::string(".") + reduce_op_name(op) + " does not take " + short_name(row.t)});
      EXPECT_EQ(ds.size(), 1u);
    }
  }
  // u32 takes every op: the message lists them
  PlanIssues one;
  one.add(PlanIssue{.rule = PlanRule::reduce_dtype, .value = static_cast<std::int64_t>(ReduceOp::inc),
                    .limit = reduce_ops_allowed(DataType::int32), .setting = static_cast<std::int64_t>(DataType::int32)});
  const auto d = explain_plan(one, TileProblem{});
  EXPECT_NE(d[0].message().find("s32 takes .add, .min, .max, .and, .or, .xor"), std::string::npos) << d[0].message();
}

// The alignment a base address is known to have (plan notation addr=, DLPack data + byte_offset).
// ---------------------------------------------------------------------------------------------
// 16U4_ALIGN8B (FP4 packed two values per byte, in global and in shared memory): planned for sm_100
// and sm_120 with offsets counted in bits (smem_element_bits = 4). The host model of TMA has no
// packed types, so these tests check the descriptor and the byte counts against the codec's own
// functions; the packing comes from cuda.h's description of the type (no gaps between values),
// not from a Blackwell GPU.

namespace {
PlanResult plan_u4(const std::string& gmem, const std::string& smem, const std::string& tile, Arch arch) {
  const Inputs in = parse(gmem, smem, tile);
  PlanOptions o;
  o.arch = arch;
  return plan_tile(in.g, in.s, in.t, o);
}

// The planner stays constexpr for the sub-byte type.
constexpr PlanResult kU4Plan = plan_2d(DataType::u4x16_align8b, 128, 128, 128, {3, 4, 3}, 128, 128, 256, Arch::sm_100);
static_assert(kU4Plan.ok());
static_assert(kU4Plan.plan.expect_tx_bytes == 128 * 128 / 2 && kU4Plan.plan.smem_bytes == 128 * 128);
}  // namespace

TEST(PlanPacked, U4Align8BTileWith128BSwizzleOnBlackwell) {
  for (Arch arch : {Arch::sm_100, Arch::sm_120}) {
    SCOPED_TRACE(to_name(arch));
    // 128 x 128 values, K contiguous; each 128-value row is 64 bytes, which TMA pads to the 128-byte
    // swizzle span in shared memory: the shared row pitch is 256 values
    const PlanResult r =
        plan_u4("u4_align8b (128,128):(128,1)", "Sw<3,4,3> o (128,128):(256,1)", "M=128,K=128", arch);
    ASSERT_TRUE(r.ok()) << explain_plan(r.issues, r.problem, {}).front().message();
    const TmaPlan& p = r.plan;
    const TensorMapParams& q = p.params;
    EXPECT_EQ(q.dtype, DataType::u4x16_align8b);
    EXPECT_EQ(q.arch, arch);
    EXPECT_EQ(q.swizzle, Swizzle::b128);
    ASSERT_EQ(q.rank, 2u);
    EXPECT_EQ(q.dims[0], 128u);
    EXPECT_EQ(q.dims[1], 128u);
    EXPECT_EQ(q.strides[0], 64u);  // 128 values x 4 bits
    EXPECT_EQ(q.box[0], 128u);
    EXPECT_EQ(q.box[1], 128u);
    EXPECT_EQ(p.dim[1].smem_pitch, 256);
    EXPECT_TRUE(is_valid(q));
    EXPECT_TRUE(encode(q).ok());
    // expect_tx: what the box delivers (4 bits x 128 x 128 = 8192 bytes), the codec's
    // transaction_bytes, not the 16384 bytes the padded rows span
    EXPECT_EQ(p.instructions, 1u);
    EXPECT_EQ(transaction_bytes(q), 8192u);
    EXPECT_EQ(p.expect_tx_bytes, transaction_bytes(q));
    EXPECT_EQ(p.tx_bytes_per_instruction, 8192u);
    EXPECT_EQ(p.smem_bytes, 16384u);
    EXPECT_EQ(p.smem_bytes, box_smem_image_bytes(q));
    EXPECT_EQ(p.smem_alignment, 1024u);
  }
}

TEST(PlanPacked, U4Align8BRowsThatFillTheSpanAndLongRows) {
  // 256 values = 128 bytes fill the 128B span: no padding, expect_tx = the shared bytes
  const PlanResult a = plan_u4("u4_align8b (256,1024):(1024,1)", "Sw<3,4,3> o (64,256):(256,1)", "M=64,K=256", Arch::sm_100);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a.plan.params.box[0], 256u);
  EXPECT_EQ(a.plan.params.strides[0], 512u);
  EXPECT_EQ(a.plan.expect_tx_bytes, 8192u);
  EXPECT_EQ(a.plan.smem_bytes, 8192u);
  // 512 contiguous values without swizzle: rows of at most 256 values (box dims hold 256), so K is
  // cut into a third TMA dimension stepping 128 bytes in global memory
  const PlanResult b = plan_u4("u4_align8b (64,1024):(1024,1)", "(64,512):(512,1)", "M=64,K=512", Arch::sm_120);
  ASSERT_TRUE(b.ok());
  ASSERT_EQ(b.plan.params.rank, 3u);
  EXPECT_EQ(b.plan.params.box[0], 256u);
  EXPECT_EQ(b.plan.params.box[1], 2u);
  EXPECT_EQ(b.plan.params.strides[0], 128u);
  EXPECT_EQ(b.plan.params.strides[1], 512u);
  EXPECT_EQ(b.plan.instructions, 1u);
  EXPECT_EQ(b.plan.expect_tx_bytes, 64u * 512 / 2);
  EXPECT_EQ(b.plan.expect_tx_bytes, transaction_bytes(b.plan.params));
}

TEST(PlanPackedRefusal, U4Align8BOnSm90) {
  const auto ds = refusals("u4_align8b (128,128):(128,1)", "Sw<3,4,3> o (128,128):(256,1)", "M=128,K=128");
  ASSERT_EQ(ds.size(), 1u);
  expect_refusal(ds, "gmem.dtype_arch", {"16U4_ALIGN8B is a packed sub-byte type, which sm_90 does not have"});
}

TEST(PlanPackedRefusal, U4Align8BInnerBoxNotSixteenBytes) {
  // the driver's rule: boxDim[0] x 4 bits a multiple of 16 bytes, so K a multiple of 32 values
  PlanOptions o;
  o.arch = Arch::sm_100;
  const auto ds = refusals("u4_align8b (128,128):(128,1)", "(128,16):(16,1)", "M=128,K=16", o);
  expect_refusal(ds, "plan.inner_bytes", {"tile mode 1 (K)", "16 elements = 8 bytes", "multiple of 32 elements (e.g. 32)"});
  const auto odd = refusals("u4_align8b (128,128):(128,1)", "(128,33):(33,1)", "M=128,K=33", o);
  expect_refusal(odd, "plan.inner_bytes", {"33 elements = 16.5 bytes", "(e.g. 64)"});
  EXPECT_TRUE(plan_u4("u4_align8b (128,128):(128,1)", "(128,32):(32,1)", "M=128,K=32", Arch::sm_100).ok());
}

TEST(PlanPackedRefusal, U4Align8BOffsetsCountHalfBytes) {
  PlanOptions o;
  o.arch = Arch::sm_120;
  // compact rows of 64 bytes under the 128B swizzle: TMA pads each row to 128 bytes
  const auto dense = refusals("u4_align8b (128,128):(128,1)", "Sw<3,4,3> o (128,128):(128,1)", "M=128,K=128", o);
  // (the suggested compact layout pads the rows as TMA does: the layout planned above)
  expect_refusal(dense, "smem.overlap", {"start 64 bytes apart", "cover 128 bytes", "at least 256 elements",
                                         "a compact layout such as Sw<3,4,3> o (128,128):(256,1)"});
  expect_refusal(dense, "plan.smem_offset_align", {"start 64 bytes apart", "multiple of 2048 elements"});
  // a shared stride of 129 values puts the next instruction half a byte off
  const auto half = refusals("u4_align8b (64,128):(128,1)", "(2,64):(129,1)", "M=2,K=64", o);
  expect_refusal(half, "plan.smem_offset_align", {"start 64.5 bytes apart", "aligned to 128 bytes", "multiple of 256 elements"});
  // global strides count 4 bits per value: 129 values are 64.5 bytes
  const auto g = refusals("u4_align8b (64,128):(129,1)", "(64,64):(64,1)", "M=64,K=64", o);
  expect_refusal(g, "gmem.stride_align", {"global stride 129 elements (64.5 bytes)", "pad M's stride to 160 elements (80 bytes)"});
  // the driver's globalDim[0] rule holds through the descriptor
  const auto dim = refusals("u4_align8b (64,127):(128,1)", "(64,64):(64,1)", "M=64,K=64", o);
  expect_refusal(dim, "plan.descriptor", {"dims.packed_multiple_of_2", "value 127"});
}

TEST(GlobalTensor, KnownAlignmentOfAnAddress) {
  EXPECT_EQ(tmakit::known_alignment(0x1000), 1024u);
  EXPECT_EQ(tmakit::known_alignment(0x1010), 16u);
  EXPECT_EQ(tmakit::known_alignment(0x8), 8u);
  EXPECT_EQ(tmakit::known_alignment(0x3), 1u);
  const auto g = tmakit::parse_global_tensor("bf16 (64,64):(64,1) addr=0x1040");
  ASSERT_TRUE(g.ok) << g.error;
  EXPECT_EQ(g.value.base_alignment, 64u);
}

// Fixed shapes (PlanOptions::fixed_shape): what a kernel compiles a copy program from
// (plan/copy_shape.hpp). For the GEMM's operand tiles (K-major and MN-major, 128 and 256 rows,
// multicast to clusters of 1 and 2), every tensor -- extents of 1, extents no tile divides, one
// batch or several, padded leading dimensions -- gets a plan of one shape, and each such plan
// lands every element where the shared layout says (the TMA model, first / second / last tile).
namespace {

Inputs operand_inputs(bool mn_major, std::int64_t tile_rows, std::int64_t rows, std::int64_t cols, std::int64_t batch,
                      std::int64_t pad) {
  Inputs in;
  const std::int64_t ld = ((mn_major ? rows : cols) + 7) / 8 * 8 + pad;  // rows of whole 16 bytes
  const std::int64_t rs = mn_major ? 1 : ld, cs = mn_major ? ld : 1;
  const std::int64_t bs = mn_major ? ld * cols : ld * rows;
  in.g.dtype = DataType::bfloat16;
  in.g.address = 1u << 20;
  in.g.base_alignment = 1024;
  in.g.layout = make_layout(IntTuple::make(rows, cols, batch), IntTuple::make(rs, cs, bs));
  in.s = gmma_operand(mn_major ? OperandMajor::mn : OperandMajor::k, Swizzle::b128, 2, static_cast<std::int32_t>(tile_rows), 64)
             .value.tile;
  in.t.modes = 3;
  in.t.extent[0] = tile_rows;
  in.t.extent[1] = 64;
  in.t.extent[2] = 1;
  in.names = {"MN", "K", "batch"};
  return in;
}

PlanOptions fixed_options(std::uint32_t multicast) {
  PlanOptions o;
  o.fixed_shape = true;
  o.cluster[0] = multicast;
  o.multicast_dim = multicast > 1 ? 0 : -1;
  return o;
}

}  // namespace

TEST(PlanFixedShape, OneShapeForEveryTensorOfALayout) {
  const std::int64_t extents[][3] = {{1024, 512, 2}, {512, 512, 1}, {100, 8, 1}, {1, 512, 1},
                                     {512, 1, 1},    {1000, 136, 3}, {129, 72, 2}};
  for (bool mn : {false, true})
    for (std::int64_t rows : {128, 256})
      for (std::uint32_t mc : {1u, 2u}) {
        TmaPlan first{};
        bool have = false;
        for (const auto& e : extents)
          for (std::int64_t pad : {0, 8}) {
            SCOPED_TRACE(::testing::Message() << (mn ? "MN" : "K") << "-major " << rows << " rows, multicast " << mc << ", "
                                              << e[0] << " x " << e[1] << " x " << e[2] << ", pad " << pad);
            const TmaPlan p = plan_and_check(operand_inputs(mn, rows, e[0], e[1], e[2], pad), fixed_options(mc));
            if (!have) {
              first = plan_shape(p);
              have = true;
              continue;
            }
            const ShapeDifference d = shape_difference(first, plan_shape(p));
            EXPECT_TRUE(d.same) << d.field << ": " << d.compiled << " vs " << d.planned;
          }
      }
}

// Without fixed_shape the planner takes the best plan for the tensor at hand: a batch of one drops
// its TMA dimension, and an MN extent that 64 divides is cut into a higher-rank box (one copy instead
// of two). Those are different shapes, and shape_difference names the first field that differs.
TEST(PlanFixedShape, TheBestPlanOfATensorDependsOnItsExtents) {
  const PlanResult two = plan_tile(operand_inputs(false, 128, 1024, 512, 2, 0).g, operand_inputs(false, 128, 1, 1, 1, 0).s,
                                   operand_inputs(false, 128, 1, 1, 1, 0).t);
  const PlanResult one = plan_tile(operand_inputs(false, 128, 1024, 512, 1, 0).g, operand_inputs(false, 128, 1, 1, 1, 0).s,
                                   operand_inputs(false, 128, 1, 1, 1, 0).t);
  ASSERT_TRUE(two.ok() && one.ok());
  const ShapeDifference d = shape_difference(plan_shape(two.plan), plan_shape(one.plan));
  EXPECT_FALSE(d.same);
  EXPECT_STREQ(d.field, "rank");
  EXPECT_EQ(d.compiled, 3);
  EXPECT_EQ(d.planned, 2);

  const Inputs cut = operand_inputs(true, 128, 1024, 512, 1, 0), loop = operand_inputs(true, 128, 1000, 512, 1, 0);
  const TmaPlan pc = plan_and_check(cut), pl = plan_and_check(loop);
  EXPECT_EQ(pc.instructions, 1u);
  EXPECT_EQ(pl.instructions, 2u);
  EXPECT_FALSE(same_shape(plan_shape(pc), plan_shape(pl)));
  const TmaPlan fc = plan_and_check(cut, fixed_options(1)), fl = plan_and_check(loop, fixed_options(1));
  EXPECT_EQ(fc.instructions, 2u);
  EXPECT_TRUE(same_shape(plan_shape(fc), plan_shape(fl)));
}

// plan_shape keeps what the device issues and drops what the tensor map carries.
TEST(PlanFixedShape, ShapeDropsTheTensorAndKeepsTheCopies) {
  const TmaPlan p = plan_and_check(operand_inputs(false, 128, 1024, 512, 2, 8), fixed_options(1));
  const TmaPlan s = plan_shape(p);
  EXPECT_EQ(s.params.address, 0u);
  for (std::uint32_t d = 0; d < kMaxRank; ++d) EXPECT_EQ(s.params.dims[d], 0u);
  for (std::uint32_t d = 0; d + 1 < kMaxRank; ++d) EXPECT_EQ(s.params.strides[d], 0u);
  EXPECT_EQ(s.params.rank, p.params.rank);
  EXPECT_EQ(s.expect_tx_bytes, 16384u);
  for (std::uint32_t d = 0; d < kMaxRank; ++d) EXPECT_EQ(s.params.box[d], p.params.box[d]);
  TmaPlan other = s;
  other.loop[0].smem_step += 128;
  const ShapeDifference d = shape_difference(s, other);
  EXPECT_FALSE(d.same);
  EXPECT_STREQ(d.field, "loop shared step");
}
