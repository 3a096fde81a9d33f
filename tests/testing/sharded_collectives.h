// The contract of Communicator's collectives, checked the same way for every backend: the gloo
// test runs it on loopback threads, the MPI test under mpirun, the NCCL test on the fake NCCL.
#pragma once

#include <gtest/gtest.h>

#include <vector>

#include "runner/dist/communicator.h"

namespace ergobench::testing {

// Rank r contributes r + 1 + i at element i of a buffer of `count` elements per rank (odd and
// not a multiple of the world size, so blocks do not line up with anything by chance).
inline Status CheckReduceScatterAndAllGather(Communicator& comm, size_t count) {
  const int k = comm.world_size();
  const int r = comm.rank();
  const size_t n = count * static_cast<size_t>(k);
  std::vector<float> data(n);
  for (size_t i = 0; i < n; ++i) data[i] = static_cast<float>(r + 1) + static_cast<float>(i % 1000);
  RETURN_IF_ERROR(comm.ReduceScatter(data.data(), count, DType::kFloat32, ReduceOp::kSum));
  // Block r holds the sum over ranks: k(k+1)/2 + k * (i % 1000), exact in float.
  for (size_t i = r * count; i < (r + 1) * count; ++i) {
    const float expected = static_cast<float>(k * (k + 1) / 2) + static_cast<float>(k) * static_cast<float>(i % 1000);
    if (data[i] != expected) {
      ADD_FAILURE() << "rank " << r << " element " << i << ": " << data[i] << " != " << expected;
      break;
    }
  }
  // Every rank's block carries its rank; all-gathered, block j holds j everywhere.
  std::vector<double> blocks(n, -1.0);
  for (size_t i = r * count; i < (r + 1) * count; ++i) blocks[i] = r + 0.5;
  RETURN_IF_ERROR(comm.AllGather(blocks.data(), count, DType::kFloat64));
  for (size_t i = 0; i < n; ++i) {
    if (blocks[i] != static_cast<double>(i / count) + 0.5) {
      ADD_FAILURE() << "rank " << r << " element " << i << " of the gathered buffer is " << blocks[i];
      break;
    }
  }
  std::vector<int64_t> max(n);
  for (size_t i = 0; i < n; ++i) max[i] = (static_cast<int64_t>(i) + r) % k;
  RETURN_IF_ERROR(comm.ReduceScatter(max.data(), count, DType::kInt64, ReduceOp::kMax));
  for (size_t i = r * count; i < (r + 1) * count; ++i) EXPECT_EQ(max[i], k - 1) << "rank " << r;
  return comm.Barrier();
}

// Reduce to the last rank, and all-to-all: block j of rank r's send is 1000r + j + i % 7 at
// element i, so rank r must receive 1000j + r + i % 7 in block j.
inline Status CheckReduceAndAllToAll(Communicator& comm, size_t count) {
  const int k = comm.world_size();
  const int r = comm.rank();
  std::vector<double> values(count);
  for (size_t i = 0; i < count; ++i) values[i] = r + 1 + static_cast<double>(i % 5);
  RETURN_IF_ERROR(comm.Reduce(values.data(), count, DType::kFloat64, ReduceOp::kSum, k - 1));
  if (r == k - 1) {
    for (size_t i = 0; i < count; ++i) {
      if (values[i] != k * (k + 1) / 2.0 + k * static_cast<double>(i % 5)) {
        ADD_FAILURE() << "the root's element " << i << " is " << values[i];
        break;
      }
    }
  }
  const size_t n = count * static_cast<size_t>(k);
  std::vector<float> send(n);
  std::vector<float> receive(n, -1);
  for (size_t i = 0; i < n; ++i) send[i] = static_cast<float>(1000 * r + i / count + i % count % 7);
  RETURN_IF_ERROR(comm.AllToAll(send.data(), receive.data(), count, DType::kFloat32));
  for (size_t i = 0; i < n; ++i) {
    if (receive[i] != static_cast<float>(1000 * (i / count) + r + i % count % 7)) {
      ADD_FAILURE() << "rank " << r << " received " << receive[i] << " at " << i;
      break;
    }
  }
  return comm.Barrier();
}

}  // namespace ergobench::testing
