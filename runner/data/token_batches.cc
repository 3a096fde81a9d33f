#include "runner/data/token_batches.h"

#include <algorithm>

#include "runner/data/shard.h"

namespace ergobench {

std::vector<std::vector<int64_t>> TokenBatches(const std::vector<int64_t>& source_lengths,
                                               const std::vector<int64_t>& target_lengths, int64_t max_tokens,
                                               uint64_t seed) {
  const auto count = static_cast<int64_t>(source_lengths.size());
  std::vector<int64_t> order = EpochPermutation(count, 0, seed);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return target_lengths[static_cast<size_t>(a)] < target_lengths[static_cast<size_t>(b)];
  });
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return source_lengths[static_cast<size_t>(a)] < source_lengths[static_cast<size_t>(b)];
  });
  std::vector<std::vector<int64_t>> batches;
  std::vector<int64_t> batch;
  int64_t longest = 0;
  for (const int64_t pair : order) {
    const int64_t length = std::max(source_lengths[static_cast<size_t>(pair)], target_lengths[static_cast<size_t>(pair)]);
    const int64_t padded = static_cast<int64_t>(batch.size() + 1) * std::max(longest, length);
    if (!batch.empty() && padded > max_tokens) {
      batches.push_back(std::move(batch));
      batch.clear();
      longest = 0;
    }
    batch.push_back(pair);
    longest = std::max(longest, length);
  }
  if (!batch.empty()) batches.push_back(std::move(batch));
  const std::vector<int64_t> shuffled = EpochPermutation(static_cast<int64_t>(batches.size()), 1, seed);
  std::vector<std::vector<int64_t>> out;
  out.reserve(batches.size());
  for (const int64_t i : shuffled) out.push_back(std::move(batches[static_cast<size_t>(i)]));
  return out;
}

}  // namespace ergobench
