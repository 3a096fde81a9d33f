#include "operator/controller/benchmark/plan.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "api/analysis/aggregate.h"
#include "api/analysis/repeats.h"
#include "api/v1alpha1/benchmark_phase.h"
#include "api/v1alpha1/catalog.h"
#include "api/v1alpha1/result.h"
#include "base/rfc3339.h"
#include "operator/controller/benchmark/backend_plugin.h"
#include "operator/controller/common/conditions.h"

namespace ergobench::controller {
namespace {

using std::chrono::seconds;
using std::chrono::system_clock;

// What cleanPodPolicy removes once the Benchmark has finished.
std::vector<std::string> PodsToClean(const std::string& policy, const std::vector<WorkerPod>& pods) {
  if (policy == "Running") return ActivePodNames(pods);
  std::vector<std::string> out;
  for (const WorkerPod& pod : pods) {
    if (policy == "All" && !pod.terminating) out.push_back(pod.name);
  }
  return out;
}

// The failure that caused the others, with `failed` sorted by when each rank ended. The earliest,
// unless a rank that died without writing its result (killed, or crashed) ended within a few
// seconds of it: a killed rank's peers report their collective breaking at about the same
// moment, and the kubelet records finishedAt in whole seconds, the killed one's only after its
// processes are reaped, so it can come later than its echo.
constexpr seconds kEchoWindow{5};

// `failed` is in the order the ranks ended.
const WorkerPod& CauseOf(const std::vector<WorkerPod>& failed) {
  const auto first_end = ParseRfc3339(failed.front().finished_at);
  for (const WorkerPod& pod : failed) {
    const auto end = ParseRfc3339(pod.finished_at);
    if (!first_end || !end || *end - *first_end > kEchoWindow) break;
    if (!ParseRankResult(pod.termination_message).ok()) return pod;
  }
  return failed.front();
}

const WorkerPod* FindRank(const std::vector<WorkerPod>& pods, int64_t rank) {
  const auto it = std::find_if(pods.begin(), pods.end(), [rank](const WorkerPod& p) { return p.rank == rank; });
  return it == pods.end() ? nullptr : &*it;
}

std::string Count(int64_t n, const std::string& noun) { return std::to_string(n) + " " + noun + (n == 1 ? "" : "s"); }

void MergeUnique(std::vector<std::string>* into, const std::vector<std::string>& more) {
  for (const auto& name : more) {
    if (std::find(into->begin(), into->end(), name) == into->end()) into->push_back(name);
  }
}

class Planner {
 public:
  Planner(const Benchmark& benchmark, const std::vector<WorkerPod>& pods, system_clock::time_point now)
      : b_(benchmark), backend_(BackendOf(benchmark)), pods_(pods), now_(now), now_text_(Rfc3339(now)), generation_(benchmark.metadata.generation) {
    plan_.status = benchmark.status;
  }

  ReconcilePlan Run() {
    if (IsFinished(plan_.status.phase)) return AfterFinish();
    BenchmarkStatus& status = plan_.status;
    const int64_t workers = b_.spec.workers;
    if (status.phase.empty()) status.phase = kPhasePending;
    if (status.start_time.empty()) status.start_time = now_text_;
    if (status.observed_generation == 0) {
      status.observed_generation = generation_;
    } else if (status.observed_generation != generation_) {
      RestartForNewSpec();
    }

    // Pods of the current gang; those of earlier gangs only go away.
    const Gang gang = CurrentGang(status);
    std::vector<WorkerPod> current;
    for (const WorkerPod& pod : pods_) {
      if (InGang(pod, gang) && pod.launcher && backend_.HasLauncher()) {
        launcher_ = pod;
      } else if (InGang(pod, gang) && !pod.launcher && pod.rank >= 0 && pod.rank < workers) {
        current.push_back(pod);
      } else {
        old_gang_left_ = true;
        if (!pod.terminating) plan_.delete_pods.push_back(pod.name);
      }
    }
    status.workers = CountWorkers(current);

    if (DeadlineExceeded()) return plan_;
    if (HandleFailures(current)) return plan_;

    const auto succeeded = std::count_if(current.begin(), current.end(),
                                         [](const WorkerPod& p) { return p.phase == kPodSucceeded; });
    if (succeeded == workers) {
      RunOutcome outcome = AggregateRankResults(ResultsOf(current), workers, ReferenceEpochSamples(b_.spec.task));
      if (outcome.phase == kPhaseSucceeded) {
        if (StartNextRepeat(outcome.results, current)) return plan_;
        // The last repeat: the repeats done move into the results (one alone folds to itself).
        status.repeats.push_back(RepeatOf(static_cast<int64_t>(status.repeats.size()), b_.spec, outcome.results));
        outcome.results = FoldRepeats(b_.spec, outcome.results, std::exchange(status.repeats, {}));
      }
      Finish(outcome.phase, outcome.reason, outcome.message, outcome.results, current);
      return plan_;
    }

    CreateMissing(current);
    UpdatePlacement(current);
    const auto started = [](const WorkerPod& p) { return p.phase == kPodRunning || p.phase == kPodSucceeded; };
    const bool all_running = static_cast<int64_t>(current.size()) == workers &&
                             std::all_of(current.begin(), current.end(), started) &&
                             (!backend_.HasLauncher() || (launcher_ && started(*launcher_)));
    if (all_running && status.phase != kPhaseRunning) {
      status.phase = kPhaseRunning;
      SetCondition(&status.conditions, kConditionRunning, true, "WorkersRunning",
                   "all " + std::to_string(workers) + " workers are running", generation_, now_text_);
      plan_.events.push_back({"Normal", "Running", "all " + std::to_string(workers) + " workers are running"});
    }
    // No periodic look while running: the progress poller queues the Benchmark when its
    // progress moves, pod events when a worker changes, and a deadline requeues for itself.
    return plan_;
  }

