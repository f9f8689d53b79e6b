// Reading and grouping tmakit_capture's records (capture_records.hpp).
#include "capture_records.hpp"

#include <algorithm>
#include <istream>

#include "tmakit/host/json.hpp"
#include "tmakit/tensor_map/decode.hpp"
#include "tmakit/tensor_map/encode.hpp"
#include "tmakit/tensor_map/describe.hpp"
#include "tmakit/tensor_map/jsonl.hpp"

namespace tmakit::cli {
namespace {

using json = nlohmann::json;

// The keys every record has, each of its type; false with `why` naming the first that is not there.
bool read_call_keys(const json& j, CaptureRecord& r, std::string& why) {
  const auto need = [&](const char* key, bool ok, const char* type) {
    if (!ok) why = std::string("\"") + key + "\" is missing or not " + type;
    return ok;
  };
  const auto has = [&](const char* key) { return j.contains(key) ? &j[key] : nullptr; };
  const json* call = has("call");
  const json* result = has("result");
  const json* map = has("map");
  const json* bytes = has("bytes");
  if (!need("call", call && call->is_string(), "a string") ||
      !need("result", result && result->is_number_integer(), "an integer") ||
      !need("bytes", bytes && bytes->is_string() && parse_hex(bytes->get<std::string>(), r.bytes), "256 hex digits"))
    return false;
  r.call = call->get<std::string>();
  r.result = result->get<int>();
  r.map = map && map->is_number_unsigned() ? map->get<std::uint64_t>() : 0;
  const json* via = has("via");
  const json* driver = has("driver");
  const json* pid = has("pid");
  r.via = via && via->is_string() ? via->get<std::string>() : "";
  r.driver = driver && driver->is_boolean() ? driver->get<bool>() : true;
  r.pid = pid && pid->is_number_integer() ? pid->get<long long>() : 0;
  r.replace = r.call == "cuTensorMapReplaceAddress";
  return true;
}

// Records written before "kind" was: the kind the call names.
void kind_from_call(const json& j, CaptureRecord& r) {
  if (j.contains("kind")) return;
  if (r.call == "cuTensorMapEncodeIm2col") r.params.kind = MapKind::im2col;
  if (r.call == "cuTensorMapEncodeIm2colWide") r.params.kind = MapKind::im2col_wide;
}

// One line of at most `limit` bytes from `in` into `line` (the rest of a longer one is skipped);
// `too_long` tells. False at the end of the input.
bool read_bounded_line(std::istream& in, std::string& line, bool& too_long, std::size_t limit) {
  line.clear();
  too_long = false;
  char c = 0;
  bool any = false;
  while (in.get(c)) {
    any = true;
    if (c == '\n') return true;
    if (line.size() < limit) {
      line.push_back(c);
    } else {
      too_long = true;
    }
  }
  return any;
}

}  // namespace

// A kernel_parameter record: the kernel, where the bytes lay, and the parameters they decode to.
bool read_kernel_parameter(const json& j, CaptureRecord& r) {
  r.kernel_parameter = true;
  r.kernel = j.contains("kernel") && j["kernel"].is_string() ? j["kernel"].get<std::string>() : "?";
  r.param = j.contains("param") && j["param"].is_number_integer() ? j["param"].get<long long>() : -1;
  r.offset = j.contains("offset") && j["offset"].is_number_integer() ? j["offset"].get<long long>() : -1;
  r.launch_result = r.result;
  r.result = 0;
  r.driver = true;
  r.via = r.kernel;
  const DecodedTensorMap d = decode(r.bytes);
  r.params = d.params;
  r.params_known = d.round_trips();  // false: the bytes are no map (CaptureReader::add_line drops them)
  return true;
}

// A kernel_launch record: the kernel, how its parameters came, how many bytes were searched.
bool read_kernel_launch(const json& j, CaptureRecord& r) {
  r.kernel_launch = true;
  r.call = "kernel_launch";
  r.kernel = j.contains("kernel") && j["kernel"].is_string() ? j["kernel"].get<std::string>() : "?";
  r.parameters = j.contains("parameters") && j["parameters"].is_string() ? j["parameters"].get<std::string>() : "?";
  r.param_bytes = j.contains("param_bytes") && j["param_bytes"].is_number_unsigned() ? j["param_bytes"].get<std::size_t>() : 0;
  r.pid = j.contains("pid") && j["pid"].is_number_integer() ? j["pid"].get<long long>() : 0;
  return true;
}

bool parse_capture_record(std::string_view line, CaptureRecord& r, std::string& why) {
  r = CaptureRecord{};
  json j;
  try {
    j = json::parse(line.begin(), line.end());
  } catch (const json::exception&) {
    why = "not JSON (a line cut short by a process that was killed while writing it?)";
    return false;
  }
  if (!j.is_object()) {
    why = "not a JSON object";
    return false;
  }
  if (j.contains("call") && j["call"] == "kernel_launch") return read_kernel_launch(j, r);
  if (!read_call_keys(j, r, why)) return false;
  if (r.call == "kernel_parameter") return read_kernel_parameter(j, r);
  std::vector<jsonl::Error> errors;
  if (r.replace) {
    const bool known = j.contains("address") && j["address"].is_number_unsigned();
    r.params.address = known ? j["address"].get<std::uint64_t>() : 0;
    return true;
  }
  if (!jsonl::parse_params(line, r.params, errors)) {
    why = errors.empty() ? "parameters the --jsonl schema refuses" : errors.front().message;
    return false;
  }
  kind_from_call(j, r);
  return true;
}

void CaptureReader::resolve_replace(CaptureRecord& r) const {
  const auto it = encoded_.find({r.pid, r.map});
  const std::uint64_t address = r.params.address;
  if (it != encoded_.end()) {
    r.params = it->second;
  } else if (r.result == 0) {
    r.params = decode(r.bytes).params;  // a map encoded before the capture began, or by other means
  } else {
    r.params_known = false;
  }
  r.params.address = address;
}

void CaptureReader::add(CaptureRecord r) {
  if (arch_) r.params.arch = *arch_;
  if (r.replace) resolve_replace(r);
  if (!r.replace && r.params_known) encoded_[{r.pid, r.map}] = r.params;
  TensorMapParams keyed = r.params;
  keyed.address = 0;
  const std::string key = r.call + '|' + std::to_string(r.result) + '|' + (r.driver ? "d" : "-") +
                          (r.params_known ? json_text(jsonl::params_json(keyed)) : "?");
  auto [it, fresh] = group_of_.try_emplace(key, log_.groups.size());
  if (fresh) {
    log_.groups.push_back(CaptureGroup{r, 0, {}, {}, 0, {}, r.map, 0, 0});
    seen_addresses_.emplace_back();
  }
  CaptureGroup& g = log_.groups[it->second];
  ++g.count;
  if (std::find(g.vias.begin(), g.vias.end(), r.via) == g.vias.end()) g.vias.push_back(r.via);
  if (std::find(g.pids.begin(), g.pids.end(), r.pid) == g.pids.end()) g.pids.push_back(r.pid);
  if (seen_addresses_[it->second].insert(r.params.address).second) {
    if (g.addresses.size() < CaptureGroup::kListed) g.addresses.push_back(r.params.address);
    ++g.address_count;
  }
  // The least aligned map: past a 64-byte boundary first, then past a 128-byte one.
  const auto badness = [](std::uint64_t a) { return (a % 64 ? 2 : 0) + (a % 128 ? 1 : 0); };
  if (badness(r.map) > badness(g.worst_map)) g.worst_map = r.map;
  g.maps_off64 += r.map % 64 != 0;
  g.maps_off128 += r.map % 128 != 0;
}

void CaptureReader::add_line(std::string_view line) {
  ++line_;
  if (line.find_first_not_of(" \t\r") == std::string_view::npos) return;
  CaptureRecord r;
  std::string why;
  if (!parse_capture_record(line, r, why)) {
    if (log_.unreadable.size() < CaptureLog::kListed) log_.unreadable.emplace_back(line_, why);
    ++log_.unreadable_count;
    return;
  }
  r.line = line_;
  if (r.kernel_launch) {
    auto [it, fresh] = launched_.try_emplace(r.kernel, log_.kernels_launched.size());
    if (fresh) log_.kernels_launched.push_back(KernelLaunched{r.kernel, 0, r.parameters, r.param_bytes});
    ++log_.kernels_launched[it->second].handles;
    return;
  }
  if (r.kernel_parameter) {
    TensorMapParams checked = r.params;
    if (arch_) checked.arch = *arch_;
    TensorMapBytes again{};
    if (!r.params_known || !encode_into(checked, again) || !(again == r.bytes)) {
      ++log_.kernel_windows_not_maps;
      return;
    }
  }
  ++log_.records;
  add(std::move(r));
}

void CaptureReader::read(std::istream& in) {
  constexpr std::size_t kMaxLine = 64 * 1024;  // a record is under 2 KiB
  std::string line;
  bool too_long = false;
  while (read_bounded_line(in, line, too_long, kMaxLine)) {
    if (!too_long) {
      add_line(line);
      continue;
    }
    ++line_;
    if (log_.unreadable.size() < CaptureLog::kListed) log_.unreadable.emplace_back(line_, "longer than 64 KiB");
    ++log_.unreadable_count;
  }
}

}  // namespace tmakit::cli
