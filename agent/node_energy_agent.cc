#include "agent/node_energy_agent.h"

#include <openssl/rand.h>
#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <algorithm>
#include <cmath>

#include "api/v1alpha1/benchmark.h"
#include "base/hmac_sha256.h"
#include "base/text_scan.h"

namespace ergobench {

using nlohmann::json;

std::optional<NodePod> WorkloadPod(const json& pod) {
  const json metadata = pod.value("metadata", json::object());
  const std::string phase = pod.value("status", json::object()).value("phase", "");
  if (phase == "Succeeded" || phase == "Failed") return std::nullopt;
  if (metadata.value("annotations", json::object()).contains("kubernetes.io/config.mirror")) return std::nullopt;
  for (const json& owner : metadata.value("ownerReferences", json::array())) {
    if (owner.value("kind", "") == "DaemonSet" && owner.value("controller", false)) return std::nullopt;
  }
  return NodePod{metadata.value("namespace", ""), metadata.value("name", ""), metadata.value("uid", ""),
                 metadata.value("labels", json::object()).value(kBenchmarkLabel, "")};
}

StatusOr<std::optional<EnergyQuery>> ParseEnergyQuery(std::string_view query) {
  if (query.empty()) return std::optional<EnergyQuery>();
  EnergyQuery parsed;
  bool has_namespace = false, has_benchmark = false;
  while (!query.empty()) {
    const std::string_view pair = query.substr(0, query.find('&'));
    query.remove_prefix(std::min(query.size(), pair.size() + 1));
    const size_t equals = pair.find('=');
    const std::string_view key = pair.substr(0, equals);
    const std::string value(equals == std::string_view::npos ? "" : pair.substr(equals + 1));
    if (!IsDnsLabel(value)) {
      return Status::InvalidArgument("/energy?" + std::string(key) + "=: want a DNS label (a namespace or a Benchmark's name)");
    }
    if (key == "namespace" && !has_namespace) {
      parsed.namespace_name = value;
      has_namespace = true;
    } else if (key == "benchmark" && !has_benchmark) {
      parsed.benchmark = value;
      has_benchmark = true;
    } else {
      return Status::InvalidArgument("/energy: want ?namespace=<ns>&benchmark=<name>, each once");
    }
  }
  if (!has_namespace || !has_benchmark) return Status::InvalidArgument("/energy: want ?namespace=<ns>&benchmark=<name>");
  return std::optional<EnergyQuery>(std::move(parsed));
}

std::string OpaquePodName(const std::string& key, const std::string& uid) {
  return kOtherPodPrefix + HmacSha256Hex(key, uid).substr(0, 16);
}

NodeEnergyAgent::NodeEnergyAgent(std::string node, std::unique_ptr<EnergySampler> sampler,
                                 std::chrono::milliseconds interval, std::string pod_key)
    : node_(std::move(node)),
      sampler_(std::move(sampler)),
      interval_(interval),
      pod_key_(std::move(pod_key)),
      registry_(std::make_shared<prometheus::Registry>()),
      energy_(&prometheus::BuildCounter()
                   .Name("ergobench_node_energy_joules_total")
                   .Help("Energy the node's meters counted since the agent started, by device and domain")
                   .Register(*registry_)),
      power_(&prometheus::BuildGauge()
                  .Name("ergobench_node_power_watts")
                  .Help("The node's power over the last sampling interval, by device (summed domains)")
                  .Register(*registry_)) {
  if (pod_key_.empty()) {
    pod_key_.resize(32);
    // Without randomness the names could be guessed from a uid: then they are not given at all.
    if (RAND_bytes(reinterpret_cast<unsigned char*>(pod_key_.data()), 32) != 1) pod_key_.clear();
  }
}

NodeEnergyAgent::~NodeEnergyAgent() { Stop(); }

void NodeEnergyAgent::Start() {
  sampler_->Start(interval_, [this](const std::vector<ChannelEnergy>& channels) { Export(channels); });
}

void NodeEnergyAgent::Stop() { sampler_->Stop(); }

namespace {

double Served(double joules) { return std::floor(joules / kServedJoulesStep) * kServedJoulesStep; }

}  // namespace

void NodeEnergyAgent::Export(const std::vector<ChannelEnergy>& channels) {
  for (const ChannelEnergy& c : channels) {
    prometheus::Counter& counter = energy_->Add({{"node", node_}, {"device", c.channel.device}, {"domain", c.channel.domain}});
    const double served = Served(c.joules);
    if (served > counter.Value()) counter.Increment(served - counter.Value());
  }
  for (const auto& [device, watts] : PowerByDevice(channels)) {
    power_->Add({{"node", node_}, {"device", device}}).Set(std::round(watts));  // whole watts, as the joules
  }
}

NodeEnergyReport NodeEnergyAgent::Report(const std::optional<std::vector<json>>& pods,
                                         const std::optional<EnergyQuery>& query,
                                         EnergySampler::Clock::time_point now) const {
  NodeEnergyReport report;
  report.node = node_;
  report.interval_ms = interval_.count();
  const EnergySampler::LastSample last = sampler_->Last();  // the joules and their time, together
  if (last.taken && *last.taken < now) {
    report.sample_age_ms = std::chrono::duration_cast<std::chrono::milliseconds>(now - *last.taken).count();
  }
  // steady_clock is CLOCK_MONOTONIC, which pods on the node share (AgentMeter checks that).
  if (last.taken) report.sample_monotonic_ns = std::chrono::nanoseconds(last.taken->time_since_epoch()).count();
  report.meters = sampler_->Describe();
  for (const ChannelEnergy& c : last.channels) {
    report.channels.push_back({c.channel.device, c.channel.domain, c.channel.in_total, Served(c.joules)});
  }
  report.pods_known = pods.has_value() && query.has_value() && !pod_key_.empty();
  if (!report.pods_known) return report;
  for (const json& pod : *pods) {
    const std::optional<NodePod> workload = WorkloadPod(pod);
    if (!workload || (workload->namespace_name == query->namespace_name && workload->benchmark == query->benchmark)) {
      continue;
    }
    report.other_pods.push_back(OpaquePodName(pod_key_, workload->uid));
  }
  std::sort(report.other_pods.begin(), report.other_pods.end());  // says nothing of the watch's order
  return report;
}

std::string NodeEnergyAgent::RenderMetrics() const {
  return prometheus::TextSerializer().Serialize(registry_->Collect());
}

}  // namespace ergobench
