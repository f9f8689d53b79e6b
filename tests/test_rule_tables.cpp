// Every rule family's table (core/diagnostics.hpp): one row per rule in enum order, ids unique
// within the family and across families, every text non-empty, every error rule with a fix, and
// the lists' ok() / errors() driven by the table's severities.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "kernels/common/rules.hpp"
#include "tmakit/cluster/dsmem_copy.hpp"
#include "tmakit/cluster/explain.hpp"
#include "tmakit/cluster/rules.hpp"
#include "tmakit/core/diagnostics.hpp"
#include "tmakit/host/usage_rules.hpp"
#include "tmakit/layout/diagnostic.hpp"
#include "tmakit/layout/notation.hpp"
#include "tmakit/plan/check_descriptor.hpp"
#include "tmakit/plan/explain.hpp"
#include "tmakit/peer/rules.hpp"
#include "tmakit/plan/rules.hpp"
#include "tmakit/smem_store/explain.hpp"
#include "tmakit/smem_store/rules.hpp"
#include "tmakit/tensor_map/im2col_conv.hpp"
#include "tmakit/tensor_map/gather4_rules.hpp"
#include "tmakit/tensor_map/notes.hpp"
#include "tmakit/tensor_map/rules.hpp"
#include "tmakit/tensor_map/smem_base.hpp"
#include "tmakit/tensor_map/storage.hpp"

