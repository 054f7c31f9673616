#include "syncsim/training/faults.hpp"

#include "name_table.hpp"

namespace syncsim {

using training_detail::name_in;

std::string_view to_string(FaultKind kind) {
  return name_in(kFaultKindNames, kind);
}

std::string_view to_string(FaultPolicy policy) {
  return name_in(kFaultPolicyNames, policy);
}

}  // namespace syncsim
