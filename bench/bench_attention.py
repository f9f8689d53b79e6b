#!/usr/bin/env python3
"""tmakit's sm_90a attention forward (kernels/attention_sm90) against PyTorch's
torch.nn.functional.scaled_dot_product_attention, side by side in one process, on the same tensors.

For each (seqlen, head dim, causal) -- 16k tokens per batch (batch = tokens / seqlen), 16 heads,
bf16 Q, K, V of shape (B, S, H, D) contiguous -- it times SDPA with the cuDNN backend and with the
flash backend (each forced by torch.nn.attention.sdpa_kernel; a backend that refuses a shape is
recorded as refused) and tmakit with P through shared memory and P in registers, each in two grid
forms: one CTA per tile and persistent (--grids picks) (through
libtmakit_attention_capi.so, bench/attention_capi.cu, loaded with ctypes), all on one CUDA stream
and timed with CUDA events: the median over --samples bursts, after warm-up, each burst long enough
(--burst-ms) for event timing and started behind a GPU sleep so that the launches are queued before
the start event (what is timed is the GPU, not Python's launch overhead). Every output is checked
first; then the bursts are interleaved (--timing): each sample runs one burst of every backend and
path in turn, so that all meet the same clocks (an H100 under this load moves its SM clock by 10 %
and more within a configuration). FLOPs = 4 S^2 D H B
(half for causal). Before timing, each tmakit output is compared once with SDPA's on the same
inputs (max |O - O_sdpa| / max |O_sdpa|, the Frobenius ||O - O_sdpa|| / ||O_sdpa||, and LSE against
a float32 logsumexp on the first rows of the first batch and the last rows of the last); a path whose
output is off does not count in the ratio, so a fast wrong kernel cannot pass. "ratio" is the best
one-CTA-per-tile path over the fastest SDPA backend (as in earlier runs), "ratio_persistent" the best
persistent path's, "persistent_gain" the best persistent path over the best one-CTA-per-tile path,
"ratio_automatic" that of the path and form the launcher picks by default (PSource::automatic and
GridForm::automatic; "automatic_p_source" names the path, smem or registers, "automatic_grid" the
form, per_tile or persistent; the table marks them s / r and p). The SM clock
is read (NVML, else nvidia-smi) before, during (while bursts run) and after each configuration.

Prints one table row per configuration and then a CSV block (header line starting "seqlen,");
the CSV also goes to --csv (default $OUT/attention_bench.csv when OUT is set), written row by row.
tools/plot_attention_bench.py turns the CSV into an SVG.

  python3 bench/bench_attention.py --lib build/bench/libtmakit_attention_capi.so [--quick]
  python3 bench/bench_attention.py --list            # the configurations, no GPU or torch needed
  python3 bench/bench_attention.py --abi-check --lib ...   # the C ABI's refusals, no GPU needed

Head dims 64, 96, 128 and 256 are built; another given with --head-dims is refused by tmakit
(attention.head_dim) and only SDPA is measured for it.
"""
import argparse
import ctypes
import math
import os
import shutil
import statistics
import subprocess
import sys
import time
import warnings

DEFAULT_SEQLENS = [512, 1024, 2048, 4096, 8192, 16384]
QUICK_SEQLENS = [2048, 8192]
BUILT_HEAD_DIMS = (64, 96, 128, 256)

CSV_FIELDS = [
    "seqlen", "batch", "heads", "head_dim", "causal", "gflop",
    "cudnn_tflops", "flash_tflops", "tmakit_smem_tflops", "tmakit_reg_tflops",
    "best_sdpa", "best_tmakit", "ratio",
    "rel_diff_smem", "rel_diff_reg", "rel_diff_flash_vs_cudnn", "rms_diff_smem", "rms_diff_reg", "lse_err_smem",
    "lse_err_reg", "check", "check_smem", "check_reg",
    "cudnn_ms", "flash_ms", "tmakit_smem_ms", "tmakit_reg_ms", "launches_per_burst",
    "tmakit_smem_pers_tflops", "tmakit_reg_pers_tflops", "best_tmakit_persistent", "ratio_persistent", "persistent_gain",
    "rel_diff_smem_pers", "rel_diff_reg_pers", "rms_diff_smem_pers", "rms_diff_reg_pers", "lse_err_smem_pers",
    "lse_err_reg_pers", "check_smem_pers", "check_reg_pers", "tmakit_smem_pers_ms", "tmakit_reg_pers_ms",
    "persistent_ctas", "tiles", "automatic_p_source", "automatic_grid", "ratio_automatic",
    "tmakit_events_vs_host", "sm_mhz_before", "sm_mhz_during_min", "sm_mhz_during_max", "sm_mhz_after", "note",
]
IMPLS = [("cudnn", "SDPA cuDNN"), ("flash", "SDPA flash"), ("tmakit_smem", "tmakit smem-P"),
         ("tmakit_reg", "tmakit reg-P"), ("tmakit_smem_pers", "tmakit smem-P persistent"),
         ("tmakit_reg_pers", "tmakit reg-P persistent")]
