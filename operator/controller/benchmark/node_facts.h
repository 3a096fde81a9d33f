// What the price catalog needs to know of a Node (api/v1alpha1/system.h's NodeFacts), read from the
// labels clouds and their autoscalers set: the well-known instance-type, region and zone
// labels (and their beta forms), the capacity-type labels of Karpenter, EKS, GKE and AKS, the
// GPU product labels of NVIDIA's feature discovery and GKE, and the provider from
// spec.providerID ("aws://", "gce://", "azure://").
#pragma once

#include <nlohmann/json.hpp>

#include "api/v1alpha1/system.h"

namespace ergobench::controller {

NodeFacts NodeFactsOf(const nlohmann::json& node);

}  // namespace ergobench::controller