namespace {

using namespace tmakit;

// The tensor-map violation stays four plain words wide and trivially constructible: validate()
// returns 24 of them per call without initialising the unused ones.
static_assert(sizeof(Violation<Rule>) == 24);
static_assert(std::is_trivially_default_constructible_v<Violation<Rule>>);
static_assert(std::is_trivially_copyable_v<Violation<Rule>>);

// The lookups are constant expressions.
static_assert(std::string_view(rule_id(Rule::strides_align16)) == "strides.align16");
static_assert(std::string_view(rule_id(PlanRule::gmem_stride_range)) == "gmem.stride_range");
static_assert(std::string_view(rule_id(ClusterRule::fan_in)) == "expect.fan_in");
static_assert(std::string_view(rule_id(LayoutRule::size_range)) == "layout.size_range");
static_assert(std::string_view(rule_id(SmemStoreRule::dest_size)) == "smem_store.dest.size");
static_assert(std::string_view(rule_id(kernels::KernelRule::attention_cu_seqlens)) == "attention.cu_seqlens");
static_assert(is_note(ClusterRule::straddle) && !is_note(ClusterRule::fan_in));
static_assert(std::string_view(rule_id(static_cast<PlanRule>(rule_count<PlanRule>))) == "unknown");

struct Family {
  std::string name;
  std::vector<std::string> ids, parts, texts, fixes;
  std::vector<bool> notes;
};

template <class R>
Family family(const char* name) {
  Family f{name, {}, {}, {}, {}, {}};
  for (int i = 0; i < rule_count<R>; ++i) {
    const RuleInfo<R> row = rule_info(static_cast<R>(i));
    EXPECT_EQ(static_cast<int>(row.rule), i) << name;
    f.ids.push_back(row.id);
    f.parts.push_back(row.part);
    f.texts.push_back(row.text);
    f.fixes.push_back(row.fix);
    f.notes.push_back(row.severity == Severity::note);
  }
  return f;
}

std::vector<Family> families() {
  return {family<Rule>("tensor map"),         family<PlanRule>("plan"),
          family<ClusterRule>("cluster"),     family<LayoutRule>("layout"),
          family<SmemStoreRule>("smem store"), family<DsmemReason>("dsmem reason"),
          family<UsageRule>("usage"),          family<PlanCheckRule>("plan check"),
          family<PeerRule>("peer"),            family<MapStorageRule>("map storage"),
          family<MapNoteRule>("map notes"),    family<kernels::KernelRule>("kernel"),
          family<SmemBaseRule>("smem base"),   family<Im2colConvRule>("im2col conv"),
          family<Gather4Rule>("gather4")};
}

TEST(RuleTables, IdsAreUniqueWithinAndAcrossFamilies) {
  std::map<std::string, std::string> owner;
  for (const Family& f : families()) {
    ASSERT_FALSE(f.ids.empty()) << f.name;
    for (const std::string& id : f.ids) {
      EXPECT_FALSE(id.empty()) << f.name;
      EXPECT_NE(id.find('.'), std::string::npos) << f.name << ": " << id;
      const auto [it, fresh] = owner.emplace(id, f.name);
      EXPECT_TRUE(fresh) << id << " in " << f.name << " and " << it->second;
    }
  }
}

TEST(RuleTables, EveryRuleHasText) {
  for (const Family& f : families())
    for (std::size_t i = 0; i < f.ids.size(); ++i) EXPECT_FALSE(f.texts[i].empty()) << f.ids[i];
}

// A family that keeps its fixes in the table gives every error rule one.
TEST(RuleTables, TableFixesCoverEveryErrorRule) {
  for (const Family& f : families()) {
    bool has_fixes = false;
    for (const std::string& x : f.fixes) has_fixes = has_fixes || !x.empty();
    if (!has_fixes) continue;
    for (std::size_t i = 0; i < f.ids.size(); ++i) {
      if (!f.notes[i]) {
        EXPECT_FALSE(f.fixes[i].empty()) << f.ids[i];
      }
    }
  }
}

TEST(RuleTables, OnlyTheDecisionsAreNotes) {
  std::set<std::string> notes;
  for (const Family& f : families())
    for (std::size_t i = 0; i < f.ids.size(); ++i) {
      if (f.notes[i] && f.name != "dsmem reason") notes.insert(f.ids[i]);
    }
  EXPECT_EQ(notes, (std::set<std::string>{"cluster.nonportable", "group.straddle", "dsmem.bulk_alignment", "layout.ok",
                                          "smem_store.ok", "check.l2promotion", "map.storage_abi",
                                          "note.l2_promotion_none", "note.swizzle_none", "note.swizzle_row_padded",
                                          "note.interleave"}));
}

// Families whose fixes are computed from the numbers: every error rule gets a non-empty fix and a
// message naming its id, even with neutral numbers.
TEST(RuleTables, ComputedFixesCoverEveryErrorRule) {
  for (int i = 0; i < rule_count<LayoutRule>; ++i) {
    const auto r = static_cast<LayoutRule>(i);
    if (is_note(r)) continue;
    const LayoutDiagnostic d = make_diagnostic(r, 0, 1, 1);
    EXPECT_FALSE(fix(d).empty()) << rule_id(r);
    EXPECT_EQ(message(d).rfind(std::string(rule_id(r)) + ": ", 0), 0u) << message(d);
  }
  PlanIssues issues;
  // every number 1, whatever the rule reads
  const auto ones = [](int i) {
    return PlanIssue{.rule = static_cast<PlanRule>(i), .value = 1, .limit = 1, .bytes = 1, .bits = 1, .count = 1,
                     .setting = 1, .index = 1, .dim = 1, .descriptor = {Rule{}, Field::none, 1, 1}};
  };
  for (int i = 0; i < rule_count<PlanRule>; ++i) issues.add(ones(i));
  ASSERT_TRUE(issues.truncated);  // more rules than one list holds: explain the rest separately
  for (int i = 0; i < rule_count<PlanRule>; ++i) {
    PlanIssues one;
    one.add(ones(i));
    const std::vector<PlanDiagnostic> d = explain_plan(one, TileProblem{});
    ASSERT_EQ(d.size(), 1u);
    EXPECT_EQ(d[0].rule_id, rule_id(static_cast<PlanRule>(i)));
    EXPECT_FALSE(d[0].what.empty()) << d[0].rule_id;
    EXPECT_FALSE(d[0].fix.empty()) << d[0].rule_id;
  }
  const auto plan = std::make_unique<SmemStorePlan>();
  for (int i = 0; i < rule_count<SmemStoreRule>; ++i) {
    const auto r = static_cast<SmemStoreRule>(i);
    if (is_note(r)) continue;
    plan->refusal = SmemStoreRefusal{};
    plan->refusal.rule = r;
    plan->refusal.n0 = plan->refusal.n1 = plan->refusal.n2 = plan->refusal.n3 = 1;
    const std::string m = refusal_message(*plan, StoreSource{}, StoreDestination{});
    EXPECT_EQ(m.rfind("error [" + std::string(rule_id(r)) + "] ", 0), 0u) << m;
    EXPECT_FALSE(refusal_fix(*plan, StoreSource{}, StoreDestination{}).empty()) << rule_id(r);
  }
}

// The kernels' refusals: every id the launchers report (kernels/*_sm90, bench/attention_capi.cu)
// in its table, and refusal() writes each in the one shape "error [<id>] <what>; fix: <fix>".
TEST(RuleTables, KernelRefusals) {
  using kernels::KernelRule;
  using kernels::refusal;
  std::set<std::string> ids;
  for (int i = 0; i < rule_count<KernelRule>; ++i) {
    const auto r = static_cast<KernelRule>(i);
    ids.insert(rule_id(r));
    EXPECT_EQ(refusal(r), "error [" + std::string(rule_id(r)) + "] " + rule_text(r) + "; fix: " + rule_fix(r));
  }
  EXPECT_EQ(ids, (std::set<std::string>{
                     "kernel.cuda",          "gemm.dtype",          "gemm.extent",          "gemm.null",
                     "gemm.cluster_m",       "gemm.split_lead",     "gemm.splits",          "gemm.pingpong",
                     "gemm.tile_n",          "gemm.swapped",        "gemm.d_order",         "gemm.tiles",
                     "gemm.plan_shape",      "attention.dtype",     "attention.head_dim",   "attention.heads_kv",
                     "attention.extent",     "attention.null",      "attention.scale",      "attention.p_source",
                     "attention.grid_form",  "attention.max_ctas",  "attention.grid",       "attention.cu_seqlens",
                     "attention.packed_base", "attention.occupancy", "attention.plan_shape", "allgather_gemm.window",
                     "allgather_gemm.null",  "allgather_gemm.withhold_rank", "allgather_gemm.internal",
                     "gemm.fp8_inputs",      "gemm.fp8_order",       "gemm.block_scales",    "gemm.tile_m"}));
  EXPECT_EQ(refusal(KernelRule::gemm_tile_n, "64, 128, 192 or 256, got 96"),
            "error [gemm.tile_n] 64, 128, 192 or 256, got 96; fix: give tile_n 0, 64, 128, 192 or 256");
  EXPECT_EQ(refusal(KernelRule::gemm_swapped, "a swapped tile is 64 columns wide", "leave tile_n 0"),
            "error [gemm.swapped] a swapped tile is 64 columns wide; fix: leave tile_n 0");
  // Another family's rule in the same shape (the collectives refuse by the peer rules).
  EXPECT_EQ(refusal(PeerRule::blocks_range, "9 blocks", "use at most 8"),
            "error [collective.blocks] 9 blocks; fix: use at most 8");
}

// Positional add(rule, numbers...) for the families whose numbers keep one meaning; PlanIssue's
// differ by rule and are added by name only.
template <class List, class R>
concept AddsByPosition = requires(List l, R r) { l.add(r, 1, 2); };
static_assert(AddsByPosition<Violations, Rule>);
static_assert(AddsByPosition<ClusterDiagnostics, ClusterRule>);
static_assert(!AddsByPosition<PlanIssues, PlanRule>);

// One list type for every family: ok() and errors() follow the table's severities.
TEST(RuleTables, ListsCountErrorsByTheTablesSeverity) {
  static_assert(std::is_same_v<PlanIssues, ViolationList<PlanRule, 16, PlanIssue>>);
  static_assert(std::is_same_v<ClusterDiagnostics, ViolationList<ClusterRule, 32, ClusterViolation>>);
  Violations v;
  EXPECT_TRUE(v.ok() && v.empty());
  v.add(Rule::box_range, Field::boxDim, 1, 300);
  EXPECT_FALSE(v.ok());
  EXPECT_EQ(v.errors(), 1);
  EXPECT_EQ(v.items[0].index, 1);
  EXPECT_EQ(v.items[0].value, 300);

  PlanIssues p;
  p.add(PlanIssue{.rule = PlanRule::box_split, .mode = 2, .part = 1, .value = 300, .limit = 256});
  EXPECT_FALSE(p.ok());
  EXPECT_EQ(p.items[0].mode, 2);
  EXPECT_EQ(p.items[0].part, 1);
  EXPECT_EQ(p.items[0].limit, 256);
  EXPECT_EQ(p.items[0].bytes, 0);  // members left out keep their defaults
  EXPECT_EQ(p.items[0].other_mode, -1);

  ClusterDiagnostics c;
  c.add(ClusterRule::dsmem_bulk_alignment, 0, 3);
  EXPECT_TRUE(c.ok());
  EXPECT_EQ(c.errors(), 0);
  EXPECT_EQ(explain(c.items[0]), "note [dsmem.bulk_alignment] CTA 0: bulk refused: a piece of 3 is not 16 B "
                                 "aligned/sized; fix: align both regions' pieces to 16 B and make their sizes "
                                 "multiples of 16 B to get the bulk path");
  c.add(ClusterRule::fan_in, -1, 4096, 8192);
  EXPECT_FALSE(c.ok());
  EXPECT_EQ(c.errors(), 1);
  EXPECT_EQ(explain(c.items[1]).rfind("error [expect.fan_in] barrier expects 4096 B but the issues into it deliver "
                                      "8192 B; fix: each receiver expects the SUM",
                                      0),
            0u)
      << explain(c.items[1]);
}

}  // namespace
