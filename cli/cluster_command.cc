#include "cli/cluster_command.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>

namespace ergobench {

std::string FindClusterProgram(const std::string& self_path, const std::string& source_dir) {
  if (const char* env = std::getenv("ERGOBENCH_CLUSTER_COMMAND")) return env;
  namespace fs = std::filesystem;
  std::error_code error;
  for (const fs::path& candidate : {fs::path(self_path).parent_path().parent_path() / "share/ergobench/cluster/cluster_command.py",
                                    fs::path(source_dir) / "kube/cluster/cluster_command.py"}) {
    if (fs::exists(candidate, error)) return candidate.string();
  }
  return "";
}

int ClusterCommand(const std::vector<std::string>& args, const std::string& source_dir) {
  std::error_code error;
  const std::string program =
      FindClusterProgram(std::filesystem::read_symlink("/proc/self/exe", error).string(), source_dir);
  if (program.empty()) {
    std::cerr << "ergobench cluster: kube/cluster/cluster_command.py is neither installed beside ergobench nor in "
                 "its source tree; set ERGOBENCH_CLUSTER_COMMAND\n";
    return 2;
  }
  std::vector<std::string> words = {"python3", program};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);
  execvp("python3", argv.data());
  std::cerr << "ergobench cluster: cannot run python3: " << std::strerror(errno) << "\n";
  return 2;
}

}  // namespace ergobench
