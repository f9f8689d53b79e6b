"""cuda.core: the descriptor of a TensorMapDescriptor (StridedMemoryView.as_tensor_map where the
installed cuda.core has it, else TensorMapDescriptor.from_tiled), read back by a kernel that copies
its __grid_constant__ parameter to global memory, explained with tmakit against the plan."""

import pytest
torch = pytest.importorskip("torch")

import tmakit

from gpu_report import report

cuda_core = pytest.importorskip("cuda.core")

COPY_PARAM = r"""
struct alignas(64) Map { unsigned long long w[16]; };
extern "C" __global__ void copy_param(const __grid_constant__ Map m, unsigned long long* out) {
  if (threadIdx.x < 16) out[threadIdx.x] = m.w[threadIdx.x];
}
"""


def make_descriptor(a: torch.Tensor):
    try:
        from cuda.core import StridedMemoryView
    except ImportError:
        from cuda.core.utils import StridedMemoryView  # where older cuda.core keeps it
    try:
        view = StridedMemoryView.from_dlpack(a, stream_ptr=-1)
    except Exception:
        view = StridedMemoryView(a, stream_ptr=-1)
    if hasattr(view, "as_tensor_map"):
        try:
            return view.as_tensor_map(box_dim=(128, 64))
        except TypeError:
            from cuda.core import TensorMapDescriptorOptions
            return view.as_tensor_map(TensorMapDescriptorOptions(box_dim=(128, 64)))
    from cuda.core import TensorMapDescriptor
    return TensorMapDescriptor.from_tiled(view, box_dim=(128, 64))


def test_tensor_map_descriptor():
    from cuda.core import Device, LaunchConfig, Program, ProgramOptions, launch
    import importlib.metadata as md

    print("\ncuda-core", md.version("cuda-core") if "cuda-core" in {d.metadata["Name"] for d in md.distributions()} else "?")
    dev = Device()
    dev.set_current()
    a = torch.randn(4096, 4096, device="cuda").to(torch.bfloat16)
    try:
        desc = make_descriptor(a)
    except Exception as e:
        pytest.skip(f"this cuda.core makes no tensor map descriptor: {type(e).__name__}: {e}")
    arch = "".join(str(x) for x in dev.compute_capability)
    module = Program(COPY_PARAM, code_type="c++", options=ProgramOptions(arch=f"sm_{arch}")).compile("cubin")
    kernel = module.get_kernel("copy_param")
    out = torch.zeros(16, dtype=torch.int64, device="cuda")
    stream = dev.create_stream()
    launch(stream, LaunchConfig(grid=1, block=32), kernel, desc, out.data_ptr())
    stream.sync()
    plan = tmakit.plan(a, "(128,64):(64,1)", "M=128,K=64")
    check = report("cuda.core TensorMapDescriptor, box (128, 64) bf16", out, plan, armed_bytes=128 * 64 * 2)
    assert tmakit.decode(out).address == a.data_ptr()
    assert tmakit.decode(out).box == [64, 128]
    assert check.copy_bytes == plan.tx_bytes_per_instruction
    # what the kernel received is what tmakit reads out of the descriptor on the host
    assert tmakit.from_cuda_core(desc) == tmakit.to_bytes(out)

    # tmakit's map of the same box as a cuda.core descriptor: the driver's bytes, passed by value
    mine = tmakit.tensor_map(a, box=(128, 64))
    made = tmakit.to_cuda_core(mine, owner=a)  # checks the driver's bytes against tmakit's
    out2 = torch.zeros(16, dtype=torch.int64, device="cuda")
    launch(stream, LaunchConfig(grid=1, block=32), kernel, made, out2.data_ptr())
    stream.sync()
    assert tmakit.to_bytes(out2) == bytes(mine)
