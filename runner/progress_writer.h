// ProgressWriter appends ProgressEvents, one JSON line per write(2), to the file that
// `ergobench run` follows. Without a path it only counts elapsed time.
#pragma once

#include <chrono>
#include <string>

#include "api/contract/progress_event.h"

namespace ergobench {

class ProgressWriter {
 public:
  ProgressWriter(std::string path, int rank);
  ~ProgressWriter();
  ProgressWriter(const ProgressWriter&) = delete;
  ProgressWriter& operator=(const ProgressWriter&) = delete;

  // Fills rank and elapsed time, then appends. Write errors are ignored: progress is a
  // courtesy and must never fail a run.
  void Report(ProgressEvent event);
  void ReportStage(const std::string& stage);

 private:
  int fd_ = -1;
  int rank_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace ergobench