 private:
  // A gang that succeeded with spec.repeats still to run: its figures are kept, its pods go,
  // and the next repeat's gang (a new seed) starts once their names are free.
  bool StartNextRepeat(const BenchmarkResults& results, const std::vector<WorkerPod>& current) {
    BenchmarkStatus& status = plan_.status;
    const int64_t repeat = static_cast<int64_t>(status.repeats.size());
    const int64_t repeats = b_.spec.repeats;
    if (repeat + 1 >= repeats) return false;
    status.repeats.push_back(RepeatOf(repeat, b_.spec, results));
    for (const WorkerPod& pod : current) {
      if (!pod.terminating) plan_.delete_pods.push_back(pod.name);
    }
    if (launcher_ && !launcher_->terminating) plan_.delete_pods.push_back(launcher_->name);
    status.phase = kPhasePending;
    status.progress.reset();
    const std::string message = "repeat " + std::to_string(repeat + 1) + " of " + std::to_string(repeats) +
                                " done; starting repeat " + std::to_string(repeat + 2);
    SetCondition(&status.conditions, kConditionRunning, false, "Repeating", message, generation_, now_text_);
    plan_.events.push_back({"Normal", "Repeating", message});
    return true;
  }

  ReconcilePlan AfterFinish() {
    plan_.delete_pods = PodsToClean(b_.spec.run_policy.clean_pod_policy, pods_);
    if (const auto& ttl = b_.spec.run_policy.ttl_seconds_after_finished) {
      const auto finished = ParseRfc3339(plan_.status.completion_time).value_or(now_);
      const auto expires = finished + seconds(*ttl);
      if (now_ >= expires) {
        plan_.delete_benchmark = true;
      } else {
        Requeue(std::chrono::ceil<seconds>(expires - now_));
      }
    }
    return plan_;
  }

  // An edit of a spec that is running is applied whole, never half: the gang of the old spec
  // goes, and one of the new spec starts as a new run (its own start time and restarts).
  void RestartForNewSpec() {
    BenchmarkStatus& status = plan_.status;
    const std::string message = "the spec changed (generation " + std::to_string(status.observed_generation) +
                                " to " + std::to_string(generation_) + "): restarting all workers with the new spec";
    status.observed_generation = generation_;
    status.restarts = 0;
    status.repeats.clear();
    status.phase = kPhasePending;
    status.start_time = now_text_;
    status.progress.reset();
    SetCondition(&status.conditions, kConditionCreated, false, "SpecChanged", message, generation_, now_text_);
    if (FindCondition(status.conditions, kConditionRunning) != nullptr) {
      SetCondition(&status.conditions, kConditionRunning, false, "SpecChanged", message, generation_, now_text_);
    }
    plan_.events.push_back({"Normal", "SpecChanged", message});
  }

