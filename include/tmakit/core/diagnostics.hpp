// Diagnostics: what was violated, where, and with which value. The device-usable part is plain
// data (a rule, a field, an index, a value); host code turns it into words and a concrete fix
// (see tmakit/tensor_map/explain.hpp).
//
// Every rule family (tensor-map parameters, the TMA planner, cluster plans, layout operations, the
// shared-memory store planner, ...) is an enum of stable rules plus ONE table of RuleInfo rows, one
// row per enum value in enum order, returned by `rule_table(Enum)` (found by argument-dependent
// lookup). Everything that does not depend on the values found comes from that row through the
// generic rule_info() / rule_id() / rule_text() / is_note() / rule_fix() below; a family's
// explain code adds the words that do. Adding a rule: one enum value, one table row, its check and
// its fix.
#pragma once

#include <concepts>
#include <cstdint>
#include <type_traits>

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

// What a rule's finding means for the input: an error refuses it; a note records a decision (or,
// for the `ok` rows of single-refusal results, no refusal at all) and leaves it valid.
enum class Severity : std::uint8_t { error = 0, note = 1 };

// One row of a rule family's table.
template <class Rule>
struct RuleInfo {
  Rule rule;             // the enum value this row describes (row i describes value i)
  const char* id;        // stable id: tests, the CLI's JSON and users' scripts match on it
  const char* part;      // the input the rule concerns: a cuda.h parameter name, "shared layout", ...
  const char* text;      // the rule in one line (each family's header says how its texts read)
  Severity severity = Severity::error;
  const char* fix = "";  // a fix that needs no values; "" where the family computes it from them
};

// A family's whole table: what `rule_table(Enum)` returns.
template <class Rule, int N>
struct RuleTable {
  static constexpr int kSize = N;
  RuleInfo<Rule> rows[N];
};

namespace detail {
TMAKIT_HD constexpr bool same_text(const char* a, const char* b) {
  while (*a != 0 && *a == *b) ++a, ++b;
  return *a == *b;
}
}  // namespace detail

// A table is well formed when row i describes enum value i, every id is non-empty and unique within
// the table, and no column is null. Each family static_asserts it next to its table, together with
// rule_count == its last enum value + 1.
template <class Rule, int N>
TMAKIT_HD constexpr bool rule_table_well_formed(const RuleTable<Rule, N>& t) {
  for (int i = 0; i < N; ++i) {
    const RuleInfo<Rule>& r = t.rows[i];
    if (static_cast<int>(r.rule) != i || r.id == nullptr || *r.id == 0 || r.part == nullptr || r.text == nullptr ||
        r.fix == nullptr)
      return false;
    for (int k = 0; k < i; ++k)
      if (detail::same_text(t.rows[k].id, r.id)) return false;
  }
  return true;
}

// An enum with a rule table.
template <class Rule>
concept RuleEnum = std::is_enum_v<Rule> && requires(Rule r) {
  { rule_table(r) } -> std::same_as<RuleTable<Rule, decltype(rule_table(r))::kSize>>;
};

// The number of rules of a family (its table's rows).
template <RuleEnum Rule>
inline constexpr int rule_count = decltype(rule_table(Rule{}))::kSize;

namespace detail {
// The host's copy of a family's table: one object in read-only data. (A static member is a host
// variable to nvcc, so device code evaluates the table as a local constant instead.)
template <RuleEnum Rule>
struct RuleTableStorage {
  static constexpr auto kTable = rule_table(Rule{});
};
}  // namespace detail

// The row of rule r; for a value outside the enum (a cast from a number), a row with id "unknown".
template <RuleEnum Rule>
TMAKIT_HD constexpr RuleInfo<Rule> rule_info(Rule r) {
#if defined(__CUDA_ARCH__)
  constexpr auto kTable = rule_table(Rule{});
#else
  constexpr const auto& kTable = detail::RuleTableStorage<Rule>::kTable;
#endif
  const auto i = static_cast<std::uint64_t>(r);
  if (i < static_cast<std::uint64_t>(kTable.kSize)) return kTable.rows[i];
  return RuleInfo<Rule>{r, "unknown", "", "unknown rule"};
}

