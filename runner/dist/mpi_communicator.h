// The mpi backend: OpenMPI's own collectives on MPI_COMM_WORLD. Debian's libtorch has no
// ProcessGroupMPI, so this talks to MPI directly; ranks are started by mpirun, which is
// also what assigns them.
#pragma once

#include <memory>

#include "runner/dist/communicator.h"

namespace ergobench {

// Initialises MPI (once per process) and checks that mpirun started `expected_world_size`
// ranks. MPI errors come back as Status values, not aborts.
StatusOr<std::unique_ptr<Communicator>> ConnectMpi(int expected_world_size);

// "Open MPI v4.1.4, ..." without initialising MPI.
std::string MpiLibraryVersion();

// True when this process was started by an MPI launcher.
bool LaunchedByMpirun();

}  // namespace ergobench
