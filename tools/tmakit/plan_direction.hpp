// --store and --reduce OP, the direction options of every command that plans a tile (`plan`,
// `check-plan`): added and read in one place so that both commands take and refuse them alike.
// Both at once is usage.conflict; an unknown OP is usage.value (exit 2).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "options.hpp"
#include "tmakit/plan/make_problem.hpp"

namespace tmakit::cli {

struct DirectionOptions {
  bool store = false;
  std::string reduce;
  CLI::Option* reduce_opt = nullptr;
  bool given() const { return store || (reduce_opt && reduce_opt->count() > 0); }
};

// Adds --store and --reduce to `app`, bound to `d`.
void add_direction_options(CLI::App& app, DirectionOptions& d);

// -1 with o.direction / o.reduce_op set from `d`, else the exit status of the usage report.
int parse_direction(const DirectionOptions& d, const Reporter& rep, PlanOptions& o);

}  // namespace tmakit::cli
