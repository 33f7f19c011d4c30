import { parseConfig } from '@rred/core';
import { z } from 'zod';

/** Qwen3's chat layout: the prompt a thinking model sees, ending in the opened `<think>` block. */
export const QWEN3_CHAT = {
  template: '<|im_start|>user\n{problem}<|im_end|>\n<|im_start|>assistant\n<think>\n',
  eos: '<|im_end|>',
  think: '<think>',
  endThink: '</think>',
} as const;

export const chatSchema = z
  .object({
    template: z
      .string()
      .refine((t) => t.split('{problem}').length === 2, { message: "expected exactly one '{problem}' placeholder" })
      .describe('Prompt text around the problem; `{problem}` is replaced by the problem text, once. It must end with the think token.'),
    eos: z.string().min(1).describe('The end-of-sequence token text (sampling stops after it). Must encode to one token.'),
    think: z.string().min(1).describe('The token that opens the thinking span. Must encode to one token.'),
    endThink: z.string().min(1).describe('The token that closes the thinking span. Must encode to one token.'),
  })
  .strict();

export type ChatConfig = z.infer<typeof chatSchema>;

/**
 * One config for the remote LanguageModel. Defaults suit a local SGLang server; every option's default
 * is stated in its description.
 */
export const remoteConfigSchema = z
  .object({
    url: z
      .string()
      .url()
      .refine((u) => /^https?:\/\//.test(u), { message: 'expected an http:// or https:// URL' })
      .describe('Base URL of the server, e.g. http://127.0.0.1:30000 (no path). Required.'),
    api: z
      .enum(['sglang', 'openai'])
      .default('sglang')
      .describe(
        "'sglang': SGLang's native POST /generate (input_ids, logprob_start_len; the radix cache serves shared prefixes). " +
          "'openai': the vLLM /v1/completions subset (token-id prompts, prompt_logprobs, n, seed).",
      ),
    model: z
      .string()
      .min(1)
      .nullable()
      .default(null)
      .describe("Model name sent as `model` in /v1/completions; null = the first entry of the server's GET /v1/models."),
    tokenizer: z
      .string()
      .min(1)
      .nullable()
      .default(null)
      .describe(
        "Tokenizer file (the project's tokenizer JSON, {kind: 'char', ...}); null = the server's GET /rred/tokenizer (rred serve has it).",
      ),
    chat: chatSchema
      .nullable()
      .default(null)
      .describe("Chat template and special tokens; null = the server's (rred serve reports its own) or else Qwen3's."),
    maxLength: z
      .number()
      .int()
      .min(2)
      .nullable()
      .default(null)
      .describe("Longest sequence the model accepts; null = max_model_len of the server's GET /v1/models."),
    scoreBatchSize: z
      .number()
      .int()
      .min(1)
      .default(64)
      .describe(
        'Most scored sequences in one HTTP request; whole jobs (one trace and its suffixes) are kept together up to this size, ' +
          'so the server can share their prefix.',
      ),
    sampleBatchSize: z
      .number()
      .int()
      .min(0)
      .default(0)
      .describe(
        'Prompts per sampling request; 0 = all prompts of a sample() call in one request, the only setting whose draws equal ' +
          'the in-process sampler for the same Rng (see README, seeds).',
      ),
    concurrency: z.number().int().min(1).default(4).describe('HTTP requests in flight at once.'),
    timeoutMs: z.number().int().min(1).default(300_000).describe('Per-request timeout in ms; a timeout is retried.'),
    retries: z
      .number()
      .int()
      .min(0)
      .default(3)
      .describe('Retries after the first attempt, on a timeout, a connection error or an HTTP 5xx (never on a 4xx).'),
    backoffMs: z.number().min(0).default(500).describe('Wait before retry i (i = 1, 2, ...): backoffMs · 2^(i−1).'),
    entropyTopK: z
      .number()
      .int()
      .min(1)
      .default(20)
      .describe(
        'Top-k log-probs requested per sampled token when the server reports no exact entropy (rred serve does): the entropy is then ' +
          '−Σ_topk p log p − r log r with r = 1 − Σ_topk p, a lower bound.',
      ),
  })
  .strict();

export type RemoteConfig = z.infer<typeof remoteConfigSchema>;

/** Parses a remote config (one-line errors naming the field). */
export function parseRemoteConfig(value: unknown, source = 'remote model config'): RemoteConfig {
  return parseConfig(remoteConfigSchema, value, source);
}

/** The project's own layout (promptTokens in @rred/tasks): `<bos>` problem `<think>`; what `rred serve` reports for its checkpoints. */
export const RRED_CHAT: ChatConfig = { template: '<bos>{problem}<think>', eos: '<eos>', think: '<think>', endThink: '</think>' };
