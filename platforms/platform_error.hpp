#pragma once
// Bad platform input (tier catalog, roster CSV, SimGrid XML): where it is and what is wrong.
// The command line reports it like any bad input, with exit code 2.
#include <stdexcept>
#include <string>

namespace fedgrid::platforms {

class PlatformError : public std::runtime_error {
 public:
  PlatformError(std::string file, int line, std::string key, std::string message)
      : std::runtime_error(format(file, line, key, message)),
        file(std::move(file)), line(line), key(std::move(key)), message(std::move(message)) {}
  std::string file;  // the platform file, or the scenario key's name when no file is involved
  int line = 0;      // 1-based; 0 when unknown
  std::string key;   // the column, property or key at fault
  std::string message;

 private:
  static std::string format(const std::string& file, int line, const std::string& key, const std::string& message) {
    std::string s = file;
    if (line > 0) s += ":" + std::to_string(line);
    s += ": ";
    if (!key.empty()) s += "key '" + key + "': ";
    return s + message;
  }
};

}  // namespace fedgrid::platforms
