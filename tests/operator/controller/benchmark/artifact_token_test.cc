#include "operator/controller/benchmark/artifact_token.h"

#include <gtest/gtest.h>
#include <openssl/evp.h>

#include "tests/testing/fake_transport.h"

namespace ergobench::controller {
namespace {

using nlohmann::json;
using testing::FakeTransport;
using testing::Json;

const std::string kKeyA(64, 'a');
constexpr char kUid[] = "1f0e5a3c-2b4d-4c6e-8a9b-0c1d2e3f4a5b";

Benchmark Owner() {
  Benchmark b;
  b.metadata.name = "fmnist-k2";
  b.metadata.namespace_name = "team-a";
  b.metadata.uid = kUid;
  return b;
}

json KeySecret(const std::string& key_base64) {
  return {{"kind", "Secret"}, {"metadata", {{"name", "ergobench-artifact-key"}}}, {"data", {{"key", key_base64}}}};
}

TEST(ArtifactTokenTest, IsTheHmacSha256OfTheUidUnderTheKey) {
  // Ground truth from OpenSSL's command line, not from the code under test:
  //   printf 'ergobench artifacts\n<uid>' | openssl dgst -sha256 -hmac <64 a>   (and <64 b>)
  EXPECT_EQ(ArtifactToken(kKeyA, kUid), "864bc4bdc8a07359205c08be6079a0f8be4d18af200e4e9cd5096ed17d33a2ce");
  EXPECT_EQ(ArtifactToken(std::string(64, 'b'), kUid),
            "6c1c27d9a929b6cbdf540bb9bc0cac5628e262ad486c815c2589448e694422a3");
  EXPECT_NE(ArtifactToken(kKeyA, "another-uid"), ArtifactToken(kKeyA, kUid));
}

TEST(ArtifactTokenTest, TheSecretHoldsTheUidInItsNameAndIsTheBenchmarksAndImmutable) {
  const json secret = BuildArtifactTokenSecret(Owner(), "t0ken");
  EXPECT_EQ(ArtifactTokenSecretName(Owner()), std::string("fmnist-k2-artifacts-") + kUid);
  EXPECT_EQ(secret["metadata"]["name"], ArtifactTokenSecretName(Owner()));
  EXPECT_EQ(secret["metadata"]["namespace"], "team-a");
  EXPECT_EQ(secret["metadata"]["ownerReferences"][0]["uid"], kUid);
  EXPECT_EQ(secret["metadata"]["ownerReferences"][0]["controller"], true);
  EXPECT_EQ(secret["immutable"], true);
  EXPECT_EQ(secret["stringData"], (json{{"token", "t0ken"}}));
}

class ArtifactKeySourceTest : public ::testing::Test {
 protected:
  ArtifactKeySourceTest() : client_(&transport_), source_(&client_, "ergobench-system", "ergobench-artifact-key") {}
  std::string Paths() const {
    std::string paths;
    for (const auto& r : transport_.requests) paths += r.method + " " + r.path + "\n";
    return paths;
  }
  FakeTransport transport_;
  kube::KubeClient client_;
  ArtifactKeySource source_;
};

constexpr char kKeyPath[] = "/api/v1/namespaces/ergobench-system/secrets/ergobench-artifact-key";
constexpr char kSecretsPath[] = "/api/v1/namespaces/ergobench-system/secrets";
const std::string kNotFound = R"({"kind":"Status","code":404,"reason":"NotFound","message":"not found"})";
const std::string kExists = R"({"kind":"Status","code":409,"reason":"AlreadyExists","message":"exists"})";

// What the API server answers for stringData: data, in base64.
std::string Base64(const std::string& text) {
  std::string out(4 * ((text.size() + 2) / 3) + 1, '\0');
  const int size = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                   reinterpret_cast<const unsigned char*>(text.data()), static_cast<int>(text.size()));
  out.resize(static_cast<size_t>(size));
  return out;
}

TEST_F(ArtifactKeySourceTest, AnExistingKeyIsReadOnceAndKept) {
  transport_.responses.push_back(Json(200, KeySecret(Base64(kKeyA)).dump()));
  EXPECT_EQ(*source_.Key(), kKeyA);
  EXPECT_EQ(*source_.TokenFor(kUid), "864bc4bdc8a07359205c08be6079a0f8be4d18af200e4e9cd5096ed17d33a2ce");
  EXPECT_EQ(Paths(), std::string("GET ") + kKeyPath + "\n");
}

TEST_F(ArtifactKeySourceTest, AMissingKeyIsMadeFromTheSystemsRandomness) {
  transport_.responses.push_back(Json(404, kNotFound));
  transport_.handler = [](const kube::HttpRequest& request) {
    // The API server answers a create with the object as stored: data, in base64.
    json secret = json::parse(request.body);
    const std::string key = secret["stringData"]["key"];
    return StatusOr<kube::HttpResponse>(Json(201, KeySecret(Base64(key)).dump()));
  };
  const StatusOr<std::string> key = source_.Key();
  ASSERT_TRUE(key.ok()) << key.status().ToString();
  EXPECT_EQ(key->size(), 64u);
  EXPECT_EQ(key->find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(Paths(), std::string("GET ") + kKeyPath + "\nPOST " + kSecretsPath + "\n");
  const json sent = json::parse(transport_.requests[1].body);
  EXPECT_EQ(sent["metadata"]["name"], "ergobench-artifact-key");
  EXPECT_EQ(sent["immutable"], true);

  // Another source (another replica, or this one restarted) makes a key of its own.
  FakeTransport other_transport;
  kube::KubeClient other_client(&other_transport);
  ArtifactKeySource other(&other_client, "ergobench-system", "ergobench-artifact-key");
  other_transport.responses.push_back(Json(404, kNotFound));
  other_transport.handler = transport_.handler;
  EXPECT_NE(*other.Key(), *key) << "two keys from the randomness are not the same";
}

TEST_F(ArtifactKeySourceTest, WhenAnotherReplicaMadeItFirstItsKeyIsRead) {
  transport_.responses.push_back(Json(404, kNotFound));
  transport_.responses.push_back(Json(409, kExists));
  transport_.responses.push_back(Json(200, KeySecret(Base64(kKeyA)).dump()));
  EXPECT_EQ(*source_.Key(), kKeyA);
  EXPECT_EQ(Paths(), std::string("GET ") + kKeyPath + "\nPOST " + kSecretsPath + "\nGET " + kKeyPath + "\n");
}

TEST_F(ArtifactKeySourceTest, AnUnreachableServerOrABadKeyIsAnErrorAndTheNextCallTriesAgain) {
  transport_.responses.push_back(Status::Unavailable("connection refused"));
  transport_.responses.push_back(Json(200, KeySecret(Base64("short")).dump()));
  transport_.responses.push_back(Json(200, KeySecret("not base64!").dump()));
  transport_.responses.push_back(Json(200, R"({"kind":"Secret","data":{}})"));
  transport_.responses.push_back(Json(200, KeySecret(Base64(std::string(64, 'A'))).dump()));
  transport_.responses.push_back(Json(200, KeySecret(Base64(kKeyA)).dump()));
  const std::string where = "the artifact key Secret ergobench-system/ergobench-artifact-key";
  EXPECT_EQ(source_.Key().status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(source_.TokenFor(kUid).status().message(), where + ": data.key is not 64 lowercase hex digits");
  EXPECT_EQ(source_.Key().status().message(), where + ": data.key is not 64 lowercase hex digits");
  EXPECT_EQ(source_.Key().status().message(), where + " has no data.key");
  EXPECT_EQ(source_.Key().status().message(), where + ": data.key is not 64 lowercase hex digits");
  EXPECT_EQ(*source_.Key(), kKeyA);
}

}  // namespace
}  // namespace ergobench::controller
