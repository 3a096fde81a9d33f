#include "base/child_process.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>

namespace ergobench {

StatusOr<ChildProcess> ChildProcess::Start(const ChildSpec& spec) {
  if (spec.argv.empty()) return Status::InvalidArgument("no program to start");
  // Everything the child needs is prepared before fork: after it, only async-signal-safe calls.
  std::vector<char*> argv;
  for (const std::string& arg : spec.argv) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  // The parent's environment, less the variables the spec sets: glibc's getenv returns the
  // first match, so an inherited RANK or MASTER_PORT would shadow the rank's own.
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry(*e);
    const std::string name = entry.substr(0, entry.find('='));
    bool overridden = false;
    for (const auto& [set_name, value] : spec.env) overridden = overridden || set_name == name;
    if (!overridden) env_strings.push_back(entry);
  }
  for (const auto& [name, value] : spec.env) env_strings.push_back(name + "=" + value);
  std::vector<char*> envp;
  for (std::string& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  int output_fd = -1;
  if (!spec.output_path.empty()) {
    output_fd = open(spec.output_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (output_fd < 0) return Status::Unavailable(spec.output_path + ": cannot open: " + std::strerror(errno));
  }
  const pid_t parent = getpid();

  const pid_t pid = fork();
  if (pid < 0) {
    if (output_fd >= 0) close(output_fd);
    return Status::Unavailable(std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);  // the parent died before prctl took effect
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    // A parent that takes its stop signals with sigwait blocks them; the program must not.
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    if (output_fd >= 0) {
      dup2(output_fd, STDOUT_FILENO);
      dup2(output_fd, STDERR_FILENO);
    }
    execvpe(argv[0], argv.data(), envp.data());
    const char* message = "ergobench: cannot execute ";
    [[maybe_unused]] ssize_t n = write(STDERR_FILENO, message, std::strlen(message));
    n = write(STDERR_FILENO, argv[0], std::strlen(argv[0]));
    n = write(STDERR_FILENO, "\n", 1);
    _exit(127);
  }
  // Also set from the parent, so that a signal sent right after Start reaches the group.
  setpgid(pid, pid);
  if (output_fd >= 0) close(output_fd);
  return ChildProcess(pid);
}

std::optional<int> ChildProcess::Poll() {
  if (exit_code_) return exit_code_;
  int status = 0;
  const pid_t done = waitpid(pid_, &status, WNOHANG);
  if (done != pid_) return std::nullopt;
  exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return exit_code_;
}

int ChildProcess::Wait() {
  while (!exit_code_) {
    int status = 0;
    const pid_t done = waitpid(pid_, &status, 0);
    if (done == pid_) {
      exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    } else if (done < 0 && errno != EINTR) {
      exit_code_ = -1;
    }
  }
  return *exit_code_;
}

void ChildProcess::SignalGroup(int signal_number) const {
  // Also after the leader exited: mpirun's ranks may still be in its group.
  kill(-pid_, signal_number);
}

}  // namespace ergobench
