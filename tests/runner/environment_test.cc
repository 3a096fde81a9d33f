#include "runner/environment.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "api/contract/runner_invocation.h"

namespace ergobench {
namespace {

// In a pod, the rank's node is the one the downward API names; elsewhere there is none.
TEST(Environment, NamesTheNodeAPodRunsOn) {
  setenv(kNodeNameEnv, "node-7", 1);
  EXPECT_EQ(DescribeEnvironment({})["node"], "node-7");
  unsetenv(kNodeNameEnv);
  EXPECT_FALSE(DescribeEnvironment({}).contains("node"));
}

}  // namespace
}  // namespace ergobench
