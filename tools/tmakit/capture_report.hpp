// `tmakit capture`'s report: every captured configuration (capture_records.hpp) with its
// explanation (capture_explain.hpp), as text or as one JSON document (docs/cli.md, "capture").
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "capture_records.hpp"

namespace tmakit::cli {

// What ran, for the report's first line (argv empty: the records were read with --from).
struct CaptureRun {
  std::vector<std::string> argv;
  int exit_status = 0;         // the command's exit status (128 + N when signal N ended it)
  int signal = 0;              // the signal that ended it, or 0
  std::string records_file;    // where the records are kept ("" when a temporary file was removed)
};

std::string capture_report_text(const CaptureLog& log, const CaptureRun& run);
nlohmann::ordered_json capture_report_json(const CaptureLog& log, const CaptureRun& run);

}  // namespace tmakit::cli
