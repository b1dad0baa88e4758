#include "sim/engine/output_folder.hpp"

#include <filesystem>

#include "sim/core/input_error.hpp"

namespace fedgrid {

const std::vector<std::string>& run_output_files() {
  static const std::vector<std::string> files{"rounds.csv",   "hospitals.csv", "events.csv",     "summary.json",
                                              "trace.json",   "perf.json",     "checkpoint.bin", "run.json"};
  return files;
}

void claim_output_folder(const std::string& dir, bool overwrite) {
  namespace fs = std::filesystem;
  std::string held;
  std::error_code ec;
  for (const auto& name : run_output_files())
    if (fs::exists(fs::path(dir) / name, ec)) {
      if (overwrite) {
        if (fs::remove(fs::path(dir) / name, ec); ec)
          throw InputError((fs::path(dir) / name).string(), 0, "output.dir", "cannot remove it: " + ec.message());
      } else
        held += (held.empty() ? "" : ", ") + name;
    }
  if (!held.empty())
    throw InputError(dir, 0, "output.dir",
                     "holds the outputs of an earlier run (" + held +
                         "): choose another folder (--out DIR), or pass --overwrite to replace them");
}

}  // namespace fedgrid