# tmakit's paths: (key, p_source, persistent)
TMAKIT_PATHS = [("smem", 0, False), ("reg", 1, False), ("smem_pers", 0, True), ("reg_pers", 1, True)]
PERSISTENT_HEAD_DIMS = (64, 96, 128, 256)


def int_list(text):
    try:
        values = [int(t) for t in text.split(",") if t.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"a comma-separated list of integers, got {text!r}")
    if not values or any(v < 1 for v in values):
        raise argparse.ArgumentTypeError(f"positive integers, got {text!r}")
    return values


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--lib", default=os.environ.get("TMAKIT_ATTENTION_LIB", "build/bench/libtmakit_attention_capi.so"),
                   help="libtmakit_attention_capi.so (default: $TMAKIT_ATTENTION_LIB or build/bench/...)")
    p.add_argument("--quick", action="store_true", help=f"seqlens {QUICK_SEQLENS} only (unless --seqlens), 20 samples")
    p.add_argument("--seqlens", type=int_list, help=f"comma-separated (default {DEFAULT_SEQLENS})")
    p.add_argument("--head-dims", type=int_list, default=list(BUILT_HEAD_DIMS),
                   help="comma-separated (default 64,96,128,256; others: SDPA only, tmakit refuses them)")
    p.add_argument("--causal", choices=["both", "no", "yes"], default="both")
    p.add_argument("--tokens", type=int, default=16384, help="tokens per batch: batch = tokens / seqlen (default 16384)")
    p.add_argument("--heads", type=int, default=16)
    p.add_argument("--samples", type=int, default=None, help="timed bursts per measurement (default 30; --quick 20)")
    p.add_argument("--burst-ms", type=float, default=3.0, help="GPU time per timed burst (default 3 ms)")
    p.add_argument("--warmup", type=int, default=3, help="untimed calls before timing (default 3)")
    p.add_argument("--timing", choices=["interleaved", "sequential"], default="interleaved",
                   help="interleaved (default): each sample times one burst of every backend and path in turn; "
                        "sequential: all of one's bursts, then the next's (the method of the earlier lab entries)")
    p.add_argument("--tolerance", type=float, default=2e-2,
                   help="largest max|O - O_sdpa| / max|O_sdpa| that counts as correct (default 0.02)")
    p.add_argument("--rms-tolerance", type=float, default=1e-2,
                   help="largest ||O - O_sdpa|| / ||O_sdpa|| (Frobenius) that counts as correct (default 0.01)")
    p.add_argument("--lse-tolerance", type=float, default=1e-2, help="largest |LSE - ref| (default 0.01)")
    p.add_argument("--backends", default="cudnn,flash", help="SDPA backends to time (cudnn, flash; default both)")
    p.add_argument("--grids", choices=["both", "present", "persistent"], default="both",
                   help="tmakit's grid forms: one CTA per tile (present), persistent, or both (default)")
    p.add_argument("--csv", default=None, help="CSV file (default $OUT/attention_bench.csv when OUT is set)")
    p.add_argument("--seed", type=int, default=1234)
    p.add_argument("--list", action="store_true", help="print the configurations and exit (no GPU needed)")
    p.add_argument("--abi-check", action="store_true", help="load --lib and check its refusals (no GPU needed)")
    a = p.parse_args(argv)
    if a.seqlens is None:
        a.seqlens = QUICK_SEQLENS if a.quick else DEFAULT_SEQLENS
    if a.samples is None:
        a.samples = 20 if a.quick else 30
    if a.samples < 1 or a.warmup < 1 or a.burst_ms <= 0 or a.tokens < 1 or a.heads < 1:
        p.error("--samples, --warmup, --tokens, --heads must be >= 1 and --burst-ms > 0")
    backends = [b.strip() for b in a.backends.split(",") if b.strip()]
    unknown = [b for b in backends if b not in ("cudnn", "flash")]
    if unknown:
        p.error(f"--backends: cudnn and/or flash, got {unknown}")
    a.backends = backends
    if a.csv is None and os.environ.get("OUT"):
        a.csv = os.path.join(os.environ["OUT"], "attention_bench.csv")
    return a


