# How the compiler and linker are driven, so that a build from scratch on CI's 2 cores stays
# short and a second clone on the same machine recompiles nothing (docs: bench/RESULTS.md,
# "Build"). Each lever is an option, so that its worth can be measured by turning it off.
#
# - ccache (Debian's), its cache under the project's cache folder and shared by every clone on
#   the machine: paths under the clone are hashed relative to it (base_dir) and the working
#   folder is not hashed (hash_dir), so that a clone elsewhere hits. Precompiled headers are
#   cached too (sloppiness pch_defines,time_macros, as ccache's manual asks).
# - mold, where installed: links in a fraction of GNU ld's time (the test binaries link libtorch).
# - Debug information as line tables (-g1): backtraces and profilers keep file and line, and a
#   compile takes about a fifth less time than with full -g. ERGOBENCH_DEBUG_INFO=full for gdb.
# - Tests compile at -O0: their own code is assertions and set-up, while what they test is
#   built optimised in the libraries; -O0 halves a test file's compile time.
# - Unity builds: each target's files compile in batches of 8, one translation unit a batch,
#   so that the headers and the template code they share are compiled once a batch, not once a
#   file (half the build's CPU time). A batch is one scope: tests/unity_names.py fails the
#   tests where two files of a batch give a file-local function the same name.

option(ERGOBENCH_CCACHE "Compile through ccache when it is installed" ON)
set(ERGOBENCH_CCACHE_DIR "" CACHE PATH "ccache's folder (default: ~/.cache/ergobench/ccache, or under ERGOBENCH_CACHE_DIR)")
set(ERGOBENCH_LINKER "auto" CACHE STRING "Linker: auto (mold where installed), mold, lld, gold or bfd")
set(ERGOBENCH_DEBUG_INFO "lines" CACHE STRING "Debug information in RelWithDebInfo builds: lines (-g1) or full (-g)")
option(ERGOBENCH_TESTS_O0 "Compile the tests' own code without optimisation" ON)
option(ERGOBENCH_UNITY "Compile each target's files in batches (unity build)" ON)
set(CMAKE_UNITY_BUILD ${ERGOBENCH_UNITY})
set(CMAKE_UNITY_BUILD_BATCH_SIZE 8)

if(ERGOBENCH_CCACHE)
  find_program(ERGOBENCH_CCACHE_PROGRAM ccache)
  if(ERGOBENCH_CCACHE_PROGRAM)
    set(cache_dir "${ERGOBENCH_CCACHE_DIR}")
    if(NOT cache_dir)
      if(DEFINED ENV{ERGOBENCH_CACHE_DIR})
        set(cache_dir "$ENV{ERGOBENCH_CACHE_DIR}/ccache")
      elseif(DEFINED ENV{XDG_CACHE_HOME})
        set(cache_dir "$ENV{XDG_CACHE_HOME}/ergobench/ccache")
      else()
        set(cache_dir "$ENV{HOME}/.cache/ergobench/ccache")
      endif()
    endif()
    # The settings travel with each command line: a user's own ccache.conf is not touched.
    set(CMAKE_CXX_COMPILER_LAUNCHER
        /usr/bin/env CCACHE_DIR=${cache_dir} CCACHE_BASEDIR=${PROJECT_SOURCE_DIR} CCACHE_NOHASHDIR=true
        CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
        CCACHE_MAXSIZE=8G ${ERGOBENCH_CCACHE_PROGRAM})
    message(STATUS "ergobench: compiling through ccache, cache in ${cache_dir}")
  endif()
endif()
# __FILE__ relative to the clone (ERGOBENCH_CHECK's messages, gtest's): a unity batch includes
# its files by absolute path, and a path in the compiled code would miss the cache in every
# other clone. Tests find the clone through tests/testing/test_paths.h for the same reason.
add_compile_options(-fmacro-prefix-map=${PROJECT_SOURCE_DIR}/=)

if(ERGOBENCH_LINKER STREQUAL "auto")
  find_program(ERGOBENCH_MOLD mold)
  set(linker "")
  if(ERGOBENCH_MOLD)
    set(linker mold)
  endif()
else()
  set(linker ${ERGOBENCH_LINKER})
endif()
if(linker AND NOT linker STREQUAL "bfd")
  add_link_options(-fuse-ld=${linker})
  message(STATUS "ergobench: linking with ${linker}")
endif()

if(ERGOBENCH_DEBUG_INFO STREQUAL "lines")
  string(REGEX REPLACE "(^| )-g( |$)" "\\1-g1\\2" CMAKE_CXX_FLAGS_RELWITHDEBINFO "${CMAKE_CXX_FLAGS_RELWITHDEBINFO}")
elseif(NOT ERGOBENCH_DEBUG_INFO STREQUAL "full")
  message(FATAL_ERROR "ERGOBENCH_DEBUG_INFO is '${ERGOBENCH_DEBUG_INFO}': expected lines or full")
endif()
