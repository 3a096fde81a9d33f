// MLPerf HPC's CosmoFlow: the reference's 3D CNN (runner/models/cosmoflow.h) regresses the four
// parameters of a dark-matter universe from its volume, trained by the shared synchronous SGD
// loop with the reference's recipe (MSE loss, SGD with momentum, a linear warm-up to the rate
// scaled to the global batch, two step decays) until the validation set's mean absolute error
// (MLPerf's eval_error) reaches the goal. The data are synthetic universes
// (runner/data/cosmo_universes.h), generated after run_start as a data set is read: int16
// particle counts, fed to the model through log1p as the reference's preprocessing does.
#pragma once

#include <memory>

#include "runner/tasks/task.h"

namespace ergobench {

std::unique_ptr<Task> NewCosmoFlowTask();

}  // namespace ergobench
