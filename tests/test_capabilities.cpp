// core/capabilities.hpp: the table is whole (every cell sourced, verified only where tmakit ran),
// agrees with validate()'s architecture gates, and `tmakit arch` prints it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "cli_run.hpp"
#include "test_configs.hpp"
#include "tmakit/core/capabilities.hpp"
#include "tmakit/tensor_map/validate.hpp"

namespace tmakit {
namespace {

TEST(Capabilities, EveryCellIsSourcedAndVerifiedOnlyWhereItRan) {
  for (const Capability& c : kCapabilities) {
    SCOPED_TRACE(c.id);
    EXPECT_NE(std::string(c.source), "");
    EXPECT_EQ(find_capability(c.id), &c);
    bool any_verified = false;
    for (const TargetInfo& t : kTargets) {
      const CapabilityCell& x = cell(c, t.target);
      EXPECT_TRUE(!x.verified_on_hardware || t.run_on_hardware) << t.name;
      any_verified = any_verified || x.verified_on_hardware;
      EXPECT_TRUE(x.value != kUnconfirmed || x.limit != nullptr) << t.name << ": an unconfirmed cell says why";
      EXPECT_TRUE(c.numeric || x.value == kYes || x.value == kNo || x.value == kUnconfirmed) << t.name;
    }
    EXPECT_EQ(any_verified, c.evidence != nullptr) << "evidence exactly where a cell ran";
  }
}

TEST(Capabilities, TargetsParseAsNvccSpellsThem) {
  Target t{};
  for (const char* s : {"sm_90a", "sm_90", "90", "9.0"}) {
    ASSERT_TRUE(parse_target(s, t)) << s;
    EXPECT_EQ(t, Target::sm_90a);
  }
  ASSERT_TRUE(parse_target("sm_103a", t));
  EXPECT_EQ(t, Target::sm_103a);
  EXPECT_FALSE(parse_target("sm_121a", t));
  EXPECT_FALSE(parse_target("", t));
}

// The table's packed-type and swizzle-atom rows say what validate() does on the targets it knows.
TEST(Capabilities, AgreeWithTheValidateArchitectureGates) {
  const struct { Target t; Arch a; } kSame[] = {{Target::sm_90a, Arch::sm_90}, {Target::sm_100a, Arch::sm_100},
                                                {Target::sm_120a, Arch::sm_120}};
  for (const auto& s : kSame) {
    SCOPED_TRACE(target_info(s.t).name);
    TensorMapParams packed = test::tiled_bf16();
    packed.dtype = DataType::u4x16_align8b;
    packed.swizzle = Swizzle::none;
    packed.arch = s.a;
    const bool packed_ok = !validate(packed).contains(Rule::dtype_packed_requires_sm100);
    EXPECT_EQ(packed_ok, cell(*find_capability("packed_types"), s.t).value == kYes);
    TensorMapParams atom = test::tiled_bf16();
    atom.swizzle = Swizzle::b128_atom_32b;
    atom.arch = s.a;
    const bool atom_ok = !validate(atom).contains(Rule::swizzle_atom_requires_sm100);
    EXPECT_EQ(atom_ok, cell(*find_capability("swizzle_atomicity"), s.t).value == kYes);
  }
}

TEST(ArchCli, TableTargetAndJson) {
  const tmakit_test::CliRun all = tmakit_test::run_inprocess({"arch"});
  EXPECT_EQ(all.rc, 0);
  EXPECT_EQ(all.out.rfind("capability                 sm_90a   sm_100a  sm_103a  sm_120a\n", 0), 0u) << all.out;
  EXPECT_NE(all.out.find("\nscatter4                   no       yes      yes      no!\n"), std::string::npos) << all.out;
  const tmakit_test::CliRun one = tmakit_test::run_inprocess({"arch", "sm_120a"});
  EXPECT_EQ(one.rc, 0);
  EXPECT_NE(one.out.find("unverified on hardware"), std::string::npos);
  EXPECT_NE(one.out.find("smem_per_block_kib, shared memory per thread block with the opt-in, in KiB: 99; 101,376 bytes"),
            std::string::npos) << one.out;
  const tmakit_test::CliRun json = tmakit_test::run_inprocess({"arch", "9.0", "--json"});
  EXPECT_EQ(json.rc, 0);
  const auto j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["targets"].size(), 1u);
  EXPECT_EQ(j["capabilities"][0]["cells"]["sm_90a"]["verified_on_hardware"], true);
  EXPECT_EQ(j["capabilities"].size(), static_cast<std::size_t>(kCapabilityCount));
  const tmakit_test::CliRun bad = tmakit_test::run_inprocess({"arch", "sm_121"});
  EXPECT_EQ(bad.rc, 2);
  EXPECT_NE(bad.err.find("'sm_121' is not a target the table holds"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace tmakit
