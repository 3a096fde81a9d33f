// What ergobench-stage does for the operator's staging Job: fetch a Dataset's url into its
// claim with the runner's fetch code and say how it went, as the pod's exit code and
// termination message.
#pragma once

#include <string>

#include "api/v1alpha1/dataset.h"
#include "runner/data/dataset_fetch.h"

namespace ergobench {

struct StageOptions {
  std::string url;
  std::string sha256;
  std::string into;  // the data lands in <into>/<sha256>/data
  // Where a verdict no retry mends is kept (empty: nowhere), its folder made if need be. The
  // operator names a file on the claim, which outlives the pod's restarts and its deletion, so
  // a later try repeats the verdict at once instead of fetching the archive again before the
  // operator stops the Job.
  std::string verdict_file;
};

struct StageOutcome {
  int exit_code = 0;  // 0, kStagingExitRetry or kStagingExitPermanent (api/v1alpha1/dataset.h)
  // On success {"path", "bytes", "files", "seconds"} (path relative to `into`; the seconds the
  // fetch, check and extraction took); otherwise the error.
  std::string result;
};

StageOutcome StageDataset(const StageOptions& options, const FetchLimits& limits = FetchLimits::FromEnv());

}  // namespace ergobench
