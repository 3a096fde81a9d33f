#include "operator/controller/benchmark/builders.h"

#include <algorithm>

#include "api/v1alpha1/benchmark_codec.h"
#include "api/v1alpha1/defaults.h"
#include "operator/controller/benchmark/artifact_token.h"
#include "operator/controller/benchmark/backend_plugin.h"

namespace ergobench::controller {
namespace {

using nlohmann::json;

// Rank 0's artifact token (artifact_token.h) as a file of the runner's container. Root's file,
// readable by the pod's group (fsGroup): the runner's user reads it, nothing in the pod can
// write it.
void MountArtifactToken(const std::string& secret, json* pod_spec) {
  (*pod_spec)["containers"][0]["volumeMounts"].push_back(
      {{"name", "artifact-token"}, {"mountPath", kArtifactTokenMountPath}, {"readOnly", true}});
  (*pod_spec)["volumes"].push_back(
      {{"name", "artifact-token"},
       {"secret", {{"secretName", secret}, {"defaultMode", 0440},
                   {"items", {{{"key", kArtifactTokenFile}, {"path", kArtifactTokenFile}}}}}}});
}

json OwnerReference(const Benchmark& benchmark) {
  return {{"apiVersion", kApiVersion},        {"kind", kKind},
          {"name", benchmark.metadata.name},  {"uid", benchmark.metadata.uid},
          {"controller", true},               {"blockOwnerDeletion", true}};
}

json Labels(const Benchmark& benchmark) {
  return {{"app.kubernetes.io/name", "ergobench-runner"},
          {"app.kubernetes.io/managed-by", "ergobench-operator"},
          {"app.kubernetes.io/instance", benchmark.metadata.name},
          {kBenchmarkLabel, benchmark.metadata.name}};
}

}  // namespace

json GangLabels(const Gang& gang) {
  json labels = {{kAttemptLabel, std::to_string(gang.attempt)}, {kGenerationLabel, std::to_string(gang.generation)}};
  if (gang.repeat > 0) labels[kRepeatLabel] = std::to_string(gang.repeat);
  return labels;
}

json ChildMetadata(const Benchmark& benchmark, const std::string& name) {
  return {{"name", name},
          {"namespace", benchmark.metadata.namespace_name},
          {"labels", Labels(benchmark)},
          {"ownerReferences", json::array({OwnerReference(benchmark)})}};
}

namespace {

json EnvVar(const std::string& name, const std::string& value) { return {{"name", name}, {"value", value}}; }

json Resources(const Benchmark& benchmark) {
  // Requests equal limits: Guaranteed QoS, so a benchmark is not measured on borrowed CPU.
  const auto& r = benchmark.spec.resources;
  json amounts = {{"cpu", r.cpu.empty() ? kDefaultWorkerCpu : r.cpu},
                  {"memory", r.memory.empty() ? kDefaultWorkerMemory : r.memory}};
  json out = {{"requests", amounts}};
  if (r.gpu > 0) amounts["nvidia.com/gpu"] = std::to_string(r.gpu);
  out["limits"] = amounts;
  return out;
}

}  // namespace

namespace {

// The data, read-only twice over: in the volume source where the type has the field, and in
// the mount, so that no rank can change what the next run reads.
json ReadOnlyVolume(json volume) {
  static const char* kHasReadOnly[] = {"persistentVolumeClaim", "nfs", "csi", "cephfs", "glusterfs", "iscsi", "azureFile"};
  for (const char* type : kHasReadOnly) {
    if (volume.contains(type) && volume[type].is_object()) volume[type]["readOnly"] = true;
  }
  return volume;
}

// Required (anti-)affinity to the node groups of this gang: a group's ranks share a node, and
// no other group's rank may join them. Affinity is required, not preferred: a benchmark whose
// ranks share a node by chance measures something else.
json Placement(const Benchmark& benchmark, int64_t rank, const Gang& gang) {
  const std::string group = std::to_string(NodeGroup(benchmark, rank));
  json gang_labels = GangLabels(gang);
  gang_labels[kBenchmarkLabel] = benchmark.metadata.name;
  const auto term = [&](const char* op) {
    return json::array({{{"labelSelector",
                          {{"matchLabels", gang_labels},
                           // Ranks only: an MPI run's launcher, with no group, goes anywhere.
                           {"matchExpressions", {{{"key", kRankLabel}, {"operator", "Exists"}},
                                                 {{"key", kNodeGroupLabel}, {"operator", op}, {"values", {group}}}}}}},
                         {"topologyKey", "kubernetes.io/hostname"}}});
  };
  json affinity = {{"podAntiAffinity", {{"requiredDuringSchedulingIgnoredDuringExecution", term("NotIn")}}}};
  if (RanksPerNode(benchmark) > 1) {
    affinity["podAffinity"] = {{"requiredDuringSchedulingIgnoredDuringExecution", term("In")}};
  }
  return affinity;
}

}  // namespace

int64_t RanksPerNode(const Benchmark& benchmark) {
  return std::max<int64_t>(benchmark.spec.scheduling.ranks_per_node, 1);
}

int64_t NodeGroup(const Benchmark& benchmark, int64_t rank) { return rank / RanksPerNode(benchmark); }

int64_t NodeGroupSize(const Benchmark& benchmark, int64_t rank) {
  const int64_t first = NodeGroup(benchmark, rank) * RanksPerNode(benchmark);
  return std::min(RanksPerNode(benchmark), benchmark.spec.workers - first);
}

std::string WorkerServiceName(const Benchmark& b) { return b.metadata.name + "-workers"; }
std::string ConfigMapName(const Benchmark& b) { return b.metadata.name + "-config"; }
std::string WorkerPodName(const Benchmark& b, int64_t rank) { return b.metadata.name + "-worker-" + std::to_string(rank); }
std::string MasterAddress(const Benchmark& b) { return WorkerPodName(b, 0) + "." + WorkerServiceName(b); }

std::string DatasetDirInPod(const Benchmark& b) {
  const std::string& inside = b.spec.dataset.path;
  return inside.empty() ? kDatasetMountPath : std::string(kDatasetMountPath) + "/" + inside;
}

json BuildWorkerService(const Benchmark& benchmark) {
  return {{"apiVersion", "v1"},
          {"kind", "Service"},
          {"metadata", ChildMetadata(benchmark, WorkerServiceName(benchmark))},
          {"spec",
           {{"clusterIP", "None"},
            // Ranks resolve each other before they are ready: rendezvous is what makes them so.
            {"publishNotReadyAddresses", true},
            {"selector", {{kBenchmarkLabel, benchmark.metadata.name}}},
            {"ports",
             {{{"name", "rendezvous"}, {"port", kRendezvousPort}, {"targetPort", kRendezvousPort}, {"protocol", "TCP"}},
              {{"name", "metrics"}, {"port", kMetricsPort}, {"targetPort", kMetricsPort}, {"protocol", "TCP"}}}}}}};
}

json BuildConfigMap(const Benchmark& benchmark) {
  // The runner reads the resolved spec, not the user's: every rank runs the same explicit
  // recipe even if the catalog's defaults change in a later release.
  Benchmark config;
  config.api_version = kApiVersion;
  config.kind = kKind;
  config.metadata.name = benchmark.metadata.name;
  config.metadata.namespace_name = benchmark.metadata.namespace_name;
  config.spec = benchmark.spec;
  if (!benchmark.spec.dataset.volume.empty()) {
    // Ranks see the volume as a folder at the mount path; which claim it is stays ours.
    config.spec.dataset.path = DatasetDirInPod(benchmark);
    config.spec.dataset.ref.clear();
    config.spec.dataset.volume = json::object();
  }
  json data = {{"benchmark.json", EncodeBenchmark(config).dump(2) + "\n"}};
  BackendOf(benchmark).AddConfigData(benchmark, &data);
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata", ChildMetadata(benchmark, ConfigMapName(benchmark))},
          {"data", data}};
}

