// The gloo backend: c10d's TCPStore for the rendezvous (rank 0 serves it on MASTER_PORT)
// and gloo's own collectives, called on the caller's thread, over a device bound to the rank's
// own address. All torch, c10d and gloo types stay in the .cc file.
#pragma once

#include <memory>

#include "runner/dist/communicator.h"

namespace ergobench {

// Blocks until every rank has joined or `options.timeout` passes; the error then names
// the master address and what went wrong.
StatusOr<std::unique_ptr<Communicator>> ConnectGloo(const RendezvousOptions& options);

}  // namespace ergobench
