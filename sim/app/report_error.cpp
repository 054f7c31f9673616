#include "report_error.hpp"

#include <iostream>

#include "syncsim/core/input_error.hpp"

namespace syncsim::app {

int report_error(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const InputError& e) {
    std::cerr << "syncsim: error: " << e.what() << '\n';
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "syncsim: " << e.what() << '\n';
    return 1;
  }
}

}  // namespace syncsim::app
