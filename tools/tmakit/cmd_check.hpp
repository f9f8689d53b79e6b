// `tmakit check`: every rule the tensor-map parameters violate, or "ok". The parser is exposed so
// that tests and fuzzers can call it without running the command.
#pragma once

#include <string>
#include <vector>

#include "map_options.hpp"

namespace tmakit::cli {

// Parses what follows `tmakit check`: a map kind and its options (map_options.hpp), and --json.
ParseResult parse_check_args(std::vector<std::string> args);

}  // namespace tmakit::cli
