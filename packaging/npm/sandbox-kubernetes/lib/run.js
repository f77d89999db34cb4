'use strict';
// Runs one of the native programs from the platform package with this
// process's arguments, standard streams and exit status.
const {spawn} = require('node:child_process');
const path = require('node:path');
const {selectPackage} = require('./platform.js');

function fail(program, message) {
  process.stderr.write(`${program}: ${message}\n`);
  process.exit(1);
}

function glibcVersion() {
  if (process.platform !== 'linux') return undefined;
  const report = process.report && process.report.getReport();
  return report && report.header ? report.header.glibcVersionRuntime : undefined;
}

function binaryPath(program) {
  const choice = selectPackage(process.platform, process.arch, glibcVersion());
  if (choice.error) fail(program, choice.error);
  try {
    return path.join(path.dirname(require.resolve(`${choice.pkg}/package.json`)), 'bin', program);
  } catch {
    return fail(program, `${choice.pkg} is not installed (npm installs it as an optional dependency; reinstall without --omit=optional)`);
  }
}

function run(program) {
  const child = spawn(binaryPath(program), process.argv.slice(2), {stdio: 'inherit'});
  // The adapter cleans up a half-made sandbox on SIGINT/SIGTERM: pass them on.
  const forward = (signal) => () => child.kill(signal);
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  const handlers = signals.map((s) => [s, forward(s)]);
  for (const [s, h] of handlers) process.on(s, h);
  child.on('error', (err) => fail(program, `cannot run ${err.path || program}: ${err.code || err.message}`));
  child.on('exit', (code, signal) => {
    for (const [s, h] of handlers) process.off(s, h);
    if (signal) process.kill(process.pid, signal); // the same death as the program's
    else process.exit(code);
  });
}

module.exports = {run};
