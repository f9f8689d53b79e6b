// What each target architecture can do for data movement, one table with its sources: the answers
// users dispute (can consumer Blackwell launch clusters? multicast? scatter4?), each cell citing
// cuda.h, the PTX ISA or the CUDA programming guide, and saying whether tmakit has run it on a GPU
// of that kind. Only sm_90a has run here (H100 / H200); every Blackwell cell is from the documents
// and marked unverified on hardware. The validate() gates (dtype.packed_requires_sm100,
// swizzle.atom_requires_sm100) agree with this table (tests/test_capabilities.cpp checks it).
#pragma once

#include <cstdint>
#include <string_view>

namespace tmakit {

enum class Target : std::uint8_t { sm_90a, sm_100a, sm_103a, sm_120a };
inline constexpr int kTargetCount = 4;

struct TargetInfo {
  Target target;
  const char* name;         // as nvcc spells it: sm_90a
  const char* products;     // the GPUs of that compute capability
  const char* capability;   // compute capability
  bool run_on_hardware;     // tmakit's GPU suite has run on one
};

inline constexpr TargetInfo kTargets[kTargetCount] = {
    {Target::sm_90a, "sm_90a", "H100, H200 (Hopper)", "9.0", true},
    {Target::sm_100a, "sm_100a", "B200, GB200 (Blackwell)", "10.0", false},
    {Target::sm_103a, "sm_103a", "B300, GB300 (Blackwell Ultra)", "10.3", false},
    {Target::sm_120a, "sm_120a", "RTX 50, RTX PRO Blackwell", "12.0", false},
};

// One cell: kNo, kYes, a number (cluster sizes, kilobytes), or kUnconfirmed where no NVIDIA
// document states it. `limit` says what a yes leaves out on that target (nullptr: nothing).
inline constexpr std::int64_t kNo = 0, kYes = 1, kUnconfirmed = -1;

struct CapabilityCell {
  std::int64_t value = kNo;
  const char* limit = nullptr;
  bool verified_on_hardware = false;  // tmakit ran it on a GPU of this target (see `evidence`)
};

struct Capability {
  const char* id;        // stable: capability ids in the CLI, JSON and Python
  const char* what;      // in words
  bool numeric;          // cells hold numbers, not yes / no
  CapabilityCell cell[kTargetCount];
  const char* source;    // where the documents say it
  const char* evidence;  // what ran on sm_90a, where a cell says verified (nullptr: none)
};

// clang-format off
inline constexpr Capability kCapabilities[] = {
    {"cluster", "thread block clusters", false,
     {{kYes, nullptr, true}, {kYes}, {kYes}, {kYes}},
     "CUDA Programming Guide, compute capabilities table: Thread Block Cluster, yes for 9.0, 10.x, 12.x; "
     "Blackwell Tuning Guide 1.4.1.2: thread block clusters are supported by Blackwell GPUs",
     "tmakit_gpu_test_cluster_dsmem, tmakit_gpu_test_cluster_multicast (clusters of 2 to 16 CTAs)"},
    {"cluster_portable_max", "largest portable cluster, in CTAs", true,
     {{8, nullptr, true}, {8}, {8}, {8}},
     "cuda.h, cudaFuncAttributeNonPortableClusterSizeAllowed / CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED: "
     "the portable cluster size for sm_90 is 8 blocks, guaranteed on every later compute capability",
     "tmakit_gpu_test_cluster_multicast, ClusterMulticastSize/8 (8-CTA clusters)"},
    {"cluster_nonportable_max", "largest cluster with the non-portable opt-in, in CTAs", true,
     {{16, nullptr, true}, {16}, {kUnconfirmed, "the tuning guide names B200 only"},
      {kUnconfirmed, "no NVIDIA document states it; a third-party RTX 5090 run reports 16 failing to launch"}},
     "Hopper Tuning Guide 1.4.1.3 (H100: 16 by opting in); Blackwell Tuning Guide 1.4.1.2 (B200: 16 by opting in)",
     "tmakit_gpu_test_cluster_multicast, ClusterMulticastSize/16 (16-CTA clusters, launched with the opt-in)"},
    {"tma_multicast", "TMA multicast to the CTAs of a cluster, .multicast::cluster", false,
     {{kYes, nullptr, true}, {kYes}, {kYes},
      {kYes, "legal but not on the optimized list: \"may have substantially reduced performance\"; CCCL's "
             "cuda::ptx does not offer it for sm_120"}},
     "PTX ISA, cp.async.bulk.tensor, target notes: requires sm_90 or higher; .multicast::cluster advised with "
     "sm_90a, sm_100a/f, sm_103a/f, sm_110a/f, optimized for those and may have substantially reduced "
     "performance on other targets",
     "tmakit_gpu_test_cluster_multicast"},
    {"dsmem", "distributed shared memory: mapa, st.async, cp.async.bulk to .shared::cluster", false,
     {{kYes, nullptr, true}, {kYes}, {kYes}, {kYes}},
     "PTX ISA, mapa and cp.async.bulk: requires sm_90 or higher; CUDA Programming Guide, compute capabilities "
     "table: Distributed Shared Memory, yes for 9.0, 10.x, 12.x",
     "tmakit_gpu_test_cluster_dsmem"},
    {"cta_group_2", "CTA pairs, .cta_group::2, for TMA and tcgen05", false,
     {{kNo}, {kYes}, {kYes, "through the sm_100f family (PTX ISA 8.8)"}, {kNo}},
     "PTX ISA, cp.async.bulk.tensor target notes: .cta_group on sm_100a, sm_101a (sm_110a), sm_100f / sm_110f "
     "families; CUDA Programming Guide: compute_100f covers 10.0 and 10.3",
     nullptr},
    {"tcgen05", "tensor memory and tcgen05.mma", false,
     {{kNo}, {kYes}, {kYes, "through the sm_100f family; .kind::i8 is sm_100a / sm_110a only"}, {kNo}},
     "PTX ISA release notes, arch- and family-specific features: tcgen05.* 8.6 sm_100a, 8.8 sm_100f, 9.0 sm_110f",
     nullptr},
    {"gather4", "TMA row gather, .tile::gather4 loads", false,
     {{kNo}, {kYes}, {kYes}, {kYes, "into .shared::cta only: no .shared::cluster destination, no multicast"}},
     "PTX ISA, cp.async.bulk.tensor: .tile::gather4 needs sm_100a (sm_100f from 8.8) with a .shared::cluster "
     "destination, sm_100 or higher with .shared::cta",
     nullptr},
    {"scatter4", "TMA row scatter, .tile::scatter4 stores", false,
     {{kNo}, {kYes}, {kYes}, {kNo, "ptxas: '.tile::scatter4' not supported on .target 'sm_120a'"}},
     "PTX ISA, cp.async.bulk.tensor: .tile::scatter4 on sm_100a, sm_101a (sm_110a), the sm_100f / sm_110f "
     "families; not sm_120",
     nullptr},
    {"im2col_wide", "im2col-wide maps and copies, .im2col::w and cuTensorMapEncodeIm2colWide", false,
     {{kNo, "the sm_90 driver encodes im2col-wide maps (tmakit's driver sweep), but no sm_90 copy reads them"},
      {kYes}, {kYes}, {kYes, ".im2col::w into .shared::cta only; no .im2col::w::128"}},
     "cuda.h, cuTensorMapEncodeIm2colWide: only supported on compute capability 10.0 or higher (CUDA 12.8); "
     "PTX ISA, cp.async.bulk.tensor: .im2col::w as .tile::gather4, .im2col::w::128 as .tile::scatter4",
     nullptr},
    {"packed_types", "sub-byte TMA types 16U4_ALIGN8B, 16U4_ALIGN16B, 16U6_ALIGN16B", false,
     {{kNo, nullptr, true}, {kYes}, {kYes},
      {kYes, "not with the .shared::cluster.global copy (the sm_90 form): use .shared::cta.global"}},
     "PTX ISA release notes: .elemtype 13, 14, 15 in 8.7 for sm_100a, sm_120a, in 8.8 for sm_100f, sm_120f; "
     "PTX ISA, restrictions on tensor copies for sm_120a",
     "the driver sweep on sm_90 refused every packed-type map (docs/rules.md, dtype.packed_requires_sm100)"},
    {"swizzle_atomicity", "swizzle atoms 128B_ATOM_32B, 128B_ATOM_32B_FLIP_8B, 128B_ATOM_64B", false,
     {{kNo, nullptr, true}, {kYes}, {kYes},
      {kYes, "not with the .shared::cluster.global copy (the sm_90 form): use .shared::cta.global"}},
     "PTX ISA release notes: tensormap.replace .swizzle_atomicity in 8.6 for sm_100a, sm_120a; PTX ISA, "
     "restrictions on tensor copies for sm_120a",
     "the driver sweep on sm_90 refused every swizzle atom (docs/rules.md, swizzle.atom_requires_sm100)"},
    {"smem_per_block_kib", "shared memory per thread block with the opt-in, in KiB", true,
     {{227, nullptr, true}, {227}, {227}, {99, "101,376 bytes"}},
     "CUDA Programming Guide, compute capabilities table: maximum shared memory per thread block 227 KB for 9.0, "
     "10.x, 11.0, 99 KB for 12.x; Blackwell Tuning Guide 1.4.1.1",
     "the GEMM and attention kernels (up to 227 KiB of dynamic shared memory per CTA)"},
};
// clang-format on

inline constexpr int kCapabilityCount = static_cast<int>(sizeof(kCapabilities) / sizeof(kCapabilities[0]));

// The target nvcc's name gives (sm_90a, or sm_90 / 90 / 9.0 for the same), or false.
constexpr bool parse_target(std::string_view s, Target& out) {
  if (s.size() > 3 && s.substr(0, 3) == "sm_") s = s.substr(3);
  if (!s.empty() && s.back() == 'a') s = s.substr(0, s.size() - 1);
  constexpr struct { std::string_view a, b; Target t; } kNames[] = {
      {"90", "9.0", Target::sm_90a}, {"100", "10.0", Target::sm_100a},
      {"103", "10.3", Target::sm_103a}, {"120", "12.0", Target::sm_120a}};
  for (const auto& n : kNames)
    if (s == n.a || s == n.b) {
      out = n.t;
      return true;
    }
  return false;
}

constexpr const TargetInfo& target_info(Target t) { return kTargets[static_cast<int>(t)]; }

// The capability with this id, or nullptr.
constexpr const Capability* find_capability(std::string_view id) {
  for (const Capability& c : kCapabilities)
    if (id == c.id) return &c;
  return nullptr;
}

constexpr const CapabilityCell& cell(const Capability& c, Target t) { return c.cell[static_cast<int>(t)]; }

}  // namespace tmakit
