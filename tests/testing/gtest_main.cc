// The main of every gtest binary: gtest's, except that a run in which some test was skipped
// and none failed exits 77, ctest's SKIP_RETURN_CODE. (ctest's SKIP_REGULAR_EXPRESSION would
// mark a binary Skipped even when another of its tests failed.)
#include <gtest/gtest.h>

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  const int failed = RUN_ALL_TESTS();
  if (failed != 0) return failed;
  return ::testing::UnitTest::GetInstance()->skipped_test_count() > 0 ? 77 : 0;
}