def configs(a):
    causals = {"both": [False, True], "no": [False], "yes": [True]}[a.causal]
    out = []
    for d in a.head_dims:
        for causal in causals:
            for s in a.seqlens:
                out.append((s, max(1, a.tokens // s), d, causal))
    return out


def flops(seqlen, batch, heads, head_dim, causal):
    f = 4.0 * seqlen * seqlen * head_dim * heads * batch
    return f / 2 if causal else f


def make_inputs(torch, seed, seqlen, batch, heads, head_dim, causal):
    """Q, K, V of one configuration: torch.randn bf16 (B, S, H, D) from a generator seeded by the
    configuration, so that every tool measuring it sees the same tensors."""
    g = torch.Generator(device="cuda").manual_seed(seed + seqlen * 1000 + head_dim * 10 + int(causal))
    shape = (batch, seqlen, heads, head_dim)
    return tuple(torch.randn(shape, device="cuda", dtype=torch.bfloat16, generator=g) for _ in range(3))


# ---------------------------------------------------------------------------------------------
# The C ABI (bench/attention_capi.cu)

class TmakitLib:
    def __init__(self, path):
        self.path = os.path.abspath(path)
        self.lib = ctypes.CDLL(self.path)
        L = self.lib
        L.tmakit_attention_create.argtypes = [ctypes.c_void_p] * 5 + [ctypes.c_int64] * 4 + [
            ctypes.c_int, ctypes.c_int, ctypes.c_float, ctypes.c_char_p, ctypes.c_int]
        L.tmakit_attention_create.restype = ctypes.c_void_p
        L.tmakit_attention_create_grid.argtypes = [ctypes.c_void_p] * 5 + [ctypes.c_int64] * 4 + [
            ctypes.c_int, ctypes.c_int, ctypes.c_float, ctypes.c_int, ctypes.c_int, ctypes.c_char_p, ctypes.c_int]
        L.tmakit_attention_create_grid.restype = ctypes.c_void_p
        if hasattr(L, "tmakit_attention_create_packed"):  # packed sequences (libraries built without: absent)
            L.tmakit_attention_create_packed.argtypes = [ctypes.c_void_p] * 6 + [ctypes.c_int64] * 4 + [
                ctypes.c_int, ctypes.c_int, ctypes.c_float, ctypes.c_int, ctypes.c_int, ctypes.c_char_p, ctypes.c_int]
            L.tmakit_attention_create_packed.restype = ctypes.c_void_p
        L.tmakit_attention_grid.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_int64)]
        L.tmakit_attention_grid.restype = ctypes.c_int
        L.tmakit_attention_launch.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int]
        L.tmakit_attention_launch.restype = ctypes.c_int
        L.tmakit_attention_config.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_int64)]
        L.tmakit_attention_config.restype = ctypes.c_int
        L.tmakit_attention_destroy.argtypes = [ctypes.c_void_p]
        L.tmakit_attention_destroy.restype = None
        L.tmakit_attention_error_string.argtypes = [ctypes.c_int]
        L.tmakit_attention_error_string.restype = ctypes.c_char_p
        L.tmakit_attention_runtime_version.argtypes = []
        L.tmakit_attention_runtime_version.restype = ctypes.c_int

    def create(self, q, k, v, o, lse, batch, seqlen, heads, head_dim, causal, p_source, scale=0.0,
               grid=0, max_ctas=0):
        """A handle, or raises RuntimeError with every reason the launcher gave. grid: 0 one CTA per tile,
        1 persistent, 2 the launcher's choice."""
        err = ctypes.create_string_buffer(4096)
        h = self.lib.tmakit_attention_create_grid(q, k, v, o, lse, batch, seqlen, heads, head_dim, int(causal),
                                                  p_source, scale, int(grid), max_ctas, err, len(err))
        if not h:
            raise RuntimeError(err.value.decode(errors="replace").strip() or "refused (no reason given)")
        return h

    def launch(self, h, stream, count=1):
        e = self.lib.tmakit_attention_launch(h, stream, count)
        if e != 0:
            raise RuntimeError(f"tmakit_attention_launch: {self.lib.tmakit_attention_error_string(e).decode()} ({e})")

    def config(self, h):
        out = (ctypes.c_int64 * 6)()
        self.lib.tmakit_attention_config(h, out)
        return dict(zip(["block_m", "block_n", "stages", "ctas", "smem_bytes", "p_source"], list(out)))

    def grid(self, h):
        out = (ctypes.c_int64 * 3)()
        self.lib.tmakit_attention_grid(h, out)
        return dict(zip(["persistent", "ctas", "tiles"], list(out)))

    def destroy(self, h):
        self.lib.tmakit_attention_destroy(h)


