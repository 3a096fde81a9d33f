// The client of the node energy agent (agent/): on a cluster, a rank's pod cannot read the
// node's RAPL counters (root-only, and masked in containers), so the agent on its node reads
// them and this meter reads the agent's GET /energy, whose channels are counters of joules
// since the agent started. The agent also lists the pods on its node; the meter keeps the
// ones outside this rank's Benchmark, so that a result can say the node was shared.
#pragma once

#include <memory>
#include <string>

#include "base/status.h"
#include "energy/energy_meter.h"

namespace ergobench {

struct AgentAddress {
  std::string host;  // the node's IP address (the agent listens on a hostPort)
  int port = 0;
};

// "10.0.0.5:9810" → {host, port}; an error names what is wrong with it.
StatusOr<AgentAddress> ParseAgentAddress(const std::string& text);

// Unavailable (with the reason) when the agent cannot be reached or has no meter that reads.
// `own_namespace` and `own_benchmark` name this rank's gang, whose pods are not "others".
std::unique_ptr<EnergyMeter> OpenAgentMeter(const AgentAddress& address, const std::string& own_namespace,
                                            const std::string& own_benchmark);

}  // namespace ergobench
