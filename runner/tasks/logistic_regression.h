// Task 2a (MLBench): L2-regularised logistic regression on epsilon (2000 features, 400k
// training and 100k test samples in libsvm format), trained by the shared synchronous SGD
// loop. Rows stay sparse in memory and are made dense one batch at a time.
#pragma once

#include <memory>

#include "runner/tasks/task.h"

namespace ergobench {

std::unique_ptr<Task> NewLogisticRegressionTask();

}  // namespace ergobench
