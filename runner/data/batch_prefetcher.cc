#include "runner/data/batch_prefetcher.h"

#include <algorithm>

namespace ergobench {

BatchPrefetcher::BatchPrefetcher(std::vector<int64_t> order, int64_t batch, int64_t floats_per_sample, int threads,
                                 int depth, FillSample fill)
    : order_(std::move(order)),
      batch_(std::max<int64_t>(1, batch)),
      floats_(floats_per_sample),
      depth_(std::max(2, depth)),
      fill_(std::move(fill)),
      slots_(static_cast<size_t>(depth_)) {
  for (int64_t b = 0; b < std::min(depth_, BatchCount()); ++b) {
    Slot& slot = slots_[static_cast<size_t>(b)];
    slot.inputs.resize(static_cast<size_t>(batch_ * floats_));
    slot.labels.resize(static_cast<size_t>(batch_));
    slot.remaining = BatchSize(b);
  }
  for (int t = 0; t < std::max(1, threads); ++t) threads_.emplace_back([this] { Prepare(); });
}

BatchPrefetcher::~BatchPrefetcher() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  slot_free_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void BatchPrefetcher::Prepare() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stop_ && next_position_ < static_cast<int64_t>(order_.size())) {
    const int64_t position = next_position_++;
    const int64_t b = position / batch_;
    // The slot is free once the batch `depth` before this one has been given back.
    slot_free_.wait(lock, [&] { return stop_ || b < std::max<int64_t>(0, delivered_ - 1) + depth_; });
    if (stop_) return;
    Slot& slot = slots_[static_cast<size_t>(b % depth_)];
    const int64_t i = position - b * batch_;
    lock.unlock();
    const auto start = std::chrono::steady_clock::now();
    Status status = fill_(order_[static_cast<size_t>(position)], position, slot.inputs.data() + i * floats_,
                          slot.labels.data() + i);
    const std::chrono::duration<double> filled = std::chrono::steady_clock::now() - start;
    lock.lock();
    fill_seconds_ += filled.count();
    ++filled_;
    if (!status.ok() && slot.status.ok()) slot.status = std::move(status);
    if (--slot.remaining == 0) batch_done_.notify_all();
  }
}

StatusOr<BatchPrefetcher::Batch> BatchPrefetcher::Next() {
  std::unique_lock<std::mutex> lock(mutex_);
  const int64_t b = delivered_;
  if (b >= BatchCount()) return Status::OutOfRange("the epoch's batches are all taken");
  if (b > 0 && b - 1 + depth_ < BatchCount()) {
    // The previous batch is given back: its slot takes the batch `depth` after it.
    Slot& previous = slots_[static_cast<size_t>((b - 1) % depth_)];
    previous.remaining = BatchSize(b - 1 + depth_);
    previous.status = Status::Ok();
  }
  delivered_ = b + 1;
  slot_free_.notify_all();
  Slot& slot = slots_[static_cast<size_t>(b % depth_)];
  batch_done_.wait(lock, [&] { return slot.remaining == 0; });
  if (!slot.status.ok()) return slot.status;
  return Batch{slot.inputs.data(), slot.labels.data(), BatchSize(b)};
}

LoadingWork BatchPrefetcher::Work() {
  std::lock_guard<std::mutex> lock(mutex_);
  return {filled_, fill_seconds_ / static_cast<double>(threads_.size())};
}

}  // namespace ergobench
