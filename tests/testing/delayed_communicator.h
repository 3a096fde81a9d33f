// A communicator for tests whose every collective but broadcast and barrier takes `delay`
// longer than the real one: the delay comes after the real collective completes, inside the
// caller's timing, on this rank only, as a slow NIC or a busy core would make it.
#pragma once

#include <chrono>
#include <thread>

#include "runner/dist/communicator.h"

namespace ergobench::testing {

class DelayedCommunicator : public Communicator {
 public:
  DelayedCommunicator(Communicator& inner, std::chrono::milliseconds delay) : inner_(inner), delay_(delay) {}
  int rank() const override { return inner_.rank(); }
  int world_size() const override { return inner_.world_size(); }
  const char* backend() const override { return inner_.backend(); }
  bool Supports(DType dtype) const override { return inner_.Supports(dtype); }
  bool CallableFromAnotherThread() const override { return inner_.CallableFromAnotherThread(); }
  Status AllReduce(void* data, size_t count, DType dtype, ReduceOp op) override {
    const Status status = inner_.AllReduce(data, count, dtype, op);
    std::this_thread::sleep_for(delay_);
    return status;
  }
  Status ReduceScatter(void* data, size_t count, DType dtype, ReduceOp op) override {
    const Status status = inner_.ReduceScatter(data, count, dtype, op);
    std::this_thread::sleep_for(delay_);
    return status;
  }
  Status AllGather(void* data, size_t count, DType dtype) override {
    const Status status = inner_.AllGather(data, count, dtype);
    std::this_thread::sleep_for(delay_);
    return status;
  }
  Status Broadcast(void* data, size_t count, DType dtype, int root) override {
    return inner_.Broadcast(data, count, dtype, root);
  }
  Status Reduce(void* data, size_t count, DType dtype, ReduceOp op, int root) override {
    const Status status = inner_.Reduce(data, count, dtype, op, root);
    std::this_thread::sleep_for(delay_);
    return status;
  }
  Status AllToAll(const void* send, void* receive, size_t count, DType dtype) override {
    const Status status = inner_.AllToAll(send, receive, count, dtype);
    std::this_thread::sleep_for(delay_);
    return status;
  }
  Status Barrier() override { return inner_.Barrier(); }

 private:
  Communicator& inner_;
  std::chrono::milliseconds delay_;
};

}  // namespace ergobench::testing
