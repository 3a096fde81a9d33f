// What a Benchmark author may ask of the pods the operator creates on their behalf. The
// operator holds pod create in every namespace it watches, so without a policy any author
// could run any image there, tolerate any taint, preempt others' pods or pick another
// scheduler. The platform team sets it (Helm values policy.*, operator flags --allowed-image
// and --allow-*); the defaults allow the runner image's repository and none of the rest.
#pragma once

#include <string>
#include <vector>

#include "api/v1alpha1/benchmark.h"
#include "base/field_errors.h"

namespace ergobench::controller {

struct PodPolicy {
  // Images a spec may name, as shell globs ('*' matches any run of characters, '/' included).
  // Empty: the runner image's repository, any tag or digest.
  std::vector<std::string> allowed_images;
  bool allow_tolerations = false;
  bool allow_priority_class = false;
  bool allow_scheduler_name = false;
  // Volume source types a spec.dataset.volume may be: claims, which the platform team's
  // StorageClasses and quotas govern. nfs and csi mount whatever server or driver an author
  // names from the node, and hostPath the node's own files: only where the team adds them.
  std::vector<std::string> dataset_volume_types = {"persistentVolumeClaim"};
  // Internal networks (CIDRs) a data set may still be fetched from, by a Dataset's staging or a
  // Benchmark's ranks: a mirror inside the cluster. Every other internal address is refused.
  std::vector<std::string> dataset_allowed_networks;
};

// The patterns in force: the policy's, or those of the runner image's repository.
std::vector<std::string> ImagePatterns(const PodPolicy& policy, const std::string& runner_image);

// Every field of the (defaulted) `benchmark` the policy forbids, with the setting that would
// allow it. `runner_image` is what Benchmarks that name no image run; it is always allowed.
FieldErrors PolicyViolations(const Benchmark& benchmark, const PodPolicy& policy, const std::string& runner_image);

}  // namespace ergobench::controller
