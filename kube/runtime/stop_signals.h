// SIGTERM and SIGINT, blocked in every thread from the start, so that one thread takes them
// with sigwait and stops the process in order (the operator's Manager, the energy agent).
// A thread with them unblocked could take the signal, and as PID 1 in a container the default
// action is to ignore it, so the process would never stop.
#pragma once

#include <signal.h>

namespace ergobench::runtime {

// Call before any thread exists (cpprestsdk starts its pool with the client): threads inherit
// the calling thread's mask.
inline sigset_t BlockStopSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  return signals;
}

}  // namespace ergobench::runtime
