#include "kube/runtime/manager.h"

#include <algorithm>

#include "base/check.h"
#include "base/metrics_server.h"
#include "kube/runtime/log.h"

namespace ergobench::runtime {

struct Manager::Cache {
  Cache(std::string kind_, std::unique_ptr<ListWatch> source_, KeyOf key_of, std::vector<Route> routes_,
        Store::Transform transform)
      : kind(std::move(kind_)), source(std::move(source_)), store(std::move(key_of), std::move(transform)),
        routes(std::move(routes_)) {}

  std::string kind;
  std::unique_ptr<ListWatch> source;
  Store store;  // indexed by key_of
  std::vector<Route> routes;
};

struct Manager::Controller {
  Controller(std::string name_, const TimeSource* time, ReconcileFn reconcile_, ReconcileObserver observer_, int workers_)
      : name(std::move(name_)), queue(time), reconcile(std::move(reconcile_)), observer(std::move(observer_)),
        workers(workers_) {}
  Controller(const Controller&) = delete;
  Controller& operator=(const Controller&) = delete;

  std::string name;
  WorkQueue queue;
  ReconcileFn reconcile;
  ReconcileObserver observer;
  int workers;
};

Manager::Manager(kube::KubeClient* client, const TimeSource* time, ManagerOptions options)
    : client_(client), time_(time), options_(std::move(options)) {
  leading_ = !options_.leader_election.has_value();
}

Manager::~Manager() = default;

Store* Manager::AddCache(std::string kind, std::unique_ptr<ListWatch> source, KeyOf key_of, std::vector<Route> routes,
                         Store::Transform transform) {
  caches_.push_back(std::make_unique<Cache>(std::move(kind), std::move(source), std::move(key_of), std::move(routes),
                                            std::move(transform)));
  return &caches_.back()->store;
}

void Manager::AddRoute(const Store* cache, Route route) {
  const auto it = std::find_if(caches_.begin(), caches_.end(), [cache](const auto& c) { return &c->store == cache; });
  ERGOBENCH_CHECK(it != caches_.end());  // a cache of this manager
  (*it)->routes.push_back(std::move(route));
}

WorkQueue* Manager::AddController(std::string name, ReconcileFn reconcile, int workers) {
  // Every controller observed and its failures said alike, each under its own name.
  // A terminal error counts as an error, and is said to be one that is not retried.
  ReconcileObserver observer{[this, name](const std::string& key, const std::string& result, double seconds,
                                          const Status& error) {
    const bool terminal = result == "terminal_error";
    if (options_.on_reconcile) options_.on_reconcile(name, terminal ? "error" : result, seconds);
    if (!error.ok()) {
      Log(LogLevel::kWarning, terminal ? "reconcile failed; not retried" : "reconcile failed; retrying",
          {{"controller", name}, {"key", key}, {"error", error.ToString()}});
    }
  }};
  controllers_.push_back(std::make_unique<Controller>(std::move(name), time_, std::move(reconcile), std::move(observer),
                                                      workers));
  return &controllers_.back()->queue;
}

std::vector<std::pair<std::string, size_t>> Manager::QueueDepths() const {
  std::vector<std::pair<std::string, size_t>> depths;
  for (const auto& controller : controllers_) depths.emplace_back(controller->name, controller->queue.Len());
  return depths;
}

void Manager::AddRunnable(std::function<void(StopFlag&)> body) { runnables_.push_back(std::move(body)); }

bool Manager::Ready() const {
  for (const auto& cache : caches_) {
    if (!cache->store.Synced()) return false;
  }
  return true;
}

void Manager::Stop() {
  stop_.Set();
  for (auto& controller : controllers_) controller->queue.ShutDown();
}

void Manager::StopWithError(const std::string& message, const Status& error) {
  Log(LogLevel::kError, message, {{"error", error.ToString()}});
  exit_code_ = kManagerFailed;
  Stop();
}

int Manager::Run() {
  auto server = MetricsServer::Start(options_.metrics_host, options_.metrics_port, options_.render_metrics,
                                     [this] { return Ready(); });
  if (!server.ok()) {
    Log(LogLevel::kError, "cannot serve metrics", {{"error", server.status().ToString()}});
    return kManagerCannotStart;
  }
  Log(LogLevel::kInfo, "serving metrics and probes",
      {{"address", options_.metrics_host + ":" + std::to_string((*server)->port())}});

  std::vector<std::thread> threads;
  for (auto& cache : caches_) threads.push_back(Watch(*cache));
  while (!stop_.stopped() && !Ready()) stop_.Sleep(std::chrono::milliseconds(50));
  if (!stop_.stopped()) Log(LogLevel::kInfo, "caches synced");
  // Keys queued meanwhile wait (deduplicated) for this replica to lead.
  if (!stop_.stopped() && WinLease()) {
    for (auto& body : runnables_) threads.emplace_back([this, &body] { RunRunnable(body); });
    std::vector<std::thread> controllers;
    for (auto& c : controllers_) {
      controllers.emplace_back([&c] { ServeQueue(&c->queue, c->workers, c->reconcile, c->observer); });
    }
    // The queues shut down with the stop; a manager of no controller runs its runnables until it.
    while (!stop_.stopped()) stop_.Sleep(std::chrono::seconds(1));
    for (std::thread& thread : controllers) thread.join();
  }
  Shutdown(threads);
  return exit_code_;
}

// A runnable that throws (a JSON type error on an object of an odd shape) stops the manager
// with an error, as a broken watch does, rather than terminating the process from its thread.
void Manager::RunRunnable(const std::function<void(StopFlag&)>& body) {
  try {
    body(stop_);
  } catch (const std::exception& e) {
    StopWithError("a background task failed", Status::Internal(e.what()));
  }
}

// Step 4: blocks until this replica leads, or the stop. Renewal runs on its own thread.
bool Manager::WinLease() {
  if (!options_.leader_election) return true;
  const LeaderElectionConfig& lease = *options_.leader_election;
  elector_.emplace(options_.lease_client != nullptr ? options_.lease_client : client_, time_, lease);
  Log(LogLevel::kInfo, "waiting for the lease",
      {{"lease", lease.namespace_name + "/" + lease.lease_name}, {"identity", lease.identity}});
  const auto sleep = [this](Duration d) { stop_.Sleep(d); };
  if (!elector_->Acquire(stop_.flag(), sleep)) return false;
  leading_ = true;
  Log(LogLevel::kInfo, "became the leader", {{"identity", lease.identity}});
  renew_thread_ = std::thread([this, sleep] {
    const Status renewed = elector_->KeepRenewing(stop_.flag(), sleep);
    if (!renewed.ok()) {
      Log(LogLevel::kError, "leadership lost; exiting", {{"error", renewed.ToString()}});
      std::_Exit(kManagerFailed);
    }
  });
  return true;
}

// Step 2: a watcher that fills `cache` and queues the keys its events touch.
std::thread Manager::Watch(Cache& cache) {
  return std::thread([this, &cache] {
    Watcher watcher(cache.source.get(), [this, &cache](WatcherEvent&& event) {
      // The store is indexed by key_of: what changed comes back as index values, which the
      // routes turn into keys to reconcile.
      for (const std::string& value : cache.store.Apply(std::move(event))) {
        if (value.empty()) continue;
        for (const Route& route : cache.routes) {
          if (!route.keys) {
            route.to->Add(value);
            continue;
          }
          for (const std::string& key : route.keys(value)) route.to->Add(key);
        }
      }
    });
    const Status status = watcher.Run(
        stop_.flag(), DefaultWatchBackoff(), [this](Duration d) { stop_.Sleep(d); },
        [&cache](const Status& error) {
          Log(LogLevel::kWarning, "watch interrupted; retrying", {{"resource", cache.kind}, {"error", error.ToString()}});
        });
    if (!status.ok()) StopWithError("cannot watch " + cache.kind + "; check the operator's RBAC", status);
  });
}

// The workers have drained: hand the lease back first, so that a standby takes over at once,
// then end the watches (Shutdown cancels their streams) and the runnables.
void Manager::Shutdown(std::vector<std::thread>& threads) {
  Stop();
  if (renew_thread_.joinable()) renew_thread_.join();
  if (elector_ && leading_.load()) elector_->Release();
  client_->Shutdown();
  if (options_.lease_client != nullptr) options_.lease_client->Shutdown();
  for (std::thread& thread : threads) thread.join();
  Log(LogLevel::kInfo, "stopped");
}

}  // namespace ergobench::runtime
