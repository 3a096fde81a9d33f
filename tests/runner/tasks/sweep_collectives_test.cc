#include "runner/tasks/sweep_collectives.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "runner/tasks/allreduce_sweep.h"

namespace ergobench {
namespace {

constexpr Collective kAll[] = {Collective::kAllReduce, Collective::kAllGather, Collective::kReduceScatter,
                               Collective::kBroadcast, Collective::kReduce,    Collective::kAllToAll};

TEST(SweepCollectivesTest, NamesAreNcclTestsAndUnknownOnesAreRefused) {
  for (Collective c : kAll) EXPECT_EQ(*ParseCollective(CollectiveName(c)), c);
  EXPECT_EQ(ParseCollective("allreduce").status().message(),
            "spec.hyperparameters.collective: unknown collective \"allreduce\"; one of all_reduce, all_gather, "
            "reduce_scatter, broadcast, reduce, alltoall");
}

// nccl-tests' PERFORMANCE.md: busbw = algbw x 2(n-1)/n, (n-1)/n or 1.
TEST(SweepCollectivesTest, BusBandwidthFactorsAreNcclTests) {
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(Collective::kAllReduce, 4), 1.5);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(Collective::kAllGather, 4), 0.75);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(Collective::kReduceScatter, 4), 0.75);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(Collective::kAllToAll, 4), 0.75);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(Collective::kBroadcast, 4), 1);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(Collective::kReduce, 4), 1);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(Collective::kAllReduce, 1), 0) << "one rank moves nothing";
}

// A size is the whole buffer: the blocked collectives pass one block of it.
TEST(SweepCollectivesTest, CountsAndBytesAsNcclTestsCountsThem) {
  EXPECT_EQ(CountPerCall(Collective::kAllReduce, 1000, 4), 1000);
  EXPECT_EQ(OperationBytes(Collective::kAllReduce, 1000, 4, 4), 4000);
  EXPECT_EQ(CountPerCall(Collective::kAllGather, 1000, 4), 250);
  EXPECT_EQ(OperationBytes(Collective::kAllGather, 250, 4, 4), 4000);
  EXPECT_EQ(CountPerCall(Collective::kAllToAll, 1001, 4), 250) << "rounded down to whole blocks";
  EXPECT_EQ(CountPerCall(Collective::kReduceScatter, 3, 4), 1) << "at least one element a block";
  EXPECT_EQ(BufferElements(Collective::kReduceScatter, 1, 4), 4);
  EXPECT_EQ(BufferElements(Collective::kBroadcast, 7, 4), 7);
}

// What each collective does, written out on host buffers: the reference the checks must accept.
std::vector<std::vector<float>> Reference(Collective c, std::vector<std::vector<float>> in, int64_t count) {
  const int k = static_cast<int>(in.size());
  std::vector<std::vector<float>> out = in;
  const auto block = [&](int rank, int64_t b) { return in[rank].begin() + b * count; };
  for (int r = 0; r < k; ++r) {
    switch (c) {
      case Collective::kAllReduce:
      case Collective::kReduce:
      case Collective::kReduceScatter:
        for (size_t i = 0; i < out[r].size(); ++i) {
          out[r][i] = 0;
          for (int s = 0; s < k; ++s) out[r][i] += in[s][i];
        }
        break;
      case Collective::kAllGather:
        for (int s = 0; s < k; ++s) std::copy(block(s, s), block(s, s) + count, out[r].begin() + s * count);
        break;
      case Collective::kBroadcast: out[r] = in[kSweepRoot]; break;
      case Collective::kAllToAll:
        for (int s = 0; s < k; ++s) std::copy(block(s, r), block(s, r) + count, out[r].begin() + s * count);
        break;
    }
  }
  return out;
}

TEST(SweepCollectivesTest, EachCollectivesResultPassesAndADoneNothingOrCorruptedOneFails) {
  constexpr int kRanks = 3;
  constexpr int64_t kCount = 11;
  for (Collective c : kAll) {
    SCOPED_TRACE(CollectiveName(c));
    const int64_t elements = BufferElements(c, kCount, kRanks);
    std::vector<std::vector<float>> inputs(kRanks, std::vector<float>(static_cast<size_t>(elements)));
    for (int r = 0; r < kRanks; ++r) {
      FillCollectiveInput(c, inputs[r].data(), kCount, DType::kFloat32, r, kRanks);
    }
    const std::vector<std::vector<float>> results = Reference(c, inputs, kCount);
    for (int r = 0; r < kRanks; ++r) {
      EXPECT_EQ(CheckCollectiveResult(c, results[r].data(), kCount, DType::kFloat32, r, kRanks), -1) << "rank " << r;
    }
    // Rank 1 (not the root, whose broadcast input is already the result) finds an operation
    // that did nothing, except for reduce, whose non-root buffers are unspecified.
    const int64_t idle = CheckCollectiveResult(c, inputs[1].data(), kCount, DType::kFloat32, 1, kRanks);
    if (c == Collective::kReduce) {
      EXPECT_EQ(idle, -1);
    } else {
      EXPECT_GE(idle, 0);
    }
    std::vector<float> corrupted = results[0];
    const size_t at = c == Collective::kReduceScatter ? 3 : corrupted.size() - 1;  // rank 0's own block
    corrupted[at] += 1;
    EXPECT_EQ(CheckCollectiveResult(c, corrupted.data(), kCount, DType::kFloat32, 0, kRanks), static_cast<int64_t>(at));
  }
}

TEST(SweepCollectivesTest, Float16ValuesStayExact) {
  constexpr int kRanks = 40;  // alltoall's tokens go up to 40 x 40 and wrap at 512
  const int64_t count = 9;
  std::vector<uint16_t> send(static_cast<size_t>(count * kRanks));
  FillCollectiveInput(Collective::kAllToAll, send.data(), count, DType::kFloat16, 39, kRanks);
  for (int64_t i = 0; i < count * kRanks; ++i) {
    const double value = HalfToFloat(send[static_cast<size_t>(i)]);
    EXPECT_EQ(value, static_cast<double>((39 * kRanks + i / count) % 512 + 1 + i % count % 7)) << i;
  }
}

}  // namespace
}  // namespace ergobench
