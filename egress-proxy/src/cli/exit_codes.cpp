#include "cli/exit_codes.hpp"

#include <exception>
#include <ostream>

namespace osf::cli {

int exit_code_of(const std::function<int()>& command, std::ostream& err) {
    try {
        return command();
    } catch (const std::exception& e) {
        err << "egress-proxy: " << e.what() << "\n";
    } catch (...) {
        err << "egress-proxy: unexpected error\n";
    }
    return exit_failure;
}

} // namespace osf::cli
