// `ergobench cluster up|down|status|load|link`: a real Kubernetes cluster of N nodes on this
// machine, with links of known speed. The cluster is driven by kube/cluster/cluster_command.py
// (processes, network namespaces, tc), which this hands the arguments to.
#ifndef ERGOBENCH_CLI_CLUSTER_COMMAND_H_
#define ERGOBENCH_CLI_CLUSTER_COMMAND_H_

#include <string>
#include <vector>

namespace ergobench {

// The source tree `ergobench` was built from: one generated file (cli/CMakeLists.txt), so that
// no other compile depends on where the clone is and a second clone hits the compiler cache.
extern const char kSourceDir[];

// Where kube/cluster/cluster_command.py is: $ERGOBENCH_CLUSTER_COMMAND, else installed beside
// the binary at `self_path` (<prefix>/share/ergobench/cluster), else in `source_dir`. Empty
// when none exists.
std::string FindClusterProgram(const std::string& self_path, const std::string& source_dir);

// Replaces this process with `python3 PROGRAM ARGS...`; returns only on failure (exit code 2,
// the reason on stderr).
int ClusterCommand(const std::vector<std::string>& args, const std::string& source_dir);

}  // namespace ergobench

#endif  // ERGOBENCH_CLI_CLUSTER_COMMAND_H_
