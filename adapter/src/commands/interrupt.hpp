// SIGINT and SIGTERM set a flag instead of killing the adapter, so that a
// create in progress can remove what it made before exiting.
#pragma once

namespace osf::commands {

void install_interrupt_handlers();
// The signal received, or 0.
int pending_signal();
// While a child reads the terminal (exec), Ctrl-C belongs to it: the adapter
// ignores SIGINT and exits with the child's status, as a shell does.
void ignore_interrupts();

} // namespace osf::commands