// Stable id printed to users and asserted by tests, e.g. "rank.range".
template <RuleEnum Rule>
TMAKIT_HD constexpr const char* rule_id(Rule r) {
  return rule_info(r).id;
}
template <RuleEnum Rule>
TMAKIT_HD constexpr const char* rule_text(Rule r) {
  return rule_info(r).text;
}
template <RuleEnum Rule>
TMAKIT_HD constexpr const char* rule_fix(Rule r) {
  return rule_info(r).fix;
}
template <RuleEnum Rule>
TMAKIT_HD constexpr bool is_note(Rule r) {
  return rule_info(r).severity == Severity::note;
}

// One violated rule. `Rule` is the enum of stable rule ids of the module that produced it.
template <class Rule>
struct Violation {
  Rule rule;
  Field field;
  std::int32_t index;  // array index, or -1 for a scalar field
  std::int64_t value;  // the offending value as given (unsigned values above 2^63 wrap)
};

namespace detail {
// An item added only whole, by name (see ViolationList).
template <class Item>
concept AddedByName = requires { requires Item::kAddByName; };
}  // namespace detail

// Every finding of one check, for every rule family: a fixed-capacity list (no allocation: usable
// in constexpr and device code). When more than Capacity findings occur, `truncated` is set and the
// first Capacity are kept.
//
// Item is the stored finding, an aggregate whose first member is `rule`: Violation<Rule> by default
// (tensor-map parameters); a family whose findings carry other numbers gives its own (PlanIssue,
// ClusterViolation). add(rule, numbers...) builds an Item from the rule and its numbers in member
// order (members left out keep their defaults). An Item of many members, of which each rule fills a
// few, declares `static constexpr bool kAddByName = true`: it is added only whole, its members named
// (add(PlanIssue{.rule = ..., .value = ...})), never by position.
//
// Slots past `count` are default-initialized: an Item with default member initializers fills them
// (lists held by constexpr variables, e.g. plans in static_asserts, must be fully initialized);
// the trivial Violation<Rule> leaves them uninitialized, because filling 24 unused slots per call
// would cost more than validating.
template <class Rule, int Capacity = 24, class Item = Violation<Rule>>
struct ViolationList {
  static constexpr int kCapacity = Capacity;

  // User-provided: keeps g++ 12 accepting `return {};` with uninitialized slots.
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
  template <class... Numbers>
    requires(!detail::AddedByName<Item>)
  TMAKIT_HD constexpr void add(Rule r, Numbers... n) {
    add(Item{r, AsMember<Numbers>{n}...});
  }
  // A number converted to whatever member type it initializes, as Item(r, n...) would (that
  // parenthesized aggregate initialization is C++20 that clang 14, the fuzz build's compiler, lacks;
  // braces alone would refuse the narrowing ones, e.g. an int64 into an int32 member).
  template <class N>
  struct AsMember {
    N v;
    template <class T>
    TMAKIT_HD constexpr operator T() const {  // NOLINT: implicit on purpose
      return static_cast<T>(v);
    }
  };
  TMAKIT_HD constexpr bool empty() const { return count == 0 && !truncated; }
  // No errors (notes allowed) and nothing left out.
  TMAKIT_HD constexpr bool ok() const { return errors() == 0 && !truncated; }
  // The findings of severity error (notes not counted).
  TMAKIT_HD constexpr int errors() const {
    int n = 0;
    for (int i = 0; i < count; ++i) n += is_note(items[i].rule) ? 0 : 1;
    return n;
  }
  TMAKIT_HD constexpr bool contains(Rule r) const {
    for (int i = 0; i < count; ++i)
      if (items[i].rule == r) return true;
    return false;
  }
  TMAKIT_HD constexpr const Item* begin() const { return items; }
  TMAKIT_HD constexpr const Item* end() const { return items + count; }
};

}  // namespace tmakit
