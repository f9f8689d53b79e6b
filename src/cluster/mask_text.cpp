// CTA masks in words and back (see tmakit/cluster/mask_text.hpp).
#include "tmakit/cluster/mask_text.hpp"

#include <cstdio>

#include "tmakit/tensor_map/names.hpp"

namespace tmakit {

std::string cta_list_text(std::uint16_t mask) {
  if (mask == 0) return "no CTA";
  std::string list;
  for (std::uint32_t r = 0; r < 16; ++r)
    if (mask >> r & 1u) list += (list.empty() ? "" : ", ") + std::to_string(r);
  const bool one = (mask & (mask - 1)) == 0;
  return (one ? "CTA " : "CTAs ") + list;
}

std::string cta_mask_text(std::uint16_t mask, std::uint32_t ctas) {
  std::uint32_t n = ctas < 1 ? 1 : (ctas > 16 ? 16 : ctas);
  while (n < 16 && (mask >> n) != 0) ++n;  // never drop a set bit
  std::string bits;
  for (std::uint32_t i = n; i-- > 0;) bits += (mask >> i & 1u) ? '1' : '0';
  char hex[8];
  std::snprintf(hex, sizeof hex, "%x", static_cast<unsigned>(mask));
  return "0b" + bits + " (0x" + hex + ": " + cta_list_text(mask) + ")";
}

namespace {

bool bad_mask(std::string_view text, std::string& why, const char* what) {
  why = "ctaMask " + quote_user_text(text) + ": " + what +
        " (give 0b0101, 0x5, 5 or the CTAs as a list, [0,2]; bit r is the CTA of rank r, 0..15)";
  return false;
}

// "[0, 2]" -> 0b101; each rank 0..15, at most once.
bool parse_cta_list(std::string_view text, std::string_view body, std::uint16_t& mask, std::string& why) {
  std::uint32_t m = 0;
  body = trim_space(body);
  while (!body.empty()) {
    const std::size_t comma = body.find(',');
    const std::string_view item = trim_space(body.substr(0, comma));
    body = comma == std::string_view::npos ? std::string_view{} : trim_space(body.substr(comma + 1));
    if (comma != std::string_view::npos && body.empty()) return bad_mask(text, why, "a list item is empty");
    std::uint64_t r = 0;
    if (item.empty() || item.find_first_not_of("0123456789") != std::string_view::npos || !parse_u64(item, r))
      return bad_mask(text, why, "a list item is not a CTA rank");
    if (r > 15) return bad_mask(text, why, "a CTA rank past 15");
    if (m >> r & 1u) return bad_mask(text, why, "a CTA listed twice");
    m |= 1u << r;
  }
  mask = static_cast<std::uint16_t>(m);
  return true;
}

}  // namespace

bool parse_cta_mask(std::string_view text, std::uint16_t& mask, std::string& why) {
  const std::string_view t = trim_space(text);
  if (t.empty()) return bad_mask(text, why, "empty");
  if (t.front() == '[') {
    if (t.back() != ']') return bad_mask(text, why, "a list without its closing ']'");
    return parse_cta_list(text, t.substr(1, t.size() - 2), mask, why);
  }
  std::uint64_t v = 0;
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'b' || t[1] == 'B')) {
    const std::string_view digits = t.substr(2);
    if (digits.find_first_not_of("01") != std::string_view::npos) return bad_mask(text, why, "not a binary number");
    const std::size_t first = digits.find('1');
    if (first != std::string_view::npos && digits.size() - first > 16) return bad_mask(text, why, "more than 16 bits");
    for (const char c : digits) v = v << 1 | static_cast<std::uint64_t>(c == '1');
  } else if (!parse_u64(t, v)) {
    return bad_mask(text, why, "not a number");
  }
  if (v > 0xFFFFu) return bad_mask(text, why, "more than 16 bits");
  mask = static_cast<std::uint16_t>(v);
  return true;
}

}  // namespace tmakit
