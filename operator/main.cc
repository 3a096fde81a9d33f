// ergobench-operator: watches Benchmarks and runs each as k worker pods (docs/architecture.md).
// Wiring only: configuration → client → Manager, and on it the Benchmark, BenchmarkSweep and
// Dataset controllers, each set up by its own Setup; leader election, /metrics, /healthz and
// /readyz, and a clean stop on SIGTERM.
#include <malloc.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <map>
#include <random>
#include <thread>
#include <tuple>

#include <CLI/CLI.hpp>

#include "api/pricing/cost.h"
#include "api/pricing/price_catalog.h"
#include "api/v1alpha1/benchmark.h"
#include "api/v1alpha1/benchmark_phase.h"
#include "api/v1alpha1/defaults.h"
#include "api/v1alpha1/sweep.h"
#include "base/cidr.h"
#include "base/http_get.h"
#include "kube/client/cpprest_transport.h"
#include "kube/runtime/event_recorder.h"
#include "kube/runtime/log.h"
#include "kube/runtime/manager.h"
#include "kube/runtime/stop_signals.h"
#include "operator/controller/benchmark/artifact_token.h"
#include "operator/controller/benchmark/benchmark_setup.h"
#include "operator/controller/benchmark/builders.h"
#include "operator/controller/benchmark/progress_poller.h"
#include "operator/controller/dataset/dataset_setup.h"
#include "operator/controller/sweep/sweep_setup.h"
#include "operator/operator_metrics.h"

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
  int progress_interval_seconds = static_cast<int>(controller::kProgressInterval.count());
  std::string runner_image;
  controller::PodPolicy policy;
  int energy_agent_port = 0;
  std::string price_catalog_dir;  // empty: the built-in catalog
  // The Secret of the key that rank 0's artifact tokens derive from (artifact_token.h), in
  // the operator's own namespace unless another is named.
  std::string artifact_key_secret = controller::kDefaultArtifactKeySecret;
  std::string artifact_key_namespace;
  // A NetworkPolicy per gang, and who besides the gang may reach its metrics port (a JSON list
  // of NetworkPolicyPeers; empty: the operator's own namespace).
  bool network_policy = false;
  std::string network_policy_metrics_from;
  int64_t price_max_age_days = kDefaultPriceMaxAgeDays;
};

// The catalog as read at start, and again whenever its files change (the ConfigMap was edited),
// said in the log; a broken edit keeps the last good catalog and says why.
void WatchPriceCatalog(runtime::StopFlag& stop, PriceCatalogSource& source) {
  std::string said;
  for (; !stop.stopped(); stop.Sleep(std::chrono::seconds(10))) {
    const PriceCatalog catalog = source.Current();
    const std::string error = source.error();
    std::string now = std::to_string(catalog.prices.size()) + "/" + std::to_string(catalog.carbon.size()) + error;
    for (const std::string& origin : catalog.origins) now += origin;
    if (now == said) continue;
    said = now;
    if (!error.empty()) {
      Log(LogLevel::kWarning, "price catalog unreadable; keeping the last good one", {{"dir", source.dir()}, {"error", error}});
    } else {
      Log(LogLevel::kInfo, "price catalog read",
          {{"dir", source.dir().empty() ? "(built in)" : source.dir()},
           {"prices", std::to_string(catalog.prices.size())},
           {"carbonIntensities", std::to_string(catalog.carbon.size())}});
    }
  }
}

// Who may reach a gang's metrics port, or nothing for no NetworkPolicy (--network-policy): by
// default the operator's own namespace.
std::optional<nlohmann::json> NetworkPolicyPeers(const Options& options, const std::string& own_namespace) {
  if (!options.network_policy) return std::nullopt;
  if (!options.network_policy_metrics_from.empty()) {
    const StatusOr<nlohmann::json> peers = controller::ParseNetworkPolicyPeers(options.network_policy_metrics_from);
    if (peers.ok()) return *peers;  // checked as the flag was parsed
  }
  return controller::NamespacePeers(own_namespace);
}

class HttpRankZeroClient final : public controller::RankZeroClient {
 public:
  explicit HttpRankZeroClient(controller::ArtifactKeySource* key) : key_(key) {}

