'use strict';
// Where the API finds the programs it drives: OSF_SANDBOX_LOCAL_BIN /
// OSF_SANDBOX_KUBERNETES_BIN when set (a build tree, a system package), else
// the platform package npm installed next to this one.
const path = require('node:path');
const {selectPackage} = require('./platform.js');

const OVERRIDES = {
  'sandbox-local': 'OSF_SANDBOX_LOCAL_BIN',
  'sandbox-kubernetes': 'OSF_SANDBOX_KUBERNETES_BIN',
};

function glibcVersion() {
  if (process.platform !== 'linux') return undefined;
  const report = process.report && process.report.getReport();
  return report && report.header ? report.header.glibcVersionRuntime : undefined;
}

function programPath(program) {
  const override = process.env[OVERRIDES[program]];
  if (override) return override;
  const choice = selectPackage(process.platform, process.arch, glibcVersion());
  if (choice.error) throw new Error(`${program}: ${choice.error}`);
  try {
    return path.join(path.dirname(require.resolve(`${choice.pkg}/package.json`)), 'bin', program);
  } catch {
    throw new Error(`${program}: ${choice.pkg} is not installed (npm installs it as an optional dependency; reinstall without --omit=optional)`);
  }
}

module.exports = {programPath};
