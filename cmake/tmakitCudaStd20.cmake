# tmakit_teach_cuda_std_20(): CMake < 3.26 does not know nvcc's C++20 flag (nvcc >= 12 has it), so
# the compile feature cuda_std_20 that tmakit::tmakit requires for CUDA sources fails there
# ("The compiler feature "cuda_std_20" is not known to CUDA compiler "NVIDIA""; without the feature
# nvcc compiles the headers as C++17: `identifier "concept" is undefined`). Teaches CMake the flag
# in the calling scope once the CUDA language is enabled; a no-op on newer CMake, on other CUDA
# compilers and without CUDA.
# Used by tmakit's own build and installed beside tmakitConfig.cmake for consumers.
macro(tmakit_teach_cuda_std_20)
  get_property(_tmakit_languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if("CUDA" IN_LIST _tmakit_languages AND NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION
     AND CMAKE_CUDA_COMPILER_ID STREQUAL "NVIDIA" AND CMAKE_CUDA_COMPILER_VERSION VERSION_GREATER_EQUAL 12.0)
    set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
    set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
    list(APPEND CMAKE_CUDA_COMPILE_FEATURES cuda_std_20)
  endif()
  unset(_tmakit_languages)
endmacro()
