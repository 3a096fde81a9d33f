#include "runner/launcher/mpi_rank.h"

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "base/child_process.h"
#include "runner/launcher/rank_handoff.h"
#include "runner/launcher/supervision.h"

namespace ergobench::mpi {
namespace {

std::string Lookup(const std::vector<std::pair<std::string, std::string>>& env, const std::string& name) {
  for (const auto& [key, value] : env) {
    if (key == name) return value;
  }
  return "";
}

bool IsEmptyFile(const std::string& path) {
  std::error_code error;
  return !std::filesystem::exists(path, error) || std::filesystem::file_size(path, error) == 0;
}

std::string Describe(int code) {
  if (code > 128) return "signal " + std::to_string(code - 128) + " (" + strsignal(code - 128) + ")";
  return "exit code " + std::to_string(code);
}

// An error before the runner started: this rank's pod fails with it.
int Fail(const MpiRankOptions& options, const std::string& message) {
  std::cerr << "ergobench-mpi rank: " << message << "\n";
  if (!options.termination_log.empty()) std::ofstream(options.termination_log) << message << "\n";
  (void)WriteExitCode(options.state_dir, 2);
  return 2;
}

}  // namespace

int RunMpiRank(const MpiRankOptions& options) {
  StopSignals signals;
  auto handoff = ReadHandoff(options.state_dir);
  if (!handoff.ok()) return Fail(options, handoff.status().message());
  const char* launched_as = std::getenv("OMPI_COMM_WORLD_RANK");
  const std::string pod_rank = Lookup(handoff->env, "RANK");
  if (launched_as == nullptr) return Fail(options, "not started by mpirun (no OMPI_COMM_WORLD_RANK)");
  if (!pod_rank.empty() && pod_rank != launched_as) {
    return Fail(options, std::string("mpirun started rank ") + launched_as + " on the pod of rank " + pod_rank +
                             ": the hostfile's order is not the ranks'");
  }
  auto runner = ChildProcess::Start({handoff->argv, handoff->env, ""});
  if (!runner.ok()) return Fail(options, "cannot start the runner: " + runner.status().message());
  bool stopped = false;
  while (!runner->Poll()) {
    if (const auto signal_number = signals.Wait(options.poll)) {
      stopped = true;
      runner->SignalGroup(*signal_number);
    }
  }
  const int code = *runner->exit_code();
  if (stopped) return code;
  if (code != 0 && !options.termination_log.empty() && IsEmptyFile(options.termination_log)) {
    std::ofstream(options.termination_log) << "the runner ended with " << Describe(code)
                                           << " before writing its result; its output is in the launcher's log\n";
  }
  if (const Status kept = WriteExitCode(options.state_dir, code); !kept.ok()) {
    std::cerr << "ergobench-mpi rank: " << kept.ToString() << "\n";
  }
  return code;
}

}  // namespace ergobench::mpi
