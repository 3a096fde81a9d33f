// Which object controls which, read from ownerReferences, and the create that tolerates its
// own earlier create: what every reconciler needs to tell its children from a namesake's.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "kube/client/client.h"

namespace ergobench::controller {

// "namespace/name" of the object that `object` belongs to by its `label` ("" for none): the
// index of the caches of pods, Jobs and child Benchmarks.
std::string LabelOwnerKey(const nlohmann::json& object, const char* label);

// The object's controller ownerReference; nullopt when it has none (or its references are
// not a list of objects).
std::optional<nlohmann::json> ControllerReference(const nlohmann::json& object);
// The UID in the object's controller ownerReference; empty when it has none.
std::string ControllerUid(const nlohmann::json& object);

// Creates `desired`. AlreadyExists is success when the object there is controlled by
// `owner_uid` (our cache lagged our own create); otherwise FailedPrecondition names its holder.
// The value is the object as created, or as found.
StatusOr<nlohmann::json> CreateOwned(kube::KubeClient& client, const kube::ApiResource& resource,
                                     const nlohmann::json& desired, const std::string& owner_uid);

// Whether the sweep must still read how `child` ended before the child may be deleted (its
// ttlSecondsAfterFinished has passed): deleted first, its point would run again, as one never
// run. `sweep` is the cached object of the sweep its label names, or null; only the sweep that
// controls the child, and is not being deleted, waits for it.
bool SweepAwaitsItsEnd(const nlohmann::json& child, const nlohmann::json* sweep);

}  // namespace ergobench::controller
