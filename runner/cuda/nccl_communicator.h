// The nccl backend: NCCL's collectives on one GPU per rank, behind the Communicator interface,
// without torch. Rank 0 makes NCCL's unique id and publishes it through the rendezvous the
// runner already has (c10d's TCPStore: runner/dist/nccl_connect.cc); the others fetch it.
// Every collective is queued on the device runtime's stream and waited for, polling NCCL's
// asynchronous error and the collective timeout, so that it has completed when it returns
// and its time means what it says. Host buffers (the ranks' agreement to go on, timings) are
// staged through device memory; GPU buffers go to NCCL as they are.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "runner/cuda/device_runtime.h"
#include "runner/cuda/nccl_library.h"
#include "runner/dist/communicator.h"

namespace ergobench {

struct NcclRendezvous {
  int rank = 0;
  int world_size = 1;
  // Rank 0 publishes the unique id's bytes; the others fetch them (waiting for rank 0).
  // Neither is called in a world of one.
  std::function<Status(const std::string& unique_id)> publish;
  std::function<StatusOr<std::string>()> fetch;
  std::chrono::milliseconds collective_timeout{std::chrono::minutes(30)};
};

StatusOr<std::unique_ptr<Communicator>> ConnectNccl(std::shared_ptr<NcclLibrary> nccl,
                                                    std::unique_ptr<DeviceRuntime> device,
                                                    const NcclRendezvous& rendezvous);

}  // namespace ergobench
