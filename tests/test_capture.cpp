// `tmakit capture`: the report on records in the capture library's schema (--from, in process), its
// verdicts (driver against tmakit, bytes against tmakit's encoding, notes, where the map was
// written), the grouping, the command line it prints, the notes library, and the command run under
// the library (exit status, report destination, usage errors). The library's own interception is
// tested by tools/capture/capture_test.py (CTest capture.*).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli_run.hpp"
#include "cmd_encode.hpp"
#include "map_command.hpp"
#include "tmakit/host/json.hpp"
#include "tmakit/tensor_map/encode.hpp"
#include "tmakit/tensor_map/jsonl.hpp"
#include "tmakit/tensor_map/notes.hpp"

using namespace tmakit;
using namespace tmakit::cli;
using json = nlohmann::json;
using tmakit_test::run_inprocess;

namespace {

TensorMapParams bf16_tile(std::uint32_t box0 = 64, Swizzle sw = Swizzle::b128) {
  TensorMapParams p;
  p.dtype = DataType::bfloat16;
  p.rank = 2;
  p.address = 0x7f0000000000;
  p.dims[0] = p.dims[1] = 4096;
  p.strides[0] = 8192;
  p.box[0] = box0;
  p.box[1] = 128;
  p.swizzle = sw;
  return p;
}

// One record line as the capture library writes it: the parameters in the --jsonl schema, plus
// the call's keys. `bytes`: the driver's (default: tmakit's encoding where result is 0, else zeros).
std::string record(const TensorMapParams& p, int result, std::uint64_t map = 0x7ffd00001000,
                   const TensorMapBytes* bytes = nullptr, const char* call = "cuTensorMapEncodeTiled") {
  json j = json::parse(json_text(jsonl::params_json(p)));
  j["call"] = call;
  j["via"] = "dlsym";
  j["result"] = result;
  j["driver"] = true;
  j["pid"] = 42;
  j["map"] = map;
  const TensorMapBytes b = bytes ? *bytes : result == 0 ? encode(p).map : TensorMapBytes{};
  j["bytes"] = jsonl::to_hex(b);
  return j.dump() + "\n";
}

json report(const std::string& records, const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args = {"capture", "--from", "-", "--json"};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto r = run_inprocess(args, records);
  EXPECT_EQ(r.rc, 0) << r.err;
  return json::parse(r.out);
}

}  // namespace

TEST(CaptureReport, DriverAndTmakitAgreeAndTheBytesAreTmakits) {
  const json j = report(record(bf16_tile(), 0));
  ASSERT_EQ(j["groups"].size(), 1u);
  const json& g = j["groups"][0];
  EXPECT_EQ(g["driver"]["verdict"], "accepted");
  EXPECT_EQ(g["tmakit"]["ok"], true);
  EXPECT_EQ(g["agreement"], "agree");
  EXPECT_EQ(g["bytes_source"], "driver");
  EXPECT_EQ(g["bytes_match_tmakit"], true);
  EXPECT_EQ(g["bytes"], jsonl::to_hex(encode(bf16_tile()).map));
  EXPECT_EQ(g["via"], json::array({"dlsym"}));
  EXPECT_EQ(j["disagreements"], 0);
}

TEST(CaptureReport, DriverBytesOtherThanTmakitsAreDiffedFieldByField) {
  const TensorMapBytes b = encode(bf16_tile(32, Swizzle::b64)).map;  // bytes with another swizzle
  const json g = report(record(bf16_tile(32), 0, 0x7ffd00001000, &b))["groups"][0];
  EXPECT_EQ(g["bytes_match_tmakit"], false);
  std::vector<std::string> fields;
  for (const json& d : g["differences"]) fields.push_back(d["field"]);
  EXPECT_EQ(fields, (std::vector<std::string>{"swizzle", "smemAlignment"}));
}

TEST(CaptureReport, RefusalsOfBothAgreeAndNameTheRule) {
  TensorMapParams p = bf16_tile();
  p.strides[0] = 8190;
  const json j = report(record(p, 1));
  const json& g = j["groups"][0];
  EXPECT_EQ(g["driver"]["name"], "CUDA_ERROR_INVALID_VALUE");
  EXPECT_EQ(g["agreement"], "agree");
  EXPECT_EQ(g["tmakit"]["errors"][0]["rule"], "strides.align16");
  EXPECT_EQ(g["bytes_source"], "none");
  EXPECT_EQ(j["refused"], 1);
}

