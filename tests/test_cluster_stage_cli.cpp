// `tmakit cluster-stage` (tools/tmakit/cmd_cluster_stage.cpp): one stage's copies added up per CTA
// from the command line, with plan_cluster_stage's sums and the cluster rules' ids.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_run.hpp"
#include "test_configs.hpp"
#include "tmakit/tensor_map/encode.hpp"
#include "tmakit/tensor_map/jsonl.hpp"

using tmakit_test::run_inprocess;

namespace {

// The descriptor of test_configs.hpp's bf16 64 x 128 tile (16 KiB), as 256 hex digits.
std::string box_16k() { return tmakit::jsonl::to_hex(tmakit::encode(tmakit::test::box_16k()).map); }

std::vector<std::string> stage(std::vector<std::string> more) {
  std::vector<std::string> a = {"cluster-stage", "--cluster", "2,1"};
  a.insert(a.end(), more.begin(), more.end());
  return a;
}

const std::string kDsmem16k = "from=0; to=1; dtype=f32; src=(4096):(1); dst=(4096):(1)";

// The field report: B multicast to both CTAs of a 2x1 cluster, and 16 KiB from CTA 0 to CTA 1 by
// DSMEM. CTA 1 arms 32,768 bytes: the sum nobody had added up.
TEST(ClusterStageCli, MulticastAndDsmemAddUpPerCta) {
  const auto r = run_inprocess(stage({"--multicast", "box=" + box_16k() + "; share=x", "--dsmem", kDsmem16k}));
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  EXPECT_EQ(r.out.rfind("cluster 2x1x1 (2 CTAs), per stage: 1 multicast operand, 1 DSMEM copy\n", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("CTA 0: arm 16384 bytes on its full barrier (TMA 16384 + DSMEM 0)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("CTA 1: arm 32768 bytes on its full barrier (TMA 16384 + DSMEM 16384)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("issues into 0b11 (0x3: CTAs 0, 1)"), std::string::npos) << r.out;
  EXPECT_TRUE(r.err.empty()) << r.err;
}

TEST(ClusterStageCli, JsonHasEveryCtaAndTheMasksInWords) {
  const auto r = run_inprocess(stage({"--multicast", "box=" + box_16k() + "; share=x; mode=leader_broadcast", "--dsmem",
                                      kDsmem16k, "--json"}));
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["ok"], true);
  EXPECT_EQ(j["cluster"], nlohmann::json::array({2, 1, 1}));
  ASSERT_EQ(j["ctas"].size(), 2u);
  EXPECT_EQ(j["ctas"][1]["expect_bytes"], 32768);
  EXPECT_EQ(j["ctas"][1]["dsmem_bytes"], 16384);
  EXPECT_EQ(j["ctas"][0]["receivers_text"], "0b11 (0x3: CTAs 0, 1)");  // the leader broadcasts to both
  EXPECT_EQ(j["ctas"][1]["issues"], false);                            // and CTA 1 issues nothing
}

// Every copy may be given again; two DSMEM copies of 600,000 bytes into one CTA pass the mbarrier's
// transaction count together, though each is within it alone.
TEST(ClusterStageCli, ASumPastTheTransactionCountIsRefused) {
  const std::string big = "from=0; to=1; dtype=f32; src=(150000):(1); dst=(150000):(1)";
  const auto r = run_inprocess(stage({"--dsmem", big, "--dsmem", big}));
  EXPECT_EQ(r.rc, 1) << r.out << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;  // no sums for a refused stage
  EXPECT_NE(r.err.find("error [expect.tx_limit] CTA 1"), std::string::npos) << r.err;
  const auto j = nlohmann::json::parse(run_inprocess(stage({"--dsmem", big, "--dsmem", big, "--json"})).out);
  EXPECT_EQ(j["exit"], 1);
  EXPECT_EQ(j["error"]["rule"], "expect.tx_limit");
  EXPECT_TRUE(j["error"]["copy"].is_null());  // the sum's, no one copy's
  EXPECT_EQ(j["error"]["cta"], 1);
  EXPECT_TRUE(j["ctas"].empty());
  const auto alone = nlohmann::json::parse(
      run_inprocess(stage({"--dsmem", "from=0; to=1; dtype=f32; src=(262144):(1); dst=(262144):(1)", "--json"})).out);
  EXPECT_EQ(alone["error"]["rule"], "dsmem.too_large");
  EXPECT_EQ(alone["error"]["copy"], "dsmem 1");  // one copy's own plan
}

TEST(ClusterStageCli, ACopyOutsideTheClusterIsRefusedOnItsIssuer) {
  const auto r = run_inprocess(stage({"--dsmem", "from=0; to=2; dtype=f32; src=(64):(1); dst=(64):(1)"}));
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("error [mask.outside_cluster] CTA 0: mask names CTA 2, cluster has 2"), std::string::npos) << r.err;
}

// A 2x2 cluster, A shared along y: the plan's masks are 0b0101 on CTAs 0 and 2, 0b1010 on 1 and 3.
TEST(ClusterStageCli, TheKernelsMasksAreCheckedAgainstThePlan) {
  const std::vector<std::string> ok = {"cluster-stage", "--cluster", "2,2", "--multicast",
                                       "box=" + box_16k() + "; share=y; mask=0:0b0101,1:[1,3],2:0x5,3:10"};
  auto r = run_inprocess(ok);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("\nmulticast 1: the kernel's ctaMask is the plan's on CTAs 0, 1, 2, 3\n"), std::string::npos) << r.out;
  r = run_inprocess({"cluster-stage", "--cluster", "2,2", "--multicast", "box=" + box_16k() + "; share=y; mask=0b0011"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(r.err.find("multicast 1: error [multicast.mask_mismatch] CTA 0: ctaMask 0b0011 (0x3: CTAs 0, 1), the "
                       "plan's 0b0101 (0x5: CTAs 0, 2): missing CTA 2"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("error [multicast.mask_mismatch] CTA 3: ctaMask 0b0011 (0x3: CTAs 0, 1), the plan's 0b1010 "
                       "(0xa: CTAs 1, 3): missing CTA 3, which shares the tile"),
            std::string::npos)
      << r.err;
  const auto j = nlohmann::json::parse(
      run_inprocess(stage({"--multicast", "box=" + box_16k() + "; share=x; mask=[0,1,2,3]", "--json"})).out);
  EXPECT_EQ(j["exit"], 1);
  ASSERT_EQ(j["errors"].size(), 1u);  // once for the mask, not per issuing CTA
  EXPECT_EQ(j["error"]["rule"], "multicast.mask_outside_cluster");
  EXPECT_EQ(j["error"]["copy"], "multicast 1");
  EXPECT_TRUE(j["error"]["cta"].is_null());
  EXPECT_NE(j["error"]["message"].get<std::string>().find("ctaMask 0b1111 (0xf: CTAs 0, 1, 2, 3) of every issuing CTA"),
            std::string::npos);
}

// Two CTA pairs (cta_group::2): A per CTA, B sliced across the four; 32 KiB lands in each CTA, and
// each pair's even CTA arms its pair's 64 KiB.
TEST(ClusterStageCli, CtaPairsArmThePairsBytesOnTheEvenCta) {
  const std::vector<std::string> pairs = {"cluster-stage",    "--cluster",   "4,1", "--cta-group", "2", "--multicast",
                                          "box=" + box_16k() + "; share=y", "--multicast", "box=" + box_16k() + "; share=x"};
  auto with = [&](std::vector<std::string> more) {
    std::vector<std::string> a = pairs;
    a.insert(a.end(), more.begin(), more.end());
    return a;
  };
  auto r = run_inprocess(with({"--arch", "sm_100", "--armed", "0=65536", "--armed", "2=0x10000"}));
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("; cta_group::2 on sm_100: each CTA pair's TMA bytes complete on its even CTA's barrier\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("CTA 2: arm 65536 bytes on its full barrier (TMA 65536 + DSMEM 0); TMA: 32768 into CTA 2 + "
                       "32768 into CTA 3, its pair (cta_group::2)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("CTA 3: arm 0 bytes on its full barrier (TMA 0 + DSMEM 0); TMA: 32768 into CTA 3, counted on "
                       "CTA 2's barrier (cta_group::2)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\nthe kernel arms the stage's bytes on CTAs 0, 2\n"), std::string::npos) << r.out;
  const auto j = nlohmann::json::parse(run_inprocess(with({"--arch", "sm_100", "--json"})).out);
  EXPECT_EQ(j["cta_group"], 2);
  EXPECT_EQ(j["arch"], "sm_100");
  EXPECT_EQ(j["ctas"][1]["tma_barrier"], 0);
  EXPECT_EQ(j["ctas"][1]["tma_landed_bytes"], 32768);
  EXPECT_EQ(j["ctas"][1]["expect_bytes"], 0);

  r = run_inprocess(with({"--arch", "sm_100", "--armed", "0=131072", "--armed", "2=131072"}));  // 4 x, not 2 x
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("error [expect.armed_mismatch] CTA 0: armed 131072 B, the stage completes 65536 B on this "
                       "barrier: 131072 B = 4 x 32768, the cluster's 4 CTAs x the TMA bytes into one CTA"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("error [expect.armed_mismatch] CTA 2:"), std::string::npos) << r.err;
  r = run_inprocess(with({"--armed", "0=65536"}));  // sm_90, the default target: no CTA pairs
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.err.rfind("error [cta_group.arch] cta_group::2 for target sm_90: CTA pairs", 0), 0u) << r.err;
  r = run_inprocess({"cluster-stage", "--cluster", "3", "--cta-group", "2", "--arch", "sm_100", "--dsmem", kDsmem16k});
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("error [cta_group.pair] cta_group::2 in a cluster of 3 CTAs: CTA 2 has no peer"), std::string::npos)
      << r.err;
}

