// `bench_collectives OUT.csv probe [samples]`: an experiment that can say where tmakit's all-gather
// loses bandwidth on 4 GPUs (docs/collectives.md, "Probe"). Part of bench_collectives.cu (included
// after what it uses there: Bench, shape_for, nccl_op). One run, every rank, at 256 MiB and 1 GiB (the
// gathered tensor), side by side on the same NCCL windows, in this order (nccl, tmakit, then the
// copy engines, whose rows a faulting copy would end):
//   ce_peer_d    the copy engine: each rank copies its chunk into the output of rank + d only
//                (cudaMemcpyAsync to that rank's load/store-accessible window address): one
//                direction of one pair per GPU at a time (d = 1 .. world - 1)
//   ce_all       the copy engines to every peer at once (one stream per peer, plus the own copy on
//                another): an all-gather made of copies
//   nccl         ncclAllGather
//   tmakit       the pushed all-gather under each store order (gather_schedule.hpp): every_peer
//                (today's, also at 16 blocks, the size table's reference), rotated, peer_groups,
//                peers_in_turn, each at 24 and 48 blocks (multiples of 3: peer_groups' 3 groups
//                get as many blocks each)
// For each form x size: the median of `samples` timed samples (RankTimer: the slowest rank), the
// bus bandwidth (nccl-tests' all-gather definition; only for the forms that make a whole
// all-gather) and the bytes this GPU sent per second ("egress": per direction per GPU); once, its
// output compared word for word with NCCL's all-gather of the same input (ce_peer_d: the one slice
// it writes); and the NVLink data counters of every link of every GPU read before and after a few
// more calls (NVML): per call, the min / max / mean over links of the bytes sent and received, and
// the sum over one GPU's links against the bytes the form sends (sent_ratio). Rank 0 writes
// OUT.csv and prints a summary; every rank's per-link counts go to the text output.
#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace {

// A rank- and position-dependent pattern, so that a byte in the wrong place differs.
__global__ void probe_fill(std::uint64_t* p, std::uint64_t n, std::uint64_t rank) {
  for (std::uint64_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    std::uint64_t x = i + (rank << 56) + 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    p[i] = x ^ (x >> 31);
  }
}

__global__ void probe_count_diff(const std::uint64_t* a, const std::uint64_t* b, std::uint64_t n,
                                 unsigned long long* diff) {
  unsigned long long c = 0;
  for (std::uint64_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) c += a[i] != b[i];
  if (c) atomicAdd(diff, c);
}

constexpr int kProbeMaxLinks = 32;

// Per-link NVLink payload bytes of one GPU over a counted stretch, per call.
struct LinkCounts {
  double tx[kProbeMaxLinks] = {}, rx[kProbeMaxLinks] = {};
};

struct ProbeRow {
  std::string form;
  std::uint64_t size = 0;
  int blocks = 0;
  double median_us = 0, busbw = 0, egress = 0;
  long long mismatched_words = -1;  // max over ranks; -1: not checked
  bool counted = false;             // the NVLink counters were read
  double tx_min = 0, tx_max = 0, tx_mean = 0, rx_min = 0, rx_max = 0, rx_mean = 0, sent_ratio = 0;
};

struct Probe {
  Bench& b;
  tmakit_bench::Nvml& nvml;
  unsigned links = 0;
  bool counters = false;
  cudaStream_t peer_st[tmakit::kMaxPeers] = {};
  cudaEvent_t fork{}, join[tmakit::kMaxPeers] = {};
  std::uint64_t* ref = nullptr;  // NCCL's all-gather output
  unsigned long long* diff = nullptr;
  LinkCounts* counts_d = nullptr;  // every rank's counts, gathered
  std::vector<ProbeRow> rows;

  int world() const { return b.comm->world(); }
  int rank() const { return b.comm->rank(); }
  void barrier() { b.timer.max_over_ranks(0); }

  // rank 0's message, once
  template <class... A>
  void say(const char* fmt, A... a) {
    if (rank() == 0) std::printf(fmt, a...);
    std::fflush(stdout);
  }

