// tensor_map/gather4.hpp: each gather4 / scatter4 rule fires on the input that breaks it and on no
// valid one, the bytes one copy delivers are four rows of boxDim[0], the target rules agree with the
// capability table, and the words (gather4_explain.hpp) name each finding with its numbers.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "tmakit/core/capabilities.hpp"
#include "tmakit/tensor_map/gather4.hpp"
#include "tmakit/tensor_map/gather4_explain.hpp"

namespace tmakit {
namespace {

// A map gather4 can use: bf16 rows of 4096 elements, 65536 of them, box {64, 1}, swizzle 128B.
constexpr TensorMapParams rows_bf16() {
  TensorMapParams p;
  p.kind = MapKind::tiled;
  p.arch = Arch::sm_100;
  p.dtype = DataType::bfloat16;
  p.rank = 2;
  p.address = 0x7f0000000000;
  p.dims[0] = 4096, p.dims[1] = 65536;
  p.strides[0] = 8192;
  p.box[0] = 64, p.box[1] = 1;
  p.swizzle = Swizzle::b128;
  return p;
}

constexpr Gather4Request request(Gather4Form form, Target target) {
  Gather4Request r;
  r.form = form;
  r.target = target;
  return r;
}

constexpr Gather4Request armed(Gather4Form form, std::uint64_t bytes, std::uint32_t copies = 1) {
  Gather4Request r = request(form, Target::sm_100a);
  r.armed = true;
  r.armed_bytes = bytes;
  r.copies = copies;
  return r;
}

std::vector<std::string> ids(const Gather4Check& c) {
  std::vector<std::string> out;
  for (const Gather4Finding& f : c.findings) out.push_back(rule_id(f.rule));
  for (const Violation<Rule>& v : c.tile_mode) out.push_back(rule_id(v.rule));
  return out;
}

using Ids = std::vector<std::string>;

// The check is a constant expression, bytes included.
static_assert(check_gather4(rows_bf16(), request(Gather4Form::gather4_cta, Target::sm_100a)).ok());
static_assert(check_gather4(rows_bf16(), request(Gather4Form::gather4_cta, Target::sm_100a)).copy_bytes == 512);
static_assert(!check_gather4(rows_bf16(), request(Gather4Form::scatter4, Target::sm_120a)).ok());
static_assert(gather4_row_bytes(rows_bf16()) == 128);

TEST(Gather4, AValidMapPassesOnEveryTargetAndFormThatHasIt) {
  const TensorMapParams p = rows_bf16();
  for (Target t : {Target::sm_100a, Target::sm_103a})
    for (Gather4Form f : {Gather4Form::gather4_cta, Gather4Form::gather4_cluster, Gather4Form::gather4_multicast,
                          Gather4Form::scatter4}) {
      const Gather4Check c = check_gather4(p, request(f, t));
      EXPECT_TRUE(c.ok()) << target_info(t).name << " form " << static_cast<int>(f) << ": " << ids(c).size()
                          << " findings";
    }
  EXPECT_TRUE(check_gather4(p, request(Gather4Form::gather4_cta, Target::sm_120a)).ok());
}

TEST(Gather4, OneCopyDeliversFourRowsOfBoxDim0) {
  TensorMapParams p = rows_bf16();
  Gather4Check c = check_gather4(p, request(Gather4Form::gather4_cta, Target::sm_100a));
  EXPECT_EQ(c.row_bytes, 128u);  // 64 bf16
  EXPECT_EQ(c.copy_bytes, 512u);
  EXPECT_EQ(c.box_bytes, 128u);  // the map's box is one row: a tiled copy of it delivers a quarter
  EXPECT_EQ(c.expect_bytes, 512u);
  c = check_gather4(p, armed(Gather4Form::gather4_cta, 2048, 4));
  EXPECT_EQ(c.expect_bytes, 2048u);
  EXPECT_TRUE(c.ok());
  // scatter4 writes the same rows and arms nothing
  c = check_gather4(p, request(Gather4Form::scatter4, Target::sm_100a));
  EXPECT_EQ(c.copy_bytes, 512u);
  EXPECT_EQ(c.expect_bytes, 0u);
  // fp32 rows of 32 elements: 4 x 128 B, the swizzle padding (none here) not counted
  p.dtype = DataType::float32;
  p.box[0] = 32;
  c = check_gather4(p, request(Gather4Form::gather4_cta, Target::sm_100a));
  EXPECT_EQ(c.copy_bytes, 512u);
  // a box of 4 rows still gathers 4 rows of boxDim[0] (and is refused: gather4.box_rows)
  p = rows_bf16();
  p.box[1] = 4;
  c = check_gather4(p, request(Gather4Form::gather4_cta, Target::sm_100a));
  EXPECT_EQ(c.copy_bytes, 512u);
  EXPECT_EQ(c.box_bytes, 512u);
  // no boxDim, no rows
  p.kind = MapKind::im2col;
  EXPECT_EQ(check_gather4(p, request(Gather4Form::gather4_cta, Target::sm_100a)).copy_bytes, 0u);
}

TEST(Gather4, TargetRules) {
  const TensorMapParams p = rows_bf16();
  for (Gather4Form f : {Gather4Form::gather4_cta, Gather4Form::gather4_cluster, Gather4Form::gather4_multicast})
    EXPECT_EQ(ids(check_gather4(p, request(f, Target::sm_90a))), Ids{"gather4.arch"});  // not also the destination
  EXPECT_EQ(ids(check_gather4(p, request(Gather4Form::scatter4, Target::sm_90a))), Ids{"scatter4.arch"});
  EXPECT_EQ(ids(check_gather4(p, request(Gather4Form::scatter4, Target::sm_120a))), Ids{"scatter4.arch"});
  EXPECT_EQ(ids(check_gather4(p, request(Gather4Form::gather4_cluster, Target::sm_120a))),
            Ids{"gather4.cluster_destination"});
  EXPECT_EQ(ids(check_gather4(p, request(Gather4Form::gather4_multicast, Target::sm_120a))),
            Ids{"gather4.cluster_destination"});
}

// gather4.arch and scatter4.arch are the table's gather4 / scatter4 cells, and gather4.cluster_destination
// fires exactly on the targets whose gather4 cell is yes with a limit (sm_120a: .shared::cta only).
TEST(Gather4, AgreesWithTheCapabilityTable) {
  const TensorMapParams p = rows_bf16();
  const Capability& gather = *find_capability("gather4");
  const Capability& scatter = *find_capability("scatter4");
  for (const TargetInfo& t : kTargets) {
    SCOPED_TRACE(t.name);
    const bool gather_yes = cell(gather, t.target).value == kYes;
    EXPECT_EQ(check_gather4(p, request(Gather4Form::gather4_cta, t.target)).ok(), gather_yes);
    EXPECT_EQ(check_gather4(p, request(Gather4Form::scatter4, t.target)).ok(), cell(scatter, t.target).value == kYes);
    const bool cluster_ok = check_gather4(p, request(Gather4Form::gather4_cluster, t.target)).ok();
    EXPECT_EQ(cluster_ok, gather_yes && cell(gather, t.target).limit == nullptr);
    EXPECT_EQ(check_gather4(p, request(Gather4Form::gather4_multicast, t.target)).ok(), cluster_ok);
  }
}

TEST(Gather4, MapRules) {
  TensorMapParams p = rows_bf16();
  const Gather4Request r = request(Gather4Form::gather4_cta, Target::sm_100a);
  p.box[1] = 4;
  EXPECT_EQ(ids(check_gather4(p, r)), Ids{"gather4.box_rows"});
  p = rows_bf16();
  p.rank = 3;
  p.dims[2] = 2, p.strides[1] = 8192ull * 65536, p.box[2] = 1;
  EXPECT_EQ(ids(check_gather4(p, r)), Ids{"gather4.rank"});
  p = rows_bf16();
  p.rank = 1;  // no dimension 1: no box rows to check
  EXPECT_EQ(ids(check_gather4(p, r)), Ids{"gather4.rank"});
  // interleave needs rank 3 (the tile mode's rank.interleave_min3 otherwise): both rules of gather4 fire
  p = rows_bf16();
  p.rank = 3;
  p.dims[2] = 2, p.strides[1] = 8192ull * 65536, p.box[0] = 8, p.box[2] = 1;
  p.interleave = Interleave::b16;
  p.swizzle = Swizzle::none;
  EXPECT_EQ(ids(check_gather4(p, r)), (Ids{"gather4.rank", "gather4.interleave"}));
  // an im2col map: the mode alone (no boxDim for the other map rules)
  p = rows_bf16();
  p.kind = MapKind::im2col;
  p.rank = 4;
  p.dims[2] = 2, p.dims[3] = 2, p.strides[1] = 8192ull * 65536, p.strides[2] = 8192ull * 131072;
  p.channels = 64, p.pixels = 64;
  EXPECT_EQ(ids(check_gather4(p, r)), Ids{"gather4.mode"});
}

// "All other constraints and rules of the tile mode apply": validate() on the target's architecture.
TEST(Gather4, TheTileModesRulesApplyOnTheTarget) {
  TensorMapParams p = rows_bf16();
  p.box[0] = 128;  // 256 B rows under a 128-byte swizzle
  EXPECT_EQ(ids(check_gather4(p, request(Gather4Form::gather4_cta, Target::sm_100a))), Ids{"swizzle.inner_box_span"});
  p = rows_bf16();
  p.arch = Arch::sm_90;  // the map's own arch does not matter: the target's does
  p.swizzle = Swizzle::b128_atom_32b;
  EXPECT_TRUE(check_gather4(p, request(Gather4Form::gather4_cta, Target::sm_120a)).ok());
  EXPECT_EQ(ids(check_gather4(p, request(Gather4Form::gather4_cta, Target::sm_90a))),
            (Ids{"gather4.arch", "swizzle.atom_requires_sm100"}));
}

TEST(Gather4, ArmedBytes) {
  const TensorMapParams p = rows_bf16();
  EXPECT_TRUE(check_gather4(p, armed(Gather4Form::gather4_cta, 512)).ok());
  Gather4Check c = check_gather4(p, armed(Gather4Form::gather4_cta, 128));  // the map's box, one row
  ASSERT_EQ(ids(c), Ids{"gather4.armed_bytes"});
  EXPECT_EQ(c.findings.items[0].value, 128);
  EXPECT_EQ(c.findings.items[0].expected, 512);
  EXPECT_EQ(ids(check_gather4(p, armed(Gather4Form::gather4_multicast, 4096, 4))), Ids{"gather4.armed_bytes"});
  EXPECT_EQ(ids(check_gather4(p, armed(Gather4Form::gather4_cta, 0))), Ids{"gather4.armed_bytes"});
  // scatter4 completes on no barrier: any bytes armed for it are a finding, none is fine
  EXPECT_EQ(ids(check_gather4(p, armed(Gather4Form::scatter4, 512))), Ids{"scatter4.armed_bytes"});
  EXPECT_TRUE(check_gather4(p, request(Gather4Form::scatter4, Target::sm_100a)).ok());
}

// Every rule at once: the target, the map, the bytes and the tile mode.
TEST(Gather4, EveryFindingAtOnce) {
  TensorMapParams p = rows_bf16();
  p.box[1] = 2;
  p.box[0] = 256;
  Gather4Request r = armed(Gather4Form::gather4_multicast, 1024);
  r.target = Target::sm_120a;
  EXPECT_EQ(ids(check_gather4(p, r)), (Ids{"gather4.cluster_destination", "gather4.box_rows", "gather4.armed_bytes",
                                           "swizzle.inner_box_span"}));
}

TEST(Gather4Explain, EachFindingNamesItsInputNumbersAndFix) {
  TensorMapParams p = rows_bf16();
  Gather4Request r = armed(Gather4Form::gather4_cta, 128);
  std::vector<Diagnostic> d = explain_gather4(p, r, check_gather4(p, r));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].rule_id, "gather4.armed_bytes");
  EXPECT_EQ(d[0].where, "armed bytes");
  EXPECT_EQ(d[0].value, "128");
  EXPECT_NE(d[0].rule.find("delivers 512 B, 4 rows of 64 BFLOAT16 (128 B each)"), std::string::npos) << d[0].rule;
  EXPECT_NE(d[0].rule.find("128 B is the map's box, one row"), std::string::npos) << d[0].rule;
  EXPECT_NE(d[0].rule.find("the late bytes count against the next phase"), std::string::npos) << d[0].rule;
  EXPECT_EQ(d[0].fix.rfind("arm 512 B", 0), 0u) << d[0].fix;
  r.armed_bytes = 1024;
  d = explain_gather4(p, r, check_gather4(p, r));
  EXPECT_NE(d[0].rule.find("never completes (the hang)"), std::string::npos) << d[0].rule;

