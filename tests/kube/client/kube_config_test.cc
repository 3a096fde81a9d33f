#include "kube/client/kube_config.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace ergobench::kube {
namespace {

namespace fs = std::filesystem;

class KubeConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("kubeconfig-test-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return (dir_ / name).string();
  }
  fs::path dir_;
};

TEST_F(KubeConfigTest, CurrentContextWithInlineData) {
  // "Q0EgUEVN" is base64 of "CA PEM"; "Y2VydA==" of "cert"; "a2V5" of "key".
  const std::string path = Write("config", R"(
apiVersion: v1
kind: Config
current-context: dev
clusters:
- name: c
  cluster: {server: "https://10.0.0.1:6443", certificate-authority-data: Q0EgUEVN}
users:
- name: u
  user: {client-certificate-data: Y2VydA==, client-key-data: a2V5}
contexts:
- name: other
  context: {cluster: c, user: u}
- name: dev
  context: {cluster: c, user: u, namespace: team-a}
)");
  auto config = LoadKubeconfig(path);
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(config->server, "https://10.0.0.1:6443");
  EXPECT_EQ(config->ca_pem, "CA PEM");
  EXPECT_EQ(config->client_cert_pem, "cert");
  EXPECT_EQ(config->client_key_pem, "key");
  EXPECT_EQ(config->namespace_name, "team-a");
  EXPECT_FALSE(config->insecure_skip_tls_verify);
  auto other = LoadKubeconfig(path, "other");
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(other->namespace_name, "default");
}

TEST_F(KubeConfigTest, FilesRelativeToTheKubeconfigAndTokens) {
  Write("ca.crt", "the CA");
  const std::string path = Write("config", R"(
current-context: t
clusters: [{name: c, cluster: {server: "https://h:1", certificate-authority: ca.crt}}]
users: [{name: u, user: {token: abc, tokenFile: token}}]
contexts: [{name: t, context: {cluster: c, user: u}}]
)");
  auto config = LoadKubeconfig(path);
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(config->ca_pem, "the CA");
  EXPECT_EQ(config->token, "abc");
  EXPECT_EQ(config->token_file, (dir_ / "token").string());
}

TEST_F(KubeConfigTest, ErrorsNameWhatIsMissing) {
  const std::string no_context = Write("a", "clusters: []\n");
  EXPECT_NE(LoadKubeconfig(no_context).status().message().find("no current-context"), std::string::npos);
  const std::string dangling = Write("b", "current-context: x\ncontexts: [{name: x, context: {cluster: gone}}]\n");
  EXPECT_NE(LoadKubeconfig(dangling).status().message().find("clusters: no entry named \"gone\""), std::string::npos);
  const std::string missing_ca = Write("c", R"(
current-context: t
clusters: [{name: c, cluster: {server: "https://h:1", certificate-authority: nowhere.crt}}]
contexts: [{name: t, context: {cluster: c}}]
)");
  EXPECT_NE(LoadKubeconfig(missing_ca).status().message().find("nowhere.crt"), std::string::npos);
  const std::string half_cert = Write("d", R"(
current-context: t
clusters: [{name: c, cluster: {server: "https://h:1"}}]
users: [{name: u, user: {client-certificate-data: Y2VydA==}}]
contexts: [{name: t, context: {cluster: c, user: u}}]
)");
  EXPECT_NE(LoadKubeconfig(half_cert).status().message().find("without its key"), std::string::npos);
}

TEST_F(KubeConfigTest, InCluster) {
  Write("token", "t0\n");
  Write("ca.crt", "cluster CA");
  Write("namespace", "ergobench-system");
  auto config = InClusterConfig({{"KUBERNETES_SERVICE_HOST", "10.96.0.1"}, {"KUBERNETES_SERVICE_PORT", "443"}},
                                dir_.string());
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(config->server, "https://10.96.0.1:443");
  EXPECT_EQ(config->ca_pem, "cluster CA");
  EXPECT_EQ(config->token_file, (dir_ / "token").string());
  EXPECT_EQ(config->namespace_name, "ergobench-system");
  auto v6 = InClusterConfig({{"KUBERNETES_SERVICE_HOST", "fd00::1"}, {"KUBERNETES_SERVICE_PORT", "443"}}, dir_.string());
  EXPECT_EQ(v6->server, "https://[fd00::1]:443");
  EXPECT_EQ(InClusterConfig({}, dir_.string()).status().code(), StatusCode::kFailedPrecondition);
}

TEST(DecodeBase64, DecodesAndRejects) {
  EXPECT_EQ(*DecodeBase64("aGVsbG8gd29ybGQ="), "hello world");
  EXPECT_EQ(*DecodeBase64("aGVs\nbG8="), "hello");
  EXPECT_FALSE(DecodeBase64("a*b").ok());
}

}  // namespace
}  // namespace ergobench::kube