TEST(CaptureReport, ADriverThatAcceptsWhatTmakitRefusesIsADisagreement) {
  TensorMapParams p = bf16_tile(64, Swizzle::b128_atom_32b);  // sm_100 only: tmakit refuses it on sm_90
  const TensorMapBytes accepted = encode(bf16_tile()).map;  // what a driver without the rule wrote, near enough
  const json j = report(record(p, 0, 0x7ffd00001000, &accepted));
  EXPECT_EQ(j["groups"][0]["agreement"], "driver accepts, tmakit refuses");
  EXPECT_EQ(j["disagreements"], 1);
  // --arch sm_100: tmakit accepts it there
  EXPECT_EQ(report(record(p, 0), {"--arch", "sm_100"})["groups"][0]["tmakit"]["ok"], true);
}

TEST(CaptureReport, OneConfigurationAtManyAddressesIsOneGroup) {
  std::string lines;
  for (std::uint64_t i = 0; i < 3; ++i) {
    TensorMapParams p = bf16_tile();
    p.address += i * 0x100000;
    lines += record(p, 0);
  }
  lines += record(bf16_tile(32), 0);  // another box: another configuration
  const json j = report(lines);
  EXPECT_EQ(j["records"], 4);
  ASSERT_EQ(j["groups"].size(), 2u);
  EXPECT_EQ(j["groups"][0]["count"], 3);
  EXPECT_EQ(j["groups"][0]["addresses"]["distinct"], 3);
  EXPECT_EQ(j["groups"][1]["count"], 1);
}

TEST(CaptureReport, AReplacedAddressTakesTheParametersOfTheMapEncodedThere) {
  TensorMapParams moved = bf16_tile();
  moved.address = 0x7f0000200000;
  json rep = json::parse(record(moved, 0, 0x7ffd00001000, nullptr, "cuTensorMapReplaceAddress"));
  for (const char* k : {"kind", "dtype", "rank", "dims", "strides", "box", "elem_strides", "swizzle"}) rep.erase(k);
  const json j = report(record(bf16_tile(), 0) + rep.dump() + "\n");
  ASSERT_EQ(j["groups"].size(), 2u);
  const json& g = j["groups"][1];
  EXPECT_EQ(g["call"], "cuTensorMapReplaceAddress");
  EXPECT_EQ(g["params"]["dims"], json::array({4096, 4096}));
  EXPECT_EQ(g["params"]["address"], 0x7f0000200000);
  EXPECT_EQ(g["bytes_match_tmakit"], true);
}

// What a launch left: the kernels launched (once per handle) and whether their parameters held a
// map; a window that is no map is counted, not reported as one.
TEST(CaptureReport, KernelsLaunchedAreListedWithOrWithoutAMap) {
  auto launch = [](const char* kernel, const char* parameters, std::size_t bytes) {
    json j = {{"call", "kernel_launch"}, {"via", "cuGetProcAddress_v2"}, {"result", 0}, {"driver", true},
              {"pid", 42}, {"kernel", kernel}, {"name_status", {0, -1}}, {"parameters", parameters},
              {"info_status", 0}, {"param_count", 3}, {"param_bytes", bytes}};
    return j.dump() + "\n";
  };
  auto window = [](const char* kernel, const TensorMapBytes& b) {
    json j = {{"call", "kernel_parameter"}, {"via", "cuGetProcAddress_v2"}, {"result", 0}, {"driver", true},
              {"pid", 42}, {"kernel", kernel}, {"param", 0}, {"offset", 64}, {"bytes", jsonl::to_hex(b)}};
    return j.dump() + "\n";
  };
  TensorMapBytes not_a_map{};
  not_a_map.set_byte(1, 0x10);  // a plausible address, then nothing a map holds
  const std::string records = launch("gets_a_map", "kernelParams", 256) + window("gets_a_map", encode(bf16_tile()).map) +
                              launch("gets_none", "extra", 1024) + window("gets_none", not_a_map) +
                              launch("gets_none", "extra", 1024);  // a second handle of the same name
  const json j = report(records);
  EXPECT_EQ(j["records"], 1);
  EXPECT_EQ(j["kernel_windows_not_maps"], 1);
  const json want = json::array(
      {{{"name", "gets_a_map"}, {"handles", 1}, {"parameters", "kernelParams"}, {"param_bytes", 256}, {"received_map", true}},
       {{"name", "gets_none"}, {"handles", 2}, {"parameters", "extra"}, {"param_bytes", 1024}, {"received_map", false}}});
  EXPECT_EQ(j["kernels_launched"], want);
  const auto text = run_inprocess({"capture", "--from", "-"}, records);
  EXPECT_NE(text.out.find("2 kernel(s) launched through the driver:\n  received a tensor map in their parameters:\n"
                          "    gets_a_map\n  received none in their parameters:\n    gets_none (extra, 1024 bytes)\n"),
            std::string::npos)
      << text.out;
}