def abi_check(a):
    """The C ABI without a GPU: refusals come back as text, with their rule ids."""
    lib = TmakitLib(a.lib)
    print(f"loaded {lib.path} (CUDA runtime {lib.lib.tmakit_attention_runtime_version()}, linked statically)")
    fake = 1 << 32  # aligned, never dereferenced: every case below is refused before any CUDA call
    failures = 0
    cases = [
        ("head dim 80", dict(head_dim=80, p_source=1), "attention.head_dim"),
        ("seqlen 0", dict(head_dim=64, p_source=1, seqlen=0), "attention.extent"),
        ("p_source 7", dict(head_dim=64, p_source=7), "[attention.p_source] p_source: 0"),
        ("null LSE", dict(head_dim=128, p_source=0, lse=None), "attention.null"),
        ("grid 3", dict(head_dim=64, p_source=1, grid=3), "[attention.grid_form] grid: 0"),
        ("max_ctas without persistent", dict(head_dim=64, p_source=1, max_ctas=4), "attention.max_ctas"),
    ]
    for name, kw, want in cases:
        args = dict(q=fake, k=fake, v=fake, o=fake, lse=fake, batch=1, seqlen=128, heads=2, causal=False)
        args.update(kw)
        try:
            h = lib.create(**args)
            lib.destroy(h)
            print(f"FAIL {name}: accepted")
            failures += 1
        except RuntimeError as e:
            ok = want in str(e)
            failures += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {name}: {str(e).splitlines()[0]}")
    # The one-CTA-per-tile entry point of earlier versions, still exported.
    err = ctypes.create_string_buffer(4096)
    h = lib.lib.tmakit_attention_create(fake, fake, fake, fake, fake, 1, 128, 2, 80, 0, 1, 0.0, err, len(err))
    ok = not h and "attention.head_dim" in err.value.decode(errors="replace")
    failures += not ok
    print(f"{'ok  ' if ok else 'FAIL'} tmakit_attention_create, head dim 80: {err.value.decode(errors='replace').splitlines()[0] if err.value else 'accepted'}")
    # Packed sequences: their offsets are required, and must be in device memory.
    for name, offsets, want in (("packed, no offsets", None, "[attention.cu_seqlens] packed sequences need"),
                                ("packed, offsets not on the device", fake, "[attention.cu_seqlens] the offsets are not")):
        err = ctypes.create_string_buffer(4096)
        h = lib.lib.tmakit_attention_create_packed(fake, fake, fake, fake, fake, offsets, 2, 0, 2, 64, 0, 1, 0.0, 0, 0,
                                                   err, len(err))
        text = err.value.decode(errors="replace")
        ok = not h and want in text
        failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {name}: {text.splitlines()[0] if text else 'accepted'}")
    try:
        lib.launch(None, None, 1)
        print("FAIL launch of a null handle: accepted")
        failures += 1
    except RuntimeError as e:
        print(f"ok   launch of a null handle: {e}")
    return 1 if failures else 0


# ---------------------------------------------------------------------------------------------
# The SM clock: NVML through ctypes (the driver's libnvidia-ml), else nvidia-smi

class Clock:
    def __init__(self, pci_bus_id=None):
        self.handle = None
        self.smi_id = None
        try:
            self.nvml = ctypes.CDLL("libnvidia-ml.so.1")
            if self.nvml.nvmlInit_v2() != 0:
                raise OSError("nvmlInit_v2 failed")
            h = ctypes.c_void_p()
            found = False
            if pci_bus_id:
                found = self.nvml.nvmlDeviceGetHandleByPciBusId_v2(pci_bus_id.encode(), ctypes.byref(h)) == 0
            if not found:
                found = self.nvml.nvmlDeviceGetHandleByIndex_v2(0, ctypes.byref(h)) == 0
            if found:
                self.handle = h
        except (OSError, AttributeError):
            self.handle = None
        if self.handle is None and shutil.which("nvidia-smi"):
            self.smi_id = pci_bus_id or "0"
        self.source = "NVML" if self.handle is not None else ("nvidia-smi" if self.smi_id else "none")

    def _nvml_uint(self, fn, *args):
        v = ctypes.c_uint(0)
        return v.value if getattr(self.nvml, fn)(self.handle, *args, ctypes.byref(v)) == 0 else None

    def _smi(self, field):
        try:
            r = subprocess.run(["nvidia-smi", f"--query-gpu={field}", "--format=csv,noheader,nounits", "-i", self.smi_id],
                               capture_output=True, text=True, timeout=10)
            return r.stdout.strip().splitlines()[0].strip() if r.returncode == 0 and r.stdout.strip() else None
        except (OSError, subprocess.SubprocessError):
            return None

    def sm_mhz(self):
        if self.handle is not None:
            return self._nvml_uint("nvmlDeviceGetClockInfo", 1)  # NVML_CLOCK_SM
        v = self._smi("clocks.sm") if self.smi_id else None
        return int(v) if v and v.isdigit() else None

    def describe(self):
        if self.handle is not None:
            mx = self._nvml_uint("nvmlDeviceGetMaxClockInfo", 1)
            watts = self._nvml_uint("nvmlDeviceGetPowerUsage")
            temp = self._nvml_uint("nvmlDeviceGetTemperature", 0)  # NVML_TEMPERATURE_GPU
            return (f"SM clock now {self.sm_mhz()} MHz (max {mx}), power {watts / 1000 if watts else '?'} W, "
                    f"{temp} C (NVML)")
        if self.smi_id:
            return "SM clock now/max " + str(self._smi("clocks.sm,clocks.max.sm,power.draw,temperature.gpu")) + " (nvidia-smi)"
        return "SM clock: neither NVML nor nvidia-smi found"


def driver_line():
    if shutil.which("nvidia-smi"):
        try:
            r = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,compute_cap,clocks.max.sm",
                                "--format=csv,noheader"], capture_output=True, text=True, timeout=10)
            return r.stdout.strip().splitlines()[0] if r.stdout.strip() else r.stderr.strip()
        except (OSError, subprocess.SubprocessError) as e:
            return f"nvidia-smi failed: {e}"
    return "nvidia-smi not found"


# ---------------------------------------------------------------------------------------------
# The measurement

def fmt(x, spec=".1f", missing="-"):
    return missing if x is None or (isinstance(x, float) and math.isnan(x)) else format(x, spec)


