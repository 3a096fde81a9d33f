#include "cli/local/local_host.h"

#include <unistd.h>

#include <fstream>
#include <sstream>
#include <thread>

namespace ergobench {
namespace {

std::string FirstLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  while (!line.empty() && (line.back() == ' ' || line.back() == '\n')) line.pop_back();
  return line;
}

double MemTotalBytes() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  double kib = 0;
  while (in >> key >> kib) {
    if (key == "MemTotal:") return kib * 1024;
    in.ignore(1 << 10, '\n');
  }
  return 0;
}

}  // namespace

NodeFacts LocalHostFacts(const std::string& dmi_dir) {
  NodeFacts host;
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  host.name = name;
  host.cpus = static_cast<double>(std::thread::hardware_concurrency());
  host.memory_bytes = MemTotalBytes();
  if (FirstLine(dmi_dir + "/sys_vendor") == "Amazon EC2") {
    host.provider = "aws";
    host.instance_type = FirstLine(dmi_dir + "/product_name");
  }
  return host;
}

}  // namespace ergobench
