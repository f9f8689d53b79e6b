// tmakit decode HEX|@FILE|@- [--stored-at ADDR] [--smem-base ADDR] [--json]
// Prints every field of the descriptor by name, its value in words and its bytes (decode_text), or
// the same as one JSON object (decode_json, with "ok" and "exit"). Exit 0 once decoded, whatever
// the bytes hold (unexplained bits are reported, not an error); 2 when the argument is not 128
// bytes of hex or its file cannot be read.
// --stored-at ADDR also checks the address the map is stored at for what reads it
// (tensor_map/storage.hpp): exit 1 with [map.storage_align] when a TMA instruction could not read it
// there, a note [map.storage_abi] where only CUDA 13's declared alignment is missed. JSON: "storage":
// {"address", "ok", "errors": [...], "notes": [...]}, each {"rule", "message", "fix", "where", "what"}.
// --smem-base ADDR checks the shared address a copy's tile starts at against the descriptor's
// swizzle (tensor_map/smem_base.hpp): exit 1 with [smem.base_align128] off a 128-byte boundary,
// [smem.base_align] off the swizzle's repeat. JSON: "smem_base": {"address", "needed", "ok",
// "errors": [...]}, each {"rule", "message", "fix", "where", "what"}. Every error of both checks is in "errors".
#include <ostream>

#include "commands.hpp"
#include "options.hpp"
#include "tmakit/tensor_map/decode.hpp"
#include "tmakit/tensor_map/describe.hpp"
#include "tmakit/tensor_map/smem_base.hpp"
#include "tmakit/tensor_map/storage.hpp"

namespace tmakit::cli {

namespace {

// An address option's value (decimal or 0x hex): -1 when it parses, else the usage report's status.
int read_address(const CLI::Option* opt, const std::string& text, const Reporter& rep, std::uint64_t& out) {
  if (opt->count() == 0) return -1;
  std::string why;
  if (!parse_number(text, out, why)) return rep.bad_value(opt->get_name(), why);
  return -1;
}

}  // namespace

int run_decode(std::vector<std::string> args, std::istream& in, std::ostream& out, std::ostream& err) {
  const Reporter rep{"tmakit decode", wants_json(args), out, err};
  CLI::App app{"Decode a tensor map into its parameters.", rep.command};
  std::string arg, stored_at, smem_base_text;
  bool json = false;
  app.add_option("DESCRIPTOR", arg, "256 hex digits, or @FILE / @- (stdin); whitespace and 0x ignored")->required();
  const CLI::Option* stored_opt = app.add_option("--stored-at", stored_at,
                                                 "the address the map is stored at (decimal or 0x hex): checked for what "
                                                 "reads it (map.storage_align, map.storage_abi)")
                                      ->type_name("ADDR");
  const CLI::Option* smem_opt = app.add_option("--smem-base", smem_base_text,
                                               "the shared address a copy's tile starts at (decimal or 0x hex): checked "
                                               "against the descriptor's swizzle (smem.base_align128, smem.base_align)")
                                    ->type_name("ADDR");
  add_json_flag(app, json);
  if (const int rc = parse_app(app, std::move(args), rep); rc >= 0) return rc;
  TensorMapBytes m;
  if (int rc = 0; !read_descriptor_arg(arg, "DESCRIPTOR", in, rep, m, rc)) return rc;
  std::uint64_t stored_address = 0, smem_address = 0;
  if (const int rc = read_address(stored_opt, stored_at, rep, stored_address); rc >= 0) return rc;
  if (const int rc = read_address(smem_opt, smem_base_text, rep, smem_address); rc >= 0) return rc;
  const bool check_storage = stored_opt->count() > 0, check_smem = smem_opt->count() > 0;
  const MapStorageCheck storage = check_storage ? check_map_storage(stored_address) : MapStorageCheck{};
  const std::vector<MapStorageFinding> findings = check_storage ? explain_map_storage(storage) : std::vector<MapStorageFinding>{};
  const SmemBaseCheck smem = check_smem_base(smem_address, decode(m).params.swizzle);
  const std::vector<SmemBaseFinding> smem_findings = check_smem ? explain_smem_base(smem) : std::vector<SmemBaseFinding>{};
  const bool ok = storage.ok() && smem_findings.empty();
  const int rc = ok ? kExitOk : kExitRefused;
  if (json) {
    nlohmann::ordered_json j = decode_json(m);
    nlohmann::ordered_json all_errors = nlohmann::ordered_json::array();
    if (check_storage) {
      nlohmann::ordered_json errors = nlohmann::ordered_json::array(), notes = nlohmann::ordered_json::array();
      for (const MapStorageFinding& f : findings)
        (f.is_error() ? errors : notes).push_back(finding_json(f));
      j["storage"] = {{"address", storage.address}, {"ok", storage.ok()}, {"errors", errors}, {"notes", notes}};
      for (const auto& e : errors) all_errors.push_back(e);
    }
    if (check_smem) {
      nlohmann::ordered_json errors = nlohmann::ordered_json::array();
      for (const SmemBaseFinding& f : smem_findings)
        errors.push_back(finding_json(f));
      j["smem_base"] = {{"address", smem.address}, {"needed", smem.needed}, {"ok", smem.ok()}, {"errors", errors}};
      for (const auto& e : errors) all_errors.push_back(e);
    }
    if (!ok) j["errors"] = all_errors;
    return rep.json_result(j, rc, ok);
  }
  out << decode_text(m);
  for (const MapStorageFinding& f : findings) out << f.message() << '\n';
  for (const SmemBaseFinding& f : smem_findings) out << f.message() << '\n';
  return rc;
}

}  // namespace tmakit::cli
