// Reads where ranks meet from the environment, as Kubeflow's operators and torchrun set it:
// RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT. Each missing or malformed variable is
// named in the error.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "runner/dist/communicator.h"

namespace ergobench {

using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;

// The process environment.
EnvLookup ProcessEnv();

// With none of the four variables set, a single rank on loopback (MASTER_PORT 0: pick one).
StatusOr<RendezvousOptions> RendezvousFromEnv(const EnvLookup& env);

// This process's rank among those on its machine (LOCAL_RANK as torchrun sets it, or mpirun's
// OMPI_COMM_WORLD_LOCAL_RANK); 0 when neither is set. A rank's GPU is this modulo the GPUs it sees.
int LocalRank(const EnvLookup& env);

}  // namespace ergobench
