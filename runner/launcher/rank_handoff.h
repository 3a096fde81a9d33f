// The hand-off between an MPI worker pod's two halves. The pod's main process (ssh_worker.h)
// keeps the runner command line and environment the operator gave the pod; the rank that
// mpirun starts over ssh (mpi_rank.h) runs exactly that, and leaves its exit code for the main
// process to end the pod with. Both sides are ergobench-mpi, in the same container.
//
//   <state dir>/rank.json   {"argv": [...], "env": {"NAME": "value", ...}}, written once
//   <state dir>/exit-code   the runner's exit code, written when it ended on its own
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"

namespace ergobench::mpi {

struct RankHandoff {
  std::vector<std::string> argv;
  std::vector<std::pair<std::string, std::string>> env;
};

// Each file is written whole (a temporary file renamed), so a reader never sees half of one.
Status WriteHandoff(const std::string& state_dir, const RankHandoff& handoff);
StatusOr<RankHandoff> ReadHandoff(const std::string& state_dir);
Status WriteExitCode(const std::string& state_dir, int code);
// The code, once written; nullopt before.
std::optional<int> ReadExitCode(const std::string& state_dir);

// This process's environment, as pairs.
std::vector<std::pair<std::string, std::string>> CurrentEnvironment();

}  // namespace ergobench::mpi