  p.box[1] = 4;
  r = request(Gather4Form::gather4_cta, Target::sm_100a);
  d = explain_gather4(p, r, check_gather4(p, r));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].message().rfind("error [gather4.box_rows] boxDim[1] = 4: must be 1", 0), 0u) << d[0].message();
  EXPECT_EQ(d[0].fix.rfind("encode boxDim {64, 1}", 0), 0u) << d[0].fix;

  // a rank-3 map whose outer dimension folds into the rows
  p = rows_bf16();
  p.rank = 3;
  p.dims[1] = 128, p.dims[2] = 32, p.strides[1] = 8192ull * 128, p.box[2] = 1;
  d = explain_gather4(p, r, check_gather4(p, r));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].fix.rfind("encode it as rank 2: globalDim {4096, 4096}, globalStrides {8192}, boxDim {64, 1}", 0), 0u)
      << d[0].fix;
  p.strides[1] = 8192ull * 256;  // padded between the slices: no one rank-2 map
  d = explain_gather4(p, r, check_gather4(p, r));
  EXPECT_NE(d[0].fix.find("dimension 2 does not fold into rows"), std::string::npos) << d[0].fix;

  p = rows_bf16();
  r = request(Gather4Form::scatter4, Target::sm_120a);
  d = explain_gather4(p, r, check_gather4(p, r));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_NE(d[0].rule.find("Feature '.tile::scatter4' not supported on .target 'sm_120a'"), std::string::npos);
  // the tile mode's own findings come through explain(), after the gather4 ones
  p.box[0] = 128;
  r = request(Gather4Form::gather4_cta, Target::sm_90a);
  d = explain_gather4(p, r, check_gather4(p, r));
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].rule_id, "gather4.arch");
  EXPECT_EQ(d[1].rule_id, "swizzle.inner_box_span");
}

