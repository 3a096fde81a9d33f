#include "operator/controller/benchmark/plan.h"

#include <gtest/gtest.h>

#include "api/v1alpha1/defaults.h"
#include "base/rfc3339.h"
#include "operator/controller/common/conditions.h"

namespace ergobench::controller {
namespace {

using std::chrono::seconds;
using Clock = std::chrono::system_clock;

const Clock::time_point kT0 = Clock::from_time_t(1795000000);  // 2026-11-18T11:06:40Z

Benchmark Bench(int workers = 2) {
  Benchmark b;
  b.api_version = kApiVersion;
  b.kind = kKind;
  b.metadata.name = "b";
  b.metadata.namespace_name = "ns";
  b.metadata.generation = 2;
  b.spec.task = "fmnist";
  b.spec.workers = workers;
  ApplyDefaults(&b);
  return b;
}

WorkerPod Pod(int rank, const std::string& phase, int attempt = 0, int generation = 2) {
  WorkerPod pod;
  pod.name = "b-worker-" + std::to_string(rank);
  pod.rank = rank;
  pod.attempt = attempt;
  pod.generation = generation;
  pod.phase = phase;
  pod.ready = phase == "Running";
  if (phase != "Pending") {  // a pod that started was placed
    pod.placed = true;
    pod.node_name = "node";
  }
  return pod;
}

// A rank's termination message, as the runner writes it.
std::string ResultMessage(int rank, const std::string& status, double tta = 12.5) {
  RankResult r;
  r.benchmark = "b";
  r.task = "fmnist";
  r.backend = "gloo";
  r.rank = rank;
  r.world_size = 2;
  r.status = status;
  if (status != kRankSucceeded) r.error = "boom";
  r.figures.goal_reached = true;
  r.figures.time_to_accuracy_seconds = tta;
  r.figures.epochs = 1;
  r.figures.samples_per_second = 1000;
  return SerializeRankResult(r);
}

WorkerPod EndedWorker(int rank, const std::string& phase, const std::string& message, int exit_code,
                const std::string& finished_at, int attempt = 0) {
  WorkerPod pod = Pod(rank, phase, attempt);
  pod.exit_code = exit_code;
  pod.termination_message = message;
  pod.finished_at = finished_at;
  return pod;
}

WorkerPod Placed(WorkerPod pod, const std::string& node) {
  pod.placed = true;
  pod.node_name = node;
  return pod;
}

WorkerPod Unschedulable(WorkerPod pod, const std::string& why) {
  pod.unschedulable = why;
  return pod;
}

// Rank 0 serves the rendezvous and bounds it: it is created last, once every peer has a node,
// so that a gang short of nodes waits as Pending instead of timing its rendezvous out.
TEST(Plan, ANewBenchmarkCreatesThePeersThenRankZeroOnceThePeersArePlaced) {
  Benchmark b = Bench(3);
  ReconcilePlan first = PlanReconcile(b, {}, kT0);
  EXPECT_TRUE(first.create_service_and_config);
  EXPECT_EQ(first.create_ranks, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(first.status.phase, "Pending");
  EXPECT_EQ(first.status.start_time, "2026-11-18T11:06:40Z");
  EXPECT_FALSE(IsConditionTrue(first.status.conditions, kConditionCreated));
  EXPECT_TRUE(first.events.empty());

  b.status = first.status;
  ReconcilePlan waiting = PlanReconcile(b, {Pod(1, "Pending"), Placed(Pod(2, "Pending"), "n2")}, kT0 + seconds(1));
  EXPECT_TRUE(waiting.create_ranks.empty());
  EXPECT_FALSE(waiting.create_service_and_config) << "the peers' Service and ConfigMap exist";

  ReconcilePlan placed =
      PlanReconcile(b, {Placed(Pod(1, "Pending"), "n1"), Placed(Pod(2, "Pending"), "n2")}, kT0 + seconds(2));
  EXPECT_EQ(placed.create_ranks, std::vector<int64_t>{0});
  EXPECT_FALSE(placed.create_service_and_config);
  const Condition* created = FindCondition(placed.status.conditions, kConditionCreated);
  ASSERT_NE(created, nullptr);
  EXPECT_EQ(created->status, "True");
  EXPECT_EQ(created->observed_generation, 2);
  ASSERT_EQ(placed.events.size(), 1u);
  EXPECT_EQ(placed.events[0].reason, "Created");
}

TEST(Plan, ASingleWorkerIsCreatedAtOnce) {
  ReconcilePlan plan = PlanReconcile(Bench(1), {}, kT0);
  EXPECT_EQ(plan.create_ranks, std::vector<int64_t>{0});
  EXPECT_TRUE(IsConditionTrue(plan.status.conditions, kConditionCreated));
}

TEST(Plan, AGangShortOfNodesStaysPendingAndSaysWhy) {
  Benchmark b = Bench(3);
  b.status = PlanReconcile(b, {}, kT0).status;
  const std::string why = "0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules.";
  const std::vector<WorkerPod> pods = {Placed(Pod(1, "Running"), "n1"), Unschedulable(Pod(2, "Pending"), why)};
  ReconcilePlan plan = PlanReconcile(b, pods, kT0 + seconds(1));
  EXPECT_EQ(plan.status.phase, "Pending");
  EXPECT_TRUE(plan.create_ranks.empty()) << "rank 0 waits for a place for every peer";
  const Condition* scheduled = FindCondition(plan.status.conditions, kConditionScheduled);
  ASSERT_NE(scheduled, nullptr);
  EXPECT_EQ(scheduled->status, "False");
  EXPECT_EQ(scheduled->reason, "Unschedulable");
  EXPECT_EQ(scheduled->message, "1 of 3 workers cannot be placed (ranksPerNode 1: the gang needs 3 nodes); "
                                "rank 2 (pod b-worker-2): " + why + "; rank 0 waits for its peers");
  ASSERT_EQ(plan.events.size(), 1u);
  EXPECT_EQ(plan.events[0].type, "Warning");
  EXPECT_EQ(plan.events[0].reason, "Unschedulable");
  EXPECT_EQ(plan.requeue_after, std::nullopt) << "no rendezvous clock runs while the gang waits";

  // Seen again: no second event.
  b.status = plan.status;
  EXPECT_TRUE(PlanReconcile(b, pods, kT0 + seconds(30)).events.empty());

  // A node joins: the peer is placed, rank 0 follows, and the condition turns.
  ReconcilePlan joined = PlanReconcile(b, {Placed(Pod(1, "Running"), "n1"), Placed(Pod(2, "Pending"), "n3")},
                                       kT0 + seconds(60));
  EXPECT_EQ(joined.create_ranks, std::vector<int64_t>{0});
  b.status = joined.status;
  ReconcilePlan all = PlanReconcile(
      b, {Placed(Pod(0, "Running"), "n2"), Placed(Pod(1, "Running"), "n1"), Placed(Pod(2, "Running"), "n3")},
      kT0 + seconds(61));
  scheduled = FindCondition(all.status.conditions, kConditionScheduled);
  ASSERT_NE(scheduled, nullptr);
  EXPECT_EQ(scheduled->status, "True");
  EXPECT_EQ(scheduled->reason, "WorkersScheduled");
  EXPECT_EQ(scheduled->message, "3 workers on 3 nodes");
  EXPECT_EQ(all.status.phase, "Running");
}

TEST(Plan, PackedRanksNeedFewerNodes) {
  Benchmark b = Bench(4);
  b.spec.scheduling.ranks_per_node = 2;
  b.status = PlanReconcile(b, {}, kT0).status;
  const std::vector<WorkerPod> pods = {Placed(Pod(1, "Running"), "n1"), Unschedulable(Pod(2, "Pending"), "no"),
                                       Unschedulable(Pod(3, "Pending"), "no")};
  ReconcilePlan plan = PlanReconcile(b, pods, kT0 + seconds(1));
  EXPECT_EQ(FindCondition(plan.status.conditions, kConditionScheduled)->message,
            "2 of 4 workers cannot be placed (ranksPerNode 2: the gang needs 2 nodes); rank 2 (pod b-worker-2): no; "
            "rank 0 waits for its peers");
}

// A peer on its way out is not a place rank 0 can count on.
TEST(Plan, ATerminatingPeerIsNotPlaced) {
  Benchmark b = Bench(2);
  b.status = PlanReconcile(b, {}, kT0).status;
  WorkerPod leaving = Placed(Pod(1, "Running"), "n1");
  leaving.terminating = true;
  EXPECT_TRUE(PlanReconcile(b, {leaving}, kT0 + seconds(1)).create_ranks.empty());
}

// Rank 0 placed but never started (here, an image the node cannot pull) would hold its peers,
// who wait for it, forever: after the rendezvous timeout it fails the gang with the kubelet's
// reason, and until then the plan comes back for it.
TEST(Plan, ARankZeroThatNeverStartsFailsTheGang) {
  Benchmark b = Bench(2);
  b.status = PlanReconcile(b, {}, kT0).status;
  WorkerPod zero = Placed(Pod(0, "Pending"), "n0");
  zero.created_at = Rfc3339(kT0);
  zero.waiting = "ImagePullBackOff: Back-off pulling image \"x\"";
  const std::vector<WorkerPod> pods = {zero, Pod(1, "Running")};
  ReconcilePlan early = PlanReconcile(b, pods, kT0 + seconds(100));
  EXPECT_EQ(early.status.phase, "Pending");
  EXPECT_EQ(early.requeue_after, seconds(200));
  ReconcilePlan late = PlanReconcile(b, pods, kT0 + seconds(300));
  EXPECT_EQ(late.status.phase, "Failed");
  const std::string message = FindCondition(late.status.conditions, kConditionFailed)->message;
  EXPECT_NE(message.find("rank 0 (pod b-worker-0) failed: pod b-worker-0 ended (not started after 300 s: "
                         "ImagePullBackOff: Back-off pulling image \"x\") without a result"),
            std::string::npos)
      << message;
}

TEST(Plan, RunningOnceAllWorkersRun) {
  Benchmark b = Bench();
  b.status = PlanReconcile(b, {}, kT0).status;
  ReconcilePlan half = PlanReconcile(b, {Pod(0, "Running"), Pod(1, "Pending")}, kT0 + seconds(1));
  EXPECT_EQ(half.status.phase, "Pending");
  EXPECT_TRUE(half.create_ranks.empty());
  EXPECT_FALSE(half.create_service_and_config);
  EXPECT_EQ(half.status.workers.running, 1);
  ReconcilePlan all = PlanReconcile(b, {Pod(0, "Running"), Pod(1, "Running")}, kT0 + seconds(2));
  EXPECT_EQ(all.status.phase, "Running");
  EXPECT_EQ(all.status.workers.ready, 2);
  // No periodic look: the progress poller and pod events queue the Benchmark when it matters.
  EXPECT_EQ(all.requeue_after, std::nullopt);
  EXPECT_TRUE(IsConditionTrue(all.status.conditions, kConditionRunning));
  // Nothing changes on a second look: no status write, no event.
  b.status = all.status;
  ReconcilePlan again = PlanReconcile(b, {Pod(0, "Running"), Pod(1, "Running")}, kT0 + seconds(12));
  EXPECT_TRUE(again.events.empty());
  EXPECT_EQ(FindCondition(again.status.conditions, kConditionRunning)->last_transition_time,
            FindCondition(all.status.conditions, kConditionRunning)->last_transition_time);
}

TEST(Plan, AllSucceededAggregatesResults) {
  Benchmark b = Bench();
  b.status.phase = "Running";
  b.status.start_time = Rfc3339(kT0);
  ReconcilePlan plan = PlanReconcile(
      b, {EndedWorker(0, "Succeeded", ResultMessage(0, kRankSucceeded, 12.5), 0, "t1"),
          EndedWorker(1, "Succeeded", ResultMessage(1, kRankSucceeded, 12.0), 0, "t1")},
      kT0 + seconds(30));
  EXPECT_EQ(plan.status.phase, "Succeeded");
  EXPECT_EQ(plan.status.completion_time, Rfc3339(kT0 + seconds(30)));
  ASSERT_TRUE(plan.status.results.has_value());
  EXPECT_TRUE(*plan.status.results->figures.goal_reached);
  EXPECT_TRUE(IsConditionTrue(plan.status.conditions, kConditionSucceeded));
  EXPECT_FALSE(IsConditionTrue(plan.status.conditions, kConditionRunning));
  // cleanPodPolicy All (the default) removes the pods once the results are in status.
  EXPECT_EQ(plan.delete_pods, (std::vector<std::string>{"b-worker-0", "b-worker-1"}));
}

TEST(Plan, AFailedRankFailsTheBenchmarkWithoutBackoff) {
  Benchmark b = Bench();
  b.status.phase = "Running";
  ReconcilePlan plan = PlanReconcile(
      b, {EndedWorker(0, "Failed", "", 137, "2026-11-18T11:07:00Z"),
          EndedWorker(1, "Failed", ResultMessage(1, kRankFailed), 1, "2026-11-18T11:07:05Z")},
      kT0);
  EXPECT_EQ(plan.status.phase, "Failed");
  const Condition* failed = FindCondition(plan.status.conditions, kConditionFailed);
  ASSERT_NE(failed, nullptr);
  EXPECT_EQ(failed->reason, "PodFailed");
  // The earliest failure is the cause; rank 0 was killed and left no result.
  EXPECT_EQ(failed->message, "rank 0 (pod b-worker-0) failed: pod b-worker-0 ended with exit code 137 without a result");
  EXPECT_EQ(plan.events.back().type, "Warning");
}

// A killed rank's peers report their collective breaking at about the same moment, and the
// kubelet may record the killed one's finishedAt (whole seconds, after its processes are
// reaped) later than theirs. A rank that died without a word is the cause when it ended within
// a few seconds of the first failure; a failure well before it stands.
TEST(Plan, ARankKilledWithoutAResultIsTheCauseOverItsPeersEcho) {
  Benchmark b = Bench();
  b.status.phase = "Running";
  ReconcilePlan plan = PlanReconcile(
      b, {EndedWorker(1, "Failed", ResultMessage(1, kRankFailed), 1, "2026-11-18T11:07:00Z"),
          EndedWorker(0, "Failed", "", 137, "2026-11-18T11:07:02Z")},
      kT0);
  EXPECT_EQ(FindCondition(plan.status.conditions, kConditionFailed)->message,
            "rank 0 (pod b-worker-0) failed: pod b-worker-0 ended with exit code 137 without a result");

  ReconcilePlan later = PlanReconcile(
      b, {EndedWorker(1, "Failed", ResultMessage(1, kRankFailed), 1, "2026-11-18T11:07:00Z"),
          EndedWorker(0, "Failed", "", 137, "2026-11-18T11:08:00Z")},
      kT0);
  EXPECT_EQ(FindCondition(later.status.conditions, kConditionFailed)->message.rfind("rank 1 (pod b-worker-1) failed", 0),
            0u);
}

// A killed rank's peers can fail with a result ("connection reset") before the kubelet has
// reported the killed one: while every failed rank has a result and others still run, the
// cause waits out the echo window (found on the real cluster, where rank 1's echo once came
// first and was named the cause).
TEST(Plan, APeersEchoWaitsForTheKilledRanksOwnFailure) {
  Benchmark b = Bench();
  b.status.phase = "Running";
  const WorkerPod echo = EndedWorker(1, "Failed", ResultMessage(1, kRankFailed), 1, "2026-11-18T11:06:40Z");  // kT0
  ReconcilePlan waiting = PlanReconcile(b, {Pod(0, "Running"), echo}, kT0 + seconds(1));
  EXPECT_EQ(waiting.status.phase, "Running");
  EXPECT_EQ(FindCondition(waiting.status.conditions, kConditionFailed), nullptr);
  EXPECT_TRUE(waiting.delete_pods.empty());
  EXPECT_EQ(waiting.requeue_after, seconds(4));

  ReconcilePlan reported = PlanReconcile(
      b, {EndedWorker(0, "Failed", "", 137, "2026-11-18T11:06:42Z"), echo}, kT0 + seconds(2));
  EXPECT_EQ(FindCondition(reported.status.conditions, kConditionFailed)->message.rfind("rank 0 (pod b-worker-0)", 0), 0u);

  // The window has passed and rank 0 still runs: rank 1's failure is the cause after all.
  ReconcilePlan closed = PlanReconcile(b, {Pod(0, "Running"), echo}, kT0 + seconds(6));
  EXPECT_EQ(FindCondition(closed.status.conditions, kConditionFailed)->message.rfind("rank 1 (pod b-worker-1)", 0), 0u);
}

TEST(Plan, AFailedRankRestartsTheGangWithinTheBackoffLimit) {
  Benchmark b = Bench();
  b.spec.run_policy.backoff_limit = 2;
  b.status.phase = "Running";
  SetCondition(&b.status.conditions, kConditionCreated, true, "WorkersCreated", "", 2, "t0");
  ReconcilePlan plan = PlanReconcile(b, {Pod(0, "Running"), EndedWorker(1, "Failed", "", 137, "t")}, kT0);
  EXPECT_EQ(plan.status.restarts, 1);
  EXPECT_EQ(plan.status.phase, "Pending");
  EXPECT_EQ(plan.delete_pods, (std::vector<std::string>{"b-worker-0", "b-worker-1"}));
  EXPECT_TRUE(plan.create_ranks.empty());
  EXPECT_EQ(plan.events.back().reason, "Restarting");

  // The old pods are terminating: their names are not free yet. The running one is left to its
  // grace period; the ended one is deleted again, which removes it at once.
  b.status = plan.status;
  WorkerPod old0 = Pod(0, "Running"), old1 = EndedWorker(1, "Failed", "", 137, "t");
  old0.terminating = old1.terminating = true;
  ReconcilePlan waiting = PlanReconcile(b, {old0, old1}, kT0 + seconds(1));
  EXPECT_TRUE(waiting.create_ranks.empty());
  EXPECT_EQ(waiting.delete_pods, std::vector<std::string>{"b-worker-1"});
  EXPECT_EQ(waiting.requeue_after, seconds(1));

  // Gone: attempt 1 starts, its peers first.
  ReconcilePlan fresh = PlanReconcile(b, {}, kT0 + seconds(2));
  EXPECT_EQ(fresh.create_ranks, std::vector<int64_t>{1});
  EXPECT_TRUE(fresh.events.empty());
  ReconcilePlan whole = PlanReconcile(b, {Placed(Pod(1, "Pending", 1), "n1")}, kT0 + seconds(3));
  EXPECT_EQ(whole.create_ranks, std::vector<int64_t>{0});
  ASSERT_EQ(whole.events.size(), 1u) << "one event per restart, when the gang is whole";
  EXPECT_EQ(whole.events[0].message, "created the 2 worker pods of restart 1");

  // Attempt 1 fails too, and so does attempt 2: the limit is reached.
  b.status.restarts = 2;
  b.status.phase = "Running";
  ReconcilePlan last = PlanReconcile(b, {Pod(0, "Running", 2), EndedWorker(1, "Failed", "", 1, "t", 2)}, kT0 + seconds(90));
  EXPECT_EQ(last.status.phase, "Failed");
  EXPECT_EQ(FindCondition(last.status.conditions, kConditionFailed)->reason, "BackoffLimitExceeded");
}

// A gang of repeat `repeat` whose two ranks succeeded at `samples_per_second` and time to accuracy `tta`.
std::vector<WorkerPod> SucceededRepeat(int repeat, double samples_per_second, double tta) {
  std::vector<WorkerPod> pods;
  for (int rank = 0; rank < 2; ++rank) {
    RankResult r = *ParseRankResult(ResultMessage(rank, kRankSucceeded, tta));
    r.figures.samples_per_second = samples_per_second / 2;  // the ranks' throughputs add up
    WorkerPod pod = EndedWorker(rank, "Succeeded", SerializeRankResult(r), 0, "t");
    pod.repeat = repeat;
    pods.push_back(pod);
  }
  return pods;
}

TEST(Plan, RepeatsRunOneGangAfterAnotherAndFoldIntoMedians) {
  Benchmark b = Bench();
  b.spec.repeats = 3;
  b.status.phase = "Running";
  SetCondition(&b.status.conditions, kConditionCreated, true, "WorkersCreated", "", 2, "t0");

  // Repeat 1 of 3 ends: its figures are kept, its pods go, and the run is not over.
  ReconcilePlan first = PlanReconcile(b, SucceededRepeat(0, 1000, 20), kT0);
  EXPECT_EQ(first.status.phase, "Pending");
  EXPECT_FALSE(first.status.results.has_value());
  ASSERT_EQ(first.status.repeats.size(), 1u);
  EXPECT_EQ(first.status.repeats[0].seed, 42);
  EXPECT_EQ(first.status.repeats[0].figures.at("samplesPerSecond"), 1000);
  EXPECT_EQ(first.delete_pods, (std::vector<std::string>{"b-worker-0", "b-worker-1"}));
  EXPECT_EQ(FindCondition(first.status.conditions, kConditionRunning)->reason, "Repeating");
  EXPECT_EQ(first.events.back().message, "repeat 1 of 3 done; starting repeat 2");
  EXPECT_EQ(CurrentGang(first.status).repeat, 1);

  // The next gang is repeat 1's, labelled so: the ended pods of repeat 0 are not its own.
  b.status = first.status;
  ReconcilePlan fresh = PlanReconcile(b, {}, kT0 + seconds(2));
  EXPECT_EQ(fresh.create_ranks, std::vector<int64_t>{1});
  EXPECT_FALSE(PlanReconcile(b, SucceededRepeat(0, 1000, 20), kT0 + seconds(2)).status.results.has_value());
  std::vector<WorkerPod> placed = {Placed(Pod(1, "Pending"), "n1")};
  placed[0].repeat = 1;
  ReconcilePlan whole = PlanReconcile(b, placed, kT0 + seconds(3));
  EXPECT_EQ(whole.create_ranks, std::vector<int64_t>{0});
  EXPECT_EQ(whole.events.back().message, "created the 2 worker pods of repeat 2");

  b.status.phase = "Running";
  b.status = PlanReconcile(b, SucceededRepeat(1, 1400, 30), kT0 + seconds(40)).status;
  b.status.phase = "Running";
  ReconcilePlan last = PlanReconcile(b, SucceededRepeat(2, 1200, 25), kT0 + seconds(80));
  EXPECT_EQ(last.status.phase, "Succeeded");
  EXPECT_TRUE(last.status.repeats.empty()) << "moved into the results";
  const BenchmarkResults& results = *last.status.results;
  ASSERT_EQ(results.repeats.size(), 3u);
  EXPECT_EQ(results.repeats[2].seed, 44);
  EXPECT_DOUBLE_EQ(*results.figures.samples_per_second, 1200);  // the median of 1000, 1400, 1200
  EXPECT_DOUBLE_EQ(*results.figures.time_to_accuracy_seconds, 25);
  EXPECT_EQ(results.summary.at("samplesPerSecond").n, 3);
  EXPECT_DOUBLE_EQ(results.summary.at("samplesPerSecond").max, 1400);
}

// A rank whose node stopped reporting is lost: its gang restarts (the pod on the lost node
// deleted again once terminating, which the reconciler does with no grace period), and the
// message says which node and why.
TEST(Plan, ARankOnALostNodeRestartsTheGang) {
  Benchmark b = Bench();
  b.spec.run_policy.backoff_limit = 1;
  b.status.phase = "Running";
  WorkerPod lost = Placed(Pod(1, "Running"), "n2");
  lost.ready = false;
  lost.node_lost = "node n2 stopped reporting (NodeStatusUnknown: Kubelet stopped posting node status.)";
  ReconcilePlan plan = PlanReconcile(b, {Pod(0, "Running"), lost}, kT0);
  EXPECT_EQ(plan.status.restarts, 1);
  EXPECT_EQ(plan.status.phase, "Pending");
  EXPECT_EQ(plan.delete_pods, (std::vector<std::string>{"b-worker-0", "b-worker-1"}));
  EXPECT_EQ(plan.events.back().message,
            "rank 1 (pod b-worker-1) failed: pod b-worker-1 was lost with its node: node n2 stopped reporting "
            "(NodeStatusUnknown: Kubelet stopped posting node status.); restarting all workers (restart 1 of 1)");

  b.status = plan.status;
  WorkerPod old0 = Pod(0, "Running");
  old0.terminating = lost.terminating = true;
  EXPECT_EQ(PlanReconcile(b, {old0, lost}, kT0 + seconds(1)).delete_pods, std::vector<std::string>{"b-worker-1"});

  // Without restarts left, the run fails with the same cause.
  b.spec.run_policy.backoff_limit = 0;
  b.status.restarts = 0;
  b.status.phase = "Running";
  lost.terminating = false;
  ReconcilePlan failed = PlanReconcile(b, {Pod(0, "Running"), lost}, kT0);
  EXPECT_EQ(failed.status.phase, "Failed");
  EXPECT_EQ(FindCondition(failed.status.conditions, kConditionFailed)->message.rfind(
                "rank 1 (pod b-worker-1) failed: pod b-worker-1 was lost with its node: node n2", 0), 0u);
}

TEST(Plan, AWorkerDeletedFromARunningGangCountsAsFailed) {
  Benchmark b = Bench();
  b.status.phase = "Running";
  ReconcilePlan plan = PlanReconcile(b, {Pod(0, "Running")}, kT0);
  EXPECT_EQ(plan.status.phase, "Failed");
  EXPECT_NE(FindCondition(plan.status.conditions, kConditionFailed)->message.find("deleted while running"),
            std::string::npos);
}

TEST(Plan, PodsOfAnEarlierAttemptAreRemoved) {
  Benchmark b = Bench();
  b.status.restarts = 1;
  ReconcilePlan plan = PlanReconcile(b, {Pod(0, "Running", 0), Pod(1, "Running", 1)}, kT0);
  EXPECT_EQ(plan.delete_pods, std::vector<std::string>{"b-worker-0"});
  EXPECT_TRUE(plan.create_ranks.empty());  // rank 0's name is still taken
}

// No pod of a new gang while any of the old one is left, even where its name is free: a peer
// started beside the old rank 0 (still in its grace period, blocked in a collective with a
// lost peer) resolved rank 0's name to it, joined the old rendezvous, and waited there for a
// week (traced on a three-node cluster: a node lost, its pod deleted at once, the other's not).
TEST(Plan, ANewGangWaitsUntilTheOldIsGoneWhole) {
  Benchmark b = Bench();
  b.status.restarts = 1;
  b.status.phase = "Pending";
  WorkerPod old0 = Pod(0, "Running", 0);
  old0.terminating = true;
  ReconcilePlan plan = PlanReconcile(b, {old0}, kT0);
  EXPECT_TRUE(plan.create_ranks.empty());
  EXPECT_EQ(plan.requeue_after, seconds(1));
  EXPECT_EQ(PlanReconcile(b, {}, kT0).create_ranks, std::vector<int64_t>{1});
}

// An edit while the gang runs is applied whole: the workers of the old spec go, and a gang of
// the new one starts from scratch, its restarts counted afresh.
TEST(Plan, ASpecEditRestartsTheGangOnTheNewGeneration) {
  Benchmark b = Bench();
  b.spec.run_policy.backoff_limit = 3;
  b.status = PlanReconcile(b, {}, kT0).status;
  EXPECT_EQ(b.status.observed_generation, 2);
  b.status = PlanReconcile(b, {Pod(0, "Running"), Pod(1, "Running")}, kT0 + seconds(1)).status;
  b.status.restarts = 1;
  b.status.progress.emplace();
  b.status.progress->epoch = 1;
  b.status.progress->step = 100;
  b.status.progress->metric = "accuracy";
  b.status.progress->value = 0.5;
  b.metadata.generation = 3;
  b.spec.workers = 3;

  const std::vector<WorkerPod> old = {Pod(0, "Running", 1), Pod(1, "Running", 1)};
  ReconcilePlan plan = PlanReconcile(b, old, kT0 + seconds(60));
  EXPECT_EQ(plan.status.observed_generation, 3);
  EXPECT_EQ(plan.status.restarts, 0);
  EXPECT_EQ(plan.status.phase, "Pending");
  EXPECT_EQ(plan.status.start_time, Rfc3339(kT0 + seconds(60)));
  EXPECT_FALSE(plan.status.progress.has_value());
  EXPECT_EQ(plan.delete_pods, (std::vector<std::string>{"b-worker-0", "b-worker-1"}));
  EXPECT_TRUE(plan.create_ranks.empty()) << "not even rank 2, whose name is free: the old gang goes first";
  EXPECT_TRUE(plan.create_service_and_config) << "the ConfigMap must carry the new spec";
  const Condition* created = FindCondition(plan.status.conditions, kConditionCreated);
  ASSERT_NE(created, nullptr);
  EXPECT_EQ(created->reason, "SpecChanged");
  EXPECT_EQ(created->observed_generation, 3);
  EXPECT_FALSE(IsConditionTrue(plan.status.conditions, kConditionRunning));
  ASSERT_FALSE(plan.events.empty());
  EXPECT_EQ(plan.events.front().reason, "SpecChanged");
  EXPECT_EQ(plan.events.front().message,
            "the spec changed (generation 2 to 3): restarting all workers with the new spec");

  // The old pods are gone: the new gang is created whole, rank 0 once its peers are placed.
  b.status = plan.status;
  ReconcilePlan fresh = PlanReconcile(b, {Placed(Pod(2, "Pending", 0, 3), "n")}, kT0 + seconds(61));
  EXPECT_EQ(fresh.create_ranks, std::vector<int64_t>{1});
  EXPECT_TRUE(fresh.delete_pods.empty());
  ReconcilePlan last = PlanReconcile(b, {Placed(Pod(1, "Pending", 0, 3), "n"), Placed(Pod(2, "Pending", 0, 3), "n")},
                                     kT0 + seconds(61));
  EXPECT_EQ(last.create_ranks, std::vector<int64_t>{0});
  EXPECT_EQ(FindCondition(last.status.conditions, kConditionCreated)->reason, "WorkersCreated");
  b.status = last.status;
  ReconcilePlan running =
      PlanReconcile(b, {Pod(0, "Running", 0, 3), Pod(1, "Running", 0, 3), Pod(2, "Running", 0, 3)}, kT0 + seconds(62));
  EXPECT_EQ(running.status.phase, "Running");
}

// A finished run is a record of the spec it ran: an edit afterwards changes nothing.
TEST(Plan, AnEditAfterTheRunFinishedChangesNothing) {
  Benchmark b = Bench();
  b.status.phase = "Succeeded";
  b.status.observed_generation = 2;
  b.status.completion_time = Rfc3339(kT0);
  b.spec.run_policy.clean_pod_policy = "None";
  b.metadata.generation = 3;
  ReconcilePlan plan = PlanReconcile(b, {Pod(0, "Succeeded"), Pod(1, "Succeeded")}, kT0 + seconds(5));
  EXPECT_EQ(plan.status.observed_generation, 2);
  EXPECT_TRUE(plan.create_ranks.empty());
  EXPECT_TRUE(plan.delete_pods.empty());
  EXPECT_TRUE(plan.events.empty());
}

TEST(Plan, DeadlineExceededStopsTheWorkers) {
  Benchmark b = Bench();
  b.spec.run_policy.active_deadline_seconds = 60;
  b.spec.run_policy.clean_pod_policy = "None";
  b.status.phase = "Running";
  b.status.start_time = Rfc3339(kT0);
  ReconcilePlan early = PlanReconcile(b, {Pod(0, "Running"), Pod(1, "Running")}, kT0 + seconds(45));
  EXPECT_EQ(early.status.phase, "Running");
  EXPECT_EQ(early.requeue_after, seconds(15));  // at the deadline
  ReconcilePlan close = PlanReconcile(b, {Pod(0, "Running"), Pod(1, "Running")}, kT0 + seconds(55));
  EXPECT_EQ(close.requeue_after, seconds(5));
  ReconcilePlan late = PlanReconcile(b, {Pod(0, "Running"), Pod(1, "Running")}, kT0 + seconds(60));
  EXPECT_EQ(late.status.phase, "Failed");
  EXPECT_EQ(FindCondition(late.status.conditions, kConditionFailed)->reason, "DeadlineExceeded");
  // Running workers stop even under cleanPodPolicy None.
  EXPECT_EQ(late.delete_pods, (std::vector<std::string>{"b-worker-0", "b-worker-1"}));
}

TEST(Plan, CleanPodPolicyRunningKeepsEndedPods) {
  Benchmark b = Bench();
  b.spec.run_policy.clean_pod_policy = "Running";
  b.status.phase = "Failed";
  ReconcilePlan plan = PlanReconcile(b, {Pod(0, "Running"), EndedWorker(1, "Failed", "", 1, "t")}, kT0);
  EXPECT_EQ(plan.delete_pods, std::vector<std::string>{"b-worker-0"});
}

TEST(Plan, TtlDeletesTheFinishedBenchmark) {
  Benchmark b = Bench();
  b.spec.run_policy.ttl_seconds_after_finished = 300;
  b.status.phase = "Succeeded";
  b.status.completion_time = Rfc3339(kT0);
  ReconcilePlan before = PlanReconcile(b, {}, kT0 + seconds(100));
  EXPECT_FALSE(before.delete_benchmark);
  EXPECT_EQ(before.requeue_after, seconds(200));
  EXPECT_TRUE(PlanReconcile(b, {}, kT0 + seconds(300)).delete_benchmark);
}

TEST(Plan, FailedStatusIsTerminal) {
  Benchmark b = Bench();
  BenchmarkStatus status = FailedStatus(b, b.status, "Invalid", "spec.hyperparameters.lr: unknown", "2026-11-18T11:06:40Z");
  EXPECT_EQ(status.phase, "Failed");
  EXPECT_EQ(status.completion_time, "2026-11-18T11:06:40Z");
  const Condition* failed = FindCondition(status.conditions, kConditionFailed);
  EXPECT_EQ(failed->reason, "Invalid");
  EXPECT_EQ(failed->observed_generation, 2);
  EXPECT_EQ(FindCondition(status.conditions, kConditionRunning), nullptr) << "never ran: no Running condition";
}

TEST(Conditions, TransitionTimeMovesOnlyOnAFlip) {
  std::vector<Condition> conditions;
  SetCondition(&conditions, "Running", true, "A", "a", 1, "t1");
  SetCondition(&conditions, "Running", true, "B", "b", 2, "t2");
  ASSERT_EQ(conditions.size(), 1u);
  EXPECT_EQ(conditions[0].last_transition_time, "t1");
  EXPECT_EQ(conditions[0].reason, "B");
  EXPECT_EQ(conditions[0].observed_generation, 2);
  SetCondition(&conditions, "Running", false, "C", "c", 2, "t3");
  EXPECT_EQ(conditions[0].last_transition_time, "t3");
  EXPECT_EQ(conditions[0].status, "False");
  EXPECT_FALSE(IsConditionTrue(conditions, "Running"));
  EXPECT_EQ(FindCondition(conditions, "Failed"), nullptr);
}

// --- MPI: k workers serving sshd and a launcher running mpirun (mpi_builders.h) -----------

Benchmark MpiBench(int workers = 2) {
  Benchmark b = Bench(workers);
  b.spec.backend = "mpi";
  return b;
}

WorkerPod Launcher(const std::string& phase, int attempt = 0) {
  WorkerPod pod = Pod(-1, phase, attempt);
  pod.name = "b-launcher";
  pod.launcher = true;
  return pod;
}

WorkerPod EndedLauncher(const std::string& message, int exit_code, const std::string& finished_at) {
  WorkerPod pod = Launcher("Failed");
  pod.exit_code = exit_code;
  pod.termination_message = message;
  pod.finished_at = finished_at;
  return pod;
}

// The launcher bounds the wait for the workers' sshd, as rank 0 bounds gloo's rendezvous: it
// comes once every worker has a node.
TEST(Plan, TheLauncherIsCreatedOnceEveryWorkerIsPlaced) {
  Benchmark b = MpiBench(2);
  b.status = PlanReconcile(b, {}, kT0).status;
  const ReconcilePlan waiting = PlanReconcile(b, {Pod(0, "Pending"), Placed(Pod(1, "Pending"), "n1")}, kT0 + seconds(1));
  EXPECT_FALSE(waiting.create_launcher);
  const ReconcilePlan placed =
      PlanReconcile(b, {Placed(Pod(0, "Pending"), "n0"), Placed(Pod(1, "Pending"), "n1")}, kT0 + seconds(2));
  EXPECT_TRUE(placed.create_launcher);
  EXPECT_TRUE(placed.delete_pods.empty());
  b.status = placed.status;
  const ReconcilePlan there = PlanReconcile(b, {Pod(0, "Running"), Pod(1, "Running"), Launcher("Pending")}, kT0 + seconds(3));
  EXPECT_FALSE(there.create_launcher);
  EXPECT_TRUE(there.delete_pods.empty()) << "the launcher is not a stray pod";
  EXPECT_EQ(there.status.workers.running, 2) << "the launcher is not a worker";
  EXPECT_EQ(there.status.phase, "Pending") << "nothing trains before mpirun runs";
  const ReconcilePlan running = PlanReconcile(b, {Pod(0, "Running"), Pod(1, "Running"), Launcher("Running")}, kT0 + seconds(4));
  EXPECT_EQ(running.status.phase, "Running");
  EXPECT_FALSE(PlanReconcile(MpiBench(2), {}, kT0).create_launcher);
  EXPECT_FALSE(PlanReconcile(Bench(1), {}, kT0).create_launcher) << "gloo has none";
}

TEST(Plan, ALauncherThatCannotBePlacedSaysWhy) {
  Benchmark b = MpiBench(2);
  b.status = PlanReconcile(b, {}, kT0).status;
  const ReconcilePlan plan = PlanReconcile(
      b, {Pod(0, "Running"), Pod(1, "Running"), Unschedulable(Launcher("Pending"), "0/1 nodes are available: 1 Insufficient cpu.")},
      kT0 + seconds(1));
  const Condition* scheduled = FindCondition(plan.status.conditions, kConditionScheduled);
  ASSERT_NE(scheduled, nullptr);
  EXPECT_EQ(scheduled->status, "False");
  EXPECT_EQ(scheduled->message, "the launcher (pod b-launcher) cannot be placed: 0/1 nodes are available: 1 Insufficient cpu.");
  EXPECT_EQ(plan.events.back().reason, "Unschedulable");
}

TEST(Plan, AnMpiRunSucceedsWithItsWorkersResults) {
  Benchmark b = MpiBench(2);
  b.status.phase = "Running";
  b.status.observed_generation = 2;
  const ReconcilePlan plan = PlanReconcile(
      b,
      {EndedWorker(0, "Succeeded", ResultMessage(0, kRankSucceeded), 0, "2026-11-18T11:06:30Z"),
       EndedWorker(1, "Succeeded", ResultMessage(1, kRankSucceeded), 0, "2026-11-18T11:06:30Z"), Launcher("Running")},
      kT0);
  EXPECT_EQ(plan.status.phase, "Succeeded");
  ASSERT_TRUE(plan.status.results.has_value());
  EXPECT_DOUBLE_EQ(*plan.status.results->figures.samples_per_second, 2000);
}

// Every rank's result is in: a launcher that then fails (evicted, or mpirun's teardown) takes
// nothing from the run.
TEST(Plan, AnMpiRunWithEveryResultSucceedsWhateverItsLauncherDoes) {
  Benchmark b = MpiBench(2);
  b.status.phase = "Running";
  b.status.observed_generation = 2;
  const ReconcilePlan plan = PlanReconcile(
      b,
      {EndedWorker(0, "Succeeded", ResultMessage(0, kRankSucceeded), 0, "2026-11-18T11:06:30Z"),
       EndedWorker(1, "Succeeded", ResultMessage(1, kRankSucceeded), 0, "2026-11-18T11:06:30Z"),
       EndedLauncher("ORTE has lost communication with a remote daemon.", 1, "2026-11-18T11:06:31Z")},
      kT0);
  EXPECT_EQ(plan.status.phase, "Succeeded");
}

// mpirun aborts the job when a rank fails: the launcher ends about when the rank's pod does.
// The rank is the cause; the launcher alone is only once its workers had time to say otherwise.
TEST(Plan, AFailedWorkerIsTheCauseEvenIfTheLauncherEndedFirst) {
  Benchmark b = MpiBench(2);
  b.status.phase = "Running";
  b.status.observed_generation = 2;
  const WorkerPod launcher = EndedLauncher("mpirun noticed that process rank 1 ... exited on signal 9 (Killed).", 137,
                                           "2026-11-18T11:06:39Z");
  const ReconcilePlan early = PlanReconcile(b, {Pod(0, "Running"), Pod(1, "Running"), launcher}, kT0);
  EXPECT_EQ(early.status.phase, "Running") << "the launcher ended 1 s ago: its workers may still report";
  ASSERT_TRUE(early.requeue_after.has_value());
  EXPECT_LE(*early.requeue_after, seconds(4));

  const WorkerPod killed = EndedWorker(1, "Failed", "the runner ended with signal 9 (Killed) before writing its result", 137,
                                 "2026-11-18T11:06:40Z");
  const ReconcilePlan plan = PlanReconcile(b, {Pod(0, "Running"), killed, launcher}, kT0 + seconds(1));
  EXPECT_EQ(plan.status.phase, "Failed");
  const Condition* failed = FindCondition(plan.status.conditions, kConditionFailed);
  ASSERT_NE(failed, nullptr);
  EXPECT_EQ(failed->reason, "PodFailed");
  EXPECT_NE(failed->message.find("rank 1 (pod b-worker-1) failed"), std::string::npos) << failed->message;
  EXPECT_NE(failed->message.find("signal 9"), std::string::npos) << failed->message;
}

TEST(Plan, ALauncherThatFailedAloneFailsTheRunNamingIt) {
  Benchmark b = MpiBench(2);
  b.status.phase = "Pending";
  b.status.observed_generation = 2;
  const WorkerPod launcher = EndedLauncher("rank 1's worker b-worker-1.b-workers: its sshd (port 2222) did not answer", 3,
                                           "2026-11-18T11:06:30Z");
  const ReconcilePlan plan = PlanReconcile(b, {Pod(0, "Running"), Pod(1, "Pending"), launcher}, kT0);
  EXPECT_EQ(plan.status.phase, "Failed");
  const Condition* failed = FindCondition(plan.status.conditions, kConditionFailed);
  ASSERT_NE(failed, nullptr);
  EXPECT_EQ(failed->message,
            "the launcher (pod b-launcher) failed with exit code 3: rank 1's worker b-worker-1.b-workers: its sshd "
            "(port 2222) did not answer");
  EXPECT_EQ(plan.delete_pods, (std::vector<std::string>{"b-worker-0", "b-worker-1", "b-launcher"}));
}

TEST(Plan, ARestartReplacesTheLauncherWithTheWorkers) {
  Benchmark b = MpiBench(2);
  b.spec.run_policy.backoff_limit = 1;
  b.status.phase = "Running";
  b.status.observed_generation = 2;
  const ReconcilePlan plan = PlanReconcile(
      b, {Pod(0, "Running"), Pod(1, "Running"), EndedLauncher("mpirun: lost a daemon", 1, "2026-11-18T11:06:00Z")}, kT0);
  EXPECT_EQ(plan.status.restarts, 1);
  EXPECT_EQ(plan.delete_pods, (std::vector<std::string>{"b-worker-0", "b-worker-1", "b-launcher"}));
  // The next gang's launcher waits for the old one's name.
  b.status = plan.status;
  WorkerPod old = Launcher("Failed");
  old.terminating = true;
  const ReconcilePlan next = PlanReconcile(
      b, {Placed(Pod(0, "Pending", 1), "n"), Placed(Pod(1, "Pending", 1), "n"), old}, kT0 + seconds(1));
  EXPECT_FALSE(next.create_launcher);
  EXPECT_TRUE(next.requeue_after.has_value());
  const ReconcilePlan free =
      PlanReconcile(b, {Placed(Pod(0, "Pending", 1), "n"), Placed(Pod(1, "Pending", 1), "n")}, kT0 + seconds(2));
  EXPECT_TRUE(free.create_launcher);
}

TEST(Plan, ALauncherThatNeverStartsEndsTheWait) {
  Benchmark b = MpiBench(2);
  b.status.phase = "Pending";
  b.status.observed_generation = 2;
  WorkerPod launcher = Placed(Launcher("Pending"), "n");
  launcher.created_at = "2026-11-18T11:06:40Z";
  launcher.waiting = "ImagePullBackOff: no such image";
  const ReconcilePlan early = PlanReconcile(b, {Pod(0, "Running"), Pod(1, "Running"), launcher}, kT0 + seconds(10));
  EXPECT_EQ(early.status.phase, "Pending");
  const ReconcilePlan late = PlanReconcile(b, {Pod(0, "Running"), Pod(1, "Running"), launcher}, kT0 + seconds(301));
  EXPECT_EQ(late.status.phase, "Failed");
  const Condition* failed = FindCondition(late.status.conditions, kConditionFailed);
  ASSERT_NE(failed, nullptr);
  EXPECT_NE(failed->message.find("the launcher (pod b-launcher) failed: not started after 300 s: ImagePullBackOff"),
            std::string::npos)
      << failed->message;
}

TEST(Plan, ALauncherDeletedWhileRunningFailsTheRun) {
  Benchmark b = MpiBench(2);
  b.status.phase = "Running";
  b.status.observed_generation = 2;
  const ReconcilePlan plan = PlanReconcile(b, {Pod(0, "Running"), Pod(1, "Running")}, kT0);
  EXPECT_EQ(plan.status.phase, "Failed");
  const Condition* failed = FindCondition(plan.status.conditions, kConditionFailed);
  ASSERT_NE(failed, nullptr);
  EXPECT_NE(failed->message.find("the launcher (pod b-launcher) failed: deleted while running"), std::string::npos)
      << failed->message;
}

// The launcher on a lost node: mpirun is gone with it, and the run fails naming the node.
TEST(Plan, ALauncherOnALostNodeFailsTheRunNamingTheNode) {
  Benchmark b = MpiBench(2);
  b.status.phase = "Running";
  b.status.observed_generation = 2;
  WorkerPod launcher = Placed(Launcher("Running"), "n3");
  launcher.node_lost = "node n3 no longer exists";
  const ReconcilePlan plan = PlanReconcile(b, {Pod(0, "Running"), Pod(1, "Running"), launcher}, kT0);
  EXPECT_EQ(plan.status.phase, "Failed");
  EXPECT_EQ(FindCondition(plan.status.conditions, kConditionFailed)->message,
            "the launcher (pod b-launcher) failed: lost with its node: node n3 no longer exists");
  EXPECT_EQ(plan.delete_pods, (std::vector<std::string>{"b-worker-0", "b-worker-1", "b-launcher"}));
}
}  // namespace
}  // namespace ergobench::controller
