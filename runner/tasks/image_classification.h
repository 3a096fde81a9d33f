// Image classification by synchronous data-parallel SGD, the engine of task 1a (ResNet-20
// on CIFAR-10) and task fmnist (a small CNN on Fashion-MNIST). Each step every rank
// trains on its own shard, the gradients are all-reduced and averaged once the operation
// completes, and every rank takes the same optimizer step. Timing follows MLPerf: the
// clock starts before the data is first read and stops at the first evaluation that
// reaches the goal.
#pragma once

#include <memory>
#include <string>

#include "runner/tasks/task.h"

namespace ergobench {

// `model`: "resnet20" or "small_cnn".
std::unique_ptr<Task> NewImageClassificationTask(const std::string& model);

}  // namespace ergobench
