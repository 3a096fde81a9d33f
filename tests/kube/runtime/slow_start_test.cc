#include "kube/runtime/slow_start.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace ergobench::runtime {
namespace {

using namespace std::chrono_literals;

// Calls that can only all finish if each batch's calls run at the same time: every call waits
// (up to 5 s) for the rest of its batch to arrive.
class BatchRecorder {
 public:
  explicit BatchRecorder(std::vector<size_t> batch_ends) : batch_ends_(std::move(batch_ends)), finished_before_(32) {}

  Status Call(size_t i) {
    std::unique_lock<std::mutex> lock(mutex_);
    finished_before_[i] = finished_;
    ++arrived_;
    changed_.notify_all();
    const size_t end = *std::upper_bound(batch_ends_.begin(), batch_ends_.end(), i);
    if (!changed_.wait_for(lock, 5s, [&] { return arrived_ >= end; })) ++timeouts_;
    ++finished_;
    return Status::Ok();
  }

  std::vector<size_t> batch_ends_;
  std::vector<size_t> finished_before_;  // by call: how many calls had finished when it began
  int timeouts_ = 0;

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  size_t arrived_ = 0, finished_ = 0;
};

TEST(SlowStartBatches, BatchesDoubleAndEachRunsConcurrentlyAfterTheLast) {
  BatchRecorder recorder({1, 3, 7, 9});
  ASSERT_TRUE(SlowStartBatches(9, 1, [&](size_t i) { return recorder.Call(i); }).ok());
  EXPECT_EQ(recorder.timeouts_, 0) << "a batch's calls did not run at the same time";
  EXPECT_EQ(std::vector<size_t>(recorder.finished_before_.begin(), recorder.finished_before_.begin() + 9),
            (std::vector<size_t>{0, 1, 1, 3, 3, 3, 3, 7, 7}));
}

TEST(SlowStartBatches, ALargerFirstBatch) {
  BatchRecorder recorder({2, 6});
  ASSERT_TRUE(SlowStartBatches(6, 2, [&](size_t i) { return recorder.Call(i); }).ok());
  EXPECT_EQ(recorder.timeouts_, 0);
  EXPECT_EQ(std::vector<size_t>(recorder.finished_before_.begin(), recorder.finished_before_.begin() + 6),
            (std::vector<size_t>{0, 0, 2, 2, 2, 2}));
}

TEST(SlowStartBatches, ABatchWithAFailureIsTheLastAndItsFirstFailureIsTheAnswer) {
  std::vector<std::atomic<int>> calls(7);
  const Status status = SlowStartBatches(7, 1, [&](size_t i) {
    ++calls[i];
    if (i == 4) return Status::PermissionDenied("quota: call 4");
    if (i == 5) return Status::PermissionDenied("quota: call 5");
    return Status::Ok();
  });
  EXPECT_EQ(status.code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(status.message(), "quota: call 4");
  std::vector<int> counts;
  for (auto& c : calls) counts.push_back(c.load());
  // Batches {0}, {1, 2}, {3, 4, 5, 6}: the failing batch runs whole, nothing after it.
  EXPECT_EQ(counts, (std::vector<int>{1, 1, 1, 1, 1, 1, 1}));

  std::vector<std::atomic<int>> second(7);
  EXPECT_FALSE(SlowStartBatches(7, 1, [&](size_t i) {
                 ++second[i];
                 return i == 1 ? Status::Unavailable("down") : Status::Ok();
               }).ok());
  counts.clear();
  for (auto& c : second) counts.push_back(c.load());
  EXPECT_EQ(counts, (std::vector<int>{1, 1, 1, 0, 0, 0, 0}));
}

TEST(SlowStartBatches, NothingToDo) {
  EXPECT_TRUE(SlowStartBatches(0, 1, [](size_t) { return Status::Internal("called"); }).ok());
}

TEST(RunConcurrently, RunsEveryCallAndAnswersTheFirstFailureInOrder) {
  std::atomic<int> ran{0};
  const Status status = RunConcurrently({
      [&] { ++ran; return Status::Ok(); },
      [&] { ++ran; std::this_thread::sleep_for(20ms); return Status::NotFound("second"); },
      [&] { ++ran; return Status::Internal("third"); },
  });
  EXPECT_EQ(ran.load(), 3);
  EXPECT_EQ(status.message(), "second");
  EXPECT_TRUE(RunConcurrently({}).ok());
}

}  // namespace
}  // namespace ergobench::runtime
