#include "kube/client/kube_config.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "api/v1alpha1/load.h"
#include "base/yaml_json.h"

namespace ergobench::kube {
namespace {

using nlohmann::json;

// The named entry of a kubeconfig list ("clusters", "users", "contexts").
StatusOr<json> FindNamed(const json& config, const std::string& list, const std::string& name,
                         const std::string& field) {
  if (config.contains(list) && config[list].is_array()) {
    for (const auto& entry : config[list]) {
      if (entry.is_object() && entry.value("name", "") == name && entry.contains(field)) return entry[field];
    }
  }
  return Status::NotFound(list + ": no entry named \"" + name + "\"");
}

std::string Resolve(const std::filesystem::path& base, const std::string& file) {
  const std::filesystem::path path(file);
  return path.is_absolute() ? file : (base / path).string();
}

// "<field>-data" inline (base64) or "<field>" as a file, relative to the kubeconfig.
StatusOr<std::string> InlineOrFile(const json& object, const std::string& field, const std::filesystem::path& base,
                                   const std::string& where) {
  if (object.contains(field + "-data")) {
    auto decoded = DecodeBase64(object[field + "-data"].get<std::string>());
    if (!decoded.ok()) return decoded.status().WithContext(where + "." + field + "-data");
    return decoded;
  }
  if (object.contains(field)) {
    auto text = ReadFile(Resolve(base, object[field].get<std::string>()));
    if (!text.ok()) return text.status().WithContext(where + "." + field);
    return text;
  }
  return std::string();
}

}  // namespace

StatusOr<std::string> DecodeBase64(const std::string& text) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  uint32_t buffer = 0;
  int bits = 0;
  for (char c : text) {
    if (c == '=' || c == '\n' || c == '\r' || c == ' ') continue;
    const char* position = std::char_traits<char>::find(kAlphabet, 64, c);
    if (position == nullptr) return Status::InvalidArgument("not base64: unexpected character '" + std::string(1, c) + "'");
    buffer = (buffer << 6) | static_cast<uint32_t>(position - kAlphabet);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((buffer >> bits) & 0xff);
    }
  }
  return out;
}

StatusOr<KubeConfig> LoadKubeconfig(const std::string& path, const std::string& context_name) {
  ASSIGN_OR_RETURN(const std::string text, ReadFile(path));
  auto documents = ParseYamlDocuments(text, path);
  if (!documents.ok()) return documents.status();
  if (documents->empty() || !(*documents)[0].is_object()) return Status::InvalidArgument(path + ": not a kubeconfig");
  const json& config = (*documents)[0];
  const std::filesystem::path base = std::filesystem::path(path).parent_path();

  const std::string name = context_name.empty() ? config.value("current-context", "") : context_name;
  if (name.empty()) return Status::InvalidArgument(path + ": no current-context, and none was named");
  auto context = FindNamed(config, "contexts", name, "context");
  if (!context.ok()) return context.status().WithContext(path);
  auto cluster = FindNamed(config, "clusters", context->value("cluster", ""), "cluster");
  if (!cluster.ok()) return cluster.status().WithContext(path);
  json user = json::object();
  if (!context->value("user", "").empty()) {
    auto found = FindNamed(config, "users", context->value("user", ""), "user");
    if (!found.ok()) return found.status().WithContext(path);
    user = *found;
  }

  KubeConfig out;
  out.server = cluster->value("server", "");
  if (out.server.empty()) return Status::InvalidArgument(path + ": cluster \"" + context->value("cluster", "") + "\" has no server");
  out.insecure_skip_tls_verify = cluster->value("insecure-skip-tls-verify", false);
  ASSIGN_OR_RETURN(out.ca_pem, InlineOrFile(*cluster, "certificate-authority", base, path + ": cluster"));
  ASSIGN_OR_RETURN(out.client_cert_pem, InlineOrFile(user, "client-certificate", base, path + ": user"));
  ASSIGN_OR_RETURN(out.client_key_pem, InlineOrFile(user, "client-key", base, path + ": user"));
  out.token = user.value("token", "");
  if (user.contains("tokenFile")) out.token_file = Resolve(base, user["tokenFile"].get<std::string>());
  if (!context->value("namespace", "").empty()) out.namespace_name = context->value("namespace", "");
  if (out.client_cert_pem.empty() != out.client_key_pem.empty()) {
    return Status::InvalidArgument(path + ": user has a client certificate without its key, or a key without its certificate");
  }
  return out;
}

StatusOr<KubeConfig> InClusterConfig(const std::map<std::string, std::string>& env, const std::string& secrets_dir) {
  const auto host = env.find("KUBERNETES_SERVICE_HOST");
  const auto port = env.find("KUBERNETES_SERVICE_PORT");
  if (host == env.end() || port == env.end()) {
    return Status::FailedPrecondition("not in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are unset");
  }
  KubeConfig out;
  const bool ipv6 = host->second.find(':') != std::string::npos;
  out.server = "https://" + (ipv6 ? "[" + host->second + "]" : host->second) + ":" + port->second;
  out.token_file = secrets_dir + "/token";
  ASSIGN_OR_RETURN(out.ca_pem, ReadFile(secrets_dir + "/ca.crt"));
  if (access(out.token_file.c_str(), R_OK) != 0) return Status::NotFound(out.token_file + ": no service-account token");
  auto namespace_name = ReadFile(secrets_dir + "/namespace");
  if (namespace_name.ok() && !namespace_name->empty()) out.namespace_name = *namespace_name;
  return out;
}

StatusOr<KubeConfig> ResolveKubeConfig(const std::string& explicit_path, const std::string& context) {
  if (!explicit_path.empty()) return LoadKubeconfig(explicit_path, context);
  if (const char* env = std::getenv("KUBECONFIG"); env != nullptr && *env != '\0') {
    std::string first(env);
    first = first.substr(0, first.find(':'));  // client-go merges a list; the first file is enough here
    return LoadKubeconfig(first, context);
  }
  if (std::getenv("KUBERNETES_SERVICE_HOST") != nullptr) {
    std::map<std::string, std::string> env = {{"KUBERNETES_SERVICE_HOST", std::getenv("KUBERNETES_SERVICE_HOST")}};
    if (const char* port = std::getenv("KUBERNETES_SERVICE_PORT")) env["KUBERNETES_SERVICE_PORT"] = port;
    return InClusterConfig(env);
  }
  const char* home = std::getenv("HOME");
  const std::string path = std::string(home ? home : "") + "/.kube/config";
  if (!std::filesystem::exists(path)) {
    return Status::FailedPrecondition("no Kubernetes configuration: pass --kubeconfig, set KUBECONFIG, or run in a pod");
  }
  return LoadKubeconfig(path, context);
}

}  // namespace ergobench::kube
