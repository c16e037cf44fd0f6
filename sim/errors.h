// Error types of t3sim. Models and the engine throw; only the CLI's main() turns an exception into
// a one-line message and an exit code (ConfigError/UsageError -> 2, ModelError/other -> 1).
// Contract: every message is complete on its own: ConfigError names the file, the JSON pointer and
// the fix; ModelError names the component path and the numbers that broke the invariant.
#pragma once

#include <stdexcept>
#include <string>

namespace t3sim {

// Bad input: a config, trace, sweep spec or CLI value. Exit code 2.
class ConfigError : public std::runtime_error {
 public:
  // `file` is a path, or a command-line flag ("--out"; shown without a pointer when it has none).
  ConfigError(std::string file, std::string pointer, const std::string& message)
      : std::runtime_error(format(file, pointer, message)),
        file_(std::move(file)),
        pointer_(std::move(pointer)),
        message_(message) {}
  const std::string& file() const { return file_; }
  const std::string& pointer() const { return pointer_; }
  const std::string& message() const { return message_; }  // without file and pointer

 private:
  static std::string format(const std::string& file, const std::string& pointer,
                            const std::string& message) {
    std::string out = file.empty() ? std::string("<input>") : file;
    out += ": ";
    if (!pointer.empty() || file.rfind("--", 0) != 0) {
      out += pointer.empty() ? std::string("/") : pointer;
      out += ": ";
    }
    out += message;
    return out;
  }
  std::string file_;
  std::string pointer_;
  std::string message_;
};

// Bad command line (unknown option, missing argument). Exit code 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A model invariant broke at run time (lost bytes, outstanding requests, deadlock). Exit code 1.
class ModelError : public std::runtime_error {
 public:
  ModelError(const std::string& component_path, const std::string& message)
      : std::runtime_error(component_path + ": " + message) {}
};

}  // namespace t3sim
