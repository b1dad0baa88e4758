// The proximal term's fused form (proximal.hpp): torch-free, so the vtable is (it is emitted
// with fusible(), the first virtual defined out of line).
#include <typeinfo>

#include "algorithms/proximal.hpp"

namespace fedgrid::algorithms {

std::optional<FusibleTerms> ProximalTraining::fusible() const {
  if (typeid(*this) != typeid(ProximalTraining)) return std::nullopt;  // a subclass trains something else
  return FusibleTerms{epochs_, mu_, anchor_flat_};
}

}  // namespace fedgrid::algorithms