std::string GangNetworkPolicyName(const Benchmark& benchmark) { return benchmark.metadata.name + "-gang"; }

StatusOr<json> ParseNetworkPolicyPeers(const std::string& text) {
  const json peers = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!peers.is_array()) return Status::InvalidArgument("want a JSON list of NetworkPolicyPeers");
  for (size_t i = 0; i < peers.size(); ++i) {
    const std::string where = "[" + std::to_string(i) + "]";
    if (!peers[i].is_object() || peers[i].empty()) return Status::InvalidArgument(where + ": want a NetworkPolicyPeer object");
    for (const auto& [key, value] : peers[i].items()) {
      if (key != "podSelector" && key != "namespaceSelector" && key != "ipBlock") {
        return Status::InvalidArgument(where + "." + key + ": want podSelector, namespaceSelector or ipBlock");
      }
      if (!value.is_object()) return Status::InvalidArgument(where + "." + key + ": want an object");
    }
  }
  return peers;
}

json NamespacePeers(const std::string& ns) {
  json peer = {{"namespaceSelector", {{"matchLabels", {{"kubernetes.io/metadata.name", ns}}}}}};
  return json::array({peer});
}

json BuildGangNetworkPolicy(const Benchmark& benchmark, const json& metrics_peers) {
  const json gang = {{"podSelector", {{"matchLabels", {{kBenchmarkLabel, benchmark.metadata.name}}}}}};
  return {{"apiVersion", "networking.k8s.io/v1"},
          {"kind", "NetworkPolicy"},
          {"metadata", ChildMetadata(benchmark, GangNetworkPolicyName(benchmark))},
          {"spec",
           {{"podSelector", gang["podSelector"]},
            {"policyTypes", {"Ingress"}},
            {"ingress",
             {{{"from", {gang}}},
              {{"from", metrics_peers}, {"ports", {{{"protocol", "TCP"}, {"port", kMetricsPort}}}}}}}}}};
}

