// A TCP port that is free on this machine right now, for launching local ranks and test
// servers. Another process may take it before it is used; callers that can bind port 0
// themselves should.
#pragma once

#include "base/status.h"

namespace ergobench {

StatusOr<int> FreePort(const char* address = "127.0.0.1");

}  // namespace ergobench
