import { Template } from '@huggingface/jinja';
import { z } from 'zod';
import { parseConfig, UserError } from '@rred/core';
import { boxedContents } from './boxed';

/**
 * What differs between model families in the text layer: the thinking markers, the end-of-sequence text,
 * the reflection words that start a segment, how the final answer is written, and the chat template.
 */
const modelFamilySchema = z
  .object({
    name: z.string().min(1).describe('Family name (recorded with runs).'),
    think: z.string().min(1).default('<think>').describe('Text that opens the thinking.'),
    endThink: z.string().min(1).default('</think>').describe('Text that closes the thinking and starts the answer.'),
    eos: z.string().min(1).describe('Text of the token that ends a completion (e.g. <|im_end|>). Required.'),
    markers: z
      .array(z.string().min(1))
      .default(['Wait', 'But', 'Alternatively', 'Hmm'])
      .describe('Reflection words that start a segment (keyword / hybrid segmentation).'),
    answerFormat: z
      .enum(['boxed', 'plain'])
      .default('boxed')
      .describe("'boxed': the answer is the last \\boxed{} after the thinking (MATH, R1-style prompts); 'plain': the whole answer text."),
    instruction: z
      .string()
      .default('')
      .describe('Appended to the problem in the user message (e.g. the \\boxed{} instruction); empty: nothing appended.'),
    chatTemplate: z
      .string()
      .nullable()
      .default(null)
      .describe("Jinja chat template; null: the tokenizer's (tokenizer_config.json chat_template)."),
  })
  .strict();

type ModelFamily = z.infer<typeof modelFamilySchema>;

const BOXED = 'Please reason step by step, and put your final answer within \\boxed{}.';

/** Shipped families: the Qwen3 and DeepSeek-R1-distill conventions, and the lab's own model. */
export const MODEL_FAMILIES = {
  qwen3: { name: 'qwen3', eos: '<|im_end|>', instruction: `\n${BOXED}` },
  'deepseek-r1-distill': { name: 'deepseek-r1-distill', eos: '<｜end▁of▁sentence｜>', instruction: `\n${BOXED}` },
  rred: {
    name: 'rred',
    eos: '<eos>',
    markers: ['wait'],
    answerFormat: 'plain',
    chatTemplate: "<bos>{{ messages[0]['content'] }}<think>",
  },
} as const satisfies Record<string, z.input<typeof modelFamilySchema>>;

/** A family config by preset name or object; errors name the field. */
export function modelFamily(input: keyof typeof MODEL_FAMILIES | unknown, source = 'model family'): ModelFamily {
  if (typeof input === 'string') {
    const preset = (MODEL_FAMILIES as Record<string, unknown>)[input];
    if (!preset)
      throw new UserError(`${source}: got '${input}', expected one of ${Object.keys(MODEL_FAMILIES).join(', ')} or a config object`);
    return parseConfig(modelFamilySchema, preset, source);
  }
  return parseConfig(modelFamilySchema, input, source);
}

/**
 * The prompt text for one problem: the chat template rendered with one user message and the generation
 * prompt, ending with the thinking marker (appended, with a newline, when the template does not open the
 * thinking itself, as Qwen3's does not).
 */
export function promptText(family: ModelFamily, problem: string, tokenizerTemplate: string | null = null): string {
  const source = family.chatTemplate ?? tokenizerTemplate;
  if (source === null)
    throw new UserError(`model family ${family.name}: no chat template (set chatTemplate, or use a tokenizer_config.json that has one)`);
  let rendered: string;
  try {
    rendered = new Template(source).render({
      messages: [{ role: 'user', content: `${problem}${family.instruction}` }],
      add_generation_prompt: true,
      enable_thinking: true,
      bos_token: '',
      eos_token: family.eos,
    });
  } catch (err) {
    throw new UserError(`model family ${family.name}: the chat template failed to render (${(err as Error).message.split('\n')[0]})`);
  }
  return rendered.trimEnd().endsWith(family.think) ? rendered : `${rendered}${family.think}\n`;
}

/** The answer written after the thinking: the last \boxed{} ('boxed') or the trimmed text ('plain'); null when absent. */
export function answerOf(family: ModelFamily, afterThinking: string): string | null {
  const text = afterThinking.split(family.eos)[0];
  if (family.answerFormat === 'plain') return text.trim() === '' ? null : text.trim();
  const boxes = boxedContents(text);
  return boxes.length === 0 ? null : boxes[boxes.length - 1];
}
