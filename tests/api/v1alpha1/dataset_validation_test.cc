#include "api/v1alpha1/dataset_validation.h"

#include <gtest/gtest.h>

#include "api/v1alpha1/dataset_codec.h"
#include "base/yaml_json.h"

namespace ergobench {
namespace {

using nlohmann::json;

Dataset DecodeYaml(const std::string& yaml, FieldErrors* errors) {
  auto documents = ParseYamlDocuments(yaml, "test");
  EXPECT_TRUE(documents.ok()) << documents.status().ToString();
  return DecodeDataset((*documents)[0], errors);
}

std::string Errors(const std::string& yaml) {
  FieldErrors errors;
  const Dataset dataset = DecodeYaml(yaml, &errors);
  errors.Append(ValidateDataset(dataset));
  return errors.ToString();
}

constexpr char kHead[] = "apiVersion: ergobench.io/v1alpha1\nkind: Dataset\nmetadata: {name: cifar10}\n";
const std::string kSha(64, 'a');

TEST(DatasetValidationTest, AUrlWithItsSumAndStorageIsValidAndRoundTrips) {
  const std::string yaml = std::string(kHead) + "spec:\n  source: {url: 'https://x.example/c.tgz', sha256: " + kSha +
                           "}\n  storage: {size: 1Gi, storageClassName: fast, accessModes: [ReadWriteMany]}\n";
  EXPECT_EQ(Errors(yaml), "");
  FieldErrors errors;
  const Dataset dataset = DecodeYaml(yaml, &errors);
  EXPECT_EQ(dataset.spec.storage.access_modes, std::vector<std::string>{"ReadWriteMany"});
  EXPECT_EQ(EncodeDataset(dataset)["spec"],
            json::parse(R"({"source": {"url": "https://x.example/c.tgz", "sha256": ")" + kSha +
                        R"("}, "storage": {"size": "1Gi", "storageClassName": "fast", "accessModes": ["ReadWriteMany"]}})"));
  EXPECT_EQ(StagedDataPath(dataset.spec.source), kSha + "/data");
}

TEST(DatasetValidationTest, AnExistingClaimNeedsNoStorage) {
  EXPECT_EQ(Errors(std::string(kHead) + "spec: {source: {persistentVolumeClaim: {claimName: nfs-cifar, path: cifar}}}\n"),
            "");
  EXPECT_EQ(Errors(std::string(kHead) +
                   "spec: {source: {persistentVolumeClaim: {claimName: c}}, storage: {size: 1Gi}}\n"),
            "spec.storage: has no effect with an existing persistentVolumeClaim; leave it out");
  EXPECT_EQ(Errors(std::string(kHead) + "spec: {source: {persistentVolumeClaim: {claimName: c, path: ../etc}}}\n"),
            "spec.source.persistentVolumeClaim.path: must stay inside the volume (no \"..\"), got \"../etc\"");
}

TEST(DatasetValidationTest, EachMistakeIsNamedByItsField) {
  EXPECT_EQ(Errors(std::string(kHead) + "spec: {source: {}}\n"),
            "spec.source: is required: a url (with sha256) or a persistentVolumeClaim");
  EXPECT_EQ(Errors(std::string(kHead) + "spec: {source: {url: 'file:///etc/passwd', sha256: " + kSha +
                   "}, storage: {size: 1Gi}}\n"),
            "spec.source.url: must be an http:// or https:// URL, got \"file:///etc/passwd\"");
  EXPECT_EQ(Errors(std::string(kHead) + "spec: {source: {url: 'http://x/c.tgz', sha256: abc}, storage: {size: 1Gi}}\n"),
            "spec.source.sha256: must be 64 lowercase hex digits (the archive's SHA-256), got \"abc\"");
  EXPECT_EQ(Errors(std::string(kHead) + "spec: {source: {url: 'http://x/c.tgz', sha256: " + kSha + "}}\n"),
            "spec.storage.size: is required with a url source: room for the archive and what it extracts to");
  EXPECT_EQ(Errors(std::string(kHead) + "spec: {source: {url: 'http://x/c.tgz', sha256: " + kSha +
                   "}, storage: {size: lots, accessModes: [Sometimes]}}\n"),
            "spec.storage.size: must be a positive quantity such as \"2Gi\", got \"lots\"\n"
            "spec.storage.accessModes[0]: must be one of ReadWriteOnce, ReadWriteMany, ReadOnlyMany or ReadWriteOncePod, "
            "got \"Sometimes\"");
  EXPECT_EQ(Errors(std::string(kHead) + "spec: {source: {url: 'http://x/c.tgz', sha256: " + kSha +
                   ", persistentVolumeClaim: {claimName: c}}, storage: {size: 1Gi}}\n"),
            "spec.source: must be a url or a persistentVolumeClaim, not both");
  EXPECT_EQ(Errors(std::string(kHead) + "spec: {source: {uri: x}}\n"),
            "spec.source.uri: unknown field\nspec.source: is required: a url (with sha256) or a persistentVolumeClaim");
}

// The audit's Medium: user:password@ in a url sat in the object for anyone who may read it, and
// errors echoed it. Refused, and never quoted.
TEST(DatasetValidationTest, AUrlWithCredentialsIsRefusedWithoutEchoingThem) {
  const std::string errors = Errors(std::string(kHead) + "spec: {source: {url: 'https://me:s3cret@files.example/c.tgz', "
                                    "sha256: " + kSha + "}, storage: {size: 1Gi}}\n");
  EXPECT_EQ(errors, "spec.source.url: must not hold credentials (user:password@ before the host): anyone who may read "
                    "the object would read them");
  EXPECT_EQ(errors.find("s3cret"), std::string::npos);
  EXPECT_EQ(Errors(std::string(kHead) + "spec: {source: {url: 'https://files.example/a@b/c.tgz', sha256: " + kSha +
                   "}, storage: {size: 1Gi}}\n"),
            "") << "an @ in the path is no credential";
}

TEST(DatasetValidationTest, ANameLeavesRoomForItsChildren) {
  const std::string name(58, 'd');
  EXPECT_EQ(Errors("apiVersion: ergobench.io/v1alpha1\nkind: Dataset\nmetadata: {name: " + name +
                   "}\nspec: {source: {persistentVolumeClaim: {claimName: c}}}\n"),
            "metadata.name: must be at most 57 characters, got 58");
}

}  // namespace
}  // namespace ergobench
