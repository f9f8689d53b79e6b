// Compile-only check of the device layer for sm_90a, sm_100a and sm_120a (tests/CMakeLists.txt,
// target tmakit_device_compile_check, part of the default build). Blackwell is compile-only: no
// Blackwell GPU has run this code. Every public device API is instantiated, with the watchdog on
// (its larger form); test_mbarrier.cu covers the watchdog-off form for sm_90a.
#define TMAKIT_WATCHDOG 1
#include "tmakit/device.cuh"
#include "tmakit/cluster/dsmem_copy.hpp"
#include "tmakit/cluster/rules.hpp"
#include "tmakit/layout/diagnostic.hpp"
#include "tmakit/plan/make_problem.hpp"
#include "tmakit/plan/rules.hpp"
#include "tmakit/smem_store/rules.hpp"
#include "tmakit/tensor_map/rules.hpp"

namespace td = tmakit::device;

// The swizzle-mode table's rows against cuda.h's CUtensorMapSwizzle integers.
static_assert(tmakit::swizzle_mode_row(tmakit::Swizzle(CU_TENSOR_MAP_SWIZZLE_NONE)).mode == tmakit::Swizzle::none);
static_assert(tmakit::swizzle_mode_row(tmakit::Swizzle(CU_TENSOR_MAP_SWIZZLE_32B)).mode == tmakit::Swizzle::b32);
static_assert(tmakit::swizzle_mode_row(tmakit::Swizzle(CU_TENSOR_MAP_SWIZZLE_64B)).mode == tmakit::Swizzle::b64);
static_assert(tmakit::swizzle_mode_row(tmakit::Swizzle(CU_TENSOR_MAP_SWIZZLE_128B)).mode == tmakit::Swizzle::b128);
static_assert(tmakit::swizzle_mode_row(tmakit::Swizzle(CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B)).mode ==
              tmakit::Swizzle::b128_atom_32b);
static_assert(tmakit::swizzle_mode_row(tmakit::Swizzle(CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B_FLIP_8B)).mode ==
              tmakit::Swizzle::b128_atom_32b_flip_8b);
static_assert(tmakit::swizzle_mode_row(tmakit::Swizzle(CU_TENSOR_MAP_SWIZZLE_128B_ATOM_64B)).mode ==
              tmakit::Swizzle::b128_atom_64b);
static_assert(CU_TENSOR_MAP_SWIZZLE_128B_ATOM_64B + 1 == tmakit::kSwizzleCount);

__global__ void __cluster_dims__(2, 1, 1)
    tmakit_compile_check_kernel(const std::uint8_t* src, td::TensorMap* maps, tmakit::TensorMapParams p, int* out) {
  __shared__ td::Barrier bar, cbar;
  __shared__ alignas(128) std::uint8_t buf[256];
  __shared__ alignas(128) td::TensorMap staging;
  td::Phase phase, cphase;
  const unsigned rank = cooperative_groups::this_cluster().block_rank();
  if (threadIdx.x == 0) {
    td::init(bar, 1);
    td::init(cbar, 2);
    td::fence_init_cluster();
  }
  cooperative_groups::this_cluster().sync();
  if (threadIdx.x == 0) {
    td::expect_tx(bar, 128);
    td::arrive_expect_tx(bar, 128);
    td::watchdog::expect_bulk_copy(bar, src, 256);
    td::watchdog::expect_tma_load(bar, maps, 256, "u8", 16, 16);
    td::watchdog::expect_note(bar, "compile check");
    cuda::ptx::cp_async_bulk(cuda::ptx::space_shared, cuda::ptx::space_global, buf, src, 256u, td::raw(bar));
    td::arrive(cbar);
    td::arrive_remote(cbar, rank ^ 1u);
  }
  out[0] = td::test_wait(bar, 0) + td::try_wait(bar, 0);
  td::wait(bar, phase);
  td::wait(cbar, cphase, 1000000ull);
  if (threadIdx.x == 0) td::arrive_expect_tx_remote(cbar, rank ^ 1u, 0);  // (a second phase, not awaited)
  bool ok = false;
  const td::AcquiredTensorMap a = td::acquire(td::encode_and_publish(p, &maps[0], &ok));
  if (threadIdx.x < 32) {
    td::TensorMapEdit edit(staging, maps[0]);
    edit.set_global_address(src);
    edit.set_global_dim(1, 64);
    edit.set_global_stride(1, 256);
    const td::AcquiredTensorMap b = td::acquire(edit.publish(&maps[1]));
    out[1] = static_cast<int>(reinterpret_cast<std::uintptr_t>(b.get()));
  }
  out[2] = static_cast<int>(reinterpret_cast<std::uintptr_t>(td::acquire(&maps[0]).get())) + ok + buf[threadIdx.x] +
           static_cast<int>(reinterpret_cast<std::uintptr_t>(a.get())) +
           static_cast<int>(td::ptx_raw::ld_shared_volatile_b64(td::smem_address(bar)));
  // the swizzle-mode table read with a run-time mode
  out[3] = static_cast<int>(tmakit::swizzle_for(p.swizzle).base_alignment() + tmakit::swizzle_span_bytes(p.swizzle) +
                            tmakit::smem_alignment(p.swizzle)) +
           (tmakit::swizzle_name(p.swizzle) != nullptr);
  cooperative_groups::this_cluster().sync();
}