class Bench:
    def __init__(self, a, torch):
        self.a = a
        self.torch = torch
        self.stream = torch.cuda.Stream()
        self.stream_ptr = ctypes.c_void_p(self.stream.cuda_stream)
        props = torch.cuda.get_device_properties(0)
        pci = None
        if all(hasattr(props, f) for f in ("pci_domain_id", "pci_bus_id", "pci_device_id")):
            pci = f"{props.pci_domain_id:08x}:{props.pci_bus_id:02x}:{props.pci_device_id:02x}.0"
        self.clock = Clock(pci)
        self.props = props
        self.sleep = getattr(torch.cuda, "_sleep", None)
        self.sleep_cycles_per_ms = 2.0e6  # refined from the measured clock below

    def warm_up(self):
        """Brings the clock up with 1 s of matmuls and calibrates the sleep kernel's cycles per
        millisecond from the clock it reaches; before the first row."""
        torch = self.torch
        with torch.cuda.stream(self.stream):
            x = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
            t_end = time.perf_counter() + 1.0
            while time.perf_counter() < t_end:
                for _ in range(10):
                    x @ x
                torch.cuda.synchronize()
            del x
        mhz = self.clock.sm_mhz()
        if mhz:
            self.sleep_cycles_per_ms = mhz * 1e3

    def burst_plan(self, fn):
        """Warms fn up and sizes its bursts: (launches per burst, GPU ms per call, host ms per call,
        sleep cycles ahead of a burst)."""
        torch, a = self.torch, self.a
        for _ in range(a.warmup):
            fn()
        torch.cuda.synchronize()
        # One call's GPU time and its host cost, from a short burst.
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        n_est = 3
        start.record(self.stream)
        t0 = time.perf_counter()
        for _ in range(n_est):
            fn()
        host_ms = (time.perf_counter() - t0) * 1e3 / n_est
        end.record(self.stream)
        end.synchronize()
        est_ms = max(start.elapsed_time(end) / n_est, 1e-3)
        n = max(1, min(200, math.ceil(a.burst_ms / est_ms)))
        # The sleep in front of each burst outlasts the host's launching of it, so the whole burst is
        # queued before the start event fires and the events time the GPU alone.
        sleep_cycles = int(min(50.0, 1.5 * n * host_ms + 0.2) * self.sleep_cycles_per_ms)
        return n, est_ms, host_ms, sleep_cycles

    def burst(self, fn, plan, clocks_during=None):
        """GPU ms per call of one timed burst of fn (plan: burst_plan's); the SM clock is read while it
        runs where clocks_during is a list."""
        torch = self.torch
        n, _, _, sleep_cycles = plan
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        if self.sleep is not None:
            self.sleep(sleep_cycles)
        start.record(self.stream)
        for _ in range(n):
            fn()
        end.record(self.stream)
        if clocks_during is not None:
            mhz = self.clock.sm_mhz()
            if mhz:
                clocks_during.append(mhz)
        end.synchronize()
        return start.elapsed_time(end) / n

    def events_vs_host(self, fn, plan, med_ms):
        """One burst timed by the host around two synchronizations, against the events' median: were a
        launch not on the timed stream, the events would see far less than the host does. NaN where the
        host's launching, not the GPU, sets the pace."""
        torch = self.torch
        n, est_ms, host_ms, _ = plan
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        torch.cuda.synchronize()
        wall_ms = (time.perf_counter() - t0) * 1e3 / n
        gpu_bound = est_ms > 3 * host_ms and wall_ms > 0
        return med_ms / wall_ms if gpu_bound else float("nan")

    def time_fns(self, fns, clocks_during):
        """{name: (median ms per call, launches per burst, events / host time of a burst)} for the
        callables in fns, each a median over --samples bursts. Interleaved (--timing, the default): sample
        i times one burst of every callable in turn, the order rotated by one each sample, so that each
        meets the GPU's clock and temperature of the same moments. Sequential: every burst of one
        callable, then the next's (the method of the lab entries before the option existed)."""
        a = self.a
        names = list(fns)
        plans = {name: self.burst_plan(fns[name]) for name in names}
        times = {name: [] for name in names}
        if a.timing == "interleaved":
            for i in range(a.samples):
                k = i % len(names)
                for j, name in enumerate(names[k:] + names[:k]):
                    sample_clock = i % 5 == 2 and j == 0
                    times[name].append(self.burst(fns[name], plans[name], clocks_during if sample_clock else None))
        else:
            for name in names:
                for i in range(a.samples):
                    times[name].append(self.burst(fns[name], plans[name], clocks_during if i % 5 == 2 else None))
        out = {}
        for name in names:
            med = statistics.median(times[name])
            out[name] = (med, plans[name][0], self.events_vs_host(fns[name], plans[name], med))
        return out

    def run_config(self, lib, seqlen, batch, head_dim, causal):
        torch, a = self.torch, self.a
        F = torch.nn.functional
        from torch.nn.attention import SDPBackend, sdpa_kernel

        H = a.heads
        fl = flops(seqlen, batch, H, head_dim, causal)
        row = {f: None for f in CSV_FIELDS}
        row.update(seqlen=seqlen, batch=batch, heads=H, head_dim=head_dim, causal=int(causal), gflop=fl / 1e9)
        notes = []
        clocks_during = []
        row["sm_mhz_before"] = self.clock.sm_mhz()
        q, k, v = make_inputs(torch, a.seed, seqlen, batch, H, head_dim, causal)
        # SDPA reads (B, H, S, D): the same memory, viewed with seqlen and heads swapped.
        qt, kt, vt = (t.transpose(1, 2) for t in (q, k, v))

        def sdpa():
            return F.scaled_dot_product_attention(qt, kt, vt, is_causal=causal)

        backends = {"cudnn": SDPBackend.CUDNN_ATTENTION, "flash": SDPBackend.FLASH_ATTENTION}
        ref = {}
        ms = {}
        bursts = {}
        ratios = []  # events / host time of a burst of tmakit's launches
        timed = {}  # what is timed, by IMPLS key, once every output has been checked

        def sdpa_with(backend):
            def run():
                with sdpa_kernel(backend):
                    return sdpa()
            return run

        for name in a.backends:
            try:
                with sdpa_kernel(backends[name]), warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    try:
                        out = sdpa()
                        torch.cuda.synchronize()
                    except RuntimeError as e:
                        why = [str(w.message).splitlines()[0] for w in caught][:2]
                        raise RuntimeError(str(e).splitlines()[0] + (": " + "; ".join(why) if why else ""))
                    ref[name] = out.transpose(1, 2).float()
                    timed[name] = sdpa_with(backends[name])
            except Exception as e:  # a backend that refuses this shape (or fails) is recorded, not fatal
                notes.append(f"{name} refused: {str(e)[:160]}")
        if ref:
            base_name = "cudnn" if "cudnn" in ref else next(iter(ref))
            base = ref[base_name]
            base_max = base.abs().max().item()
            if "cudnn" in ref and "flash" in ref:
                row["rel_diff_flash_vs_cudnn"] = (ref["flash"] - ref["cudnn"]).abs().max().item() / base_max
        else:
            with sdpa_kernel(SDPBackend.MATH):
                base = sdpa().transpose(1, 2).float()
            base_max = base.abs().max().item()
            notes.append("reference: SDPA math backend")

        # LSE references on two slices: the first rows of the first batch and the last rows of the last
        # batch, float32 logsumexp of the scaled scores (H, rows).
        rows = min(64, seqlen)
        lse_slices = []
        for b, r0 in ((0, 0), (batch - 1, seqlen - rows)):
            s = torch.einsum("rhd,shd->hrs", q[b, r0:r0 + rows].float(), k[b].float()) / math.sqrt(head_dim)
            if causal:  # query row r0 + i sees keys j <= r0 + i
                later = torch.arange(seqlen, device="cuda")[None, :] > torch.arange(r0, r0 + rows, device="cuda")[:, None]
                s.masked_fill_(later, float("-inf"))
            lse_slices.append((b, r0, torch.logsumexp(s, dim=-1)))
            del s
        base_norm = base.norm().item()

        checks_ok = {}  # path key -> True (output ok), False (off), None (error or refused)
        handles = []  # (handle, O, LSE) of each path, alive until the timing is done
        for key, p_source, persistent in TMAKIT_PATHS:
            if (persistent and a.grids == "present") or (not persistent and a.grids == "persistent"):
                continue
            if persistent and head_dim not in PERSISTENT_HEAD_DIMS:
                continue  # not measured at this head dim
            o = torch.full_like(q, float("nan"))
            lse = torch.full((batch, H, seqlen), -1.0, device="cuda", dtype=torch.float32)
            h = None
            try:
                h = lib.create(q.data_ptr(), k.data_ptr(), v.data_ptr(), o.data_ptr(), lse.data_ptr(), batch, seqlen, H,
                               head_dim, causal, p_source, grid=1 if persistent else 0)
                grid = lib.grid(h)
                row["tiles"] = grid["tiles"]
                if persistent:
                    row["persistent_ctas"] = grid["ctas"]
                lib.launch(h, self.stream_ptr)
                torch.cuda.synchronize()
                err = o.float() - base
                diff = err.abs().max().item() / base_max
                rms = err.norm().item() / base_norm
                del err
                if math.isnan(diff) or math.isnan(rms) or torch.isnan(o).any().item():
                    diff = rms = float("inf")
                lse_err = max((lse[b, :, r0:r0 + rows] - ref_lse).abs().max().item() for b, r0, ref_lse in lse_slices)
                if math.isnan(lse_err):
                    lse_err = float("inf")
                row[f"rel_diff_{key}"], row[f"rms_diff_{key}"], row[f"lse_err_{key}"] = diff, rms, lse_err
                good = diff <= a.tolerance and rms <= a.rms_tolerance and lse_err <= a.lse_tolerance
                checks_ok[key] = good
                row[f"check_{key}"] = "ok" if good else "WRONG"
                handles.append((h, o, lse))
                h = None
                timed[f"tmakit_{key}"] = lambda hh=handles[-1][0]: lib.launch(hh, self.stream_ptr)
                if not good:
                    notes.append(f"tmakit {key}-P output OFF (max rel diff {diff:.3g}, rms {rms:.3g}, LSE err {lse_err:.3g}): "
                                 "left out of the ratio")
            except Exception as e:
                notes.append(f"tmakit {key}-P: {str(e).splitlines()[0][:160]}")
                checks_ok[key] = None
            finally:
                if h:
                    lib.destroy(h)
            del o, lse
        try:
            for name, (t, n, r) in self.time_fns(timed, clocks_during).items():
                ms[name], bursts[name] = t, n
                if name.startswith("tmakit_") and not math.isnan(r):
                    ratios.append(r)
        finally:
            for h, _, _ in handles:
                lib.destroy(h)
            handles.clear()
        row["sm_mhz_after"] = self.clock.sm_mhz()
        if clocks_during:
            row["sm_mhz_during_min"], row["sm_mhz_during_max"] = min(clocks_during), max(clocks_during)

        for key, _ in IMPLS:
            if key in ms:
                row[f"{key}_ms"] = ms[key]
                row[f"{key}_tflops"] = fl / (ms[key] * 1e-3) / 1e12
        sdpa_best = [row[f"{b}_tflops"] for b in ("cudnn", "flash") if row[f"{b}_tflops"]]
        row["best_sdpa"] = max(sdpa_best) if sdpa_best else None

        def best(keys):  # the fastest path among keys whose output matched
            good = [row[f"tmakit_{k}_tflops"] for k in keys if checks_ok.get(k) and row[f"tmakit_{k}_tflops"]]
            return max(good) if good else None

        row["best_tmakit"] = best(("smem", "reg"))
        row["best_tmakit_persistent"] = best(("smem_pers", "reg_pers"))
        if row["best_sdpa"] and row["best_tmakit"]:
            row["ratio"] = row["best_tmakit"] / row["best_sdpa"]
        if row["best_sdpa"] and row["best_tmakit_persistent"]:
            row["ratio_persistent"] = row["best_tmakit_persistent"] / row["best_sdpa"]
        if row["best_tmakit"] and row["best_tmakit_persistent"]:
            row["persistent_gain"] = row["best_tmakit_persistent"] / row["best_tmakit"]
        # The path and form the launcher picks by default (the C ABI's p_source = 2, grid = 2): asked of the
        # launcher, not timed again; the ratio is that path's and form's as timed above.
        try:
            h = lib.create(q.data_ptr(), k.data_ptr(), v.data_ptr(), q.data_ptr(), q.data_ptr(), batch, seqlen, H,
                           head_dim, causal, 2, grid=2)
            chose_persistent = bool(lib.grid(h)["persistent"])
            chose_smem = lib.config(h)["p_source"] == 0
            lib.destroy(h)
            row["automatic_p_source"] = "smem" if chose_smem else "registers"
            row["automatic_grid"] = "persistent" if chose_persistent else "per_tile"
            key = ("smem" if chose_smem else "reg") + ("_pers" if chose_persistent else "")
            if checks_ok.get(key) and row[f"tmakit_{key}_tflops"] and row["best_sdpa"]:
                row["ratio_automatic"] = row[f"tmakit_{key}_tflops"] / row["best_sdpa"]
        except RuntimeError as e:
            notes.append(f"automatic choice: {e}")
        row["launches_per_burst"] = ";".join(f"{k}:{bursts[k]}" for k, _ in IMPLS if k in bursts)
        if not checks_ok:
            row["check"] = "n/a"  # no tmakit path for this configuration (--grids persistent at head dim 256)
        elif False in checks_ok.values():
            row["check"] = "WRONG"
        elif None in checks_ok.values():
            row["check"] = "ERROR" if head_dim in BUILT_HEAD_DIMS else "n/a"  # not built: refused, as expected
        else:
            row["check"] = "ok"
        row["tmakit_events_vs_host"] = min(ratios) if ratios else None
        if ratios and min(ratios) < 0.7:
            notes.append(f"events saw {min(ratios):.2f} of the host's time for a burst: is every launch on the timed stream?")
        row["note"] = " | ".join(notes)
        return row


