#!/bin/sh
# Regenerates packages/lm/vendor/tfjs-core-gradients.js: tfjs-core's gradient definitions, which the
# package ships only as ES modules (its CommonJS main registers none), bundled to CommonJS. The bundle
# registers into tfjs's global gradient registry and runs its ops on the global engine, so it works
# with the one tfjs-core instance the repo uses. Run from the repo root after a tfjs-core upgrade.
set -e
npx esbuild node_modules/@tensorflow/tfjs-core/dist/register_all_gradients.js \
  --bundle --platform=node --format=cjs --minify --legal-comments=eof \
  --outfile=packages/lm/vendor/tfjs-core-gradients.js
