#include "operator/controller/benchmark/mpi/ssh_keys.h"

#include <openssl/evp.h>
#include <openssl/rand.h>

#include <memory>

namespace ergobench::controller {
namespace {

constexpr char kKeyType[] = "ssh-ed25519";

// SSH wire encoding (RFC 4251 §5): a uint32 in network order, a string as its length and bytes.
void PutUint32(std::string* out, uint32_t value) {
  for (int shift = 24; shift >= 0; shift -= 8) out->push_back(static_cast<char>((value >> shift) & 0xff));
}

void PutString(std::string* out, const std::string& bytes) {
  PutUint32(out, static_cast<uint32_t>(bytes.size()));
  out->append(bytes);
}

std::string Base64(const std::string& bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  const int written = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                      reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<int>(bytes.size()));
  out.resize(written);
  return out;
}

// PROTOCOL.key: the private section holds the key twice checked (two equal uint32s), the
// public and the 64-byte private key (seed then public), the comment, and padding 1, 2, 3...
// to the cipher's block size (8 for "none").
std::string OpenSshPrivateKey(const std::string& seed, const std::string& public_blob, const std::string& public_key,
                              const std::string& comment) {
  std::string secret;
  const uint32_t check = static_cast<uint8_t>(public_key[0]) << 24 | static_cast<uint8_t>(public_key[1]) << 16 |
                         static_cast<uint8_t>(public_key[2]) << 8 | static_cast<uint8_t>(public_key[3]);
  PutUint32(&secret, check);
  PutUint32(&secret, check);
  PutString(&secret, kKeyType);
  PutString(&secret, public_key);
  PutString(&secret, seed + public_key);
  PutString(&secret, comment);
  for (char pad = 1; secret.size() % 8 != 0; ++pad) secret.push_back(pad);

  std::string blob("openssh-key-v1", 15);  // the magic includes its terminating NUL
  PutString(&blob, "none");  // cipher
  PutString(&blob, "none");  // kdf
  PutString(&blob, "");      // kdf options
  PutUint32(&blob, 1);       // one key
  PutString(&blob, public_blob);
  PutString(&blob, secret);

  const std::string encoded = Base64(blob);
  std::string armored = "-----BEGIN OPENSSH PRIVATE KEY-----\n";
  for (size_t at = 0; at < encoded.size(); at += 70) armored += encoded.substr(at, 70) + "\n";
  return armored + "-----END OPENSSH PRIVATE KEY-----\n";
}

}  // namespace

StatusOr<SshKeyPair> SshKeyFromSeed(const Ed25519Seed& seed, const std::string& comment) {
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(
      EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nullptr, seed.data(), seed.size()), EVP_PKEY_free);
  if (!key) return Status::Internal("OpenSSL could not make an Ed25519 key");
  std::string public_key(32, '\0');
  size_t length = public_key.size();
  if (EVP_PKEY_get_raw_public_key(key.get(), reinterpret_cast<unsigned char*>(public_key.data()), &length) != 1 ||
      length != public_key.size()) {
    return Status::Internal("OpenSSL could not give the Ed25519 public key");
  }
  std::string public_blob;
  PutString(&public_blob, kKeyType);
  PutString(&public_blob, public_key);
  SshKeyPair pair;
  pair.public_key = std::string(kKeyType) + " " + Base64(public_blob) + (comment.empty() ? "" : " " + comment);
  pair.private_key = OpenSshPrivateKey(std::string(seed.begin(), seed.end()), public_blob, public_key, comment);
  return pair;
}

StatusOr<SshKeyPair> GenerateSshKey(const std::string& comment) {
  Ed25519Seed seed;
  if (RAND_bytes(seed.data(), static_cast<int>(seed.size())) != 1) {
    return Status::Unavailable("OpenSSL's random generator gave no bytes for an Ed25519 key");
  }
  auto pair = SshKeyFromSeed(seed, comment);
  OPENSSL_cleanse(seed.data(), seed.size());
  return pair;
}

}  // namespace ergobench::controller
