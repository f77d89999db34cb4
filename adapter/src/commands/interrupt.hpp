// SIGINT and SIGTERM set a flag instead of killing the adapter, so that a
// create in progress can remove what it made, and an exec can stop its
// command in the sandbox, before exiting.
#pragma once

namespace osf::commands {

void install_interrupt_handlers();
// The signal received, or 0.
int pending_signal();

} // namespace osf::commands
