#include "runner/tasks/allreduce_sweep.h"
#include "runner/tasks/cosmoflow.h"
#include "runner/tasks/image_classification.h"
#include "runner/tasks/language_model.h"
#include "runner/tasks/logistic_regression.h"
#include "runner/tasks/task.h"
#include "runner/tasks/translation.h"

namespace ergobench {

StatusOr<std::unique_ptr<Task>> CreateTask(const std::string& id) {
  if (id == "0a") return NewAllreduceSweepTask();
  if (id == "1a") return NewImageClassificationTask("resnet20");
  if (id == "fmnist") return NewImageClassificationTask("small_cnn");
  if (id == "resnet50") return NewImageNetClassificationTask();
  if (id == "2a") return NewLogisticRegressionTask();
  if (id == "gpt") return NewLanguageModelTask();
  if (id == "cosmoflow") return NewCosmoFlowTask();
  if (id == "4a" || id == "4b") return NewTranslationTask();
  return Status::Unimplemented("this runner has no implementation of task \"" + id + "\"");
}

}  // namespace ergobench
