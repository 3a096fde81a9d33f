// The task catalog: every benchmark task ergobench knows, with its reference recipe. The
// catalog is the single source of defaults (defaults.h) and of the hyperparameters a task
// accepts (validation.h); the runner looks tasks up here by id.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace ergobench {

enum class ParamType { kInteger, kNumber, kString, kBoolean };

struct HyperparameterDef {
  std::string name;
  ParamType type;
  nlohmann::json default_value;
  std::optional<double> min;
  std::optional<double> max;
  std::vector<std::string> choices;  // for kString; empty means any string
  std::string description;
};

struct TaskDef {
  std::string id;     // "0a"
  std::string title;  // "All-reduce bandwidth sweep"
  std::string origin;  // where the recipe comes from: "MLBench task 0a"
  // Training tasks have an accuracy goal and epochs; 0a only measures communication.
  bool trains = false;
  std::string goal_metric;
  bool goal_minimizes = false;  // reached at or below the target (a loss), not at or above
  double goal_max = 1;           // the largest target: 1 for an accuracy, 100 for a loss or BLEU
  double reference_target = 0;
  double light_target = 0;
  int64_t default_max_epochs = 0;
  std::vector<std::string> backends;
  std::vector<std::string> dataset_sources;  // the first is the default
  std::string default_dataset_path;          // for source "path", where a Debian package puts it
  // The training set of the task's real dataset, for energy per epoch (CARAML reports
  // ResNet-50's per ImageNet epoch of 1,281,167 images whatever data a run used); 0: none.
  int64_t reference_epoch_samples = 0;
  std::vector<HyperparameterDef> hyperparameters;

  const HyperparameterDef* FindHyperparameter(std::string_view name) const;
};

const std::vector<TaskDef>& TaskCatalog();
// nullptr when no task has that id.
const TaskDef* FindTask(std::string_view id);
// The task's reference_epoch_samples; 0 for an unknown task.
int64_t ReferenceEpochSamples(std::string_view task);
// "0a" or "0a, 1a, 2a": for error messages.
std::string KnownTaskIds();

const char* ParamTypeName(ParamType type);

}  // namespace ergobench
