#include "cli/cluster_command.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>

namespace ergobench {

std::string FindClusterProgram(const std::string& self_path) {
  if (const char* env = std::getenv("ERGOBENCH_CLUSTER_COMMAND")) return env;
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::path self = fs::path(self_path);
  for (const fs::path& candidate : {self.parent_path().parent_path() / "share/ergobench/cluster/cluster_command.py",
                                    fs::path(ERGOBENCH_SOURCE_DIR) / "kube/cluster/cluster_command.py"}) {
    if (fs::exists(candidate, error)) return candidate.string();
  }
  return "";
}

int ClusterCommand(const std::vector<std::string>& args) {
  std::error_code error;
  const std::string program = FindClusterProgram(std::filesystem::read_symlink("/proc/self/exe", error).string());
  if (program.empty()) {
    std::cerr << "ergobench cluster: kube/cluster/cluster_command.py is neither installed beside ergobench nor in "
                 "its source tree; set ERGOBENCH_CLUSTER_COMMAND\n";
    return 2;
  }
  std::vector<char*> argv;
  std::string python = "python3";
  argv.push_back(python.data());
  std::string program_arg = program;
  argv.push_back(program_arg.data());
  std::vector<std::string> copies = args;
  for (std::string& arg : copies) argv.push_back(arg.data());
  argv.push_back(nullptr);
  execvp("python3", argv.data());
  std::cerr << "ergobench cluster: cannot run python3: " << std::strerror(errno) << "\n";
  return 2;
}

}  // namespace ergobench
