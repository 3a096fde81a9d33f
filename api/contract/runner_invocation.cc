#include "api/contract/runner_invocation.h"

#include <charconv>
#include <type_traits>

namespace ergobench {
namespace {

using Check = RunnerFlag::Check;
using I = RunnerInvocation;

// The shortest text that reads back as the same double: "300", "0.25".
std::string FormatNumber(double value) {
  char buffer[32];
  const auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, end);
}

}  // namespace

const std::vector<RunnerFlag>& RunnerFlags() {
  static const std::vector<RunnerFlag> flags = {
      {"--config", "ERGOBENCH_CONFIG", "Benchmark YAML or resolved JSON", &I::config_path, Check::kNone, true},
      {"--result-file", "ERGOBENCH_RESULT_FILE",
       "where to write this rank's result JSON; {rank} is replaced (Kubernetes: /dev/termination-log)",
       &I::result_file},
      {"--output-dir", "ERGOBENCH_OUTPUT_DIR", "where rank 0 writes result tables", &I::output_dir},
      {"--progress-file", nullptr, "append progress events here; {rank} is replaced", &I::progress_file},
      {"--summary-file", nullptr, "write the result's one-line summary here; {rank} is replaced", &I::summary_file},
      {"--log-file", nullptr, "send stdout and stderr here; {rank} is replaced", &I::log_file},
      {"--mllog-file", "ERGOBENCH_MLLOG_FILE", "write MLPerf :::MLLOG lines here; {rank} is replaced", &I::mllog_file},
      {"--metrics-port", "ERGOBENCH_METRICS_PORT", "Prometheus /metrics and /healthz port; -1 disables, 0 picks",
       &I::metrics_port},
      {"--metrics-port-per-rank", nullptr, "serve on metrics-port + rank", &I::metrics_port_per_rank},
      {"--metrics-bind", nullptr, "address the metrics server binds", &I::metrics_bind},
      {"--bind-address", "ERGOBENCH_BIND_ADDRESS", "address this rank's gloo transport binds (default: hostname)",
       &I::bind_address},
      {"--rendezvous-timeout", "ERGOBENCH_RENDEZVOUS_TIMEOUT", "seconds to wait for every rank to join",
       &I::rendezvous_timeout_seconds, Check::kPositive},
      {"--collective-timeout", nullptr, "seconds before a collective is abandoned", &I::collective_timeout_seconds,
       Check::kPositive},
      {"--threads", "ERGOBENCH_THREADS", "torch threads; 0 derives them from the CPU quota", &I::threads,
       Check::kNonNegative},
      {"--ranks-per-host", nullptr, "ranks sharing this host's CPUs, for the thread count", &I::ranks_per_host,
       Check::kPositive},
      {"--ranks-on-node", nullptr,
       "ranks whose energy this node's meters count together, each reporting its share; 0: --ranks-per-host",
       &I::ranks_on_node, Check::kNonNegative},
      {"--stop-grace", nullptr, "seconds between SIGTERM and a forced exit", &I::stop_grace_seconds,
       Check::kNonNegative},
      {"--artifact-linger", nullptr,
       "after the run, seconds to serve --output-dir on the metrics port (GET /artifacts) until POST "
       "/artifacts/release; 0: exit at once",
       &I::artifact_linger_seconds, Check::kNonNegative},
      {"--artifact-token-file", nullptr,
       "a file holding the token (Authorization: Bearer) that /artifacts and /artifacts/release require",
       &I::artifact_token_file},
      {"--energy-interval", nullptr, "milliseconds between energy samples; 0 lists the meters but reads none",
       &I::energy_interval_ms, Check::kNonNegative},
      {"--sysfs-root", "ERGOBENCH_SYSFS_ROOT", "prefix of /sys for the energy meters (testing)", &I::sysfs_root},
      {"--nvml-library", "ERGOBENCH_NVML_LIBRARY", "the NVML library to load", &I::nvml_library},
      {"--energy-agent", nullptr, "HOST:PORT of the node energy agent, read instead of this host's meters",
       &I::energy_agent},
      {"--repeat", "ERGOBENCH_REPEAT", "which of spec.repeats this run is (0 first); the seed is derived from it",
       &I::repeat, Check::kNonNegative},
  };
  return flags;
}

std::vector<std::string> RunnerInvocation::ToArgs() const {
  static const RunnerInvocation kDefaults;
  std::vector<std::string> args;
  for (const RunnerFlag& flag : RunnerFlags()) {
    std::visit(
        [&](auto member) {
          const auto& value = this->*member;
          using T = std::decay_t<decltype(value)>;
          // A command-line value beats the environment, so a flag the environment can set is
          // written only when the launcher chose something else: ERGOBENCH_THREADS still works.
          if (flag.env != nullptr && value == kDefaults.*member) return;
          if constexpr (std::is_same_v<T, bool>) {
            if (value) args.push_back(flag.name);
          } else if constexpr (std::is_same_v<T, std::string>) {
            if (!value.empty()) args.insert(args.end(), {flag.name, value});
          } else {
            args.insert(args.end(), {flag.name, FormatNumber(static_cast<double>(value))});
          }
        },
        flag.field);
  }
  return args;
}

std::vector<std::pair<std::string, std::string>> RendezvousEnv::ToEnv() const {
  return {{kRank, std::to_string(rank)},
          {kWorldSize, std::to_string(world_size)},
          {kMasterAddr, master_addr},
          {kMasterPort, std::to_string(master_port)}};
}

}  // namespace ergobench
