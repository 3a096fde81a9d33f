// ERGOBENCH_CHECK(condition): for broken invariants only, never for bad input (that is a Status).
// Unlike assert it is never compiled out, so a broken invariant crashes loudly, naming the
// condition and where, in every build type. (Not called CHECK: libtorch's c10 defines that.)
#pragma once

#include <cstdio>
#include <cstdlib>

namespace ergobench::internal {

[[noreturn]] inline void CheckFailed(const char* condition, const char* file, int line) {
  std::fprintf(stderr, "%s:%d: invariant broken: %s\n", file, line, condition);
  std::fflush(stderr);
  std::abort();
}

}  // namespace ergobench::internal

#define ERGOBENCH_CHECK(condition)                                                \
  do {                                                                            \
    if (!(condition)) ::ergobench::internal::CheckFailed(#condition, __FILE__, __LINE__); \
  } while (false)
