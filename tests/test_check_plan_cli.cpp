// `tmakit check-plan` (tools/tmakit/cmd_check_plan.cpp): the plan's check of a descriptor and of the
// kernel's barrier count from the command line, with the words and check.* ids of
// check_against_plan (and of Python's tmakit.check_against_plan).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_run.hpp"
#include "tmakit/layout/notation.hpp"
#include "tmakit/plan/make_problem.hpp"
#include "tmakit/plan/notation.hpp"
#include "tmakit/tensor_map/encode.hpp"
#include "tmakit/tensor_map/jsonl.hpp"

using tmakit_test::run_inprocess;

namespace {

// The rank-2 fp32 (d, seq) tile: one copy of 16 KiB per stage.
std::vector<std::string> kv(std::vector<std::string> more) {
  std::vector<std::string> a = {"check-plan", "--gmem", "fp32 (64,4096):(1,64)", "--smem", "(64,64):(1,64)",
                                "--tile", "d=64,seq=64"};
  a.insert(a.end(), more.begin(), more.end());
  return a;
}

TEST(CheckPlanCli, TheGroupedCopyIsOk) {
  const auto r = run_inprocess(kv({"--armed-bytes", "16384", "--copies", "1"}));
  EXPECT_EQ(r.rc, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "ok\n");
}

TEST(CheckPlanCli, TheUngroupedCopyIsTheHangWithItsChain) {
  const auto r = run_inprocess(kv({"--armed-bytes", "16384", "--copies", "64"}));
  EXPECT_EQ(r.rc, 1) << r.out << r.err;
  EXPECT_EQ(r.out.rfind("error [check.copies] copies per stage: plan 1, kernel 64: ", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("64 copies x 16,384 B deliver 1,048,576 bytes to a barrier armed for 16,384"), std::string::npos);
  EXPECT_NE(r.out.find("cute.group_modes"), std::string::npos);
  EXPECT_NE(r.out.find("\nerror [check.tx_limit] transaction count: plan at most 1,048,575 B per phase, kernel "
                       "1,048,576 B delivered, 16,384 B armed: "),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("the next wait never completes (the hang)"), std::string::npos);
  EXPECT_TRUE(r.err.empty()) << r.err;
}

TEST(CheckPlanCli, JsonCarriesTheRulesAndTheBytes) {
  const auto r = run_inprocess(kv({"--armed-bytes", "16384", "--copies", "64", "--json"}));
  EXPECT_EQ(r.rc, 1);
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["ok"], false);
  EXPECT_EQ(j["exit"], 1);
  EXPECT_EQ(j["stage_bytes"], 1048576);
  EXPECT_EQ(j["armed_bytes"], 16384);
  EXPECT_EQ(j["hangs"], true);
  ASSERT_EQ(j["errors"].size(), 2u);
  EXPECT_EQ(j["errors"][0]["rule"], "check.copies");
  EXPECT_EQ(j["errors"][1]["rule"], "check.tx_limit");
  EXPECT_EQ(j["error"]["rule"], "check.copies");
}

TEST(CheckPlanCli, ADescriptorInHexIsChecked) {
  // A half box (32 seq rows instead of 64): the barrier armed with the plan's 16384 bytes hangs.
  const tmakit::PlanResult p = tmakit::plan_tile(tmakit::parse_global_tensor("fp32 (64,4096):(1,64)").value,
                                                 tmakit::parse_swizzled_layout("(64,64):(1,64)").value,
                                                 tmakit::parse_tile_extents("d=64,seq=64").value);
  ASSERT_TRUE(p.ok());
  tmakit::TensorMapParams half = p.plan.params;
  half.box[1] = 32;
  const auto r = run_inprocess(kv({tmakit::jsonl::to_hex(tmakit::encode(half).map)}));
  EXPECT_EQ(r.rc, 1) << r.out << r.err;
  EXPECT_EQ(r.out.rfind("error [check.box] boxDim[1]: plan 64, descriptor 32: ", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("error [check.copy_bytes]"), std::string::npos);
  EXPECT_NE(r.out.find("waits for 8192 bytes that never come"), std::string::npos) << r.out;
}

TEST(CheckPlanCli, BadUsageIsExitTwo) {
  EXPECT_EQ(run_inprocess(kv({"--copies", "many"})).rc, 2);
  EXPECT_EQ(run_inprocess(kv({"00"})).rc, 2);  // not 128 bytes
  EXPECT_EQ(run_inprocess({"check-plan", "--gmem", "fp32 (64,4096):(1,64)"}).rc, 2);
}

}  // namespace
