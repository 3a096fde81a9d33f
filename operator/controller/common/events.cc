#include "operator/controller/common/events.h"

#include "base/utf8.h"

namespace ergobench::controller {

using nlohmann::json;

json BuildObjectEvent(const char* kind, const ObjectMeta& object, const std::string& type, const std::string& reason,
                      const std::string& message, const std::string& timestamp) {
  return {{"apiVersion", "v1"},
          {"kind", "Event"},
          {"metadata", {{"generateName", object.name + "."}, {"namespace", object.namespace_name}}},
          {"involvedObject",
           {{"apiVersion", kApiVersion},
            {"kind", kind},
            {"name", object.name},
            {"namespace", object.namespace_name},
            {"uid", object.uid},
            {"resourceVersion", object.resource_version}}},
          {"type", type},
          {"reason", reason},
          {"message", TruncateUtf8(message, kMaxEventMessageBytes)},
          {"source", {{"component", "ergobench-operator"}}},
          {"reportingComponent", "ergobench-operator"},
          {"firstTimestamp", timestamp},
          {"lastTimestamp", timestamp},
          {"count", 1}};
}

}  // namespace ergobench::controller
