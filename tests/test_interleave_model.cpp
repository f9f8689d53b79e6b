// The shared-memory model of interleaved (16B / 32B) tiled loads against what an H100 wrote.
// tests/data/interleave_h100.txt.gz was recorded by tools/driver_sweep/interleave_probe.cu
// (2026-11-22, NVIDIA H100 80GB HBM3, driver 580.159.04; docs/lab/device.md): each line is one
// driver-made map and box position, and the shared memory the hardware wrote, as runs of 32-bit
// words. Global memory held word k = k + 1 at byte 4k, so each shared word names its source
// (0 = out-of-bounds fill).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "test_data.hpp"
#include "tmakit/tensor_map/derived.hpp"
#include "tmakit/tensor_map/smem_model.hpp"
#include "tmakit/tensor_map/validate.hpp"

namespace {

using tmakit::TensorMapParams;

struct Recorded {
  TensorMapParams p;
  std::int32_t start[5] = {};
  bool encoded = false;
  bool kernel_error = false;
  std::map<std::uint32_t, std::uint32_t> words;  // shared word index -> value (written words only)
};

bool parse(const std::string& line, Recorded& r) {
  tmakit_test::ProbeLine pl;
  if (!tmakit_test::parse_probe_line(line, pl)) return false;
  std::istringstream in(pl.args);
  int dt, il, sw, rank;
  in >> dt >> il >> sw >> rank;
  if (!in || rank < 1 || rank > 5) return false;
  TensorMapParams& p = r.p;
  p = TensorMapParams{};
  p.dtype = static_cast<tmakit::DataType>(dt);
  p.interleave = static_cast<tmakit::Interleave>(il);
  p.swizzle = static_cast<tmakit::Swizzle>(sw);
  p.rank = static_cast<std::uint32_t>(rank);
  p.address = 1u << 20;
  for (int i = 0; i < rank; ++i) in >> p.dims[i];
  for (int i = 0; i < rank - 1; ++i) in >> p.strides[i];
  for (int i = 0; i < rank; ++i) in >> p.box[i];
  for (int i = 0; i < rank; ++i) in >> p.elem_strides[i];
  for (int i = 0; i < rank; ++i) in >> r.start[i];
  if (!in) return false;
  r.encoded = pl.encoded;
  r.kernel_error = pl.kernel_error;
  r.words = std::move(pl.words);
  return true;
}

std::vector<Recorded> load() {
  std::vector<Recorded> out;
  for (const auto& line : tmakit_test::read_gz_lines(tmakit_test::data_path("interleave_h100.txt.gz"))) {
    Recorded r;
    if (parse(line, r)) out.push_back(std::move(r));
  }
  return out;
}

TEST(InterleaveModel, MatchesEveryRecordedH100Load) {
  const auto recs = load();
  ASSERT_GE(recs.size(), 600u) << "tests/data/interleave_h100.txt.gz missing or truncated";
  int compared = 0, interleaved = 0, validate_agrees = 0, encoded = 0;
  for (const auto& r : recs) {
    // The driver made these maps: validate must agree on every decision.
    const bool valid = tmakit::is_valid(r.p);
    validate_agrees += valid == r.encoded;
    EXPECT_EQ(valid, r.encoded) << "validate disagrees with the driver on a recorded interleave case";
    encoded += r.encoded;
    if (!r.encoded || r.kernel_error) continue;  // kernel errors: the probe's 64 KiB buffer overflowed
    // A global image of word k = k + 1, large enough for every case.
    const std::vector<unsigned char> global = tmakit_test::probe_global_image(r.p, tmakit::dim0_unit_bytes(r.p));
    std::vector<unsigned char> smem;
        ASSERT_TRUE(tmakit::smem_model_tiled_load(r.p, global, r.start, smem, {}, static_cast<unsigned char>(tmakit_test::kProbeFill)))
        << "dtype " << int(r.p.dtype) << " il " << int(r.p.interleave) << " rank " << r.p.rank << " dims0 " << r.p.dims[0] << " box0 " << r.p.box[0];
    const auto want = tmakit_test::image_words(smem, tmakit_test::kProbeFill);
    EXPECT_EQ(want, r.words) << "model differs from the H100's shared memory";
    // What was written is also what the barrier counts (checked on silicon by the GPU suite).
    EXPECT_EQ(tmakit::transaction_bytes(r.p), 4 * r.words.size());
    ++compared;
    interleaved += r.p.interleave != tmakit::Interleave::none;
  }
  std::printf("interleave model: %d recorded loads compared byte-exact (%d interleaved); validate agrees "
              "with the driver on %d / %zu decisions (%d encoded)\n",
              compared, interleaved, validate_agrees, recs.size(), encoded);
  EXPECT_GE(compared, 500);
}

// The two measured rules, on one small case each (box {8,4,2} u16 16B-interleaved, rank 3).
TEST(InterleaveModel, Dim0CountsChunksAndDimRankMinus2IsNotTraversed) {
  TensorMapParams p{};
  p.dtype = tmakit::DataType::uint16;
  p.interleave = tmakit::Interleave::b16;
  p.rank = 3;
  p.address = 1u << 20;
  p.dims[0] = 8; p.dims[1] = 5; p.dims[2] = 3;
  p.strides[0] = 48; p.strides[1] = 400;
  p.box[0] = 8; p.box[1] = 4; p.box[2] = 2;
  p.elem_strides[0] = p.elem_strides[1] = p.elem_strides[2] = 1;
  ASSERT_TRUE(tmakit::is_valid(p));
  EXPECT_EQ(tmakit::dim0_unit_bytes(p), 16u);
  EXPECT_EQ(tmakit::interleave_untraversed_dim(p), 1);
  // 8 chunks of 16 B x 1 (dim 1 not traversed) x 2 = 256 B, not 8 x 2 B x 4 x 2 = 128 B.
  EXPECT_EQ(tmakit::transaction_bytes(p), 256u);
  p.interleave = tmakit::Interleave::none;
  EXPECT_EQ(tmakit::transaction_bytes(p), 128u);
}

}  // namespace