  std::optional<controller::RankZeroState> Read(const std::string& pod_ip, int port, const std::string& metric) override {
    // One deadline for the whole scrape and a cap on the page: a rank that trickles or floods
    // its answer costs the poller two seconds, never more.
    auto text = HttpGet(pod_ip, port, "/metrics", {std::chrono::seconds(2), 4 << 20});
    if (!text.ok()) return std::nullopt;
    return controller::ParseRankZeroState(*text, metric);
  }
  StatusOr<ArtifactBundle> FetchArtifacts(const std::string& pod_ip, int port, const std::string& uid) override {
    ASSIGN_OR_RETURN(std::string token, key_->TokenFor(uid));
    // Rank 0 serves at most 4 MiB of text; JSON's escapes may double it.
    ASSIGN_OR_RETURN(const std::string text, HttpGet(pod_ip, port, kArtifactsPath,
                                                     {std::chrono::seconds(10), 16 << 20, std::move(token)}));
    return DecodeArtifactBundle(text);
  }
  Status ReleaseArtifacts(const std::string& pod_ip, int port, const std::string& uid) override {
    ASSIGN_OR_RETURN(std::string token, key_->TokenFor(uid));
    return HttpRequest("POST", pod_ip, port, kArtifactsReleasePath, {std::chrono::seconds(2), 4096, std::move(token)})
        .status();
  }

