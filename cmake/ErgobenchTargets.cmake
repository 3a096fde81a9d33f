# Helpers that give every target the same flags, so warnings and sanitizers are set once, and
# that make include visibility follow the dependency arrows (docs/architecture.md, "Layout"):
#   base ← api ← {kube/client ← kube/runtime, energy} ← {runner, operator, agent, cli}
#
# No target sees the repository root. A library PUBLISHES the folders (or single headers) its
# dependents may include; each is linked into an include root of the library's own in the build
# tree, and that root is the library's PUBLIC include directory. So `#include "kube/client/..."`
# compiles only in a target that links ergobench_kube, and a forbidden include is a compile error
# ("No such file or directory"), not a surprise at link time. tests/layering proves it.

set(ERGOBENCH_INCLUDE_ROOTS ${CMAKE_BINARY_DIR}/include)

function(ergobench_set_flags target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor)
  if(ERGOBENCH_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
  if(ERGOBENCH_SANITIZE)
    # GCC's flow analysis under the sanitizers reports <regex> and <functional> internals as
    # maybe-uninitialized; a false positive that -Werror would turn into a failed build.
    target_compile_options(${target} PRIVATE -fsanitize=address,undefined -fno-omit-frame-pointer
                                             $<$<CXX_COMPILER_ID:GNU>:-Wno-maybe-uninitialized>)
    target_link_options(${target} PRIVATE -fsanitize=address,undefined)
  endif()
  if(ERGOBENCH_FUZZ)
    target_compile_options(${target} PRIVATE -fsanitize=fuzzer-no-link)
  endif()
endfunction()

# ergobench_include_root(ROOT_NAME PATH...): an include root under the build tree holding a link to
# each PATH (relative to the source root), at the same relative place. Returns it in ROOT_NAME_DIR.
function(ergobench_include_root root_name)
  set(root ${ERGOBENCH_INCLUDE_ROOTS}/${root_name})
  foreach(path ${ARGN})
    if(NOT EXISTS ${PROJECT_SOURCE_DIR}/${path})
      message(FATAL_ERROR "ergobench_include_root(${root_name}): ${path} does not exist")
    endif()
    get_filename_component(parent ${root}/${path} DIRECTORY)
    file(MAKE_DIRECTORY ${parent})
    file(CREATE_LINK ${PROJECT_SOURCE_DIR}/${path} ${root}/${path} SYMBOLIC)
  endforeach()
  set(${root_name}_DIR ${root} PARENT_SCOPE)
endfunction()

# Precompiled headers (ERGOBENCH_PCH). <torch/torch.h> costs about 30 s and 1.2 GB a translation
# unit: every target that includes it precompiles it. Without unity builds (ERGOBENCH_UNITY=OFF,
# quicker for edit-compile loops) each library and test binary also precompiles the headers
# most of its files parse; in a unity build a batch parses those once anyway, and precompiling
# them cost more than it saved (bench/RESULTS.md, "Build").
set(ERGOBENCH_COMMON_PCH <algorithm> <chrono> <functional> <map> <memory> <optional> <string> <vector>
                         <nlohmann/json.hpp>)

# ergobench_precompile(TARGET [TESTS] header...): TARGET's files start from `header...` and,
# without unity builds, from the common headers (gtest's and gmock's too with TESTS), parsed once.
# Only for targets of several files: for one file a precompiled header is pure overhead.
function(ergobench_precompile target)
  cmake_parse_arguments(ARG "TESTS" "" "" ${ARGN})
  set(headers ${ARG_UNPARSED_ARGUMENTS})
  if(NOT ERGOBENCH_UNITY)
    list(APPEND headers ${ERGOBENCH_COMMON_PCH})
    if(ARG_TESTS)
      list(APPEND headers <gtest/gtest.h> <gmock/gmock.h>)
    endif()
  endif()
  get_target_property(sources ${target} SOURCES)
  list(LENGTH sources count)
  if(ERGOBENCH_PCH AND headers AND count GREATER 2)
    target_precompile_headers(${target} PRIVATE ${headers})
  endif()
endfunction()

# ergobench_library(NAME PUBLISHES path... SOURCES ... DEPS ...)
function(ergobench_library name)
  cmake_parse_arguments(ARG "" "" "PUBLISHES;SOURCES;DEPS" ${ARGN})
  if(NOT ARG_PUBLISHES)
    message(FATAL_ERROR "ergobench_library(${name}): say which folders it PUBLISHES")
  endif()
  add_library(${name} STATIC ${ARG_SOURCES})
  ergobench_set_flags(${name})
  ergobench_include_root(${name} ${ARG_PUBLISHES})
  target_include_directories(${name} PUBLIC ${${name}_DIR})
  target_link_libraries(${name} PUBLIC ${ARG_DEPS})
  ergobench_precompile(${name})
endfunction()

# ergobench_executable(NAME SOURCES ... DEPS ...): sees only what its DEPS publish.
function(ergobench_executable name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  ergobench_set_flags(${name})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS})
endfunction()

