#include "operator/controller/common/pod_policy.h"

#include <fnmatch.h>

#include <algorithm>

namespace ergobench::controller {
namespace {

// "registry:5000/team/runner:1.2@sha256:..." → "registry:5000/team/runner".
std::string Repository(const std::string& image) {
  std::string repository = image.substr(0, image.find('@'));
  const size_t colon = repository.rfind(':');
  if (colon != std::string::npos && repository.find('/', colon) == std::string::npos) repository.resize(colon);
  return repository;
}

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

}  // namespace

std::vector<std::string> ImagePatterns(const PodPolicy& policy, const std::string& runner_image) {
  if (!policy.allowed_images.empty()) return policy.allowed_images;
  const std::string repository = Repository(runner_image);
  return {repository, repository + ":*", repository + "@*"};
}

FieldErrors PolicyViolations(const Benchmark& benchmark, const PodPolicy& policy, const std::string& runner_image) {
  FieldErrors errors;
  const BenchmarkSpec& spec = benchmark.spec;
  const std::vector<std::string> patterns = ImagePatterns(policy, runner_image);
  bool allowed = spec.image.empty() || spec.image == runner_image;
  for (const std::string& pattern : patterns) allowed = allowed || fnmatch(pattern.c_str(), spec.image.c_str(), 0) == 0;
  if (!allowed) {
    errors.Add("spec.image", "\"" + spec.image + "\" is not allowed by the operator's policy (allowed: " +
                                 Join(patterns) + "; Helm value policy.allowedImages)");
  }
  if (!policy.allow_tolerations && !spec.scheduling.tolerations.empty()) {
    errors.Add("spec.scheduling.tolerations", "are not honoured by the operator's policy (Helm value policy.allowTolerations)");
  }
  if (!policy.allow_priority_class && !spec.scheduling.priority_class_name.empty()) {
    errors.Add("spec.scheduling.priorityClassName",
               "is not honoured by the operator's policy (Helm value policy.allowPriorityClass)");
  }
  if (!policy.allow_scheduler_name && !spec.scheduling.scheduler_name.empty()) {
    errors.Add("spec.scheduling.schedulerName",
               "is not honoured by the operator's policy (Helm value policy.allowSchedulerName)");
  }
  // A local run may read its own files; a pod would read its node's.
  if (spec.dataset.source == "url" && spec.dataset.url.rfind("file:", 0) == 0) {
    errors.Add("spec.dataset.url", "file:// reads the node's own files: on a cluster only http:// and https:// are "
                                   "fetched (or stage the data with a Dataset)");
  }
  const nlohmann::json& volume = spec.dataset.volume;
  if (volume.is_object() && volume.size() == 1) {
    const std::string type = volume.begin().key();
    const auto& allowed_types = policy.dataset_volume_types;
    if (std::find(allowed_types.begin(), allowed_types.end(), type) == allowed_types.end()) {
      errors.Add("spec.dataset.volume." + type, "is not allowed by the operator's policy (allowed: " +
                                                    Join(allowed_types) + "; Helm value policy.datasetVolumeTypes)");
    }
  }
  return errors;
}

}  // namespace ergobench::controller
