#include "operator/controller/benchmark/results_config_map.h"

#include <algorithm>

#include "api/v1alpha1/benchmark_codec.h"
#include "base/units.h"
#include "operator/controller/benchmark/builders.h"

namespace ergobench::controller {
namespace {

using nlohmann::json;

struct Entry {
  std::string name;
  std::string content;
  int priority = 0;  // 0: rank results, 1: rank 0's artifacts
};

std::string ManifestLine(const std::string& state, const std::string& name, const std::string& bytes,
                         const std::string& reason = "") {
  return state + "\t" + name + "\t" + bytes + (reason.empty() ? "" : "\t" + reason) + "\n";
}

std::vector<Entry> RankEntries(const std::vector<RankResult>& ranks) {
  std::vector<Entry> entries;
  for (const RankResult& r : ranks) {
    const std::string base = "rank-" + std::to_string(r.rank);
    entries.push_back({base + ".json", RankResultJson(r), 0});
    if (!r.summary.empty()) entries.push_back({base + ".summary", r.summary + "\n", 0});
  }
  return entries;
}

}  // namespace

std::string ResultsConfigMapName(const Benchmark& benchmark) { return benchmark.metadata.name + kResultsConfigMapSuffix; }

json BuildResultsConfigMap(const Benchmark& finished, const std::vector<RankResult>& ranks,
                           const CollectedArtifacts& artifacts, int64_t budget) {
  json data = json::object();
  data["benchmark.json"] = EncodeBenchmark(finished).dump(2) + "\n";
  std::string manifest = "# ergobench results of " + finished.metadata.namespace_name + "/" + finished.metadata.name +
                         " (uid " + finished.metadata.uid + "): " + finished.status.phase + "\n";
  std::vector<Entry> entries = RankEntries(ranks);
  if (artifacts.bundle) {
    for (const auto& [name, content] : artifacts.bundle->files) {
      // Clang before 16 cannot capture a structured binding.
      const auto taken = [&file = name](const Entry& e) { return e.name == file; };
      if (data.contains(name) || std::any_of(entries.begin(), entries.end(), taken)) {
        manifest += ManifestLine("left-out", name, std::to_string(content.size()), "rank 0's file has a name the operator writes");
        continue;
      }
      entries.push_back({name, content, 1});
    }
    for (const SkippedFile& s : artifacts.bundle->skipped) {
      manifest += ManifestLine("left-out", s.name, std::to_string(s.bytes), "rank 0 left it out: " + s.reason);
    }
  } else {
    manifest += ManifestLine("left-out", "rank 0's files", "-", artifacts.missing_reason);
  }
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return a.priority != b.priority ? a.priority < b.priority : a.content.size() < b.content.size();
  });
  const std::string over = "over the results ConfigMap's budget of " + FormatBytes(static_cast<double>(budget));
  // Room for MANIFEST as if every entry were left out, the longer line.
  int64_t used = static_cast<int64_t>(std::string("benchmark.json").size() + data["benchmark.json"].get<std::string>().size() +
                                      manifest.size() + 64);
  for (const Entry& e : entries) used += static_cast<int64_t>(ManifestLine("left-out", e.name, "0000000000", over).size());
  for (const Entry& e : entries) {
    const int64_t size = static_cast<int64_t>(e.name.size() + e.content.size());
    if (used + size > budget) {
      manifest += ManifestLine("left-out", e.name, std::to_string(e.content.size()), over);
      continue;
    }
    used += size;
    data[e.name] = e.content;
    manifest += ManifestLine("kept", e.name, std::to_string(e.content.size()));
  }
  data[kResultsManifestKey] = manifest;

  json metadata = ChildMetadata(finished, ResultsConfigMapName(finished));
  metadata["annotations"] = {{kResultsOfUidAnnotation, finished.metadata.uid}};
  if (finished.spec.run_policy.keep_results) metadata.erase("ownerReferences");
  return {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", metadata}, {"data", data}};
}

}  // namespace ergobench::controller
