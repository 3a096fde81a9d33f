#include "kube/client/resource.h"

#include <cctype>
#include <cstdio>

namespace ergobench::kube {

const ApiResource& Pods() {
  static const ApiResource r{"", "v1", "pods", "Pod", true};
  return r;
}
const ApiResource& Services() {
  static const ApiResource r{"", "v1", "services", "Service", true};
  return r;
}
const ApiResource& ConfigMaps() {
  static const ApiResource r{"", "v1", "configmaps", "ConfigMap", true};
  return r;
}
const ApiResource& Nodes() {
  static const ApiResource r{"", "v1", "nodes", "Node", false};
  return r;
}
const ApiResource& Secrets() {
  static const ApiResource r{"", "v1", "secrets", "Secret", true};
  return r;
}
const ApiResource& Events() {
  static const ApiResource r{"", "v1", "events", "Event", true};
  return r;
}
const ApiResource& Leases() {
  static const ApiResource r{"coordination.k8s.io", "v1", "leases", "Lease", true};
  return r;
}
const ApiResource& Benchmarks() {
  static const ApiResource r{"ergobench.io", "v1alpha1", "benchmarks", "Benchmark", true};
  return r;
}
const ApiResource& Datasets() {
  static const ApiResource r{"ergobench.io", "v1alpha1", "datasets", "Dataset", true};
  return r;
}
const ApiResource& BenchmarkSweeps() {
  static const ApiResource r{"ergobench.io", "v1alpha1", "benchmarksweeps", "BenchmarkSweep", true};
  return r;
}
const ApiResource& PersistentVolumeClaims() {
  static const ApiResource r{"", "v1", "persistentvolumeclaims", "PersistentVolumeClaim", true};
  return r;
}
const ApiResource& Jobs() {
  static const ApiResource r{"batch", "v1", "jobs", "Job", true};
  return r;
}

const ApiResource& NetworkPolicies() {
  static const ApiResource r{"networking.k8s.io", "v1", "networkpolicies", "NetworkPolicy", true};
  return r;
}

std::string ResourcePath(const ApiResource& resource, const std::string& namespace_name, const std::string& name,
                         const std::string& subresource) {
  std::string path = resource.group.empty() ? "/api/" + resource.version
                                            : "/apis/" + resource.group + "/" + resource.version;
  if (resource.namespaced && !namespace_name.empty()) path += "/namespaces/" + namespace_name;
  path += "/" + resource.plural;
  if (!name.empty()) path += "/" + name;
  if (!subresource.empty()) path += "/" + subresource;
  return path;
}

std::string UrlEncode(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", c);
      out += buf;
    }
  }
  return out;
}

std::string ListQuery(const ListOptions& options, bool watch) {
  std::string query;
  auto add = [&query](const std::string& key, const std::string& value) {
    query += query.empty() ? "?" : "&";
    query += key + "=" + UrlEncode(value);
  };
  if (!options.label_selector.empty()) add("labelSelector", options.label_selector);
  if (!options.field_selector.empty()) add("fieldSelector", options.field_selector);
  if (!options.resource_version.empty()) add("resourceVersion", options.resource_version);
  if (options.limit) add("limit", std::to_string(*options.limit));
  if (watch) {
    add("watch", "true");
    if (options.allow_bookmarks) add("allowWatchBookmarks", "true");
  }
  if (options.timeout_seconds) add("timeoutSeconds", std::to_string(*options.timeout_seconds));
  return query;
}

}  // namespace ergobench::kube
