// A fake NCCL for the communicator's tests on machines without a GPU: the entry points of
// NCCL's own nccl.h (so a declaration that drifts from the toolkit's fails to compile), on
// host memory, with ranks as threads of one process. Communicators that share a unique id
// meet in a registry; each collective is two barriers: every rank computes its output from
// the others' inputs into a private copy, and writes it back once all have read.
// Built as a shared library and loaded with dlopen, like the real one.
#include <nccl.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace {

struct Group {
  explicit Group(int ranks) : size(ranks), inputs(ranks), outputs(ranks) {}
  // Blocks until all `size` ranks arrive; the last wakes the others.
  void Meet() {
    std::unique_lock<std::mutex> lock(mutex);
    const uint64_t generation = meetings;
    if (++arrived == size) {
      arrived = 0;
      ++meetings;
      woken.notify_all();
      return;
    }
    woken.wait(lock, [&] { return meetings != generation; });
  }

  const int size;
  std::mutex mutex;
  std::condition_variable woken;
  int arrived = 0;
  uint64_t meetings = 0;
  std::vector<const void*> inputs;  // by rank, for the collective under way
  std::vector<void*> outputs;
};

}  // namespace

struct ncclComm {
  std::shared_ptr<Group> group;
  int rank = 0;
};

namespace {

std::atomic<ncclResult_t> async_error{ncclSuccess};  // what every communicator reports

struct PointToPoint {
  bool send;
  void* buffer;
  size_t bytes;
  int peer;
  ncclComm_t comm;
};
thread_local int group_depth = 0;
thread_local std::vector<PointToPoint> group_ops;  // of the group this thread has open
std::mutex registry_mutex;
std::map<std::string, std::weak_ptr<Group>> registry;  // by unique id
uint64_t ids_made = 0;

size_t ElementSize(ncclDataType_t type) {
  switch (type) {
    case ncclFloat32: case ncclInt32: case ncclUint32: return 4;
    case ncclFloat64: case ncclInt64: case ncclUint64: return 8;
    default: return 0;  // float16, bfloat16, fp8 and 8-bit types are not faked
  }
}

template <typename T>
T Combine(T a, T b, ncclRedOp_t op) {
  switch (op) {
    case ncclMax: return a > b ? a : b;
    case ncclMin: return a < b ? a : b;
    default: return a + b;
  }
}

template <typename T>
void ReduceInto(std::vector<std::byte>& out, const std::vector<const void*>& inputs, size_t offset, size_t count,
                ncclRedOp_t op) {
  out.resize(count * sizeof(T));
  T* result = reinterpret_cast<T*>(out.data());
  for (size_t i = 0; i < count; ++i) {
    T value = static_cast<const T*>(inputs[0])[offset + i];
    for (size_t r = 1; r < inputs.size(); ++r) value = Combine(value, static_cast<const T*>(inputs[r])[offset + i], op);
    result[i] = value;
  }
}

// Every rank's result of a reduction over `count` elements from element `offset` of each input.
ncclResult_t Reduce(std::vector<std::byte>& out, const std::vector<const void*>& inputs, size_t offset, size_t count,
                    ncclDataType_t type, ncclRedOp_t op) {
  switch (type) {
    case ncclFloat32: ReduceInto<float>(out, inputs, offset, count, op); return ncclSuccess;
    case ncclFloat64: ReduceInto<double>(out, inputs, offset, count, op); return ncclSuccess;
    case ncclInt32: ReduceInto<int32_t>(out, inputs, offset, count, op); return ncclSuccess;
    case ncclInt64: ReduceInto<int64_t>(out, inputs, offset, count, op); return ncclSuccess;
    default: return ncclInvalidArgument;
  }
}

// One collective: inputs and outputs posted, `compute` fills this rank's output bytes from
// every rank's input, then all write back.
template <typename Compute>
ncclResult_t Collective(ncclComm_t comm, const void* input, void* output, size_t output_bytes, Compute compute) {
  if (comm == nullptr) return ncclInvalidArgument;
  Group& g = *comm->group;
  {
    std::lock_guard<std::mutex> lock(g.mutex);
    g.inputs[comm->rank] = input;
    g.outputs[comm->rank] = output;
  }
  g.Meet();
  std::vector<std::byte> mine;
  const ncclResult_t result = compute(g.inputs, mine);
  g.Meet();
  if (result == ncclSuccess && output != nullptr) std::memcpy(output, mine.data(), output_bytes);
  g.Meet();  // nobody posts the next collective's buffers while another still reads these
  return result;
}

}  // namespace

