#include "operator/controller/benchmark/mpi/mpi_builders.h"

#include <initializer_list>

#include "api/v1alpha1/defaults.h"

namespace ergobench::controller {
namespace {

using nlohmann::json;

// mpirun only starts the job and relays the ranks' output: a little CPU, and no limit on it so
// that the relay never throttles; memory bounded.
constexpr char kLauncherCpu[] = "50m";
constexpr char kLauncherMemory[] = "256Mi";

std::string SshFile(const char* name) { return std::string(kSshMountPath) + "/" + name; }
std::string ConfigFile(const char* name) { return std::string(kConfigMountPath) + "/" + name; }

// The Secret's files a role uses, and no other: a worker's sshd its host key and the key it lets
// in, the launcher its client key and the host key it expects. A worker that held the client key
// could log into its peers. Owned by root, readable by the pod's group (fsGroup): neither sshd
// nor ssh finds a key of another owner too open, and no process in the pod can change one.
json SshVolume(const Benchmark& benchmark, std::initializer_list<const char*> files) {
  json items = json::array();
  for (const char* file : files) items.push_back({{"key", file}, {"path", file}});
  return {{"name", "ssh"},
          {"secret", {{"secretName", SshSecretName(benchmark)}, {"defaultMode", 0440}, {"items", items}}}};
}

json SshMount() { return {{"name", "ssh"}, {"mountPath", kSshMountPath}, {"readOnly", true}}; }

std::string SshdConfig() {
  return "# sshd of an ergobench MPI worker: the pod's own non-root user, for the launcher's mpirun.\n"
         "Port " + std::to_string(kSshPort) + "\n"
         "PidFile none\n"
         "HostKey " + SshFile("ssh_host_ed25519_key") + "\n"
         "AuthorizedKeysFile " + SshFile("authorized_keys") + "\n"
         "# The keys are a read-only Secret mount, owned by root: StrictModes would refuse their owner.\n"
         "StrictModes no\n"
         "AuthenticationMethods publickey\n"
         "PubkeyAuthentication yes\n"
         "PasswordAuthentication no\n"
         "KbdInteractiveAuthentication no\n"
         "PermitRootLogin no\n"
         "UsePAM no\n"
         "PermitUserEnvironment no\n"
         "AllowTcpForwarding no\n"
         "AllowAgentForwarding no\n"
         "AllowStreamLocalForwarding no\n"
         "X11Forwarding no\n"
         "PermitTTY no\n"
         "PrintMotd no\n"
         "# A launcher that vanished is noticed within a minute; its ranks then end.\n"
         "ClientAliveInterval 15\n"
         "ClientAliveCountMax 4\n";
}

std::string SshConfig(const Benchmark& benchmark) {
  return "# ssh from an ergobench MPI launcher to its workers: the Benchmark's key, its host key only.\n"
         "Host *\n"
         "  Port " + std::to_string(kSshPort) + "\n"
         "  IdentityFile " + SshFile("id_ed25519") + "\n"
         "  IdentitiesOnly yes\n"
         "  HostKeyAlias " + WorkerServiceName(benchmark) + "\n"
         "  UserKnownHostsFile " + SshFile("known_hosts") + "\n"
         "  GlobalKnownHostsFile /dev/null\n"
         "  StrictHostKeyChecking yes\n"
         "  CheckHostIP no\n"
         "  BatchMode yes\n"
         "  PasswordAuthentication no\n"
         "  ConnectTimeout 20\n"
         "  ServerAliveInterval 15\n"
         "  ServerAliveCountMax 4\n"
         "  LogLevel ERROR\n";
}

}  // namespace

// The uid in the name: a namesake's Secret is another, so one of this name is this Benchmark's.
std::string SshSecretName(const Benchmark& b) { return b.metadata.name + "-ssh-" + b.metadata.uid; }
std::string LauncherPodName(const Benchmark& b) { return b.metadata.name + "-launcher"; }

json BuildSshSecret(const Benchmark& benchmark, const SshKeyPair& user_key, const SshKeyPair& host_key) {
  return {{"apiVersion", "v1"},
          {"kind", "Secret"},
          {"metadata", ChildMetadata(benchmark, SshSecretName(benchmark))},
          {"type", "Opaque"},
          // The keys of a run never change under it; a new Benchmark gets new ones.
          {"immutable", true},
          {"stringData",
           {{"id_ed25519", user_key.private_key},
            {"authorized_keys", user_key.public_key + "\n"},
            {"ssh_host_ed25519_key", host_key.private_key},
            {"known_hosts", WorkerServiceName(benchmark) + " " + host_key.public_key + "\n"}}}};
}

// Open MPI's coll/tuned rules: MPI_Allreduce by the ring from 1 MiB up, below that Open MPI's own
// choice (algorithm 0). Its fixed decision picks other algorithms for large messages that move
// several times what a ring moves: across 3 nodes on 1 Gbit/s links, 0a's busbw at 16-64 MiB was
// 0.31 of the link's TCP goodput by default and 0.99 by the ring, as gloo's (bench/RESULTS.md).
// The ring's latency term, 2(k-1) steps, loses to recursive doubling only on small messages.
std::string CollTunedRules() {
  return "# ergobench: Open MPI coll/tuned dynamic rules (coll_tuned_dynamic_rules_filename)\n"
         "1              # collectives in this file\n"
         "2              # MPI_Allreduce\n"
         "1              # communicator sizes\n"
         "1              # from 1 rank up\n"
         "2              # message sizes\n"
         "0 0 0 0        # below 1 MiB: Open MPI's own choice\n"
         "1048576 4 0 0  # from 1 MiB: ring\n";
}

json MpiConfigData(const Benchmark& benchmark) {
  std::string hostfile = "# rank i runs on line i: one rank per worker pod\n";
  for (int64_t rank = 0; rank < benchmark.spec.workers; ++rank) {
    hostfile += WorkerPodName(benchmark, rank) + "." + WorkerServiceName(benchmark) + " slots=1\n";
  }
  return {{"hostfile", hostfile},
          {"sshd_config", SshdConfig()},
          {"ssh_config", SshConfig(benchmark)},
          {"coll_tuned_rules", CollTunedRules()}};
}

std::vector<std::string> MpirunArgs(const Benchmark& benchmark) {
  return {"mpirun", "--hostfile", ConfigFile("hostfile"), "-np", std::to_string(benchmark.spec.workers),
          "--tag-output",
          // The launcher reaches every worker itself: workers hold no key to reach each other.
          "--mca", "plm_rsh_agent", "ssh", "--mca", "plm_rsh_args", "-F " + ConfigFile("ssh_config"),
          "--mca", "plm_rsh_no_tree_spawn", "1",
          // The hostfile's names as written: a worker's short name does not resolve, its
          // name under the Service does (Open MPI would cut it at the first dot).
          "--mca", "orte_keep_fqdn_hostnames", "1",
          // Ranks on different pods: TCP between them, and no shared-memory transport to try.
          "--mca", "btl", "self,tcp", "--mca", "pml", "ob1",
          // A rank that busy-polls spends its pod's CPU limit waiting: measured on 3 ranks of
          // 500m, yielding took 1 MiB all-reduces from 0.03 to 0.5 GB/s (docs/kubernetes/mpi.md).
          "--mca", "mpi_yield_when_idle", "1",
          // Large all-reduces by the ring (CollTunedRules); every rank reads the file.
          "--mca", "coll_tuned_use_dynamic_rules", "1",
          "--mca", "coll_tuned_dynamic_rules_filename", ConfigFile("coll_tuned_rules"),
          "ergobench-mpi", "rank", "--state-dir", kMpiStateDir, "--termination-log", kTerminationMessagePath};
}

void MakeMpiWorker(const Benchmark& benchmark, json* pod) {
  json& container = (*pod)["spec"]["containers"][0];
  json command = {"ergobench-mpi", "worker", "--state-dir", kMpiStateDir, "--sshd-config", ConfigFile("sshd_config"),
                  "--", container["command"][0]};
  for (const json& arg : container["args"]) command.push_back(arg);
  container["command"] = command;
  container.erase("args");
  container["ports"].push_back({{"name", "ssh"}, {"containerPort", kSshPort}, {"protocol", "TCP"}});
  // No probe: the launcher checks that sshd answers, and a probe's bare connections would fill
  // sshd's log; the rank's /healthz comes only once mpirun starts it.
  container.erase("readinessProbe");
  container["volumeMounts"].push_back(SshMount());
  (*pod)["spec"]["volumes"].push_back(SshVolume(benchmark, {"ssh_host_ed25519_key", "authorized_keys"}));
}

json BuildLauncherPod(const Benchmark& benchmark, const Gang& gang) {
  json metadata = ChildMetadata(benchmark, LauncherPodName(benchmark));
  metadata["labels"][kRoleLabel] = kLauncherRole;
  metadata["labels"].update(GangLabels(gang));
  json command = {"ergobench-mpi", "launch", "--hostfile", ConfigFile("hostfile"), "--ssh-port", std::to_string(kSshPort),
                  "--wait-timeout", std::to_string(static_cast<int>(kSshWaitTimeoutSeconds)),
                  "--termination-log", kTerminationMessagePath, "--"};
  for (const std::string& arg : MpirunArgs(benchmark)) command.push_back(arg);
  const json container = {
      {"name", "launcher"},
      {"image", benchmark.spec.image.empty() ? DefaultRunnerImage() : benchmark.spec.image},
      {"command", command},
      // Only launches: the ranks, and their /metrics, are on the worker pods.
      {"resources", {{"requests", {{"cpu", kLauncherCpu}, {"memory", kLauncherMemory}}},
                     {"limits", {{"memory", kLauncherMemory}}}}},
      {"securityContext", ContainerSecurityContext()},
      {"volumeMounts",
       {{{"name", "config"}, {"mountPath", kConfigMountPath}, {"readOnly", true}},
        SshMount(),
        {{"name", "home"}, {"mountPath", kScratchMountPath}},
        {{"name", "tmp"}, {"mountPath", kTmpMountPath}}}},
      {"terminationMessagePath", kTerminationMessagePath},
      // mpirun's last words (which rank failed, and how) when the launch fails.
      {"terminationMessagePolicy", "FallbackToLogsOnError"},
  };
  json pod_spec = RestrictedPodSpec(container, "Never");
  pod_spec["volumes"] = {{{"name", "config"}, {"configMap", {{"name", ConfigMapName(benchmark)}}}},
                         SshVolume(benchmark, {"id_ed25519", "known_hosts"}),
                         {{"name", "home"}, {"emptyDir", {{"sizeLimit", "64Mi"}}}},
                         {{"name", "tmp"}, {"emptyDir", {{"sizeLimit", kTmpSizeLimit}}}}};
  ApplyScheduling(benchmark, &pod_spec);  // the gang's scheduler too, should it place gangs whole
  return {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", metadata}, {"spec", pod_spec}};
}

}  // namespace ergobench::controller
