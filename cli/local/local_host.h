// The host a local run ran on, as a node of the price catalog sees one: its name, CPUs and
// memory, and on an EC2 instance its instance type (the DMI product name, which EC2 sets to it).
#pragma once

#include <string>

#include "api/v1alpha1/system.h"

namespace ergobench {

// `dmi_dir` is /sys/class/dmi/id outside tests.
NodeFacts LocalHostFacts(const std::string& dmi_dir = "/sys/class/dmi/id");

}  // namespace ergobench
