// gradientSync: overlap, PyTorch DDP's design: the parameters, in reverse order (backward
// produces gradients roughly last layer first), form buckets of about `bucket_bytes`. A hook on
// each parameter's gradient accumulator packs its gradient into its bucket as backward makes
// it; a full bucket is all-reduced at once on a thread of its own (buckets launch in order, the
// same on every rank) while backward goes on. Synchronize launches what is left (a parameter
// that got no gradient counts as zeros, as in flat), waits, and averages.
// Only torch translation units include this.
#pragma once

#include <memory>
#include <vector>

#include <torch/torch.h>

#include "runner/sync/gradient_sync.h"

namespace ergobench {

std::unique_ptr<GradientSync> MakeOverlappedGradientSync(Communicator& comm, ParameterGroups groups,
                                                         size_t bucket_bytes);

// How `params` (sizes in bytes) fall into buckets, in launch order: each a list of parameter
// indices, the last parameter first; a bucket closes once it holds `bucket_bytes` or more.
std::vector<std::vector<size_t>> AssignBuckets(const std::vector<size_t>& param_bytes, size_t bucket_bytes);

}  // namespace ergobench
