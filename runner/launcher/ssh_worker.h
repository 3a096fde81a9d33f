// `ergobench-mpi worker`: the main process of an MPI Benchmark's worker pod. It keeps the
// runner command line the operator gave the pod (rank_handoff.h), serves sshd for the
// launcher's mpirun, and ends the pod as its rank ended: with the rank's exit code, once the
// rank has ended and mpirun's processes here (its sessions, and its daemon, which leaves its
// session) are gone. (Ending before would kill that node's daemon, and mpirun takes a lost
// daemon for a failed job.)
// A stop signal ends sshd and the pod; a rank stopped by mpirun (another rank failed) leaves
// no exit code, so the pod runs on until the operator removes it.
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace ergobench::mpi {

struct SshWorkerOptions {
  std::string state_dir;                    // where the hand-off lives
  std::vector<std::string> sshd_argv;       // e.g. /usr/sbin/sshd -D -e -f <config>
  std::vector<std::string> runner_argv;     // what the rank runs
  std::chrono::milliseconds poll{200};
};

// The exit code the pod ends with.
int RunSshWorker(const SshWorkerOptions& options);

}  // namespace ergobench::mpi
