// ergobench-stage: stages a Dataset's url source into a folder, as the operator's staging Job
// runs it on the Dataset's claim: the runner's fetch code (an interrupted download resumes, the
// sha256 is checked, the archive is extracted safely), then a one-line JSON result
// {"path", "bytes", "files"} on stdout and in --result-file (the Job pod's termination message).
// Exit 2: an error no retry mends (a checksum mismatch, an unsafe or oversized archive); 1: one
// a retry may get past (the network).
#include <filesystem>
#include <fstream>
#include <iostream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "runner/data/dataset_fetch.h"

namespace {

namespace fs = std::filesystem;

constexpr int kExitRetry = 1;
constexpr int kExitPermanent = 2;

void WriteResult(const std::string& path, const std::string& text) {
  std::cout << text << "\n";
  if (!path.empty()) std::ofstream(path) << text;
}

}  // namespace

int main(int argc, char** argv) {
  std::string url, sha256, into, result_file;
  CLI::App app{"ergobench-stage: fetches a data set once into a folder (a Dataset's claim)"};
  app.add_option("--url", url, "archive or file to fetch (http, https)")->required();
  app.add_option("--sha256", sha256, "its SHA-256, lowercase hex")->required();
  app.add_option("--into", into, "folder to stage into; the data lands in <into>/<sha256>/data")->required();
  app.add_option("--result-file", result_file, "where the JSON result (or the error) is also written");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : kExitPermanent;
  }
  ergobench::StatusOr<std::string> data = ergobench::FetchDataset(url, sha256, into);
  if (!data.ok()) {
    std::cerr << "ergobench-stage: " << data.status().message() << "\n";
    WriteResult(result_file, data.status().message());
    return data.status().code() == ergobench::StatusCode::kInvalidArgument ? kExitPermanent : kExitRetry;
  }
  int64_t bytes = 0, files = 0;
  std::error_code error;
  for (auto it = fs::recursive_directory_iterator(*data, error); it != fs::recursive_directory_iterator(); ++it) {
    if (!it->is_regular_file()) continue;
    ++files;
    bytes += static_cast<int64_t>(it->file_size());
  }
  const std::string path = fs::relative(*data, fs::canonical(into)).string();
  WriteResult(result_file, nlohmann::json{{"path", path}, {"bytes", bytes}, {"files", files}}.dump());
  return 0;
}
