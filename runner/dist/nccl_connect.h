// Connects the nccl backend (runner/cuda) for the runner: the rank's GPU, NCCL loaded at run
// time, and the unique id passed through c10d's TCPStore (runner/dist/tcp_store.h).
#pragma once

#include <memory>

#include "base/status.h"
#include "runner/dist/communicator.h"

namespace ergobench {

// The rank's GPU is its local rank (rendezvous_env.h) modulo the devices it sees.
StatusOr<std::unique_ptr<Communicator>> ConnectNcclRanks(const RendezvousOptions& options);

}  // namespace ergobench
