// `tmakit plan` in-process (tmakit::cli::run_cli): plan text, JSON, refusals, usage errors.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli.hpp"

using nlohmann::json;

namespace {

struct CliRun {
  int rc;
  std::string out, err;
};

CliRun run(std::vector<std::string> args) {
  args.insert(args.begin(), "plan");
  std::istringstream in;
  std::ostringstream out, err;
  const int rc = tmakit::cli::run_cli(args, in, out, err);
  return {rc, out.str(), err.str()};
}

const std::vector<std::string> kGemmA = {"--gmem", "bf16 (4096,4096):(4096,1)", "--smem", "Sw<3,4,3> o (128,64):(64,1)",
                                         "--tile", "M=128,K=64"};

// The descriptor `tmakit encode tiled --dtype bf16 --dims 4096,4096 --strides 8192 --box 64,128
// --swizzle 128B` prints (README): the plan must produce the very same bytes.
const std::string kGemmAHex =
    "0000000000000000106500000002000000000000000000000000000000000000ff0f0000ff0f00000000000000000000000000000000003f7f00000000000000"
    "00400000000000000004000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000";

}  // namespace

TEST(PlanCli, PrintsThePlanAndTheDescriptor) {
  const CliRun r = run(kGemmA);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("plan: 1 TMA instruction per tile, 16384 bytes each; expect_tx 16384 bytes per stage"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("x0 = 64*t_K"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("x1 = 128*t_M"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("base aligned to 1024 bytes"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("descriptor: " + kGemmAHex), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("boxDim[1]              128"), std::string::npos) << r.out;  // decoded fields
}

TEST(PlanCli, Json) {
  std::vector<std::string> a = kGemmA;
  a.push_back("--json");
  const CliRun r = run(a);
  ASSERT_EQ(r.rc, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["result"], 0);
  EXPECT_EQ(j["plan"]["expect_tx_bytes"], 16384);
  EXPECT_EQ(j["plan"]["smem_alignment"], 1024);
  EXPECT_EQ(j["plan"]["instructions"].size(), 1u);
  EXPECT_EQ(j["plan"]["dims"][0]["mode_name"], "K");
  EXPECT_EQ(j["plan"]["dims"][1]["coordinate"], "128*t_M");
  EXPECT_EQ(j["descriptor"]["bytes"], kGemmAHex);
  EXPECT_EQ(j["descriptor"]["decoded"]["fields"]["boxDim[1]"]["value"], "128") << j["descriptor"].dump();
}

TEST(PlanCli, RefusalNamesTheModeTheNumbersAndAFix) {
  const CliRun r = run({"--gmem", "bf16 (4096,4096):(4096,1)", "--smem", "Sw<3,4,3> o (128,64):(1,128)", "--tile",
                     "tile_M=128,tile_K=64"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("error [plan.inner_contiguous] tile mode 0 (tile_M) is contiguous in shared memory but has "
                       "global stride 4096"),
            std::string::npos) << r.err;
  EXPECT_NE(r.err.find("fix: make tile mode 1 (tile_K) the innermost shared mode"), std::string::npos) << r.err;
  const CliRun j = run({"--gmem", "bf16 (512,1028):(1028,1) align=8", "--smem", "(64,64):(64,1)", "--tile", "r=64,c=64",
                     "--json"});
  EXPECT_EQ(j.rc, 1);
  const json e = json::parse(j.out);
  EXPECT_EQ(e["result"], 1);
  ASSERT_EQ(e["errors"].size(), 2u) << j.out;  // every violation at once
  EXPECT_EQ(e["errors"][0]["rule"], "gmem.base_align");
  EXPECT_EQ(e["errors"][1]["rule"], "gmem.stride_align");
  EXPECT_NE(e["errors"][1]["fix"].get<std::string>().find("1032 elements"), std::string::npos);
}

TEST(PlanCli, Multicast) {
  std::vector<std::string> a = kGemmA;
  for (const char* s : {"--cluster", "2,1", "--multicast-mode", "x"}) a.push_back(s);
  const CliRun r = run(a);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("2 CTAs along x share the tile; each issues 1 instruction(s) (8192 bytes)"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("each receiving CTA expects 16384 bytes"), std::string::npos) << r.out;
}

TEST(PlanCli, BadUsageExitsTwo) {
  EXPECT_EQ(run({"--gmem", "bf16 (4096,4096):(4096,1)", "--smem", "(128,64):(64,1)"}).rc, 2);  // no --tile
  const CliRun g = run({"--gmem", "bf17 (4,4):(4,1)", "--smem", "(4,4):(4,1)", "--tile", "4,4"});
  EXPECT_EQ(g.rc, 2);
  EXPECT_NE(g.err.find("--gmem: dtype 'bf17'"), std::string::npos) << g.err;
  const CliRun s = run({"--gmem", "bf16 (4,4):(4,1)", "--smem", "(4,4:(4,1)", "--tile", "4,4"});
  EXPECT_EQ(s.rc, 2);
  EXPECT_NE(s.err.find("--smem: "), std::string::npos) << s.err;
  std::vector<std::string> m = kGemmA;
  m.push_back("--multicast-mode");
  m.push_back("w");
  EXPECT_EQ(run(m).rc, 2);
  std::vector<std::string> c = kGemmA;
  c.push_back("--cluster");
  c.push_back("2,x");
  EXPECT_EQ(run(c).rc, 2);
  const CliRun h = run({"--help"});
  EXPECT_EQ(h.rc, 0);
  EXPECT_NE(h.out.find("--multicast-mode"), std::string::npos);
}

// --store / --reduce OP: the same descriptor and instructions, the direction and the bulk-group steps.
TEST(PlanCli, StoreAndReducePlans) {
  std::vector<std::string> a = kGemmA;
  a.push_back("--store");
  const CliRun s = run(a);
  ASSERT_EQ(s.rc, 0) << s.err;
  EXPECT_NE(s.out.find("direction: store (shared -> global, cp.async.bulk.tensor"), std::string::npos) << s.out;
  EXPECT_NE(s.out.find("plan: 1 TMA store per tile, 16384 bytes each"), std::string::npos) << s.out;
  EXPECT_NE(s.out.find("fence.proxy.async.shared::cta"), std::string::npos) << s.out;
  EXPECT_NE(s.out.find("cp.async.bulk.commit_group"), std::string::npos) << s.out;
  EXPECT_NE(s.out.find("cp.async.bulk.wait_group.read 0"), std::string::npos) << s.out;
  EXPECT_NE(s.out.find("cp.async.bulk.wait_group 0"), std::string::npos) << s.out;
  EXPECT_NE(s.out.find("descriptor: " + kGemmAHex), std::string::npos) << s.out;  // the load's descriptor
  EXPECT_EQ(run(kGemmA).out.find("bulk groups"), std::string::npos);             // loads: unchanged

  a.push_back("--json");
  const json j = json::parse(run(a).out);
  EXPECT_EQ(j["plan"]["direction"], "store");
  EXPECT_EQ(j["plan"]["expect_tx_bytes"], 0);
  ASSERT_EQ(j["plan"]["bulk_group_steps"].size(), 4u);
  EXPECT_EQ(j["plan"]["bulk_group_steps"][1]["call"], "commit_group()");
  EXPECT_EQ(j["plan"]["bulk_group_steps"][3]["ptx"], "cp.async.bulk.wait_group 0");
  EXPECT_FALSE(j["plan"].contains("reduce_op"));
  std::vector<std::string> l = kGemmA;
  l.push_back("--json");
  const json lj = json::parse(run(l).out);
  EXPECT_EQ(lj["plan"]["direction"], "load");
  EXPECT_FALSE(lj["plan"].contains("bulk_group_steps"));
  EXPECT_EQ(lj["plan"]["instructions"], j["plan"]["instructions"]);

  for (const char* op : {"add", "ADD", "Max"}) {
    std::vector<std::string> r = kGemmA;
    r.insert(r.end(), {"--reduce", op, "--json"});
    const CliRun x = run(r);
    ASSERT_EQ(x.rc, 0) << x.err;
    const json rj = json::parse(x.out);
    EXPECT_EQ(rj["plan"]["direction"], "reduce");
    EXPECT_TRUE(rj["plan"]["reduce_op"] == "add" || rj["plan"]["reduce_op"] == "max");
  }
}

TEST(PlanCli, StoreRefusalsAndUsageErrors) {
  std::vector<std::string> a = kGemmA;
  a.insert(a.end(), {"--store", "--cluster", "2,1", "--multicast-mode", "x"});
  const CliRun m = run(a);
  EXPECT_EQ(m.rc, 1);
  EXPECT_NE(m.err.find("error [plan.store_multicast]"), std::string::npos) << m.err;
  std::vector<std::string> o = kGemmA;
  o.insert(o.end(), {"--store", "--oob", "nan_request_zero_fma", "--json"});
  const CliRun f = run(o);
  EXPECT_EQ(f.rc, 1) << f.err;
  const json fj = json::parse(f.out);
  EXPECT_EQ(fj["errors"][0]["rule"], "plan.store_oob_fill");
  std::vector<std::string> t = kGemmA;  // bf16 takes .add, .min, .max only
  t.insert(t.end(), {"--reduce", "xor"});
  const CliRun x = run(t);
  EXPECT_EQ(x.rc, 1);
  EXPECT_NE(x.err.find("error [plan.reduce_dtype] cp.reduce.async.bulk.tensor.xor does not take bf16"), std::string::npos)
      << x.err;
  EXPECT_NE(x.err.find("bf16 takes .add, .min, .max"), std::string::npos) << x.err;
  std::vector<std::string> both = kGemmA;
  both.insert(both.end(), {"--store", "--reduce", "add"});
  const CliRun b = run(both);
  EXPECT_EQ(b.rc, 2);
  EXPECT_NE(b.err.find("--store and --reduce: choose one"), std::string::npos) << b.err;
  std::vector<std::string> bad = kGemmA;
  bad.insert(bad.end(), {"--reduce", "mul"});
  const CliRun u = run(bad);
  EXPECT_EQ(u.rc, 2);
  EXPECT_NE(u.err.find("--reduce: 'mul': expected add, min, max, inc, dec, and, or or xor"), std::string::npos) << u.err;
}

// Packed sub-byte types: the FP4 tile (128 x 128 16U4_ALIGN16B, 128B swizzle, sm_120) plans with the
// driver's rules (inner box of 128 values; global rows of 128 x 4 bits = 64 bytes) and the padded
// shared footprint (a byte per value: 128 x 128 = 16384 bytes to expect); sm_90 has no packed types.
TEST(PlanCli, PackedSubByteTypes) {
  const std::vector<std::string> fp4 = {"--gmem", "u4_align16b (128,128):(128,1)", "--smem", "Sw<3,4,3> o (128,128):(128,1)",
                                        "--tile", "M=128,K=128", "--json"};
  for (const char* arch : {"sm_100", "sm_120"}) {
    std::vector<std::string> a = fp4;
    a.insert(a.end(), {"--arch", arch});
    const CliRun r = run(a);
    ASSERT_EQ(r.rc, 0) << r.out << r.err;
    const json j = json::parse(r.out);
    EXPECT_EQ(j["plan"]["expect_tx_bytes"], 16384);
    EXPECT_EQ(j["plan"]["dtype"], "16U4_ALIGN16B");
    EXPECT_EQ(j["plan"]["dims"][0]["box"], 128);
    EXPECT_EQ(j["plan"]["dims"][1]["stride_bytes"], 64);
    EXPECT_EQ(j["descriptor"]["decoded"]["params"]["strides"][0], 64);
  }
  std::vector<std::string> six = {"--gmem", "u6_align16b (256,512):(512,1)", "--smem", "Sw<3,4,3> o (64,128):(128,1)",
                                  "--tile", "M=64,K=128", "--arch", "sm_100", "--json"};
  const CliRun u6 = run(six);
  ASSERT_EQ(u6.rc, 0) << u6.out;
  EXPECT_EQ(json::parse(u6.out)["plan"]["dims"][1]["stride_bytes"], 384);  // 512 x 6 bits
  std::vector<std::string> hopper = fp4;
  hopper.pop_back();
  hopper.insert(hopper.end(), {"--arch", "sm_90"});
  const CliRun h = run(hopper);
  EXPECT_EQ(h.rc, 1);
  EXPECT_NE(h.err.find("error [gmem.dtype_arch] 16U4_ALIGN16B is a packed sub-byte type, which sm_90 does not have"),
            std::string::npos) << h.err;
  // the driver's rules hold: an inner box of 64 values is refused through the descriptor
  const CliRun narrow = run({"--gmem", "u4_align16b (128,128):(128,1)", "--smem", "(128,64):(64,1)", "--tile",
                             "M=128,K=64", "--arch", "sm_120"});
  EXPECT_EQ(narrow.rc, 1);
  EXPECT_NE(narrow.err.find("box.packed_inner_128"), std::string::npos) << narrow.err;
}

// 16U4_ALIGN8B: two values per byte in global AND shared memory (cuda.h: no gaps between packed
// values). The 128 x 128 tile under the 128B swizzle: a row of 128 values is 64 bytes, which TMA
// pads to the 128-byte span in shared memory (shared row pitch 256 values), so the plan spans 16384
// shared bytes while the mbarrier expects the 8192 bytes the box delivers (transaction_bytes).
TEST(PlanCli, PackedU4Align8B) {
  const std::vector<std::string> fp4 = {"--gmem", "u4_align8b (128,128):(128,1)", "--smem", "Sw<3,4,3> o (128,128):(256,1)",
                                        "--tile", "M=128,K=128"};
  for (const char* arch : {"sm_100", "sm_120"}) {
    std::vector<std::string> a = fp4;
    a.insert(a.end(), {"--arch", arch, "--json"});
    const CliRun r = run(a);
    ASSERT_EQ(r.rc, 0) << r.out << r.err;
    const json j = json::parse(r.out);
    EXPECT_EQ(j["plan"]["dtype"], "16U4_ALIGN8B");
    EXPECT_EQ(j["plan"]["expect_tx_bytes"], 8192);
    EXPECT_EQ(j["plan"]["smem_bytes"], 16384);
    EXPECT_EQ(j["plan"]["swizzle"], "128B");
    EXPECT_EQ(j["plan"]["dims"][0]["box"], 128);
    EXPECT_EQ(j["plan"]["dims"][1]["box"], 128);
    EXPECT_EQ(j["plan"]["dims"][1]["stride_bytes"], 64);
    EXPECT_EQ(j["plan"]["dims"][1]["smem_pitch"], 256);
    EXPECT_EQ(j["descriptor"]["decoded"]["params"]["dtype"], "16U4_ALIGN8B");
    EXPECT_EQ(j["descriptor"]["decoded"]["params"]["strides"][0], 64);
    EXPECT_EQ(j["descriptor"]["decoded"]["transaction_bytes"], 8192);
  }
  std::vector<std::string> text = fp4;
  text.insert(text.end(), {"--arch", "sm_100"});
  const CliRun t = run(text);
  ASSERT_EQ(t.rc, 0) << t.err;
  EXPECT_NE(t.out.find("plan: 1 TMA instruction per tile, 8192 bytes each; expect_tx 8192 bytes per stage"),
            std::string::npos) << t.out;
  EXPECT_NE(t.out.find("dim 0: K  extent 128, stride 4 bits, box 128"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("shared memory: 16384 bytes per stage"), std::string::npos) << t.out;
  std::vector<std::string> hopper = fp4;
  hopper.insert(hopper.end(), {"--arch", "sm_90"});
  const CliRun h = run(hopper);
  EXPECT_EQ(h.rc, 1);
  EXPECT_NE(h.err.find("error [gmem.dtype_arch] 16U4_ALIGN8B is a packed sub-byte type, which sm_90 does not have"),
            std::string::npos) << h.err;
  // the driver's inner-box rule: boxDim[0] x 4 bits a multiple of 16 bytes (32 values)
  const CliRun narrow = run({"--gmem", "u4_align8b (128,128):(128,1)", "--smem", "(128,16):(16,1)", "--tile",
                             "M=128,K=16", "--arch", "sm_120"});
  EXPECT_EQ(narrow.rc, 1);
  EXPECT_NE(narrow.err.find("error [plan.inner_bytes] tile mode 1 (K) is the innermost box dimension with 16 elements = 8 bytes"),
            std::string::npos) << narrow.err;
  EXPECT_NE(narrow.err.find("multiple of 32 elements"), std::string::npos) << narrow.err;
}
