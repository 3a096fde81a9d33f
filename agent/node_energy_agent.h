// The node energy agent (ergobench-energy-agent, a DaemonSet): reads the node's energy meters
// (RAPL, hwmon, NVML) on a thread, as Kepler and Scaphandre do, and serves what a rank's pod
// cannot read itself: GET /energy (api/node_energy.h) for the ranks on the node and
// ergobench_node_energy_joules_total{node,device,domain} and
// ergobench_node_power_watts{node,device} for Prometheus. The pods on the node come from a
// watch of the API server (field selector spec.nodeName), so a rank can tell whether the
// node was its Benchmark's alone.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/node_energy.h"
#include "runner/energy/energy_sampler.h"

namespace prometheus {
class Registry;
template <typename T>
class Family;
class Counter;
class Gauge;
}  // namespace prometheus

namespace ergobench {

// A pod that counts as the node's workload: one that has not ended, and not a DaemonSet's
// or a static (mirror) pod, which every node runs whatever is scheduled there.
std::optional<NodePod> WorkloadPod(const nlohmann::json& pod);

class NodeEnergyAgent {
 public:
  NodeEnergyAgent(std::string node, std::unique_ptr<EnergySampler> sampler, std::chrono::milliseconds interval);
  ~NodeEnergyAgent();

  bool measuring() const { return sampler_->measuring(); }
  void Start();
  void Stop();

  // `pods`: the node's pods as the watch holds them; nothing until it has listed them.
  NodeEnergyReport Report(const std::optional<std::vector<nlohmann::json>>& pods) const;
  std::string RenderMetrics() const;

 private:
  void Export(const std::vector<ChannelEnergy>& channels);

  std::string node_;
  std::unique_ptr<EnergySampler> sampler_;
  std::chrono::milliseconds interval_;
  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Family<prometheus::Counter>* energy_;
  prometheus::Family<prometheus::Gauge>* power_;
};

}  // namespace ergobench
