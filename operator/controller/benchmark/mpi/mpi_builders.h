// The objects an MPI Benchmark (spec.backend "mpi") owns besides the gloo ones, as Kubeflow's
// mpi-operator v2 lays them out: k worker pods that serve sshd as the pod's non-root user, a
// launcher pod that runs mpirun over ssh, the workers' names in a hostfile (the ConfigMap), and
// a per-Benchmark Secret of ssh keys that the operator makes (ssh_keys.h) and nothing else
// holds. Pure, as builders.h: the same Benchmark and keys give the same JSON.
//
//   Secret <name>-ssh-<uid>  id_ed25519, authorized_keys: the launcher's key, the workers' only
//                            one; ssh_host_ed25519_key, known_hosts: the workers' host key,
//                            which the launcher checks (StrictHostKeyChecking)
//   ConfigMap additions      hostfile (rank i on line i, slots=1), sshd_config, ssh_config
//   Pod <name>-launcher      ergobench-mpi launch ... -- mpirun ... ergobench-mpi rank
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/v1alpha1/benchmark.h"
#include "operator/controller/benchmark/builders.h"
#include "operator/controller/benchmark/mpi/ssh_keys.h"

namespace ergobench::controller {

// An unprivileged port: sshd runs as the runner's user, with no capabilities.
inline constexpr int kSshPort = 2222;
inline constexpr char kSshMountPath[] = "/etc/ergobench-ssh";
// Where a worker keeps its rank's command line for the rank mpirun starts (runner/launcher).
inline constexpr char kMpiStateDir[] = "/var/lib/ergobench/mpi";
// How long the launcher waits for the workers' sshd: the gang's bound, as rank 0's rendezvous
// is for gloo.
inline constexpr double kSshWaitTimeoutSeconds = kPodRendezvousTimeoutSeconds;

std::string SshSecretName(const Benchmark& benchmark);
std::string LauncherPodName(const Benchmark& benchmark);

nlohmann::json BuildSshSecret(const Benchmark& benchmark, const SshKeyPair& user_key, const SshKeyPair& host_key);
// The ConfigMap entries an MPI run adds: hostfile, sshd_config, ssh_config.
nlohmann::json MpiConfigData(const Benchmark& benchmark);
// A worker pod (BuildWorkerPod's) made an MPI worker: sshd in front of the same runner.
void MakeMpiWorker(const Benchmark& benchmark, nlohmann::json* pod);
nlohmann::json BuildLauncherPod(const Benchmark& benchmark, const Gang& gang);
// The launcher's mpirun command line.
std::vector<std::string> MpirunArgs(const Benchmark& benchmark);

}  // namespace ergobench::controller
