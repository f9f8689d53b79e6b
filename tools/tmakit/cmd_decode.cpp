// tmakit decode HEX|@FILE|@- [--stored-at ADDR] [--json]
// Prints every field of the descriptor by name, its value in words and its bytes (decode_text), or
// the same as one JSON object (decode_json, with "ok" and "exit"). Exit 0 once decoded, whatever
// the bytes hold (unexplained bits are reported, not an error); 2 when the argument is not 128
// bytes of hex or its file cannot be read.
// --stored-at ADDR also checks the address the map is stored at for what reads it
// (tensor_map/storage.hpp): exit 1 with [map.storage_align] when a TMA instruction could not read it
// there, a note [map.storage_abi] where only CUDA 13's declared alignment is missed. JSON: "storage":
// {"address", "ok", "errors": [...], "notes": [...]}, each {"rule", "message", "fix"}.
#include <ostream>

#include "commands.hpp"
#include "options.hpp"
#include "tmakit/tensor_map/describe.hpp"
#include "tmakit/tensor_map/storage.hpp"

namespace tmakit::cli {

int run_decode(std::vector<std::string> args, std::istream& in, std::ostream& out, std::ostream& err) {
  const Reporter rep{"tmakit decode", wants_json(args), out, err};
  CLI::App app{"Decode a tensor map into its parameters.", rep.command};
  std::string arg, stored_at;
  bool json = false;
  app.add_option("DESCRIPTOR", arg, "256 hex digits, or @FILE / @- (stdin); whitespace and 0x ignored")->required();
  app.add_option("--stored-at", stored_at,
                 "the address the map is stored at (decimal or 0x hex): checked for what reads it "
                 "(map.storage_align, map.storage_abi)")
      ->type_name("ADDR");
  add_json_flag(app, json);
  if (const int rc = parse_app(app, std::move(args), rep); rc >= 0) return rc;
  TensorMapBytes m;
  if (int rc = 0; !read_descriptor_arg(arg, "DESCRIPTOR", in, rep, m, rc)) return rc;
  const bool check = app.count("--stored-at") > 0;
  MapStorageCheck storage{};
  if (check) {
    std::uint64_t address = 0;
    std::string why;
    if (!parse_number(stored_at, address, why)) return rep.bad_value("--stored-at", why);
    storage = check_map_storage(address);
  }
  const std::vector<MapStorageFinding> findings = check ? explain_map_storage(storage) : std::vector<MapStorageFinding>{};
  const int rc = storage.ok() ? kExitOk : kExitRefused;
  if (json) {
    nlohmann::ordered_json j = decode_json(m);
    if (check) {
      nlohmann::ordered_json errors = nlohmann::ordered_json::array(), notes = nlohmann::ordered_json::array();
      for (const MapStorageFinding& f : findings)
        (is_note(f.rule) ? notes : errors).push_back({{"rule", rule_id(f.rule)}, {"message", f.message}, {"fix", f.fix}});
      j["storage"] = {{"address", storage.address}, {"ok", storage.ok()}, {"errors", errors}, {"notes", notes}};
      if (!storage.ok()) j["errors"] = errors;
    }
    return rep.json_result(j, rc, storage.ok());
  }
  out << decode_text(m);
  for (const MapStorageFinding& f : findings) out << f.message << '\n';
  return rc;
}

}  // namespace tmakit::cli
