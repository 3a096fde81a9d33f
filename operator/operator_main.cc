// ergobench-operator: watches Benchmarks and runs each as k worker pods (DESIGN.md).
// Wiring only: configuration → client → watchers and caches → work queue → reconciler,
// with leader election, /metrics, /healthz and /readyz, and a clean stop on SIGTERM.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <map>
#include <random>
#include <thread>

#include <CLI/CLI.hpp>

#include "api/benchmark.h"
#include "api/metrics_server.h"
#include "operator/controller/builders.h"
#include "operator/controller/progress.h"
#include "operator/controller/reconciler.h"
#include "operator/kube/cpprest_transport.h"
#include "operator/operator_metrics.h"
#include "operator/runtime/controller.h"
#include "operator/runtime/leader_election.h"
#include "operator/runtime/log.h"
#include "operator/runtime/store.h"
#include "operator/runtime/watcher.h"

namespace ergobench {
namespace {

using runtime::Log;
using runtime::LogLevel;

struct Options {
  std::string kubeconfig;
  std::string context;
  std::string namespace_name;  // empty: all namespaces
  int workers = 2;
  std::string metrics_bind_address = "0.0.0.0:8080";
  bool leader_elect = false;
  std::string leader_election_namespace;
  std::string leader_election_id = "ergobench-operator";
  std::string log_format = "json";
  std::string log_level = "info";
  int watch_timeout_seconds = 290;
  std::string runner_image;
};

// Stop requested by a signal; every sleep in the operator wakes for it.
class StopFlag {
 public:
  void Set() {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
    changed_.notify_all();
  }
  const std::atomic<bool>& flag() const { return stop_; }
  void Sleep(runtime::Duration d) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait_for(lock, d, [this] { return stop_.load(); });
  }

 private:
  std::atomic<bool> stop_{false};
  std::mutex mutex_;
  std::condition_variable changed_;
};

class HttpProgressReader final : public controller::ProgressReader {
 public:
  std::optional<Progress> Read(const std::string& pod_ip, int port, const std::string& metric) override {
    const bool ipv6 = pod_ip.find(':') != std::string::npos;
    const std::string host = ipv6 ? "[" + pod_ip + "]" : pod_ip;
    auto text = kube::HttpGet("http://" + host + ":" + std::to_string(port) + "/metrics", std::chrono::seconds(2));
    if (!text.ok()) return std::nullopt;
    return controller::ParseProgress(*text, metric);
  }
};

std::string Identity() {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  std::random_device random;
  char suffix[16];
  std::snprintf(suffix, sizeof suffix, "_%08x", random());
  return std::string(host) + suffix;
}

// "0.0.0.0:8080" → ("0.0.0.0", 8080); ":8080" binds all addresses.
StatusOr<std::pair<std::string, int>> SplitHostPort(const std::string& address) {
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos) return Status::InvalidArgument("--metrics-bind-address: expected host:port, got \"" + address + "\"");
  std::string host = address.substr(0, colon);
  if (host.empty()) host = "0.0.0.0";
  try {
    return std::make_pair(host, std::stoi(address.substr(colon + 1)));
  } catch (const std::exception&) {
    return Status::InvalidArgument("--metrics-bind-address: bad port in \"" + address + "\"");
  }
}

// The Benchmark a pod belongs to, by its label: what a pod event makes us reconcile.
std::string OwnerKey(const nlohmann::json& pod) {
  const auto metadata = pod.value("metadata", nlohmann::json::object());
  const std::string name = metadata.value("labels", nlohmann::json::object()).value(controller::kBenchmarkLabel, "");
  return name.empty() ? "" : metadata.value("namespace", "") + "/" + name;
}

