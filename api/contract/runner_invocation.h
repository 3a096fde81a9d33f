// The contract between whatever starts a rank (the operator's pod builder, the local launcher
// behind `ergobench run`, mpirun) and ergobench-runner: every flag and environment variable the
// runner reads, declared once here. The runner builds its command-line parser from
// RunnerFlags(); launchers write command lines with ToArgs() and environments with ToEnv(), so
// the golden files of both catch any drift.
#pragma once

#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace ergobench {

inline constexpr int kDefaultMetricsPort = 9400;
inline constexpr int kDefaultRendezvousPort = 29500;

// Where a rank caches datasets it downloads (runner/data/dataset_fetch.h).
inline constexpr char kDataDirEnv[] = "ERGOBENCH_DATA_DIR";
// The node a pod runs on (the downward API's spec.nodeName), recorded in the rank's result.
inline constexpr char kNodeNameEnv[] = "ERGOBENCH_NODE_NAME";
// The node's IP address (status.hostIP), where the node energy agent listens.
inline constexpr char kNodeIpEnv[] = "ERGOBENCH_NODE_IP";

// How one rank is started. Paths may hold "{rank}", which the runner replaces with its rank,
// so that one command line serves every rank mpirun starts.
struct RunnerInvocation {
  std::string config_path;  // the Benchmark, YAML or resolved JSON
  std::string result_file;  // this rank's result JSON (Kubernetes: the termination message)
  std::string output_dir;   // where rank 0 writes result tables
  std::string progress_file;
  std::string summary_file;  // the one-line human summary of the result
  std::string log_file;
  std::string mllog_file;
  int metrics_port = kDefaultMetricsPort;  // -1 disables metrics, 0 picks a free port
  bool metrics_port_per_rank = false;      // serve on metrics_port + rank (several ranks on one host)
  std::string metrics_bind = "0.0.0.0";
  std::string bind_address;  // the gloo device's address; empty: this host's name
  double rendezvous_timeout_seconds = 300;
  double collective_timeout_seconds = 1800;
  int threads = 0;  // 0: from the CPU budget, shared by ranks_per_host ranks
  int ranks_per_host = 1;
  // Ranks whose energy this node's meters count together, each reporting its share; 0: as
  // many as ranks_per_host. In pods, threads come from each pod's own CPU quota while a node's
  // RAPL counter is shared by the ranks placed on it.
  int ranks_on_node = 0;
  double stop_grace_seconds = 10;
  // After the run, how long rank 0 offers its --output-dir to the operator (ArtifactBundle)
  // before it exits unreleased: on Kubernetes the directory goes with the pod.
  double artifact_linger_seconds = 0;
  // A file holding the token a request for those files must carry (the operator's, from a
  // Secret); none: they are served to whoever asks.
  std::string artifact_token_file;
  int energy_interval_ms = 100;  // 0: list the energy meters but read none
  std::string sysfs_root;        // prefix of /sys for the energy meters (tests)
  // HOST:PORT of the node energy agent (a cluster node): the node's energy comes from it, not
  // from this host's meters. The operator passes $(ERGOBENCH_NODE_IP):<port>.
  std::string energy_agent;
  std::string nvml_library = "libnvidia-ml.so.1";
  // Which of spec.repeats this run is: its seed is derived from it (repeats.h).
  int repeat = 0;

  // Every flag that carries a value, in RunnerFlags() order: numbers always, strings when
  // set, switches when on, explicit because the operator and the runner image may come from
  // different releases. A flag that an environment variable can also set is left out while it
  // holds its default, so that the variable still works (a command-line value would win).
  std::vector<std::string> ToArgs() const;
  bool operator==(const RunnerInvocation&) const = default;
};

// One rank's place in its gang: the environment of a Kubeflow-style launch, as torchrun sets it.
struct RendezvousEnv {
  static constexpr char kRank[] = "RANK";
  static constexpr char kWorldSize[] = "WORLD_SIZE";
  static constexpr char kMasterAddr[] = "MASTER_ADDR";
  static constexpr char kMasterPort[] = "MASTER_PORT";

  int rank = 0;
  int world_size = 1;
  std::string master_addr;
  int master_port = kDefaultRendezvousPort;

  std::vector<std::pair<std::string, std::string>> ToEnv() const;
};

// A flag of the runner's command line and the field it sets.
struct RunnerFlag {
  enum class Check { kNone, kPositive, kNonNegative };
  using Field = std::variant<std::string RunnerInvocation::*, int RunnerInvocation::*, double RunnerInvocation::*,
                             bool RunnerInvocation::*>;
  const char* name;  // "--config"
  const char* env;   // the environment variable that may set it instead, or nullptr
  const char* help;
  Field field;
  Check check = Check::kNone;
  bool required = false;
};

const std::vector<RunnerFlag>& RunnerFlags();

}  // namespace ergobench
