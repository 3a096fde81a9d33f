// What every pod the operator makes starts from, a Benchmark's workers and launcher and a
// Dataset's staging Job alike: the Pod Security Standards' "restricted" profile (non-root, no
// privilege escalation, no capabilities, RuntimeDefault seccomp, a read-only root filesystem)
// and no API token.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace ergobench::controller {

// The runner's user and group: the runner image's (65532, "nonroot"), named in the pod so
// that a restricted namespace admits it whatever image it runs.
inline constexpr int kRunnerUid = 65532;
inline constexpr char kTerminationMessagePath[] = "/dev/termination-log";
inline constexpr char kTmpMountPath[] = "/tmp";  // the root filesystem is read-only
// The bound on the /tmp emptyDir: what libraries put there (OpenMPI's session directory).
inline constexpr char kTmpSizeLimit[] = "1Gi";

// A pod spec of one container under the restricted profile, with no API token and no Service
// variables.
nlohmann::json RestrictedPodSpec(const nlohmann::json& container, const std::string& restart_policy);

// The restricted profile, for a pod and for its container.
nlohmann::json PodSecurityContext();
nlohmann::json ContainerSecurityContext();

}  // namespace ergobench::controller
