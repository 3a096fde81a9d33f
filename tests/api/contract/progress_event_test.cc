#include "api/contract/progress_event.h"

#include <gtest/gtest.h>

namespace ergobench {
namespace {

TEST(ProgressEventTest, RoundTrip) {
  ProgressEvent e;
  e.rank = 0;
  e.stage = "run";
  e.done = 12;
  e.total = 80;
  e.epoch = 3;
  e.loss = 0.5;
  e.metric = "accuracy";
  e.value = 0.61;
  e.note = "1.0 MiB: busbw 1 GB/s";
  e.elapsed_seconds = 4.5;
  e.done_fraction = 0.25;
  e.seconds_left = 13.5;
  e.estimated_from = "goal";
  std::string line = EncodeProgressEvent(e);
  EXPECT_EQ(line.find('\n'), std::string::npos);
  auto back = ParseProgressEvent(line);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->done, 12);
  EXPECT_EQ(back->total, 80);
  EXPECT_EQ(back->epoch, 3);
  EXPECT_EQ(back->value, 0.61);
  EXPECT_EQ(back->note, e.note);
  EXPECT_EQ(back->elapsed_seconds, 4.5);
  EXPECT_EQ(back->done_fraction, 0.25);
  EXPECT_EQ(back->seconds_left, 13.5);
  EXPECT_EQ(back->estimated_from, "goal");
}

TEST(ProgressEventTest, RejectsGarbage) {
  EXPECT_FALSE(ParseProgressEvent("{\"done\": 1").ok());
  EXPECT_FALSE(ParseProgressEvent("{\"done\": \"x\"}").ok());
}

}  // namespace
}  // namespace ergobench