extern "C" {

ncclResult_t ncclGetVersion(int* version) {
  *version = 22809;
  return ncclSuccess;
}

ncclResult_t ncclGetUniqueId(ncclUniqueId* id) {
  std::lock_guard<std::mutex> lock(registry_mutex);
  std::memset(id->internal, 0, sizeof id->internal);
  std::snprintf(id->internal, sizeof id->internal, "fake-nccl-%llu", static_cast<unsigned long long>(++ids_made));
  return ncclSuccess;
}

ncclResult_t ncclCommInitRank(ncclComm_t* comm, int nranks, ncclUniqueId id, int rank) {
  if (nranks < 1 || rank < 0 || rank >= nranks) return ncclInvalidArgument;
  std::shared_ptr<Group> group;
  {
    std::lock_guard<std::mutex> lock(registry_mutex);
    const std::string key(id.internal, sizeof id.internal);
    group = registry[key].lock();
    if (!group) {
      group = std::make_shared<Group>(nranks);
      registry[key] = group;
    }
  }
  if (group->size != nranks) return ncclInvalidUsage;
  *comm = new ncclComm{group, rank};
  group->Meet();  // NCCL's init is collective
  return ncclSuccess;
}

ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  delete comm;
  return ncclSuccess;
}

ncclResult_t ncclCommAbort(ncclComm_t comm) {
  delete comm;
  return ncclSuccess;
}

ncclResult_t ncclCommGetAsyncError(ncclComm_t, ncclResult_t* error) {
  *error = async_error.load();
  return ncclSuccess;
}

const char* ncclGetErrorString(ncclResult_t result) {
  switch (result) {
    case ncclSuccess: return "no error";
    case ncclInvalidArgument: return "invalid argument (run with NCCL_DEBUG=WARN for details)";
    case ncclInvalidUsage: return "invalid usage (run with NCCL_DEBUG=WARN for details)";
    case ncclRemoteError: return "remote process exited or there was a network error";
    default: return "unhandled error";
  }
}

const char* ncclGetLastError(ncclComm_t) { return "fake NCCL"; }

ncclResult_t ncclAllReduce(const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t type, ncclRedOp_t op,
                           ncclComm_t comm, cudaStream_t) {
  if (ElementSize(type) == 0) return ncclInvalidArgument;
  return Collective(comm, sendbuff, recvbuff, count * ElementSize(type), [&](auto& inputs, auto& out) {
    return Reduce(out, inputs, 0, count, type, op);
  });
}

// Rank r's output is block r of the reduced send buffers (recvcount elements each).
ncclResult_t ncclReduceScatter(const void* sendbuff, void* recvbuff, size_t recvcount, ncclDataType_t type,
                               ncclRedOp_t op, ncclComm_t comm, cudaStream_t) {
  if (ElementSize(type) == 0) return ncclInvalidArgument;
  const int rank = comm ? comm->rank : 0;
  return Collective(comm, sendbuff, recvbuff, recvcount * ElementSize(type), [&](auto& inputs, auto& out) {
    return Reduce(out, inputs, rank * recvcount, recvcount, type, op);
  });
}

// Every rank's output is every rank's send block, in rank order.
ncclResult_t ncclAllGather(const void* sendbuff, void* recvbuff, size_t sendcount, ncclDataType_t type,
                           ncclComm_t comm, cudaStream_t) {
  const size_t block = sendcount * ElementSize(type);
  if (block == 0 && sendcount > 0) return ncclInvalidArgument;
  const int ranks = comm ? comm->group->size : 0;
  return Collective(comm, sendbuff, recvbuff, block * ranks, [&](auto& inputs, auto& out) {
    out.resize(block * inputs.size());
    for (size_t r = 0; r < inputs.size(); ++r) std::memcpy(out.data() + r * block, inputs[r], block);
    return ncclSuccess;
  });
}

