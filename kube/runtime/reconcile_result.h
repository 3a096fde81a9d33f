// What a reconcile asks of its controller loop, named as controller-runtime's reconcile.Result
// and kube-rs's Action are:
//   Result::Done()              → forgotten until the next watch event;
//   Result::RequeueAfter(d)     → looked at again after d, its backoff forgotten;
//   Result::Terminal(error)     → an error that retrying cannot mend (the object's status says
//                                 why; an edit brings a new event): counted and logged as an
//                                 error, not retried;
//   a non-OK status             → an error: retried after the rate limiter's delay.
#pragma once

#include <chrono>
#include <optional>
#include <utility>

#include "base/status.h"

namespace ergobench::runtime {

class Result {
 public:
  static Result Done() { return Result(); }
  static Result RequeueAfter(std::chrono::seconds after) {
    Result r;
    r.requeue_after_ = after;
    return r;
  }
  // Done when `after` is empty: what a pure plan's optional requeue reads as.
  static Result RequeueAfter(std::optional<std::chrono::seconds> after) {
    return after ? RequeueAfter(*after) : Done();
  }
  static Result Terminal(Status error) {
    Result r;
    r.terminal_error_ = std::move(error);
    return r;
  }

  const std::optional<std::chrono::seconds>& requeue_after() const { return requeue_after_; }
  const Status& terminal_error() const { return terminal_error_; }
  bool operator==(const Result& other) const {
    return requeue_after_ == other.requeue_after_ && terminal_error_.ToString() == other.terminal_error_.ToString();
  }

 private:
  Result() = default;
  std::optional<std::chrono::seconds> requeue_after_;
  Status terminal_error_;
};

using ReconcileResult = StatusOr<Result>;

}  // namespace ergobench::runtime
