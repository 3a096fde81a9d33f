// Creating many objects for one owner without flooding the API server, as the Job controller
// does: calls go out in batches, each batch's calls concurrently, and each batch is twice the
// last. A batch in which a call fails is the last: what refused one (a quota, an admission
// webhook, a missing permission) usually refuses the rest, and a burst of doomed requests only
// loads the server.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "base/status.h"

namespace ergobench::runtime {

// Runs every call, concurrently (the first on this thread); the first failure in their order,
// or OK.
Status RunConcurrently(const std::vector<std::function<Status()>>& calls);

// Runs call(0) .. call(count - 1) in batches of `initial`, 2 * initial, ... (the Job
// controller starts at 1). Stops after a batch with a failure, and returns its first one.
Status SlowStartBatches(size_t count, size_t initial, const std::function<Status(size_t)>& call);

}  // namespace ergobench::runtime
