// The shared-memory wavefront rule of a warp's access (Hopper, sm_90): 32 banks of 4 bytes; one
// wavefront serves at most one distinct 4-byte word per bank (lanes naming the same word share it).
// An access of B bytes per lane is split into lane groups that are served separately: 8 lanes (a
// quarter warp) for 16 bytes, 16 lanes for 8 bytes, the whole warp otherwise. A group needs the
// largest number of distinct words any one bank must serve; its ideal is its bytes / 128 rounded up.
// Checked with ncu on an H100 through the store planner (16/16 cases, docs/smem_store.md). Used by
// the store planner (plan/smem_store_wavefronts.hpp) and the F2-layout bank analysis
// (layout/linear_layout.hpp, shared_wavefronts).
#pragma once

#include <cstdint>

#include "tmakit/core/config.hpp"

namespace tmakit {

inline constexpr int kSmemBanks = 32;

// Lanes per group of a st.shared of `bytes` per lane.
TMAKIT_HD constexpr int lanes_per_wavefront_group(int bytes) { return bytes >= 16 ? 8 : bytes == 8 ? 16 : 32; }

// Wavefronts one group of `n` accesses needs: addr[i] is the byte address of access i (an unsigned
// integer type: std::uint32_t in the planner), `bytes` its width (1..16, a multiple of 4 or a part
// of one word). Words a group writes are counted per bank. When conflict_lanes is given, it receives
// two accesses (indices into addr) that hit the same bank in different words, or {-1, -1}.
template <class Addr>
TMAKIT_HD constexpr int group_wavefronts(const Addr* addr, int n, int bytes, int* conflict_a = nullptr,
                                         int* conflict_b = nullptr) {
  // Distinct words per bank. A group writes at most 32 words here (32 lanes x 4 B, 16 x 8 B, 8 x 16 B,
  // 8 rows x 16 B), so at most 32 per bank. Fast path: a bank's first word is kept in first[] (a bit
  // in `used` says it is set); only a bank that gets a second distinct word keeps a list (words[][],
  // written before it is read).
  Addr first[kSmemBanks] = {};
  int first_owner[kSmemBanks] = {};
  std::uint32_t used = 0;
  Addr words[kSmemBanks][32];
  int count[kSmemBanks] = {};
  int worst = 0;
  if (conflict_a) *conflict_a = -1;
  if (conflict_b) *conflict_b = -1;
  for (int i = 0; i < n; ++i) {
    const Addr lo = addr[i] / 4, hi = (addr[i] + static_cast<Addr>(bytes) - 1) / 4;
    for (Addr word = lo; word <= hi; ++word) {
      const int bank = static_cast<int>(word % kSmemBanks);
      const std::uint32_t bit = std::uint32_t{1} << bank;
      if (!(used & bit)) {
        used |= bit;
        first[bank] = word;
        first_owner[bank] = i;
        count[bank] = 1;
        if (worst < 1) worst = 1;
        continue;
      }
      if (first[bank] == word) continue;
      // a second (or later) distinct word in this bank: the list holds words 1.. of the bank
      bool seen = false;
      for (int j = 1; j < count[bank] && !seen; ++j) seen = words[bank][j] == word;
      if (seen || count[bank] == 32) continue;
      words[bank][count[bank]] = word;
      ++count[bank];
      if (count[bank] == 2 && conflict_a && *conflict_a < 0) {
        *conflict_a = first_owner[bank];
        *conflict_b = i;
      }
      if (count[bank] > worst) worst = count[bank];
    }
  }
  return worst;
}

TMAKIT_HD constexpr int ideal_group_wavefronts(int n, int bytes) { return (n * bytes + 127) / 128; }

}  // namespace tmakit
