// The tensor maps a kernel receives: kernel launches intercepted where a program looks the launch
// functions up (dlsym, cuGetProcAddress), their parameters searched for CUtensorMaps. A library that
// builds its maps without any encoder call the capture sees (its own encoder, a private driver
// interface) still hands them to its kernels as __grid_constant__ parameters, 64-byte aligned in
// the parameter buffer: every 64-aligned window of 128 bytes whose first 8 bytes could be a global
// address is recorded once per distinct content ("call":"kernel_parameter": the kernel's name, the
// parameter, its byte offset, the bytes), and `tmakit capture` keeps those that decode to a map and
// re-encode to the same bytes. Each kernel handle launched is recorded once as well
// ("call":"kernel_launch": its name, how its parameters came, the bytes searched), so that a report
// names the kernels that received no map too. A handle is a CUfunction or a CUkernel: the cuFunc*
// queries answer the one, the cuKernel* queries the other.
#pragma once

#include "capture_driver.h"

// The launch functions handed out in place of the driver's: cuLaunchKernel and cuLaunchKernelEx in
// any of their variants (_ptsz, ...: each real function gets a wrapper of its own). `name` is the
// name asked for, `real` what the driver answered (NULL: none), `via` how the program asked.
// Returns the wrapper, or `real` when the name is not a launch function or no wrapper is left.
CAPTURE_HIDDEN void* capture_launch_wrapper(const char* name, void* real, const char* via);
// 1 when `name` is one of the launch functions capture_launch_wrapper wraps.
CAPTURE_HIDDEN int capture_is_launch(const char* name);
