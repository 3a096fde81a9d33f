#include "base/units.h"

#include <gtest/gtest.h>

#include <cmath>

#include "base/rfc3339.h"

namespace ergobench {
namespace {

TEST(UnitsTest, Bytes) {
  EXPECT_EQ(FormatBytes(4), "4 B");
  EXPECT_EQ(FormatBytes(1024), "1.0 KiB");
  EXPECT_EQ(FormatBytes(1048576), "1.0 MiB");
  EXPECT_EQ(FormatBytes(400000000), "381.5 MiB");
}

TEST(UnitsTest, Rates) {
  EXPECT_EQ(FormatBytesPerSecond(850e6), "850 MB/s");
  EXPECT_EQ(FormatBytesPerSecond(2.345e9), "2.35 GB/s");
  EXPECT_EQ(FormatBytesPerSecond(12), "12 B/s");
}

// The examples: kubectl's columns showed 13762.572174773217 and 0.0018879781754666668.
TEST(UnitsTest, ThreeSignificantFiguresWithAnSiPrefix) {
  EXPECT_EQ(FormatSi(13762.572174773217, "samples/s"), "13.8k samples/s");
  EXPECT_EQ(FormatSi(0.0018879781754666668, "USD"), "0.00189 USD");
  EXPECT_EQ(FormatSi(35210, "J", true), "35.2 kJ");
  EXPECT_EQ(FormatSi(512, "J", true), "512 J");
  EXPECT_EQ(FormatSi(4.9, "s", true), "4.9 s") << "trailing zeros dropped";
  EXPECT_EQ(FormatSi(999.7, "J", true), "1 kJ") << "the prefix of the rounded value";
  EXPECT_EQ(FormatSi(2.5e9, "tokens/s"), "2.5G tokens/s");
  EXPECT_EQ(FormatSi(-1500, ""), "-1.5k");
  EXPECT_EQ(FormatSi(0, "USD"), "0 USD");
  EXPECT_EQ(FormatSi(std::nan(""), "USD"), "-");
  EXPECT_EQ(FormatSi(1e-322, ""), "9.88e-323") << "a denormal a pod served (found by rank_zero_metrics_fuzzer)";
}

TEST(UnitsTest, Seconds) {
  EXPECT_EQ(FormatSeconds(12e-6), "12 us");
  EXPECT_EQ(FormatSeconds(0.0015), "1.50 ms");
  EXPECT_EQ(FormatSeconds(2.34), "2.3 s");
  EXPECT_EQ(FormatSeconds(125), "2m05s");
  EXPECT_EQ(FormatSeconds(3720), "1h02m");
}

TEST(Rfc3339Test, FormatsUtc) {
  EXPECT_EQ(Rfc3339(std::chrono::system_clock::from_time_t(0)), "1970-01-01T00:00:00Z");
  EXPECT_EQ(Rfc3339(std::chrono::system_clock::from_time_t(1795000000)), "2026-11-18T11:06:40Z");
}

TEST(Rfc3339Test, MicrosecondsAndParsing) {
  const auto t = std::chrono::system_clock::from_time_t(1795000000) + std::chrono::microseconds(1234);
  EXPECT_EQ(Rfc3339Micro(t), "2026-11-18T11:06:40.001234Z");
  EXPECT_EQ(ParseRfc3339("2026-11-18T11:06:40.001234Z"), t);
  EXPECT_EQ(ParseRfc3339("2026-11-18T11:06:40Z"), std::chrono::system_clock::from_time_t(1795000000));
  EXPECT_EQ(ParseRfc3339("2026-11-18T13:06:40+02:00"), std::chrono::system_clock::from_time_t(1795000000));
  EXPECT_EQ(ParseRfc3339("2026-11-18T11:06:40"), std::nullopt);
  EXPECT_EQ(ParseRfc3339("yesterday"), std::nullopt);
}

}  // namespace
}  // namespace ergobench