# ergobench_test(NAME SOURCES ... DEPS ... [LABELS ...] [PCH header...] [MEASURE]): one gtest
# binary, one ctest entry. Tests also see tests/testing (shared fakes), through ergobench_testing,
# and share its main. Their own code compiles at -O0 (ERGOBENCH_TESTS_O0); PCH names headers to
# precompile (ergobench_precompile). MEASURE: the binary has tests that judge a time, a rate or a
# ratio of times (test suites named *MeasureTest); they get an entry of their own, NAME_measure,
# labelled `measure`, which scripts/test.sh runs in its quiet phase, alone on the machine.
set(ERGOBENCH_MEASURE_FILTER "*MeasureTest.*")
function(ergobench_test name)
  cmake_parse_arguments(ARG "MEASURE" "" "SOURCES;DEPS;LABELS;PCH" ${ARGN})
  ergobench_executable(${name} SOURCES ${ARG_SOURCES}
    DEPS ${ARG_DEPS} ergobench_testing ergobench_gtest_main GTest::gtest GTest::gmock)
  if(ERGOBENCH_TESTS_O0)
    target_compile_options(${name} PRIVATE -O0)
  endif()
  ergobench_precompile(${name} TESTS ${ARG_PCH})
  set(filter "")
  if(ARG_MEASURE)
    set(filter "--gtest_filter=-${ERGOBENCH_MEASURE_FILTER}")
    add_test(NAME ${name}_measure COMMAND ${name} "--gtest_filter=${ERGOBENCH_MEASURE_FILTER}")
    set_tests_properties(${name}_measure PROPERTIES LABELS "measure;${ARG_LABELS}" SKIP_RETURN_CODE 77
                         RUN_SERIAL TRUE)
  endif()
  add_test(NAME ${name} COMMAND ${name} ${filter})
  # tests/testing/gtest_main.cc exits 77 when a test skipped and none failed: ctest shows Skipped.
  # It holds the CPUs shared (ERGOBENCH_CPU_LOCK, tests/integration/cpu_lock.py).
  set_tests_properties(${name} PROPERTIES LABELS "unit;${ARG_LABELS}" SKIP_RETURN_CODE 77
                       ENVIRONMENT "ERGOBENCH_CPU_LOCK=${ERGOBENCH_CPU_LOCK}")
endfunction()

# ergobench_test_binary(NAME DIR dir DEPS ... [LABELS ...] [PCH header...] UNITS unit...): one gtest
# binary of tests/DIR/<unit>_test.cc for each unit, one per library: every test binary links
# its library (and libtorch, for the runner's), so fewer binaries link less.
function(ergobench_test_binary name)
  cmake_parse_arguments(ARG "MEASURE" "DIR" "DEPS;LABELS;PCH;UNITS" ${ARGN})
  set(sources "")
  foreach(unit ${ARG_UNITS})
    list(APPEND sources ${ARG_DIR}/${unit}_test.cc)
  endforeach()
  set(measure "")
  if(ARG_MEASURE)
    set(measure MEASURE)
  endif()
  ergobench_test(${name} SOURCES ${sources} DEPS ${ARG_DEPS} LABELS ${ARG_LABELS} PCH ${ARG_PCH} ${measure})
endfunction()

# ergobench_reuse_torch_pch(TARGET): TARGET includes libtorch's headers; reuse the runner's
# precompiled <torch/torch.h> instead of parsing it again (about 30 s and 1.2 GB a file). GCC
# accepts a PCH only under the macros it was built with, hence the runner's definitions.
function(ergobench_reuse_torch_pch target)
  if(ERGOBENCH_PCH)
    set_target_properties(${target} PROPERTIES PRECOMPILE_HEADERS_REUSE_FROM ergobench_runner_torch)
    target_compile_definitions(${target} PRIVATE ${ERGOBENCH_RUNNER_DEFINITIONS})
  endif()
endfunction()

# ergobench_entry_timeouts(): every ctest entry this directory added gets its TIMEOUT: twice its
# measured time (tests/entry_seconds.cmake, included once by tests/CMakeLists.txt), 30 s at least. A local
# integration suite, which runs beside integration_kube and passes its turn between its tests
# to the cluster's tests that hold the CPUs alone, may wait for them all: their seconds
# (ERGOBENCH_ALONE_SECONDS) are added. Called last in each CMakeLists.txt that adds tests; an
# entry with no measured time stops the configure.
function(ergobench_entry_timeouts)
  get_property(entries DIRECTORY PROPERTY TESTS)
  foreach(entry IN LISTS entries)
    list(FIND ERGOBENCH_ENTRY_SECONDS ${entry} at)
    if(at EQUAL -1)
      message(FATAL_ERROR "ctest entry ${entry} has no measured time in tests/entry_seconds.cmake: "
                          "run it (ctest -R '^${entry}$') and add its seconds there")
    endif()
    math(EXPR at "${at} + 1")
    list(GET ERGOBENCH_ENTRY_SECONDS ${at} seconds)
    # CMake's math is integers only: twice the seconds, rounded up.
    string(REGEX REPLACE "\\..*" "" whole "${seconds}")
    math(EXPR timeout "2 * ${whole} + 2")
    if(timeout LESS 30)
      set(timeout 30)
    endif()
    get_property(labels TEST ${entry} PROPERTY LABELS)
    if("integration" IN_LIST labels AND NOT "kube" IN_LIST labels AND NOT "measure" IN_LIST labels
       AND NOT "deploy" IN_LIST labels)
      math(EXPR timeout "${timeout} + ${ERGOBENCH_ALONE_SECONDS}")
    endif()
    set_tests_properties(${entry} PROPERTIES TIMEOUT ${timeout})
  endforeach()
endfunction()
