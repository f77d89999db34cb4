'use strict';
// node --test packaging/npm/sandbox-kubernetes/lib/platform.test.js
const test = require('node:test');
const assert = require('node:assert');
const {selectPackage} = require('./platform.js');

const cases = [
  // platform, arch, glibc, package or error fragment
  ['linux', 'x64', '2.36', {pkg: '@osf-sandbox/sandbox-kubernetes-linux-x64'}],
  ['linux', 'x64', '2.31', {pkg: '@osf-sandbox/sandbox-kubernetes-linux-x64'}],
  ['linux', 'x64', '3.0', {pkg: '@osf-sandbox/sandbox-kubernetes-linux-x64'}],
  ['linux', 'x64', '2.28', {error: 'glibc 2.28 is older than 2.31'}],
  ['linux', 'x64', undefined, {error: 'this Linux has no glibc'}],
  ['linux', 'arm64', '2.36', {error: 'no binary for linux-arm64'}],
  ['darwin', 'arm64', undefined, {error: 'no binary for darwin-arm64'}],
  ['win32', 'x64', undefined, {error: 'no binary for win32-x64'}],
];

for (const [platform, arch, glibc, want] of cases) {
  test(`${platform} ${arch} glibc ${glibc}`, () => {
    const got = selectPackage(platform, arch, glibc);
    if (want.pkg) {
      assert.deepStrictEqual(got, want);
    } else {
      assert.ok(got.error.includes(want.error), got.error);
      assert.ok(!got.error.includes('\n'), 'one line');
    }
  });
}