  // The chunk of this rank into rank (rank + d)'s output, by the copy engine, on stream `st`.
  void ce_copy(int d, std::uint64_t size, cudaStream_t st) {
    const std::uint64_t chunk = size / world();
    const int to = (rank() + d) % world();
    auto* dst = reinterpret_cast<char*>(b.out.view.base[to]) + chunk * rank();
    CK(cudaMemcpyAsync(dst, b.in.ptr, chunk, cudaMemcpyDeviceToDevice, st));
  }
  // Every peer on its own stream, the own copy on the timer's: forked from and joined into it.
  void ce_all(std::uint64_t size) {
    CK(cudaEventRecord(fork, b.timer.st));
    for (int d = 1; d < world(); ++d) {
      CK(cudaStreamWaitEvent(peer_st[d], fork));
      ce_copy(d, size, peer_st[d]);
      CK(cudaEventRecord(join[d], peer_st[d]));
    }
    ce_copy(0, size, b.timer.st);
    for (int d = 1; d < world(); ++d) CK(cudaStreamWaitEvent(b.timer.st, join[d]));
  }

  // Words of out[offset, offset + bytes) that differ from NCCL's; the most of any rank.
  long long compare(std::uint64_t offset, std::uint64_t bytes) {
    CK(cudaMemsetAsync(diff, 0, sizeof *diff, b.timer.st));
    probe_count_diff<<<264, 512, 0, b.timer.st>>>(
        reinterpret_cast<const std::uint64_t*>(static_cast<const char*>(b.out.ptr) + offset),
        reinterpret_cast<const std::uint64_t*>(reinterpret_cast<const char*>(ref) + offset), bytes / 8, diff);
    CK(cudaGetLastError());
    unsigned long long h = 0;
    CK(cudaMemcpyAsync(&h, diff, sizeof h, cudaMemcpyDeviceToHost, b.timer.st));
    CK(cudaStreamSynchronize(b.timer.st));
    return static_cast<long long>(b.timer.max_over_ranks(static_cast<double>(h)));
  }

  // Poisons the output, runs op once, compares [offset, offset + bytes) with NCCL's.
  long long check(const std::function<void()>& op, std::uint64_t size, std::uint64_t offset, std::uint64_t bytes) {
    CK(cudaMemsetAsync(b.out.ptr, 0xa5, size, b.timer.st));
    CK(cudaStreamSynchronize(b.timer.st));
    barrier();  // no rank writes into an output before its owner has poisoned it
    op();
    CK(cudaStreamSynchronize(b.timer.st));
    barrier();  // every rank's copies into this one are complete
    return compare(offset, bytes);
  }

  bool read_links(std::vector<unsigned long long>& tx, std::vector<unsigned long long>& rx, int* why) {
    return nvml.nvlink_kib(links, tx, rx, why);
  }

