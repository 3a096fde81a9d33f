// `ergobench cluster up|down|status|load|link`: a real Kubernetes cluster of N nodes on this
// machine, with links of known speed. The cluster is driven by kube/cluster/cluster_command.py
// (processes, network namespaces, tc), which this hands the arguments to.
#ifndef ERGOBENCH_CLI_CLUSTER_COMMAND_H_
#define ERGOBENCH_CLI_CLUSTER_COMMAND_H_

#include <string>
#include <vector>

namespace ergobench {

// Where kube/cluster/cluster_command.py is: $ERGOBENCH_CLUSTER_COMMAND, else installed beside
// the binary (<prefix>/share/ergobench/cluster), else in the source tree this was built from.
// Empty when none exists.
std::string FindClusterProgram(const std::string& self_path);

// Replaces this process with `python3 PROGRAM ARGS...`; returns only on failure (exit code 2,
// the reason on stderr).
int ClusterCommand(const std::vector<std::string>& args);

}  // namespace ergobench

#endif  // ERGOBENCH_CLI_CLUSTER_COMMAND_H_