TEST(Gather4Explain, DescribeAndJson) {
  const TensorMapParams p = rows_bf16();
  Gather4Request r = request(Gather4Form::gather4_cta, Target::sm_100a);
  const std::string text = describe_gather4(p, r, check_gather4(p, r));
  EXPECT_EQ(text.rfind("gather4 on sm_100a into .shared::cta (per the PTX ISA; unverified on hardware)\n", 0), 0u) << text;
  EXPECT_NE(text.find("one copy     4 rows x 64 BFLOAT16 (128 B each) = 512 B delivered; the map's box is one row, 128 B\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("expect_tx    512 B per phase (1 copy)\n"), std::string::npos) << text;
  auto j = gather4_json(p, r, check_gather4(p, r));
  EXPECT_EQ(j["op"], "gather4");
  EXPECT_EQ(j["dst"], "cta");
  EXPECT_EQ(j["expect_tx"], 512);
  EXPECT_TRUE(j["armed_bytes"].is_null());
  EXPECT_EQ(j["result"], 0);
  EXPECT_EQ(j["text"], text);
  r = request(Gather4Form::scatter4, Target::sm_120a);
  j = gather4_json(p, r, check_gather4(p, r));
  EXPECT_TRUE(j["dst"].is_null());
  EXPECT_TRUE(j["expect_tx"].is_null());
  EXPECT_EQ(j["result"], 1);
  ASSERT_EQ(j["errors"].size(), 1u);
  EXPECT_EQ(j["errors"][0]["rule"], "scatter4.arch");
  EXPECT_EQ(j["errors"][0]["field"], "target");
  EXPECT_EQ(j["errors"][0]["value"], "sm_120a");
}

TEST(Gather4Explain, FormsByName) {
  Gather4Form f{};
  std::string why;
  ASSERT_TRUE(parse_gather4_form("gather4", "", f, why));
  EXPECT_EQ(f, Gather4Form::gather4_cta);
  ASSERT_TRUE(parse_gather4_form("GATHER4", "Multicast", f, why));
  EXPECT_EQ(f, Gather4Form::gather4_multicast);
  ASSERT_TRUE(parse_gather4_form("scatter4", "", f, why));
  EXPECT_EQ(f, Gather4Form::scatter4);
  EXPECT_FALSE(parse_gather4_form("scatter4", "cta", f, why));
  EXPECT_NE(why.find("takes no destination"), std::string::npos) << why;
  EXPECT_FALSE(parse_gather4_form("gather8", "", f, why));
  EXPECT_EQ(why, "'gather8' is not gather4 or scatter4");
  EXPECT_FALSE(parse_gather4_form("gather4", "global", f, why));
  EXPECT_EQ(why, "'global' is not cta, cluster or multicast");
}

}  // namespace
}  // namespace tmakit
