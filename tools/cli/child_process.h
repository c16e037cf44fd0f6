// Runs a helper program (the figure scripts) as a child process that cannot outlive t3sim and
// whose failure is seen. The child asks the kernel for SIGTERM when its parent dies
// (PR_SET_PDEATHSIG), so a SIGTERM or SIGKILL of t3sim leaves no orphan writing files; signals
// reach t3sim as usual (std::system ignores SIGINT in the parent, so a Ctrl-C during the figures
// looked like a plotting failure and t3sim went on to exit 0).
// Contract: run_child blocks until the child ends and says how it ended; it throws only when no
// process can be started (ConfigError naming the program). Exit status 127: exec failed.
#pragma once

#include <string>
#include <vector>

namespace t3sim::cli {

struct ChildExit {
  bool exited = false;  // ended by exit(): `code` is its status
  int code = 0;
  int signal = 0;  // ended by this signal (exited is false)
  bool ok() const { return exited && code == 0; }
};

// Runs argv[0] (an absolute path) with argv, inheriting stdin/stdout/stderr.
ChildExit run_child(const std::vector<std::string>& argv);

}  // namespace t3sim::cli