int Run(const Options& options) {
  runtime::SetLogFormat(options.log_format == "json");
  runtime::SetMinLogLevel(options.log_level == "debug" ? LogLevel::kDebug : LogLevel::kInfo);

  // Signals go to one thread that sets the stop flag; every other thread has them blocked.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  StopFlag stop;

  auto config = kube::ResolveKubeConfig(options.kubeconfig, options.context);
  if (!config.ok()) {
    Log(LogLevel::kError, "cannot configure the Kubernetes client", {{"error", config.status().ToString()}});
    return 2;
  }
  kube::TransportOptions transport_options;
  transport_options.stream_inactivity_timeout = std::chrono::seconds(options.watch_timeout_seconds + 40);
  auto transport = kube::NewCpprestTransport(*config, transport_options);
  if (!transport.ok()) {
    Log(LogLevel::kError, "cannot configure the Kubernetes client", {{"error", transport.status().ToString()}});
    return 2;
  }
  kube::KubeClient client(transport->get());
  runtime::RealTime time;
  OperatorMetrics metrics;
  runtime::Store benchmarks, pods;
  runtime::WorkQueue queue(&time);
  std::atomic<bool> leading{!options.leader_elect};

  auto endpoint = SplitHostPort(options.metrics_bind_address);
  if (!endpoint.ok()) {
    Log(LogLevel::kError, endpoint.status().message());
    return 2;
  }
  auto server = MetricsServer::Start(endpoint->first, endpoint->second, [&] { return metrics.Render(); },
                                     [&] { return leading.load() && benchmarks.Synced() && pods.Synced(); });
  if (!server.ok()) {
    Log(LogLevel::kError, "cannot serve metrics", {{"error", server.status().ToString()}});
    return 2;
  }
  Log(LogLevel::kInfo, "ergobench-operator starting",
      {{"server", config->server},
       {"namespace", options.namespace_name.empty() ? "(all)" : options.namespace_name},
       {"metrics", endpoint->first + ":" + std::to_string((*server)->port())},
       {"workers", std::to_string(options.workers)}});

  std::thread signal_thread([&] {
    int received = 0;
    sigwait(&signals, &received);
    Log(LogLevel::kInfo, "stopping", {{"signal", std::to_string(received)}});
    stop.Set();
    queue.ShutDown();
  });
  auto sleep = [&stop](runtime::Duration d) { stop.Sleep(d); };
  std::atomic<int> exit_code{0};

  // Leader election: only the holder of the lease reconciles.
  std::optional<runtime::LeaderElector> elector;
  std::thread renew_thread;
  if (options.leader_elect) {
    runtime::LeaderElectionConfig lease;
    lease.namespace_name = options.leader_election_namespace.empty() ? config->namespace_name
                                                                     : options.leader_election_namespace;
    lease.lease_name = options.leader_election_id;
    lease.identity = Identity();
    elector.emplace(&client, &time, lease);
    Log(LogLevel::kInfo, "waiting for the lease", {{"lease", lease.namespace_name + "/" + lease.lease_name},
                                                  {"identity", lease.identity}});
    if (!elector->Acquire(stop.flag(), sleep)) {
      signal_thread.detach();
      return 0;
    }
    leading = true;
    Log(LogLevel::kInfo, "became the leader", {{"identity", lease.identity}});
    renew_thread = std::thread([&] {
      Status renewed = elector->KeepRenewing(stop.flag(), sleep);
      if (!renewed.ok()) {
        // Another replica may reconcile already: stop at once, as controller-runtime does.
        Log(LogLevel::kError, "leadership lost; exiting", {{"error", renewed.ToString()}});
        std::_Exit(1);
      }
    });
  }

  // Watchers fill the caches and queue the Benchmarks to look at.
  auto watch = [&](runtime::ListWatch* source, runtime::Store* store, const char* kind,
                   std::function<std::string(const nlohmann::json&)> key_of) {
    return std::thread([&, source, store, kind, key_of] {
      runtime::Watcher watcher(source, [&, store, key_of](const runtime::WatcherEvent& event) {
        store->Apply(event);
        for (const auto& object : event.objects) {
          const std::string key = key_of(object);
          if (!key.empty()) queue.Add(key);
        }
      });
      Status status = watcher.Run(stop.flag(), runtime::Backoff(std::chrono::milliseconds(800), std::chrono::seconds(30),
                                                                0.5, [] { return std::rand() / (RAND_MAX + 1.0); }),
                                  sleep, [kind](const Status& error) {
                                    Log(LogLevel::kWarning, "watch interrupted; retrying",
                                        {{"resource", kind}, {"error", error.ToString()}});
                                  });
      if (!status.ok()) {
        Log(LogLevel::kError, "cannot watch; check the operator's RBAC", {{"resource", kind}, {"error", status.ToString()}});
        exit_code = 1;
        stop.Set();
        queue.ShutDown();
      }
    });
  };
  runtime::ClientListWatch benchmark_source(&client, kube::Benchmarks(), options.namespace_name, "",
                                            options.watch_timeout_seconds);
  runtime::ClientListWatch pod_source(&client, kube::Pods(), options.namespace_name, controller::kBenchmarkLabel,
                                      options.watch_timeout_seconds);
  std::thread benchmark_watch = watch(&benchmark_source, &benchmarks, "benchmarks",
                                      [](const nlohmann::json& o) { return runtime::ObjectKey(o); });
  std::thread pod_watch = watch(&pod_source, &pods, "pods", OwnerKey);

  // Housekeeping: gauges that are read, not counted.
  std::thread gauges([&] {
    while (!stop.flag().load()) {
      metrics.SetQueueDepth(queue.Len());
      metrics.SetApiRequests(client.RequestCounts());
      std::map<std::string, int> phases;
      for (const auto& b : benchmarks.List()) {
        ++phases[b.value("status", nlohmann::json::object()).value("phase", "Pending")];
      }
      metrics.SetPhaseCounts(phases);
      stop.Sleep(std::chrono::seconds(2));
    }
  });

  // Reconcile only from complete caches: a partial pod cache would create duplicates.
  while (!stop.flag().load() && !(benchmarks.Synced() && pods.Synced())) stop.Sleep(std::chrono::milliseconds(50));
  if (!stop.flag().load()) Log(LogLevel::kInfo, "caches synced", {{"benchmarks", std::to_string(benchmarks.Size())}});

  HttpProgressReader progress;
  controller::BenchmarkReconciler reconciler({&client, &benchmarks, &pods, &progress, std::chrono::system_clock::now,
                                              [&](const Benchmark& b) { metrics.RecordFinished(b); },
                                              options.runner_image});
  runtime::ServeQueue(
      &queue, options.workers, [&](const std::string& key) { return reconciler.Reconcile(key); },
      {[&](const std::string& key, const std::string& result, double seconds, const Status& error) {
        metrics.ObserveReconcile(result, seconds);
        if (!error.ok()) Log(LogLevel::kWarning, "reconcile failed; retrying", {{"benchmark", key}, {"error", error.ToString()}});
      }});

  // Workers are done: hand the lease back, then end the watches.
  stop.Set();
  if (renew_thread.joinable()) renew_thread.join();
  if (elector) elector->Release();
  client.Shutdown();
  benchmark_watch.join();
  pod_watch.join();
  gauges.join();
  if (signal_thread.joinable()) {
    if (exit_code != 0) {
      signal_thread.detach();
    } else {
      signal_thread.join();
    }
  }
  Log(LogLevel::kInfo, "stopped");
  return exit_code;
}

}  // namespace
}  // namespace ergobench

