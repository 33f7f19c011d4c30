import { z } from 'zod';

/** Arithmetic operators a step may use; every result is reduced modulo `modulus`. */
export const OPERATORS = ['+', '-', '*'] as const;
export type Operator = (typeof OPERATORS)[number];

/** Variable names in definition order; a problem has at most this many steps. */
export const VARIABLE_NAMES = 'abcdefghijkl';

/**
 * Knobs of the synthetic multi-step modular-arithmetic task (the verifiable task the reasoning model
 * is trained on; it stands in for the paper's math datasets, Sec. 4). Cross-field checks are in
 * `checkGeneratorConfig`.
 */
export const GeneratorConfigSchema = z
  .object({
    minSteps: z
      .number()
      .int()
      .min(1)
      .max(VARIABLE_NAMES.length)
      .default(3)
      .describe('Fewest steps (variables) in a problem. Integer in 1..12; must be <= maxSteps.'),
    maxSteps: z
      .number()
      .int()
      .min(1)
      .max(VARIABLE_NAMES.length)
      .default(8)
      .describe('Most steps (variables) in a problem. Integer in 1..12. Errors compound with length.'),
    operandMax: z
      .number()
      .int()
      .min(1)
      .max(99)
      .default(9)
      .describe('Literal operands are drawn uniformly from 0..operandMax (9: single digits).'),
    modulus: z.number().int().min(2).max(100).default(10).describe('Every step result is reduced modulo this (non-negative remainder).'),
    operators: z
      .array(z.enum(OPERATORS))
      .min(1)
      .default(['+', '-'])
      .describe(
        "Operators steps draw from, uniformly; allowed '+', '-', '*'. '*' is left out of the shipped splits: " +
          'modulo 10 it maps many inputs to 0 (answer 0 for ~20% of problems), so earlier steps stop mattering; ' +
          "with '+' and '-' each step is a bijection in each operand, so an error almost always changes the answer.",
      ),
    referenceRate: z
      .number()
      .min(0)
      .max(1)
      .default(0.6)
      .describe(
        'Probability that an operand of a non-first step refers to an earlier variable instead of a literal. ' +
          'In [0,1]. Lower values give more independent steps, hence more valid solution orders.' +
          'Regardless of it, every variable is used by a later one, so the queried last variable depends on all.',
      ),
  })
  .strict();

export type GeneratorConfig = z.infer<typeof GeneratorConfigSchema>;
