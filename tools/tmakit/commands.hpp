// The tmakit commands. Every command has the same shape:
//   int run_<name>(args, in, out, err)
// args: the command line after the command's name (its own options, parsed in cmd_<name>.cpp);
// in: stdin (for @- and --jsonl -); out: results, help and --json objects; err: diagnostics.
// Returns the exit status (options.hpp): kExitOk, kExitRefused (a rule refused the input, each
// violation with its rule id and fix) or kExitUsage (bad usage or unreadable input).
// cli.cpp dispatches by name through a table of these functions.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace tmakit::cli {

using CommandFn = int (*)(std::vector<std::string> args, std::istream& in, std::ostream& out, std::ostream& err);

// encode tiled|im2col|im2col-wide [options] | encode --jsonl FILE|-   (cmd_encode.cpp)
int run_encode(std::vector<std::string> args, std::istream& in, std::ostream& out, std::ostream& err);
// check tiled|im2col|im2col-wide [options]                             (cmd_check.cpp)
int run_check(std::vector<std::string> args, std::istream& in, std::ostream& out, std::ostream& err);
// check-plan --gmem G --smem S --tile T [DESCRIPTOR] [--armed-bytes N] [--copies N]: a descriptor
// and the kernel's barrier count against the plan (cmd_check_plan.cpp; exit 1 on any error finding)
int run_check_plan(std::vector<std::string> args, std::istream& in, std::ostream& out, std::ostream& err);
// check-gather DESCRIPTOR --op gather4|scatter4 --arch TARGET [--dst D] [--armed-bytes N] [--copies N]:
// a descriptor for Blackwell's TMA row gather / scatter on a target (cmd_check_gather.cpp; exit 1 on any
// gather4.* / scatter4.* or tile-mode finding)
int run_check_gather(std::vector<std::string> args, std::istream& in, std::ostream& out, std::ostream& err);
// decode HEX|@FILE [--json]: exit 0 once decoded (unexplained bits are reported, not an error)
int run_decode(std::vector<std::string> args, std::istream& in, std::ostream& out, std::ostream& err);
// diff HEX|@FILE HEX|@FILE [--json]: exit 0 when identical, 1 when they differ (as diff(1) does)
int run_diff(std::vector<std::string> args, std::istream& in, std::ostream& out, std::ostream& err);
// layout OP ARGS... [--json] [--svg FILE] [--dtype T]: the CuTe layout algebra (docs/layout.md)
int run_layout(std::vector<std::string> args, std::istream& in, std::ostream& out, std::ostream& err);
// plan --gmem G --smem S --tile T [...]: the TMA plan of a tile and its descriptor (docs/plan.md)
int run_plan(std::vector<std::string> args, std::istream& in, std::ostream& out, std::ostream& err);
// smem-store --src FRAGMENT --dst LAYOUT [...]: a register -> shared-memory store plan
int run_smem_store(std::vector<std::string> args, std::istream& in, std::ostream& out, std::ostream& err);
// cluster-stage --cluster X,Y [--multicast SPEC]... [--dsmem SPEC]...: one stage's copies added up
// per CTA (cmd_cluster_stage.cpp)
int run_cluster_stage(std::vector<std::string> args, std::istream& in, std::ostream& out, std::ostream& err);
// capture [options] [--] CMD [ARGS...] | capture --from FILE: CMD run with libtmakit_capture.so
// preloaded, then every tensor map it had the driver encode explained (cmd_capture.cpp; exit status:
// CMD's). It starts a process: the fuzz targets never call it.
int run_capture(std::vector<std::string> args, std::istream& in, std::ostream& out, std::ostream& err);
// arch [TARGET] [--json]: what each target can do for data movement, with sources (cmd_arch.cpp)
int run_arch(std::vector<std::string> args, std::istream& in, std::ostream& out, std::ostream& err);

}  // namespace tmakit::cli
