// Target architectures whose tensor-map rules tmakit knows.
#pragma once

#include <cstdint>

#include "tmakit/core/config.hpp"

namespace tmakit {

// sm_90 (Hopper) is verified against the driver on hardware; sm_100 and sm_120 (Blackwell) are
// implemented from the PTX ISA and cuda.h and are unverified on hardware (no such GPU here).
enum class Arch : std::uint32_t { sm_90 = 90, sm_100 = 100, sm_120 = 120 };

// True for the three values above (an Arch can hold any integer: inputs are checked by validate).
TMAKIT_HD constexpr bool is_valid(Arch a) { return a == Arch::sm_90 || a == Arch::sm_100 || a == Arch::sm_120; }
TMAKIT_HD constexpr bool is_blackwell(Arch a) { return a == Arch::sm_100 || a == Arch::sm_120; }
TMAKIT_HD constexpr bool verified_on_hardware(Arch a) { return a == Arch::sm_90; }

}  // namespace tmakit
