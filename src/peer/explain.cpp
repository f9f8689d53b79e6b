#include "tmakit/peer/explain.hpp"

#include <string>

#include "tmakit/peer/gather_schedule.hpp"

namespace tmakit {

namespace {
std::string num(std::int64_t v) { return std::to_string(v); }

std::string what(const PeerIssue& i) {
  switch (i.rule) {
    case PeerRule::world_size: return "a world of " + num(i.a) + " ranks (1 to " + num(i.b) + " allowed)";
    case PeerRule::rank_range: return "rank " + num(i.a) + " in a world of " + num(i.b);
    case PeerRule::lsa_team:
      return "only " + num(i.a) + " of the " + num(i.b) + " ranks are load/store accessible from this one";
    case PeerRule::null_base: return "the window has no address in this process";
    case PeerRule::window_align:
      return "the window base is " + num(i.a) + " B past a " + num(i.b) + " B boundary";
    case PeerRule::tensor_align:
      return "the tensor's address is " + num(i.a) + " B past a 16 B boundary";
    case PeerRule::window_bounds:
      return "the tensor ends at byte " + num(i.a) + " of a " + num(i.b) + "-byte window";
    case PeerRule::plan_refused: return "the tile plan was refused (" + num(i.a) + " plan issue(s))";
    case PeerRule::rows_divide: return num(i.a) + " rows per rank, tiles of " + num(i.b) + " rows";
    case PeerRule::cols_divide: return num(i.a) + " columns, tiles of " + num(i.b) + " columns";
    case PeerRule::reduce_dtype: return "element type " + num(i.a) + " cannot be summed by the collective";
    case PeerRule::blocks_range: return num(i.a) + " blocks for " + num(i.b) + " tiles";
    case PeerRule::stages_smem:
      return "the stages need " + num(i.a) + " B of shared memory, more than " + num(i.b) + " B";
    case PeerRule::gather_rows:
      return num(i.a) + " gathered rows, not a multiple of " + num(i.b) + " (world x block rows)";
    case PeerRule::gather_pullers: return num(i.a) + " pullers, at most " + num(i.b) + " allowed here";
    case PeerRule::gather_schedule:
      return std::string("store order ") +
             (i.a < kGatherSchedules ? gather_schedule_name(static_cast<GatherSchedule>(i.a)) : num(i.a).c_str()) +
             " applies to a pushed all-gather of 2 or more ranks with at least " + num(i.b) + " block(s)";
  }
  return rule_text(i.rule);
}
}  // namespace

Finding to_finding(const PeerIssue& i) {
  Finding f = make_finding(i.rule, i.peer >= 0 ? "peer " + num(i.peer) : std::string(), {});
  f.what = what_at(f.where, what(i));
  return f;
}

std::string explain(const PeerIssue& i) { return to_finding(i).message(); }

std::vector<std::string> explain_all(const PeerIssues& issues) {
  std::vector<std::string> out;
  for (const PeerIssue& i : issues) out.push_back(explain(i));
  if (issues.truncated) out.push_back("(more findings than the list holds)");
  return out;
}

}  // namespace tmakit
