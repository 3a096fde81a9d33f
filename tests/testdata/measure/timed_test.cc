// A test that judges a time outside the quiet phase: tests/check_measure_labels.py must name it.
TEST(SleepTest, TheSleepTakesItsTime) {
  const auto start = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_NEAR(seconds, 0.020, 0.002);
}

// The same in a measure suite passes.
TEST(SleepMeasureTest, TheSleepTakesItsTime) {
  const auto start = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_NEAR(seconds, 0.020, 0.002);
}