RunnerInvocation WorkerInvocation(const Benchmark& benchmark, int64_t rank) {
  RunnerInvocation invocation;
  invocation.config_path = std::string(kConfigMountPath) + "/benchmark.json";
  invocation.result_file = kTerminationMessagePath;
  invocation.output_dir = std::string(kScratchMountPath) + "/output";
  // Where a local run leaves it, so that the results ConfigMap holds the same files.
  invocation.mllog_file = invocation.output_dir + "/rank-{rank}.mllog";
  if (rank == 0) invocation.artifact_linger_seconds = kArtifactLingerSeconds;
  invocation.metrics_bind = "0.0.0.0";
  invocation.metrics_port = kMetricsPort;
  invocation.rendezvous_timeout_seconds = rank == 0 ? kPodRendezvousTimeoutSeconds : kPeerRendezvousTimeoutSeconds;
  invocation.ranks_on_node = static_cast<int>(NodeGroupSize(benchmark, rank));
  return invocation;
}

RendezvousEnv WorkerRendezvous(const Benchmark& benchmark, int64_t rank) {
  return {static_cast<int>(rank), static_cast<int>(benchmark.spec.workers), MasterAddress(benchmark), kRendezvousPort};
}

void RestrictFetches(const Benchmark& benchmark, const std::vector<std::string>& allowed_networks, json* pod) {
  if (benchmark.spec.dataset.source != "url") return;
  std::string allowed;
  for (const std::string& network : allowed_networks) allowed += (allowed.empty() ? "" : ",") + network;
  json& env = (*pod)["spec"]["containers"][0]["env"];
  env.push_back(EnvVar("ERGOBENCH_FETCH_REFUSE_INTERNAL", "1"));
  if (!allowed.empty()) env.push_back(EnvVar("ERGOBENCH_FETCH_ALLOWED_NETWORKS", allowed));
}

