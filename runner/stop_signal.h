// SIGINT and SIGTERM request a clean stop: the handler only records the signal, and work
// loops poll StopRequested() at points where every rank can agree to stop together.
#pragma once

namespace ergobench {

void InstallStopHandlers();
bool StopRequested();
// The signal that asked for the stop, or 0.
int StopSignal();
// For tests and for stops that do not come from a signal.
void RequestStop(int signal_number);

}  // namespace ergobench
