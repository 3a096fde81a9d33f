#include "runner/mpi/ssh_worker.h"

#include <csignal>
#include <iostream>

#include "base/child_process.h"
#include "runner/mpi/rank_handoff.h"
#include "runner/mpi/supervision.h"

namespace ergobench::mpi {

int RunSshWorker(const SshWorkerOptions& options) {
  StopSignals signals;
  const Status kept = WriteHandoff(options.state_dir, {options.runner_argv, CurrentEnvironment()});
  if (!kept.ok()) {
    std::cerr << "ergobench-mpi worker: " << kept.ToString() << "\n";
    return 1;
  }
  auto sshd = ChildProcess::Start({options.sshd_argv, {}, ""});
  if (!sshd.ok()) {
    std::cerr << "ergobench-mpi worker: cannot start sshd: " << sshd.status().ToString() << "\n";
    return 1;
  }
  std::cerr << "ergobench-mpi worker: sshd is pid " << sshd->pid() << "; waiting for the rank\n";
  std::optional<int> rank_exit;
  while (true) {
    if (const auto signal_number = signals.Wait(options.poll)) {
      sshd->SignalGroup(SIGTERM);
      sshd->Wait();
      return 128 + *signal_number;
    }
    if (const auto code = sshd->Poll()) {
      std::cerr << "ergobench-mpi worker: sshd ended with code " << *code << " before its rank did\n";
      return *code == 0 ? 1 : *code;
    }
    if (!rank_exit) {
      rank_exit = ReadExitCode(options.state_dir);
      if (rank_exit) std::cerr << "ergobench-mpi worker: the rank ended with code " << *rank_exit << "\n";
    }
    if (rank_exit && ChildrenOf(sshd->pid()).empty()) {
      sshd->SignalGroup(SIGTERM);
      sshd->Wait();
      return *rank_exit;
    }
  }
}

}  // namespace ergobench::mpi
