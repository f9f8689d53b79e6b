// The shared-memory wavefront model of a warp's store (Hopper, sm_90), as the store planner uses it.
// The rule and its helpers live in core/smem_banks.hpp (shared with the F2-layout bank analysis,
// layout/linear_layout.hpp): 32 banks of 4 bytes; one wavefront serves at most one distinct 4-byte
// word per bank. A st.shared of B bytes per lane is split into lane groups that are processed
// separately: 8 lanes (a quarter warp) for 16-byte stores, 16 lanes for 8-byte stores, the whole warp
// otherwise. stmatrix m8n8 writes each 8x8 matrix (eight 16-byte rows, one per address lane) as its
// own group. A group needs max over banks of the distinct words it writes there; the ideal is its
// bytes / 128 rounded up. (Checked with ncu on an H100: docs/smem_store.md.)
#pragma once

// kSmemBanks, lanes_per_wavefront_group, group_wavefronts, ideal_group_wavefronts: already names of
// namespace tmakit (no using-declarations needed).
#include "tmakit/core/smem_banks.hpp"
