#!/usr/bin/env node
// The `rred` command: TypeScript sources run directly through tsx's CommonJS hook.
require('tsx/cjs');
require('../src/main.ts');
