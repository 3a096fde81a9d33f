// ergobench-stage: stages a Dataset's url source into a folder, as the operator's staging Job
// runs it on the Dataset's claim: the runner's fetch code (an interrupted download resumes, the
// sha256 is checked, the archive is extracted safely), then a one-line JSON result
// {"path", "bytes", "files", "seconds"} on stdout and in --result-file (the Job pod's termination message).
// Exit 2: an error no retry mends (a checksum mismatch, an unsafe or oversized archive); 1: one
// a retry may get past (the network). See runner/data/dataset_stage.h.
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "runner/data/dataset_stage.h"

int main(int argc, char** argv) {
  ergobench::StageOptions options;
  std::string result_file;
  CLI::App app{"ergobench-stage: fetches a data set once into a folder (a Dataset's claim)"};
  app.add_option("--url", options.url, "archive or file to fetch (http, https)")->required();
  app.add_option("--sha256", options.sha256, "its SHA-256, lowercase hex")->required();
  app.add_option("--into", options.into, "folder to stage into; the data lands in <into>/<sha256>/data")->required();
  app.add_option("--verdict-file", options.verdict_file,
                 "where an error no retry mends is kept, for a restarted try to repeat without fetching");
  app.add_option("--result-file", result_file, "where the JSON result (or the error) is also written");
  ergobench::FetchLimits limits = ergobench::FetchLimits::FromEnv();
  std::vector<std::string> allowed;
  app.add_flag("--refuse-internal-networks", limits.refuse_internal_networks,
               "connect to no loopback, link-local or private address (a cluster's own)");
  app.add_option("--allow-network", allowed, "CIDR of internal addresses that may still be fetched from, repeatable");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : ergobench::kStagingExitPermanent;
  }
  for (const std::string& network : allowed) {
    auto parsed = ergobench::ParseCidr(network);
    if (!parsed.ok()) {
      std::cerr << "--allow-network: " << parsed.status().message() << "\n";
      return ergobench::kStagingExitPermanent;
    }
    limits.allowed_networks.push_back(*parsed);
  }
  const ergobench::StageOutcome outcome = ergobench::StageDataset(options, limits);
  (outcome.exit_code == 0 ? std::cout : std::cerr) << outcome.result << "\n";
  if (!result_file.empty()) std::ofstream(result_file) << outcome.result;
  return outcome.exit_code;
}
