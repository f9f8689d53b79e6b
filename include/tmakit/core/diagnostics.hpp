// Diagnostics: what was violated, where, and with which value. The device-usable part is plain
// data (a rule, a field, an index, a value); host code turns it into words and a concrete fix
// (see tmakit/tensor_map/explain.hpp).
#pragma once

#include <cstdint>

#include "tmakit/core/config.hpp"

namespace tmakit {

// The input field a diagnostic points at; names follow the cuda.h parameter names.
enum class Field : std::uint32_t {
  none = 0,
  arch,
  kind,
  tensorDataType,
  tensorRank,
  globalAddress,
  globalDim,
  globalStrides,
  boxDim,
  elementStrides,
  interleave,
  swizzle,
  l2Promotion,
  oobFill,
  pixelBoxLowerCorner,
  pixelBoxUpperCorner,
  channelsPerPixel,
  pixelsPerColumn,
  mode,
  descriptor,  // decode/diff: the 128 bytes themselves
};

TMAKIT_HD constexpr const char* field_name(Field f) {
  switch (f) {
    case Field::none: return "";
    case Field::arch: return "arch";
    case Field::kind: return "kind";
    case Field::tensorDataType: return "tensorDataType";
    case Field::tensorRank: return "tensorRank";
    case Field::globalAddress: return "globalAddress";
    case Field::globalDim: return "globalDim";
    case Field::globalStrides: return "globalStrides";
    case Field::boxDim: return "boxDim";
    case Field::elementStrides: return "elementStrides";
    case Field::interleave: return "interleave";
    case Field::swizzle: return "swizzle";
    case Field::l2Promotion: return "l2Promotion";
    case Field::oobFill: return "oobFill";
    case Field::pixelBoxLowerCorner: return "pixelBoxLowerCorner";
    case Field::pixelBoxUpperCorner: return "pixelBoxUpperCorner";
    case Field::channelsPerPixel: return "channelsPerPixel";
    case Field::pixelsPerColumn: return "pixelsPerColumn";
    case Field::mode: return "mode";
    case Field::descriptor: return "descriptor";
  }
  return "?";
}

// One violated rule. `Rule` is the enum of stable rule ids of the module that produced it.
template <class Rule>
struct Violation {
  Rule rule;
  Field field;
  std::int32_t index;  // array index, or -1 for a scalar field
  std::int64_t value;  // the offending value as given (unsigned values above 2^63 wrap)
};

// A fixed-capacity list (no allocation: usable in constexpr and device code). When more than
// Capacity violations occur, `truncated` is set and the first Capacity are kept.
// Item is the stored violation: Violation<Rule> by default; a module whose violations carry other
// numbers gives its own aggregate with a `rule` member (e.g. ClusterViolation in
// plan/cluster_rules.hpp) and appends with add(Item).
template <class Rule, int Capacity = 24, class Item = Violation<Rule>>
struct ViolationList {
  static constexpr int kCapacity = Capacity;

  // Slots past `count` are left uninitialized: filling 24 unused slots per call would cost more than
  // validating. (The user-provided constructor also keeps g++ 12 accepting `return {};`.)
  TMAKIT_HD constexpr ViolationList() {}

  Item items[Capacity];
  int count = 0;
  bool truncated = false;

  TMAKIT_HD constexpr void add(const Item& v) {
    if (count < Capacity) {
      items[count++] = v;
    } else {
      truncated = true;
    }
  }
  // For the default Item (Violation<Rule>) only.
  TMAKIT_HD constexpr void add(Rule r, Field f, std::int32_t index, std::int64_t value) {
    add(Item{r, f, index, value});
  }
  TMAKIT_HD constexpr bool empty() const { return count == 0 && !truncated; }
  TMAKIT_HD constexpr bool contains(Rule r) const {
    for (int i = 0; i < count; ++i)
      if (items[i].rule == r) return true;
    return false;
  }
  TMAKIT_HD constexpr const Item* begin() const { return items; }
  TMAKIT_HD constexpr const Item* end() const { return items + count; }
};

}  // namespace tmakit
