import type { LanguageModel, ScoreJob } from '@rred/lm';

/**
 * One sequence to score from `start` on (start 0: the first token has no log-prob, reported as null);
 * start = ids.length is a prefill only (SGLang: return_logprob false, max_new_tokens 0): it scores nothing
 * but makes `ids` the shared sequence of the sequences it prefixes, as it fills a radix cache.
 */
export interface ScoreTask {
  ids: number[];
  start: number;
}

export interface ScoreAnswer {
  /** [ids.length − start]: log p(ids[t] | ids[<t]); null for t = 0. */
  logprobs: (number | null)[];
  /** Token positions forwarded for this sequence; the group's shared sequence is counted at its leader. */
  forwarded: number;
}

interface Group {
  /** The shared sequence: the longest scored prefix (or prefill) among the members. */
  base: number[];
  /** The task whose prefix is the base (it carries the base's forward in its count). */
  leader: number;
  members: number[];
}

/**
 * Scores sequences the way a prefix cache would: tasks whose prefixes nest (ids[<start_j] is a prefix
 * of ids[<start_i]) form one job of the in-process scorer, with the longest prefix as the shared
 * sequence, so a trace and its K suffixes cost |sequence| + Σ suffix, as in-process. The members keep
 * their order in the request, so a client that sends a job as (prefill of its sequence, then its
 * requests in order) gets exactly the in-process `scoreAfterPrefixes(sequence, requests)` call. The
 * leader carries the shared sequence in its forwarded count; the others count their suffix only.
 */
export async function scoreGrouped(lm: LanguageModel, tasks: readonly ScoreTask[]): Promise<ScoreAnswer[]> {
  const at = (i: number) => Math.max(tasks[i].start, 1);
  const order = tasks.map((_, i) => i).sort((a, b) => at(b) - at(a) || a - b);
  const groups: Group[] = [];
  for (const i of order) {
    const ids = tasks[i].ids;
    const group = groups.find((g) => g.base.length >= at(i) && ids.slice(0, at(i)).every((t, k) => t === g.base[k]));
    if (group) group.members.push(i);
    else groups.push({ base: ids.slice(0, at(i)), leader: i, members: [i] });
  }
  for (const g of groups) g.members.sort((a, b) => a - b);
  const suffixOf = (i: number) => tasks[i].ids.slice(at(i));
  const scored = groups.filter((g) => g.members.some((i) => suffixOf(i).length > 0));
  const jobs: ScoreJob[] = scored.map((g) => ({
    sequence: g.base,
    requests: g.members.filter((i) => suffixOf(i).length > 0).map((i) => ({ exitAt: at(i), suffix: suffixOf(i) })),
  }));
  const results = jobs.length > 0 ? await lm.scoreBatch(jobs) : [];
  const answers = tasks.map((t): ScoreAnswer => ({ logprobs: t.start === 0 ? [null] : [], forwarded: 0 }));
  scored.forEach((g, gi) => {
    const { logprobs, cost } = results[gi];
    const withSuffix = g.members.filter((i) => suffixOf(i).length > 0);
    let others = 0;
    withSuffix.forEach((i, r) => {
      answers[i].logprobs.push(...logprobs[r]);
      if (i !== g.leader) {
        answers[i].forwarded = suffixOf(i).length;
        others += suffixOf(i).length;
      }
    });
    answers[g.leader].forwarded = cost.tokensForwarded - others;
  });
  return answers;
}
