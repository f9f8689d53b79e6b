// `tmakit plan`: the TMA plan of a tile (tmakit/plan), with its descriptor. See docs/plan.md.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace tmakit::cli {

int run_plan(std::vector<std::string> args, std::istream& in, std::ostream& out, std::ostream& err);

}  // namespace tmakit::cli