ncclResult_t ncclBroadcast(const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t type, int root,
                           ncclComm_t comm, cudaStream_t) {
  const size_t bytes = count * ElementSize(type);
  if (comm == nullptr || root < 0 || root >= comm->group->size) return ncclInvalidArgument;
  return Collective(comm, sendbuff, recvbuff, bytes, [&](auto& inputs, auto& out) {
    out.resize(bytes);
    std::memcpy(out.data(), inputs[root], bytes);
    return ncclSuccess;
  });
}

ncclResult_t ncclReduce(const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t type, ncclRedOp_t op,
                        int root, ncclComm_t comm, cudaStream_t) {
  if (ElementSize(type) == 0 || comm == nullptr || root < 0 || root >= comm->group->size) return ncclInvalidArgument;
  const bool is_root = comm->rank == root;
  return Collective(comm, sendbuff, is_root ? recvbuff : nullptr, count * ElementSize(type),
                    [&](auto& inputs, auto& out) { return Reduce(out, inputs, 0, count, type, op); });
}

// Sends and receives inside ncclGroupStart/End, exchanged when the group ends. Unlike NCCL's,
// every rank of the communicator must end a group at the same time (as all-to-all does), and a
// send outside a group is refused.
ncclResult_t ncclSend(const void* sendbuff, size_t count, ncclDataType_t type, int peer, ncclComm_t comm,
                      cudaStream_t) {
  if (group_depth == 0 || comm == nullptr || ElementSize(type) == 0) return ncclInvalidUsage;
  group_ops.push_back({true, const_cast<void*>(sendbuff), count * ElementSize(type), peer, comm});
  return ncclSuccess;
}

ncclResult_t ncclRecv(void* recvbuff, size_t count, ncclDataType_t type, int peer, ncclComm_t comm, cudaStream_t) {
  if (group_depth == 0 || comm == nullptr || ElementSize(type) == 0) return ncclInvalidUsage;
  group_ops.push_back({false, recvbuff, count * ElementSize(type), peer, comm});
  return ncclSuccess;
}

ncclResult_t ncclGroupStart() {
  ++group_depth;
  return ncclSuccess;
}

ncclResult_t ncclGroupEnd() {
  if (group_depth == 0) return ncclInvalidUsage;
  if (--group_depth > 0 || group_ops.empty()) return ncclSuccess;
  const std::vector<PointToPoint> mine = std::move(group_ops);
  group_ops.clear();
  ncclComm_t comm = mine.front().comm;
  Group& g = *comm->group;
  {
    std::lock_guard<std::mutex> lock(g.mutex);
    g.inputs[comm->rank] = &mine;
  }
  g.Meet();
  // The n-th receive from a peer takes the peer's n-th send to this rank.
  ncclResult_t result = ncclSuccess;
  std::map<int, int> received;  // from peer: how many so far
  for (const PointToPoint& op : mine) {
    if (op.send) continue;
    const auto& theirs = *static_cast<const std::vector<PointToPoint>*>(g.inputs[op.peer]);
    int skip = received[op.peer]++;
    const PointToPoint* match = nullptr;
    for (const PointToPoint& other : theirs) {
      if (other.send && other.peer == comm->rank && skip-- == 0) {
        match = &other;
        break;
      }
    }
    if (match == nullptr || match->bytes != op.bytes) {
      result = ncclInvalidUsage;
      continue;
    }
    std::memcpy(op.buffer, match->buffer, op.bytes);
  }
  g.Meet();  // the send buffers are read before anyone goes on
  return result;
}

// Test control, not NCCL's: the error every ncclCommGetAsyncError reports from now on.
void fake_nccl_set_async_error(ncclResult_t error) { async_error.store(error); }

}  // extern "C"
