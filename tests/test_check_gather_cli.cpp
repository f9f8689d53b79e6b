// `tmakit check-gather` (tools/tmakit/cmd_check_gather.cpp): a descriptor for Blackwell's TMA row
// gather / scatter on a target from the command line, with the words and rule ids of check_gather4
// (and of Python's tmakit.check_gather); exit 0 / 1 / 2 as every command.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_run.hpp"

using tmakit_test::run_inprocess;

namespace {

// The descriptor of bf16 rows of 4096 elements (65536 rows), box {64, 1}, swizzle 128B, as `tmakit
// encode tiled ... --arch sm_100` prints it; kBox4: the same map with box {64, 4}.
std::string encode(const std::string& box) {
  const auto r = run_inprocess({"encode", "tiled", "--dtype", "bf16", "--dims", "4096,65536", "--strides", "8192",
                                "--box", box, "--swizzle", "128B", "--arch", "sm_100"});
  EXPECT_EQ(r.rc, 0) << r.err;
  return r.out.substr(0, 256);
}
const std::string kRows = encode("64,1");
const std::string kBox4 = encode("64,4");

std::vector<std::string> gather(const std::string& map, std::vector<std::string> more) {
  std::vector<std::string> a = {"check-gather", map};
  a.insert(a.end(), more.begin(), more.end());
  return a;
}

TEST(CheckGatherCli, AUsableMapPrintsWhatOneCopyMoves) {
  const auto r = run_inprocess(gather(kRows, {"--op", "gather4", "--arch", "sm_100a", "--armed-bytes", "512"}));
  EXPECT_EQ(r.rc, 0) << r.out << r.err;
  EXPECT_EQ(r.out,
            "gather4 on sm_100a into .shared::cta (per the PTX ISA; unverified on hardware)\n"
            "instruction  cp.async.bulk.tensor.2d.shared::cta.global.tile::gather4.mbarrier::complete_tx::bytes "
            "[dstMem], [tensorMap, {col, row0, row1, row2, row3}], [mbar]\n"
            "one copy     4 rows x 64 BFLOAT16 (128 B each) = 512 B delivered; the map's box is one row, 128 B\n"
            "expect_tx    512 B per phase (1 copy)\n");
  EXPECT_EQ(r.err, "");
  const auto s = run_inprocess(gather(kRows, {"--op", "scatter4", "--arch", "sm_103a"}));
  EXPECT_EQ(s.rc, 0) << s.out << s.err;
  EXPECT_NE(s.out.find("completion   the bulk async-group"), std::string::npos) << s.out;
}

TEST(CheckGatherCli, RefusalsNameTheirRulesOnStdout) {
  auto r = run_inprocess(gather(kRows, {"--op", "scatter4", "--arch", "sm_120a"}));
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.out.rfind("error [scatter4.arch] target = sm_120a: ", 0), 0u) << r.out;
  EXPECT_EQ(r.err, "");
  r = run_inprocess(gather(kRows, {"--op", "gather4", "--arch", "sm_120", "--dst", "cluster"}));
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.out.rfind("error [gather4.cluster_destination] destination = .shared::cluster: ", 0), 0u) << r.out;
  r = run_inprocess(gather(kRows, {"--op", "gather4", "--arch", "9.0"}));
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.out.rfind("error [gather4.arch] target = sm_90a: ", 0), 0u) << r.out;
  // box rows 4, armed for the box's volume: the rows rule; the bytes agree (4 x 128 B)
  r = run_inprocess(gather(kBox4, {"--op", "gather4", "--arch", "sm_100", "--armed-bytes", "512"}));
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.out.rfind("error [gather4.box_rows] boxDim[1] = 4: must be 1", 0), 0u) << r.out;
  EXPECT_EQ(r.out.find("gather4.armed_bytes"), std::string::npos) << r.out;
  // box rows 1, armed for the box: a quarter of the copy
  r = run_inprocess(gather(kRows, {"--op", "gather4", "--arch", "sm_100", "--armed-bytes", "128"}));
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.out.rfind("error [gather4.armed_bytes] armed bytes = 128: ", 0), 0u) << r.out;
  r = run_inprocess(gather(kRows, {"--op", "gather4", "--arch", "sm_100", "--armed-bytes", "2048", "--copies", "4"}));
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("expect_tx    2048 B per phase (4 copies)\n"), std::string::npos) << r.out;
  r = run_inprocess(gather(kRows, {"--op", "scatter4", "--arch", "sm_100", "--armed-bytes", "512"}));
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.out.rfind("error [scatter4.armed_bytes] armed bytes = 512: ", 0), 0u) << r.out;
}

TEST(CheckGatherCli, Json) {
  auto r = run_inprocess(gather(kRows, {"--op", "gather4", "--arch", "sm_100", "--dst", "multicast", "--json"}));
  EXPECT_EQ(r.rc, 0) << r.out;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["ok"], true);
  EXPECT_EQ(j["target"], "sm_100a");
  EXPECT_EQ(j["dst"], "multicast");
  EXPECT_EQ(j["copy_bytes"], 512);
  EXPECT_EQ(j["expect_tx"], 512);
  EXPECT_FALSE(j.contains("text"));
  r = run_inprocess(gather(kBox4, {"--op", "gather4", "--arch", "sm_90", "--armed-bytes", "128", "--json"}));
  EXPECT_EQ(r.rc, 1);
  j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["ok"], false);
  EXPECT_EQ(j["exit"], 1);
  ASSERT_EQ(j["errors"].size(), 3u) << r.out;
  EXPECT_EQ(j["errors"][0]["rule"], "gather4.arch");
  EXPECT_EQ(j["errors"][1]["rule"], "gather4.box_rows");
  EXPECT_EQ(j["errors"][2]["rule"], "gather4.armed_bytes");
  EXPECT_EQ(j["error"]["rule"], "gather4.arch");
}

TEST(CheckGatherCli, BadUsageIsExit2) {
  struct Case {
    std::vector<std::string> more;
    std::string words;
  };
  const std::vector<Case> cases = {
      {{"--op", "gather8", "--arch", "sm_100"}, "--op: 'gather8' is not gather4 or scatter4"},
      {{"--op", "gather4", "--arch", "sm_121a"}, "--arch: 'sm_121a' is not a target the capability table holds"},
      {{"--op", "gather4", "--arch", "sm_100", "--dst", "global"}, "--dst: 'global' is not cta, cluster or multicast"},
      {{"--op", "scatter4", "--arch", "sm_100", "--dst", "cta"}, "--dst: scatter4 reads .shared::cta"},
      {{"--op", "scatter4", "--arch", "sm_100", "--copies", "2"}, "--copies: scatter4 completes on no barrier"},
      {{"--op", "gather4", "--arch", "sm_100", "--copies", "0"}, "--copies: 0 copies deliver nothing"},
      {{"--op", "gather4", "--arch", "sm_100", "--armed-bytes", "-1"}, "--armed-bytes: '-1' is not an unsigned"},
      {{"--arch", "sm_100"}, "--op is required"},
  };
  for (const Case& c : cases) {
    const auto r = run_inprocess(gather(kRows, c.more));
    EXPECT_EQ(r.rc, 2) << r.out << r.err;
    EXPECT_NE(r.err.find(c.words), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
  }
  const auto r = run_inprocess({"check-gather", "00ff", "--op", "gather4", "--arch", "sm_100"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("DESCRIPTOR"), std::string::npos) << r.err;
}

}  // namespace
