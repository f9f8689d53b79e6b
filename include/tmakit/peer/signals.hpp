// Counted signals between ranks: the layout of the 64-bit counters each rank keeps in its signal
// window (an NCCL symmetric window like the data's), and the view a kernel gets of every rank's.
//
// Two kinds, one counter per (kind, sending rank, block):
//   arrival  the number of the last call (1, 2, ... on this communicator) block b of rank `from`
//            entered (stored, not added: block b takes part only in calls of more than b blocks;
//            call e waits until it reads e: that peer has finished its part of every earlier call
//            and has entered call e, so this rank's buffers may be written again);
//   bytes    the bytes block b of rank `from` has finished writing into this rank's memory during
//            the current call (the receiver waits for exactly the count its plan gives, then resets
//            it to 0 before it signals its next arrival).
// The waits are bounded by the watchdog (device/peer_signal.cuh), which names the peer rank, the
// block and, for bytes, how many are missing.
#pragma once

#include <cstdint>

#include "tmakit/core/config.hpp"
#include "tmakit/peer/rules.hpp"

namespace tmakit {

enum class PeerSignalKind : std::uint32_t { arrival = 0, bytes = 1 };

// Blocks per collective launch that have their own counters.
inline constexpr std::uint32_t kMaxSignalBlocks = 256;

// Bytes of one rank's counters (a multiple of kWindowAlignment).
inline constexpr std::uint64_t kSignalWindowBytes = 2ull * kMaxPeers * kMaxSignalBlocks * sizeof(std::uint64_t);
static_assert(kSignalWindowBytes % kWindowAlignment == 0);

// Index of the counter of (kind, sending rank, block) in a rank's array.
TMAKIT_HD constexpr std::uint32_t signal_slot(PeerSignalKind k, std::int32_t from, std::uint32_t block) {
  return (static_cast<std::uint32_t>(k) * kMaxPeers + static_cast<std::uint32_t>(from)) * kMaxSignalBlocks + block;
}

// What a kernel sees of the signal window: its own counters and every rank's (load/store
// accessible addresses in this process; peer[rank] == local).
struct PeerSignals {
  std::uint64_t* local = nullptr;
  std::uint64_t* peer[kMaxPeers] = {};
  std::int32_t rank = 0;
  std::int32_t world = 0;
};

}  // namespace tmakit
