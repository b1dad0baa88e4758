// The mini-batch plan shared by the trainer and the charge (compute.hpp, local_work.hpp).
#include "sim/jobs/compute.hpp"
#include "sim/jobs/local_work.hpp"

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

ModelSteps training_steps(const models::ModelSpec& spec, int64_t samples, int64_t batch_size, int epochs,
                          int64_t local_steps, bool drop_single) {
  // batch_plan's batches, counted without listing them: a pass is `full` batches of batch_size
  // and perhaps a trailing one of `rest`; a count in steps starts passes from their beginning.
  ModelSteps out{spec, {}, 0};
  const int64_t per_pass = batches_per_pass(samples, batch_size, drop_single);
  if (samples <= 0 || batch_size <= 0 || per_pass == 0) return out;
  const int64_t full = samples / batch_size, rest = samples - full * batch_size;
  const bool trailing = per_pass > full;
  const int64_t total = local_steps > 0 ? local_steps : per_pass * epochs;
  const int64_t passes = total / per_pass, leftover = total % per_pass;  // leftover < per_pass: full batches
  if (full > 0) out.train_batches[batch_size] += passes * full + leftover;
  if (trailing && passes > 0) out.train_batches[rest] += passes;
  return out;
}

}  // namespace fedgrid
