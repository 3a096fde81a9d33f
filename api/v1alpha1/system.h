// The system a run measured: the cloud, instance type, region and hardware of the nodes its
// ranks ran on. Results are grouped by it (a scaling series never mixes two systems) and priced
// by it (price_catalog.h). On a cluster the operator reads each rank's node; a local run is
// its host.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/field_errors.h"
#include "base/json_fields.h"

namespace ergobench {

inline constexpr char kCapacityOnDemand[] = "on-demand";
inline constexpr char kCapacitySpot[] = "spot";

// One node as the cluster describes it, from its labels, providerID and allocatable resources.
struct NodeFacts {
  std::string name;
  std::string provider;       // aws | gcp | azure; empty: not a cloud node, or not known
  std::string instance_type;  // node.kubernetes.io/instance-type
  std::string region;         // topology.kubernetes.io/region
  std::string zone;           // topology.kubernetes.io/zone
  std::string capacity_type;  // kCapacityOnDemand | kCapacitySpot; empty: not said
  double cpus = 0;            // allocatable
  double memory_bytes = 0;    // allocatable
  int64_t accelerators = 0;   // allocatable nvidia.com/gpu or amd.com/gpu
  std::string accelerator_model;
};

struct SystemIdentity {
  std::string provider;
  std::string instance_type;
  std::string region;
  std::string zone;
  std::string capacity_type;
  std::string cpu_model;        // as the ranks' /proc/cpuinfo says
  double node_cpus = 0;         // allocatable CPUs of a node
  std::string accelerator_model;
  int64_t accelerators = 0;     // per node
  std::vector<std::string> nodes;  // the distinct nodes, in order of the ranks that used them
  bool operator==(const SystemIdentity&) const = default;

  // Runs of the same system compare as a scaling series: provider, instance type, region and
  // hardware. Zone, capacity type and node names vary between runs of one system.
  std::string Key() const;
  // For tables: "aws m5.xlarge us-east-1", or "local: <cpu model> ×8" without an instance type.
  std::string Name() const;
};

// The identity of the nodes the ranks used; where nodes differ in a field, their values are
// joined with "+", which makes a mixed system a system of its own. `environment` is the run's
// (rank 0's) environment, for the CPU model.
SystemIdentity DescribeSystem(const std::vector<NodeFacts>& nodes, const nlohmann::json& environment);

// results.system's fields; "name" (Name()) is written for readers of the JSON and read as derived.
const JsonFields<SystemIdentity>& SystemIdentityFields();

}  // namespace ergobench
