// Cluster plans on the host: the 2x2 GEMM multicast accounting of docs/cluster.md and two DSMEM
// copy plans, printed. Exit status 1 if a plan is not what the docs say.
#include <cstdio>

#include "tmakit/cluster/explain.hpp"
#include "tmakit/cluster/multicast.hpp"
#include "tmakit/cluster/dsmem_copy.hpp"
#include "tmakit/tensor_map/swizzle_modes.hpp"

using namespace tmakit;

int main() {
  // A and B tiles: 128 rows x 64 bf16 (128 B rows, 128B swizzle) = 16384 B each.
  TensorMapParams box;
  box.dtype = DataType::bfloat16;
  box.rank = 2;
  box.dims[0] = 4096;
  box.dims[1] = 4096;
  box.strides[0] = 8192;
  box.box[0] = 64;
  box.box[1] = 128;
  box.swizzle = Swizzle::b128;
  const GemmMulticastPlans g = plan_gemm_multicast(ClusterShape{2, 2, 1}, box, box, MulticastMode::sliced);
  const MulticastPlan plans[2] = {g.a, g.b};
  std::printf("2x2 cluster, sliced multicast, A shared along y, B along x (tile %u B, slice %u B)\n", g.a.tile_bytes,
              g.a.cta[0].issue.bytes);
  std::printf("cta (x,y)  A: mask  rows+  smem+   B: mask  rows+  smem+   senders A|B  fan-in  expect_tx\n");
  for (std::uint32_t r = 0; r < 4; ++r) {
    const ClusterCoord c = g.a.spec.cluster.coord_of(r);
    const MulticastIssue& a = g.a.cta[r].issue;
    const MulticastIssue& b = g.b.cta[r].issue;
    std::printf("%u   (%u,%u)    0x%x  %5u  %5u      0x%x  %5u  %5u     0x%x|0x%x     %u     %u\n", r, c.x, c.y, a.mask,
                a.coord_offset, a.smem_offset, b.mask, b.coord_offset, b.smem_offset, g.a.cta[r].senders,
                g.b.cta[r].senders, g.a.cta[r].fan_in + g.b.cta[r].fan_in, stage_expect_bytes(plans, 2, r));
  }
  std::printf("hand-written expect_tx of one tile on CTA 1:\n");
  for (const ClusterViolation& v : check_armed_bytes(plans, 2, 1, 16384)) std::printf("  %s\n", explain(v).c_str());

  DsmemSpec strided;
  strided.elem_bytes = 4;
  strided.src.rank = 2;
  strided.src.shape[0] = 64;
  strided.src.shape[1] = 32;
  strided.src.stride[0] = 4;
  strided.src.stride[1] = 272;  // padded rows
  strided.dst = compact_region(4, 64, 32);
  const DsmemPlan p = plan_dsmem_copy(strided);
  std::printf("DSMEM 32 rows x 256 B, source pitch 272 B -> compact: %s, %u pieces, tx %u B, %u issuing thread(s): %s\n",
              dsmem_path_name(p.path), p.piece_count, p.tx_bytes, p.issuing_threads, rule_text(p.reason));
  DsmemSpec swz;
  swz.elem_bytes = 2;
  swz.src = compact_region(2, 64, 16);
  swz.dst = compact_region(2, 64, 16);
  swz.dst.swizzle = swizzle_for(Swizzle::b128);
  const DsmemPlan q = plan_dsmem_copy(swz);
  std::printf("DSMEM 16 rows x 128 B plain -> 128B-swizzled: %s, %u B units, %u minimal pieces, tx %u B: %s\n",
              dsmem_path_name(q.path), q.unit_bytes, q.min_pieces, q.tx_bytes, rule_text(q.reason));
  const bool ok = g.a.ok() && g.b.ok() && stage_expect_bytes(plans, 2, 0) == 32768 && p.path == DsmemPath::bulk_multi &&
                  q.path == DsmemPath::st_async;
  return ok ? 0 : 1;
}
