#include "runner/data/batch_prefetcher.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>

#include <gtest/gtest.h>

namespace ergobench {
namespace {

// Each sample becomes (sample, position) and label sample.
Status Fill(int64_t sample, int64_t position, float* out, int64_t* label) {
  out[0] = static_cast<float>(sample);
  out[1] = static_cast<float>(position);
  *label = sample;
  return Status::Ok();
}

std::vector<std::vector<float>> DrainAll(BatchPrefetcher& prefetcher, std::vector<int64_t>* sizes) {
  std::vector<std::vector<float>> batches;
  for (;;) {
    auto batch = prefetcher.Next();
    if (!batch.ok()) {
      EXPECT_EQ(batch.status().code(), StatusCode::kOutOfRange) << batch.status().ToString();
      return batches;
    }
    sizes->push_back(batch->size);
    batches.emplace_back(batch->inputs, batch->inputs + 2 * batch->size);
    for (int64_t i = 0; i < batch->size; ++i) EXPECT_EQ(batch->labels[i], static_cast<int64_t>(batch->inputs[2 * i]));
  }
}

TEST(BatchPrefetcherTest, BatchesComeInOrderWhateverTheThreads) {
  const std::vector<int64_t> order = {9, 3, 7, 0, 5, 1, 8, 2, 6, 4};
  for (int threads : {1, 3, 8}) {
    BatchPrefetcher prefetcher(order, 4, 2, threads, 2, Fill);
    std::vector<int64_t> sizes;
    const auto batches = DrainAll(prefetcher, &sizes);
    EXPECT_EQ(sizes, (std::vector<int64_t>{4, 4, 2})) << threads;
    ASSERT_EQ(batches.size(), 3u);
    for (size_t b = 0; b < 3; ++b) {
      for (size_t i = 0; i * 2 < batches[b].size(); ++i) {
        const size_t position = b * 4 + i;
        EXPECT_EQ(batches[b][2 * i], order[position]) << threads;
        EXPECT_EQ(batches[b][2 * i + 1], position) << threads;
      }
    }
  }
}

TEST(BatchPrefetcherTest, WorksAtMostDepthBatchesAhead) {
  std::vector<int64_t> order(40);
  for (int64_t i = 0; i < 40; ++i) order[static_cast<size_t>(i)] = i;
  std::atomic<int64_t> taken{0}, furthest{0}, violations{0};
  BatchPrefetcher prefetcher(order, 4, 2, 4, 3, [&](int64_t s, int64_t p, float* out, int64_t* label) {
    const int64_t b = p / 4;
    furthest = std::max<int64_t>(furthest, b);
    // Batches in use: up to `taken`; three slots: at most taken + 2 (+1 for the counter's lag).
    if (b > taken.load() + 3) ++violations;
    return Fill(s, p, out, label);
  });
  for (int64_t b = 0; b < 10; ++b) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));  // training; the pool runs ahead
    ASSERT_TRUE(prefetcher.Next().ok());
    taken = b + 1;
  }
  EXPECT_EQ(violations.load(), 0);
  EXPECT_EQ(furthest.load(), 9);
}

// Each sample takes an injected 20 ms: two threads that prepared eight of them worked 80 ms
// each, 80 ms over the pool.
TEST(BatchPrefetcherMeasureTest, WorkCountsTheSamplesAndTheirTimeOverTheThreads) {
  const std::vector<int64_t> order = {0, 1, 2, 3, 4, 5, 6, 7};
  BatchPrefetcher prefetcher(order, 4, 2, /*threads=*/2, /*depth=*/2,
                             [](int64_t sample, int64_t position, float* out, int64_t* label) {
                               std::this_thread::sleep_for(std::chrono::milliseconds(20));
                               return Fill(sample, position, out, label);
                             });
  std::vector<int64_t> sizes;
  DrainAll(prefetcher, &sizes);
  const LoadingWork work = prefetcher.Work();
  EXPECT_EQ(work.samples, 8);
  // A sleep ends at its time or a little after, never before. Measured over 10 runs on a quiet
  // AMD EPYC (Zen 4) VM: 0.0805-0.0807 s.
  EXPECT_GE(work.seconds, 0.080);
  EXPECT_LE(work.seconds, 0.084);
  std::printf("measured: %.4f s for 4 x 20 ms a thread\n", work.seconds);
}

TEST(BatchPrefetcherTest, AFailedSampleFailsItsBatch) {
  BatchPrefetcher prefetcher({0, 1, 2, 3, 4, 5}, 2, 2, 2, 2, [](int64_t s, int64_t p, float* out, int64_t* label) {
    if (s == 3) return Status::InvalidArgument("train/n01/3.JPEG: not a JPEG");
    return Fill(s, p, out, label);
  });
  ASSERT_TRUE(prefetcher.Next().ok());
  auto failed = prefetcher.Next();
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().message(), "train/n01/3.JPEG: not a JPEG");
}

TEST(BatchPrefetcherTest, StopsCleanlyInTheMiddleOfAnEpoch) {
  std::vector<int64_t> order(1000, 0);
  BatchPrefetcher prefetcher(order, 10, 2, 3, 2, Fill);
  ASSERT_TRUE(prefetcher.Next().ok());
}  // the destructor must not wait for the other 99 batches

}  // namespace
}  // namespace ergobench
