// The figure scripts' child process (tools/cli/child_process.h): its exit status and a signal that
// ended it are reported (so `reproduce` no longer exits 0 when plotting fails or is interrupted),
// and it does not outlive t3sim: killing the parent with SIGKILL ends the child with SIGTERM.
#include "cli/child_process.h"

#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <string>

namespace t3sim::reliability {
namespace {

using cli::ChildExit;
using cli::run_child;

TEST(ChildProcess, ReportsExitStatusAndSignal) {
  EXPECT_TRUE(run_child({"/bin/sh", "-c", "exit 0"}).ok());
  const ChildExit failed = run_child({"/bin/sh", "-c", "exit 3"});
  EXPECT_TRUE(failed.exited);
  EXPECT_EQ(failed.code, 3);
  EXPECT_FALSE(failed.ok());
  const ChildExit killed = run_child({"/bin/sh", "-c", "kill -INT $$"});
  EXPECT_FALSE(killed.exited);
  EXPECT_EQ(killed.signal, SIGINT);
  const ChildExit missing = run_child({"/no/such/program"});
  EXPECT_TRUE(missing.exited);
  EXPECT_EQ(missing.code, 127);
}

// A middle process (standing in for t3sim) runs `sh -c 'echo $$; exec cat'` through run_child and
// is killed with SIGKILL while it waits. This test is the subreaper, so the orphan becomes its
// child: it must end by SIGTERM (PR_SET_PDEATHSIG). Without that signal, cat would go on reading
// its stdin and exit 0 once this test closes the pipe.
TEST(ChildProcess, DiesWithItsParent) {
  ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  int to_child[2], from_child[2];
  ASSERT_EQ(::pipe(to_child), 0);
  ASSERT_EQ(::pipe(from_child), 0);
  const pid_t middle = ::fork();
  ASSERT_GE(middle, 0);
  if (middle == 0) {
    ::dup2(to_child[0], 0);
    ::dup2(from_child[1], 1);
    ::close(to_child[1]);
    ::close(from_child[0]);
    run_child({"/bin/sh", "-c", "echo $$; exec cat"});
    ::_exit(0);
  }
  ::close(to_child[0]);
  ::close(from_child[1]);
  std::FILE* out = ::fdopen(from_child[0], "r");
  long orphan = 0;
  ASSERT_EQ(std::fscanf(out, "%ld", &orphan), 1);
  ASSERT_EQ(::kill(middle, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(middle, &status, 0), middle);
  ::close(to_child[1]);  // EOF for cat if it is still alive
  ASSERT_EQ(::waitpid(static_cast<pid_t>(orphan), &status, 0), orphan);
  EXPECT_TRUE(WIFSIGNALED(status)) << "the child outlived its parent and exited normally";
  if (WIFSIGNALED(status)) {
    EXPECT_EQ(WTERMSIG(status), SIGTERM);
  }
  std::fclose(out);
  ::prctl(PR_SET_CHILD_SUBREAPER, 0);
}

}  // namespace
}  // namespace t3sim::reliability
