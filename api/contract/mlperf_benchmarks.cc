#include "api/contract/mlperf_benchmarks.h"

#include <algorithm>
#include <iterator>
#include <map>

namespace ergobench {

std::string MlperfBenchmarkName(const std::string& task) { return task == "resnet50" ? "resnet" : task; }

int64_t MlperfRequiredRuns(const std::string& benchmark) {
  // benchmark_meta.py's _ALL_RESULT_FILE_COUNTS; the two usages share no name.
  static const std::map<std::string, int64_t> kRuns = {
      // training
      {"bert", 10}, {"dlrm", 5}, {"dlrm_dcnv2", 10}, {"gnmt", 10}, {"gpt3", 3}, {"maskrcnn", 5}, {"minigo", 10},
      {"resnet", 5}, {"ssd", 5}, {"retinanet", 5}, {"stable_diffusion", 10}, {"transformer", 10}, {"ncf", 10},
      {"rnnt", 10}, {"unet3d", 40}, {"gnn", 10}, {"rgat", 10}, {"llama2_70b_lora", 10}, {"llama31_405b", 3},
      // hpc
      {"deepcam", 5}, {"cosmoflow", 10}, {"oc20", 5}, {"openfold", 10}};
  const auto found = kRuns.find(benchmark);
  return found == kRuns.end() ? 0 : found->second;
}

int64_t MlperfWeakScalingInstances(const std::string& benchmark) {
  static const char* const kHpc[] = {"cosmoflow", "deepcam", "oc20"};
  const bool hpc = std::find(std::begin(kHpc), std::end(kHpc), benchmark) != std::end(kHpc);
  return hpc ? MlperfRequiredRuns(benchmark) : 0;
}

int64_t MlperfDroppableRuns(const std::string& benchmark) { return benchmark == "unet3d" ? 4 : 1; }

}  // namespace ergobench
