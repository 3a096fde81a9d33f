// The node energy agent's report (GET /energy), the contract between the agent (agent/), which
// writes it, and the runner's AgentMeter, which reads it:
//
//   {"node": "n1", "intervalMs": 100, "meters": [...as a rank's energyMeters...],
//    "channels": [{"device": "cpu0", "domain": "package", "inTotal": true, "joules": 8123.5}],
//    "podsKnown": true,
//    "pods": [{"namespace": "ns", "name": "p", "benchmark": "b"}]}
//
// Every channel's joules count up from the agent's start (counter wraps undone, power
// integrated), so a difference of two reports is the energy between them. `pods` are the
// node's workload pods (not DaemonSet or static pods, which every node runs) that have not
// ended; `benchmark` is a pod's ergobench.io/benchmark label ("" for none). podsKnown is false
// until the agent's pod watch has listed them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"

namespace ergobench {

struct NodeEnergyChannel {
  std::string device;
  std::string domain;
  bool in_total = true;
  double joules = 0;
  bool operator==(const NodeEnergyChannel&) const = default;
};

struct NodePod {
  std::string namespace_name;
  std::string name;
  std::string benchmark;
  bool operator==(const NodePod&) const = default;
};

struct NodeEnergyReport {
  std::string node;
  int64_t interval_ms = 0;
  nlohmann::json meters = nlohmann::json::array();
  std::vector<NodeEnergyChannel> channels;
  bool pods_known = false;
  std::vector<NodePod> pods;
  bool operator==(const NodeEnergyReport&) const = default;
};

nlohmann::json EncodeNodeEnergyReport(const NodeEnergyReport& report);
// An error names the first field that is wrong.
StatusOr<NodeEnergyReport> DecodeNodeEnergyReport(const nlohmann::json& json);

}  // namespace ergobench
