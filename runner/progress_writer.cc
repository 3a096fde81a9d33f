#include "runner/progress_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include "runner/metrics/runner_metrics.h"

namespace ergobench {

ProgressWriter::ProgressWriter(std::string path, int rank, std::optional<int64_t> max_epochs, RunnerMetrics* metrics)
    : rank_(rank), max_epochs_(max_epochs), metrics_(metrics), start_(std::chrono::steady_clock::now()) {
  if (!path.empty()) fd_ = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
}

ProgressWriter::~ProgressWriter() {
  if (fd_ >= 0) close(fd_);
}

void ProgressWriter::Report(ProgressEvent event) {
  event.rank = rank_;
  event.elapsed_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (event.stage == "run") {
    const ProgressEstimate estimate = estimator_.Observe(
        event.elapsed_seconds, DoneFraction(max_epochs_, event.epoch, event.done, event.total), event.value);
    event.done_fraction = estimate.done_fraction;
    event.seconds_left = estimate.seconds_left;
    event.estimated_from = estimate.estimated_from;
    if (metrics_ != nullptr) metrics_->SetProgress(estimate);
  }
  if (fd_ < 0) return;
  const std::string line = EncodeProgressEvent(event) + "\n";
  [[maybe_unused]] ssize_t written = write(fd_, line.data(), line.size());
}

void ProgressWriter::ReportStage(const std::string& stage) {
  ProgressEvent event;
  event.stage = stage;
  Report(std::move(event));
}

}  // namespace ergobench
