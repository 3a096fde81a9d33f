// TCP ports for launching local ranks and test servers.
#pragma once

#include "base/status.h"

namespace ergobench {

// A port on `address` held bound, with SO_REUSEADDR and without listening, until this is
// destroyed. While held, the kernel gives the port to no other bind(0) and to no outgoing
// connect(), yet a process that binds it with SO_REUSEADDR (c10d's TCPStore does) may listen
// on it. So a rendezvous port chosen before its server starts cannot be taken meanwhile, not
// even by a client connecting to itself.
class ReservedPort {
 public:
  static StatusOr<ReservedPort> Reserve(const char* address = "127.0.0.1");

  ReservedPort(ReservedPort&& other) noexcept;
  ReservedPort& operator=(ReservedPort&& other) noexcept;
  ReservedPort(const ReservedPort&) = delete;
  ReservedPort& operator=(const ReservedPort&) = delete;
  ~ReservedPort();

  int port() const { return port_; }

 private:
  ReservedPort(int fd, int port) : fd_(fd), port_(port) {}
  int fd_ = -1;
  int port_ = 0;
};

// A port free on this machine right now. Another process may take it before it is used:
// callers that can bind port 0 themselves, or hold a ReservedPort, should.
StatusOr<int> FreePort(const char* address = "127.0.0.1");

}  // namespace ergobench
