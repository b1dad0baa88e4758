#include "sim/jobs/deferred_training.hpp"

namespace fedgrid {

void for_each_trained(const std::vector<Update>& updates, const std::function<void(const Update&)>& fold) {
  size_t started = 0;   // updates before this index have had their jobs started
  size_t finished = 0;  // and before this one, finished
  try {
    for (size_t i = 0; i < updates.size(); ++i) {
      const Update& u = updates[i];
      if (!u.deferred) {
        finished = i + 1;
        fold(u);
        continue;
      }
      // Keep the workers busy with the next few while this one is folded; never more.
      for (const size_t until = std::min(updates.size(), i + 1 + size_t(u.deferred->ahead())); started < until;
           ++started)
        if (updates[started].deferred) updates[started].deferred->start();
      Update trained = u.deferred->finish();
      finished = i + 1;
      fold(trained);
    }
  } catch (...) {
    // A started job reads its model and data on a worker: let it end before the caller's
    // unwinding can free them.
    for (size_t j = finished; j < started; ++j)
      if (updates[j].deferred) try {
          updates[j].deferred->finish();
        } catch (...) {
        }
    throw;
  }
}

}  // namespace fedgrid
