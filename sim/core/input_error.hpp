#pragma once
// Bad input (scenario, data, command line) is reported as InputError: it names where the
// problem is so the user can fix it, and the command line turns it into exit code 2.
#include <stdexcept>
#include <string>
#include <vector>

namespace fedgrid {

struct InputProblem {
  std::string file;  // scenario path, "--set", or a data file
  int line = 0;      // 1-based; 0 when unknown (e.g. a --set override)
  std::string key;   // dotted scenario key, empty when not about a key
  std::string message;
  std::string to_string() const {
    std::string s = file;
    if (line > 0) s += ":" + std::to_string(line);
    s += ": ";
    if (!key.empty()) s += "key '" + key + "': ";
    return s + message;
  }
};

class InputError : public std::runtime_error {
 public:
  explicit InputError(std::vector<InputProblem> problems)
      : std::runtime_error(join(problems)), problems_(std::move(problems)) {}
  InputError(std::string file, int line, std::string key, std::string message)
      : InputError(std::vector<InputProblem>{{std::move(file), line, std::move(key), std::move(message)}}) {}
  const std::vector<InputProblem>& problems() const { return problems_; }

 private:
  static std::string join(const std::vector<InputProblem>& ps) {
    std::string s;
    for (const auto& p : ps) s += (s.empty() ? "" : "\n") + p.to_string();
    return s;
  }
  std::vector<InputProblem> problems_;
};

}  // namespace fedgrid
