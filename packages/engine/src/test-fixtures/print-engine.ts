// Used by init.test.ts: initialises the engine in a fresh process (env decides) and prints its info.
import { runMain } from '@rred/core';
import { initEngine } from '../init';

runMain(async () => {
  const first = await initEngine();
  const second = await initEngine({ backend: 'cpu' }); // idempotent: same info whatever the options
  process.stdout.write(JSON.stringify({ info: first, same: first === second }));
});
