#include "kube/runtime/leader_election.h"

#include "base/rfc3339.h"
#include "kube/client/api_error.h"
#include "kube/runtime/log.h"

namespace ergobench::runtime {

using nlohmann::json;

json LeaderElector::DesiredSpec(const json& current) const {
  const std::string now = Rfc3339Micro(time_->WallNow());
  const bool ours = current.value("holderIdentity", "") == config_.identity;
  json spec = current.is_object() ? current : json::object();
  spec["holderIdentity"] = config_.identity;
  spec["leaseDurationSeconds"] = std::chrono::duration_cast<std::chrono::seconds>(config_.lease_duration).count();
  spec["renewTime"] = now;
  if (!ours) {
    spec["acquireTime"] = now;
    spec["leaseTransitions"] = current.value("leaseTransitions", 0) + (current.value("holderIdentity", "").empty() ? 0 : 1);
  }
  return spec;
}

StatusOr<bool> LeaderElector::TryAcquireOrRenew() {
  const auto& leases = kube::Leases();
  auto lease = client_->Get(leases, config_.namespace_name, config_.lease_name);
  if (kube::IsNotFound(lease.status())) {
    json object = {{"apiVersion", leases.ApiVersion()},
                   {"kind", leases.kind},
                   {"metadata", {{"name", config_.lease_name}, {"namespace", config_.namespace_name}}},
                   {"spec", DesiredSpec(json::object())}};
    auto created = client_->Create(leases, config_.namespace_name, object);
    if (kube::IsAlreadyExists(created.status())) return false;
    if (!created.ok()) return created.status();
    observed_spec_ = (*created)["spec"];
    observed_time_ = time_->Now();
    return true;
  }
  if (!lease.ok()) return lease.status();

  const json spec = lease->value("spec", json::object());
  if (spec != observed_spec_) {
    observed_spec_ = spec;
    observed_time_ = time_->Now();
  }
  const std::string holder = spec.value("holderIdentity", "");
  const auto duration = std::chrono::seconds(spec.value("leaseDurationSeconds", 0));
  const bool held_by_other = !holder.empty() && holder != config_.identity;
  if (held_by_other && observed_time_ + std::chrono::duration_cast<Duration>(duration) > time_->Now()) return false;

  json updated = *lease;
  updated["spec"] = DesiredSpec(spec);
  auto replaced = client_->Replace(leases, config_.namespace_name, config_.lease_name, updated);
  if (kube::IsConflict(replaced.status())) return false;
  if (!replaced.ok()) return replaced.status();
  observed_spec_ = (*replaced)["spec"];
  observed_time_ = time_->Now();
  return true;
}

bool LeaderElector::Acquire(const std::atomic<bool>& stop, const std::function<void(Duration)>& sleep) {
  while (!stop.load()) {
    auto acquired = TryAcquireOrRenew();
    if (acquired.ok() && *acquired) return true;
    if (!acquired.ok()) {
      Log(LogLevel::kWarning, "cannot read or take the lease; retrying",
          {{"lease", config_.namespace_name + "/" + config_.lease_name}, {"error", acquired.status().ToString()}});
    }
    sleep(config_.retry_period);
  }
  return false;
}

Status LeaderElector::KeepRenewing(const std::atomic<bool>& stop, const std::function<void(Duration)>& sleep) {
  Clock::time_point last_renewal = time_->Now();
  Status last_error = Status::Ok();
  while (!stop.load()) {
    sleep(config_.retry_period);
    if (stop.load()) break;
    // An attempt is bounded by the lease client's request timeout (the retry period), so the
    // deadline below is checked in time: a leader gives up before a standby may take over.
    auto renewed = TryAcquireOrRenew();
    if (renewed.ok() && *renewed) {
      last_renewal = time_->Now();
      continue;
    }
    if (!renewed.ok()) {
      last_error = renewed.status();
      Log(LogLevel::kWarning, "cannot renew the lease",
          {{"lease", config_.namespace_name + "/" + config_.lease_name}, {"error", last_error.ToString()}});
    }
    if (time_->Now() - last_renewal >= config_.renew_deadline) {
      return Status::Aborted("lost the lease " + config_.namespace_name + "/" + config_.lease_name +
                             (last_error.ok() ? ": another replica holds it" : ": " + last_error.message()));
    }
  }
  return Status::Ok();
}

void LeaderElector::Release() {
  const auto& leases = kube::Leases();
  auto lease = client_->Get(leases, config_.namespace_name, config_.lease_name);
  if (!lease.ok() || (*lease)["spec"].value("holderIdentity", "") != config_.identity) return;
  json released = *lease;
  released["spec"]["holderIdentity"] = "";
  released["spec"]["leaseDurationSeconds"] = 1;
  released["spec"]["renewTime"] = Rfc3339Micro(time_->WallNow());
  (void)client_->Replace(leases, config_.namespace_name, config_.lease_name, released);
}

}  // namespace ergobench::runtime
