// Where a kind lives in the Kubernetes REST API, and the paths and query strings of requests
// against it. Pure functions: tests check every URL the client sends.
#pragma once

#include <optional>
#include <string>

namespace ergobench::kube {

struct ApiResource {
  std::string group;    // "" for the core group
  std::string version;  // "v1"
  std::string plural;   // "pods"
  std::string kind;     // "Pod"
  bool namespaced = true;

  std::string ApiVersion() const { return group.empty() ? version : group + "/" + version; }
};

const ApiResource& Pods();
const ApiResource& Services();
const ApiResource& ConfigMaps();
const ApiResource& Secrets();
const ApiResource& Events();
const ApiResource& Leases();
const ApiResource& Benchmarks();
const ApiResource& Datasets();
const ApiResource& BenchmarkSweeps();
const ApiResource& PersistentVolumeClaims();
const ApiResource& Jobs();
const ApiResource& NetworkPolicies();
const ApiResource& Nodes();

struct ListOptions {
  std::string label_selector;
  std::string field_selector;
  std::string resource_version;
  std::optional<int> timeout_seconds;  // server-side watch timeout
  bool allow_bookmarks = false;
  std::optional<int> limit;
};

// "/api/v1/namespaces/ns/pods/name/status"; an empty namespace addresses all namespaces
// (lists and watches), an empty name the collection.
std::string ResourcePath(const ApiResource& resource, const std::string& namespace_name,
                         const std::string& name = "", const std::string& subresource = "");

// "?labelSelector=a%3Db&watch=true..." (empty when nothing is set).
std::string ListQuery(const ListOptions& options, bool watch);

std::string UrlEncode(const std::string& text);

}  // namespace ergobench::kube
