#include "commands/interrupt.hpp"

#include <csignal>

namespace osf::commands {

namespace {

volatile std::sig_atomic_t received = 0;

extern "C" void on_signal(int signal) {
    received = signal;
}

} // namespace

void install_interrupt_handlers() {
    struct sigaction action {};
    action.sa_handler = on_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = 0; // no SA_RESTART: a blocking wait returns early
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
}

int pending_signal() {
    return received;
}

} // namespace osf::commands
