// Prepares batches ahead of training on a pool of threads, as a DataLoader's workers do: the
// samples of `order` are claimed one at a time in order, so every thread works on the oldest
// unfinished batch and the next batch is usually complete before training asks for it. At
// most `depth` batches are in memory. What a sample becomes may depend only on its place in
// `order` (augmentation draws from a generator seeded by it), never on which thread or when,
// so a run's data is the same whatever the thread count.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "base/status.h"

namespace ergobench {

// Samples a data path prepared, and the seconds it worked on them.
struct LoadingWork {
  int64_t samples = 0;
  double seconds = 0;
  LoadingWork& operator+=(const LoadingWork& other) {
    samples += other.samples;
    seconds += other.seconds;
    return *this;
  }
};

class BatchPrefetcher {
 public:
  // Writes sample `order[position]` as `floats` values at `out` and its label; an error ends
  // the epoch (Next returns it).
  using FillSample = std::function<Status(int64_t sample, int64_t position, float* out, int64_t* label)>;

  struct Batch {
    const float* inputs = nullptr;  // size × floats_per_sample
    const int64_t* labels = nullptr;
    int64_t size = 0;  // the last batch may be short
  };

  // Batches are runs of `batch` consecutive entries of `order`. Threads start at once.
  BatchPrefetcher(std::vector<int64_t> order, int64_t batch, int64_t floats_per_sample, int threads, int depth,
                  FillSample fill);
  ~BatchPrefetcher();
  BatchPrefetcher(const BatchPrefetcher&) = delete;
  BatchPrefetcher& operator=(const BatchPrefetcher&) = delete;

  // Waits for the next batch. Its memory stays valid until the following call; OutOfRange
  // after the last batch.
  StatusOr<Batch> Next();

  // The samples prepared so far and the seconds the threads spent on them over the thread
  // count: the time the pool worked, were its work spread evenly (IoFigures' loading rate).
  LoadingWork Work();

 private:
  struct Slot {
    std::vector<float> inputs;
    std::vector<int64_t> labels;
    int64_t remaining = 0;  // samples of the slot's batch not yet written
    Status status;
  };

  int64_t BatchCount() const { return (static_cast<int64_t>(order_.size()) + batch_ - 1) / batch_; }
  int64_t BatchSize(int64_t b) const { return std::min(batch_, static_cast<int64_t>(order_.size()) - b * batch_); }
  void Prepare();

  const std::vector<int64_t> order_;
  const int64_t batch_;
  const int64_t floats_;
  const int64_t depth_;
  const FillSample fill_;
  std::vector<Slot> slots_;  // batch b lives in slot b % depth
  std::mutex mutex_;
  std::condition_variable slot_free_;
  std::condition_variable batch_done_;
  int64_t next_position_ = 0;
  int64_t delivered_ = 0;  // batches handed out; the last of them is still in use
  bool stop_ = false;
  int64_t filled_ = 0;
  double fill_seconds_ = 0;  // summed over threads
  std::vector<std::thread> threads_;
};

}  // namespace ergobench
