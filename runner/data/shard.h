// Data-parallel sharding: every rank draws the same permutation of the samples each epoch
// (seeded by the shared seed and the epoch) and takes its own contiguous cut of it, so the
// shards are disjoint, together cover every sample, and change every epoch. The generator
// is our own, not std::shuffle, whose output differs between standard libraries.
#pragma once

#include <cstdint>
#include <vector>

namespace ergobench {

// A permutation of 0..count-1 that depends only on (seed, epoch).
std::vector<int64_t> EpochPermutation(int64_t count, int64_t epoch, uint64_t seed);

// `rank`'s shard of the epoch's permutation; shard sizes differ by at most one.
std::vector<int64_t> ShardIndices(int64_t count, int world_size, int rank, int64_t epoch, uint64_t seed);

// Full batches every rank can take in an epoch. All ranks must make the same number of
// gradient all-reduces, so the count comes from the smallest shard.
int64_t StepsPerEpoch(int64_t count, int world_size, int64_t batch);

// splitmix64: a small, well-mixed, portable generator.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t Next();
  // Uniform in [0, bound), without modulo bias.
  uint64_t Below(uint64_t bound);

 private:
  uint64_t state_;
};

// The seed of a rank's own random stream in an epoch (augmentation, synthetic data): distinct
// for every (seed, rank, epoch), so that ranks do not draw the same crops or tokens.
inline uint64_t RankStreamSeed(int64_t seed, int rank, int64_t epoch) {
  return static_cast<uint64_t>(seed) * 1000003u + static_cast<uint64_t>(rank) * 7919u + static_cast<uint64_t>(epoch);
}

}  // namespace ergobench