  // NVLink payload bytes per link and call around `reps` calls of op; summary over every GPU's links.
  void count_links(const std::function<void()>& op, int reps, double sent_per_call, ProbeRow& row) {
    if (!counters) return;
    std::vector<unsigned long long> tx0, rx0, tx1, rx1;
    int why = 0;
    barrier();
    bool ok = read_links(tx0, rx0, &why);
    barrier();
    for (int i = 0; i < reps; ++i) op();
    CK(cudaStreamSynchronize(b.timer.st));
    barrier();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // let the counters catch up
    ok = read_links(tx1, rx1, &why) && ok;
    LinkCounts mine;
    double tx_sum = 0;
    for (unsigned l = 0; ok && l < links; ++l) {
      mine.tx[l] = 1024.0 * static_cast<double>(tx1[l] - tx0[l]) / reps;
      mine.rx[l] = 1024.0 * static_cast<double>(rx1[l] - rx0[l]) / reps;
      tx_sum += mine.tx[l];
    }
    // Every rank's counts to every rank (an NCCL all-gather of the small records).
    LinkCounts* mine_d = counts_d + rank();
    CK(cudaMemcpyAsync(mine_d, &mine, sizeof mine, cudaMemcpyHostToDevice, b.timer.st));
    NK(ncclAllGather(mine_d, counts_d, sizeof mine, ncclUint8, b.comm->nccl(), b.timer.st));
    std::vector<LinkCounts> all(world());
    CK(cudaMemcpyAsync(all.data(), counts_d, sizeof mine * world(), cudaMemcpyDeviceToHost, b.timer.st));
    CK(cudaStreamSynchronize(b.timer.st));
    const bool all_ok = b.timer.max_over_ranks(ok ? 0 : 1) == 0;
    if (!all_ok) {
      say("  nvlink counters: not read on every rank (NVML return %d on rank 0)\n", why);
      return;
    }
    row.counted = true;
    row.tx_min = row.rx_min = 1e300;
    double tx_total = 0, rx_total = 0;
    for (int r = 0; r < world(); ++r)
      for (unsigned l = 0; l < links; ++l) {
        row.tx_min = std::min(row.tx_min, all[r].tx[l]);
        row.tx_max = std::max(row.tx_max, all[r].tx[l]);
        row.rx_min = std::min(row.rx_min, all[r].rx[l]);
        row.rx_max = std::max(row.rx_max, all[r].rx[l]);
        tx_total += all[r].tx[l];
        rx_total += all[r].rx[l];
      }
    row.tx_mean = tx_total / (world() * links);
    row.rx_mean = rx_total / (world() * links);
    row.sent_ratio = sent_per_call > 0 ? tx_sum / sent_per_call : 0;  // this rank's; rank 0 reports it
    if (rank() == 0)
      for (int r = 0; r < world(); ++r) {
        std::printf("  nvlink %s %llu MiB rank %d tx MB/call:", row.form.c_str(),
                    static_cast<unsigned long long>(row.size / kMiB), r);
        for (unsigned l = 0; l < links; ++l) std::printf(" %.1f", all[r].tx[l] / 1e6);
        std::printf("  rx:");
        for (unsigned l = 0; l < links; ++l) std::printf(" %.1f", all[r].rx[l] / 1e6);
        std::printf("\n");
      }
  }

  // Times op (`samples` samples), checks it, counts its links; appends the row.
  // sent: the bytes this GPU sends to the others per call; whole: the form makes a whole all-gather.
  void form(const std::string& name, int blocks, std::uint64_t size, const std::function<void()>& op, double sent,
            bool whole, std::uint64_t check_offset, std::uint64_t check_bytes) {
    ProbeRow row;
    row.form = name;
    row.size = size;
    row.blocks = blocks;
    row.mismatched_words = check(op, size, check_offset, check_bytes);
    const int iters = 1;
    for (int i = 0; i < 2; ++i) b.timer.time_sample(iters, op);  // warm-up
    std::vector<double> t;
    for (int s = 0; s < b.samples; ++s) t.push_back(b.timer.time_sample(iters, op));
    row.median_us = tmakit_bench::median(t);
    row.egress = sent / (row.median_us * 1e-6) / 1e9;
    row.busbw = whole ? static_cast<double>(size) / (row.median_us * 1e-6) * (world() - 1) / world() / 1e9 : 0;
    const int reps = static_cast<int>(std::clamp<std::uint64_t>(2048 * kMiB / size, 2, 16));
    count_links(op, reps, sent, row);
    say("%-26s %5llu MiB blocks %3d: median %9.1f us  bus %7.1f GB/s  egress %7.1f GB/s  mismatched words %lld%s\n",
        name.c_str(), static_cast<unsigned long long>(size / kMiB), blocks, row.median_us, row.busbw, row.egress,
        row.mismatched_words, row.counted ? "" : "  (no link counts)");
    if (row.counted)
      say("  link bytes/call over %d GPUs x %u links: tx min %.3g max %.3g mean %.3g, rx min %.3g max %.3g mean %.3g; "
          "rank 0 sent %.3f of its bytes over NVLink per its counters\n",
          world(), links, row.tx_min, row.tx_max, row.tx_mean, row.rx_min, row.rx_max, row.rx_mean, row.sent_ratio);
    rows.push_back(row);
    csv_row(row);
  }

