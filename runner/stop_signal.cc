#include "runner/stop_signal.h"

#include <atomic>
#include <csignal>

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

}  // namespace ergobench