 private:
  controller::ArtifactKeySource* const key_;
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


// The one thread that takes the stop signals, and asks the manager to stop. Join it with
// JoinSignalThread, which wakes it if no signal came.
std::thread StopOnSignal(runtime::Manager& manager, sigset_t signals, const std::atomic<bool>& exiting) {
  return std::thread([&manager, &exiting, signals] {
    int received = 0;
    sigwait(&signals, &received);
    if (exiting.load()) return;  // woken by JoinSignalThread: Run() has returned
    Log(LogLevel::kInfo, "stopping", {{"signal", std::to_string(received)}});
    manager.Stop();
  });
}

// Ends the signal thread before the manager it points to goes: after a fatal error or a
// failed start it still waits in sigwait, and a late signal must not reach a dead manager.
void JoinSignalThread(std::thread& thread, std::atomic<bool>& exiting) {
  exiting = true;
  pthread_kill(thread.native_handle(), SIGTERM);  // blocked, so sigwait takes it; ESRCH if it ended
  thread.join();
}

// The gauges that are read rather than counted, every 2 s.
void UpdateGauges(runtime::StopFlag& stop, OperatorMetrics& metrics, const runtime::Manager& manager,
                  const kube::KubeClient& client, const runtime::Store& benchmarks) {
  while (!stop.stopped()) {
    metrics.SetQueueDepths(manager.QueueDepths());
    metrics.SetApiRequests(client.RequestCounts());
    std::map<std::string, int> phases;
    std::vector<std::string> live;
    benchmarks.ForEach([&](const nlohmann::json& b) {
      const auto status = b.find("status");
      ++phases[status != b.end() && status->is_object() ? status->value("phase", kPhasePending) : kPhasePending];
      live.push_back(runtime::ObjectKey(b));
    });
    metrics.SetPhaseCounts(phases);
    metrics.RetainBenchmarks(live);
    stop.Sleep(std::chrono::seconds(2));
  }
}

// glibc keeps what the heap once held; a burst of Benchmarks would stay in the RSS for good.
// Hands freed pages back to the kernel now and then, as Go's scavenger does.
void ReturnFreedMemory(runtime::StopFlag& stop) {
  while (!stop.stopped()) {
    malloc_trim(0);
    stop.Sleep(std::chrono::seconds(10));
  }
}

StatusOr<runtime::ManagerOptions> ManagerOptionsFrom(const Options& options, const kube::KubeConfig& config,
                                                     OperatorMetrics& metrics) {
  runtime::ManagerOptions manager;
  ASSIGN_OR_RETURN(std::tie(manager.metrics_host, manager.metrics_port), SplitHostPort(options.metrics_bind_address));
  manager.render_metrics = [&metrics] { return metrics.Render(); };
  manager.on_reconcile = [&metrics](const std::string& controller, const std::string& result, double seconds) {
    metrics.ObserveReconcile(controller, result, seconds);
  };
  if (options.leader_elect) {
    runtime::LeaderElectionConfig lease;
    lease.namespace_name =
        options.leader_election_namespace.empty() ? config.namespace_name : options.leader_election_namespace;
    lease.lease_name = options.leader_election_id;
    lease.identity = Identity();
    manager.leader_election = lease;
  }
  return manager;
}

struct Transports {
  std::unique_ptr<kube::HttpTransport> main;
  std::unique_ptr<kube::HttpTransport> lease;
};

StatusOr<Transports> NewTransports(const Options& options, const kube::KubeConfig& config) {
  kube::TransportOptions main_options;
  main_options.stream_inactivity_timeout = std::chrono::seconds(options.watch_timeout_seconds + 40);
  // The lease has a client of its own whose requests end within the retry period (2 s): one
  // stuck renewal must not outlast the renew deadline while a standby takes over.
  kube::TransportOptions lease_options;
  lease_options.request_timeout = std::chrono::seconds(2);
  Transports transports;
  ASSIGN_OR_RETURN(transports.main, kube::NewCpprestTransport(config, main_options));
  ASSIGN_OR_RETURN(transports.lease, kube::NewCpprestTransport(config, lease_options));
  return transports;
}

int Run(const Options& options) {
  const sigset_t stop_signals = runtime::BlockStopSignals();
  runtime::SetLogFormat(options.log_format == "json");
  runtime::SetMinLogLevel(options.log_level == "debug" ? LogLevel::kDebug : LogLevel::kInfo);
  auto config = kube::ResolveKubeConfig(options.kubeconfig, options.context);
  if (!config.ok()) {
    Log(LogLevel::kError, "cannot configure the Kubernetes client", {{"error", config.status().ToString()}});
    return runtime::kManagerCannotStart;
  }
  auto transports = NewTransports(options, *config);
  if (!transports.ok()) {
    Log(LogLevel::kError, "cannot configure the Kubernetes client", {{"error", transports.status().ToString()}});
    return runtime::kManagerCannotStart;
  }
  kube::KubeClient client(transports->main.get());
  kube::KubeClient lease_client(transports->lease.get());
  RealTime time;
  OperatorMetrics metrics({"benchmark", "sweep", "dataset"});
  auto manager_options = ManagerOptionsFrom(options, *config, metrics);
  if (!manager_options.ok()) {
    Log(LogLevel::kError, manager_options.status().message());
    return runtime::kManagerCannotStart;
  }
  manager_options->lease_client = &lease_client;
  runtime::Manager manager(&client, &time, std::move(manager_options).value());
  runtime::EventRecorder events(&client);
  const controller::ControllerContext context{
      &manager, &client, &time, options.namespace_name, options.watch_timeout_seconds,
      [&events](const std::string& ns, nlohmann::json event) { events.Record(ns, std::move(event)); }};
  const std::string runner_image = options.runner_image.empty() ? DefaultRunnerImage() : options.runner_image;
  const auto datasets =
      controller::SetupDatasetController(context, runner_image, options.policy.dataset_allowed_networks);
  const auto sweeps = controller::SetupSweepController(context);

  PriceCatalogSource prices(options.price_catalog_dir);
  controller::ArtifactKeySource artifact_key(
      &client, options.artifact_key_namespace.empty() ? config->namespace_name : options.artifact_key_namespace,
      options.artifact_key_secret);
  HttpRankZeroClient rank_zero(&artifact_key);
  controller::BenchmarkSetup setup;
  setup.deps.datasets = datasets->datasets;
  setup.deps.on_finished = [&metrics](const Benchmark& b) { metrics.RecordFinished(b); };
  setup.deps.runner_image = options.runner_image;
  setup.deps.policy = options.policy;
  setup.deps.energy_agent_port = options.energy_agent_port;
  setup.deps.prices = &prices;
  setup.deps.price_max_age_days = options.price_max_age_days;
  setup.deps.sweeps = sweeps->sweeps;
  setup.deps.artifact_token = [&artifact_key](const std::string& uid) { return artifact_key.TokenFor(uid); };
  setup.deps.network_policy_metrics_peers = NetworkPolicyPeers(options, config->namespace_name);
  setup.workers = options.workers;
  setup.rank_zero = &rank_zero;
  setup.progress_interval = std::chrono::seconds(options.progress_interval_seconds);
  const auto benchmarks = controller::SetupBenchmarkController(context, std::move(setup));

  manager.AddRunnable([&](runtime::StopFlag& stop) { UpdateGauges(stop, metrics, manager, client, *benchmarks->benchmarks); });
  manager.AddRunnable(ReturnFreedMemory);
  manager.AddRunnable([&prices](runtime::StopFlag& stop) { WatchPriceCatalog(stop, prices); });

  Log(LogLevel::kInfo, "ergobench-operator starting",
      {{"server", config->server},
       {"namespace", options.namespace_name.empty() ? "(all)" : options.namespace_name},
       {"workers", std::to_string(options.workers)}});
  std::atomic<bool> exiting{false};
  std::thread signal_thread = StopOnSignal(manager, stop_signals, exiting);
  const int exit_code = manager.Run();
  JoinSignalThread(signal_thread, exiting);
  return exit_code;
}

}  // namespace
}  // namespace ergobench

