// What tmakit_capture recorded (tools/capture/capture_record.h: one JSON line per call), read and
// grouped for `tmakit capture`'s report: every line becomes a CaptureRecord (its parameters through
// the --jsonl schema's parser, jsonl::parse_params), and records of one configuration (the same
// call, parameters but for the tensor's address, target and driver result) share a CaptureGroup.
// A cuTensorMapReplaceAddress record takes the parameters of the last map its process encoded at
// the same place, with the new address; else those its bytes decode to. A kernel_parameter record
// (128 bytes a kernel received at launch: tools/capture/capture_launch.h) is a map only where its
// bytes decode to parameters tmakit accepts and re-encodes to the same bytes; the others are counted
// and dropped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tmakit/tensor_map/bytes.hpp"
#include "tmakit/tensor_map/params.hpp"

namespace tmakit::cli {

struct CaptureRecord {
  std::size_t line = 0;    // 1-based line of the records file
  std::string call, via;   // "cuTensorMapEncodeTiled", "dlsym"
  int result = 0;          // what the program got back
  bool driver = false;     // a driver function produced `result` (false: no libcuda.so.1 at all)
  bool replace = false;    // cuTensorMapReplaceAddress
  bool params_known = true;  // false: a replaced map never seen encoded, whose bytes decode to nothing
  long long pid = 0;
  std::uint64_t map = 0;   // where the program had the map written
  TensorMapParams params{};
  TensorMapBytes bytes{};  // what the call left in the map (zeros unless result == 0)
  // A map a kernel received at launch ("kernel_parameter"): the kernel, the parameter (-1: the
  // launch's one buffer) and the map's byte offset in the parameter buffer; result is then 0 (the
  // bytes are what the kernel got) and launch_result what the launch returned.
  bool kernel_parameter = false;
  // A kernel launched ("kernel_launch", once per kernel handle): its name in `kernel`, how its
  // parameters came ("kernelParams", "extra", "none", "kernelParams, not placed") and their bytes.
  bool kernel_launch = false;
  std::string parameters;
  std::size_t param_bytes = 0;
  std::string kernel;
  long long param = -1, offset = -1;
  int launch_result = 0;
};

// One line; false with `why` when it is not a record (not JSON, a missing key, a value of the
// wrong type, parameters the --jsonl schema refuses).
bool parse_capture_record(std::string_view line, CaptureRecord& r, std::string& why);

// Records of one configuration.
struct CaptureGroup {
  CaptureRecord first;                  // the first record (its parameters and bytes speak for all)
  std::size_t count = 0;
  std::vector<std::string> vias;        // each way the program reached the function, in order seen
  std::vector<std::uint64_t> addresses; // distinct tensor addresses, the first kListed
  std::size_t address_count = 0;        // distinct tensor addresses in all
  std::vector<long long> pids;          // distinct processes
  std::uint64_t worst_map = 0;          // the map address least aligned (past a 64-, then a 128-byte boundary)
  std::size_t maps_off64 = 0, maps_off128 = 0;  // records whose map is not 64- / not 128-byte aligned
  static constexpr std::size_t kListed = 4;
};

// The kernels launched through a wrapped launch function, by name.
struct KernelLaunched {
  std::string name;
  std::size_t handles = 0;      // distinct kernel handles of that name
  std::string parameters;       // how the first handle's parameters came (CaptureRecord::parameters)
  std::size_t param_bytes = 0;  // the first handle's parameter bytes searched
};

struct CaptureLog {
  std::vector<CaptureGroup> groups;  // in the order their first record came
  std::size_t records = 0;           // lines read as records
  std::vector<std::pair<std::size_t, std::string>> unreadable;  // (line, why), the first kListed
  std::size_t unreadable_count = 0;
  std::size_t kernel_windows_not_maps = 0;  // kernel_parameter records whose bytes are no map tmakit accepts
  std::vector<KernelLaunched> kernels_launched;  // in the order first launched
  static constexpr std::size_t kListed = 8;
};

// Reads a records file line by line (a line over 64 KiB is unreadable and skipped), in constant
// memory per configuration. `arch`, when given, replaces the target every record names (or leaves
// to sm_90).
class CaptureReader {
 public:
  explicit CaptureReader(std::optional<Arch> arch) : arch_(arch) {}
  void add_line(std::string_view line);
  void read(std::istream& in);
  const CaptureLog& log() const { return log_; }

 private:
  void add(CaptureRecord r);
  void resolve_replace(CaptureRecord& r) const;
  std::optional<Arch> arch_;
  CaptureLog log_;
  std::size_t line_ = 0;
  std::map<std::string, std::size_t> launched_;                            // kernel name -> kernels_launched
  std::map<std::string, std::size_t> group_of_;                            // configuration key -> group
  std::map<std::pair<long long, std::uint64_t>, TensorMapParams> encoded_;  // (pid, map) -> last encode
  std::vector<std::set<std::uint64_t>> seen_addresses_;                    // per group
};

}  // namespace tmakit::cli
