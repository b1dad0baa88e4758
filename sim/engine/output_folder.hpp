#pragma once
// The files a run writes into its output folder (output.dir), and the guard that keeps a new
// run from replacing an earlier run's without being asked: a typo in --out must not lose hours
// of results.
#include <string>
#include <vector>

namespace fedgrid {

// Every file `fedgrid run` may write into output.dir: the four outputs, the trace, perf.json,
// and what `fedgrid resume` needs (checkpoint.bin, run.json).
const std::vector<std::string>& run_output_files();

// Before a fresh run writes into `dir`: throws InputError (key output.dir, naming the folder and
// the files it holds) when `dir` holds any of run_output_files(), unless `overwrite`, in which
// case those files are removed, so that nothing of the earlier run is left beside the new one
// (a stale checkpoint.bin would let `fedgrid resume` continue the wrong run). Other files in the
// folder are never touched.
void claim_output_folder(const std::string& dir, bool overwrite);

}  // namespace fedgrid
