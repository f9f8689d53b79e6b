// A kernel's own numbers checked against a cluster stage's plan (host only): the ctaMask each CTA
// passes to its multicast copy of an operand, and the bytes it arms each full barrier with. The
// plan computes the masks (MulticastPlan::cta[r].issue) and the bytes (ClusterStage::cta[r]); these
// checks only compare, so the numbers a kernel is held to are the plan's and nothing recomputes
// them. Every finding at once, each with its rule (cluster/rules.hpp), the CTA and the numbers in
// words: masks in binary and hex with the CTA list, never a bare decimal.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tmakit/cluster/multicast.hpp"
#include "tmakit/cluster/stage.hpp"
#include "tmakit/core/finding.hpp"

namespace tmakit {

// One finding: multicast.mask_outside_cluster, multicast.mask_mismatch or expect.armed_mismatch, in
// the library's one shape (core/finding.hpp): where "CTA 0" ("" for cta -1), what "<where>:
// <detail>", fix the rule's fix. message(): "error [multicast.mask_mismatch] CTA 0: <detail>; fix: ...".
struct StageFinding : Finding {
  ClusterRule rule = ClusterRule::armed_mismatch;
  std::int32_t cta = -1;  // the CTA concerned; -1: every CTA the mask was given for
  std::string detail;     // the numbers in words: "ctaMask 0b0011 (0x3: CTAs 0, 1), the plan's ..."

  StageFinding() = default;
  StageFinding(ClusterRule rule, std::int32_t cta, std::string detail);  // with the Finding's words
};

// A ctaMask a kernel passes for one operand's copy: on CTA `cta`, or on every CTA that issues the
// operand (cta = -1: the one mask a kernel computes the same everywhere).
struct KernelMask {
  std::int32_t cta = -1;
  std::uint16_t mask = 0;
};

// The masks of one operand's plan `plan` against the kernel's, per issuing CTA:
//   multicast.mask_outside_cluster  a mask names a rank >= the cluster's size (once per mask given;
//                                   also a mask given for a CTA outside the cluster);
//   multicast.mask_mismatch         the mask, within the cluster, is not the plan's for the CTA: the
//                                   CTAs missing and the CTAs in excess are named. A mask given for
//                                   a CTA that issues no copy of the operand in the plan is one too
//                                   (every CTA it names would receive a copy the plan does not make).
// A unicast issue (a sharer set of one) compares with the issuer's own bit. `plan` must be valid.
std::vector<StageFinding> check_kernel_masks(const MulticastPlan& plan, const KernelMask* masks, int count);

// Bytes a kernel arms CTA `cta`'s full barrier with per stage.
struct KernelArmed {
  std::uint32_t cta = 0;
  std::uint64_t bytes = 0;
};

// The armed bytes against the stage's expect_bytes (expect.armed_mismatch), with what the
// difference does (the wait that never completes, or the phase that completes on the wrong bytes)
// and, where the numbers show it, the mistake: the bytes into one CTA multiplied by the cluster's
// size; with cta_group::2, one CTA's bytes armed on a pair's even CTA, or TMA bytes armed on an odd
// CTA whose loads complete on its pair's even CTA.
std::vector<StageFinding> check_kernel_armed(const ClusterStage& stage, const KernelArmed* armed, int count);

// The `mask=` value of a multicast SPEC (the CLI's cluster-stage; Python's strings): one ctaMask
// for every issuing CTA ("0b0101", "0x5", "5", "[0,2]"), or one per CTA, "R:MASK" items separated by
// ',' ("0:0b0101,1:[1,3]"), each CTA once. False with `why` when it does not parse.
bool parse_kernel_masks(std::string_view text, std::vector<KernelMask>& out, std::string& why);

}  // namespace tmakit
