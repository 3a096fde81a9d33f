#include "kube/runtime/work_queue.h"

#include <gtest/gtest.h>

#include <thread>

namespace ergobench::runtime {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

TEST(WorkQueue, DeduplicatesQueuedKeys) {
  FakeTime time;
  WorkQueue queue(&time);
  queue.Add("a");
  queue.Add("b");
  queue.Add("a");
  EXPECT_EQ(queue.Len(), 2u);
  EXPECT_EQ(queue.TryGet(), "a");
  EXPECT_EQ(queue.TryGet(), "b");
  EXPECT_EQ(queue.TryGet(), std::nullopt);
}

TEST(WorkQueue, AKeyInProcessingIsRequeuedOnceWhenDone) {
  FakeTime time;
  WorkQueue queue(&time);
  queue.Add("a");
  ASSERT_EQ(queue.TryGet(), "a");
  queue.Add("a");
  queue.Add("a");
  // Never to a second worker while the first holds it.
  EXPECT_EQ(queue.TryGet(), std::nullopt);
  queue.Done("a");
  EXPECT_EQ(queue.TryGet(), "a");
  queue.Done("a");
  EXPECT_EQ(queue.TryGet(), std::nullopt);
}

TEST(WorkQueue, AddAfterWaitsOnTheClockAndKeepsTheEarliest) {
  FakeTime time;
  WorkQueue queue(&time);
  queue.AddAfter("a", seconds(10));
  queue.AddAfter("a", seconds(3));
  queue.AddAfter("a", seconds(20));
  EXPECT_EQ(queue.WaitingLen(), 1u);
  time.Advance(seconds(2));
  EXPECT_EQ(queue.TryGet(), std::nullopt);
  time.Advance(seconds(1));
  EXPECT_EQ(queue.TryGet(), "a");
}

TEST(WorkQueue, RateLimitedRetriesBackOffPerKey) {
  FakeTime time;
  WorkQueue queue(&time);
  queue.AddRateLimited("a");  // 5 ms
  queue.AddRateLimited("b");  // 5 ms: b's failures are its own
  time.Advance(milliseconds(5));
  EXPECT_EQ(queue.TryGet(), "a");
  EXPECT_EQ(queue.TryGet(), "b");
  queue.Done("a");
  queue.Done("b");
  queue.AddRateLimited("a");  // 10 ms
  time.Advance(milliseconds(9));
  EXPECT_EQ(queue.TryGet(), std::nullopt);
  time.Advance(milliseconds(1));
  EXPECT_EQ(queue.TryGet(), "a");
  EXPECT_EQ(queue.NumRequeues("a"), 2);
  queue.Forget("a");
  EXPECT_EQ(queue.NumRequeues("a"), 0);
}

TEST(WorkQueue, GetWakesForWorkAndForShutdown) {
  RealTime time;
  WorkQueue queue(&time);
  std::thread producer([&] {
    std::this_thread::sleep_for(milliseconds(20));
    queue.AddAfter("late", milliseconds(20));
  });
  EXPECT_EQ(queue.Get(), "late");
  producer.join();
  std::thread stopper([&] {
    std::this_thread::sleep_for(milliseconds(20));
    queue.ShutDown();
  });
  EXPECT_EQ(queue.Get(), std::nullopt);
  stopper.join();
  queue.Add("after shutdown");
  EXPECT_EQ(queue.Len(), 0u);
}

TEST(RateLimiter, PerKeyExponentialCappedAtItsMaximum) {
  FakeTime time;
  RateLimiter limiter(&time, RateLimits{milliseconds(5), seconds(1000), 1e9, 1e9});
  std::vector<Duration> delays;
  for (int i = 0; i < 4; ++i) delays.push_back(limiter.When("k"));
  EXPECT_EQ(delays, (std::vector<Duration>{milliseconds(5), milliseconds(10), milliseconds(20), milliseconds(40)}));
  for (int i = 0; i < 100; ++i) limiter.When("k");
  EXPECT_EQ(limiter.When("k"), seconds(1000));
}

TEST(RateLimiter, TheBucketLimitsAStormOfKeys) {
  FakeTime time;
  RateLimiter limiter(&time, RateLimits{milliseconds(5), seconds(1000), 10, 100});
  // The burst of 100 goes out at the per-key delay, then 10 per second.
  for (int i = 0; i < 100; ++i) EXPECT_EQ(limiter.When("k" + std::to_string(i)), milliseconds(5));
  EXPECT_EQ(limiter.When("k100"), milliseconds(100));
  EXPECT_EQ(limiter.When("k101"), milliseconds(200));
  time.Advance(seconds(1));  // 10 tokens back: the two reservations repaid, 8 left
  for (int i = 0; i < 8; ++i) EXPECT_EQ(limiter.When("m" + std::to_string(i)), milliseconds(5));
  EXPECT_EQ(limiter.When("m8"), milliseconds(100));
}

}  // namespace
}  // namespace ergobench::runtime
