// gradientSync: sharded, ZeRO (Rajbhandari et al., 2020) as DeepSpeed and FSDP build it:
//  - The parameters form units of about bucketMiB, last parameter first, one optimizer group
//    each. A unit's parameters become views into one flat buffer padded to a multiple of k;
//    rank r owns block r of every unit.
//  - Each unit's gradient is reduce-scattered: a rank keeps the average of its own block only.
//    The optimizer steps the owned blocks, so its state is 1/k of what replicated data
//    parallelism holds, and AfterUpdate all-gathers every unit, which updates the model's
//    parameters in place.
//  - zeroStage 1 keeps the gradients whole until Synchronize: the model's .grad are views into
//    per-unit buffers, reduce-scattered one unit after another once backward is done.
//  - zeroStage 2 frees them while backward runs: a hook packs each gradient into its unit's
//    buffer and drops .grad; a full unit is reduce-scattered on a thread of its own, added into
//    the rank's block and released. Every micro-batch is reduced so, as in DeepSpeed.
//  - zeroStage 3 also lets the parameters go: a unit is a model block (models/block_hooks.h)
//    and keeps only its owned block between uses. Before the block runs forward, and again
//    when backward reaches it, its units are all-gathered; after its forward, and once its
//    gradients are packed, the whole parameters are dropped. Every collective goes through
//    one thread, in the order the model's blocks run, so that every rank issues the same.
// Only torch translation units include this.
#pragma once

#include <cstdint>
#include <memory>

#include "runner/sync/gradient_sync.h"

namespace ergobench {

// Stage 3's units are `blocks` (each split by group) instead of bucket_bytes.
std::unique_ptr<GradientSync> MakeShardedGradientSync(Communicator& comm, ParameterGroups groups,
                                                      size_t bucket_bytes, int stage, ParameterGroups blocks);

// The elements each of `world_size` ranks owns of a unit of `numel`: numel / world_size,
// rounded up (the last block is padded with zeros, which every optimizer leaves at zero).
int64_t ShardLength(int64_t numel, int world_size);

}  // namespace ergobench
