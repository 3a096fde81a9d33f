#include "api/v1alpha1/system.h"

#include <algorithm>

#include "api/v1alpha1/object_codec.h"
#include "base/json_reader.h"
#include "base/units.h"

namespace ergobench {
namespace {

// The nodes' values of one field, distinct, joined with "+".
template <typename Field>
std::string Joined(const std::vector<NodeFacts>& nodes, Field field) {
  std::vector<std::string> seen;
  for (const NodeFacts& node : nodes) {
    const std::string& value = node.*field;
    if (!value.empty() && std::find(seen.begin(), seen.end(), value) == seen.end()) seen.push_back(value);
  }
  std::string out;
  for (const std::string& value : seen) out += (out.empty() ? "" : "+") + value;
  return out;
}

std::string CpuCount(double cpus) {
  return cpus == static_cast<double>(static_cast<int64_t>(cpus)) ? std::to_string(static_cast<int64_t>(cpus))
                                                                 : FormatFixed(cpus, 2);
}

}  // namespace

std::string SystemIdentity::Key() const {
  std::string key = provider + "|" + instance_type + "|" + region;
  if (instance_type.empty()) key += "|" + cpu_model + "|" + CpuCount(node_cpus);
  if (accelerators > 0) key += "|" + std::to_string(accelerators) + "x" + accelerator_model;
  return key;
}

std::string SystemIdentity::Name() const {
  std::string name;
  if (!instance_type.empty()) {
    for (const std::string& part : {provider, instance_type, region}) {
      if (!part.empty()) name += (name.empty() ? "" : " ") + part;
    }
  } else {
    name = "local: " + (cpu_model.empty() ? std::string("unknown CPU") : cpu_model) + " x" + CpuCount(node_cpus);
  }
  if (accelerators > 0 && instance_type.empty()) name += " + " + std::to_string(accelerators) + "x " + accelerator_model;
  return name;
}

SystemIdentity DescribeSystem(const std::vector<NodeFacts>& nodes, const nlohmann::json& environment) {
  SystemIdentity s;
  s.provider = Joined(nodes, &NodeFacts::provider);
  s.instance_type = Joined(nodes, &NodeFacts::instance_type);
  s.region = Joined(nodes, &NodeFacts::region);
  s.zone = Joined(nodes, &NodeFacts::zone);
  s.capacity_type = Joined(nodes, &NodeFacts::capacity_type);
  s.accelerator_model = Joined(nodes, &NodeFacts::accelerator_model);
  s.cpu_model = StringField(environment, "cpuModel");
  for (const NodeFacts& node : nodes) {
    if (std::find(s.nodes.begin(), s.nodes.end(), node.name) == s.nodes.end()) s.nodes.push_back(node.name);
    s.node_cpus = std::max(s.node_cpus, node.cpus);
    s.accelerators = std::max(s.accelerators, node.accelerators);
  }
  return s;
}

const JsonFields<SystemIdentity>& SystemIdentityFields() {
  using S = SystemIdentity;
  static const JsonFields<S> fields =
      JsonFields<S>()
          .Add("provider", &S::provider)
          .Add("instanceType", &S::instance_type)
          .Add("region", &S::region)
          .Add("zone", &S::zone)
          .Add("capacityType", &S::capacity_type)
          .Add("cpuModel", &S::cpu_model)
          .Add("nodeCpus", &S::node_cpus, [](const S& s) { return s.node_cpus > 0; })
          .Add("acceleratorModel", &S::accelerator_model)
          .Add("accelerators", &S::accelerators, [](const S& s) { return s.accelerators > 0; })
          .Add("nodes", &S::nodes)
          .Custom(
              "name", [](ObjectReader* r, const std::string& key, S*) { r->Raw(key); },
              [](const S& s, const std::string& key, nlohmann::json* out) { (*out)[key] = s.Name(); });
  return fields;
}

}  // namespace ergobench
