// SIGINT and SIGTERM request a clean stop: the handler only records the signal, and work
// loops poll StopRequested() at points where every rank can agree to stop together.
#pragma once

#include <string>

#include "base/status.h"

namespace ergobench {

class Communicator;

void InstallStopHandlers();
bool StopRequested();
// The signal that asked for the stop, or 0.
int StopSignal();
// For tests and for stops that do not come from a signal.
void RequestStop(int signal_number);

// Every rank must leave a loop at the same point, or the others would wait in a
// collective for a peer that has gone; so the stop request is itself all-reduced.
// Cancelled ("stopped by a signal <when>") once any rank was asked to stop.
Status AgreeToContinue(Communicator& comm, const std::string& when);

}  // namespace ergobench
