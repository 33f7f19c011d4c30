import { runMain } from '@rred/core';
import { runCli } from './cli';

runMain(() => runCli(process.argv.slice(2), { out: (text) => process.stdout.write(text), env: process.env }));
