// FieldErrors collects every problem found in a document, each with the field path it
// concerns ("spec.workers: must be between 1 and 1024, got 0"), so that a user sees all
// mistakes at once rather than one per attempt.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"

namespace ergobench {

struct FieldError {
  std::string path;     // "spec.hyperparameters.repetitions"; empty for the document itself
  std::string message;  // "must be at least 1, got 0"

  std::string ToString() const { return path.empty() ? message : path + ": " + message; }
  bool operator==(const FieldError&) const = default;
};

class FieldErrors {
 public:
  void Add(std::string path, std::string message) { errors_.push_back({std::move(path), std::move(message)}); }
  void Append(const FieldErrors& other) { errors_.insert(errors_.end(), other.errors_.begin(), other.errors_.end()); }

  bool empty() const { return errors_.empty(); }
  size_t size() const { return errors_.size(); }
  const std::vector<FieldError>& errors() const { return errors_; }

  // One line per error, in the order found.
  std::string ToString() const;
  // On one line, "; " between errors: for a condition's message.
  std::string Joined() const;
  // OK when empty, else InvalidArgument listing every error.
  Status ToStatus() const;

 private:
  std::vector<FieldError> errors_;
};

// Joins a parent path and a child key: JoinPath("spec", "workers") == "spec.workers".
std::string JoinPath(const std::string& parent, const std::string& key);
// IndexPath("spec.scheduling.tolerations", 2) == "spec.scheduling.tolerations[2]".
std::string IndexPath(const std::string& parent, size_t index);

}  // namespace ergobench