def table_header():
    return (f"{'seqlen':>6} {'B':>3} {'hd':>3} {'causal':>6} | {'cuDNN':>6} {'flash':>6} {'smem-P':>6} {'reg-P':>6} "
            f"| {'ratio':>5} | {'pers smem':>9} {'pers reg':>8} {'ratio':>5} {'gain':>5} | {'auto':>6} "
            f"| {'diff smem':>9} {'diff reg':>9} {'check':>5} | SM MHz before/during/after")


def table_row(r):
    return (f"{r['seqlen']:>6} {r['batch']:>3} {r['head_dim']:>3} {('yes' if r['causal'] else 'no'):>6} | "
            f"{fmt(r['cudnn_tflops']):>6} {fmt(r['flash_tflops']):>6} {fmt(r['tmakit_smem_tflops']):>6} "
            f"{fmt(r['tmakit_reg_tflops']):>6} | {fmt(r['ratio'], '.2f'):>5} | {fmt(r['tmakit_smem_pers_tflops']):>9} "
            f"{fmt(r['tmakit_reg_pers_tflops']):>8} {fmt(r['ratio_persistent'], '.2f'):>5} {fmt(r['persistent_gain'], '.2f'):>5} | "
            f"{fmt(r['ratio_automatic'], '.2f'):>4}{'p' if r['automatic_grid'] == 'persistent' else ' '}"
            f"{'s' if r['automatic_p_source'] == 'smem' else 'r' if r['automatic_p_source'] else ' '} | "
            f"{fmt(r['rel_diff_smem'], '.2e'):>9} "
            f"{fmt(r['rel_diff_reg'], '.2e'):>9} {r['check']:>5} | {fmt(r['sm_mhz_before'], 'd')}/"
            f"{fmt(r['sm_mhz_during_min'], 'd')}-{fmt(r['sm_mhz_during_max'], 'd')}/{fmt(r['sm_mhz_after'], 'd')}")


