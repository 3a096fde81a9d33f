// Where the tests find files: the repository (golden files, the CRD, test data) and the fake
// NVML library. The paths are compiled into one small generated file (tests/CMakeLists.txt),
// not into each test file's command line, so that a clone elsewhere on the machine reuses every
// other compiled test file from ccache.
#pragma once

namespace ergobench::testing {

extern const char kSourceDir[];     // the repository's root
extern const char kFakeNvmlPath[];  // tests/energy/fake_nvml.cc, built as a library
extern const char kFakeNcclPath[];  // tests/runner/cuda/fake_nccl.cc; empty without the CUDA toolkit

}  // namespace ergobench::testing
