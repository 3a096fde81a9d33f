#include "runner/launcher/ssh_worker.h"

#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <iostream>

#include "base/child_process.h"
#include "runner/launcher/rank_handoff.h"
#include "runner/launcher/supervision.h"

namespace ergobench::mpi {
namespace {

// Whether mpirun still has processes here: sshd's sessions, and what left them. mpirun's daemon
// starts with --daemonize and so lives on as an orphan, which comes to us (pid 1 in the pod, and
// a subreaper besides). Orphans that ended are reaped on the way.
bool JobProcessesRemain(pid_t sshd) {
  bool remain = false;
  for (const ProcessEntry& process : ListProcesses()) {
    const bool orphan = process.ppid == getpid() && process.pid != sshd;
    if (orphan && process.zombie) waitpid(process.pid, nullptr, WNOHANG);
    if ((orphan || process.ppid == sshd) && !process.zombie) remain = true;
  }
  return remain;
}

}  // namespace

int RunSshWorker(const SshWorkerOptions& options) {
  StopSignals signals;
  prctl(PR_SET_CHILD_SUBREAPER, 1);
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
    if (rank_exit && !JobProcessesRemain(sshd->pid())) {
      sshd->SignalGroup(SIGTERM);
      sshd->Wait();
      return *rank_exit;
    }
  }
}

}  // namespace ergobench::mpi
