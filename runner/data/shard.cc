#include "runner/data/shard.h"

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <utility>

namespace ergobench {

uint64_t SplitMix64::Next() {
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

uint64_t SplitMix64::Below(uint64_t bound) {
  const uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
  uint64_t x;
  do {
    x = Next();
  } while (x >= limit);
  return x % bound;
}

std::vector<int64_t> EpochPermutation(int64_t count, int64_t epoch, uint64_t seed) {
  std::vector<int64_t> order(static_cast<std::size_t>(count));
  std::iota(order.begin(), order.end(), 0);
  SplitMix64 rng(seed ^ (0xd1b54a32d192ed03ull * static_cast<uint64_t>(epoch + 1)));
  for (int64_t i = count - 1; i > 0; --i) {  // Fisher-Yates
    std::swap(order[static_cast<std::size_t>(i)], order[rng.Below(static_cast<uint64_t>(i + 1))]);
  }
  return order;
}

std::vector<int64_t> ShardIndices(int64_t count, int world_size, int rank, int64_t epoch, uint64_t seed) {
  const std::vector<int64_t> order = EpochPermutation(count, epoch, seed);
  const int64_t base = count / world_size;
  const int64_t extra = count % world_size;
  const int64_t begin = rank * base + std::min<int64_t>(rank, extra);
  const int64_t size = base + (rank < extra ? 1 : 0);
  return std::vector<int64_t>(order.begin() + begin, order.begin() + begin + size);
}

int64_t StepsPerEpoch(int64_t count, int world_size, int64_t batch) { return (count / world_size) / batch; }

}  // namespace ergobench
