// The operator's Manager, as controller-runtime has one. It owns what the operator runs (the
// /metrics, /healthz and /readyz server, one watcher per cache, the leader election, each
// controller's workers, and periodic housekeeping) and starts and stops them in one order:
//
//   Run:   1. serve /metrics, /healthz, /readyz;
//          2. start the watchers that fill the caches;
//          3. wait until every cache has synced: a partial pod cache would create duplicates;
//          4. when electing, wait for the lease, caches warm, so that a takeover starts hot;
//          5. start the housekeeping runnables, then serve each controller's work queue with
//             its workers, every controller alike: each reconcile observed (on_reconcile) and
//             each failure logged with the controller's name and the key.
//   Stop:  (a signal, a fatal watch error) the workers drain; the lease is handed back; the
//          watches end; the runnables end; the server stops last.
//   A lost lease ends the process at once: another replica may be reconciling already.
//
// /readyz answers 200 once every cache has synced, leader or not, as controller-runtime's
// does. Readiness that waited for the lease deadlocked rollouts: the new pod (the old one still
// leading) never became Ready, so the Deployment never stopped the old one; and with a PDB a
// standby that is never Ready forbids draining the leader's node.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/clock.h"
#include "kube/client/client.h"
#include "kube/runtime/controller.h"
#include "kube/runtime/leader_election.h"
#include "kube/runtime/stop_flag.h"
#include "kube/runtime/store.h"
#include "kube/runtime/watcher.h"
#include "kube/runtime/work_queue.h"

namespace ergobench::runtime {

struct ManagerOptions {
  std::string metrics_host = "0.0.0.0";
  int metrics_port = 8080;
  std::function<std::string()> render_metrics;  // the body of /metrics
  // Every reconcile of every controller, as it ends: result is success | requeue_after | error.
  std::function<void(const std::string& controller, const std::string& result, double seconds)> on_reconcile;
  std::optional<LeaderElectionConfig> leader_election;  // absent: lead from the start
  // The client the lease is read and renewed with; null: the Manager's. Its requests should time
  // out within the retry period, so a renewal cannot outlast the renew deadline.
  kube::KubeClient* lease_client = nullptr;
};

// Exit codes of Run().
inline constexpr int kManagerStopped = 0;       // a requested stop
inline constexpr int kManagerFailed = 1;        // a fatal error (a watch the RBAC forbids)
inline constexpr int kManagerCannotStart = 2;   // the server could not start

class Manager {
 public:
  using KeyOf = Store::IndexOf;

  // Where a cache's events go: `keys` turns the index value of an object that changed into
  // keys of the controller whose queue is `to` (null: the value itself is the key).
  struct Route {
    WorkQueue* to = nullptr;
    std::function<std::vector<std::string>(const std::string& index_value)> keys;
  };

  Manager(kube::KubeClient* client, const TimeSource* time, ManagerOptions options);
  ~Manager();
  Manager(const Manager&) = delete;
  Manager& operator=(const Manager&) = delete;

  // A cache filled by a watcher of `source`, indexed by `key_of` (Store::ByIndex). Each object
  // an event changes is mapped by `key_of` to a key ("" for none), which `routes` send to
  // their controllers' queues; without routes it is only read. Before Run().
  Store* AddCache(std::string kind, std::unique_ptr<ListWatch> source, KeyOf key_of, std::vector<Route> routes = {},
                  Store::Transform transform = nullptr);
  // Another route of an existing cache's events: a controller that watches what another one
  // owns (a Benchmark that reads a Dataset). Before Run().
  void AddRoute(const Store* cache, Route route);
  // A controller named `name` ("benchmark"), with a queue of its own served by `workers`
  // threads. Before Run().
  WorkQueue* AddController(std::string name, ReconcileFn reconcile, int workers = 1);
  // `body` runs on a thread of its own from step 5 until the stop; it sleeps on the flag.
  void AddRunnable(std::function<void(StopFlag& stop)> body);

  // Runs until Stop() or a fatal error; returns one of the exit codes above.
  int Run();
  // Asks Run() to stop; safe from any thread.
  void Stop();

  bool Ready() const;
  bool Leading() const { return leading_.load(); }
  // Keys waiting in each controller's queue, by the controller's name.
  std::vector<std::pair<std::string, size_t>> QueueDepths() const;
  const StopFlag& stop() const { return stop_; }

 private:
  struct Cache;
  struct Controller;

  bool WinLease();
  void RunRunnable(const std::function<void(StopFlag&)>& body);
  std::thread Watch(Cache& cache);
  void StopWithError(const std::string& message, const Status& error);
  void Shutdown(std::vector<std::thread>& threads);

  kube::KubeClient* client_;
  const TimeSource* time_;
  ManagerOptions options_;
  StopFlag stop_;
  std::vector<std::unique_ptr<Cache>> caches_;
  std::vector<std::unique_ptr<Controller>> controllers_;
  std::vector<std::function<void(StopFlag&)>> runnables_;
  std::optional<LeaderElector> elector_;
  std::thread renew_thread_;
  std::atomic<bool> leading_{false};
  std::atomic<int> exit_code_{kManagerStopped};
};

}  // namespace ergobench::runtime
