// Host/device annotations shared by every tmakit header.
#pragma once

#if defined(__CUDACC__)
#define TMAKIT_HD __host__ __device__
#else
#define TMAKIT_HD
#endif
