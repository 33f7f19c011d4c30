/**
 * Import boundaries of the monorepo (`npm run lint:deps`; also in .ci/run). The layering, bottom up:
 * core → engine → lm → segmentation, tasks → estimators, training, evaluation, results-store → recipes, cli →
 * experiments. Every rule is "never"; a violation names the importing file and the imported one. That each
 * workspace declares the npm packages it imports is knip's check (knip.jsonc), run beside this one.
 */
const ENTRY_POINTS = '(src/index|testing|value-head)\\.ts$';
/**
 * The folders of experiments/src that are shared infrastructure rather than one experiment: helpers and config
 * pieces (common), text and plot writers (report), the re-render commands (render) and the sweep runner (sweep).
 * Every other folder of experiments/src is one experiment (bench, correlation, finetune, gold, lm-quality,
 * mc-variance, and any added later); experiments/src/registry.ts lists them.
 */
const EXPERIMENTS_SHARED = '(common|report|render|sweep)';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import cycles, inside a package or across packages.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'training-only-core-engine-lm',
      comment: 'training depends on core, engine and lm only; what composes it with tasks, credit and the store is in recipes.',
      severity: 'error',
      from: { path: '^packages/training/' },
      to: { path: '^(packages/(?!(core|engine|lm|training)/)|experiments/)' },
    },
    {
      name: 'training-not-estimators-segmentation-evaluation-tasks',
      comment: 'Spelled out (the rule above covers it): training never imports estimators, segmentation, evaluation or tasks.',
      severity: 'error',
      from: { path: '^packages/training/' },
      to: { path: '^packages/(estimators|segmentation|evaluation|tasks)/' },
    },
    {
      name: 'evaluation-not-results-store',
      comment: 'evaluation computes metrics; writing them to the store is the job of a command (recipes, experiments).',
      severity: 'error',
      from: { path: '^packages/evaluation/' },
      to: { path: '^packages/results-store/' },
    },
    {
      name: 'packages-not-experiments',
      comment: 'Libraries never import the app layer.',
      severity: 'error',
      from: { path: '^packages/' },
      to: { path: '^experiments/' },
    },
    {
      name: 'experiment-not-other-experiment',
      comment:
        'An experiment folder imports only itself and the shared folders (common, report, render, sweep) and ' +
        'registry.ts; what two experiments share lives in experiments/src/common/.',
      severity: 'error',
      from: { path: '^experiments/src/([^/]+)/', pathNot: `^experiments/src/${EXPERIMENTS_SHARED}/` },
      to: {
        path: '^experiments/src/',
        pathNot: ['^experiments/src/$1/', `^experiments/src/${EXPERIMENTS_SHARED}/`, '^experiments/src/registry\\.ts$'],
      },
    },
    {
      name: 'experiment-helpers-not-experiments',
      comment: 'The shared helpers (common, report) import no experiment folder, the registry or the commands built on it.',
      severity: 'error',
      from: { path: '^experiments/src/(common|report)/' },
      to: { path: '^experiments/src/', pathNot: '^experiments/src/(common|report)/' },
    },
    {
      name: 'only-through-entry-points',
      comment:
        'Another package is imported only through its declared entry points: src/index.ts, or testing.ts / value-head.ts ' +
        'at the package root (@rred/x, @rred/x/testing, @rred/x/value-head).',
      severity: 'error',
      from: { path: '^(packages/([^/]+)|experiments|test)/' },
      to: { path: '^packages/[^/]+/', pathNot: [`^packages/[^/]+/${ENTRY_POINTS}`, '^packages/$2/'] },
    },
    {
      name: 'no-unresolvable',
      comment: 'Every import resolves.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|native/build|results)/' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    combinedDependencies: false,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
      extensions: ['.ts', '.js', '.json', '.d.ts'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
