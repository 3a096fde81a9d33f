// Ed25519 key pairs for the ssh between an MPI Benchmark's launcher and its workers, made with
// OpenSSL and written in OpenSSH's own formats: the private key as `ssh-keygen` writes it
// (openssh-key-v1, unencrypted), the public key as one authorized_keys / known_hosts line.
// The operator makes them per Benchmark; they live only in that Benchmark's Secret.
#pragma once

#include <array>
#include <functional>
#include <string>

#include "base/status.h"

namespace ergobench::controller {

struct SshKeyPair {
  std::string private_key;  // "-----BEGIN OPENSSH PRIVATE KEY-----\n..."
  std::string public_key;   // "ssh-ed25519 AAAA... <comment>"
};

using Ed25519Seed = std::array<unsigned char, 32>;

// A new key from the operating system's randomness.
StatusOr<SshKeyPair> GenerateSshKey(const std::string& comment);
// The key of a given private seed: the same seed, the same files.
StatusOr<SshKeyPair> SshKeyFromSeed(const Ed25519Seed& seed, const std::string& comment);

// What the reconciler calls; a test gives keys of known seeds.
using SshKeyGenerator = std::function<StatusOr<SshKeyPair>(const std::string& comment)>;

}  // namespace ergobench::controller