  void run_size(std::uint64_t size) {
    const int w = world();
    const std::uint64_t chunk = size / w;
    // NCCL's all-gather of this input: the reference of every form.
    nccl_op(b, tmakit::CollectiveKind::all_gather, size);
    CK(cudaStreamSynchronize(b.timer.st));
    barrier();
    CK(cudaMemcpy(ref, b.out.ptr, size, cudaMemcpyDeviceToDevice));
    barrier();
    form("nccl", 0, size, [&] { nccl_op(b, tmakit::CollectiveKind::all_gather, size); },
         static_cast<double>(chunk) * (w - 1), true, 0, size);
    struct Variant {
      tmakit::GatherSchedule schedule;
      int blocks;
    };
    const Variant variants[] = {{tmakit::GatherSchedule::every_peer, 16},   {tmakit::GatherSchedule::every_peer, 24},
                                {tmakit::GatherSchedule::rotated, 24},      {tmakit::GatherSchedule::peer_groups, 24},
                                {tmakit::GatherSchedule::peers_in_turn, 24}, {tmakit::GatherSchedule::every_peer, 48},
                                {tmakit::GatherSchedule::rotated, 48},      {tmakit::GatherSchedule::peer_groups, 48},
                                {tmakit::GatherSchedule::peers_in_turn, 48}};
    for (const Variant& v : variants) {
      tmakit::CollectiveShape s = shape_for(tmakit::CollectiveKind::all_gather, size, w, v.blocks, Pipe{});
      s.schedule = v.schedule;
      tc::CollectiveOp op;
      const std::string name = std::string("tmakit_") + tmakit::gather_schedule_name(v.schedule);
      if (!tc::prepare(*b.comm, s, b.in, b.out, &op)) {
        say("skip %s at %d blocks: %s\n", name.c_str(), v.blocks, op.refusals.empty() ? "" : op.refusals[0].c_str());
        continue;
      }
      form(name, v.blocks, size, [&] { CK(tc::launch(*b.comm, op, b.timer.st)); }, static_cast<double>(chunk) * (w - 1),
           true, 0, size);
    }
    if (!ce_ok) return;  // the copy engines last: a copy that faults ends the run, keeping the rows above
    for (int d = 1; d < w; ++d) {
      const std::uint64_t from = static_cast<std::uint64_t>((rank() - d + w) % w);
      form("ce_peer_" + std::to_string(d), 0, size, [&, d] { ce_copy(d, size, b.timer.st); },
           static_cast<double>(chunk), false, from * chunk, chunk);
    }
    form("ce_all", 0, size, [&] { ce_all(size); }, static_cast<double>(chunk) * (w - 1), true, 0, size);
  }

  // Whether every rank's copy engine takes a peer's window address (a 4 KiB trial copy).
  bool ce_ok = false;
  void try_ce() {
    const int to = (rank() + 1) % world();
    cudaError_t e = cudaMemcpyAsync(reinterpret_cast<char*>(b.out.view.base[to]), b.in.ptr, 4096,
                                    cudaMemcpyDeviceToDevice, b.timer.st);
    if (e == cudaSuccess) e = cudaStreamSynchronize(b.timer.st);
    if (e != cudaSuccess) cudaGetLastError();
    ce_ok = b.timer.max_over_ranks(e == cudaSuccess ? 0 : 1) == 0;
    say("copy engine into a peer's window: %s (rank 0: %s)\n", ce_ok ? "works" : "FAILS, copy-engine forms skipped",
        cudaGetErrorString(e));
  }

  // Rank 0 writes the header at the start and each row as it is measured (a run cut short keeps
  // what it measured).
  std::string csv;
  void csv_header() const {
    if (rank() != 0) return;
    if (FILE* f = std::fopen(csv.c_str(), "w")) {
      std::fprintf(f, "form,gpus,size_bytes,blocks,median_us,busbw_gbs,egress_gbs,mismatched_words,link_counts,"
                      "link_tx_min_b,link_tx_max_b,link_tx_mean_b,link_rx_min_b,link_rx_max_b,link_rx_mean_b,"
                      "rank0_sent_ratio,samples\n");
      std::fclose(f);
    }
  }
  void csv_row(const ProbeRow& r) const {
    if (rank() != 0) return;
    if (FILE* f = std::fopen(csv.c_str(), "a")) {
      std::fprintf(f, "%s,%d,%llu,%d,%.2f,%.2f,%.2f,%lld,%d,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.4f,%d\n", r.form.c_str(),
                   world(), static_cast<unsigned long long>(r.size), r.blocks, r.median_us, r.busbw, r.egress,
                   r.mismatched_words, r.counted ? 1 : 0, r.tx_min, r.tx_max, r.tx_mean, r.rx_min, r.rx_max, r.rx_mean,
                   r.sent_ratio, b.samples);
      std::fclose(f);
    }
  }

