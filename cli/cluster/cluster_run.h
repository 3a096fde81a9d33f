// `ergobench run --cluster FILE...`: the same files on a Kubernetes cluster. Each document is
// checked here first, as a local run checks it (exit 2 naming the field, nothing created), then
// created through the API as written; Benchmarks and BenchmarkSweeps are followed by their
// status until each ends, with the progress kubectl's PROGRESS column shows, and each ends
// with its figures. Datasets are created and left to the Benchmarks that wait for them.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "kube/client/client.h"

namespace ergobench {

struct ClusterRunOptions {
  std::vector<std::string> files;
  std::string kubeconfig;      // empty: $KUBECONFIG, in-cluster, ~/.kube/config
  std::string namespace_name;  // empty: the kubeconfig's (a document's own namespace wins)
  bool remove = false;         // --rm: delete what was created once it ended, or on Ctrl-C
  double timeout_seconds = 0;  // 0: wait as long as it takes
  double poll_seconds = 2;
  bool quiet = false;           // no progress lines
  std::string output = "text";  // the ended objects: a line each, or json or yaml documents
};

// How a cluster run waits and learns of Ctrl-C: real time in the command, scripted in tests.
struct ClusterRunClock {
  std::function<double()> seconds;  // monotonic
  std::function<void(double)> sleep;
  std::function<bool()> interrupted;
};

// Exit code (cli/exit_codes.h): kExitOk when everything followed succeeded, kExitFailed when
// one failed or the timeout passed, kExitRegressed when all succeeded but one regressed,
// kExitBadInput for a document that does not validate or that the API refuses as invalid or
// taken, kExitCluster when the cluster cannot be used, kExitInterrupted after Ctrl-C.
int RunOnCluster(const ClusterRunOptions& options, kube::KubeClient& client, const std::string& default_namespace,
                 const ClusterRunClock& clock);

// The same, with the client of options.kubeconfig and real time.
int RunOnCluster(const ClusterRunOptions& options);

// What a followed object shows while it runs: "task1a-k2 · Running · 42% · epoch 3/164 ·
// accuracy 0.71→0.8 · ≤7m40s left"; a sweep's "sweep · Running · 3/6 points".
std::string ClusterProgressLine(const nlohmann::json& object);

// One line for an ended object: "task1a-k2: Succeeded · 13.8k samples/s · TTA 4.9 s · 35.2 kJ ·
// 0.00189 USD", or its phase and its Failed condition's reason and message.
std::string ClusterOutcomeLine(const nlohmann::json& object);

}  // namespace ergobench