  bool DeadlineExceeded() {
    const auto& deadline = b_.spec.run_policy.active_deadline_seconds;
    if (!deadline) return false;
    const auto started = ParseRfc3339(plan_.status.start_time).value_or(now_);
    const auto due = started + seconds(*deadline);
    if (now_ < due) {
      Requeue(std::chrono::ceil<seconds>(due - now_));
      return false;
    }
    // The workers must stop whatever cleanPodPolicy says: the deadline is a hard limit.
    std::vector<WorkerPod> active;
    for (const WorkerPod& pod : pods_) {
      if (pod.phase == kPodPending || pod.phase == kPodRunning) active.push_back(pod);
    }
    MergeUnique(&plan_.delete_pods, PodsToClean("All", active));
    Finish(kPhaseFailed, "DeadlineExceeded",
           "the run exceeded activeDeadlineSeconds (" + std::to_string(*deadline) + " s)", std::nullopt, pods_);
    return true;
  }

  // A failed rank: restart the gang while the backoff limit allows, else fail.
  bool HandleFailures(const std::vector<WorkerPod>& current) {
    std::vector<WorkerPod> failed;
    for (const WorkerPod& pod : current) {
      if (pod.phase == kPodFailed) failed.push_back(pod);
      if (!HasEnded(pod) && !pod.node_lost.empty()) failed.push_back(LostWithItsNode(pod));
    }
    // A worker deleted from under a running gang is lost as surely as a crashed one: its
    // peers wait for it in a collective until they time out.
    if (plan_.status.phase == kPhaseRunning) {
      for (int64_t rank = 0; rank < b_.spec.workers; ++rank) {
        if (FindRank(current, rank) == nullptr) {
          WorkerPod vanished;
          vanished.name = b_.metadata.name + "-worker-" + std::to_string(rank);
          vanished.rank = rank;
          vanished.phase = kPodFailed;
          vanished.termination_reason = "deleted while running";
          vanished.finished_at = now_text_;
          failed.push_back(vanished);
        }
      }
    }
    if (!backend_.HasLauncher()) {
      if (std::optional<WorkerPod> stuck = NeverStarted(FindRank(current, 0))) failed.push_back(*stuck);
    }
    const std::optional<WorkerPod> launcher = FailedLauncher(current);
    if (failed.empty() && !launcher) return false;
    std::stable_sort(failed.begin(), failed.end(),
                     [](const WorkerPod& a, const WorkerPod& b) { return a.finished_at < b.finished_at; });
    // A rank's failure is the cause, even when mpirun's abort ended the launcher first.
    if (failed.empty() ? AwaitingTheCause({*launcher}, current) : AwaitingTheCause(failed, current)) return true;
    const std::string why = failed.empty() ? LauncherFailure(*launcher) : RankFailure(CauseOf(failed));
    BenchmarkStatus& status = plan_.status;
    const int64_t limit = b_.spec.run_policy.backoff_limit;
    if (status.restarts < limit) {
      for (const WorkerPod& pod : current) {
        if (!pod.terminating) plan_.delete_pods.push_back(pod.name);
      }
      if (launcher_ && !launcher_->terminating) plan_.delete_pods.push_back(launcher_->name);
      ++status.restarts;
      status.phase = kPhasePending;
      const std::string message = why + "; restarting all workers (restart " + std::to_string(status.restarts) +
                                  " of " + std::to_string(limit) + ")";
      SetCondition(&status.conditions, kConditionRunning, false, "Restarting", message, generation_, now_text_);
      plan_.events.push_back({"Warning", "Restarting", message});
      return true;
    }
    // Results of the ranks that ended, failures first by time, so the cause is quoted.
    std::vector<WorkerPod> ended = failed;
    for (const WorkerPod& pod : current) {
      if (pod.phase == kPodSucceeded) ended.push_back(pod);
    }
    std::optional<BenchmarkResults> results;
    if (!ended.empty()) results = AggregateRankResults(ResultsOf(ended), b_.spec.workers, ReferenceEpochSamples(b_.spec.task)).results;
    const std::string reason = limit > 0 ? "BackoffLimitExceeded" : "PodFailed";
    const std::string message =
        limit > 0 ? why + " (after " + std::to_string(status.restarts) + " restarts, backoffLimit " +
                        std::to_string(limit) + ")"
                  : why;
    Finish(kPhaseFailed, reason, message, results, pods_);
    return true;
  }

  // A pod whose node is lost has ended for its gang: nothing it computes can reach its peers,
  // and its kubelet will never report it.
  WorkerPod LostWithItsNode(WorkerPod pod) const {
    pod.phase = kPodFailed;
    pod.termination_reason = "lost with its node: " + pod.node_lost;
    pod.finished_at = now_text_;
    return pod;
  }

