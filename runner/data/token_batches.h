// Batches of sentence pairs by tokens, as fairseq makes them for MLBench's task 4b: the pairs in
// a seeded random order, then stably sorted by source length (target length within it), cut
// into batches whose padded size (sentences × the longest side in the batch) stays within
// `max_tokens`, and the batches shuffled. Sentences of alike length share a batch, so little
// of it is padding. A pair longer than max_tokens on its own makes a batch of one. Nothing here
// depends on torch.
#pragma once

#include <cstdint>
#include <vector>

namespace ergobench {

std::vector<std::vector<int64_t>> TokenBatches(const std::vector<int64_t>& source_lengths,
                                               const std::vector<int64_t>& target_lengths, int64_t max_tokens,
                                               uint64_t seed);

}  // namespace ergobench
