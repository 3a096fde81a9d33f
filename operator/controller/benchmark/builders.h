// Pure builders of the objects a Benchmark owns, in the manner of Kubeflow trainer v2: the
// same Benchmark always gives the same JSON, so golden tests pin every field.
//
// Workers find each other as Kubeflow's do: a headless Service "<name>-workers" that
// publishes not-ready addresses, pods "<name>-worker-<i>" with hostname and subdomain, and
// RANK, WORLD_SIZE, MASTER_ADDR (rank 0's DNS name) and MASTER_PORT in the environment.
// Each rank writes its result as its termination message; the resolved config comes from a
// ConfigMap. Pods meet the Pod Security Standards' "restricted" profile (common/pod_security.h).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "api/contract/runner_invocation.h"
#include "api/v1alpha1/benchmark.h"
#include "operator/controller/common/events.h"
#include "operator/controller/common/labels.h"
#include "operator/controller/common/pod_security.h"

namespace ergobench::controller {

inline constexpr int kRendezvousPort = kDefaultRendezvousPort;
inline constexpr int kMetricsPort = kDefaultMetricsPort;
// Rank 0 serves the rendezvous and is created last, once every peer has a node (plan.h): its
// wait is the gang's bound, longer than a local run's, for image pulls. Its peers wait for it
// as long as the operator holds it back (a gang short of nodes is Pending, not failed); the
// operator ends them if rank 0 fails.
inline constexpr double kPodRendezvousTimeoutSeconds = 300;
inline constexpr double kPeerRendezvousTimeoutSeconds = 7 * 86400;
// After its run, rank 0 serves its output directory until the operator has kept it in the
// results ConfigMap and releases it: several progress rounds (kProgressInterval, 10 s) at most.
inline constexpr double kArtifactLingerSeconds = 120;
inline constexpr char kConfigMountPath[] = "/etc/ergobench";
inline constexpr char kScratchMountPath[] = "/var/lib/ergobench";
// Where spec.dataset.volume (a Dataset's claim, once resolved) is mounted, read-only.
inline constexpr char kDatasetMountPath[] = "/data";

// Per worker when spec.resources leaves them out: requests equal limits all the same, so that
// every pod is Guaranteed (its CPUs its own, pinned by a static CPU manager).
inline constexpr char kDefaultWorkerCpu[] = "1";
inline constexpr char kDefaultWorkerMemory[] = "2Gi";
// The bound on the scratch emptyDir, which holds downloaded datasets and the output.
inline constexpr char kScratchSizeLimit[] = "20Gi";
// One set of k worker pods: the spec generation it runs, its restart count within it, and
// which of spec.repeats it runs. Every gang restart, every repeat, and every edit of a running
// spec starts a new gang.
struct Gang {
  int64_t generation = 0;  // status.observedGeneration
  int64_t attempt = 0;     // status.restarts
  int64_t repeat = 0;      // the repeats done: status.repeats.size()
  bool operator==(const Gang&) const = default;
};
// Once a repeated run has succeeded, its repeats have moved into the results, and its last gang
// ran the last of them: the results ConfigMap is written from that gang's pods.
inline Gang CurrentGang(const BenchmarkStatus& status) {
  const bool folded = status.repeats.empty() && status.results && !status.results->repeats.empty();
  const size_t repeat = folded ? status.results->repeats.size() - 1 : status.repeats.size();
  return {status.observed_generation, status.restarts, static_cast<int64_t>(repeat)};
}
// The labels that tell this gang's pods from an earlier one's.
nlohmann::json GangLabels(const Gang& gang);

std::string WorkerServiceName(const Benchmark& benchmark);
std::string ConfigMapName(const Benchmark& benchmark);
std::string WorkerPodName(const Benchmark& benchmark, int64_t rank);
std::string MasterAddress(const Benchmark& benchmark);  // "<name>-worker-0.<name>-workers"
// The runner's dataset.path when spec.dataset.volume is mounted: spec.dataset.path inside it.
std::string DatasetDirInPod(const Benchmark& benchmark);
int64_t RanksPerNode(const Benchmark& benchmark);                 // spec.scheduling.ranksPerNode, at least 1
int64_t NodeGroup(const Benchmark& benchmark, int64_t rank);      // rank / ranksPerNode
int64_t NodeGroupSize(const Benchmark& benchmark, int64_t rank);  // the ranks sharing rank's node

// A child's metadata: name, namespace, the Benchmark's labels, its controller ownerReference.
nlohmann::json ChildMetadata(const Benchmark& benchmark, const std::string& name);

// `benchmark` is defaulted and valid.
nlohmann::json BuildWorkerService(const Benchmark& benchmark);
nlohmann::json BuildConfigMap(const Benchmark& benchmark);
// How the runner in rank `rank`'s pod is started.
RunnerInvocation WorkerInvocation(const Benchmark& benchmark, int64_t rank);
RendezvousEnv WorkerRendezvous(const Benchmark& benchmark, int64_t rank);
// What the operator adds to every worker pod, beside the Benchmark's own.
struct WorkerPodOptions {
  // The node energy agent's hostPort, which the rank reads its node's energy from; 0: none, the
  // rank reads what meters its pod can.
  int energy_agent_port = 0;
  // The Secret of rank 0's artifact token (artifact_token.h), which rank 0 mounts and requires
  // of whoever fetches its files; empty: rank 0 serves them to anyone.
  std::string artifact_token_secret{};
};
// Who may reach a gang's pods, where the cluster enforces NetworkPolicies (the chart's
// policy.networkPolicy): the gang's own pods, on any port (the rendezvous, gloo's and MPI's
// connections, ssh), and `metrics_peers` (NetworkPolicyPeers: the operator and Prometheus) on
// the metrics port, which rank 0's token guards as well. Egress is left open (data sets, the
// node energy agent). `<name>-gang`, owned by the Benchmark.
std::string GangNetworkPolicyName(const Benchmark& benchmark);
// The operator's --network-policy-metrics-from: a JSON list of NetworkPolicyPeers (objects of
// podSelector, namespaceSelector or ipBlock). An error says what is wrong.
StatusOr<nlohmann::json> ParseNetworkPolicyPeers(const std::string& text);
// The peers of namespace `ns`, by the label every namespace has from Kubernetes v1.21
// (kubernetes.io/metadata.name; on v1.20 the namespace must be given it).
nlohmann::json NamespacePeers(const std::string& ns);
nlohmann::json BuildGangNetworkPolicy(const Benchmark& benchmark, const nlohmann::json& metrics_peers);

// Rank `rank`'s pod of gang `gang`, labelled with it.
nlohmann::json BuildWorkerPod(const Benchmark& benchmark, int64_t rank, const Gang& gang,
                              const WorkerPodOptions& options = {});
// The ranks of a Benchmark that fetch its data set themselves (spec.dataset.source url) fetch
// it as a Dataset's staging does: no internal address outside `allowed_networks`
// (runner/data/dataset_fetch.h; the chart's policy.datasetAllowedNetworks). Other pods are left
// as they are.
void RestrictFetches(const Benchmark& benchmark, const std::vector<std::string>& allowed_networks, nlohmann::json* pod);

// spec.scheduling's nodeSelector, tolerations, schedulerName and priorityClassName, set on a
// pod spec.
void ApplyScheduling(const Benchmark& benchmark, nlohmann::json* pod_spec);

// A core/v1 Event about a Benchmark (common/events.h).
nlohmann::json BuildEvent(const Benchmark& benchmark, const std::string& type, const std::string& reason,
                          const std::string& message, const std::string& timestamp);

}  // namespace ergobench::controller
