#include "runner/launcher/rank_handoff.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

extern char** environ;

namespace ergobench::mpi {
namespace {

using nlohmann::json;

std::string HandoffPath(const std::string& dir) { return dir + "/rank.json"; }
std::string ExitCodePath(const std::string& dir) { return dir + "/exit-code"; }

Status WriteWhole(const std::string& path, const std::string& text) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << text;
    out.close();
    if (!out) return Status::Unavailable(temporary + ": cannot write");
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) return Status::Unavailable(path + ": cannot rename into place");
  return Status::Ok();
}

}  // namespace

Status WriteHandoff(const std::string& state_dir, const RankHandoff& handoff) {
  std::error_code error;
  std::filesystem::create_directories(state_dir, error);
  if (error) return Status::Unavailable(state_dir + ": " + error.message());
  json env = json::object();
  for (const auto& [name, value] : handoff.env) env[name] = value;
  return WriteWhole(HandoffPath(state_dir), json{{"argv", handoff.argv}, {"env", env}}.dump());
}

StatusOr<RankHandoff> ReadHandoff(const std::string& state_dir) {
  const std::string path = HandoffPath(state_dir);
  std::ifstream in(path);
  if (!in) return Status::NotFound(path + ": no runner command line here (is this pod an MPI worker?)");
  std::stringstream text;
  text << in.rdbuf();
  const json parsed = json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (!parsed.is_object() || !parsed.contains("argv") || !parsed["argv"].is_array() || parsed["argv"].empty() ||
      !parsed.contains("env") || !parsed["env"].is_object()) {
    return Status::InvalidArgument(path + ": not a runner command line");
  }
  RankHandoff handoff;
  for (const json& arg : parsed["argv"]) {
    if (!arg.is_string()) return Status::InvalidArgument(path + ": argv holds a non-string");
    handoff.argv.push_back(arg);
  }
  for (const auto& [name, value] : parsed["env"].items()) {
    if (!value.is_string()) return Status::InvalidArgument(path + ": env." + name + " is not a string");
    handoff.env.emplace_back(name, value);
  }
  return handoff;
}

Status WriteExitCode(const std::string& state_dir, int code) {
  return WriteWhole(ExitCodePath(state_dir), std::to_string(code) + "\n");
}

std::optional<int> ReadExitCode(const std::string& state_dir) {
  std::ifstream in(ExitCodePath(state_dir));
  int code = 0;
  if (in >> code) return code;
  return std::nullopt;
}

std::vector<std::pair<std::string, std::string>> CurrentEnvironment() {
  std::vector<std::pair<std::string, std::string>> env;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string text(*entry);
    const size_t equals = text.find('=');
    if (equals != std::string::npos) env.emplace_back(text.substr(0, equals), text.substr(equals + 1));
  }
  return env;
}

}  // namespace ergobench::mpi
