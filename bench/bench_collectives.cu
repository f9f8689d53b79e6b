// tmakit's all-gather and reduce-scatter against NCCL's, side by side on the same buffers (NCCL
// symmetric windows, bf16, rows of 4096 elements), one process per GPU:
//   build/kernels/collectives_sm90/tmakit_ranks N build/bench/bench_collectives out.csv [sizes|sweep|tune|all|probe] [samples]
// sizes: 1 MiB .. 1 GiB (the gathered tensor: all-gather's output, reduce-scatter's input), NCCL
//        and tmakit at 16 blocks (SMs) alternating sample by sample;
// sweep: tmakit at 1 .. 132 blocks at 64 MiB and 256 MiB;
// tune:  tmakit at 16 blocks, 64 MiB .. 1 GiB, with other pipeline shapes (tile rows, stages, lag,
//        push or pull);
// all:   sizes, sweep and tune.
// probe: where the all-gather loses bandwidth on 4 GPUs (collectives_probe.cuh): the copy
//        engines to one peer at a time and to all at once, tmakit's all-gather under each store
//        order (GatherSchedule), NCCL's, with every form's output compared with NCCL's and the
//        NVLink data counters per link around each; its own columns in out.csv (see there).
// A sample is `iters` calls back to back between CUDA events (iters: 64 MiB / size, 1 to 64); its
// time is the slowest rank's (an NCCL max all-reduce of the host values); the median of `samples`
// (default 20) is reported as bus bandwidth = size / time x (N - 1) / N (nccl-tests' definition),
// with the SM clock (NVML) read before and after. Rank 0 prints the table and writes the CSV.
// NVLink multicast stays off (the launcher sets NCCL_NVLS_ENABLE=0 and the others; so does
// Communicator::create).
#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/nvml.hpp"
#include "kernels/collectives_sm90/collectives.hpp"
#include "check.hpp"
#include "rank_timer.hpp"

namespace tc = tmakit::collectives;
using tmakit::CollectiveKind;

namespace {

constexpr std::int64_t kCols = 4096;  // bf16 elements per row: 8 KiB
constexpr std::uint64_t kMiB = 1ull << 20;

struct Bench {
  tc::Communicator* comm;
  tc::Window in, out;
  tmakit_bench::RankTimer& timer;
  int samples;
};

// The pipeline's shape: tile rows (at most), stages, lag (collective_plan.hpp).
struct Pipe {
  int tile_rows = 64, stages = 6, lag = 1;
  bool pull = false;
  int tile_cols = 256;
};

tmakit::CollectiveShape shape_for(CollectiveKind k, std::uint64_t size, int world, int blocks, Pipe p) {
  tmakit::CollectiveShape s;
  s.kind = k;
  s.dtype = tmakit::DataType::bfloat16;
  s.cols = kCols;
  s.rows = static_cast<std::int64_t>(size / world / (kCols * 2));
  s.tile_rows = static_cast<std::int32_t>(std::min<std::int64_t>(p.tile_rows, s.rows));
  s.tile_cols = p.tile_cols;
  s.blocks = blocks;
  s.stages = p.stages;
  s.lag = p.lag;
  s.pull = p.pull;
  return s;
}

struct Row {
  std::string series, collective, impl;
  int world, blocks;
  Pipe pipe;
  std::uint64_t size;
  double median_us, min_us, max_us, busbw;
  unsigned mhz0, mhz1;
  int samples;
};

void nccl_op(Bench& b, CollectiveKind k, std::uint64_t size) {
  const int w = b.comm->world();
  const std::size_t count = size / w / 2;  // bf16 elements per rank
  if (k == CollectiveKind::all_gather)
    NK(ncclAllGather(b.in.ptr, b.out.ptr, count, ncclBfloat16, b.comm->nccl(), b.timer.st));
  else
    NK(ncclReduceScatter(b.in.ptr, b.out.ptr, count, ncclBfloat16, ncclSum, b.comm->nccl(), b.timer.st));
}

// Measures NCCL (when with_nccl) and tmakit at `blocks`, alternating; appends the rows.
void measure(Bench& b, const char* series, CollectiveKind k, std::uint64_t size, int blocks, Pipe pipe, bool with_nccl,
             std::vector<Row>& rows, tmakit_bench::Nvml& nvml) {
  const int w = b.comm->world();
  tc::CollectiveOp op;
  if (!tc::prepare(*b.comm, shape_for(k, size, w, blocks, pipe), b.in, b.out, &op)) {
    if (b.comm->rank() == 0)
      std::printf("skip %s %llu B at %d blocks: %s\n", tmakit::collective_name(k), static_cast<unsigned long long>(size),
                  blocks, op.refusals.empty() ? "" : op.refusals[0].c_str());
    return;
  }
  const int iters = static_cast<int>(std::clamp<std::uint64_t>(64 * kMiB / size, 1, 64));
  auto run_tmakit = [&] { CK(tc::launch(*b.comm, op, b.timer.st)); };
  auto run_nccl = [&] { nccl_op(b, k, size); };
  for (int i = 0; i < 2; ++i) {  // warm-up
    if (with_nccl) b.timer.time_sample(iters, run_nccl);
    b.timer.time_sample(iters, run_tmakit);
  }
  std::vector<double> tn, tt;
  const unsigned mhz0 = nvml.sm_mhz();
  for (int s = 0; s < b.samples; ++s) {
    if (s % 2 == 0) {
      if (with_nccl) tn.push_back(b.timer.time_sample(iters, run_nccl));
      tt.push_back(b.timer.time_sample(iters, run_tmakit));
    } else {
      tt.push_back(b.timer.time_sample(iters, run_tmakit));
      if (with_nccl) tn.push_back(b.timer.time_sample(iters, run_nccl));
    }
  }
  const unsigned mhz1 = nvml.sm_mhz();
  auto row = [&](const char* impl, int blk, const std::vector<double>& t) {
    const double med = tmakit_bench::median(t);
    const double bus = static_cast<double>(size) / (med * 1e-6) * (w - 1) / w / 1e9;
    rows.push_back({series, tmakit::collective_name(k), impl, w, blk, pipe, size, med, *std::min_element(t.begin(), t.end()),
                    *std::max_element(t.begin(), t.end()), bus, mhz0, mhz1, static_cast<int>(t.size())});
    if (b.comm->rank() == 0)
      std::printf("%-5s %-14s %-6s N=%d %6llu MiB blocks %3d pipe %dx%d/%d/%d%s: median %10.1f us  bus %7.1f GB/s  (min "
                  "%.1f max %.1f us, SM %u/%u MHz)\n",
                  series, rows.back().collective.c_str(), impl, w, static_cast<unsigned long long>(size / kMiB), blk,
                  pipe.tile_rows, pipe.tile_cols, pipe.stages, pipe.lag, pipe.pull ? " pull" : "", med, bus, rows.back().min_us, rows.back().max_us, mhz0, mhz1);
  };
  if (with_nccl) row("nccl", 0, tn);
  row("tmakit", blocks, tt);
  std::fflush(stdout);
}

}  // namespace

