import type { Operator } from '../config';

/**
 * The free-form (prose) rendering of the task: the same problems written and solved in words. A template
 * is a sentence with placeholders: `{x}` a variable name, `{l}` `{r}` the operand values, `{v}` the
 * result, `{deps}` the variables a step reads (`d` or `d and a`), `{k}` a step number. Every line of a
 * solution is one sentence ending in `.`, one line per sentence, so newline segmentation still cuts
 * between steps.
 */

/** The model-side step lines, per operator: the phrasings the SFT corpus draws from, uniformly. */
export const STEP_TEMPLATES: Record<Operator, readonly string[]> = {
  '+': [
    '{x} is {l} plus {r}, which is {v}.',
    'Adding {r} to {l} gives {x} = {v}.',
    'Now {x}: {l} + {r} = {v}.',
    '{x} = {l} + {r}, so {x} is {v}.',
    'The sum of {l} and {r} is {v}, so {x} is {v}.',
  ],
  '-': [
    '{x} is {l} minus {r}, which is {v}.',
    'Taking {r} from {l} gives {x} = {v}.',
    'Now {x}: {l} - {r} = {v}.',
    '{x} = {l} - {r}, so {x} is {v}.',
    'Subtracting {r} from {l} leaves {v}, so {x} is {v}.',
  ],
  '*': [
    '{x} is {l} times {r}, which is {v}.',
    'Multiplying {l} by {r} gives {x} = {v}.',
    'Now {x}: {l} * {r} = {v}.',
    '{x} = {l} * {r}, so {x} is {v}.',
    'The product of {l} and {r} is {v}, so {x} is {v}.',
  ],
};

/** Optional restatements before a step that reads variables: they assign nothing. */
export const RESTATE_TEMPLATES: readonly string[] = [
  'We still need {x}, which uses {deps}.',
  'Next comes {x}, which needs {deps}.',
  'Still open: {x}, built from {deps}.',
  'To get {x} we use {deps}.',
];

/**
 * Openings of a `wait` correction: the opening, then a step template for the corrected line (its first
 * letter lower-cased when it is a word). The word `wait` is the segmentation marker (Sec. 3.1).
 */
export const CORRECTION_PREFIXES: readonly string[] = ['Wait, ', 'Wait, no: ', 'Wait, that is wrong. ', 'Wait, let me redo {x}: '];

/**
 * The dataset's reference solutions, a style of their own: the training corpus never holds a line in
 * it (no `Step` at all), so a reference says the same thing as the model in another wording.
 */
export const REFERENCE_TEMPLATE = 'Step {k}. {x} = {l} {op} {r} = {v}.';

/** Operator words of the problem text and of the `{l} plus {r}` templates. */
export const OPERATOR_WORDS: Record<Operator, string> = { '+': 'plus', '-': 'minus', '*': 'times' };

/** Fills a template; every placeholder in it must be given. */
export function fill(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{([a-z]+)\}/g, (_, key: string) => {
    const v = values[key];
    if (v === undefined) throw new Error(`template ${JSON.stringify(template)}: no value for {${key}}`);
    return String(v);
  });
}

/** The text after a correction opening: a template that starts with a word starts lower-case. */
export function lowerFirstWord(text: string): string {
  return /^[A-Z][a-z]/.test(text) ? text[0].toLowerCase() + text.slice(1) : text;
}