TEST(CaptureReport, UnreadableLinesAreCountedNotFatal) {
  const json j = report("{\"call\":\"cuTensorMapEncodeTiled\",\"res\n" + record(bf16_tile(), 0) + "[1,2]\n");
  EXPECT_EQ(j["records"], 1);
  EXPECT_EQ(j["unreadable"]["count"], 2);
  EXPECT_EQ(j["unreadable"]["lines"][0]["line"], 1);
}

TEST(CaptureReport, WhereTheMapWasWrittenIsChecked) {
  const json off64 = report(record(bf16_tile(), 0, 0x7ffd00001020))["groups"][0]["storage"];
  EXPECT_EQ(off64["findings"][0]["rule"], "map.storage_align");
  EXPECT_EQ(off64["off64"], 1);
  const json off128 = report(record(bf16_tile(), 0, 0x7ffd00001040))["groups"][0]["storage"];
  EXPECT_EQ(off128["findings"][0]["rule"], "map.storage_abi");
  EXPECT_TRUE(report(record(bf16_tile(), 0, 0x7ffd00001080))["groups"][0]["storage"]["findings"].empty());
}

TEST(CaptureReport, NoDriverStillChecksAndEncodes) {
  std::string line = record(bf16_tile(), 999);
  line.replace(line.find("\"driver\":true"), 13, "\"driver\":false");
  const json g = report(line)["groups"][0];
  EXPECT_EQ(g["driver"]["verdict"], "absent");
  EXPECT_EQ(g["agreement"], "no driver verdict");
  EXPECT_EQ(g["bytes_source"], "tmakit");
  EXPECT_EQ(g["bytes"], jsonl::to_hex(encode(bf16_tile()).map));
}