#include "collectives_probe.cuh"

int main(int argc, char** argv) {
  const std::string csv = argc > 1 ? argv[1] : "bench_collectives.csv";
  const std::string mode = argc > 2 ? argv[2] : "all";
  const int samples = argc > 3 ? std::max(5, std::atoi(argv[3])) : 20;
  std::string err;
  auto comm = tc::join_from_env(&err);
  if (!comm) {
    std::fprintf(stderr, "bench_collectives: %s\n", err.c_str());
    return 1;
  }
  const int w = comm->world(), rank = comm->rank();
  tmakit_bench::RankTimer timer(comm.get());
  Bench b{comm.get(), {}, {}, timer, samples};
  const std::uint64_t max_size = 1024 * kMiB;
  if (!comm->alloc_window(max_size, &b.in, &err) || !comm->alloc_window(max_size, &b.out, &err)) {
    std::fprintf(stderr, "bench_collectives: %s\n", err.c_str());
    return 1;
  }
  CK(cudaMemset(b.in.ptr, 0, max_size));
  CK(cudaMemset(b.out.ptr, 0, max_size));
  tmakit_bench::Nvml nvml;
  if (rank == 0) tmakit_bench::print_device_line(w, tc::watchdog_compiled_in());
  std::vector<Row> rows;
  const CollectiveKind kinds[2] = {CollectiveKind::all_gather, CollectiveKind::reduce_scatter};
  if (mode == "sizes" || mode == "all")
    for (CollectiveKind k : kinds)
      for (std::uint64_t size = kMiB; size <= max_size; size *= 2) measure(b, "sizes", k, size, 16, Pipe{}, true, rows, nvml);
  if (mode == "sweep" || mode == "all") {
    const int sms[] = {1, 2, 4, 8, 12, 16, 24, 32, 48, 64, 96, 132};
    for (CollectiveKind k : kinds)
      for (std::uint64_t size : {64 * kMiB, 256 * kMiB})
        for (int n : sms) measure(b, "sweep", k, size, n, Pipe{}, false, rows, nvml);
  }
  if (mode == "tune" || mode == "all") {
    // Tiles of 64 x 256 (512-byte box rows) and of whole rows (4 or 8 x 4096: the planner cuts a
    // row into 16 pieces of 256, one contiguous 32 or 64 KiB box).
    const Pipe pipes[] = {{64, 6, 2, false}, {64, 6, 3, false}, {64, 4, 1, false}, {32, 12, 2, false},
                          {128, 3, 1, false},  {64, 6, 1, true},  {64, 6, 2, true},
                          {4, 6, 1, false, 4096}, {4, 6, 1, true, 4096}, {8, 3, 1, false, 4096},
                          {8, 3, 1, true, 4096}};
    for (CollectiveKind k : kinds)
      for (std::uint64_t size : {64 * kMiB, 256 * kMiB, 1024 * kMiB})
        for (const Pipe& p : pipes) measure(b, "tune", k, size, 16, p, false, rows, nvml);
  }
  if (mode == "probe") run_probe(b, csv, nvml);
  if (rank == 0 && mode != "probe") {
    FILE* f = std::fopen(csv.c_str(), "w");
    if (f) {
      std::fprintf(f, "series,collective,impl,gpus,size_bytes,blocks,tile_rows,tile_cols,stages,lag,pull,median_us,min_us,max_us,busbw_gbs,sm_mhz_before,sm_mhz_after,samples\n");
      for (const Row& r : rows)
        std::fprintf(f, "%s,%s,%s,%d,%llu,%d,%d,%d,%d,%d,%d,%.2f,%.2f,%.2f,%.2f,%u,%u,%d\n", r.series.c_str(), r.collective.c_str(),
                     r.impl.c_str(), r.world, static_cast<unsigned long long>(r.size), r.blocks, r.pipe.tile_rows, r.pipe.tile_cols,
                     r.pipe.stages, r.pipe.lag, r.pipe.pull ? 1 : 0, r.median_us, r.min_us, r.max_us, r.busbw, r.mhz0,
                     r.mhz1, r.samples);
      std::fclose(f);
      std::printf("wrote %s (%zu rows)\n", csv.c_str(), rows.size());
    }
  }
  CK(cudaStreamSynchronize(b.timer.st));
  comm->free_window(b.out);
  comm->free_window(b.in);
  return 0;
}
