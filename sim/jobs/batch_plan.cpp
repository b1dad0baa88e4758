// The mini-batch plan shared by the trainer and the charge (compute.hpp).
#include "sim/jobs/compute.hpp"

namespace fedgrid {
namespace {

// Batches in one pass over n samples (a trailing batch of one left out when drop_single).
int64_t batches_per_pass(int64_t n, int64_t batch, bool drop_single) {
  const int64_t full = n / batch, rest = n % batch;
  return full + (rest > 1 || (rest == 1 && (!drop_single || full == 0)) ? 1 : 0);
}

}  // namespace

std::vector<int64_t> batch_plan(int64_t n, int64_t batch, int epochs, int64_t steps, bool drop_single) {
  std::vector<int64_t> plan;
  const int64_t per_pass = batches_per_pass(n, batch, drop_single);
  if (n <= 0 || batch <= 0 || per_pass == 0) return plan;
  const int64_t total = steps > 0 ? steps : per_pass * epochs;
  plan.reserve(size_t(total));
  for (int64_t i = 0; i < total; ++i) {
    const int64_t start = (i % per_pass) * batch;
    plan.push_back(std::min(batch, n - start));
  }
  return plan;
}

int passes_begun(int64_t n, int64_t batch, int64_t steps, bool drop_single) {
  const int64_t per_pass = batches_per_pass(n, batch, drop_single);
  return per_pass ? int((steps + per_pass - 1) / per_pass) : 0;
}

}  // namespace fedgrid
