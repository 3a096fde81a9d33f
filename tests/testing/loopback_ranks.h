// Runs code on k ranks at once, as threads of the test process joined by the real gloo
// backend over loopback: the same code path as k processes, without a launcher.
#pragma once

#include <functional>
#include <future>
#include <vector>

#include "base/free_port.h"
#include "runner/dist/gloo_communicator.h"

namespace ergobench {

inline RendezvousOptions LoopbackRendezvous(int rank, int world_size, int port) {
  RendezvousOptions o;
  o.rank = rank;
  o.world_size = world_size;
  o.master_addr = "127.0.0.1";
  o.master_port = port;
  o.bind_address = "127.0.0.1";
  o.timeout = std::chrono::seconds(20);
  o.collective_timeout = std::chrono::seconds(20);
  return o;
}

// Each rank's status from `body(communicator)`, or its connection error.
inline std::vector<Status> OnLoopbackRanks(int world_size, const std::function<Status(Communicator&)>& body) {
  const StatusOr<ReservedPort> reserved = ReservedPort::Reserve();  // held as ergobench run holds it
  const int port = reserved->port();
  std::vector<std::future<Status>> ranks;
  for (int rank = 0; rank < world_size; ++rank) {
    ranks.push_back(std::async(std::launch::async, [=, &body] {
      auto comm = ConnectGloo(LoopbackRendezvous(rank, world_size, port));
      if (!comm.ok()) return comm.status();
      return body(**comm);
    }));
  }
  std::vector<Status> statuses;
  for (auto& r : ranks) statuses.push_back(r.get());
  return statuses;
}

}  // namespace ergobench
