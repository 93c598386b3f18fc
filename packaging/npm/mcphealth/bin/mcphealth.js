#!/usr/bin/env node
// `mcphealth` for a person at a terminal, from npm: starts the native front of this platform's package
// (@mcphealth/<os>-<cpu>, an optional dependency) with the same arguments, and exits as it exits. No hook runs this
// file: `mcphealth install` registers the native binary's own path (a node start would cost every hook call about
// 40 ms), which is the path this file starts it by.
'use strict';
const { spawnSync } = require('child_process');
const path = require('path');

const platform = `${process.platform}-${process.arch}`;
const pkg = `@mcphealth/${platform}`;
let front;
try {
  front = path.join(path.dirname(require.resolve(`${pkg}/package.json`)), 'bin', 'mcphealth');
} catch (e) {
  process.stderr.write(
    `mcphealth: no native mcphealth for ${platform}: ${pkg} is not installed (npm installs it with mcphealth ` +
      `where it exists: linux-x64, darwin-arm64, darwin-x64)\n`
  );
  process.exit(127);
}
const run = spawnSync(front, process.argv.slice(2), { stdio: 'inherit' });
if (run.error) {
  process.stderr.write(`mcphealth: cannot start ${front}: ${run.error.message}\n`);
  process.exit(127);
}
if (run.signal) process.kill(process.pid, run.signal);
process.exit(run.status === null ? 1 : run.status);
