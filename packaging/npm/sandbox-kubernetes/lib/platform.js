'use strict';
// Which package holds the binaries for this machine: the decision alone, no
// I/O, so that platform.test.js can walk the table.

const SCOPE = '@osf-sandbox';
// process.platform + process.arch -> the package built for it.
const PACKAGES = {
  'linux x64': `${SCOPE}/sandbox-kubernetes-linux-x64`,
};
// The binaries are linked against Debian 11's glibc (docs/release.md).
const MIN_GLIBC = [2, 31];

function parseVersion(text) {
  const m = /^(\d+)\.(\d+)/.exec(text || '');
  return m ? [Number(m[1]), Number(m[2])] : null;
}

// glibcVersion: process.report's glibcVersionRuntime, undefined on musl.
// Returns {pkg} or {error}: a one-line message for the user.
function selectPackage(platform, arch, glibcVersion) {
  const pkg = PACKAGES[`${platform} ${arch}`];
  const supported = 'Linux x86-64 with glibc 2.31 or newer';
  if (!pkg) {
    return {error: `no binary for ${platform}-${arch}; the npm package supports ${supported} (elsewhere use the image or build from source)`};
  }
  if (platform === 'linux') {
    const version = parseVersion(glibcVersion);
    if (!version) {
      return {error: `this Linux has no glibc (musl?); the npm package supports ${supported} (elsewhere use the image or build from source)`};
    }
    if (version[0] < MIN_GLIBC[0] || (version[0] === MIN_GLIBC[0] && version[1] < MIN_GLIBC[1])) {
      return {error: `glibc ${glibcVersion} is older than 2.31; the npm package supports ${supported}`};
    }
  }
  return {pkg};
}

module.exports = {selectPackage, PACKAGES};
