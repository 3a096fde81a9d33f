#include "kube/runtime/slow_start.h"

#include <algorithm>
#include <future>

namespace ergobench::runtime {

Status RunConcurrently(const std::vector<std::function<Status()>>& calls) {
  if (calls.empty()) return Status::Ok();
  std::vector<std::future<Status>> others;
  others.reserve(calls.size() - 1);
  for (size_t i = 1; i < calls.size(); ++i) others.push_back(std::async(std::launch::async, calls[i]));
  Status first = calls[0]();
  for (std::future<Status>& other : others) {
    Status status = other.get();
    if (first.ok()) first = std::move(status);
  }
  return first;
}

Status SlowStartBatches(size_t count, size_t initial, const std::function<Status(size_t)>& call) {
  size_t batch = std::max<size_t>(initial, 1);
  for (size_t begin = 0; begin < count; begin += batch, batch *= 2) {
    std::vector<std::function<Status()>> calls;
    for (size_t i = begin; i < std::min(count, begin + batch); ++i) calls.push_back([&call, i] { return call(i); });
    RETURN_IF_ERROR(RunConcurrently(calls));
  }
  return Status::Ok();
}

}  // namespace ergobench::runtime
