import { readJsonFile, UserError } from '@rred/core';
import { Tokenizer } from '@rred/lm';
import { z } from 'zod';
import { chatSchema, QWEN3_CHAT, type ChatConfig, type RemoteConfig } from './config';
import { requestJson, requestOptional, type HttpOptions } from './http';
import { expectResponse } from './validate';

/** What the client learns from the server once, at connect time; the store records it with the run. */
export interface ServerInfo {
  url: string;
  api: 'sglang' | 'openai';
  /** The model name the server reports (GET /v1/models), or the configured one. */
  modelName: string;
  maxLength: number;
  /** The served checkpoint's identity (checkpointHash in @rred/lm), when the server says (rred serve does); null otherwise. */
  checkpointHash: string | null;
}

const modelsResponse = z
  .object({
    data: z
      .array(
        z
          .object({
            id: z.string(),
            max_model_len: z.number().int().positive().nullable().optional(),
            /** rred serve's extension. */
            rred: z.object({ checkpoint_hash: z.string() }).passthrough().optional(),
          })
          .passthrough(),
      )
      .min(1),
  })
  .passthrough();

/** rred serve's GET /rred/tokenizer: the served checkpoint's tokenizer and chat layout. */
const tokenizerResponse = z.object({ tokenizer: z.unknown(), chat: chatSchema }).passthrough();

/** Model name, context length and checkpoint identity from GET /v1/models (SGLang and vLLM both serve it). */
export async function readServerInfo(config: RemoteConfig, http: HttpOptions): Promise<ServerInfo> {
  const url = `${config.url}/v1/models`;
  const models = expectResponse(modelsResponse, await requestJson('GET', url, undefined, http), `GET ${url}`);
  const entry = config.model === null ? models.data[0] : models.data.find((m) => m.id === config.model);
  if (!entry) {
    throw new UserError(`model '${config.model}': the server at ${config.url} serves ${models.data.map((m) => `'${m.id}'`).join(', ')}`);
  }
  const maxLength = config.maxLength ?? entry.max_model_len ?? null;
  if (maxLength === null)
    throw new UserError(`maxLength: GET ${url} reports no max_model_len for '${entry.id}'; set maxLength in the config`);
  return { url: config.url, api: config.api, modelName: entry.id, maxLength, checkpointHash: entry.rred?.checkpoint_hash ?? null };
}

/** The tokenizer (configured file, else the server's GET /rred/tokenizer) and the chat layout (configured, else the server's, else Qwen3's). */
export async function readTokenizer(config: RemoteConfig, http: HttpOptions): Promise<{ tokenizer: Tokenizer; chat: ChatConfig }> {
  const url = `${config.url}/rred/tokenizer`;
  const served = config.tokenizer === null || config.chat === null ? await requestOptional('GET', url, undefined, http) : null;
  const fromServer = served === null ? null : expectResponse(tokenizerResponse, served, `GET ${url}`);
  let tokenizer: Tokenizer;
  if (config.tokenizer !== null)
    tokenizer = Tokenizer.fromJSON(readJsonFile(config.tokenizer, 'tokenizer file'), `tokenizer ${config.tokenizer}`);
  else if (fromServer) tokenizer = Tokenizer.fromJSON(fromServer.tokenizer, `GET ${url}`);
  else
    throw new UserError(
      `tokenizer: the server at ${config.url} has no GET /rred/tokenizer (only rred serve has it); pass a tokenizer file`,
    );
  return { tokenizer, chat: config.chat ?? fromServer?.chat ?? QWEN3_CHAT };
}
