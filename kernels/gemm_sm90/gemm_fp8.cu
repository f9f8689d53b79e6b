// The GEMM's FP8 kernel forms (forms.cuh): A e4m3, B e4m3 or e5m2, both K-major, C and D bf16, the
// K blocks' products promoted into fp32 registers or not (GemmArgs::fast_accumulation), scaled per
// block as they are (GemmArgs::a_scales, b_scales) or by per-tensor scales at the end.
#include "kernels/gemm_sm90/forms.cuh"

namespace tmakit::gemm_sm90 {

template <Inputs In>
KernelForm form_by_promotion(bool promote, bool block_scales, bool split_k, const FormChoice& c) {
  if (block_scales) return form_by_cluster<In, DataType::bfloat16, false, false, true, true>(split_k, c);
  return promote ? form_by_cluster<In, DataType::bfloat16, false, false, true>(split_k, c)
                 : form_by_cluster<In, DataType::bfloat16, false, false, false>(split_k, c);
}
KernelForm pick_form_fp8(Inputs in, bool promote, bool block_scales, bool split_k, const FormChoice& c) {
  return in == Inputs::e4m3_e5m2 ? form_by_promotion<Inputs::e4m3_e5m2>(promote, block_scales, split_k, c)
                                 : form_by_promotion<Inputs::e4m3_e4m3>(promote, block_scales, split_k, c);
}

}  // namespace tmakit::gemm_sm90