// Cluster copies: multicast pipeline, DSMEM copies, cluster barrier helpers.
__global__ void __cluster_dims__(2, 1, 1)
    tmakit_compile_check_cluster_kernel(const __grid_constant__ tmakit::MulticastPlan plan,
                                        const __grid_constant__ tmakit::DsmemPlan dplan, const CUtensorMap* map, int* out) {
  __shared__ td::MulticastPipeline<2> pipe;
  __shared__ td::Barrier bar, ready;
  __shared__ alignas(1024) std::uint8_t tile[4096], dst[4096];
  const std::uint32_t rank = td::cluster_rank();
  const tmakit::StageRole role = tmakit::stage_role(&plan, 1, rank);
  td::pipeline_init(pipe, role);
  if (threadIdx.x == 0) {
    td::init(bar, dplan.receiver_init_count());
    td::fence_init_cluster();
  }
  td::cluster_arrive_relaxed();
  td::cluster_wait_acquire();
  td::fence_acq_rel_cluster();
  td::init_cluster_barriers([&] { td::init(ready, 1); });
  if (threadIdx.x == 0) {
    td::arm_round(pipe, role, 0);
    td::produce(pipe, role, map, tile, plan.cta[rank].issue.mask, plan.cta[rank].issue.bytes, 0, 0, 0);
    td::dsmem_arm_and_release(bar, ready, dplan, static_cast<std::uint16_t>(1u << (rank ^ 1u)));
    td::expect_tx_remote(bar, rank ^ 1u, 16);
  }
  if (threadIdx.x == 32) td::run_releaser<true>(pipe, role, 0);  // (0 rounds: compiled, not run)
  td::wait_round(pipe, 0);
  td::Phase rph;
  td::dsmem_wait_released(ready, rph);
  td::dsmem_copy(dplan, tile, dst, rank ^ 1u, bar);
  td::Phase ph;
  td::dsmem_wait(bar, ph);
  out[0] = static_cast<int>(td::mapa(dst, rank ^ 1u)) + td::map_to_rank(dst, rank ^ 1u)[0] + td::cluster_size();
  td::pipeline_teardown();
}

// Planned tile loads (load_tile.cuh): a TmaPlan as a parameter, and multicast.
__global__ void __cluster_dims__(2, 1, 1)
    tmakit_compile_check_load_tile_kernel(const __grid_constant__ tmakit::TmaPlan plan, const CUtensorMap* map) {
  __shared__ td::Barrier bar;
  __shared__ alignas(1024) std::uint8_t tile[8192];
  if (threadIdx.x == 0) {
    td::init(bar, 1);
    td::fence_init_cluster();
  }
  cooperative_groups::this_cluster().sync();
  const std::int32_t coord[tmakit::kMaxTileModes] = {};
  if (threadIdx.x == 0) {
    if (plan.multicast_ctas > 1) td::load_tile_multicast(plan, map, tile, bar, coord);
    else td::load_tile(plan, map, tile, bar, coord);
  }
  td::Phase ph;
  td::wait(bar, ph);
  cooperative_groups::this_cluster().sync();
}

