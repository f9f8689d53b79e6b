// The encoders against the CUDA driver: every line of tests/data/driver_sm90.jsonl.gz (recorded on
// an H200, driver 580.159.04; see docs/lab/format.md) must get the driver's decision, and every
// accepted line the driver's 128 bytes, through encode() (constexpr, the portable fast path) and
// through the host library's encode_host(), encode_into_host() and encode_many() (the fast path's
// SIMD form for this CPU, encode_fast_host_form()). Refusals compare by decision only (the driver
// leaves half-written bytes behind).
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "test_data.hpp"
#include "tmakit/tensor_map/decode.hpp"
#include "tmakit/tensor_map/encode.hpp"
#include "tmakit/tensor_map/encode_host.hpp"
#include "tmakit/tensor_map/jsonl.hpp"

#ifndef TMAKIT_TEST_DATA_DIR
#error "TMAKIT_TEST_DATA_DIR must name tests/data"
#endif

namespace {

using tmakit_test::read_gz_lines;

// The "result" and "bytes" the driver gave, read from the line without a JSON library.
int driver_result(const std::string& line) {
  const auto k = line.find("\"result\":");
  return k == std::string::npos ? -1 : std::stoi(line.substr(k + 9));
}
std::string driver_bytes(const std::string& line) {
  const auto k = line.find("\"bytes\":\"");
  return k == std::string::npos ? "" : line.substr(k + 9, line.find('"', k + 9) - (k + 9));
}

struct Tally {
  std::size_t lines = 0, accepted = 0, decisions_agree = 0, bytes_agree = 0, round_trips = 0;
  std::vector<std::string> first_disagreements;
};

enum class Encoder { encode, encode_host, encode_into_host, encode_many };
const char* name(Encoder e) {
  switch (e) {
    case Encoder::encode: return "encode";
    case Encoder::encode_host: return "encode_host";
    case Encoder::encode_into_host: return "encode_into_host";
    case Encoder::encode_many: return "encode_many";
  }
  return "?";
}

struct Encoded {
  bool ok = false;
  tmakit::TensorMapBytes map{};
};

// Every parameter set through one encoder.
std::vector<Encoded> encode_all(const std::vector<tmakit::TensorMapParams>& ps, Encoder e) {
  std::vector<Encoded> out(ps.size());
  if (e == Encoder::encode_many) {
    std::vector<tmakit::TensorMapBytes> maps(ps.size());
    const auto ok = std::make_unique<bool[]>(ps.size());
    tmakit::encode_many(ps.data(), maps.data(), ok.get(), ps.size());
    for (std::size_t i = 0; i < ps.size(); ++i) out[i] = {ok[i], maps[i]};
    return out;
  }
  for (std::size_t i = 0; i < ps.size(); ++i) {
    if (e == Encoder::encode_into_host) {
      out[i].ok = tmakit::encode_into_host(ps[i], out[i].map);
      continue;
    }
    const auto r = e == Encoder::encode ? tmakit::encode(ps[i]) : tmakit::encode_host(ps[i]);
    out[i] = {r.ok(), r.map};
  }
  return out;
}

Tally run_corpus(Encoder e) {
  Tally t;
  std::vector<std::string> lines;
  std::vector<tmakit::TensorMapParams> params;
  std::vector<std::size_t> param_of;  // index into params, or -1 when the line does not parse
  for (const auto& line : read_gz_lines(std::string(TMAKIT_TEST_DATA_DIR) + "/driver_sm90.jsonl.gz")) {
    tmakit::TensorMapParams p;
    std::vector<tmakit::jsonl::Error> errors;
    const bool parsed = tmakit::jsonl::parse_params(line, p, errors);
    param_of.push_back(parsed ? params.size() : static_cast<std::size_t>(-1));
    if (parsed) params.push_back(p);
    lines.push_back(line);
  }
  const std::vector<Encoded> encoded = encode_all(params, e);
  for (std::size_t k = 0; k < lines.size(); ++k) {
    const std::string& line = lines[k];
    ++t.lines;
    const bool parsed = param_of[k] != static_cast<std::size_t>(-1);
    const Encoded r = parsed ? encoded[param_of[k]] : Encoded{};
    const bool ours = parsed && r.ok;
    const bool theirs = driver_result(line) == 0;
    if (ours == theirs) {
      ++t.decisions_agree;
    } else if (t.first_disagreements.size() < 10) {
      t.first_disagreements.push_back("decision: driver " + std::to_string(driver_result(line)) + " tmakit " +
                                      (ours ? "accepts" : "refuses") + ": " + line.substr(0, 300));
    }
    if (theirs) {
      ++t.accepted;
      const std::string hex = tmakit::jsonl::to_hex(r.map);
      if (ours && hex == driver_bytes(line)) {
        ++t.bytes_agree;
      } else if (ours && t.first_disagreements.size() < 10) {
        t.first_disagreements.push_back("bytes: " + line.substr(0, 300) + "\n  ours " + hex);
      }
      if (ours && tmakit::encode_unchecked(tmakit::decode(r.map).params) == r.map && tmakit::decode(r.map).round_trips())
        ++t.round_trips;
    }
  }
  return t;
}

TEST(DriverVectors, CorpusIsLargeAndMixed) {
  const auto lines = read_gz_lines(std::string(TMAKIT_TEST_DATA_DIR) + "/driver_sm90.jsonl.gz");
  ASSERT_GE(lines.size(), 20000u) << "tests/data/driver_sm90.jsonl.gz missing or truncated";
  std::size_t acc = 0;
  for (const auto& l : lines) acc += driver_result(l) == 0;
  EXPECT_GT(acc, 10000u);
  EXPECT_GT(lines.size() - acc, 5000u);
}

TEST(DriverVectors, EveryDecisionAndEveryByteAgreesWithTheDriver) {
  for (const Encoder e : {Encoder::encode, Encoder::encode_host, Encoder::encode_into_host, Encoder::encode_many}) {
    SCOPED_TRACE(name(e));
    const Tally t = run_corpus(e);
    std::string detail;
    for (const auto& s : t.first_disagreements) detail += s + "\n";
    std::printf("driver vectors through %s%s: %zu lines, decisions agree %zu, accepted %zu, bytes agree %zu\n", name(e),
                e == Encoder::encode ? "" : (std::string(" (") + tmakit::encode_fast_host_form() + " form)").c_str(),
                t.lines, t.decisions_agree, t.accepted, t.bytes_agree);
    EXPECT_EQ(t.decisions_agree, t.lines) << detail;
    EXPECT_EQ(t.bytes_agree, t.accepted) << detail;
    EXPECT_EQ(t.round_trips, t.accepted) << "decode then encode must reproduce every driver descriptor";
  }
}

}  // namespace
