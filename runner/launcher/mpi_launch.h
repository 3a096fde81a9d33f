// `ergobench-mpi launch`: the launcher pod's main process. It waits until every worker's sshd
// answers (bounded: a worker that never comes up ends the launch with a message naming its
// rank), then runs mpirun and ends as mpirun does. mpirun ends the whole job when a rank fails,
// and a stop signal reaches it, so no rank outlives the launch.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "base/status.h"

namespace ergobench::mpi {

// Exit code of a launch whose workers' sshd did not all answer in time.
inline constexpr int kWorkersUnreachableExit = 3;

// The hosts of an Open MPI hostfile, in order (rank i runs on line i with slots=1).
StatusOr<std::vector<std::string>> ReadHostfile(const std::string& path);

// Ok once each host's `port` answers with an SSH identification ("SSH-2.0-..."); else the
// first host that did not by `timeout`, with its rank and the last error.
Status WaitForSshd(const std::vector<std::string>& hosts, int port, std::chrono::milliseconds timeout);

struct MpiLaunchOptions {
  std::string hostfile;
  int ssh_port = 0;
  std::chrono::milliseconds wait_timeout{300'000};
  std::string termination_log;  // why the launch ended early
  std::vector<std::string> mpirun_argv;
  std::chrono::milliseconds poll{200};
};

int RunMpiLaunch(const MpiLaunchOptions& options);

}  // namespace ergobench::mpi
