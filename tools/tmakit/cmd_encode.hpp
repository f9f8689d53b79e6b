// `tmakit encode`: tensor-map parameters -> the 128-byte descriptor (256 hex characters), or JSON
// lines in -> one result line out per input line (--jsonl). The parser is exposed so that tests
// and fuzzers can call it without running the command.
#pragma once

#include <string>
#include <vector>

#include "map_options.hpp"

namespace tmakit::cli {

// Which command's arguments parse_encode_args reads: encode's, or check's (parse_check_args).
enum class Command { encode, check };

// Parses what follows `tmakit encode`, e.g.
//   {"tiled", "--dtype", "bf16", "--dims", "4096,4096", "--strides", "8192", "--box", "64,128"}
//   {"--jsonl", "-"}
// With Command::check it parses what follows `tmakit check` (parse_check_args in cmd_check.hpp).
ParseResult parse_encode_args(std::vector<std::string> args, Command command = Command::encode);

}  // namespace tmakit::cli
