// Where the API server is and how to prove who we are: from a kubeconfig file (its current
// or a named context; CA, client certificate, bearer token or token file, inline or as
// files relative to the kubeconfig) or from inside a pod (the service-account token, re-read
// when the kubelet rotates it, and the cluster CA).
#pragma once

#include <map>
#include <string>

#include "base/status.h"

namespace ergobench::kube {

struct KubeConfig {
  std::string server;  // "https://127.0.0.1:6443"
  std::string ca_pem;  // empty: the system's trust store
  bool insecure_skip_tls_verify = false;  // only when the kubeconfig asks for it
  std::string client_cert_pem;
  std::string client_key_pem;
  std::string token;       // a fixed bearer token
  std::string token_file;  // a bearer token re-read on change (service accounts)
  std::string namespace_name = "default";  // the context's namespace
};

// `context` empty: current-context.
StatusOr<KubeConfig> LoadKubeconfig(const std::string& path, const std::string& context = "");

// KUBERNETES_SERVICE_HOST/PORT from `env`, token, ca.crt and namespace from `secrets_dir`.
StatusOr<KubeConfig> InClusterConfig(const std::map<std::string, std::string>& env,
                                     const std::string& secrets_dir = "/var/run/secrets/kubernetes.io/serviceaccount");

// As client-go: an explicit path, else $KUBECONFIG, else in-cluster when running in a pod,
// else ~/.kube/config.
StatusOr<KubeConfig> ResolveKubeConfig(const std::string& explicit_path, const std::string& context = "");

StatusOr<std::string> DecodeBase64(const std::string& text);

}  // namespace ergobench::kube
