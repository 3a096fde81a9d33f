#include "runner/data/token_batches.h"

#include <algorithm>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace ergobench {
namespace {

using ::testing::ElementsAre;

TEST(TokenBatchesTest, AlikeLengthsShareABatchWithinItsTokens) {
  // Lengths 1..40 on the source, one more on the target: 40 pairs in batches of at most 64
  // padded tokens, every pair once.
  std::vector<int64_t> source, target;
  for (int64_t i = 0; i < 40; ++i) {
    source.push_back(40 - i);
    target.push_back(41 - i);
  }
  const auto batches = TokenBatches(source, target, 64, 7);
  std::vector<int64_t> seen;
  for (const auto& batch : batches) {
    int64_t longest = 0;
    for (const int64_t pair : batch) longest = std::max(longest, target[static_cast<size_t>(pair)]);
    EXPECT_LE(static_cast<int64_t>(batch.size()) * longest, 64);
    // Sorted by length, a batch holds neighbours: its lengths span less than a batch's worth.
    const auto [shortest, most] = std::minmax_element(batch.begin(), batch.end(), [&](int64_t a, int64_t b) {
      return source[static_cast<size_t>(a)] < source[static_cast<size_t>(b)];
    });
    EXPECT_EQ(static_cast<int64_t>(batch.size()) - 1, source[static_cast<size_t>(*most)] - source[static_cast<size_t>(*shortest)]);
    seen.insert(seen.end(), batch.begin(), batch.end());
  }
  std::sort(seen.begin(), seen.end());
  ASSERT_EQ(40u, seen.size());
  for (int64_t i = 0; i < 40; ++i) EXPECT_EQ(i, seen[static_cast<size_t>(i)]);
  // Lengths 41 down to 2 on the target: 64 tokens hold 32 of length 2, ..., one of 41 and up.
  EXPECT_EQ(batches, TokenBatches(source, target, 64, 7));  // the same seed, the same batches
}

TEST(TokenBatchesTest, APairLongerThanTheLimitIsABatchOfItsOwn) {
  EXPECT_THAT(TokenBatches({100}, {3}, 64, 1), ElementsAre(ElementsAre(0)));
  EXPECT_TRUE(TokenBatches({}, {}, 64, 1).empty());
  const auto batches = TokenBatches({2, 2, 2, 2}, {2, 2, 2, 2}, 4, 1);  // two pairs of 2 fill 4
  EXPECT_EQ(2u, batches.size());
  EXPECT_EQ(2u, batches[0].size());
}

}  // namespace
}  // namespace ergobench
