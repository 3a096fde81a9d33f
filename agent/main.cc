// ergobench-energy-agent: the node energy agent (node_energy_agent.h), one per node as a
// DaemonSet. Reads the meters under --sysfs-root (the host's /sys folders mounted read-only)
// and serves /energy, /metrics, /healthz and /readyz on --port, a hostPort the node's ranks
// reach at their node's IP.
#include <signal.h>

#include <atomic>
#include <cstdlib>
#include <thread>

#include <CLI/CLI.hpp>

#include "agent/node_energy_agent.h"
#include "base/clock.h"
#include "base/metrics_server.h"
#include "energy/energy_meter.h"
#include "kube/client/cpprest_transport.h"
#include "kube/client/kube_config.h"
#include "kube/runtime/log.h"
#include "kube/runtime/stop_flag.h"
#include "kube/runtime/stop_signals.h"
#include "kube/runtime/store.h"
#include "kube/runtime/watcher.h"

namespace ergobench {
namespace {

using runtime::Log;
using runtime::LogLevel;

struct Options {
  std::string node;
  std::string sysfs_root = "/host";
  std::string nvml_library = "libnvidia-ml.so.1";
  int interval_ms = 100;
  std::string bind = "0.0.0.0";
  int port = 9810;
  std::string kubeconfig;
};

// Watches the node's pods into `pods` until `stop`; a fatal answer (RBAC) leaves them unknown.
void WatchNodePods(kube::KubeClient* client, const std::string& node, runtime::Store& pods, runtime::StopFlag& stop) {
  runtime::ClientListWatch source(client, kube::Pods(), "");
  source.SetFieldSelector("spec.nodeName=" + node);
  runtime::Watcher watcher(&source, [&pods](runtime::WatcherEvent&& event) { pods.Apply(std::move(event)); });
  const Status status = watcher.Run(
      stop.flag(), runtime::DefaultWatchBackoff(), [&stop](Duration d) { stop.Sleep(d); },
      [](const Status& error) { Log(LogLevel::kWarning, "pod watch interrupted; retrying", {{"error", error.ToString()}}); });
  if (!status.ok()) Log(LogLevel::kError, "the pod watch stopped: the pods on the node stay unknown", {{"error", status.ToString()}});
}


int Run(const Options& options) {
  const sigset_t signals = runtime::BlockStopSignals();
  const auto cannot_start = [](const Status& error) {
    Log(LogLevel::kError, "cannot configure the Kubernetes client", {{"error", error.ToString()}});
    return 1;
  };
  StatusOr<kube::KubeConfig> config = kube::ResolveKubeConfig(options.kubeconfig);
  if (!config.ok()) return cannot_start(config.status());
  StatusOr<std::unique_ptr<kube::HttpTransport>> transport = kube::NewCpprestTransport(*config);
  if (!transport.ok()) return cannot_start(transport.status());
  kube::KubeClient client(transport->get());
  NodeEnergyAgent agent(options.node,
                        std::make_unique<EnergySampler>(DiscoverEnergyMeters(options.sysfs_root, options.nvml_library)),
                        std::chrono::milliseconds(options.interval_ms));
  if (!agent.measuring()) Log(LogLevel::kWarning, "no meter on this node can read; /energy lists why");
  agent.Start();
  runtime::Store pods;
  runtime::StopFlag stop;
  std::thread watch([&] { WatchNodePods(&client, options.node, pods, stop); });
  auto server = MetricsServer::Start(
      options.bind, options.port, [&agent] { return agent.RenderMetrics(); }, nullptr, {},
      [&](const RouteRequest& request) -> std::optional<HttpReply> {
        if (request.method != "GET" || request.path != "/energy") return std::nullopt;
        const StatusOr<std::optional<EnergyQuery>> query = ParseEnergyQuery(request.query);
        if (!query.ok()) return HttpReply{400, "text/plain", query.status().message() + "\n"};
        const auto known = pods.Synced() ? std::optional(pods.List()) : std::nullopt;
        return HttpReply{200, "application/json", EncodeNodeEnergyReport(agent.Report(known, *query)).dump()};
      });
  int received = 0;
  if (server.ok()) {
    Log(LogLevel::kInfo, "ergobench-energy-agent serving", {{"node", options.node}, {"port", std::to_string((*server)->port())}});
    sigwait(&signals, &received);
    Log(LogLevel::kInfo, "stopping", {{"signal", std::to_string(received)}});
  } else {
    Log(LogLevel::kError, "cannot serve", {{"error", server.status().ToString()}});
  }
  stop.Set();
  client.Shutdown();  // ends the watch's stream
  watch.join();
  agent.Stop();
  return server.ok() ? 0 : 1;
}

}  // namespace
}  // namespace ergobench

int main(int argc, char** argv) {
  ergobench::Options options;
  if (const char* node = std::getenv("NODE_NAME")) options.node = node;
  CLI::App app{"ergobench-energy-agent: the node's energy for the ranks on it and for Prometheus"};
  app.add_option("--node", options.node, "this node's name (default $NODE_NAME)");
  app.add_option("--sysfs-root", options.sysfs_root, "where the host's /sys folders are mounted (<root>/sys/class/...)");
  app.add_option("--nvml-library", options.nvml_library, "the NVML library to load");
  app.add_option("--interval", options.interval_ms, "milliseconds between samples")
      ->check(CLI::Range(ergobench::kMinAgentIntervalMs, 60000));
  app.add_option("--bind", options.bind, "address to serve on");
  app.add_option("--port", options.port, "port to serve /energy, /metrics and the probes on")->check(CLI::Range(1, 65535));
  app.add_option("--kubeconfig", options.kubeconfig, "kubeconfig (default: in-cluster)");
  CLI11_PARSE(app, argc, argv);
  if (options.node.empty()) {
    std::cerr << "ergobench-energy-agent: --node: required (or $NODE_NAME, from the downward API)\n";
    return 2;
  }
  return ergobench::Run(options);
}
