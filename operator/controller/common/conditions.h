// Status conditions with Kubernetes semantics: one per type; lastTransitionTime moves only
// when the status flips, so it says when something became true, not when it was last seen.
#pragma once

#include <string>
#include <vector>

#include "api/v1alpha1/benchmark.h"

namespace ergobench::controller {

inline constexpr char kConditionCreated[] = "Created";
inline constexpr char kConditionScheduled[] = "Scheduled";  // every worker has a node
inline constexpr char kConditionRunning[] = "Running";
inline constexpr char kConditionSucceeded[] = "Succeeded";
inline constexpr char kConditionFailed[] = "Failed";

// The CRD's maxLength of a condition's message, metav1.Condition's: a longer status write
// would be refused.
inline constexpr size_t kMaxConditionMessageBytes = 32768;

// Sets (or adds) the condition of `type`. `now` stamps lastTransitionTime on a flip. A message
// over kMaxConditionMessageBytes is cut between characters.
void SetCondition(std::vector<Condition>* conditions, const std::string& type, bool value, const std::string& reason,
                  const std::string& message, int64_t observed_generation, const std::string& now);

// The same for a condition whose status may be "Unknown": its type, status, reason and message.
void SetCondition(std::vector<Condition>* conditions, const Condition& condition, int64_t observed_generation,
                  const std::string& now);

const Condition* FindCondition(const std::vector<Condition>& conditions, const std::string& type);
bool IsConditionTrue(const std::vector<Condition>& conditions, const std::string& type);

}  // namespace ergobench::controller
