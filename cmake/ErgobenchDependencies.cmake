# Finds every third-party dependency once, as imported targets. All come from Debian
# packages (scripts/install-deps.sh).
find_package(Threads REQUIRED)
find_package(ZLIB REQUIRED)
find_package(CURL REQUIRED)
find_package(OpenSSL REQUIRED)
find_package(LibArchive REQUIRED)
find_package(JPEG REQUIRED)  # libjpeg62-turbo-dev: the JPEG folders of task resnet50
find_package(nlohmann_json 3.10 REQUIRED)
find_package(yaml-cpp REQUIRED)
find_package(prometheus-cpp REQUIRED COMPONENTS core)
find_package(CLI11 REQUIRED)
find_package(cpprestsdk REQUIRED)
find_package(MPI REQUIRED COMPONENTS CXX)

# Debian's TorchConfig.cmake drags in CUDA probing; the CPU libraries are all we link.
# An unpacked upstream libtorch works too: -DCMAKE_PREFIX_PATH=/opt/libtorch (the CUDA image).
find_library(TORCH_CPU_LIB torch_cpu REQUIRED)
find_library(TORCH_LIB torch REQUIRED)
find_library(C10_LIB c10 REQUIRED)
find_path(TORCH_INCLUDE ATen/ATen.h REQUIRED)
find_path(TORCH_API_INCLUDE torch/torch.h PATH_SUFFIXES torch/csrc/api/include REQUIRED)
add_library(ergobench_torch INTERFACE)
target_link_libraries(ergobench_torch INTERFACE ${TORCH_LIB} ${TORCH_CPU_LIB} ${C10_LIB})
target_include_directories(ergobench_torch SYSTEM INTERFACE ${TORCH_INCLUDE} ${TORCH_API_INCLUDE})
# c10d's ProcessGroupGloo is compiled out unless this is defined.
target_compile_definitions(ergobench_torch INTERFACE USE_C10D_GLOO)

if(ERGOBENCH_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
