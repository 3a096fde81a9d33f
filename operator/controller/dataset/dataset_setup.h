// The Dataset controller on a Manager: its caches (Datasets, their staging Jobs and pods,
// each routed to its queue) and its reconciler.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "kube/runtime/store.h"
#include "operator/controller/common/controller_context.h"
#include "operator/controller/dataset/dataset_reconciler.h"

namespace ergobench::controller {

struct DatasetController {
  runtime::Store* datasets = nullptr;  // what the Benchmark controller reads and routes from too
  std::unique_ptr<DatasetReconciler> reconciler;
};

// `image` holds ergobench-stage; `allowed_networks` are the internal networks a staging may
// still fetch from.
std::unique_ptr<DatasetController> SetupDatasetController(const ControllerContext& context, const std::string& image,
                                                          const std::vector<std::string>& allowed_networks);

}  // namespace ergobench::controller
