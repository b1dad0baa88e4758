#include "sim/jobs/deferred_training.hpp"

namespace fedgrid {

void for_each_trained(const std::vector<Update>& updates, const std::function<void(const Update&)>& fold) {
  size_t started = 0;  // updates before this index have had their jobs started
  for (size_t i = 0; i < updates.size(); ++i) {
    const Update& u = updates[i];
    if (!u.deferred) {
      fold(u);
      continue;
    }
    // Keep the workers busy with the next few while this one is folded; never more.
    for (const size_t until = std::min(updates.size(), i + 1 + size_t(u.deferred->ahead())); started < until; ++started)
      if (updates[started].deferred) updates[started].deferred->start();
    fold(u.deferred->finish());
  }
}

}  // namespace fedgrid