  // The lines a reader needs first: each size's forms by egress, against NCCL's.
  void summary() const {
    if (rank() != 0) return;
    for (std::uint64_t size : {256 * kMiB, 1024 * kMiB}) {
      double nccl = 0;
      for (const ProbeRow& r : rows)
        if (r.size == size && r.form == "nccl") nccl = r.egress;
      std::printf("summary %llu MiB (egress GB/s per GPU; x NCCL):", static_cast<unsigned long long>(size / kMiB));
      for (const ProbeRow& r : rows)
        if (r.size == size)
          std::printf(" %s%s%s %.1f (%.2fx)%s;", r.form.c_str(), r.blocks ? "@" : "",
                      r.blocks ? std::to_string(r.blocks).c_str() : "", r.egress, nccl > 0 ? r.egress / nccl : 0.0,
                      r.mismatched_words == 0 ? "" : " WRONG");
      std::printf("\n");
    }
    long long wrong = 0;
    for (const ProbeRow& r : rows) wrong += r.mismatched_words != 0;
    std::printf("summary: %zu forms x sizes, %lld not equal to NCCL's all-gather\n", rows.size(), wrong);
  }
};

void run_probe(Bench& b, const std::string& csv, tmakit_bench::Nvml& nvml) {
  Probe p{b, nvml};
  const std::uint64_t max_size = 1024 * kMiB;
  CK(cudaMalloc(&p.ref, max_size));
  CK(cudaMalloc(&p.diff, sizeof *p.diff));
  CK(cudaMalloc(&p.counts_d, sizeof(LinkCounts) * p.world()));
  CK(cudaEventCreateWithFlags(&p.fork, cudaEventDisableTiming));
  for (int d = 1; d < p.world(); ++d) {
    CK(cudaStreamCreateWithFlags(&p.peer_st[d], cudaStreamNonBlocking));
    CK(cudaEventCreateWithFlags(&p.join[d], cudaEventDisableTiming));
  }
  probe_fill<<<264, 512>>>(static_cast<std::uint64_t*>(b.in.ptr), max_size / 8, static_cast<std::uint64_t>(p.rank()));
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  p.links = std::min<unsigned>(nvml.nvlinks(), kProbeMaxLinks);
  std::vector<unsigned long long> tx, rx;
  int why = 0;
  const bool readable = p.read_links(tx, rx, &why);
  p.counters = p.b.timer.max_over_ranks(readable ? 0 : 1) == 0;
  if (p.counters)
    p.say("probe: %d GPUs, %u NVLinks on rank 0, NVLink data counters read per link\n", p.world(), p.links);
  else
    p.say("probe: %d GPUs, %u NVLinks on rank 0, NVLink data counters NOT readable: no link counts (NVML return %d "
          "on rank 0)\n",
          p.world(), p.links, why);
  p.try_ce();
  p.csv = csv;
  p.csv_header();
  for (std::uint64_t size : {256 * kMiB, 1024 * kMiB}) p.run_size(size);
  p.summary();
  if (p.rank() == 0) std::printf("wrote %s (%zu rows)\n", csv.c_str(), p.rows.size());
  CK(cudaStreamSynchronize(b.timer.st));
  for (int d = 1; d < p.world(); ++d) {
    cudaStreamDestroy(p.peer_st[d]);
    cudaEventDestroy(p.join[d]);
  }
  cudaEventDestroy(p.fork);
  cudaFree(p.counts_d);
  cudaFree(p.diff);
  cudaFree(p.ref);
}

}  // namespace
