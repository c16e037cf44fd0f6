#include "cli/child_process.h"

#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <string>

#include "sim/errors.h"

namespace t3sim::cli {

ChildExit run_child(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::fflush(nullptr);  // the child must not repeat buffered output
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    throw ConfigError(argv.front(), "",
                      std::string("cannot start a process: ") + std::strerror(errno));
  }
  if (pid == 0) {
    // Only async-signal-safe calls until exec. If the parent died before prctl took effect, no
    // signal will come: leave at once.
    if (::prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || ::getppid() != parent) ::_exit(127);
    ::execv(args.front(), args.data());
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      throw ConfigError(argv.front(), "",
                        std::string("cannot wait for the process: ") + std::strerror(errno));
    }
  }
  ChildExit e;
  if (WIFEXITED(status)) {
    e.exited = true;
    e.code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    e.signal = WTERMSIG(status);
  }
  return e;
}

}  // namespace t3sim::cli