  std::string RankFailure(const WorkerPod& pod) const {
    const RankResult cause = RankResultOf(pod, b_);
    return "rank " + std::to_string(cause.rank) + " (pod " + pod.name + ") failed: " + cause.error;
  }

  static std::string LauncherFailure(const WorkerPod& pod) {
    std::string why = "the launcher (pod " + pod.name + ") failed";
    if (pod.exit_code) why += " with exit code " + std::to_string(*pod.exit_code);
    std::string words = pod.termination_message.empty() ? pod.termination_reason : pod.termination_message;
    while (!words.empty() && words.back() == '\n') words.pop_back();
    return words.empty() ? why : why + ": " + words;
  }

  // An MPI run's launcher that failed, was deleted from under a running gang, or never started,
  // while some rank's result is still to come.
  std::optional<WorkerPod> FailedLauncher(const std::vector<WorkerPod>& current) {
    const bool all_results = static_cast<int64_t>(current.size()) == b_.spec.workers &&
                             std::all_of(current.begin(), current.end(),
                                         [](const WorkerPod& p) { return p.phase == kPodSucceeded; });
    if (!backend_.HasLauncher() || all_results) return std::nullopt;
    if (launcher_ && launcher_->phase == kPodFailed) return launcher_;
    if (launcher_ && !launcher_->node_lost.empty()) return LostWithItsNode(*launcher_);
    if (launcher_) return NeverStarted(&*launcher_);
    if (plan_.status.phase != kPhaseRunning) return std::nullopt;
    WorkerPod vanished;
    vanished.name = backend_.LauncherPodName(b_);
    vanished.launcher = true;
    vanished.phase = kPodFailed;
    vanished.termination_reason = "deleted while running";
    vanished.finished_at = now_text_;
    return vanished;
  }

  // Rank 0 (the launcher, for MPI) bounds the start only once it runs, and the others wait for
  // it: one placed but never started (an image it cannot pull, a volume it cannot mount) would
  // hold them forever. After the rendezvous timeout it counts as failed, with the kubelet's reason.
  std::optional<WorkerPod> NeverStarted(const WorkerPod* zero) {
    if (zero == nullptr || zero->phase != kPodPending || !zero->placed || zero->terminating) return std::nullopt;
    const auto created = ParseRfc3339(zero->created_at);
    if (!created) return std::nullopt;
    const auto limit = seconds(static_cast<int64_t>(kPodRendezvousTimeoutSeconds));
    if (now_ < *created + limit) {
      Requeue(std::chrono::ceil<seconds>(*created + limit - now_));
      return std::nullopt;
    }
    WorkerPod stuck = *zero;
    stuck.phase = kPodFailed;
    stuck.termination_reason = "not started after " + std::to_string(limit.count()) + " s" +
                               (zero->waiting.empty() ? "" : ": " + zero->waiting);
    stuck.finished_at = now_text_;
    return stuck;
  }

  // The peers first, then rank 0 once every peer has a node: rank 0 serves the rendezvous and
  // bounds it (builders.h), so a gang short of nodes waits, Pending, with nothing timing out.
  void CreateMissing(const std::vector<WorkerPod>& current) {
    BenchmarkStatus& status = plan_.status;
    const int64_t workers = b_.spec.workers;
    const bool created = IsConditionTrue(status.conditions, kConditionCreated);
    // The Service and ConfigMap come before a gang's first pod (the ConfigMap carries its spec).
    if (!created && current.empty()) plan_.create_service_and_config = true;
    std::map<int64_t, const WorkerPod*> by_rank;
    for (const WorkerPod& pod : current) by_rank[pod.rank] = &pod;
    bool peers_placed = true;
    for (int64_t rank = 1; rank < workers; ++rank) {
      const auto it = by_rank.find(rank);
      peers_placed = peers_placed && it != by_rank.end() && it->second->placed && !it->second->terminating;
    }
    bool waiting = false;
    for (int64_t rank = 0; rank < workers; ++rank) {
      if (by_rank.count(rank) > 0) continue;
      if (old_gang_left_) {
        // The new gang waits whole until every pod of an earlier one has gone, not only those
        // holding its names: a peer started beside the old rank 0 would find it by its name
        // and join its rendezvous.
        Requeue(seconds(1));
        waiting = true;
      } else if (rank == 0 && !peers_placed) {
        waiting = true;  // a peer's pod event brings us back
      } else {
        plan_.create_ranks.push_back(rank);
      }
    }
    if (backend_.HasLauncher() && !launcher_) CreateLauncher(current);
    if (!created && !waiting) {
      const std::string message = "created " + Count(workers, "worker pod") + ", Service " +
                                  b_.metadata.name + "-workers and ConfigMap " + b_.metadata.name + "-config";
      SetCondition(&status.conditions, kConditionCreated, true, "WorkersCreated", message, generation_, now_text_);
      plan_.events.push_back({"Normal", "Created", message});
    } else if (!plan_.create_ranks.empty() && !waiting && (status.restarts > 0 || !status.repeats.empty())) {
      // Once, when the gang of a restart or a repeat is whole (rank 0 comes after its peers).
      const std::string which = status.restarts > 0 ? "restart " + std::to_string(status.restarts) : "";
      const std::string repeat = status.repeats.empty() ? "" : "repeat " + std::to_string(status.repeats.size() + 1);
      plan_.events.push_back({"Normal", "Created", "created the " + Count(workers, "worker pod") + " of " + which +
                                                       (which.empty() || repeat.empty() ? "" : ", ") + repeat});
    }
  }

