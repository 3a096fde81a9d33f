// Fixture for the skip machinery (tests/CMakeLists.txt runs it with filters): a test that
// passes, one that skips and one that fails.
#include <gtest/gtest.h>

TEST(Fixture, Passes) { EXPECT_EQ(1 + 1, 2); }
TEST(Fixture, Skips) { GTEST_SKIP() << "the data set is missing"; }
TEST(Fixture, Fails) { ADD_FAILURE() << "a failure must outrank a skip"; }
