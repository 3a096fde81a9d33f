#include "base/check.h"

#include <gtest/gtest.h>

#include "base/status.h"

namespace ergobench {
namespace {

TEST(CheckDeathTest, ABrokenInvariantAbortsNamingTheConditionInEveryBuildType) {
  const int workers = 0;
  EXPECT_DEATH(ERGOBENCH_CHECK(workers > 0), "check_test.cc:[0-9]+: invariant broken: workers > 0");
}

TEST(CheckDeathTest, AStatusOrCannotHoldAnOkStatus) {
  // Compiled with NDEBUG (RelWithDebInfo), where the assert it replaces did nothing.
  EXPECT_DEATH(StatusOr<int>(Status::Ok()), "invariant broken");
}

TEST(CheckTest, AHoldingInvariantDoesNothing) {
  int evaluated = 0;
  ERGOBENCH_CHECK(++evaluated == 1);
  EXPECT_EQ(evaluated, 1);  // evaluated once, as written
}

}  // namespace
}  // namespace ergobench
