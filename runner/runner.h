// The runner's whole life: read the config, connect to the other ranks, serve metrics,
// run the task, and write the rank's result, which on Kubernetes is the termination
// message. Every failure ends as a result with status Failed and a non-zero exit code.
#pragma once

#include <string>

namespace ergobench {

struct RunnerOptions {
  std::string config_path;
  // Paths may hold "{rank}", replaced by this rank's number, so that one command line can
  // serve every rank that mpirun starts.
  std::string result_file;
  std::string progress_file;
  std::string log_file;
  std::string mllog_file;
  std::string output_dir;
  int metrics_port = 9400;  // -1 disables metrics, 0 picks a free port
  bool metrics_port_per_rank = false;  // serve on metrics_port + rank (several ranks on one host)
  std::string metrics_bind = "0.0.0.0";
  std::string bind_address;  // the gloo device's address; empty: this host's name
  double rendezvous_timeout_seconds = 300;
  double collective_timeout_seconds = 1800;
  int threads = 0;  // 0: from the CPU budget, shared by ranks_per_host ranks
  int ranks_per_host = 1;
  double stop_grace_seconds = 10;
  int energy_interval_ms = 100;  // 0: list the energy meters but read none
  std::string sysfs_root;        // prefix of /sys for the energy meters (tests)
  std::string nvml_library = "libnvidia-ml.so.1";
};

// Exit codes.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;
inline constexpr int kExitBadConfig = 2;
// Cancelled runs exit with 128 + the signal number, as a shell reports them.

int RunRunner(const RunnerOptions& options);

// Replaces every "{rank}" in `pattern`.
std::string ExpandRank(const std::string& pattern, int rank);

}  // namespace ergobench
