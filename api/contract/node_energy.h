// The node energy agent's report (GET /energy), the contract between the agent (agent/), which
// writes it, and the runner's AgentMeter, which reads it:
//
//   {"node": "n1", "intervalMs": 100, "sampleAgeMs": 37, "sampleMonotonicNs": 81234567890123,
//    "meters": [...as a rank's energyMeters...],
//    "channels": [{"device": "cpu0", "domain": "package", "inTotal": true, "joules": 8123.5}],
//    "podsKnown": true, "otherPods": ["pod 3f9c0a1b2d4e5f60"]}
//
// Every channel's joules count up from the agent's start (counter wraps undone, power
// integrated), so a difference of two reports is the energy between them. They are the agent's
// last sampling's, sampleAgeMs before it answered (up to intervalMs, more on a busy node): a
// reader places them when they were taken (absent, from an older agent: 0). sampleMonotonicNs
// is when, on the node's CLOCK_MONOTONIC (the node's uptime, which every pod on it can read in
// /proc/uptime): a rank on the same kernel places them exactly, where the answer's time in
// transit would otherwise count (absent from an older agent). `otherPods` answers
// a rank's one question about the node's pods, whether its Benchmark had the node alone,
// without saying whose they are: the node's workload pods (not DaemonSet or static pods, which
// every node runs) that have not ended and are not the Benchmark's the request names
// (GET /energy?namespace=<ns>&benchmark=<name>), each as an opaque name that stays the same
// across requests and tells nothing of its namespace or name (kOtherPodPrefix and 16 hex
// digits: an HMAC of the pod's uid under a key the agent makes at its start). Anyone on the
// network reaches the agent's port: it names no tenant's pods. podsKnown is false until the
// agent's pod watch has listed them, and for a request that names no Benchmark.
#pragma once

#include <cstdint>
#include <optional>
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

inline constexpr char kOtherPodPrefix[] = "pod ";
// A day: an agent whose sampling stalled longer serves nothing a rank can use, and a reader
// computes with ages in nanoseconds without overflow.
inline constexpr int64_t kMaxSampleAgeMs = 86'400'000;

struct NodeEnergyReport {
  std::string node;
  int64_t interval_ms = 0;
  int64_t sample_age_ms = 0;
  std::optional<int64_t> sample_monotonic_ns;
  nlohmann::json meters = nlohmann::json::array();
  std::vector<NodeEnergyChannel> channels;
  bool pods_known = false;
  std::vector<std::string> other_pods;
  bool operator==(const NodeEnergyReport&) const = default;
};

nlohmann::json EncodeNodeEnergyReport(const NodeEnergyReport& report);
// An error names the first field that is wrong.
StatusOr<NodeEnergyReport> DecodeNodeEnergyReport(const nlohmann::json& json);

}  // namespace ergobench