// A ring of a run-time stage count freed by its producer's bulk groups (ring.cuh: run_bulk_ring):
// planned loads on the ring's own arm (load_armed_tile), TMA stores out, no empty barriers.
__global__ void tmakit_compile_check_bulk_ring_kernel(const __grid_constant__ tmakit::TmaPlan load,
                                                      const __grid_constant__ tmakit::TmaPlan store,
                                                      const __grid_constant__ CUtensorMap in,
                                                      const __grid_constant__ CUtensorMap out, std::uint32_t stages,
                                                      std::uint32_t jobs) {
  __shared__ td::Barrier full[4];
  __shared__ alignas(1024) std::uint8_t stage[4][8192];
  if (threadIdx.x != 0) return;
  td::Ring<td::kRuntimeStages> ring{full, nullptr, stages};
  ring.init_full();
  td::RingState<td::kRuntimeStages> st = ring.start();
  td::run_bulk_ring<2>(
      ring, st, jobs,
      [&](std::uint32_t j, const td::RingState<td::kRuntimeStages>& r) {
        const std::int32_t c[tmakit::kMaxTileModes] = {static_cast<std::int32_t>(j)};
        td::Barrier& f = ring.arm(r, load.expect_tx_bytes);
        td::load_armed_tile(load, &in, stage[r.index], f, c);
      },
      [&](std::uint32_t j, std::uint32_t s) {
        const std::int32_t c[tmakit::kMaxTileModes] = {static_cast<std::int32_t>(j)};
        td::store_tile(store, &out, stage[s], c);
      });
  td::wait_group<0>();
}

// Rule tables (core/diagnostics.hpp) read in device code with a rule known only at run time, and a
// list whose ok() / errors() follow the table's severities.
__global__ void tmakit_compile_check_rule_tables_kernel(int r, const char** text, int* out) {
  text[0] = tmakit::rule_id(static_cast<tmakit::Rule>(r));
  text[1] = tmakit::rule_text(static_cast<tmakit::PlanRule>(r));
  text[2] = tmakit::rule_fix(static_cast<tmakit::ClusterRule>(r));
  text[3] = tmakit::rule_id(static_cast<tmakit::LayoutRule>(r));
  text[4] = tmakit::rule_id(static_cast<tmakit::SmemStoreRule>(r));
  text[5] = tmakit::rule_text(static_cast<tmakit::DsmemReason>(r));
  tmakit::ClusterDiagnostics d;
  d.add(static_cast<tmakit::ClusterRule>(r), 0, r);
  out[0] = d.ok() + d.errors() + tmakit::is_note(static_cast<tmakit::ClusterRule>(r + 1));
}

// Planned stores and reductions, a tile armed and issued in two halves, and WGMMA (sm_90a only:
// Blackwell has no wgmma).
__global__ void __cluster_dims__(2, 1, 1)
    tmakit_compile_check_planned_kernel(const __grid_constant__ tmakit::TmaPlan plan,
                                        const __grid_constant__ tmakit::TmaPlan store_plan,
                                        const __grid_constant__ tmakit::TmaPlan reduce_plan,
                                        const __grid_constant__ CUtensorMap map, std::uint64_t desc, float* out) {
  __shared__ alignas(1024) unsigned char tile[1024];
  __shared__ td::Barrier bar;
  if (threadIdx.x == 0) {
    td::init(bar, 1);
    td::fence_init_cluster();
  }
  cooperative_groups::this_cluster().sync();
  const std::int32_t coord[tmakit::kMaxTileModes] = {};
  if (threadIdx.x == 0) {
    td::arm_tile(plan, &map, bar);
    td::issue_tile_multicast(plan, &map, tile, bar, coord);
  }
  td::Phase ph;
  td::wait(bar, ph);
  if (threadIdx.x == 0) {
    td::store_tile(store_plan, &map, tile, coord);
    td::reduce_tile<td::ReduceOp::add>(reduce_plan, &map, tile, coord);
    td::commit_group();
    td::wait_group<0>();
  }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900
  float acc[128];
  for (float& a : acc) a = 0.0f;
  td::wgmma::fence();
  td::wgmma::mma<tmakit::DataType::bfloat16, 256, 0, 1>(acc, desc, desc, false);
  td::wgmma::commit_group();
  td::wgmma::wait_group<0>();
  td::wgmma::fence_operands(acc);
  // The n64 SS form and the RS form (A from registers: an accumulator's first k16 step as bf16 bits).
  float acc64[32];
  std::uint16_t bits[32];
  for (int i = 0; i < 32; ++i) bits[i] = static_cast<std::uint16_t>(acc[i] != 0.0f);
  std::uint32_t a[4];
  td::wgmma::a_fragment<0>(bits, a);
  td::wgmma::fence();
  td::wgmma::mma<tmakit::DataType::float16, 64, 0, 0>(acc64, desc, desc, false);
  td::wgmma::mma_rs<tmakit::DataType::bfloat16, 64, 1>(acc64, a, desc, true);
  td::wgmma::mma_rs<tmakit::DataType::float16, 128, 0>(*reinterpret_cast<float(*)[64]>(acc), a, desc, true);
  td::wgmma::commit_group();
  td::wgmma::wait_group<0>();
  td::wgmma::fence_operands(acc64);
  td::wgmma::fence_operands(a);
  out[threadIdx.x] = acc[threadIdx.x % 128] + acc64[threadIdx.x % 32];
#else
  (void)desc;
  (void)out;
#endif
  cooperative_groups::this_cluster().sync();
}

