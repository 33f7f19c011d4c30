import type { Command } from '../command';
import { dbCheck } from './db-check';
import { dbCopy } from './db-copy';
import { exportGgufCommand } from './export-gguf';
import { exportWeights } from './export-weights';
import { runsCompare } from './runs-compare';
import { runsExport } from './runs-export';
import { runsImport } from './runs-import';
import { runsList } from './runs-list';
import { runsShow } from './runs-show';
import { serve } from './serve';
import { worker } from './worker';

/** Every `rred` subcommand. Add new commands here (their module exports a `Command`). */
export const COMMANDS: Command[] = [
  runsList,
  runsShow,
  runsCompare,
  runsExport,
  runsImport,
  dbCheck,
  dbCopy,
  serve,
  worker,
  exportWeights,
  exportGgufCommand,
];
