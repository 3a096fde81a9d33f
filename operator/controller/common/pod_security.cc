#include "operator/controller/common/pod_security.h"

namespace ergobench::controller {

using nlohmann::json;

json PodSecurityContext() {
  return {{"runAsNonRoot", true},
          {"runAsUser", kRunnerUid},
          {"runAsGroup", kRunnerUid},
          {"fsGroup", kRunnerUid},
          {"seccompProfile", {{"type", "RuntimeDefault"}}}};
}

json RestrictedPodSpec(const json& container, const std::string& restart_policy) {
  return {{"restartPolicy", restart_policy},
          {"automountServiceAccountToken", false},
          {"enableServiceLinks", false},
          {"securityContext", PodSecurityContext()},
          {"containers", json::array({container})}};
}

json ContainerSecurityContext() {
  return {{"allowPrivilegeEscalation", false},
          {"readOnlyRootFilesystem", true},
          {"capabilities", {{"drop", {"ALL"}}}}};
}

}  // namespace ergobench::controller
