// Why a command line is bad usage (the CLI's exit status 2): the rules, one table row each, with a
// stable id. Every usage error the CLI reports carries one of these ids, in its --json object
// ({"ok":false,"exit":2,"error":{"rule":...}}, docs/cli.md) as in tests; the message names the option.
//
// Ids are stable: tests, the CLI's JSON and users' scripts match on them. Append only.
#pragma once

#include <cstdint>

#include "tmakit/core/config.hpp"
#include "tmakit/core/diagnostics.hpp"

namespace tmakit {

enum class UsageRule : std::uint8_t {
  syntax = 0,       // usage.syntax: unknown option or command, a missing or repeated option or argument
  value,            // usage.value: a value that does not parse, is out of range or names nothing known
  conflict,         // usage.conflict: options that contradict each other or one that would be ignored
  input,            // usage.input: a file that cannot be read or written
  layout_usage,     // layout.usage: `tmakit layout`'s command line (OP, argument count, options)
  layout_notation,  // layout.notation: a layout, tiler or tuple that does not parse
};

// `part` is what the rule concerns; `fix` the generic step (the message names the option).
TMAKIT_HD constexpr RuleTable<UsageRule, 6> rule_table(UsageRule) {
  return {{
      {UsageRule::syntax, "usage.syntax", "command line",
       "an unknown option or command, or a missing or repeated option or argument", Severity::error,
       "run the command with --help for its options"},
      {UsageRule::value, "usage.value", "option value",
       "a value that does not parse, is out of range or names nothing known", Severity::error,
       "give a value of the form the option's --help states"},
      {UsageRule::conflict, "usage.conflict", "command line",
       "options that contradict each other, or an option that would have no effect", Severity::error,
       "drop one of the options, or add the one it depends on"},
      {UsageRule::input, "usage.input", "input file", "a file that cannot be read or written", Severity::error,
       "give a readable file (or - for stdin), or a writable path"},
      {UsageRule::layout_usage, "layout.usage", "command line",
       "an unknown operation or option, or the wrong number of arguments of `tmakit layout`", Severity::error,
       "run tmakit layout --help for the operations and their arguments"},
      {UsageRule::layout_notation, "layout.notation", "layout argument",
       "a layout, tiler or tuple that does not parse in CuTe notation", Severity::error,
       "write it as in docs/layout.md, e.g. ((2,2),3):((1,4),2)"},
  }};
}
static_assert(rule_table_well_formed(rule_table(UsageRule{})), "one row per rule in enum order, with unique ids");
static_assert(rule_count<UsageRule> == static_cast<int>(UsageRule::layout_notation) + 1, "a row for every enum value");

}  // namespace tmakit
