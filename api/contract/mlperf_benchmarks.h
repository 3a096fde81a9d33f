// MLPerf's names for our tasks, and how many runs its score of each benchmark takes
// (mlcommons/logging's benchmark_meta.py, which the result summarizer reads).
#pragma once

#include <cstdint>
#include <string>

namespace ergobench {

// The name MLPerf gives a task of ours, for submission_benchmark: "resnet" for resnet50 (MLPerf
// Training's ResNet-50 v1.5); the catalog id for the tasks MLPerf does not have.
std::string MlperfBenchmarkName(const std::string& task);

// The runs MLPerf's score of `benchmark` takes: 5 for resnet, 10 for bert, 40 for unet3d (MLPerf
// Training); 10 for cosmoflow, 5 for deepcam (MLPerf HPC). 0 for a name MLPerf does not have.
int64_t MlperfRequiredRuns(const std::string& benchmark);

// The instances a complete weak-scaling score of `benchmark` takes (MLPerf HPC's benchmarks:
// as many as its runs, hpc_training_rules); 0 for any other name.
int64_t MlperfWeakScalingInstances(const std::string& benchmark);

// The runs that did not converge that a score may drop: 4 for unet3d (its 40 runs), else 1.
int64_t MlperfDroppableRuns(const std::string& benchmark);

}  // namespace ergobench
