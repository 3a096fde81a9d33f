#include "runner/progress_writer.h"

#include <fcntl.h>
#include <unistd.h>

namespace ergobench {

ProgressWriter::ProgressWriter(std::string path, int rank) : rank_(rank), start_(std::chrono::steady_clock::now()) {
  if (!path.empty()) fd_ = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
}

ProgressWriter::~ProgressWriter() {
  if (fd_ >= 0) close(fd_);
}

void ProgressWriter::Report(ProgressEvent event) {
  if (fd_ < 0) return;
  event.rank = rank_;
  event.elapsed_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const std::string line = EncodeProgressEvent(event) + "\n";
  [[maybe_unused]] ssize_t written = write(fd_, line.data(), line.size());
}

void ProgressWriter::ReportStage(const std::string& stage) {
  ProgressEvent event;
  event.stage = stage;
  Report(std::move(event));
}

}  // namespace ergobench
