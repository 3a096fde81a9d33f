// The controller loop: N workers take keys from the work queue and reconcile them, with
// controller-runtime's semantics (reconcile_result.h):
//   error               → retry after the rate limiter's delay (per-key backoff);
//   terminal error      → no retry, the backoff forgotten;
//   requeue-after       → look again then, the backoff forgotten;
//   done                → forgotten until the next watch event.
//   exception           → an error like any other, with what() as its message.
// A key is never reconciled by two workers at once (the queue guarantees it).
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "base/status.h"
#include "kube/runtime/reconcile_result.h"
#include "kube/runtime/work_queue.h"

namespace ergobench::runtime {

using ReconcileFn = std::function<ReconcileResult(const std::string& key)>;

struct ReconcileObserver {
  // result: success | requeue_after | error | terminal_error; `error` is the error, if any.
  std::function<void(const std::string& key, const std::string& result, double seconds, const Status& error)> done;
};

// Handles one key; false once the queue is shut down. Blocks while the queue is empty.
bool ProcessNextKey(WorkQueue* queue, const ReconcileFn& reconcile, const ReconcileObserver& observer);

// Runs `workers` threads until the queue shuts down, then joins them.
void ServeQueue(WorkQueue* queue, int workers, const ReconcileFn& reconcile, const ReconcileObserver& observer);

}  // namespace ergobench::runtime
