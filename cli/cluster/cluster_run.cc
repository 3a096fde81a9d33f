#include "cli/cluster/cluster_run.h"

#include <chrono>
#include <csignal>
#include <iostream>
#include <thread>

#include "api/v1alpha1/benchmark_phase.h"
#include "api/v1alpha1/dataset.h"
#include "api/v1alpha1/load.h"
#include "api/v1alpha1/sweep.h"
#include "base/yaml_json.h"
#include "cli/exit_codes.h"
#include "cli/output_format.h"
#include "kube/client/api_error.h"
#include "kube/client/cpprest_transport.h"
#include "kube/client/kube_config.h"

namespace ergobench {
namespace {

using nlohmann::json;

// One object this run created, and what it last read of it.
struct Created {
  const kube::ApiResource* resource = nullptr;
  std::string kind;
  std::string ns;
  std::string name;
  bool followed = false;  // Benchmarks and BenchmarkSweeps, until they end
  bool ended = false;
  json last;
  std::string shown;  // the progress line printed last
};

const kube::ApiResource* ResourceOf(const std::string& kind) {
  if (kind == "Benchmark") return &kube::Benchmarks();
  if (kind == kSweepKind) return &kube::BenchmarkSweeps();
  if (kind == kDatasetKind) return &kube::Datasets();
  return nullptr;
}

std::string Text(const json& object, const json::json_pointer& at) {
  return object.contains(at) && object[at].is_string() ? object[at].get<std::string>() : "";
}

const json* ConditionOf(const json& object, const std::string& type) {
  static const json::json_pointer kConditions("/status/conditions");
  if (!object.contains(kConditions) || !object[kConditions].is_array()) return nullptr;
  for (const json& condition : object[kConditions]) {
    if (condition.is_object() && condition.value("type", "") == type) return &condition;
  }
  return nullptr;
}

bool IsTrue(const json* condition) { return condition != nullptr && condition->value("status", "") == "True"; }

// Every document of every file, checked as `ergobench run` checks them: nothing is created
// unless all are valid.
StatusOr<std::vector<json>> ReadDocuments(const std::vector<std::string>& files) {
  std::vector<json> documents;
  for (const std::string& file : files) {
    std::string text;
    if (file == "-") {
      text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    } else {
      ASSIGN_OR_RETURN(text, ReadFile(file));
    }
    const std::string source = file == "-" ? "<stdin>" : file;
    RETURN_IF_ERROR(LoadDocuments(text, source).status());
    ASSIGN_OR_RETURN(std::vector<json> parsed, ParseYamlDocuments(text, source));
    for (json& document : parsed) {
      if (!document.is_null()) documents.push_back(std::move(document));
    }
  }
  return documents;
}

void RemoveCreated(kube::KubeClient& client, const std::vector<Created>& created) {
  for (const Created& c : created) {
    const auto deleted = client.Delete(*c.resource, c.ns, c.name, kube::DeleteOptions());
    if (!deleted.ok() && !kube::IsNotFound(deleted.status())) {
      std::cerr << "ergobench: could not delete " << c.kind << " " << c.ns << "/" << c.name << ": "
                << deleted.status().message() << "\n";
    }
  }
}

// Creates each document in its namespace. On an error, says which and returns its exit code.
int CreateAll(kube::KubeClient& client, const std::vector<json>& documents, const std::string& default_namespace,
              std::vector<Created>* created) {
  for (json object : documents) {
    Created c;
    c.kind = object.value("kind", "");
    c.resource = ResourceOf(c.kind);
    if (c.resource == nullptr) continue;  // LoadDocuments admits no other kind
    c.name = Text(object, json::json_pointer("/metadata/name"));
    c.ns = Text(object, json::json_pointer("/metadata/namespace"));
    if (c.ns.empty()) c.ns = default_namespace;
    object["metadata"]["namespace"] = c.ns;
    c.followed = c.kind != kDatasetKind;
    const auto made = client.Create(*c.resource, c.ns, object);
    const std::string what = c.kind + " " + c.ns + "/" + c.name;
    if (kube::IsAlreadyExists(made.status())) {
      std::cerr << "ergobench: " << what << " already exists: delete it (kubectl -n " << c.ns << " delete "
                << c.resource->plural << " " << c.name << ") or give this one another metadata.name\n";
      return kExitBadInput;
    }
    if (kube::IsInvalid(made.status())) {
      std::cerr << "ergobench: the API server refused " << what << ": " << made.status().message() << "\n";
      return kExitBadInput;
    }
    if (!made.ok()) {
      std::cerr << "ergobench: cannot create " << what << ": " << made.status().message() << "\n";
      return kExitCluster;
    }
    std::cerr << what << " created\n";
    created->push_back(std::move(c));
  }
  return kExitOk;
}

// Reads each followed object until it ends; kExitOk, or the code to stop with.
int Follow(const ClusterRunOptions& options, kube::KubeClient& client, const ClusterRunClock& clock,
           std::vector<Created>* created, bool* timed_out) {
  const double start = clock.seconds();
  while (true) {
    bool all_ended = true;
    for (Created& c : *created) {
      if (!c.followed || c.ended) continue;
      const auto read = client.Get(*c.resource, c.ns, c.name);
      if (kube::IsNotFound(read.status())) {
        std::cerr << c.name << ": deleted before it ended\n";
        c.ended = true;
        continue;
      }
      if (!read.ok()) {
        std::cerr << "ergobench: cannot read " << c.kind << " " << c.ns << "/" << c.name << ": "
                  << read.status().message() << "\n";
        return kExitCluster;
      }
      c.last = *read;
      c.ended = IsFinished(Text(c.last, json::json_pointer("/status/phase")));
      all_ended = all_ended && c.ended;
      const std::string line = ClusterProgressLine(c.last);
      if (!options.quiet && line != c.shown) std::cerr << line << "\n";
      c.shown = line;
    }
    if (all_ended) return kExitOk;
    if (clock.interrupted()) return kExitInterrupted;
    if (options.timeout_seconds > 0 && clock.seconds() - start >= options.timeout_seconds) {
      *timed_out = true;
      std::cerr << "ergobench: not ended within --timeout " << options.timeout_seconds << " s\n";
      return kExitOk;
    }
    clock.sleep(options.poll_seconds);
  }
}

// The outcome of the followed objects, printed as `output` says; the exit code it comes to.
int Report(const ClusterRunOptions& options, const std::vector<Created>& created, bool timed_out) {
  bool failed = timed_out, regressed = false;
  std::vector<json> ended;
  for (const Created& c : created) {
    if (!c.followed) continue;
    const std::string phase = Text(c.last, json::json_pointer("/status/phase"));
    failed = failed || phase != kPhaseSucceeded;
    regressed = regressed || IsTrue(ConditionOf(c.last, "Regressed"));
    if (c.last.is_null()) continue;
    if (options.output == "text") std::cout << ClusterOutcomeLine(c.last) << "\n";
    ended.push_back(c.last);
  }
  if (options.output != "text") std::cout << *FormatDocuments(ended, options.output);
  std::cout << std::flush;
  return failed ? kExitFailed : regressed ? kExitRegressed : kExitOk;
}

}  // namespace

std::string ClusterProgressLine(const json& object) {
  const std::string name = Text(object, json::json_pointer("/metadata/name"));
  std::string phase = Text(object, json::json_pointer("/status/phase"));
  if (phase.empty()) phase = kPhasePending;
  if (object.value("kind", "") == kSweepKind) {
    const std::string points = Text(object, json::json_pointer("/status/progress"));
    return name + " · " + phase + (points.empty() ? "" : " · " + points + " points");
  }
  const std::string progress = Text(object, json::json_pointer("/status/display/progress"));
  return name + " · " + phase + (progress.empty() ? "" : " · " + progress);
}

std::string ClusterOutcomeLine(const json& object) {
  const std::string name = Text(object, json::json_pointer("/metadata/name"));
  const std::string phase = Text(object, json::json_pointer("/status/phase"));
  std::string line = name + ": " + (phase.empty() ? std::string(kPhasePending) : phase);
  if (phase == kPhaseFailed) {
    if (const json* failed = ConditionOf(object, "Failed")) {
      line += " (" + failed->value("reason", "") + ": " + failed->value("message", "") + ")";
    }
    return line;
  }
  if (object.value("kind", "") == kSweepKind) {
    const std::string best = Text(object, json::json_pointer("/status/best"));
    return line + " · " + Text(object, json::json_pointer("/status/progress")) + " points" +
           (best.empty() ? "" : " · best " + best);
  }
  for (const auto& [field, label] : {std::pair{"throughput", ""}, std::pair{"timeToAccuracy", "TTA "},
                                     std::pair{"energy", ""}, std::pair{"cost", ""}}) {
    const std::string value = Text(object, json::json_pointer(std::string("/status/display/") + field));
    if (!value.empty()) line += std::string(" · ") + label + value;
  }
  if (const json* regressed = ConditionOf(object, "Regressed"); IsTrue(regressed)) {
    line += " · regressed: " + regressed->value("message", "");
  }
  return line;
}

int RunOnCluster(const ClusterRunOptions& options, kube::KubeClient& client, const std::string& default_namespace,
                 const ClusterRunClock& clock) {
  StatusOr<std::vector<json>> documents = ReadDocuments(options.files);
  if (!documents.ok()) {
    std::cerr << "ergobench: " << documents.status().message() << "\n";
    return kExitBadInput;
  }
  std::vector<Created> created;
  if (const int code = CreateAll(client, *documents, default_namespace, &created); code != kExitOk) {
    if (options.remove) RemoveCreated(client, created);
    return code;
  }
  bool timed_out = false;
  const int stopped = Follow(options, client, clock, &created, &timed_out);
  const int code = stopped != kExitOk ? stopped : Report(options, created, timed_out);
  if (options.remove) RemoveCreated(client, created);
  return code;
}

namespace {
volatile std::sig_atomic_t g_cluster_interrupted = 0;
extern "C" void OnClusterInterrupt(int) { g_cluster_interrupted = 1; }
}  // namespace

int RunOnCluster(const ClusterRunOptions& options) {
  auto config = kube::ResolveKubeConfig(options.kubeconfig);
  if (!config.ok()) {
    std::cerr << "ergobench: " << config.status().message() << "\n";
    return kExitCluster;
  }
  auto transport = kube::NewCpprestTransport(*config);
  if (!transport.ok()) {
    std::cerr << "ergobench: " << transport.status().message() << "\n";
    return kExitCluster;
  }
  kube::KubeClient client(transport->get());
  std::signal(SIGINT, OnClusterInterrupt);
  std::signal(SIGTERM, OnClusterInterrupt);
  const auto start = std::chrono::steady_clock::now();
  const ClusterRunClock clock{
      [start] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); },
      [](double seconds) {
        // In slices, so that Ctrl-C is answered within a tenth of a second.
        for (double left = seconds; left > 0 && g_cluster_interrupted == 0; left -= 0.1) {
          std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
      },
      [] { return g_cluster_interrupted != 0; }};
  return RunOnCluster(options, client, options.namespace_name.empty() ? config->namespace_name : options.namespace_name,
                      clock);
}

}  // namespace ergobench
