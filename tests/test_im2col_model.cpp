// The shared-memory model of im2col loads (tensor_map/smem_model_im2col.hpp) against what an H100
// wrote. tests/data/im2col_h100.txt.gz was recorded by tools/driver_sweep/im2col_probe.cu
// (2026-11-22, NVIDIA H100 80GB HBM3, driver 580.159.04; docs/lab/device.md), through tmakit's own
// device::load_im2col: each line is one driver-made im2col map, start coordinate and offsets, and
// the shared memory the hardware wrote as runs of 32-bit words (global word k held k + 1), or
// KERNEL_ERROR when the load faulted.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "test_data.hpp"
#include "tmakit/tensor_map/smem_model_im2col.hpp"
#include "tmakit/tensor_map/validate.hpp"

namespace {

using tmakit::TensorMapParams;

struct Recorded {
  TensorMapParams p;
  std::int32_t start[5] = {};
  std::uint16_t offsets[3] = {};
  bool encoded = false;
  bool kernel_error = false;
  std::map<std::uint32_t, std::uint32_t> words;
};

bool parse(const std::string& line, Recorded& r) {
  tmakit_test::ProbeLine pl;
  if (!tmakit_test::parse_probe_line(line, pl)) return false;
  std::istringstream in(pl.args);
  int dt, sw, rank;
  in >> dt >> sw >> rank;
  if (!in || rank < 3 || rank > 5) return false;
  TensorMapParams& p = r.p;
  p = TensorMapParams{};
  p.kind = tmakit::MapKind::im2col;
  p.dtype = static_cast<tmakit::DataType>(dt);
  p.swizzle = static_cast<tmakit::Swizzle>(sw);
  p.rank = static_cast<std::uint32_t>(rank);
  p.address = 1u << 20;
  for (int i = 0; i < rank; ++i) in >> p.dims[i];
  for (int i = 0; i < rank - 1; ++i) in >> p.strides[i];
  for (int i = 0; i < rank - 2; ++i) in >> p.lower[i];
  for (int i = 0; i < rank - 2; ++i) in >> p.upper[i];
  in >> p.channels >> p.pixels;
  for (int i = 0; i < rank; ++i) in >> p.elem_strides[i];
  for (int i = 0; i < rank; ++i) in >> r.start[i];
  for (int i = 0; i < rank - 2; ++i) in >> r.offsets[i];
  if (!in) return false;
  r.encoded = pl.encoded;
  r.kernel_error = pl.kernel_error;
  r.words = std::move(pl.words);
  return true;
}

TEST(Im2colModel, MatchesEveryRecordedH100Load) {
  std::vector<Recorded> recs;
  for (const auto& line : tmakit_test::read_gz_lines(tmakit_test::data_path("im2col_h100.txt.gz"))) {
    Recorded r;
    if (parse(line, r)) recs.push_back(std::move(r));
  }
  ASSERT_GE(recs.size(), 350u) << "tests/data/im2col_h100.txt.gz missing or truncated";
  int compared = 0, faults_predicted = 0, faults = 0, validate_agrees = 0;
  for (const auto& r : recs) {
    const bool valid = tmakit::is_valid(r.p);
    validate_agrees += valid == r.encoded;
    EXPECT_EQ(valid, r.encoded) << "validate disagrees with the driver on a recorded im2col map";
    if (!r.encoded) continue;
    const bool inside = tmakit::im2col_start_in_box(r.p, r.start);
    if (r.kernel_error) {
      ++faults;
      faults_predicted += !inside;
      EXPECT_FALSE(inside) << "a load that faulted has its start inside the bounding box";
      continue;
    }
    EXPECT_TRUE(inside) << "a load that ran has its start outside the bounding box";
    const std::vector<unsigned char> global = tmakit_test::probe_global_image(r.p, tmakit::smem_model_element_bytes(r.p));
    std::vector<unsigned char> smem;
    ASSERT_TRUE(tmakit::smem_model_im2col_load(r.p, global, r.start, r.offsets, smem, static_cast<unsigned char>(tmakit_test::kProbeFill)));
    const auto want = tmakit_test::image_words(smem, tmakit_test::kProbeFill);
    EXPECT_EQ(want, r.words) << "model differs from the H100's shared memory";
    ++compared;
  }
  std::printf("im2col model: %d recorded loads byte-exact; %d / %d faulting loads predicted (start outside "
              "the bounding box); validate agrees with the driver on %d / %zu maps\n",
              compared, faults_predicted, faults, validate_agrees, recs.size());
  EXPECT_GE(compared, 200);
  EXPECT_GE(faults, 50);
}

}  // namespace
