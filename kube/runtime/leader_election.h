// Leader election on a coordination.k8s.io/v1 Lease, as client-go's leaderelection: only the
// holder reconciles. A lease is taken over when its holder has not renewed it for the lease
// duration (15 s), measured on our own clock from when we last saw the record change, so
// clock skew between replicas does not matter. The leader renews every retry period (2 s)
// and gives up when renewals have failed for the renew deadline (10 s).
#pragma once

#include <atomic>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "base/clock.h"
#include "base/status.h"
#include "kube/client/client.h"

namespace ergobench::runtime {

struct LeaderElectionConfig {
  std::string namespace_name;
  std::string lease_name = "ergobench-operator";
  std::string identity;  // unique per replica: hostname plus a random suffix
  Duration lease_duration = std::chrono::seconds(15);
  Duration renew_deadline = std::chrono::seconds(10);
  Duration retry_period = std::chrono::seconds(2);
};

class LeaderElector {
 public:
  LeaderElector(kube::KubeClient* client, const TimeSource* time, LeaderElectionConfig config)
      : client_(client), time_(time), config_(std::move(config)) {}

  // One attempt; true when we hold the lease afterwards. Conflicts (another replica wrote
  // first) are a plain false.
  StatusOr<bool> TryAcquireOrRenew();

  // Blocks until we lead (true) or `stop` (false).
  bool Acquire(const std::atomic<bool>& stop, const std::function<void(Duration)>& sleep);

  // Renews until `stop` (OK) or until renewals failed for the renew deadline (an error:
  // leadership is lost and the caller must stop reconciling at once).
  Status KeepRenewing(const std::atomic<bool>& stop, const std::function<void(Duration)>& sleep);

  // Hands the lease back on a clean shutdown, so a standby takes over without waiting out
  // the lease duration.
  void Release();

  const std::string& identity() const { return config_.identity; }

 private:
  nlohmann::json DesiredSpec(const nlohmann::json& current) const;

  kube::KubeClient* client_;
  const TimeSource* time_;
  LeaderElectionConfig config_;
  nlohmann::json observed_spec_;
  Clock::time_point observed_time_{};
};

}  // namespace ergobench::runtime