TEST(CaptureReport, TextNamesTheCommandLineVerdictsNotesAndBytes) {
  const auto r = run_inprocess({"capture", "--from", "-"}, record(bf16_tile(32), 0));
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("1 call recorded in 1 configuration"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("tmakit check tiled --dtype bf16 --dims 4096,4096 --strides 8192 --box 32,128 --swizzle 128B"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("tmakit: accepts (sm_90), as the driver does"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("note [note.swizzle_row_padded]"), std::string::npos) << r.out;
  const std::string bytes = jsonl::to_hex(encode(bf16_tile(32)).map);
  EXPECT_NE(r.out.find("bytes (the driver's, identical to tmakit's encoding): " + bytes), std::string::npos) << r.out;
}

TEST(CaptureNotes, EachNoteAndItsNumbers) {
  const auto rules = [](const TensorMapParams& p) {
    std::vector<std::string> ids;
    for (const MapNote& n : map_notes(p)) ids.push_back(rule_id(n.rule));
    return ids;
  };
  TensorMapParams p = bf16_tile(64, Swizzle::b128);  // 128 B rows, 128B swizzle, L2 none
  EXPECT_EQ(rules(p), std::vector<std::string>{"note.l2_promotion_none"});
  p.l2 = L2Promotion::b256;
  EXPECT_TRUE(rules(p).empty());
  p.swizzle = Swizzle::none;
  EXPECT_EQ(rules(p), std::vector<std::string>{"note.swizzle_none"});
  EXPECT_NE(map_notes(p)[0].fix.find("SWIZZLE_128B"), std::string::npos);
  p = bf16_tile(32, Swizzle::b128);  // 64 B rows padded to 128
  p.l2 = L2Promotion::b128;
  ASSERT_EQ(rules(p), std::vector<std::string>{"note.swizzle_row_padded"});
  EXPECT_NE(map_notes(p)[0].message().find("spans 16384 B for the 8192 B it delivers"), std::string::npos)
      << map_notes(p)[0].message();
  p.strides[0] = 8190;  // refused: no notes
  EXPECT_TRUE(rules(p).empty());
}

TEST(CaptureCommandLine, PrintedParametersParseBackToTheSame) {
  TensorMapParams t = bf16_tile();
  t.l2 = L2Promotion::b128;
  t.oob = OobFill::nan_request_zero_fma;
  t.elem_strides[1] = 2;
  TensorMapParams wide;
  wide.kind = MapKind::im2col_wide;
  wide.dtype = DataType::float16;
  wide.rank = 4;
  for (int i = 0; i < 4; ++i) wide.dims[i] = 64;
  wide.strides[0] = 128;
  wide.strides[1] = 8192;
  wide.strides[2] = 524288;
  wide.lower[0] = -1;
  wide.upper[0] = 1;
  wide.channels = 64;
  wide.pixels = 128;
  wide.wide_mode = Im2colWideMode::w128;
  wide.arch = Arch::sm_100;
  for (const TensorMapParams& p : {t, wide}) {
    const std::string cmd = map_command(p, "encode");
    std::istringstream words(cmd.substr(std::string("tmakit encode ").size()));
    std::vector<std::string> args;
    for (std::string w; words >> w;) args.push_back(w);
    const ParseResult r = parse_encode_args(args);
    ASSERT_TRUE(r.ok()) << cmd << "\n" << r.message;
    EXPECT_EQ(jsonl::params_json(r.request.params), jsonl::params_json(p)) << cmd;
  }
}

TEST(CaptureRunning, TheCommandsExitStatusAndOutputAreItsOwn) {
  const std::string lib = (std::filesystem::path(TMAKIT_CLI_BINARY).parent_path() / "libtmakit_capture.so").string();
  const auto report_file =
      std::filesystem::temp_directory_path() / ("tmakit_capture_test_" + std::to_string(::getpid()));
  const auto r = run_inprocess({"capture", "--lib", lib, "--json", "--report", report_file.string(), "--", "sh", "-c",
                                "exit 5"});
  EXPECT_EQ(r.rc, 5) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "");
  const json j = json::parse(tmakit_test::read_file(report_file));
  std::filesystem::remove(report_file);
  EXPECT_EQ(j["status"], 5);
  EXPECT_EQ(j["exit"], 5);
  EXPECT_EQ(j["records"], 0);
  EXPECT_EQ(j["argv"], json::array({"sh", "-c", "exit 5"}));
  // a signal: 128 + N, as a shell reports it
  EXPECT_EQ(run_inprocess({"capture", "--lib", lib, "sh", "-c", "kill -TERM $$"}).rc, 128 + 15);
  EXPECT_EQ(run_inprocess({"capture", "--lib", lib, "--", "/nonexistent/program"}).rc, 127);
}

TEST(CaptureRunning, UsageErrorsRunNothing) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"capture"}, {"capture", "--json"}, {"capture", "--from", "x", "--", "true"},
        {"capture", "--lib", "/nonexistent/lib.so", "--", "true"}, {"capture", "--arch", "sm_77", "--", "true"},
        {"capture", "--from", "/nonexistent/records"}, {"capture", "--from", "-", "--out", "x"}}) {
    const auto r = run_inprocess(args);
    EXPECT_EQ(r.rc, 2) << args.back() << r.err;
  }
  const auto j = run_inprocess({"capture", "--json", "--from", "-", "--lib", "x"});
  EXPECT_EQ(json::parse(j.out)["error"]["rule"], "usage.conflict");
}
