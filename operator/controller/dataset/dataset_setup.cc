#include "operator/controller/dataset/dataset_setup.h"

#include "operator/controller/common/labels.h"

namespace ergobench::controller {

std::unique_ptr<DatasetController> SetupDatasetController(const ControllerContext& context, const std::string& image,
                                                          const std::vector<std::string>& allowed_networks) {
  auto controller = std::make_unique<DatasetController>();
  DatasetController* self = controller.get();
  runtime::Manager& manager = *context.manager;
  runtime::WorkQueue* queue =
      manager.AddController("dataset", [self](const std::string& key) { return self->reconciler->Reconcile(key); });
  runtime::Store* jobs = manager.AddCache("jobs", context.Watch(kube::Jobs(), kDatasetLabel), StagingOwnerKey, {{queue, nullptr}});
  runtime::Store* staging_pods =
      manager.AddCache("staging pods", context.Watch(kube::Pods(), kDatasetLabel), StagingOwnerKey, {{queue, nullptr}});
  self->datasets = manager.AddCache("datasets", context.Watch(kube::Datasets(), ""), runtime::ObjectKey, {{queue, nullptr}});
  self->reconciler = std::make_unique<DatasetReconciler>(DatasetReconcilerDeps{
      context.client, self->datasets, jobs, staging_pods, context.time, image, context.record_event,
      allowed_networks});
  return controller;
}

}  // namespace ergobench::controller
