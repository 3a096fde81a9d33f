#include "kube/runtime/controller.h"

#include <thread>
#include <vector>

namespace ergobench::runtime {
namespace {

// Whatever a reconcile throws (a JSON type error on an object of an unexpected shape, say)
// becomes an error for that key, retried with backoff, instead of ending the process and every
// other Benchmark's reconciliation with it. controller-runtime recovers panics the same way.
ReconcileResult ReconcileCatching(const ReconcileFn& reconcile, const std::string& key) {
  try {
    return reconcile(key);
  } catch (const std::exception& e) {
    return Status::Internal("reconcile of " + key + " threw: " + e.what());
  } catch (...) {
    return Status::Internal("reconcile of " + key + " threw something that is not a std::exception");
  }
}

}  // namespace

bool ProcessNextKey(WorkQueue* queue, const ReconcileFn& reconcile, const ReconcileObserver& observer) {
  const std::optional<std::string> key = queue->Get();
  if (!key) return false;
  const auto started = std::chrono::steady_clock::now();
  auto result = ReconcileCatching(reconcile, *key);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::string outcome;
  Status error = result.status();
  if (!result.ok()) {
    queue->AddRateLimited(*key);
    outcome = "error";
  } else {
    queue->Forget(*key);
    if (!result->terminal_error().ok()) {
      error = result->terminal_error();
      outcome = "terminal_error";
    } else if (result->requeue_after()) {
      queue->AddAfter(*key, *result->requeue_after());
      outcome = "requeue_after";
    } else {
      outcome = "success";
    }
  }
  queue->Done(*key);
  if (observer.done) observer.done(*key, outcome, seconds, error);
  return true;
}

void ServeQueue(WorkQueue* queue, int workers, const ReconcileFn& reconcile, const ReconcileObserver& observer) {
  std::vector<std::thread> threads;
  for (int i = 0; i < workers; ++i) {
    threads.emplace_back([&] {
      while (ProcessNextKey(queue, reconcile, observer)) {
      }
    });
  }
  for (auto& thread : threads) thread.join();
}

}  // namespace ergobench::runtime