int main(int argc, char** argv) {
  // Two heaps, not one per thread (glibc's default is up to 8 per core): the operator's
  // threads mostly wait, and every arena keeps the pages its thread's JSON once used.
  mallopt(M_ARENA_MAX, 2);
  ergobench::Options options;
  CLI::App app{"ergobench-operator: runs Benchmark resources as k worker pods and reports their results"};
  app.add_option("--kubeconfig", options.kubeconfig, "kubeconfig file (default: $KUBECONFIG, in-cluster, ~/.kube/config)");
  app.add_option("--context", options.context, "kubeconfig context (default: current-context)");
  app.add_option("--namespace", options.namespace_name, "watch only this namespace (default: all)");
  app.add_option("--runner-image", options.runner_image,
                 "image of Benchmarks that name none (default: ergobench-runner:<version>)")
      ->envname("ERGOBENCH_RUNNER_IMAGE");
  app.add_option("--allowed-image", options.policy.allowed_images,
                 "image pattern a Benchmark may name ('*' matches anything), repeatable "
                 "(default: the runner image's repository)");
  app.add_flag("--allow-tolerations", options.policy.allow_tolerations, "honour spec.scheduling.tolerations");
  app.add_flag("--allow-priority-class", options.policy.allow_priority_class,
               "honour spec.scheduling.priorityClassName");
  app.add_flag("--allow-scheduler-name", options.policy.allow_scheduler_name, "honour spec.scheduling.schedulerName");
  app.add_option("--dataset-allowed-network", options.policy.dataset_allowed_networks,
                 "CIDR of internal addresses a data set may still be fetched from (a mirror in the cluster), "
                 "repeatable; every other loopback, link-local or private address is refused")
      ->check(CLI::Validator(
          [](std::string& network) {
            const auto parsed = ergobench::ParseCidr(network);
            return parsed.ok() ? std::string() : std::string(parsed.status().message());
          },
          "CIDR"));
  app.add_option("--dataset-volume-type", options.policy.dataset_volume_types,
                 "volume source type a spec.dataset.volume may be, repeatable (default: persistentVolumeClaim)");
  app.add_option("--energy-agent-port", options.energy_agent_port,
                 "hostPort of the node energy agent the ranks read their node's energy from; 0: none")
      ->check(CLI::Range(0, 65535));
  app.add_option("--price-catalog", options.price_catalog_dir,
                 "folder of price catalog .yaml files, re-read when they change (default: built in)");
  app.add_option("--price-max-age-days", options.price_max_age_days,
                 "prices older than this are reported stale next to the cost")
      ->capture_default_str();
  app.add_option("--workers", options.workers, "concurrent reconciles")->check(CLI::Range(1, 64));
  app.add_option("--metrics-bind-address", options.metrics_bind_address, "host:port for /metrics, /healthz, /readyz");
  app.add_flag("--leader-elect", options.leader_elect, "elect a leader through a Lease, for replicas > 1");
  app.add_option("--leader-election-namespace", options.leader_election_namespace, "namespace of the Lease");
  app.add_option("--leader-election-id", options.leader_election_id, "name of the Lease");
  app.add_option("--artifact-key-secret", options.artifact_key_secret,
                 "the Secret (made if missing) of the key that guards rank 0's files")
      ->capture_default_str();
  app.add_option("--artifact-key-namespace", options.artifact_key_namespace,
                 "namespace of that Secret (default: the operator's own)");
  app.add_flag("--network-policy", options.network_policy,
               "a NetworkPolicy per gang: its pods reach each other, the metrics port only the peers below");
  app.add_option("--network-policy-metrics-from", options.network_policy_metrics_from,
                 "JSON list of the NetworkPolicyPeers that may reach a gang's metrics port (default: the "
                 "operator's namespace)")
      ->check([](const std::string& text) -> std::string {
        const auto peers = ergobench::controller::ParseNetworkPolicyPeers(text);
        return peers.ok() ? std::string() : peers.status().message();
      });
  app.add_option("--log-format", options.log_format, "json | text")->check(CLI::IsMember({"json", "text"}));
  app.add_option("--log-level", options.log_level, "info | debug")->check(CLI::IsMember({"info", "debug"}));
  app.add_option("--watch-timeout", options.watch_timeout_seconds, "server-side watch timeout in seconds")
      ->check(CLI::Range(1, 3600));
  app.add_option("--progress-interval", options.progress_interval_seconds,
                 "seconds between reads of rank 0's progress for status")
      ->check(CLI::Range(1, 3600));
  CLI11_PARSE(app, argc, argv);
  return ergobench::Run(options);
}
