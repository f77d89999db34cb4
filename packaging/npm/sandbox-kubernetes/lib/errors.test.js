'use strict';
// The CLIs' exit codes and error lines as the API's error classes.
const {test} = require('node:test');
const assert = require('node:assert/strict');
const {errorFor, SandboxError, InvalidSpecError, SandboxNotFoundError} = require('./errors.js');

test('exit 2 is an InvalidSpecError with the last error line, without the prefix', () => {
  const error = errorFor('sandbox-local', 2, 'sandbox-local: spec.json: $.egres: unknown field\n');
  assert.ok(error instanceof InvalidSpecError && error instanceof SandboxError);
  assert.equal(error.message, 'spec.json: $.egres: unknown field');
  assert.equal(error.exitCode, 2);
});

test('"no sandbox <ID>" is a SandboxNotFoundError; other failures SandboxErrors', () => {
  const missing = errorFor('sandbox-kubernetes', 1, 'sandbox-kubernetes: no sandbox 0123456789ab\n');
  assert.ok(missing instanceof SandboxNotFoundError);
  const other = errorFor('sandbox-kubernetes', 1, 'progress\nsandbox-kubernetes: kubectl: forbidden\n');
  assert.ok(other instanceof SandboxError && !(other instanceof SandboxNotFoundError));
  assert.equal(other.message, 'kubectl: forbidden');
  assert.equal(errorFor('sandbox-local', 1, '').message, 'sandbox-local exited 1');
});
