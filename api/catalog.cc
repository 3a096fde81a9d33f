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
