#include "agent/node_energy_agent.h"

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include "api/benchmark.h"

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
  return NodePod{metadata.value("namespace", ""), metadata.value("name", ""),
                 metadata.value("labels", json::object()).value(kBenchmarkLabel, "")};
}

NodeEnergyAgent::NodeEnergyAgent(std::string node, std::unique_ptr<EnergySampler> sampler,
                                 std::chrono::milliseconds interval)
    : node_(std::move(node)),
      sampler_(std::move(sampler)),
      interval_(interval),
      registry_(std::make_shared<prometheus::Registry>()),
      energy_(&prometheus::BuildCounter()
                   .Name("ergobench_node_energy_joules_total")
                   .Help("Energy the node's meters counted since the agent started, by device and domain")
                   .Register(*registry_)),
      power_(&prometheus::BuildGauge()
                  .Name("ergobench_node_power_watts")
                  .Help("The node's power over the last sampling interval, by device (summed domains)")
                  .Register(*registry_)) {}

NodeEnergyAgent::~NodeEnergyAgent() { Stop(); }

void NodeEnergyAgent::Start() {
  sampler_->Start(interval_, [this](const std::vector<ChannelEnergy>& channels) { Export(channels); });
}

void NodeEnergyAgent::Stop() { sampler_->Stop(); }

void NodeEnergyAgent::Export(const std::vector<ChannelEnergy>& channels) {
  for (const ChannelEnergy& c : channels) {
    prometheus::Counter& counter = energy_->Add({{"node", node_}, {"device", c.channel.device}, {"domain", c.channel.domain}});
    if (c.joules > counter.Value()) counter.Increment(c.joules - counter.Value());
  }
  for (const auto& [device, watts] : PowerByDevice(channels)) power_->Add({{"node", node_}, {"device", device}}).Set(watts);
}

NodeEnergyReport NodeEnergyAgent::Report(const std::optional<std::vector<json>>& pods) const {
  NodeEnergyReport report;
  report.node = node_;
  report.interval_ms = interval_.count();
  report.meters = sampler_->Describe();
  for (const ChannelEnergy& c : sampler_->Channels()) {
    report.channels.push_back({c.channel.device, c.channel.domain, c.channel.in_total, c.joules});
  }
  report.pods_known = pods.has_value();
  for (const json& pod : pods.value_or(std::vector<json>{})) {
    if (auto workload = WorkloadPod(pod)) report.pods.push_back(*workload);
  }
  return report;
}

std::string NodeEnergyAgent::RenderMetrics() const {
  return prometheus::TextSerializer().Serialize(registry_->Collect());
}

}  // namespace ergobench