  void CreateLauncher(const std::vector<WorkerPod>& current) {
    const bool all_placed =
        static_cast<int64_t>(current.size()) == b_.spec.workers &&
        std::all_of(current.begin(), current.end(), [](const WorkerPod& p) { return p.placed && !p.terminating; });
    if (old_gang_left_) {
      Requeue(seconds(1));  // an earlier gang's launcher may still hold the name
    } else if (all_placed) {
      plan_.create_launcher = true;
    }
  }

  // Where the scheduler put the gang, or why it could not: the scheduler's own words, and what
  // ranksPerNode asks of the cluster.
  void UpdatePlacement(const std::vector<WorkerPod>& current) {
    const int64_t workers = b_.spec.workers;
    std::vector<const WorkerPod*> unplaceable;
    std::set<std::string> nodes;
    int64_t placed = 0;
    for (const WorkerPod& pod : current) {
      if (pod.terminating) continue;
      if (pod.placed) {
        ++placed;
        if (!pod.node_name.empty()) nodes.insert(pod.node_name);
      } else if (!pod.unschedulable.empty()) {
        unplaceable.push_back(&pod);
      }
    }
    BenchmarkStatus& status = plan_.status;
    const Condition* before = FindCondition(status.conditions, kConditionScheduled);
    const std::string was = before == nullptr ? "" : before->status;
    if (!unplaceable.empty()) {
      std::sort(unplaceable.begin(), unplaceable.end(), [](auto* a, auto* b) { return a->rank < b->rank; });
      const WorkerPod& first = *unplaceable.front();
      std::string message = std::to_string(unplaceable.size()) + " of " + Count(workers, "worker") +
                            " cannot be placed (ranksPerNode " + std::to_string(RanksPerNode(b_)) + ": the gang needs " +
                            Count(NodeGroup(b_, workers - 1) + 1, "node") + "); rank " + std::to_string(first.rank) +
                            " (pod " + first.name + "): " + first.unschedulable;
      if (FindRank(current, 0) == nullptr) message += "; rank 0 waits for its peers";
      SetCondition(&status.conditions, kConditionScheduled, false, "Unschedulable", message, generation_, now_text_);
      if (was != "False") plan_.events.push_back({"Warning", "Unschedulable", message});
    } else if (launcher_ && !launcher_->placed && !launcher_->unschedulable.empty()) {
      const std::string message = "the launcher (pod " + launcher_->name + ") cannot be placed: " + launcher_->unschedulable;
      SetCondition(&status.conditions, kConditionScheduled, false, "Unschedulable", message, generation_, now_text_);
      if (was != "False") plan_.events.push_back({"Warning", "Unschedulable", message});
    } else if (placed == workers) {
      SetCondition(&status.conditions, kConditionScheduled, true, "WorkersScheduled",
                   Count(workers, "worker") + " on " + Count(static_cast<int64_t>(nodes.size()), "node"), generation_,
                   now_text_);
    }
  }

  std::vector<RankResult> ResultsOf(const std::vector<WorkerPod>& pods) const {
    std::vector<RankResult> out;
    for (const WorkerPod& pod : pods) out.push_back(RankResultOf(pod, b_));
    return out;
  }

