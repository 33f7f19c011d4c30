/**
 * The pages' script (bundled by src/bundle.ts). Each page's <body data-page> names what to render;
 * a failure shows one error line on the page and goes to the console (the browser test fails on it).
 */
import { comparePage } from './compare-page';
import { showError } from './dom';
import { figuresPage } from './figures-page';
import { runPage } from './run-page';
import { runsPage } from './runs-page';

const PAGES: Record<string, () => Promise<void>> = {
  runs: runsPage,
  run: runPage,
  compare: comparePage,
  figures: figuresPage,
  tables: async () => undefined,
};

async function start(): Promise<void> {
  const page = document.body.dataset.page ?? '';
  const render = PAGES[page];
  try {
    if (!render) throw new Error(`unknown page '${page}'`);
    await render();
    document.body.dataset.ready = 'true';
  } catch (err) {
    showError((err as Error).message);
    console.error(err);
    document.body.dataset.ready = 'error';
  }
}

void start();
