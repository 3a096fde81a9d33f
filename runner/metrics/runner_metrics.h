// RunnerMetrics owns the runner's Prometheus registry and every metric family named in
// docs/architecture.md ("Metrics"), labelled with benchmark, task, rank, world_size and backend. Tasks
// record through these methods; MetricsServer serves Render() on /metrics.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "api/analysis/progress_estimate.h"
#include "api/analysis/training_phases.h"
#include "api/v1alpha1/result.h"

namespace ergobench {

struct MetricLabels {
  std::string benchmark;
  std::string task;
  std::string backend;
  int rank = 0;
  int world_size = 1;
};

class RunnerMetrics {
 public:
  explicit RunnerMetrics(const MetricLabels& labels);
  ~RunnerMetrics();
  RunnerMetrics(const RunnerMetrics&) = delete;
  RunnerMetrics& operator=(const RunnerMetrics&) = delete;

  // Every phase is exported from the start (at 0), so that rate() over the communication
  // share works from the first scrape.
  void AddPhaseSeconds(TrainingPhase phase, double seconds);
  // The collectives' whole time, overlapped with compute or not (phase_timer.h).
  void AddCollectiveSeconds(double seconds);
  void ObserveStep(double seconds);
  void AddSamples(double samples);
  void AddTokens(double tokens);
  // Bytes of the data set's files read (data_bytes.h): rate() of it is the data path's read rate.
  void AddDataBytes(double bytes);
  void SetEpoch(int64_t epoch);
  void SetTrainLoss(double loss);
  void SetEvalAccuracy(double accuracy);
  void SetEvalLoss(double loss);
  void SetEvalBleu(double bleu);
  void SetEvalMeanAbsoluteError(double mae);
  // After a step under dynamic loss scaling: the scale now, and whether the step's update was skipped.
  void SetLossScaling(double scale, bool skipped);
  void SetGoalReached(bool reached);
  // The share of the most work done and the time left, labelled with what it extrapolates.
  void SetProgress(const ProgressEstimate& estimate);
  void SetArtifactsOffered();
  void SetBusBandwidth(int64_t bytes, double bytes_per_second);
  // The energy a channel has used since the run began (the counter follows it up) and a
  // device's power.
  void SetEnergy(const std::string& device, const std::string& domain, double joules);
  void SetPower(const std::string& device, double watts);
  // The run's memory per rank (api/v1alpha1/result.h), by kind.
  void SetMemory(const MemoryFigures& memory);
  // Model FLOPs (training_loop.h): a sample's, and the peak MFU divides by. The sustained rate
  // is rate(ergobench_samples_total) times the first; MFU that over the second.
  void SetFlopsPerSample(double flops);
  void SetPeakFlops(double flops_per_second);

  // The Prometheus text exposition format (0.0.4) of every family.
  std::string Render() const;

 private:
  struct Families;
  std::unique_ptr<Families> families_;
};

}  // namespace ergobench
