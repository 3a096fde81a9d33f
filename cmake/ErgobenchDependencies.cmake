# Finds every third-party dependency once, as imported targets. All come from Debian
# packages (scripts/install-deps.sh).
find_package(Threads REQUIRED)
find_package(ZLIB REQUIRED)
find_package(CURL REQUIRED)
find_package(OpenSSL REQUIRED)
find_package(LibArchive REQUIRED)
find_package(JPEG REQUIRED)  # libjpeg62-turbo-dev: the JPEG folders of task resnet50
# libprotobuf-dev (libtorch-dev needs it too): the coded streams of tf.train.Example (cosmoflow's TFRecords).
find_package(Protobuf REQUIRED)
find_package(Boost 1.74 REQUIRED)  # header-only parts: Beast (base/), CRC (runner's TFRecords)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(yaml-cpp REQUIRED)
find_package(prometheus-cpp REQUIRED COMPONENTS core)
find_package(CLI11 REQUIRED)
if(NOT ERGOBENCH_RUNNER_ONLY)
  find_package(cpprestsdk REQUIRED)  # the Kubernetes client's
endif()
find_package(MPI REQUIRED COMPONENTS CXX)
# ICU's character categories decode WMT17's tensor2tensor subtokens (runner/data/subtokens.h);
# a runner built without it refuses that format by name (the GPU machines may lack libicu-dev).
find_package(ICU COMPONENTS uc)

# libtorch, two ways. By default its libraries and headers are found directly: Debian's
# TorchConfig.cmake drags in CUDA probing, and its CPU libraries are all we link. With
# ERGOBENCH_TORCH_CONFIG=ON, through TorchConfig.cmake (Torch_DIR or CMAKE_PREFIX_PATH): how a
# CUDA build of libtorch (PyTorch's wheel, an unpacked libtorch) brings its CUDA libraries and flags.
option(ERGOBENCH_TORCH_CONFIG "Find libtorch through its TorchConfig.cmake (CUDA builds of libtorch)" OFF)
add_library(ergobench_torch INTERFACE)
if(ERGOBENCH_TORCH_CONFIG)
  find_package(Torch CONFIG REQUIRED)
  # libtorch_cuda registers its kernels from static initialisers and nothing calls into it
  # directly: a linker that drops unused libraries by default (Ubuntu's) would drop it.
  target_link_options(ergobench_torch INTERFACE "LINKER:--no-as-needed")
  target_link_libraries(ergobench_torch INTERFACE ${TORCH_LIBRARIES})
  if(TORCH_CUDA_LIBRARIES)
    target_compile_definitions(ergobench_torch INTERFACE ERGOBENCH_TORCH_CUDA=1)
    # The GPU's tensor memory from torch's CUDA caching allocator (its c10_cuda header): a
    # switch, because that header is the one part of torch's CUDA API the runner compiles
    # against, and a libtorch that changed it would otherwise stop the whole build.
    option(ERGOBENCH_CUDA_MEMORY_STATS "Read GPU memory figures from torch's CUDA caching allocator" ON)
    if(ERGOBENCH_CUDA_MEMORY_STATS)
      target_compile_definitions(ergobench_torch INTERFACE ERGOBENCH_CUDA_MEMORY_STATS=1)
    endif()
  else()
    target_compile_definitions(ergobench_torch INTERFACE ERGOBENCH_TORCH_CUDA=0)
  endif()
else()
  find_library(TORCH_CPU_LIB torch_cpu REQUIRED)
  find_library(TORCH_LIB torch REQUIRED)
  find_library(C10_LIB c10 REQUIRED)
  find_path(TORCH_INCLUDE ATen/ATen.h REQUIRED)
  find_path(TORCH_API_INCLUDE torch/torch.h PATH_SUFFIXES torch/csrc/api/include REQUIRED)
  target_link_libraries(ergobench_torch INTERFACE ${TORCH_LIB} ${TORCH_CPU_LIB} ${C10_LIB})
  target_include_directories(ergobench_torch SYSTEM INTERFACE ${TORCH_INCLUDE} ${TORCH_API_INCLUDE})
  target_compile_definitions(ergobench_torch INTERFACE ERGOBENCH_TORCH_CUDA=0)
endif()
# c10d's ProcessGroupGloo is compiled out unless this is defined.
target_compile_definitions(ergobench_torch INTERFACE USE_C10D_GLOO)

# Gloo, whose collectives the gloo backend calls directly: Debian's libgloo-dev. PyTorch's wheel
# carries gloo inside libtorch_cpu without its headers; a runner built against it has no gloo
# backend (it says so when asked for one) and uses nccl or mpi.
option(ERGOBENCH_GLOO "Build the gloo backend where gloo's headers and library are found" ON)
set(ERGOBENCH_HAS_GLOO OFF)
if(ERGOBENCH_GLOO)
  find_path(GLOO_INCLUDE gloo/allreduce.h)
  find_library(GLOO_LIB gloo)
  if(GLOO_INCLUDE AND GLOO_LIB)
    set(ERGOBENCH_HAS_GLOO ON)
  endif()
endif()

# CUDA: the NCCL backend and the GPU's device memory (runner/cuda). AUTO builds it where CMake
# finds a CUDA toolkit with NCCL's header; the program loads NCCL and reaches the driver at run
# time, so the same binary runs on machines without either and says what is missing.
set(ERGOBENCH_CUDA AUTO CACHE STRING "Build the CUDA library (NCCL backend): AUTO, ON or OFF")
set_property(CACHE ERGOBENCH_CUDA PROPERTY STRINGS AUTO ON OFF)
set(ERGOBENCH_HAS_CUDA OFF)
if(NOT ERGOBENCH_CUDA STREQUAL "OFF")
  if(ERGOBENCH_CUDA STREQUAL "ON")
    find_package(CUDAToolkit REQUIRED)
  else()
    find_package(CUDAToolkit QUIET)
  endif()
  if(CUDAToolkit_FOUND)
    find_path(NCCL_INCLUDE nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
  endif()
  if(CUDAToolkit_FOUND AND NCCL_INCLUDE)
    set(ERGOBENCH_HAS_CUDA ON)
  elseif(ERGOBENCH_CUDA STREQUAL "ON")
    message(FATAL_ERROR "ERGOBENCH_CUDA=ON: NCCL's nccl.h was not found beside the CUDA toolkit")
  endif()
endif()
message(STATUS "ergobench: CUDA library ${ERGOBENCH_HAS_CUDA}, gloo backend ${ERGOBENCH_HAS_GLOO}, torch through TorchConfig ${ERGOBENCH_TORCH_CONFIG}")

if(ERGOBENCH_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
