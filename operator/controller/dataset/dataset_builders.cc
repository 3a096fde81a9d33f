#include "operator/controller/dataset/dataset_builders.h"

#include "operator/controller/common/pod_security.h"

namespace ergobench::controller {
namespace {

using nlohmann::json;

json DatasetMetadata(const Dataset& dataset, const std::string& name) {
  return {{"name", name},
          {"namespace", dataset.metadata.namespace_name},
          {"labels",
           {{"app.kubernetes.io/name", "ergobench-dataset"},
            {"app.kubernetes.io/managed-by", "ergobench-operator"},
            {"app.kubernetes.io/instance", dataset.metadata.name},
            {kDatasetLabel, dataset.metadata.name},
            {kGenerationLabel, std::to_string(dataset.metadata.generation)}}},
          {"ownerReferences",
           {{{"apiVersion", kApiVersion},
             {"kind", kDatasetKind},
             {"name", dataset.metadata.name},
             {"uid", dataset.metadata.uid},
             {"controller", true},
             {"blockOwnerDeletion", true}}}}};
}

}  // namespace

std::string DatasetClaimName(const Dataset& d) { return d.metadata.name + "-data"; }
std::string StagingJobName(const Dataset& d) { return d.metadata.name + "-stage"; }
std::string StagingVerdictPath(const Dataset& d) {
  // Appended, not a chain of operator+ on temporaries: GCC 12 warns falsely on that chain
  // (-Warray-bounds) when the file is compiled alone with the precompiled headers.
  std::string path = kStagingMountPath;
  path += "/.ergobench-verdicts/";
  path += d.metadata.uid;
  path += '.';
  path += std::to_string(d.metadata.generation);
  return path;
}

json BuildDatasetClaim(const Dataset& dataset) {
  const DatasetStorage& storage = dataset.spec.storage;
  json metadata = DatasetMetadata(dataset, DatasetClaimName(dataset));
  // The claim outlives a re-staging (an edited url stages beside the old data): no generation.
  metadata["labels"].erase(kGenerationLabel);
  json spec = {{"accessModes", storage.access_modes.empty() ? std::vector<std::string>{"ReadWriteOnce"} : storage.access_modes},
               {"resources", {{"requests", {{"storage", storage.size}}}}}};
  if (!storage.storage_class_name.empty()) spec["storageClassName"] = storage.storage_class_name;
  return {{"apiVersion", "v1"}, {"kind", "PersistentVolumeClaim"}, {"metadata", metadata}, {"spec", spec}};
}

json BuildStagingJob(const Dataset& dataset, const std::string& image, const std::vector<std::string>& allowed_networks) {
  const json amounts = {{"cpu", kStagingCpu}, {"memory", kStagingMemory}};
  json container = {
      {"name", "stage"},
      {"image", image},
      {"command", {"ergobench-stage"}},
      {"args",
       {"--url", dataset.spec.source.url, "--sha256", dataset.spec.source.sha256, "--into", kStagingMountPath,
        "--verdict-file", StagingVerdictPath(dataset), "--result-file", kTerminationMessagePath,
        "--refuse-internal-networks"}},
      {"resources", {{"requests", amounts}, {"limits", amounts}}},
      {"securityContext", ContainerSecurityContext()},
      {"volumeMounts",
       {{{"name", "data"}, {"mountPath", kStagingMountPath}}, {{"name", "tmp"}, {"mountPath", kTmpMountPath}}}},
      {"terminationMessagePath", kTerminationMessagePath},
      {"terminationMessagePolicy", "FallbackToLogsOnError"},
  };
  for (const std::string& network : allowed_networks) container["args"].push_back("--allow-network=" + network);
  // OnFailure: the kubelet restarts a failed try in the same pod, where ergobench-stage finds
  // the verdict no retry mends (exit 2) that the try kept on the claim, and repeats it without
  // fetching while the operator stops the Job. Not in the pod's emptyDir: the restart can race
  // the Job's deletion, which tears the emptyDir down under it (it then fetched again). With
  // restartPolicy Never the Job would start a new pod for each try.
  json pod = {
      {"metadata", {{"labels", DatasetMetadata(dataset, "")["labels"]}}},
      {"spec", RestrictedPodSpec(container, "OnFailure")},
  };
  pod["spec"]["volumes"] = {{{"name", "data"}, {"persistentVolumeClaim", {{"claimName", DatasetClaimName(dataset)}}}},
                            {{"name", "tmp"}, {"emptyDir", {{"sizeLimit", kTmpSizeLimit}}}}};
  return {{"apiVersion", "batch/v1"},
          {"kind", "Job"},
          {"metadata", DatasetMetadata(dataset, StagingJobName(dataset))},
          {"spec", {{"backoffLimit", kStagingBackoffLimit}, {"activeDeadlineSeconds", kStagingDeadlineSeconds},
                    {"template", pod}}}};
}

}  // namespace ergobench::controller
