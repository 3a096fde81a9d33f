// The MPI backend's collectives across three processes that ctest starts with mpirun
// (tests/CMakeLists.txt). MPI initialises once per process, hence one test.
#include "runner/dist/mpi_communicator.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "tests/testing/sharded_collectives.h"

namespace ergobench {
namespace {

TEST(MpiCommunicatorTest, AllReduceReduceScatterAndAllGather) {
  const char* size = std::getenv("OMPI_COMM_WORLD_SIZE");
  ASSERT_NE(size, nullptr) << "start this test with mpirun";
  auto comm = ConnectMpi(std::atoi(size));
  ASSERT_TRUE(comm.ok()) << comm.status().ToString();
  Communicator& c = **comm;
  double sum = c.rank() + 1.0;
  ASSERT_TRUE(c.AllReduce(&sum, 1, DType::kFloat64, ReduceOp::kSum).ok());
  EXPECT_EQ(sum, c.world_size() * (c.world_size() + 1) / 2.0);
  for (size_t count : {size_t{1}, size_t{1001}, size_t{262147}}) {
    const Status checked = testing::CheckReduceScatterAndAllGather(c, count);
    EXPECT_TRUE(checked.ok()) << checked.ToString();
  }
  for (size_t count : {size_t{1}, size_t{1001}}) {
    const Status checked = testing::CheckReduceAndAllToAll(c, count);
    EXPECT_TRUE(checked.ok()) << checked.ToString();
  }
  EXPECT_EQ(c.ReduceScatter(&sum, 1, DType::kFloat16, ReduceOp::kSum).code(), StatusCode::kUnimplemented);
}

}  // namespace
}  // namespace ergobench
