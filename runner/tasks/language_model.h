// Task "gpt": a GPT-2-style language model trained data-parallel, as CARAML's LLM benchmark
// does, reporting tokens/s, time per iteration, model TFLOP/s per device and MFU, energy per
// token, and time to a validation loss. Each optimizer step takes `gradientAccumulation`
// micro-batches of `batchSize` sequences per rank, all-reduces the averaged gradients once,
// clips their global norm and takes an AdamW step on a warm-up + cosine schedule.
#pragma once

#include <memory>

#include "runner/tasks/task.h"

namespace ergobench {

std::unique_ptr<Task> NewLanguageModelTask();

}  // namespace ergobench
