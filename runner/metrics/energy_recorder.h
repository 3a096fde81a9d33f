// The rank's energy bookkeeping: samples every meter on a thread, exports
// ergobench_energy_joules_total{device,domain} and ergobench_power_watts{device}, marks the
// timed region from the mllog's run_start and run_stop, and at the end fills the Figures:
// energy over the timed region, over the whole run, and to accuracy.
//
// Meters measure a host (RAPL packages) or every device a host shows, so ranks that share a
// host each report their share, 1 / ranks_per_host: summed over ranks, as the results and
// Prometheus sum them, the host is counted once. A node energy agent's meter also says what
// else ran on the node (Figures::energy_shared_with): then the figure is the node's, an upper
// bound on the Benchmark's own.
#pragma once

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>

#include <nlohmann/json.hpp>

#include "api/v1alpha1/result.h"
#include "energy/energy_sampler.h"
#include "runner/metrics/runner_metrics.h"

namespace ergobench {

class EnergyRecorder {
 public:
  EnergyRecorder(std::unique_ptr<EnergySampler> sampler, RunnerMetrics* metrics, int ranks_per_host = 1)
      : sampler_(std::move(sampler)), metrics_(metrics), share_(1.0 / std::max(ranks_per_host, 1)) {}

  // interval 0: meters are listed but not read.
  void Start(std::chrono::milliseconds interval);
  // Feed of mllog events (MlLog::SetObserver).
  void OnEvent(const std::string& event_type, const std::string& key);
  // Stops sampling and adds the energy figures; absent where no meter could read.
  void Finish(Figures* figures);

  // For the result's environment: every meter, available or why not.
  nlohmann::json Describe() const { return sampler_->Describe(); }

 private:
  void Export(const std::vector<ChannelEnergy>& channels);

  std::unique_ptr<EnergySampler> sampler_;
  RunnerMetrics* metrics_;
  double share_;
  bool started_ = false;
  std::optional<EnergySampler::Clock::time_point> start_, run_start_, run_stop_;
};

}  // namespace ergobench
