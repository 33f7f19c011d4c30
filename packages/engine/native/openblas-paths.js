// Locates the OpenBLAS C header and library. Used by build.js (to decide whether a build is possible)
// and by binding.gyp (`<!(node openblas-paths.js include)`), so both agree on one answer.
'use strict';
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');

function multiarch() {
  try {
    return execFileSync('gcc', ['-print-multiarch'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
}

function findOpenblas() {
  const arch = multiarch();
  const includeDirs = [
    process.env.RRED_OPENBLAS_INCLUDE,
    arch && `/usr/include/${arch}`,
    '/usr/include/openblas',
    '/usr/include',
    '/usr/local/include',
    '/opt/OpenBLAS/include',
  ].filter(Boolean);
  const libDirs = [
    process.env.RRED_OPENBLAS_LIB,
    arch && `/usr/lib/${arch}`,
    '/usr/lib64',
    '/usr/lib',
    '/usr/local/lib',
    '/opt/OpenBLAS/lib',
  ].filter(Boolean);
  const include = includeDirs.find((d) => fs.existsSync(path.join(d, 'cblas.h')) && isOpenblasHeader(d));
  const lib = libDirs.find((d) => fs.existsSync(path.join(d, 'libopenblas.so')));
  return { include: include ?? null, lib: lib ?? null };
}

// Debian's generic cblas.h (from libblas-dev) lacks openblas_set_num_threads; prefer OpenBLAS's own.
function isOpenblasHeader(dir) {
  try {
    return /openblas/i.test(fs.readFileSync(path.join(dir, 'cblas.h'), 'utf8'));
  } catch {
    return false;
  }
}

module.exports = { findOpenblas };

if (require.main === module) {
  const found = findOpenblas();
  const what = process.argv[2];
  if (what === 'include') process.stdout.write(found.include ?? '');
  else if (what === 'lib') process.stdout.write(found.lib ?? '');
  else process.stdout.write(JSON.stringify(found) + '\n');
}
