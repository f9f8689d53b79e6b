// Argument parsing of the tmakit CLI, separated from I/O so that tests and fuzzers can call it
// without spawning a process. Never exits, never prints; every failure is a ParseResult.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "tmakit/tensor_map/names.hpp"
#include "tmakit/tensor_map/params.hpp"

namespace tmakit::cli {

enum class Command { encode, check };

struct EncodeRequest {
  TensorMapParams params{};  // rank = number of --dims values (may exceed kMaxRank: validate refuses it)
  bool json = false;         // --json
  bool jsonl = false;        // encode --jsonl FILE
  std::string jsonl_path;    // "-" = stdin
};

struct ParseResult {
  enum class Status { ok, help, usage_error };
  Status status = Status::usage_error;
  EncodeRequest request{};
  std::string message;  // help text (Status::help) or the usage error (Status::usage_error)

  bool ok() const { return status == Status::ok; }
  // 0 for ok and help, 2 for a usage error (the CLI's exit status for bad usage).
  int exit_code() const { return status == Status::usage_error ? 2 : 0; }
};

// Parses what follows `tmakit encode` (command = encode) or `tmakit check` (command = check), e.g.
//   {"tiled", "--dtype", "bf16", "--dims", "4096,4096", "--strides", "8192", "--box", "64,128"}
//   {"--jsonl", "-"}                       (encode only)
// Numbers are decimal or 0x hex; lists are comma-separated. See the README for the contract.
ParseResult parse_encode_args(std::vector<std::string> args, Command command = Command::encode);

// Number parsing (decimal or 0x hex): the host library's, tensor_map/names.hpp.
using tmakit::parse_i64;
using tmakit::parse_u64;

// The text of a descriptor argument of decode/diff: "HEX" itself, or the contents of "@FILE" or
// "@-" (stdin), unchanged (parse_hex in tmakit/tensor_map/describe.hpp reads the digits). Returns
// false with a message in `error` when the file cannot be read.
bool read_hex_arg(const std::string& arg, std::istream& stdin_stream, std::string& text, std::string& error);

}  // namespace tmakit::cli
