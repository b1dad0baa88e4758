// output.*: its keys; no cross-key rules.
#include "sim/scenario/sections/parts.hpp"

namespace fedgrid::sections {

void output_keys(Keys& k) {
  using S = Scenario;
  k.group("output", "Where and what to write")
      .bind<std::string>("output.dir", [](S& s) -> auto& { return s.output.dir; }, none,
                         "Output directory (default: results/<name>)")
      .bind<bool>("output.trace", [](S& s) -> auto& { return s.output.trace; }, "true",
                  "Write trace.json (Chrome trace format)")
      .bind<bool>("output.global_test", [](S& s) -> auto& { return s.output.global_test; }, "true",
                  "Local models: also score each on every hospital's test split, weighted equally (FedSKD's 'global test'; N x N evaluations)")
      .bind<int>("output.eval_every", [](S& s) -> auto& { return s.output.eval_every; }, "1",
                 "Evaluate every k rounds (and the last)", {.min = 1})
      .bind<int>("output.checkpoint_every", [](S& s) -> auto& { return s.output.checkpoint_every; }, "0",
                 "Write checkpoint.bin every k rounds, for `fedgrid resume DIR` (0: never)", {.min = 0})
      .bind<bool>("output.site_metrics", [](S& s) -> auto& { return s.output.site_metrics; }, "false",
                  "Per-site figures (each hospital's model on its own test split): macro-F1, balanced accuracy and AUROC, "
                  "mean and worst site, as site_* columns of rounds.csv and final_site in summary.json; each "
                  "hospital's macro precision, recall, F1 and balanced accuracy in hospitals.csv")
      .bind<bool>("output.critical_path", [](S& s) -> auto& { return s.output.critical_path; }, "false",
                  "What ended each round: the chain of activities walked back from its report, as cp_* columns "
                  "of rounds.csv (the hospital it passed through; its time split into downlink, compute, uplink, peer, "
                  "server and idle, summing to the round; the transfers' contention), and each hospital's idle_s in "
                  "hospitals.csv (docs/guide/capacity-planning.md)");
}

}  // namespace fedgrid::sections
