// The whole tmakit CLI as a function (main() only forwards to it), so tests and fuzzers can run it
// in-process with string streams.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace tmakit::cli {

// args: the command line without the program name, e.g. {"encode", "tiled", "--dtype", "bf16", ...}.
// Returns the exit status: 0 ok, 1 refused (the driver would return CUDA_ERROR_INVALID_VALUE),
// 2 bad usage / unreadable input.
int run_cli(const std::vector<std::string>& args, std::istream& in, std::ostream& out, std::ostream& err);

}  // namespace tmakit::cli
