#include "plan_direction.hpp"

#include "tmakit/tensor_map/names.hpp"

namespace tmakit::cli {

void add_direction_options(CLI::App& app, DirectionOptions& d) {
  app.add_flag("--store", d.store, "plan TMA stores (shared -> global) instead of loads");
  d.reduce_opt = app.add_option("--reduce", d.reduce,
                                "plan TMA reductions into global memory with OP: add|min|max|inc|dec|and|or|xor (any case)");
}

int parse_direction(const DirectionOptions& d, const Reporter& rep, PlanOptions& o) {
  const bool reducing = d.reduce_opt && d.reduce_opt->count() > 0;
  if (d.store && reducing)
    return rep.usage(UsageRule::conflict, "--store and --reduce: choose one (a reduction is a store that combines)",
                     "--reduce");
  if (d.store) o.direction = PlanDirection::store;
  if (reducing) {
    if (!parse_reduce_op(d.reduce.data(), static_cast<std::uint32_t>(d.reduce.size()), o.reduce_op))
      return rep.bad_value("--reduce", quote_user_text(d.reduce) + ": expected add, min, max, inc, dec, and, or or xor");
    o.direction = PlanDirection::reduce;
  }
  return -1;
}

}  // namespace tmakit::cli
