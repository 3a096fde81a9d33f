// `ergobench-mpi rank`: what mpirun starts on each worker pod, over ssh. It runs the runner
// command line the pod was given (rank_handoff.h), in the pod's environment plus what mpirun's
// daemon set (OMPI_*, PMIX_*), after checking that mpirun put this rank on this rank's pod.
//
// Its end tells the pod how to end (ssh_worker.h). A runner that ended on its own leaves its
// exit code; one that died without its result also leaves a termination message saying so,
// for its output went to mpirun (the launcher's log), not to the pod's. A runner stopped by a
// signal to this process (mpirun aborting the job for another rank's failure) leaves nothing:
// it is not the cause.
#pragma once

#include <chrono>
#include <string>

namespace ergobench::mpi {

struct MpiRankOptions {
  std::string state_dir;
  std::string termination_log;  // the pod's; written only if the runner left it empty
  std::chrono::milliseconds poll{200};
};

int RunMpiRank(const MpiRankOptions& options);

}  // namespace ergobench::mpi
