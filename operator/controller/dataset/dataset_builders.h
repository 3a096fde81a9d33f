// Pure builders of what a Dataset with a url source owns: the claim the data is staged into
// ("<name>-data") and the Job that stages it ("<name>-stage"), running ergobench-stage (the
// runner's fetch code: checksum verified, safe extraction, resumed downloads) in the runner
// image under the restricted profile. The same Dataset always gives the same JSON.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/v1alpha1/dataset.h"
#include "operator/controller/common/labels.h"

namespace ergobench::controller {

inline constexpr char kStagingMountPath[] = "/dataset";
// Tries of the staging pod: a transient error (the network, a node) resumes the download.
inline constexpr int kStagingBackoffLimit = 4;
// How long staging may take in all, tries included: a server that trickles just above the
// fetch's low-speed limit (dataset_fetch.h) must not hold a pod and a claim for days. ImageNet's
// 150 GB fits at 4 MB/s.
inline constexpr int64_t kStagingDeadlineSeconds = 12 * 3600;
// What the staging container may use: fetching and extracting needs little, and requests
// equal limits so that it never borrows a benchmark's CPU.
inline constexpr char kStagingCpu[] = "250m";
inline constexpr char kStagingMemory[] = "256Mi";

std::string DatasetClaimName(const Dataset& dataset);  // "<name>-data"
std::string StagingJobName(const Dataset& dataset);    // "<name>-stage"
// Where a staging try keeps a verdict no retry mends, on the claim: one file per Dataset (uid)
// and generation, so that an edited spec or a new Dataset of the same name starts afresh.
std::string StagingVerdictPath(const Dataset& dataset);

// `dataset` is valid and has a url source.
nlohmann::json BuildDatasetClaim(const Dataset& dataset);
// The Job connects to no internal address outside `allowed_networks` (PodPolicy).
nlohmann::json BuildStagingJob(const Dataset& dataset, const std::string& image,
                               const std::vector<std::string>& allowed_networks = {});

}  // namespace ergobench::controller
