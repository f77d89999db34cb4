'use strict';
// The CLIs' exit codes as classes: 2 an invalid spec or argument, 1 a failure
// (with "no sandbox <ID>" its own class), anything else the CLI's message.

class SandboxError extends Error {
  constructor(message, {exitCode = 1, stderr = ''} = {}) {
    super(message);
    this.name = 'SandboxError';
    this.exitCode = exitCode;
    this.stderr = stderr;
  }
}

class InvalidSpecError extends SandboxError {
  constructor(message, options) {
    super(message, {exitCode: 2, ...options});
    this.name = 'InvalidSpecError';
  }
}

class SandboxNotFoundError extends SandboxError {
  constructor(message, options) {
    super(message, options);
    this.name = 'SandboxNotFoundError';
  }
}

// The error for a CLI that exited `code` with `stderr`: its last line without
// the program's prefix is the message, as the CLI prints one line per error.
function errorFor(program, code, stderr) {
  const lines = stderr.split('\n').map((l) => l.trim()).filter(Boolean);
  const prefixed = lines.filter((l) => l.startsWith(`${program}: `));
  const last = (prefixed.length ? prefixed : lines).pop() || `${program} exited ${code}`;
  const message = last.startsWith(`${program}: `) ? last.slice(program.length + 2) : last;
  const options = {exitCode: code, stderr};
  if (code === 2) return new InvalidSpecError(message, options);
  if (/\bno sandbox [0-9a-f]{12}\b/.test(message)) return new SandboxNotFoundError(message, options);
  return new SandboxError(message, options);
}

module.exports = {SandboxError, InvalidSpecError, SandboxNotFoundError, errorFor};
