// ergobench-mpi: the three roles of an MPI Benchmark on Kubernetes, as mpi-operator v2 splits
// them (no `kubectl exec`, no API rights in any pod):
//   worker   the worker pod's main process: sshd, and the rank's command line (ssh_worker.h)
//   rank     what mpirun starts on a worker over ssh (mpi_rank.h)
//   launch   the launcher pod's: waits for the workers' sshd, then runs mpirun (mpi_launch.h)
// No torch here: the launcher and the worker's sshd start in moments.
#include <CLI/CLI.hpp>

#include "runner/launcher/mpi_launch.h"
#include "runner/launcher/mpi_rank.h"
#include "runner/launcher/ssh_worker.h"

int main(int argc, char** argv) {
  CLI::App app{"ergobench-mpi: the launcher and worker processes of an MPI Benchmark's pods"};
  app.require_subcommand(1);

  ergobench::mpi::SshWorkerOptions worker;
  std::string sshd = "/usr/sbin/sshd";
  std::string sshd_config;
  CLI::App* worker_cmd = app.add_subcommand("worker", "serve sshd for mpirun; end as this pod's rank ends");
  worker_cmd->add_option("--state-dir", worker.state_dir, "where the rank's command line and exit code are kept")->required();
  worker_cmd->add_option("--sshd", sshd, "the sshd program")->capture_default_str();
  worker_cmd->add_option("--sshd-config", sshd_config, "sshd's configuration file")->required();
  worker_cmd->add_option("runner", worker.runner_argv, "the rank's command line, after --")->required();

  ergobench::mpi::MpiRankOptions rank;
  CLI::App* rank_cmd = app.add_subcommand("rank", "run this pod's rank (started by mpirun)");
  rank_cmd->add_option("--state-dir", rank.state_dir, "the worker's --state-dir")->required();
  rank_cmd->add_option("--termination-log", rank.termination_log, "the pod's termination message file");

  ergobench::mpi::MpiLaunchOptions launch;
  double wait_seconds = 300;
  CLI::App* launch_cmd = app.add_subcommand("launch", "wait for the workers' sshd, then run mpirun");
  launch_cmd->add_option("--hostfile", launch.hostfile, "the workers, one per line, rank order")->required();
  launch_cmd->add_option("--ssh-port", launch.ssh_port, "the workers' sshd port")->required()->check(CLI::Range(1, 65535));
  launch_cmd->add_option("--wait-timeout", wait_seconds, "seconds to wait for the workers' sshd")
      ->capture_default_str()->check(CLI::PositiveNumber);
  launch_cmd->add_option("--termination-log", launch.termination_log, "where the reason of an early end is written");
  launch_cmd->add_option("mpirun", launch.mpirun_argv, "the mpirun command line, after --")->required();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (*worker_cmd) {
    worker.sshd_argv = {sshd, "-D", "-e", "-f", sshd_config};
    return ergobench::mpi::RunSshWorker(worker);
  }
  if (*rank_cmd) return ergobench::mpi::RunMpiRank(rank);
  launch.wait_timeout = std::chrono::milliseconds(static_cast<int64_t>(wait_seconds * 1000));
  return ergobench::mpi::RunMpiLaunch(launch);
}