json BuildWorkerPod(const Benchmark& benchmark, int64_t rank, const Gang& gang, const WorkerPodOptions& options) {
  const BenchmarkSpec& spec = benchmark.spec;
  json metadata = ChildMetadata(benchmark, WorkerPodName(benchmark, rank));
  metadata["labels"][kRankLabel] = std::to_string(rank);
  metadata["labels"].update(GangLabels(gang));
  metadata["labels"][kNodeGroupLabel] = std::to_string(NodeGroup(benchmark, rank));
  metadata["annotations"] = {{"prometheus.io/scrape", "true"},
                             {"prometheus.io/port", std::to_string(kMetricsPort)},
                             {"prometheus.io/path", "/metrics"}};

  const std::string scratch = kScratchMountPath;
  json env = json::array();
  for (const auto& [name, value] : WorkerRendezvous(benchmark, rank).ToEnv()) env.push_back(EnvVar(name, value));
  env.push_back(EnvVar(kDataDirEnv, scratch + "/datasets"));
  env.push_back({{"name", kNodeNameEnv}, {"valueFrom", {{"fieldRef", {{"fieldPath", "spec.nodeName"}}}}}});
  RunnerInvocation invocation = WorkerInvocation(benchmark, rank);
  invocation.repeat = static_cast<int>(gang.repeat);
  if (options.energy_agent_port > 0) {
    // The agent listens on a hostPort: the node's IP, which the kubelet expands into the flag.
    env.push_back({{"name", kNodeIpEnv}, {"valueFrom", {{"fieldRef", {{"fieldPath", "status.hostIP"}}}}}});
    invocation.energy_agent = "$(" + std::string(kNodeIpEnv) + "):" + std::to_string(options.energy_agent_port);
  }
  const bool guards_artifacts = rank == 0 && !options.artifact_token_secret.empty();
  if (guards_artifacts) {
    invocation.artifact_token_file = std::string(kArtifactTokenMountPath) + "/" + kArtifactTokenFile;
  }
  json container = {
      {"name", "runner"},
      {"image", spec.image.empty() ? DefaultRunnerImage() : spec.image},
      {"command", {"ergobench-runner"}},
      {"args", invocation.ToArgs()},
      {"env", env},
      {"ports",
       {{{"name", "rendezvous"}, {"containerPort", kRendezvousPort}, {"protocol", "TCP"}},
        {{"name", "metrics"}, {"containerPort", kMetricsPort}, {"protocol", "TCP"}}}},
      {"resources", Resources(benchmark)},
      {"readinessProbe", {{"httpGet", {{"path", "/healthz"}, {"port", "metrics"}}}, {"periodSeconds", 5}}},
      {"securityContext", ContainerSecurityContext()},
      {"volumeMounts",
       {{{"name", "config"}, {"mountPath", kConfigMountPath}, {"readOnly", true}},
        {{"name", "scratch"}, {"mountPath", scratch}},
        {{"name", "tmp"}, {"mountPath", kTmpMountPath}}}},
      {"terminationMessagePath", kTerminationMessagePath},
      // A rank killed before it wrote its result still leaves its last log lines.
      {"terminationMessagePolicy", "FallbackToLogsOnError"},
  };

  if (!spec.dataset.volume.empty()) {
    container["volumeMounts"].push_back({{"name", "dataset"}, {"mountPath", kDatasetMountPath}, {"readOnly", true}});
  }
  // The operator restarts the whole gang (runPolicy.backoffLimit): a rank restarted alone
  // could never rejoin its peers' collective. Ranks never call the Kubernetes API.
  json pod_spec = RestrictedPodSpec(container, "Never");
  pod_spec["hostname"] = WorkerPodName(benchmark, rank);
  pod_spec["subdomain"] = WorkerServiceName(benchmark);
  pod_spec["volumes"] = {{{"name", "config"}, {"configMap", {{"name", ConfigMapName(benchmark)}}}},
                         {{"name", "scratch"}, {"emptyDir", {{"sizeLimit", kScratchSizeLimit}}}},
                         {{"name", "tmp"}, {"emptyDir", {{"sizeLimit", kTmpSizeLimit}}}}};
  if (!spec.dataset.volume.empty()) {
    json volume = ReadOnlyVolume(spec.dataset.volume);
    volume["name"] = "dataset";
    pod_spec["volumes"].push_back(volume);
  }
  if (guards_artifacts) MountArtifactToken(options.artifact_token_secret, &pod_spec);
  pod_spec["affinity"] = Placement(benchmark, rank, gang);
  ApplyScheduling(benchmark, &pod_spec);

  json pod = {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", metadata}, {"spec", pod_spec}};
  BackendOf(benchmark).MakeWorker(benchmark, &pod);
  return pod;
}

void ApplyScheduling(const Benchmark& benchmark, json* pod_spec) {
  const Scheduling& scheduling = benchmark.spec.scheduling;
  if (!scheduling.node_selector.empty()) (*pod_spec)["nodeSelector"] = scheduling.node_selector;
  if (scheduling.tolerations.is_array() && !scheduling.tolerations.empty()) (*pod_spec)["tolerations"] = scheduling.tolerations;
  if (!scheduling.scheduler_name.empty()) (*pod_spec)["schedulerName"] = scheduling.scheduler_name;
  if (!scheduling.priority_class_name.empty()) (*pod_spec)["priorityClassName"] = scheduling.priority_class_name;
}

json BuildEvent(const Benchmark& benchmark, const std::string& type, const std::string& reason,
                const std::string& message, const std::string& timestamp) {
  return BuildObjectEvent(kKind, benchmark.metadata, type, reason, message, timestamp);
}

}  // namespace ergobench::controller