int main(int argc, char** argv) {
  ergobench::Options options;
  CLI::App app{"ergobench-operator: runs Benchmark resources as k worker pods and reports their results"};
  app.add_option("--kubeconfig", options.kubeconfig, "kubeconfig file (default: $KUBECONFIG, in-cluster, ~/.kube/config)");
  app.add_option("--context", options.context, "kubeconfig context (default: current-context)");
  app.add_option("--namespace", options.namespace_name, "watch only this namespace (default: all)");
  app.add_option("--runner-image", options.runner_image,
                 "image of Benchmarks that name none (default: ergobench-runner:<version>)")
      ->envname("ERGOBENCH_RUNNER_IMAGE");
  app.add_option("--workers", options.workers, "concurrent reconciles")->check(CLI::Range(1, 64));
  app.add_option("--metrics-bind-address", options.metrics_bind_address, "host:port for /metrics, /healthz, /readyz");
  app.add_flag("--leader-elect", options.leader_elect, "elect a leader through a Lease, for replicas > 1");
  app.add_option("--leader-election-namespace", options.leader_election_namespace, "namespace of the Lease");
  app.add_option("--leader-election-id", options.leader_election_id, "name of the Lease");
  app.add_option("--log-format", options.log_format, "json | text")->check(CLI::IsMember({"json", "text"}));
  app.add_option("--log-level", options.log_level, "info | debug")->check(CLI::IsMember({"info", "debug"}));
  app.add_option("--watch-timeout", options.watch_timeout_seconds, "server-side watch timeout in seconds")
      ->check(CLI::Range(1, 3600));
  CLI11_PARSE(app, argc, argv);
  return ergobench::Run(options);
}