TEST(ClusterStageCli, BadSpecsAreBadUsage) {
  for (const std::vector<std::string>& more : std::vector<std::vector<std::string>>{
           {},                                                                    // no copy at all
           {"--dsmem", "from=0; to=1; dtype=f32; src=(64):(1)"},                  // dst missing
           {"--dsmem", "from=0; tox=1"},                                          // unknown key
           {"--dsmem", "from=0; from=1; to=1; dtype=f32; src=(64):(1); dst=(64):(1)"},  // a key twice
           {"--dsmem", "from 0"},                                                 // not key=value
           {"--dsmem", "from=0; to=1; dtype=e2m1; src=(64):(1); dst=(64):(1)"},   // sub-byte
           {"--dsmem", "from=0; to=1; dtype=f32; src=(64):(1); dst=(64):(1); threads=0"},  // no thread copies
           {"--multicast", "box=00; share=x"},                                    // not 128 bytes
           {"--multicast", "box=" + box_16k() + "; share=xx"},                    // a dimension twice
           {"--multicast", "box=" + box_16k() + "; share=x; mode=both"},          // no such mode
           {"--multicast", "box=" + box_16k() + "; share=x; mask=0x10000"},       // a ctaMask has 16 bits
           {"--multicast", "box=" + box_16k() + "; share=x; mask=[0,16]"},        // no rank 16
           {"--multicast", "box=" + box_16k() + "; share=x; mask=0:1,0:3"},       // a CTA twice
           {"--multicast", "box=" + box_16k() + "; share=x; mask=1,3"},           // neither one mask nor R:MASK
           {"--multicast", "box=" + box_16k() + "; share=x; mask=all"},           // not a mask
           {"--dsmem", kDsmem16k, "--cta-group", "3"},                            // cta_group 1 or 2
           {"--dsmem", kDsmem16k, "--arch", "sm_80"},                             // no such target
           {"--dsmem", kDsmem16k, "--armed", "0"},                                // not R=BYTES
           {"--dsmem", kDsmem16k, "--armed", "0=-1"},                             // not a byte count
           {"--dsmem", kDsmem16k, "--armed", "0=1", "--armed", "0=2"},            // a CTA twice
       }) {
    const auto r = run_inprocess(stage(more));
    EXPECT_EQ(r.rc, 2) << (more.empty() ? "" : more.back()) << "\n" << r.out << r.err;
  }
  EXPECT_EQ(run_inprocess({"cluster-stage", "--cluster", "17", "--dsmem", kDsmem16k}).rc, 2);
  EXPECT_EQ(run_inprocess({"cluster-stage", "--cluster", "4,8", "--dsmem", kDsmem16k}).rc, 2);  // 32 CTAs
  EXPECT_EQ(run_inprocess({"cluster-stage", "--cluster", "2,1", "--cluster", "2,1", "--dsmem", kDsmem16k}).rc, 2);
}

}  // namespace
