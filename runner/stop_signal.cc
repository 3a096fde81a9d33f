#include "runner/stop_signal.h"

#include <atomic>
#include <csignal>

#include "runner/dist/communicator.h"

namespace ergobench {
namespace {

std::atomic<int> g_stop_signal{0};

extern "C" void OnStopSignal(int signal_number) { g_stop_signal.store(signal_number); }

}  // namespace

void InstallStopHandlers() {
  struct sigaction action {};
  action.sa_handler = OnStopSignal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

bool StopRequested() { return g_stop_signal.load() != 0; }
int StopSignal() { return g_stop_signal.load(); }
void RequestStop(int signal_number) { g_stop_signal.store(signal_number); }

Status AgreeToContinue(Communicator& comm, const std::string& when) {
  int64_t stop = StopRequested() ? 1 : 0;
  RETURN_IF_ERROR(comm.AllReduce(&stop, 1, DType::kInt64, ReduceOp::kMax));
  if (stop != 0) return Status::Cancelled("stopped by a signal " + when);
  return Status::Ok();
}

}  // namespace ergobench
