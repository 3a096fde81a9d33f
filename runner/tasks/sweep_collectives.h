// The collectives task 0a sweeps, as nccl-tests names and measures them (its PERFORMANCE.md):
// an operation's size in bytes (algbw = size / time), and the share of it that each rank's
// link carries in the best algorithm (busbw = algbw x factor), so that busbw compares with a
// link's rate whatever the collective and the number of ranks. And what each rank puts in and
// must get out, exactly, so that every result of the sweep is checked.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "base/status.h"
#include "runner/dist/communicator.h"

namespace ergobench {

enum class Collective { kAllReduce, kAllGather, kReduceScatter, kBroadcast, kReduce, kAllToAll };

// nccl-tests' names, without "_perf": all_reduce, all_gather, reduce_scatter, broadcast,
// reduce, alltoall.
const char* CollectiveName(Collective collective);
StatusOr<Collective> ParseCollective(const std::string& name);

// busbw / algbw: 2(k-1)/k for all_reduce; (k-1)/k for all_gather, reduce_scatter and alltoall;
// 1 for broadcast and reduce.
double BusBandwidthFactor(Collective collective, int world_size);

// A sweep size is the operation's whole buffer, in elements. The count each rank passes is
// that for all_reduce, broadcast and reduce, and one block of it for all_gather,
// reduce_scatter and alltoall (elements / k, at least 1).
int64_t CountPerCall(Collective collective, int64_t elements, int world_size);
// The operation's size as nccl-tests' "size" column counts it: count x k elements for the
// blocked collectives, count for the others.
int64_t OperationBytes(Collective collective, int64_t count, size_t element_size, int world_size);
// The elements of the buffer a rank passes (alltoall: each of its two buffers).
int64_t BufferElements(Collective collective, int64_t count, int world_size);

// Broadcast and reduce go from and to rank 0.
inline constexpr int kSweepRoot = 0;

// This rank's input for one operation of `count` (per call): the buffer's host image
// (alltoall: the send buffer's; its receive buffer is filled with `FillPoison`). Values are
// small integers, exact in every dtype after any reduction order; positions a collective
// overwrites hold -1, so an operation that did nothing is caught.
void FillCollectiveInput(Collective collective, void* data, int64_t count, DType dtype, int rank, int world_size);
void FillPoison(void* data, int64_t elements, DType dtype);
// The first element of this rank's result (alltoall: the receive buffer) that differs from
// what the collective must leave there, or -1. Elements the collective leaves unspecified
// (other ranks' blocks of a reduce-scatter, a reduce's non-root buffers) are not looked at.
int64_t CheckCollectiveResult(Collective collective, const void* data, int64_t count, DType dtype, int rank,
                              int world_size);
// What element `index` of the result must be, for an error message.
double ExpectedResult(Collective collective, int64_t index, int64_t count, DType dtype, int rank, int world_size);

}  // namespace ergobench