def csv_line(r):
    out = []
    for f in CSV_FIELDS:
        x = r[f]
        if x is None:
            out.append("")
        elif isinstance(x, float):
            out.append(f"{x:.6g}")
        else:
            out.append(str(x).replace(",", ";"))
    return ",".join(out)


def main(argv=None):
    a = parse_args(argv)
    if a.list:
        for s, b, d, c in configs(a):
            print(f"seqlen {s:>6} batch {b:>3} heads {a.heads} head_dim {d:>3} causal {int(c)} "
                  f"{flops(s, b, a.heads, d, c) / 1e12:.3f} TFLOP per call")
        return 0
    if a.abi_check:
        return abi_check(a)

    import torch  # noqa: E402 (only for a measurement: --list and --abi-check run without it)

    if not torch.cuda.is_available():
        print("bench_attention: no CUDA device visible to PyTorch")
        return 1
    lib = TmakitLib(a.lib)
    bench = Bench(a, torch)
    print(f"# {time.strftime('%Y-%m-%d %H:%M:%S %Z')}  {driver_line()}")
    print(f"# torch {torch.__version__} (CUDA {torch.version.cuda}, cuDNN {torch.backends.cudnn.version()}), "
          f"python {sys.version.split()[0]}, device {torch.cuda.get_device_name(0)}, "
          f"{bench.props.multi_processor_count} SMs")
    print(f"# tmakit: {lib.path} (CUDA runtime {lib.lib.tmakit_attention_runtime_version()}, static)")
    print(f"# {bench.clock.describe()}")
    print(f"# tokens {a.tokens} per batch, {a.heads} heads, bf16 (B, S, H, D); median of {a.samples} bursts of "
          f">= {a.burst_ms} ms after {a.warmup} warm-up calls, timing {a.timing}; "
          f"TFLOP/s = 4 S^2 D H B (/2 causal) / time")
    built = [d for d in a.head_dims if d in BUILT_HEAD_DIMS]
    print(f"# head dims {a.head_dims}; tmakit builds {list(BUILT_HEAD_DIMS)}"
          + ("" if len(built) == len(a.head_dims) else ": SDPA alone for the others")
          + f"; grid forms: {a.grids} (persistent: head dims {list(PERSISTENT_HEAD_DIMS)})")
    if bench.sleep is None:
        print("# torch.cuda._sleep missing: bursts start with nothing queued ahead of them (launch overhead may show)")

    bench.warm_up()
    print(f"# after 1 s of matmuls: {bench.clock.describe()}")

    csv_file = None
    if a.csv:
        os.makedirs(os.path.dirname(os.path.abspath(a.csv)), exist_ok=True)
        csv_file = open(a.csv, "w")
        csv_file.write(",".join(CSV_FIELDS) + "\n")
        csv_file.flush()
    print(table_header(), flush=True)
    rows = []
    t_start = time.perf_counter()
    with torch.cuda.stream(bench.stream):
        for s, b, d, c in configs(a):
            try:
                r = bench.run_config(lib, s, b, d, c)
            except Exception as e:  # one configuration's failure is reported; the rest still run
                r = {f: None for f in CSV_FIELDS}
                r.update(seqlen=s, batch=b, heads=a.heads, head_dim=d, causal=int(c), check="ERROR",
                         note=f"{type(e).__name__}: {str(e)[:200]}")
            rows.append(r)
            print(table_row(r), flush=True)
            if r["note"]:
                print(f"       note: {r['note']}", flush=True)
            if csv_file:
                csv_file.write(csv_line(r) + "\n")
                csv_file.flush()
    print(f"# {len(rows)} configurations in {time.perf_counter() - t_start:.1f} s; {bench.clock.describe()}")
    print()
    print(",".join(CSV_FIELDS))
    for r in rows:
        print(csv_line(r))
    print()
    if csv_file:
        csv_file.close()
        print(f"# CSV: {a.csv}")
    wrong = [r for r in rows if r["check"] in ("WRONG", "ERROR")]
    if wrong:
        print(f"# {len(wrong)} configuration(s) with a wrong tmakit output or an error: see the notes")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
