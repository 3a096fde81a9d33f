// c10d's TCPStore as the rendezvous of the gloo and nccl backends: rank 0 serves it on
// MASTER_PORT, the others connect. Only torch translation units include this header.
#pragma once

#include <string>

#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include "base/status.h"
#include "runner/dist/communicator.h"

namespace ergobench {

// Blocks until every rank has connected or `options.timeout` passes; the error then names the
// master address and what went wrong.
StatusOr<c10::intrusive_ptr<c10d::TCPStore>> ConnectStore(const RendezvousOptions& options);

// The first line of a c10d or gloo exception: the rest is a C++ backtrace.
std::string FirstLine(const char* what);

}  // namespace ergobench
