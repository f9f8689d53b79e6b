// `tmakit layout OP ARGS...`: the CuTe layout algebra on the command line (see docs/layout.md).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace tmakit::cli {

// args: everything after "layout". Exit status: 0 ok, 1 refused (an operation's precondition),
// 2 bad usage or bad notation.
int run_layout(std::vector<std::string> args, std::istream& in, std::ostream& out, std::ostream& err);

}  // namespace tmakit::cli
