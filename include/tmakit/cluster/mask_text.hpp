// A 16-bit CTA mask (bit r = the CTA of %cluster_ctarank r, as the ctaMask of a multicast copy) in
// words and back: written in binary and hex with the CTA list ("0b0101 (0x5: CTAs 0, 2)"), never
// as a bare decimal, and read in any of the forms a kernel author has at hand.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tmakit {

// "0b10 (0x2: CTA 1)": at least `ctas` binary digits, more when a bit at or past `ctas` is set (a
// mask that names CTAs outside the cluster keeps every bit it names), then hex and the CTA list.
std::string cta_mask_text(std::uint16_t mask, std::uint32_t ctas);

// "CTA 2" or "CTAs 2, 3": the CTAs of `mask` alone ("no CTA" for 0).
std::string cta_list_text(std::uint16_t mask);

// A ctaMask as a user writes it: binary ("0b0101"), hex ("0x5"), decimal ("5"), or the CTAs as a
// list ("[0,2]", "[]" for none); spaces around the text and inside the list are ignored. False with
// `why` naming the text when it does not parse, or when it names a bit past 15 (a ctaMask is 16
// bits, one per CTA of the largest cluster).
bool parse_cta_mask(std::string_view text, std::uint16_t& mask, std::string& why);

}  // namespace tmakit
