// Host time of the store planner per case: the GPU cases of tests/gpu/test_smem_store.cu and the
// docs' worked example. Prints the median microseconds per plan of 15 samples, each planning the
// case 20 times: "search" is the plan itself (SmemStoreOptions::suggest = false), "with fixes" adds
// the search for computed fixes (other swizzles, wider tcgen05 repetitions: whole re-plans, run only
// when the plan has conflicts or a narrow width). "stack" is the deepest stack use of one plan with
// fixes, in KiB: the plan runs on a thread whose (pre-painted) stack is then scanned.
//   build/bench/bench_smem_store
#include <pthread.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

#include "tmakit/smem_store/plan.hpp"

using namespace tmakit;

namespace {

template <class T>
inline void keep(T const& v) {
  asm volatile("" : : "r,m"(v) : "memory");
}

struct Case {
  const char* name;
  StoreSource src;
  StoreDestination dst;
};

double median_us(const Case& c, bool suggest) {
  SmemStoreOptions o;
  o.suggest = suggest;
  std::vector<double> samples;
  for (int s = 0; s < 15; ++s) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < 20; ++i) {
      const SmemStorePlan p = plan_smem_store(c.src, c.dst, o);
      keep(p.total_wavefronts);
    }
    const auto t1 = std::chrono::steady_clock::now();
    samples.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / 20);
  }
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

struct StackProbe {
  const Case* c;
};

void* plan_on_thread(void* arg) {
  const Case& c = *static_cast<StackProbe*>(arg)->c;
  const SmemStorePlan p = plan_smem_store(c.src, c.dst);
  keep(p.total_wavefronts);
  return nullptr;
}

// Deepest stack use (KiB) of one plan with fixes.
double stack_kib(const Case& c) {
  constexpr std::size_t kSize = 4u << 20;
  std::vector<unsigned char> stack(kSize, 0xA5);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstack(&attr, stack.data(), kSize);
  StackProbe probe{&c};
  pthread_t th;
  if (pthread_create(&th, &attr, plan_on_thread, &probe) != 0) return -1;
  pthread_join(th, nullptr);
  pthread_attr_destroy(&attr);
  std::size_t i = 0;
  while (i < kSize && stack[i] == 0xA5) ++i;
  return static_cast<double>(kSize - i) / 1024.0;
}

}  // namespace

int main() {
  const StoreSource w128 = wgmma_accumulator(128);
  const StoreDestination rm_f32 = smem_destination(
      SwizzledLayout{SwizzleParams{0, 4, 3, true, true},
                     make_layout(IntTuple::make(64, 128), IntTuple::make(128, 1))},
      4);
  const std::vector<Case> cases = {
      {"wgmma m64n128 -> bf16 K-major SW128", w128, gmma_operand(OperandMajor::k, Swizzle::b128, 2, 64, 128).value},
      {"wgmma m64n128 -> bf16 MN-major SW64", w128, gmma_operand(OperandMajor::mn, Swizzle::b64, 2, 64, 128).value},
      {"wgmma m64n128 -> f32 K-major SW128 (conflicts)", w128, gmma_operand(OperandMajor::k, Swizzle::b128, 4, 64, 128).value},
      {"wgmma m64n128 -> f32 row-major (conflicts)", w128, rm_f32},
      {"tcgen05 32x32b.x4 -> 128x128 bf16 SW128", tcgen05_load(FragmentKind::tcgen05_32x32b, 4, 128),
       gmma_operand(OperandMajor::k, Swizzle::b128, 2, 128, 128).value},
      {"tcgen05 32x32b.x128 -> 128x128 bf16 SW128", tcgen05_load(FragmentKind::tcgen05_32x32b, 128, 128),
       gmma_operand(OperandMajor::k, Swizzle::b128, 2, 128, 128).value},
  };
  std::printf("%-48s %8s %11s %6s  %s\n", "case", "search", "with fixes", "stack", "result (us per plan, KiB)");
  for (const Case& c : cases) {
    const SmemStorePlan p = plan_smem_store(c.src, c.dst);
    std::printf("%-48s %8.1f %11.1f %6.0f  %s, %d wavefronts/warp (ideal %d)\n", c.name, median_us(c, false),
                median_us(c, true), stack_kib(c), store_op_ptx(p.op), p.wavefronts[0], p.ideal_wavefronts);
  }
  return 0;
}
