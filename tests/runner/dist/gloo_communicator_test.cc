// The real gloo backend, two ranks as two threads of this process meeting over a TCPStore
// on loopback: the same code path as two processes, without a launcher.
#include "runner/dist/gloo_communicator.h"

#include <gtest/gtest.h>

#include "runner/tasks/allreduce_sweep.h"
#include "tests/testing/loopback_ranks.h"
#include "tests/testing/sharded_collectives.h"

namespace ergobench {
namespace {

TEST(GlooCommunicatorTest, AllReduceSumMaxMinOverThreeRanks) {
  auto statuses = OnLoopbackRanks(3, [](Communicator& comm) -> Status {
    EXPECT_EQ(comm.world_size(), 3);
    EXPECT_STREQ(comm.backend(), "gloo");
    std::vector<float> sum = {1.0f * (comm.rank() + 1), 10.0f};
    RETURN_IF_ERROR(comm.AllReduce(sum.data(), sum.size(), DType::kFloat32, ReduceOp::kSum));
    EXPECT_EQ(sum, (std::vector<float>{6.0f, 30.0f}));
    std::vector<double> max = {static_cast<double>(comm.rank())};
    RETURN_IF_ERROR(comm.AllReduce(max.data(), 1, DType::kFloat64, ReduceOp::kMax));
    EXPECT_EQ(max[0], 2.0);
    int64_t min = 5 + comm.rank();
    RETURN_IF_ERROR(comm.AllReduce(&min, 1, DType::kInt64, ReduceOp::kMin));
    EXPECT_EQ(min, 5);
    std::vector<uint16_t> half(3);
    FillInput(half.data(), half.size(), DType::kFloat16, comm.rank());
    RETURN_IF_ERROR(comm.AllReduce(half.data(), half.size(), DType::kFloat16, ReduceOp::kSum));
    EXPECT_EQ(FirstMismatch(half.data(), half.size(), DType::kFloat16, 3), -1);
    return comm.Barrier();
  });
  for (const Status& s : statuses) EXPECT_TRUE(s.ok()) << s.ToString();
}

TEST(GlooCommunicatorTest, ReduceScatterAndAllGatherOverOneToFourRanks) {
  for (int ranks : {1, 2, 3, 4}) {
    for (size_t count : {size_t{1}, size_t{1001}, size_t{262147}}) {
      auto statuses = OnLoopbackRanks(ranks, [count](Communicator& comm) {
        return testing::CheckReduceScatterAndAllGather(comm, count);
      });
      for (const Status& s : statuses) EXPECT_TRUE(s.ok()) << ranks << " ranks: " << s.ToString();
    }
  }
}

TEST(GlooCommunicatorTest, ReduceAndAllToAllOverOneToFourRanks) {
  for (int ranks : {1, 2, 3, 4}) {
    for (size_t count : {size_t{1}, size_t{1001}}) {
      auto statuses = OnLoopbackRanks(ranks, [count](Communicator& comm) {
        return testing::CheckReduceAndAllToAll(comm, count);
      });
      for (const Status& s : statuses) EXPECT_TRUE(s.ok()) << ranks << " ranks: " << s.ToString();
    }
  }
}

TEST(GlooCommunicatorTest, Broadcast) {
  auto statuses = OnLoopbackRanks(2, [](Communicator& comm) -> Status {
    std::vector<double> values = comm.rank() == 1 ? std::vector<double>{3.5, -1} : std::vector<double>{0, 0};
    RETURN_IF_ERROR(comm.Broadcast(values.data(), values.size(), DType::kFloat64, 1));
    EXPECT_EQ(values, (std::vector<double>{3.5, -1}));
    return Status::Ok();
  });
  for (const Status& s : statuses) EXPECT_TRUE(s.ok()) << s.ToString();
}

TEST(GlooCommunicatorMeasureTest, RendezvousTimeoutNamesTheMaster) {
  const int port = *FreePort();  // nobody serves it
  RendezvousOptions options = LoopbackRendezvous(1, 2, port);
  options.timeout = std::chrono::milliseconds(1500);
  const auto start = std::chrono::steady_clock::now();
  auto comm = ConnectGloo(options);
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(comm.ok());
  EXPECT_EQ(comm.status().code(), StatusCode::kDeadlineExceeded);
  EXPECT_NE(comm.status().message().find("rendezvous with MASTER_ADDR:MASTER_PORT=127.0.0.1:" + std::to_string(port) +
                                         " failed within 1.5 s"),
            std::string::npos)
      << comm.status().message();
  EXPECT_LT(waited, 10.0);
}

// On a cluster a restarted rank 0 gets a new address, and its name resolves to nothing (or to
// the old pod: no route to host) for a few seconds. torch's store gives up on such errors at
// once; the rendezvous keeps trying them until its deadline.
TEST(GlooCommunicatorMeasureTest, AMasterNotYetReachableIsRetriedUntilTheDeadline) {
  RendezvousOptions options = LoopbackRendezvous(1, 2, *FreePort());
  options.master_addr = "rank-zero-not-yet.invalid";
  options.timeout = std::chrono::milliseconds(2500);
  const auto start = std::chrono::steady_clock::now();
  auto comm = ConnectGloo(options);
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(comm.ok());
  EXPECT_EQ(comm.status().code(), StatusCode::kDeadlineExceeded);
  EXPECT_NE(comm.status().message().find("rank-zero-not-yet.invalid"), std::string::npos) << comm.status().message();
  EXPECT_GE(waited, 2.0);
  EXPECT_LT(waited, 10.0);
}

}  // namespace
}  // namespace ergobench