// Compile-time copy programs (copy_program.cuh) of a fixed-shape plan, multicast to a cluster of two
// and plain, issued on the one ring (ring.cuh) with its per-warpgroup release; the PTX families
// beside them (named barriers, setmaxnreg on sm_90a, ex2).
constexpr tmakit::TmaPlan compile_check_shape(std::uint32_t multicast) {
  tmakit::GlobalTensor g;
  g.dtype = tmakit::DataType::bfloat16;
  g.address = 1u << 20;
  g.base_alignment = 1024;
  g.layout = tmakit::make_layout(tmakit::IntTuple::make(4096, 4096), tmakit::IntTuple::make(4096, 1));
  tmakit::SwizzledLayout s;
  s.swizzle = tmakit::swizzle_for(tmakit::Swizzle::b128);
  s.layout = tmakit::make_layout(tmakit::IntTuple::make(128, 64), tmakit::IntTuple::make(64, 1));
  tmakit::TileExtents t;
  t.modes = 2;
  t.extent[0] = 128;
  t.extent[1] = 64;
  tmakit::PlanOptions o;
  o.fixed_shape = true;
  o.cluster[0] = multicast;
  o.multicast_dim = multicast > 1 ? 0 : -1;
  return tmakit::plan_shape(tmakit::plan_tile(g, s, t, o).plan);
}
inline constexpr tmakit::TmaPlan kCheckShape = compile_check_shape(1);
inline constexpr tmakit::TmaPlan kCheckShapeMulticast = compile_check_shape(2);
__global__ void __cluster_dims__(2, 1, 1) tmakit_compile_check_copy_program_kernel(const __grid_constant__ CUtensorMap map,
                                                                                   float* out) {
  using Plain = td::CopyProgram<kCheckShape>;
  using Shared = td::CopyProgram<kCheckShapeMulticast>;
  static_assert(Plain::kCopies == 1 && Shared::kCopies == 1 && Shared::kSharers == 2 && Plain::kBytes == 16384);
  __shared__ alignas(1024) unsigned char stage[2][16384];
  __shared__ td::Ring<2> ring;
  td::cluster_init_ring(ring, 2, [] {});
  td::wait_for_prior_grids();
  td::RingState<2> st;
  if (threadIdx.x == 0) {
    const Shared::Share share = Shared::share();
    for (int k = 0; k < 2; ++k, ++st) {
      ring.wait_free(st);
      td::Barrier& full = ring.arm(st, Plain::kBytes + Shared::kBytes);
      Plain::issue(&map, stage[st.index], full, Plain::Share{}, 0, k);
      Shared::issue(&map, stage[st.index], full, share, 1, k);
    }
    td::allow_dependent_grids();
  }
  const td::RingRelease<2, 2> release(ring, threadIdx.x % 128);
  td::RingState<2> c;
  for (int k = 0; k < 2; ++k, ++c) {
    ring.wait_full(c);
    out[threadIdx.x] += static_cast<float>(stage[c.index][threadIdx.x]);
    release.release(ring, c);
  }
  td::named_barrier_sync(1, 64);
  out[0] = td::ex2_approx_ftz(out[1]);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900
  if (threadIdx.x < 128) td::setmaxnreg_dec<40>();
  else td::setmaxnreg_inc<232>();
#endif
  td::cluster_sync();
}

// Host side of the watchdog API.
[[maybe_unused]] static cudaError_t tmakit_compile_check_host() { return td::watchdog::set_bound_ns(200000000ull); }
