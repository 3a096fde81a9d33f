// The node energy agent (ergobench-energy-agent, a DaemonSet): reads the node's energy meters
// (RAPL, hwmon, NVML) on a thread, as Kepler and Scaphandre do, and serves what a rank's pod
// cannot read itself: GET /energy (api/contract/node_energy.h) for the ranks on the node and
// ergobench_node_energy_joules_total{node,device,domain} and
// ergobench_node_power_watts{node,device} for Prometheus. The pods on the node come from a
// watch of the API server (field selector spec.nodeName), so a rank can tell whether the
// node was its Benchmark's alone; the report names none of them (api/contract/node_energy.h).
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/contract/node_energy.h"
#include "base/status.h"
#include "energy/energy_sampler.h"

namespace prometheus {
class Registry;
template <typename T>
class Family;
class Counter;
class Gauge;
}  // namespace prometheus

namespace ergobench {

struct NodePod {
  std::string namespace_name;
  std::string name;
  std::string uid;
  std::string benchmark;  // its ergobench.io/benchmark label, "" for none
  bool operator==(const NodePod&) const = default;
};

// A pod that counts as the node's workload: one that has not ended, and not a DaemonSet's
// or a static (mirror) pod, which every node runs whatever is scheduled there.
std::optional<NodePod> WorkloadPod(const nlohmann::json& pod);

// The Benchmark a request for /energy asks about: `namespace=<ns>&benchmark=<name>`, both DNS
// labels. Nothing for an empty query; an error for anything else.
struct EnergyQuery {
  std::string namespace_name;
  std::string benchmark;
};
StatusOr<std::optional<EnergyQuery>> ParseEnergyQuery(std::string_view query);

// A pod as otherPods names it: kOtherPodPrefix and the first 16 hex digits of
// HMAC-SHA256(`key`, its uid).
std::string OpaquePodName(const std::string& key, const std::string& uid);

// What the agent serves is coarser than the meters: RAPL counts in microjoules every
// millisecond, fine enough to tell instructions apart by their power (CVE-2020-8694, why RAPL is
// root-only), while a rank's energy over a run needs neither. Samples come at least
// kMinAgentIntervalMs apart, and the joules served are whole (floored).
inline constexpr int kMinAgentIntervalMs = 100;
inline constexpr double kServedJoulesStep = 1.0;

class NodeEnergyAgent {
 public:
  // `pod_key`: what OpaquePodName hides the pods' uids under; empty: 32 random bytes.
  NodeEnergyAgent(std::string node, std::unique_ptr<EnergySampler> sampler, std::chrono::milliseconds interval,
                  std::string pod_key = "");
  ~NodeEnergyAgent();

  bool measuring() const { return sampler_->measuring(); }
  void Start();
  void Stop();

  // `pods`: the node's pods as the watch holds them; nothing until it has listed them. Without a
  // query, the report says nothing of them. `now`: when it answers (its readings' age).
  NodeEnergyReport Report(const std::optional<std::vector<nlohmann::json>>& pods,
                          const std::optional<EnergyQuery>& query,
                          EnergySampler::Clock::time_point now = EnergySampler::Clock::now()) const;
  std::string RenderMetrics() const;

 private:
  void Export(const std::vector<ChannelEnergy>& channels);

  std::string node_;
  std::unique_ptr<EnergySampler> sampler_;
  std::chrono::milliseconds interval_;
  std::string pod_key_;
  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Family<prometheus::Counter>* energy_;
  prometheus::Family<prometheus::Gauge>* power_;
};

}  // namespace ergobench
