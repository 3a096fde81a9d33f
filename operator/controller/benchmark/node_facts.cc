#include "operator/controller/benchmark/node_facts.h"

#include <initializer_list>
#include <string>

#include "api/v1alpha1/quantity.h"

namespace ergobench::controller {
namespace {

using nlohmann::json;

std::string FirstLabel(const json& labels, std::initializer_list<const char*> keys) {
  for (const char* key : keys) {
    if (auto it = labels.find(key); it != labels.end() && it->is_string() && !it->get<std::string>().empty()) {
      return it->get<std::string>();
    }
  }
  return "";
}

std::string CapacityType(const json& labels) {
  const std::string karpenter = FirstLabel(labels, {"karpenter.sh/capacity-type"});
  if (!karpenter.empty()) return karpenter == "spot" ? kCapacitySpot : kCapacityOnDemand;
  const std::string eks = FirstLabel(labels, {"eks.amazonaws.com/capacityType"});
  if (!eks.empty()) return eks == "SPOT" ? kCapacitySpot : kCapacityOnDemand;
  if (FirstLabel(labels, {"cloud.google.com/gke-spot"}) == "true" ||
      FirstLabel(labels, {"cloud.google.com/gke-preemptible"}) == "true" ||
      FirstLabel(labels, {"kubernetes.azure.com/scalesetpriority"}) == "spot") {
    return kCapacitySpot;
  }
  // GKE and AKS label only spot nodes; their other nodes say nothing, so nothing is assumed.
  return "";
}

std::string Provider(const std::string& provider_id) {
  const std::string scheme = provider_id.substr(0, provider_id.find("://"));
  if (scheme == provider_id) return "";
  return scheme == "gce" ? "gcp" : scheme;
}

double Quantity(const json& resources, const char* name) {
  auto it = resources.find(name);
  if (it == resources.end() || !it->is_string()) return 0;
  StatusOr<double> value = ParseQuantity(it->get<std::string>());
  return value.ok() ? *value : 0;
}

}  // namespace

NodeFacts NodeFactsOf(const json& node) {
  NodeFacts facts;
  const json metadata = node.value("metadata", json::object());
  const json labels = metadata.value("labels", json::object());
  const json allocatable = node.value("status", json::object()).value("allocatable", json::object());
  facts.name = metadata.value("name", "");
  facts.provider = Provider(node.value("spec", json::object()).value("providerID", ""));
  facts.instance_type = FirstLabel(labels, {"node.kubernetes.io/instance-type", "beta.kubernetes.io/instance-type"});
  facts.region = FirstLabel(labels, {"topology.kubernetes.io/region", "failure-domain.beta.kubernetes.io/region"});
  facts.zone = FirstLabel(labels, {"topology.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/zone"});
  facts.capacity_type = CapacityType(labels);
  facts.cpus = Quantity(allocatable, "cpu");
  facts.memory_bytes = Quantity(allocatable, "memory");
  facts.accelerators = static_cast<int64_t>(Quantity(allocatable, "nvidia.com/gpu") + Quantity(allocatable, "amd.com/gpu"));
  facts.accelerator_model = FirstLabel(
      labels, {"nvidia.com/gpu.product", "cloud.google.com/gke-accelerator", "k8s.amazonaws.com/accelerator"});
  return facts;
}

}  // namespace ergobench::controller