  void Finish(const std::string& phase, const std::string& reason, const std::string& message,
              const std::optional<BenchmarkResults>& results, const std::vector<WorkerPod>& pods) {
    BenchmarkStatus& status = plan_.status;
    status.phase = phase;
    status.completion_time = now_text_;
    if (results) status.results = *results;  // the reconciler adds the system and the cost
    const bool succeeded = phase == kPhaseSucceeded;
    SetCondition(&status.conditions, kConditionRunning, false, reason, message, generation_, now_text_);
    SetCondition(&status.conditions, succeeded ? kConditionSucceeded : kConditionFailed, true, reason, message,
                 generation_, now_text_);
    plan_.events.push_back({succeeded ? "Normal" : "Warning", succeeded ? "Succeeded" : reason, message});
    MergeUnique(&plan_.delete_pods, PodsToClean(b_.spec.run_policy.clean_pod_policy, pods));
    if (const auto& ttl = b_.spec.run_policy.ttl_seconds_after_finished) Requeue(seconds(std::max<int64_t>(*ttl, 0)));
  }

  // Every failed rank so far has a result, so each may be the echo of a peer killed without
  // one, which the kubelet reports only after reaping it: while others still run, the cause
  // waits out the echo window. (A node clock ahead of ours, or far behind, decides at once.)
  // A launcher whose mpirun ended alone is the echo of a rank's failure just the same (not one
  // deleted or never started).
  bool AwaitingTheCause(const std::vector<WorkerPod>& failed, const std::vector<WorkerPod>& current) {
    const bool all_echoes = std::all_of(failed.begin(), failed.end(), [](const WorkerPod& pod) {
      return pod.launcher ? pod.exit_code.has_value() : ParseRankResult(pod.termination_message).ok();
    });
    const bool others_run = std::any_of(current.begin(), current.end(), [](const WorkerPod& pod) {
      return !pod.terminating && (pod.phase == kPodPending || pod.phase == kPodRunning);
    });
    if (!all_echoes || !others_run) return false;
    const auto first_end = ParseRfc3339(failed.front().finished_at);  // failed is in order of ending
    if (!first_end || now_ < *first_end || now_ - *first_end >= kEchoWindow) return false;
    Requeue(std::chrono::ceil<seconds>(*first_end + kEchoWindow - now_));
    return true;
  }

  void Requeue(seconds after) {
    if (!plan_.requeue_after || after < *plan_.requeue_after) plan_.requeue_after = after;
  }

  const Benchmark& b_;
  const BackendPlugin& backend_;
  const std::vector<WorkerPod>& pods_;
  system_clock::time_point now_;
  std::string now_text_;
  int64_t generation_;
  ReconcilePlan plan_;
  std::optional<WorkerPod> launcher_;  // the current gang's, for an MPI run
  bool old_gang_left_ = false;         // a pod of an earlier gang is still there
};

}  // namespace

ReconcilePlan PlanReconcile(const Benchmark& benchmark, const std::vector<WorkerPod>& pods,
                            system_clock::time_point now) {
  ReconcilePlan plan = Planner(benchmark, pods, now).Run();
  // A pod deleted while it ran that has since ended is deleted again, which removes it at once:
  // a kubelet before v1.22 holds its object until it has removed the container, often until
  // its once-a-minute garbage collection, and the next gang waits for the names. So is one on
  // a lost node, whose kubelet will never remove it.
  for (const WorkerPod& pod : pods) {
    if (pod.terminating && (HasEnded(pod) || !pod.node_lost.empty())) MergeUnique(&plan.delete_pods, {pod.name});
    // A pod marked not Ready before its node stopped reporting gets no second mark, and so no
    // event, when it does: its node is looked at again.
    if (MayBeOnLostNode(pod) && pod.node_lost.empty() && !IsFinished(plan.status.phase)) {
      plan.requeue_after = std::min(plan.requeue_after.value_or(kLostNodeRecheck), kLostNodeRecheck);
    }
  }
  return plan;
}

BenchmarkStatus FailedStatus(const Benchmark& benchmark, BenchmarkStatus status, const std::string& reason,
                             const std::string& message, const std::string& now) {
  status.phase = kPhaseFailed;
  if (status.completion_time.empty()) status.completion_time = now;
  const int64_t generation = benchmark.metadata.generation;
  if (FindCondition(status.conditions, kConditionRunning) != nullptr) {
    SetCondition(&status.conditions, kConditionRunning, false, reason, message, generation, now);
  }
  SetCondition(&status.conditions, kConditionFailed, true, reason, message, generation, now);
  return status;
}

}  // namespace ergobench::controller
