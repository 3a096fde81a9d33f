#include "api/catalog.h"

namespace ergobench {
namespace {

std::vector<TaskDef> BuildCatalog() {
  std::vector<TaskDef> tasks;

  // MLBench task 0a: float32 all-reduce of round(logspace(0, 8, 80)) elements, each timed
  // 100 times. Sizes and repetitions can be narrowed for quick runs.
  TaskDef allreduce;
  allreduce.id = "0a";
  allreduce.title = "All-reduce bandwidth sweep";
  allreduce.origin = "MLBench task 0a";
  allreduce.backends = {"gloo", "mpi", "nccl"};
  allreduce.dataset_sources = {"synthetic"};
  allreduce.hyperparameters = {
      {"minElements", ParamType::kInteger, 1, 1, 1e9, {}, "smallest message, in elements"},
      {"maxElements", ParamType::kInteger, 100000000, 1, 1e9, {}, "largest message, in elements"},
      {"sizes", ParamType::kInteger, 80, 1, 1000, {}, "message sizes, log-spaced from min to max"},
      {"repetitions", ParamType::kInteger, 100, 1, 100000, {}, "timed all-reduces per size"},
      {"warmup", ParamType::kInteger, 5, 0, 10000, {}, "untimed all-reduces per size before timing"},
      {"dtype", ParamType::kString, "float32", std::nullopt, std::nullopt, {"float32", "float16"},
       "element type"},
  };
  tasks.push_back(std::move(allreduce));

  // The synchronous-SGD recipe every training task shares; each sets its own values.
  auto sgd_recipe = [](int64_t batch, double lr, double momentum, bool nesterov, double weight_decay) {
    return std::vector<HyperparameterDef>{
        {"batchSize", ParamType::kInteger, batch, 1, 65536, {}, "samples per worker per step"},
        {"learningRate", ParamType::kNumber, lr, 0, 100, {}, "base rate, scaled linearly to k times over log2(k) epochs"},
        {"momentum", ParamType::kNumber, momentum, 0, 1, {}, "SGD momentum"},
        {"nesterov", ParamType::kBoolean, nesterov, std::nullopt, std::nullopt, {}, "Nesterov momentum"},
        {"weightDecay", ParamType::kNumber, weight_decay, 0, 1, {}, "L2 weight decay"},
        {"plateauFactor", ParamType::kNumber, 0.1, 0, 1, {}, "learning-rate factor on a validation-loss plateau"},
        {"plateauPatience", ParamType::kInteger, 2, 1, 1000, {}, "epochs without a better validation loss"},
        {"seed", ParamType::kInteger, 42, 0, 2147483647, {}, "initialisation, shuffling and augmentation"},
        {"warmupSteps", ParamType::kInteger, 20, 0, 1000000, {}, "steps left out of the throughput window"},
        {"trainSamples", ParamType::kInteger, 0, 0, 1e9, {}, "use only the first N training samples (0: all)"},
    };
  };

  // What every training task shares: an accuracy goal, epochs, and data from a path, a
  // url or a synthetic stand-in.
  auto training_task = [](std::string id, std::string title, std::string origin, double reference_target,
                          double light_target, int64_t max_epochs, std::vector<HyperparameterDef> recipe) {
    TaskDef task;
    task.id = std::move(id);
    task.title = std::move(title);
    task.origin = std::move(origin);
    task.trains = true;
    task.goal_metric = "accuracy";
    task.reference_target = reference_target;
    task.light_target = light_target;
    task.default_max_epochs = max_epochs;
    task.backends = {"gloo", "mpi", "nccl"};
    task.dataset_sources = {"path", "url", "synthetic"};
    task.hyperparameters = std::move(recipe);
    return task;
  };
  const HyperparameterDef augment = {"augment", ParamType::kBoolean, true, std::nullopt, std::nullopt, {},
                                     "random crop and flip (CIFAR only)"};

  // MLBench task 1a: ResNet-20 (He et al. 2015, CIFAR variant) on CIFAR-10.
  tasks.push_back(training_task("1a", "ResNet-20 on CIFAR-10", "MLBench task 1a", 0.80, 0.70, 164,
                                sgd_recipe(128, 0.02, 0.9, true, 1e-4)));
  tasks.back().hyperparameters.push_back(augment);

  // A small CNN on the real Fashion-MNIST, from Debian's dataset-fashion-mnist: time to
  // accuracy measured for real on a 2-core machine in about a minute.
  tasks.push_back(training_task("fmnist", "Small CNN on Fashion-MNIST", "ergobench", 0.85, 0.80, 10,
                                sgd_recipe(64, 0.05, 0.9, true, 5e-4)));
  tasks.back().hyperparameters.push_back(augment);
  tasks.back().default_dataset_path = "/usr/share/datasets/fashion-mnist";

  // MLBench task 2a: L2-regularised logistic regression on epsilon (libsvm format).
  std::vector<HyperparameterDef> logreg = sgd_recipe(128, 4.0, 0.0, false, 2.5e-6);
  logreg.push_back({"trainFile", ParamType::kString, "epsilon_normalized", std::nullopt, std::nullopt, {},
                    "training file under dataset.path"});
  logreg.push_back({"testFile", ParamType::kString, "epsilon_normalized.t", std::nullopt, std::nullopt, {},
                    "test file under dataset.path"});
  logreg.push_back({"features", ParamType::kInteger, 2000, 1, 1e8, {}, "feature count"});
  tasks.push_back(training_task("2a", "Logistic regression on epsilon", "MLBench task 2a", 0.89, 0.80, 20,
                                std::move(logreg)));

  return tasks;
}

}  // namespace

const HyperparameterDef* TaskDef::FindHyperparameter(std::string_view name) const {
  for (const HyperparameterDef& h : hyperparameters) {
    if (h.name == name) return &h;
  }
  return nullptr;
}

const std::vector<TaskDef>& TaskCatalog() {
  static const std::vector<TaskDef> catalog = BuildCatalog();
  return catalog;
}

const TaskDef* FindTask(std::string_view id) {
  for (const TaskDef& task : TaskCatalog()) {
    if (task.id == id) return &task;
  }
  return nullptr;
}

std::string KnownTaskIds() {
  std::string ids;
  for (const TaskDef& task : TaskCatalog()) {
    if (!ids.empty()) ids += ", ";
    ids += task.id;
  }
  return ids;
}

const char* ParamTypeName(ParamType type) {
  switch (type) {
    case ParamType::kInteger: return "an integer";
    case ParamType::kNumber: return "a number";
    case ParamType::kString: return "a string";
    case ParamType::kBoolean: return "true or false";
  }
  return "a value";
}

}  // namespace ergobench
