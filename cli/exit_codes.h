// What `ergobench` exits with, for scripts and CI pipelines to tell outcomes apart
// (docs/getting-started.md lists them).
#pragma once

namespace ergobench {

inline constexpr int kExitOk = 0;
// A Benchmark ran and failed (or a rank did).
inline constexpr int kExitFailed = 1;
// Bad input: an unknown flag, a file that does not load, a field that does not validate.
inline constexpr int kExitBadInput = 2;
// Every run succeeded, but one fell outside its baseline's bands (spec.baseline, --baseline).
inline constexpr int kExitRegressed = 3;
// The cluster could not be used: no kubeconfig, no connection, or an error from its API.
inline constexpr int kExitCluster = 4;
// Ctrl-C or SIGTERM stopped it (128 + SIGINT, as shells report it).
inline constexpr int kExitInterrupted = 130;

}  // namespace ergobench
