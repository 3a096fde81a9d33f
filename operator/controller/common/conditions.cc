#include "operator/controller/common/conditions.h"

#include "base/utf8.h"

namespace ergobench::controller {

void SetCondition(std::vector<Condition>* conditions, const std::string& type, bool value, const std::string& reason,
                  const std::string& message, int64_t observed_generation, const std::string& now) {
  SetCondition(conditions, Condition{type, value ? "True" : "False", reason, message, "", 0}, observed_generation, now);
}

void SetCondition(std::vector<Condition>* conditions, const Condition& condition, int64_t observed_generation,
                  const std::string& now) {
  const std::string& type = condition.type;
  const std::string& status = condition.status;
  const std::string& reason = condition.reason;
  const std::string message = AbbreviateUtf8(condition.message, kMaxConditionMessageBytes);
  for (Condition& c : *conditions) {
    if (c.type != type) continue;
    if (c.status != status) c.last_transition_time = now;
    c.status = status;
    c.reason = reason;
    c.message = message;
    c.observed_generation = observed_generation;
    return;
  }
  conditions->push_back(Condition{type, status, reason, message, now, observed_generation});
}

const Condition* FindCondition(const std::vector<Condition>& conditions, const std::string& type) {
  for (const Condition& c : conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

bool IsConditionTrue(const std::vector<Condition>& conditions, const std::string& type) {
  const Condition* c = FindCondition(conditions, type);
  return c != nullptr && c->status == "True";
}

}  // namespace ergobench::controller
